"""behavior_runner with autoplay and exit_after_run: the program ends with the autoplayed
run, its exit status saying whether the run succeeded (what run_behavior.launch.py's
autoplay:=true, and a CI job, rely on)."""
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("naoqi_qicore.robot.sim.cli", reason="needs the simulated robot")
from naoqi_qicore.ros.launcher import free_tcp_port, python_program  # noqa: E402

from script_behaviors import script_behavior  # noqa: E402

#: how long a run of wave_hello takes at most, the runner's start included (s)
RUN_TIMEOUT = 90


def exit_status(program, timeout: float = RUN_TIMEOUT) -> int:
    try:
        return program.process.wait(timeout)
    except subprocess.TimeoutExpired:
        pytest.fail("%s still runs after %.0f s:\n%s" % (program.name, timeout,
                                                         program.output()[-3000:]))


def autoplay(programs, robot_url: str, behavior: Path, tmp_path: Path, *more: str):
    return programs("runner", "-p", "robot_url:=" + robot_url, "-p", "behavior:=%s" % behavior,
                    "-p", "cache_dir:=%s" % (tmp_path / "cache"), "-p", "autoplay:=true",
                    "-p", "exit_after_run:=true", *more)


def test_the_runner_exits_0_once_the_behavior_has_run_to_its_end(programs, example_behavior,
                                                                 tmp_path: Path) -> None:
    robot = programs("sim")
    runner = autoplay(programs, robot.url, example_behavior, tmp_path)
    assert exit_status(runner) == 0, runner.output()[-3000:]
    assert "autoplay: result FINISHED at frame 120" in runner.output()
    # it stopped as on Ctrl-C: the robot's focus was given back
    assert robot.calls("ALAutonomousLife", "stopFocus")


def test_a_run_that_fails_makes_the_runner_exit_1(programs, tmp_path: Path) -> None:
    behavior = script_behavior(tmp_path, "root_boom", "", root_code="""
def onInput_onStart(self):
    raise RuntimeError("BOOM from root")
""")
    robot = programs("sim")
    runner = autoplay(programs, robot.url, behavior, tmp_path)
    assert exit_status(runner) == 1
    assert "autoplay: result ERROR" in runner.output() and "BOOM from root" in runner.output()


def test_a_robot_that_never_comes_makes_the_runner_exit_1(programs, tmp_path: Path,
                                                          example_behavior) -> None:
    runner = autoplay(programs, "tcp://127.0.0.1:%d" % free_tcp_port(), example_behavior,
                      tmp_path, "-p", "robot_start_timeout:=1.0")
    assert exit_status(runner, 30) == 1
    assert "autoplay: robot tcp://127.0.0.1:" in runner.output()
    assert "not connected: Connect error: 111: Connection refused" in runner.output()


def test_exit_after_run_goes_with_autoplay_and_a_behavior() -> None:
    runner = subprocess.run(python_program(
        "naoqi_qicore.ros.behavior_runner", "--ros-args", "-p", "robot_url:=tcp://127.0.0.1:1",
        "-p", "exit_after_run:=true"), capture_output=True, text=True, timeout=60)
    assert runner.returncode == 2
    assert "exit_after_run goes with autoplay and a behavior" in runner.stderr
