"""The demo of ``make demo``, run as a user runs it: converts, plays through the three
processes with the runner's live view on, prints the changes as they come and writes the
graph, the joint plot and the diagram of the boxes that ran."""
import shutil
import subprocess
import sys

import pytest

pytest.importorskip("naoqi_qicore.robot.sim.cli", reason="needs the simulated robot")
pytest.importorskip("naoqi_qicore.core.player", reason="needs the engine")
pytest.importorskip("matplotlib")
from naoqi_qicore.robot.sim.recorder import read_calls  # noqa: E402
if shutil.which("dot") is None:
    pytest.skip("needs Graphviz's dot (.setup/test-tools.sh installs it)", allow_module_level=True)


@pytest.mark.slow
def test_demo_plays_goes_to_a_label_and_plots(example_behavior, repo_root, tmp_path) -> None:
    out = tmp_path / "demo"
    done = subprocess.run([sys.executable, "-m", "naoqi_qicore.ros.demo", "--behavior",
                           str(example_behavior), "--out", str(out), "--goto", "Wave"],
                          cwd=str(repo_root), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=120)
    sys.stdout.write(done.stdout)
    assert done.returncode == 0
    lines = done.stdout.splitlines()

    def first(text: str) -> int:
        return next(index for index, line in enumerate(lines) if text in line)

    # printed as they happened: the goal, focus taken, playing (the action's feedback), the
    # goto, the result, focus released
    view = first("demo: live view at http://127.0.0.1:")
    sent = first("run: behavior/run goal sent")
    taken = first("focus  'naoqi_qicore/wave_hello'")
    # who took the focus, not the robot's "unknown-api-caller" for any client's call
    assert "started by /behavior_runner (switchFocus)" in lines[taken]
    playing = first("state  PLAYING")
    goto = first("goto Wave (called at frame ")
    called_at = int(lines[goto].split("called at frame ")[1].split(")")[0])
    assert called_at >= 45
    assert lines[first("goto answered: ")].endswith("wave_hello at frame 30")
    frames = [int(line.split("frame")[1].split()[0]) for line in lines[playing:goto]
              if "state  PLAYING" in line]
    assert frames == sorted(frames) and frames[-1] > frames[0]  # feedback as it plays
    finished = first("result FINISHED at frame 120 after ")
    assert lines[finished].endswith("wave_hello finished at frame 120 (goal SUCCEEDED)")
    released = first("focus  '' (previous naoqi_qicore/wave_hello")
    assert "previous stopped by /behavior_runner (stopFocus)" in lines[released]
    assert view < sent < max(taken, playing) < goto < finished and taken < released
    # the focus lines are its changes: no empty focus before the run, each change once
    assert [index for index, line in enumerate(lines) if "] focus  " in line] == [taken,
                                                                                 released]
    # every box of wave_hello starts once it plays to its end (the instant ones included)
    ran = lines[first("boxes that ran: ")].split("boxes that ran: ")[1].split(", ")
    assert set(ran) == {"root", "root/Say Hello", "root/Mark Wave", "root/Skip To Bow",
                        "root/Mark Bow", "root/Say Goodbye"}

    assert (out / "converted" / "behavior.xml").is_file()
    assert "<svg" in (out / "behavior_graph.svg").read_text()
    assert (out / "joint_angles.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    diagram = out / "behavior_diagram.png"
    assert diagram.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert lines[-1].split() == ["boxes", "that", "ran", str(diagram)]  # listed with the others
    calls = read_calls(out / "robot-calls.jsonl")
    motions = [c for c in calls if c["method"] == "angleInterpolationBezier"]
    assert len(motions) >= 2  # from the start, then from the label


def test_the_demo_replaces_its_folder_converted_by_an_older_version(example_behavior,
                                                                     tmp_path) -> None:
    """A ``.demo/converted`` written before converted folders listed their files is the
    demo's own: it is converted again instead of stopping the demo."""
    from naoqi_qicore.converter.ownership import WRITTEN_LIST
    from naoqi_qicore.ros.demo import convert
    output = tmp_path / "converted"
    convert(example_behavior, output, tmp_path / "graph.svg")
    (output / WRITTEN_LIST).unlink()  # as an older version left it
    model = convert(example_behavior, output, tmp_path / "graph.svg")
    assert model.root is not None and (output / WRITTEN_LIST).is_file()
