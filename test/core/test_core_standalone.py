"""``python OUT/main.py``: a converted behavior played on an in-process simulated robot."""
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from naoqi_qicore.converter.writer import write_converted

from naoqi_qicore.xar.model import Box

from core_builders import (behavior, curve, flow_box, link, script_box, string_parameter,
                           timeline_box)

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # real processes: left out of make check

MARKS = """
import os
def mark(self, what):
    open(os.path.join(self.getParameter("Folder"), self.getName() + "." + what), "w").close()
def onInput_onStart(self):
    self.mark("started")
def onInput_onStop(self):
    self.running = False
    self.mark("stopped")
def onUnload(self):
    self.mark("unloaded")
"""
#: a box whose onStart runs until its onStop, or until a stop ends it
WAITING = MARKS + """
def onInput_onStart(self):
    self.running = True
    self.mark("started")
    while self.running:
        time.sleep(0.02)
"""


def convert(tmp_path: Path, code: str) -> Path:
    box = script_box("Worker", 1, code, parameters=[string_parameter("Folder", str(tmp_path), 5)])
    root = flow_box("root", -1, [box], [link(0, 2, 1, 2), link(1, 4, 0, 4)])
    out = tmp_path / "converted"
    write_converted(behavior(root), out)
    return out


def convert_nested(tmp_path: Path) -> Path:
    """root > Group (flow, started) > Inner (started, waits) and Idle (loaded, never
    started); root's Folder parameter is inherited by every box."""
    def worker(name: str, box_id: int) -> Box:
        return script_box(name, box_id, WAITING,
                          parameters=[string_parameter("Folder", "", 5, inherits=1)])
    group = flow_box("Group", 1, [worker("Inner", 1), worker("Idle", 2)], [link(0, 2, 1, 2)],
                     parameters=[string_parameter("Folder", "", 5, inherits=1)])
    group.script = script_box("Group", 1, MARKS).script
    root = flow_box("root", -1, [group], [link(0, 2, 1, 2)],
                    parameters=[string_parameter("Folder", str(tmp_path), 5)])
    out = tmp_path / "converted"
    write_converted(behavior(root), out)
    return out


def run_main(folder: Path, *arguments: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.Popen([sys.executable, str(folder / "main.py"), *arguments], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(path: Path, timeout: float = 30.0) -> bool:
    limit = time.monotonic() + timeout
    while time.monotonic() < limit:
        if path.exists():
            return True
        time.sleep(0.05)
    return False


def end_line(out: str) -> str:
    """The last line main.py printed on standard output: how the run ended."""
    return out.strip().splitlines()[-1]


def test_main_exits_0_when_the_root_stops_and_says_so(tmp_path):
    folder = convert(tmp_path, """
def onInput_onStart(self):
    self.onStopped()
""")
    process = run_main(folder)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    # libqi's log (on stdout) is quiet: no line per service the in-process robot registers,
    # no notice about its SDK layout
    assert "Registered Service" not in out and "qi.path.sdklayout" not in out + err
    assert re.fullmatch(r"converted: FINISHED in \d+\.\d s, no errors", end_line(out)), out


def test_a_run_that_finished_with_errors_says_so_and_exits_1(tmp_path):
    """The root stops (the run FINISHED), but a box failed on its way: as the behavior/run
    action, that is not a success."""
    folder = convert(tmp_path, """
def onInput_onStart(self):
    self.onStopped()
def onUnload(self):
    raise RuntimeError("BOOM in onUnload")
""")
    process = run_main(folder)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 1, (out, err)
    assert re.fullmatch(r"converted: FINISHED in \d+\.\d s with 1 error \(last: "
                        r"root/Worker: onUnload: RuntimeError: BOOM in onUnload\)",
                        end_line(out)), out
    assert "box error: root/Worker: onUnload: RuntimeError: BOOM in onUnload" in err


def test_a_timeline_ending_with_its_motion_ends_cleanly(tmp_path):
    """The root's timeline ends exactly when its last motion segment does: the run ends
    once the robot answered that call, not with "Session closed" as a box error."""
    root = timeline_box("root", -1, [], curves=[curve("HeadYaw", [(5, 0.0), (20, 15.0)]),
                                                curve("HeadPitch", [(5, 0.0), (20, 10.0)])])
    folder = tmp_path / "nod"
    write_converted(behavior(root), folder)
    runs = [run_main(folder) for _ in range(3)]  # the end raced the answer most times
    for process in runs:
        out, err = process.communicate(timeout=60)
        assert "box error" not in err, err
        # the timeline's 0.8 s, and no wait after it (a loaded machine adds its own delays:
        # 1.0 s with both cores busy)
        assert re.fullmatch(r"nod: FINISHED in (0\.[6-9]|1\.[0-4]) s, no errors",
                            end_line(out)), out
        assert process.returncode == 0


def test_keys_the_robot_cannot_play_are_a_warning_of_the_run(tmp_path):
    """NAO leg keys in a behavior played on Pepper: the head moves, the run FINISHED with
    no error (exit 0), and the last line says what was left out."""
    root = timeline_box("root", -1, [], curves=[curve("LAnklePitch", [(5, 0.0), (15, 20.0)]),
                                                curve("HeadYaw", [(5, 0.0), (15, 10.0)])])
    folder = tmp_path / "legs"
    write_converted(behavior(root), folder)
    process = run_main(folder, "--robot", "pepper")
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    told = ("root: motion: the robot has no joint LAnklePitch: the keys of it in this "
            "timeline are left out")
    assert re.fullmatch(r"legs: FINISHED in \d+\.\d s, no errors, 1 warning \(last: %s\)"
                        % re.escape(told), end_line(out)), out
    assert err.count("warning: " + told) == 1, err


@pytest.mark.parametrize("signal_number", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_unloads_every_loaded_box_and_exits_128_plus_it(tmp_path, signal_number):
    """As NAOqi stops a behavior: every loaded box's onUnload runs, no onStop does."""
    folder = convert_nested(tmp_path)
    process = run_main(folder)
    try:
        assert wait_for(tmp_path / "l2_Inner.started"), \
            process.stderr.read() if process.poll() is not None else ""
        process.send_signal(signal_number)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 128 + signal_number, err
    assert "Traceback" not in err and "box error" not in err
    assert re.fullmatch(r"converted: STOPPED by %s in \d+\.\d s, no errors"
                        % signal.Signals(signal_number).name, end_line(out)), out
    marks = sorted(path.name for path in tmp_path.glob("l*.*"))
    assert marks == ["l1_Group.started", "l1_Group.unloaded", "l2_Idle.unloaded",
                     "l2_Inner.started", "l2_Inner.unloaded"]


def test_main_says_why_a_folder_is_not_a_behavior(tmp_path):
    (tmp_path / "main.py").write_text((REPO / "naoqi_qicore" / "converter" / "writer.py")
                                      .read_text().split("MAIN_PY = '''")[1].split("'''")[0])
    process = run_main(tmp_path)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 2 and err.startswith("error:") and "Traceback" not in err


def test_a_project_behavior_finds_its_files_and_its_robot(tmp_path):
    """A project converted as a project: the box opens a file relative to
    behaviorAbsolutePath(), and main.py starts the robot the manifest asks for."""
    from naoqi_qicore.converter.api import convert as convert_project
    from naoqi_qicore.xar.writer import write_xar
    box = script_box("Reader", 1, """
import os
def onInput_onStart(self):
    text = open(os.path.join(self.behaviorAbsolutePath(), "data", "greeting.txt")).read()
    with open(os.path.join(self.getParameter("Folder"), "read.txt"), "w") as out:
        out.write(text)
    self.onStopped()
""", parameters=[string_parameter("Folder", str(tmp_path), 5)])
    project = tmp_path / "project"
    (project / "behavior_1" / "data").mkdir(parents=True)
    write_xar(behavior(flow_box("root", -1, [box], [link(0, 2, 1, 2), link(1, 4, 0, 4)])),
              project / "behavior_1" / "behavior.xar")
    (project / "behavior_1" / "data" / "greeting.txt").write_text("hello from the project")
    (project / "manifest.xml").write_text(
        '<package uuid="p"><requirements><robotRequirement model="JULIETTE"/></requirements>'
        '</package>')
    (project / "p.pml").write_text(
        '<Package name="p" format_version="4"><BehaviorDescriptions><BehaviorDescription '
        'name="behavior" src="behavior_1" xar="behavior.xar" /></BehaviorDescriptions>'
        '</Package>')
    convert_project(project / "p.pml", tmp_path / "out")
    # the converted project is the behavior's folder, not the source it came from
    (project / "behavior_1" / "data" / "greeting.txt").write_text("changed in the source")
    process = run_main(tmp_path / "out" / "behavior_1")
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert (tmp_path / "read.txt").read_text() == "hello from the project"
    assert "simulated Pepper" in err and "JULIETTE" in err


def test_main_warns_once_about_the_packages_box_code_lacks(tmp_path):
    """Box code importing modules that are not installed, and a project naming a package
    in its requirements.txt: one warning with the pip command, and the behavior runs."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "manifest.xml").write_text('<package uuid="p" version="1.0"/>\n')
    (project / "requirements.txt").write_text("naoqi-qicore-test-absent-package>=1.0\n")
    box = script_box("Worker", 1, """
def later(self):
    import nqtest_absent_module
    from yaml import safe_load
def onInput_onStart(self):
    self.onStopped()
""")
    root = flow_box("root", -1, [box], [link(0, 2, 1, 2), link(1, 4, 0, 4)])
    write_converted(behavior(root), project / "converted")
    process = run_main(project / "converted")
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    warnings = [line for line in err.splitlines() if "missing Python dependencies" in line]
    assert len(warnings) == 1, err
    assert "nqtest_absent_module" in warnings[0]
    missing_yaml = "yaml" not in sys.modules and not _installed("yaml")
    expected = ["naoqi-qicore-test-absent-package"]  # no pip name made up for the module
    if missing_yaml:
        expected.append("PyYAML")
    assert ("pip install " + " ".join(sorted(expected, key=str.lower))) in warnings[0]


def _installed(module: str) -> bool:
    import importlib.util
    return importlib.util.find_spec(module) is not None
