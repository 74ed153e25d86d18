"""xar_convert_node: the converter behind a ROS 2 service, in its own process."""
import pytest

pytest.importorskip("naoqi_qicore.converter.loader", reason="needs the converter")
from naoqi_qicore.srv import Convert  # noqa: E402


def test_convert_service(tmp_path, probe, programs, example_behavior) -> None:
    programs("convert")
    out = tmp_path / "out"
    request = Convert.Request(inputs=[str(example_behavior)], output_dir=str(out))
    answer = probe.call(Convert, "xar_convert/convert", request, timeout=60)
    assert answer.success, answer.message
    assert answer.outputs == [str(out / "wave_hello")]
    assert (out / "wave_hello" / "main.py").is_file()
    again = probe.call(Convert, "xar_convert/convert", request, timeout=60)
    assert again.success is False and "force" in again.message and again.outputs == []


def test_convert_service_with_force_replaces_outputs(tmp_path, probe, programs,
                                                     example_behavior) -> None:
    programs("convert", "-p", "force:=true")
    out = tmp_path / "out"
    (out / "wave_hello").mkdir(parents=True)
    (out / "wave_hello" / "stale.txt").write_text("old")
    answer = probe.call(Convert, "xar_convert/convert", Convert.Request(
        inputs=[str(example_behavior)], output_dir=str(out)), timeout=60)
    assert answer.success, answer.message
    assert not (out / "wave_hello" / "stale.txt").exists()
    assert (out / "wave_hello" / "main.py").is_file()


def test_convert_service_reports_bad_inputs(tmp_path, probe, programs, example_behavior) -> None:
    programs("convert")
    broken = tmp_path / "broken.xar"
    broken.write_text("<ChoregrapheProject xar_version=\"3\"><Box")
    answer = probe.call(Convert, "xar_convert/convert", Convert.Request(
        inputs=[str(broken), str(tmp_path / "missing.xar"), str(example_behavior)],
        output_dir=str(tmp_path / "out")), timeout=60)
    assert answer.success is False
    assert "broken.xar" in answer.message and "missing.xar" in answer.message
    assert answer.outputs == [str(tmp_path / "out" / "wave_hello")]
    empty = probe.call(Convert, "xar_convert/convert", Convert.Request())
    assert empty.success is False and "no inputs" in empty.message
