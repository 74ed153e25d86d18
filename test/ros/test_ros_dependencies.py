"""behavior_runner says up front which Python packages a behavior's box code lacks: one
warning in its log, with the pip command."""
from pathlib import Path

import pytest

pytest.importorskip("naoqi_qicore.robot.sim.cli", reason="needs the simulated robot")
pytest.importorskip("naoqi_qicore.core.player", reason="needs the engine")
from naoqi_qicore.msg import BehaviorState  # noqa: E402

from script_behaviors import script_behavior  # noqa: E402

BOX = """
def later(self):
    import nqtest_absent_module
    import naoqi, almath
def onInput_onStart(self):
    self.onStopped()
"""


def test_runner_warns_once_about_missing_box_dependencies(programs, probe, tmp_path: Path):
    folder = tmp_path / "behavior"
    folder.mkdir()
    xar = script_behavior(folder, "needs_packages", BOX)
    (folder / "requirements.txt").write_text("# the packages of the boxes\n"
                                             "naoqi-qicore-test-absent-package==2.0\n")
    robot = programs("sim")
    runner = programs("runner", "-p", "robot_url:=" + robot.url, "-p", "behavior:=" + str(xar),
                      "-p", "cache_dir:=" + str(tmp_path / "cache"))
    states = probe.listen(BehaviorState, "behavior/state")
    probe.wait_until(lambda: states and states[-1].status == BehaviorState.LOADED, 60, "LOADED")
    lines = probe.wait_until(lambda: [line for line in runner.output().splitlines()
                                      if "missing Python dependencies" in line], 10,
                             "the warning in the runner's log")
    assert len(lines) == 1, lines
    assert "needs_packages" in lines[0] and "WARN" in lines[0]
    # naoqi and almath are the runner's own; no package is known to give
    # nqtest_absent_module: it is named, with no pip name made up for it
    assert "no known package provides" in lines[0] and "nqtest_absent_module" in lines[0]
    assert "pip install naoqi-qicore-test-absent-package" in lines[0]
    assert "pip install naoqi-qicore-test-absent-package nqtest_absent_module" not in lines[0]
