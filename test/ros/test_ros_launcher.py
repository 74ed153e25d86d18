"""run_behavior: simulated robot, bridge and runner from one command, stopped by Ctrl-C."""
import signal
import subprocess
import sys
import threading

import pytest

psutil = pytest.importorskip("psutil")
pytest.importorskip("naoqi_qicore.robot.sim.cli", reason="needs the simulated robot")
pytest.importorskip("naoqi_qicore.core.player", reason="needs the engine")

from naoqi_qicore.msg import BehaviorState, RobotConnection  # noqa: E402
from process_tools import AutoplayLauncher, kill_processes, plant_modules  # noqa: E402
from naoqi_qicore.ros.launcher import (SIMULATOR_LISTEN, ProcessGroup,  # noqa: E402
                                       python_program, start_simulator)

pytestmark = pytest.mark.long_running(minutes=1)


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
        kill_processes([launcher] + children)
        launcher.wait()
        sys.stdout.write(launcher.stdout.read())


def test_autoplay_runs_the_behavior_through_the_action(example_behavior, repo_root) -> None:
    """``--autoplay`` prints the run's feedback and its result, then stops everything and
    exits 0: the run SUCCEEDED."""
    launcher = AutoplayLauncher(example_behavior, repo_root)
    children = []
    try:
        launcher.wait_for("run_behavior: state  PLAYING")
        children = psutil.Process(launcher.process.pid).children(recursive=True)
        assert launcher.exit_code(90) == 0
        assert psutil.wait_procs(children, timeout=10)[1] == []
        result = launcher.wait_for("run_behavior: result ")
        assert "result FINISHED at frame 120" in result
        robot = launcher.wait_for("run_behavior: simulated ")
        assert "simulated NAO robot at tcp://127.0.0.1:" in robot and "timelines" in robot
        feedback = [line for line in launcher.lines if "run_behavior: state  PLAYING" in line]
        assert len(feedback) >= 3
        assert not [line for line in launcher.lines if "qimessaging" in line or "[W]" in line]
    finally:
        launcher.close(children)


def test_no_program_imports_the_folder_it_is_started_in(example_behavior, tmp_path) -> None:
    """run_behavior started in a folder holding a ``secrets.py`` (and an ``argparse.py``):
    neither runs in it, the simulated robot, the bridge or the runner, and the run goes
    on as anywhere else."""
    marker = tmp_path / "imported.txt"
    plant_modules(tmp_path, marker)
    launcher = AutoplayLauncher(example_behavior, tmp_path)
    try:
        assert launcher.exit_code(90) == 0, "\n".join(launcher.lines)
    finally:
        launcher.close()
    assert not marker.exists(), marker.read_text()


def test_autoplay_exits_non_zero_when_the_run_fails(tmp_path, repo_root) -> None:
    from script_behaviors import script_behavior
    behavior = script_behavior(tmp_path, "root_boom", "", root_code="""
def onInput_onStart(self):
    raise RuntimeError("BOOM from root")
""")
    launcher = AutoplayLauncher(behavior, repo_root)
    try:
        assert launcher.exit_code(90) == 1
        assert "result ERROR" in launcher.wait_for("run_behavior: result ")
    finally:
        launcher.close()


def test_autoplay_with_stay_keeps_serving_until_ctrl_c(example_behavior, repo_root,
                                                       probe) -> None:
    launcher = AutoplayLauncher(example_behavior, repo_root, "--stay")
    try:
        assert "Ctrl-C to quit" in launcher.wait_for("(--stay)")
        assert "result FINISHED" in launcher.wait_for("run_behavior: result ")
        states = probe.listen(BehaviorState, "behavior/state")
        probe.wait_until(lambda: states and states[-1].status == BehaviorState.FINISHED, 20,
                         "the runner still serving its state")
        assert launcher.process.poll() is None
        assert launcher.interrupt() == 0  # the run's outcome
    finally:
        launcher.close()


def test_ctrl_c_cancels_the_autoplayed_run(tmp_path, repo_root) -> None:
    from script_behaviors import script_behavior
    behavior = script_behavior(tmp_path, "forever", """
def onInput_onStart(self):
    while True:
        time.sleep(0.1)
""")
    record = tmp_path / "calls.jsonl"
    launcher = AutoplayLauncher(behavior, repo_root, "--record", str(record))
    try:
        launcher.wait_for("root/Script")
        assert launcher.interrupt() == 130
        result = launcher.wait_for("run_behavior: result ", timeout=5)
        assert "result STOPPED" in result and "cancelled" in result
    finally:
        launcher.close()
    # The runner released the focus while the simulated robot was still there (it stops
    # last): the robot recorded the call, and the runner saw no lost robot.
    from naoqi_qicore.robot.sim.recorder import read_calls
    calls = read_calls(record)
    life = [(c["method"], "error" in c) for c in calls if c["service"] == "ALAutonomousLife"
            and c["method"] in ("switchFocus", "stopFocus")]
    assert life and life[-1] == ("stopFocus", False), life
    assert not [line for line in launcher.lines if "lost" in line or "stopFocus:" in line]


def test_closing_a_cancelled_run_waits_until_its_result_is_printed(monkeypatch) -> None:
    """The result of a run cancelled at Ctrl-C is printed by the run's own thread; on a
    loaded machine that thread may come late, and the launcher must not leave ROS and exit
    before it has printed (it waited a fixed 0.1 s, and the result line was lost)."""
    import time

    from naoqi_qicore.ros import launcher, run_client
    printed = []

    def slow_say(line, stream=None) -> None:
        time.sleep(0.5)  # a printing thread kept from the CPU
        printed.append(line)

    class Goal:
        status = 5

        def __init__(self) -> None:
            self.done = threading.Event()

        def cancel(self, timeout: float = 10.0) -> str:
            self.done.set()
            return "result"

        def wait(self, timeout=None) -> str:
            self.done.wait()
            return "result"

        def succeeded(self) -> bool:
            return False

    class Context:
        def try_shutdown(self) -> None:
            pass

    monkeypatch.setattr(launcher, "say", slow_say)
    monkeypatch.setattr(run_client, "result_lines", lambda result, status: ["result STOPPED"])
    run = auto_run_parts(launcher, Context())
    run._goal = Goal()
    run._settled.set()  # sent
    threading.Thread(target=run._report, daemon=True).start()
    run.close()
    assert printed == ["run_behavior: result STOPPED"]
    assert run.ended.is_set() and run.succeeded is False


def test_a_run_whose_result_is_printed_has_ended(monkeypatch) -> None:
    """A Ctrl-C that follows the printed result (a user who read it, a test that waits for
    it) finds the run's outcome decided: the launcher exits with it, not with 130 for a run
    interrupted (the outcome was decided only after the lines were printed)."""
    from naoqi_qicore.ros import launcher, run_client
    seen = []

    class Goal:
        status = 4

        def wait(self, timeout=None) -> str:
            return "result"

        def succeeded(self) -> bool:
            return True

    run = auto_run_parts(launcher, None)
    monkeypatch.setattr(launcher, "say", lambda line, stream=None: seen.append(
        (line, run.succeeded, run.result)))
    monkeypatch.setattr(run_client, "result_lines", lambda result, status: ["result FINISHED"])
    run._goal = Goal()
    run._report()
    assert seen == [("run_behavior: result FINISHED", True, "result")]
    assert run.ended.is_set()


def auto_run_parts(launcher, context):
    """An AutoRun's parts without a ROS node (``context`` stands for its ROS context)."""
    run = launcher.AutoRun.__new__(launcher.AutoRun)
    run._goal, run._context, run._on_end = None, context, lambda: None
    run._thread = threading.Thread(target=lambda: None)
    run._thread.start()
    run._loaded, run._closing, run._settled = (threading.Event(), threading.Event(),
                                               threading.Event())
    run.ended, run.succeeded, run.result = threading.Event(), None, None
    return run


def test_ctrl_c_while_the_goal_is_being_sent_still_cancels_it(monkeypatch) -> None:
    """Ctrl-C as the run's first feedback is printed, before the runner's acceptance of the
    goal is in: closing waits for the goal to be sent, then cancels it and prints its
    result (it found no goal yet, left, and the run went on unreported)."""
    from naoqi_qicore.ros import launcher, run_client
    printed = []
    monkeypatch.setattr(launcher, "say", lambda line, stream=None: printed.append(line))
    monkeypatch.setattr(run_client, "result_lines", lambda result, status: ["result STOPPED"])
    accepted, cancelled = threading.Event(), threading.Event()

    class Goal:
        status = 5

        def cancel(self, timeout: float = 10.0) -> str:
            cancelled.set()
            return "result"

        def wait(self, timeout=None) -> str:
            cancelled.wait()
            return "result"

        def succeeded(self) -> bool:
            return False

    class Runs:
        def run(self, goal, on_feedback) -> Goal:
            accepted.wait(10)  # the acceptance comes late
            return Goal()

    class Context:
        def try_shutdown(self) -> None:
            pass

    run = auto_run_parts(launcher, Context())
    run._runs, run._feedback = Runs(), lambda state: None
    run._loaded.set()
    threading.Thread(target=run.start, args=(threading.Event(),), daemon=True).start()
    threading.Timer(0.5, accepted.set).start()  # accepted while the launcher closes
    run.close()
    assert cancelled.is_set() and printed == ["run_behavior: result STOPPED"]


def test_a_picked_port_is_one_the_kernel_never_hands_out_itself(monkeypatch, tmp_path) -> None:
    """A port picked for a server started next: a simulated robot listening on port 0, or
    any connection, took one picked the old way (a port 0 bind) before its server did."""
    import socket
    from naoqi_qicore.ros import launcher
    low, high = (int(word) for word in launcher.EPHEMERAL_PORT_RANGE.read_text().split())
    ports = {launcher.free_tcp_port() for _ in range(20)}
    assert len(ports) > 1
    for port in ports:
        assert not low <= port <= high, (port, low, high)
        with socket.create_server(("127.0.0.1", port)):
            pass
    # no room outside the range, no range known, or no free port found outside it: the
    # kernel's own pick, the only one left
    for range_text in ("1024 65535\n", "unreadable"):
        ranges = tmp_path / "range"
        ranges.write_text(range_text)
        monkeypatch.setattr(launcher, "EPHEMERAL_PORT_RANGE", ranges)
        assert low <= launcher.free_tcp_port() <= high
    monkeypatch.setattr(launcher, "EPHEMERAL_PORT_RANGE", tmp_path / "missing")
    assert low <= launcher.free_tcp_port() <= high
    monkeypatch.undo()
    tried = []
    monkeypatch.setattr(launcher, "_bindable", lambda port: tried.append(port) and False)
    assert low <= launcher.free_tcp_port() <= high
    assert len(tried) == launcher.PICK_ATTEMPTS and not any(low <= p <= high for p in tried)


def test_a_simulated_robot_says_where_it_listens_itself() -> None:
    """run_behavior learns the simulated robot's port from the simulator, once it listens:
    on a port another program took, it fails instead of taking that program for the robot
    (it checked that something listened on a port picked beforehand, which two launches at
    once could both pick)."""
    import socket
    group = ProcessGroup()
    command = python_program("naoqi_qicore.robot.sim.cli", "--listen")
    try:
        process, url = start_simulator(group.starter("naoqi_sim"), command + [SIMULATOR_LISTEN])
        port = int(url.rsplit(":", 1)[1])
        assert url == "tcp://127.0.0.1:%d" % port and port > 0 and process.poll() is None
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            busy = "tcp://127.0.0.1:%d" % taken.getsockname()[1]
            with pytest.raises(RuntimeError, match="exited with code 1"):
                start_simulator(group.starter("naoqi_sim"), command + [busy])
    finally:
        group.stop_all()


def test_a_behavior_that_cannot_be_read_stops_everything(tmp_path, repo_root) -> None:
    launcher = subprocess.run(
        python_program("naoqi_qicore.ros.launcher", str(tmp_path / "missing.xar"),
                       "--log-level", "warn"),
        cwd=str(repo_root), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        timeout=60)
    assert launcher.returncode != 0, launcher.stdout
    assert "missing.xar: no such file or folder" in launcher.stdout
    assert "behavior_runner exited with code" in launcher.stdout
