"""The simulated robot as a whole: life cycle, call record, recorder service, command line."""
import json
import os
import subprocess
import sys
import threading
import time

import pytest

qi = pytest.importorskip("qi")

sys.path.insert(0, os.path.dirname(__file__))
from sim_core_support import REPO, SimProcess, run_client, start_sim, wait_until  # noqa: E402

from naoqi_qicore.robot.sim import SimulatedRobot  # noqa: E402
from naoqi_qicore.robot.sim.context import SimContext, TaskManager  # noqa: E402
from naoqi_qicore.robot.sim.recorder import read_calls  # noqa: E402


def python_threads():
    """Threads started from Python (libqi's own pool threads show up as 'Dummy')."""
    return {t for t in threading.enumerate() if not t.name.startswith("Dummy")}


def test_start_serve_and_stop_without_leaking_threads():
    before = python_threads()
    with SimulatedRobot(robot="nao", listen="tcp://127.0.0.1:0") as robot:
        assert robot.url.startswith("tcp://127.0.0.1:") and not robot.url.endswith(":0")
        session = qi.Session()
        session.connect(robot.url)
        names = {info["name"] for info in session.services()}
        assert {"ALMemory", "ALMotion", "ALAutonomousLife", "NaoqiSimRecorder",
                "NaoqiSimActivities", "ALTextToSpeech"} <= names
        assert "ALTabletService" not in names  # Pepper only
        motion = session.service("ALMotion")
        motion.pCall("angleInterpolation", "HeadYaw", 1.0, 30.0, True)  # still running at stop
        robot.register_activity("sim/long", "interactive", 30.0)
        session.service("ALAutonomousLife").switchFocus("sim/long")
        assert robot.service("ALMotion") is robot.context.service("ALMotion")
        assert robot.context.tasks.running()
        session.close()
    assert python_threads() <= before  # none left; a thread of an earlier test may have ended
    with pytest.raises(RuntimeError, match="not started"):
        robot.url


def test_calls_are_recorded_with_results_errors_and_posts(tmp_path):
    record = tmp_path / "calls.jsonl"
    robot = SimulatedRobot(robot="pepper", listen="tcp://127.0.0.1:0", record=record).start()
    try:
        session = qi.Session()
        session.connect(robot.url)
        motion = session.service("ALMotion")
        motion.getAngles(["HeadYaw"], True)
        with pytest.raises(RuntimeError):
            motion.getAngles(["Tail"], True)
        task = motion.pCall("angleInterpolationBezier", ["HeadYaw"], [[0.05]],
                            [[[0.1, [3, -0.01, 0.0], [3, 0.01, 0.0]]]])
        motion.wait(task, 0)
        calls = robot.calls()
        assert [(c["service"], c["method"]) for c in calls] == [
            ("ALMotion", "getAngles"), ("ALMotion", "getAngles"),
            ("ALMotion", "angleInterpolationBezier"), ("ALMotion", "wait")]
        assert calls[0]["args"] == [["HeadYaw"], True] and calls[0]["result"] == [0.0]
        assert "'Tail' is not a joint" in calls[1]["error"] and "result" not in calls[1]
        assert calls[2]["post"] is True and calls[2]["result"] == task
        assert calls[2]["args"][:2] == [["HeadYaw"], [[0.05]]]
        assert [c["index"] for c in calls] == [0, 1, 2, 3]
        assert all(c["time"] > 0 and c["duration"] >= 0 for c in calls)

        recorder = session.service("NaoqiSimRecorder")
        assert recorder.count() == 4  # its own calls are not recorded
        assert [c["method"] for c in recorder.calls(2)] == ["angleInterpolationBezier", "wait"]
        recorder.clear()
        assert recorder.calls(0) == [] and recorder.count() == 4
        session.close()
    finally:
        robot.stop()
    assert read_calls(record) == calls


def test_services_reach_each_other_and_client_modules():
    class Greeter:
        def greet(self, name):
            return "hello " + name

    with SimulatedRobot(robot="nao", listen="tcp://127.0.0.1:0") as robot:
        session = qi.Session()
        session.connect(robot.url)
        service_id = session.registerService("TestGreeter", Greeter())
        assert robot.context.service("TestGreeter").greet("nao") == "hello nao"
        with pytest.raises(RuntimeError, match="Cannot find service"):
            robot.context.service("ALNothing")
        session.unregisterService(service_id)
        session.close()


def test_task_manager_runs_waits_and_stops():
    tasks = TaskManager()
    stopped = threading.Event()

    def run(seconds):
        if not tasks.sleep(seconds):
            stopped.set()

    quick = tasks.start(run, 0.01)
    assert tasks.wait(quick, 2000) and not tasks.is_running(quick)
    slow = tasks.start(run, 30.0)
    assert tasks.is_running(slow) and tasks.running() == [slow]
    assert tasks.wait(slow, 20) is False
    tasks.stop(slow)
    assert stopped.is_set() and not tasks.is_running(slow)
    assert tasks.wait(12345) is True  # unknown ids are done
    tasks.start(run, 30.0)
    assert tasks.close() == []
    with pytest.raises(RuntimeError, match="shutting down"):
        tasks.start(run, 0.0)


def test_context_builds_services_on_demand():
    built = []

    class First:
        def __init__(self, sim):
            built.append("First")
            self.second = sim.service("Second")

    class Second:
        def __init__(self, sim):
            built.append("Second")

        def close(self):
            built.append("closed")

    context = SimContext("pepper", {"First": First, "Second": Second})
    assert context.robot == "pepper" and context.clock() > 0
    context.build_all()
    assert built == ["First", "Second"] and context.service("First").second is \
        context.service("Second")
    context.close()
    assert built[-1] == "closed"
    with pytest.raises(ValueError, match="robot must be"):
        SimContext("romeo", {})


@pytest.mark.slow  # real processes: left out of make check
def test_command_line_prints_the_url_and_stops_on_sigint(tmp_path):
    record = tmp_path / "cli.jsonl"
    sim = start_sim("pepper", record)
    try:
        assert sim.url.startswith("tcp://127.0.0.1:")
        output = run_client(sim.url, "print(session.service('ALMotion').getJointNames('Leg'))")
        assert "HipRoll" in output
        assert wait_until(lambda: record.exists() and record.read_text().strip())
        assert json.loads(record.read_text().splitlines()[0])["method"] == "getJointNames"
    finally:
        code = sim.interrupt()
    assert code == 0, sim.stderr


@pytest.mark.slow  # real processes: left out of make check
def test_command_line_refuses_remote_addresses():
    done = subprocess.run([sys.executable, "-m", "naoqi_qicore.robot.sim", "--listen",
                           "tcp://0.0.0.0:0"], capture_output=True, text=True, timeout=30,
                          cwd=str(REPO), env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert done.returncode == 2 and "--allow-remote" in done.stderr
    assert done.stdout == ""


@pytest.mark.slow  # real processes: left out of make check
def test_command_line_stops_on_sigterm():
    sim = SimProcess("nao")
    sim.wait_ready()
    started = time.monotonic()
    sim.process.terminate()
    assert sim.process.wait(10) == 0
    assert time.monotonic() - started < 5
    sim.interrupt()


def test_memory_forgets_subscribers_nobody_listens_to():
    with SimulatedRobot(robot="nao", listen="tcp://127.0.0.1:0") as robot:
        memory = robot.service("ALMemory")
        session = qi.Session()
        session.connect(robot.url)
        remote = session.service("ALMemory")
        received = []
        subscriber = remote.subscriber("Test/Forget")
        link = subscriber.signal.connect(received.append)
        remote.raiseEvent("Test/Forget", 1)
        assert wait_until(lambda: received == [1])
        assert len(memory._subscribers["Test/Forget"]) == 1
        subscriber.signal.disconnect(link)
        assert wait_until(lambda: not memory._subscribers["Test/Forget"])
        kept = remote.subscriber("Test/Forget")
        kept.signal.connect(received.append)
        session.close()  # a client going away drops its subscriptions
        assert wait_until(lambda: not memory._subscribers["Test/Forget"])
