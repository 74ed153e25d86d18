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
    """Started with ``force:=true``, the node replaces a folder it wrote (edits included)."""
    programs("convert", "-p", "force:=true", *roots([example_behavior.parent], [tmp_path]))
    out = tmp_path / "out"
    request = Convert.Request(inputs=[str(example_behavior)], output_dir=str(out))
    assert probe.call(Convert, "xar_convert/convert", request, timeout=60).success
    (out / "wave_hello" / "l1_Say_Hello.py").write_text("# edited\n")
    (out / "wave_hello" / "main.py").unlink()
    answer = probe.call(Convert, "xar_convert/convert", request, timeout=60)
    assert answer.success, answer.message
    assert "# edited" not in (out / "wave_hello" / "l1_Say_Hello.py").read_text()
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


def project_with_a_sub_folder(root):
    """``root/proj/behavior.xar`` (wave_hello) with an empty ``root/proj/sub``."""
    from pathlib import Path
    example = Path(__file__).resolve().parents[2] / "examples" / "wave_hello" / "behavior.xar"
    (root / "proj" / "sub").mkdir(parents=True)
    (root / "proj" / "behavior.xar").write_bytes(example.read_bytes())
    return root / "proj"


def listing(folder) -> list:
    """Every path under ``folder``, relative, sorted."""
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


def test_a_peer_cannot_set_force(tmp_path, probe, programs, example_behavior) -> None:
    """``force`` is the node owner's choice, made when starting it: a peer cannot turn it on."""
    from rcl_interfaces.msg import Parameter, ParameterType, ParameterValue
    from rcl_interfaces.srv import SetParameters
    programs("convert", *roots([example_behavior.parent], [tmp_path]))
    answer = probe.call(SetParameters, "xar_convert/set_parameters", SetParameters.Request(
        parameters=[Parameter(name="force", value=ParameterValue(
            type=ParameterType.PARAMETER_BOOL, bool_value=True))]))
    assert answer.results[0].successful is False
    keep = tmp_path / "out" / "wave_hello" / "keep.txt"
    keep.parent.mkdir(parents=True)
    keep.write_text("mine")
    refused = probe.call(Convert, "xar_convert/convert", Convert.Request(
        inputs=[str(example_behavior)], output_dir=str(tmp_path / "out")), timeout=60)
    assert refused.success is False and "already exists" in refused.message
    assert keep.read_text() == "mine"


@pytest.mark.parametrize("output_dir", ["", "outs"])
def test_an_input_ending_in_dot_dot_replaces_nothing(tmp_path, probe, programs,
                                                     output_dir: str) -> None:
    """``<root>/proj/sub/..`` named its output ``..``: ``output_dir/..`` (the root's parent,
    or the root) was replaced, even with the node's ``force`` on."""
    parent = tmp_path / "parent"
    root = parent / "root"
    project = project_with_a_sub_folder(root)
    (parent / "precious.txt").write_text("keep")
    (root / "outs").mkdir()
    before = listing(parent)
    programs("convert", "-p", "force:=true", *roots([root], [root]))
    answer = probe.call(Convert, "xar_convert/convert", Convert.Request(
        inputs=[str(project / "sub" / "..")], output_dir=str(root / output_dir)), timeout=60)
    assert answer.success is False and answer.outputs == []
    assert "'..'" in answer.message, answer.message
    assert listing(parent) == before


def test_force_never_replaces_what_the_converter_did_not_write(tmp_path, probe, programs,
                                                               example_behavior) -> None:
    """Even with the owner's ``force`` on, a peer cannot have a folder the converter did
    not write removed, nor one it wrote that holds files it did not write."""
    programs("convert", "-p", "force:=true", *roots([example_behavior.parent], [tmp_path]))
    out = tmp_path / "out"
    request = Convert.Request(inputs=[str(example_behavior)], output_dir=str(out))
    (out / "wave_hello").mkdir(parents=True)
    (out / "wave_hello" / "notes.txt").write_text("mine")
    refused = probe.call(Convert, "xar_convert/convert", request, timeout=60)
    assert refused.success is False and refused.outputs == []
    assert "xar_convert did not write it" in refused.message, refused.message
    assert listing(out) == ["wave_hello", "wave_hello/notes.txt"]
    (out / "wave_hello" / "notes.txt").unlink()
    assert probe.call(Convert, "xar_convert/convert", request, timeout=60).success
    (out / "wave_hello" / "notes.txt").write_text("mine")
    refused = probe.call(Convert, "xar_convert/convert", request, timeout=60)
    assert "it holds notes.txt, which xar_convert did not write" in refused.message
    (out / "wave_hello" / "notes.txt").unlink()
    (out / "wave_hello" / "extra").mkdir()
    (out / "wave_hello" / "extra" / "notes.txt").write_text("mine")
    refused = probe.call(Convert, "xar_convert/convert", request, timeout=60)
    assert refused.success is False and "it holds extra/," in refused.message, refused.message
    assert (out / "wave_hello" / "extra" / "notes.txt").read_text() == "mine"


def test_an_output_folder_swapped_for_a_link_never_leads_the_output_out(
        tmp_path, example_behavior) -> None:
    """The requested output folder replaced by a symbolic link leading out of the output
    root, again and again, while the service converts into it: no file is ever written
    outside (the output was resolved for the check, then written through the path)."""
    import threading
    import time

    import rclpy
    from rclpy.parameter import Parameter

    from naoqi_qicore.ros.convert_node import ConvertNode
    out = tmp_path / "out"
    race = out / "race"
    race.mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    context = rclpy.Context()
    rclpy.init(context=context)
    node = ConvertNode(context=context, parameter_overrides=[
        Parameter("behavior_roots", value=[str(example_behavior.parent)]),
        Parameter("output_roots", value=[str(out)]), Parameter("force", value=True)])
    stop = threading.Event()

    def swap() -> None:
        while not stop.is_set():
            try:
                race.rename(out / "aside")
                race.symlink_to(outside)
                time.sleep(0.005)
                race.unlink()
                (out / "aside").rename(race)
                time.sleep(0.005)
            except OSError:
                pass

    swapper = threading.Thread(target=swap)
    swapper.start()
    answers = []
    try:
        deadline = time.monotonic() + 4.0
        while time.monotonic() < deadline:
            answers.append(node._convert(Convert.Request(
                inputs=[str(example_behavior)], output_dir=str(race)), Convert.Response()))
    finally:
        stop.set()
        swapper.join()
        node.destroy_node()
        context.try_shutdown()
    assert listing(outside) == []
    assert any(answer.success for answer in answers), [a.message for a in answers[:3]]
