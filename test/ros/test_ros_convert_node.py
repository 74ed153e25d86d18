"""xar_convert_node: the converter behind a ROS 2 service, in its own process."""
import pytest

pytest.importorskip("naoqi_qicore.converter.loader", reason="needs the converter")
from naoqi_qicore.srv import Convert  # noqa: E402


def roots(behaviors, outputs) -> list:
    """The node's arguments allowing ``behaviors`` as inputs and ``outputs`` as outputs."""
    return ["-p", "behavior_roots:=%s" % [str(path) for path in behaviors],
            "-p", "output_roots:=%s" % [str(path) for path in outputs]]


def test_convert_service(tmp_path, probe, programs, example_behavior) -> None:
    programs("convert", *roots([example_behavior.parent], [tmp_path]))
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
    programs("convert", "-p", "force:=true", *roots([example_behavior.parent], [tmp_path]))
    out = tmp_path / "out"
    (out / "wave_hello").mkdir(parents=True)
    (out / "wave_hello" / "stale.txt").write_text("old")
    answer = probe.call(Convert, "xar_convert/convert", Convert.Request(
        inputs=[str(example_behavior)], output_dir=str(out)), timeout=60)
    assert answer.success, answer.message
    assert not (out / "wave_hello" / "stale.txt").exists()
    assert (out / "wave_hello" / "main.py").is_file()


def test_convert_service_reports_bad_inputs(tmp_path, probe, programs, example_behavior) -> None:
    programs("convert", *roots([tmp_path, example_behavior.parent], [tmp_path]))
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


def test_convert_service_refuses_paths_outside_its_roots(tmp_path, probe, programs,
                                                         example_behavior) -> None:
    """Any peer may call the service: it reads and writes only where it was told."""
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    programs("convert", *roots([example_behavior.parent], [allowed]))
    outside = probe.call(Convert, "xar_convert/convert", Convert.Request(
        inputs=[str(example_behavior)], output_dir=str(tmp_path / "elsewhere")), timeout=60)
    assert outside.success is False and "output_roots" in outside.message
    assert not (tmp_path / "elsewhere").exists()
    escape = probe.call(Convert, "xar_convert/convert", Convert.Request(
        inputs=[str(example_behavior)], output_dir=str(allowed / ".." / "escaped")), timeout=60)
    assert escape.success is False and not (tmp_path / "escaped").exists()
    secret = tmp_path / "private.xar"
    secret.write_bytes(example_behavior.read_bytes())
    unreadable = probe.call(Convert, "xar_convert/convert", Convert.Request(
        inputs=[str(secret)], output_dir=str(allowed)), timeout=60)
    assert unreadable.success is False and "behavior_roots" in unreadable.message
    assert list(allowed.iterdir()) == []
