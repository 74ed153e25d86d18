"""run_behavior: simulated robot, bridge and runner from one command, stopped by Ctrl-C."""
import signal
import subprocess
import sys

import pytest

psutil = pytest.importorskip("psutil")
pytest.importorskip("naoqi_qicore.robot.sim.cli", reason="needs the simulated robot")
pytest.importorskip("naoqi_qicore.core.player", reason="needs the engine")

from naoqi_qicore.msg import BehaviorState, RobotConnection  # noqa: E402
from naoqi_qicore.ros.launcher import python_program  # noqa: E402


def test_starts_everything_and_stops_cleanly(probe, example_behavior, repo_root, tmp_path) -> None:
    record = tmp_path / "calls.jsonl"
    launcher = subprocess.Popen(
        python_program("naoqi_qicore.ros.launcher", str(example_behavior), "--namespace", "nao1",
                       "--record", str(record), "--log-level", "warn"),
        cwd=str(repo_root), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    children = []
    try:
        states = probe.listen(BehaviorState, "/nao1/behavior/state")
        connection = probe.listen(RobotConnection, "/nao1/robot/connection")
        probe.wait_until(lambda: states and states[-1].status == BehaviorState.LOADED, 60,
                         "runner LOADED under /nao1")
        probe.wait_until(lambda: connection and connection[-1].state
                         == RobotConnection.CONNECTED, 30, "bridge connected under /nao1")
        children = psutil.Process(launcher.pid).children(recursive=True)
        assert len(children) >= 3
        launcher.send_signal(signal.SIGINT)
        assert launcher.wait(30) == 0
        gone, alive = psutil.wait_procs(children, timeout=10)
        assert alive == []
        assert record.exists()
    finally:
        for process in [launcher] + children:  # started in their own sessions: kill each
            try:
                process.kill()
            except (psutil.NoSuchProcess, ProcessLookupError):
                pass
        launcher.wait()
        sys.stdout.write(launcher.stdout.read())
