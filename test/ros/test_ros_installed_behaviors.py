"""Behaviors installed on the robot (issue 22 point 4) and a project run from the robot's
application folder (issue 23 point 1), with the simulated robot, behavior_runner and an
action client as separate processes: ``behavior/installed`` lists them, a ``behavior/run``
goal naming one runs it on the robot through ALBehaviorManager (feedback, result, cancel,
errors), a converted project's behavior installed on the robot really runs there."""
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("naoqi_qicore.robot.sim.cli", reason="needs the simulated robot")
qi = pytest.importorskip("qi")
from action_msgs.msg import GoalStatus  # noqa: E402
from std_srvs.srv import Trigger  # noqa: E402

from naoqi_qicore.action import RunBehavior  # noqa: E402
from naoqi_qicore.converter.api import convert  # noqa: E402
from naoqi_qicore.converter.loader import load_converted  # noqa: E402
from naoqi_qicore.msg import BehaviorState  # noqa: E402
from naoqi_qicore.robot.robot_apps import install_behavior  # noqa: E402
from naoqi_qicore.robot.robot_files import RobotFiles  # noqa: E402
from naoqi_qicore.ros.run_client import BehaviorRunClient  # noqa: E402
from naoqi_qicore.srv import ListInstalledBehaviors  # noqa: E402

from script_behaviors import script_behavior  # noqa: E402
from action_stack import Goal  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sim"))
from robot_projects import PACKAGE_ID, layout_project  # noqa: E402

pytestmark = pytest.mark.long_running(minutes=0.5)

HEY = "animations/Stand/Gestures/Hey_1"
LONG = "animations/Stand/Waiting/ScratchHead_1"


class Robot:
    """naoqi_sim and a runner loading the layout project, and an action client."""

    def __init__(self, programs, probe, tmp_path: Path) -> None:
        self.probe = probe
        self.runs = probe.made(lambda: BehaviorRunClient(probe.node))  # matched while it starts
        project = layout_project(tmp_path)
        self.sim = programs("sim", "--robot", "nao")
        self.runner = programs("runner", "-p", "robot_url:=" + self.sim.url,
                               "-p", "behavior:=%s" % (project / "behavior_1" / "behavior.xar"),
                               "-p", "cache_dir:=%s" % (tmp_path / "cache"),
                               "-p", "take_focus:=false")
        states = probe.listen(BehaviorState, "behavior/state")
        probe.wait_until(lambda: states and states[-1].status == BehaviorState.LOADED, 60,
                         "the project loaded")

    def run(self, **fields) -> Goal:
        return Goal(self.runs, RunBehavior.Goal(**fields))

    def calls(self, method: str):
        return self.sim.calls("ALBehaviorManager", method)

    def inserted(self) -> dict:
        return {call["args"][0]: call["args"][1] for call in self.sim.calls("ALMemory",
                                                                              "insertData")
                if call["args"][0].startswith("Test/")}


@pytest.fixture
def robot(programs, probe, tmp_path) -> Robot:
    return Robot(programs, probe, tmp_path)


def test_installed_behaviors_are_listed_and_run_on_the_robot(robot: Robot) -> None:
    listed = robot.probe.call(ListInstalledBehaviors, "behavior/installed",
                              ListInstalledBehaviors.Request())
    assert listed.success, listed.message
    assert HEY in listed.behaviors and LONG in listed.behaviors
    # the runner installed its project in the robot's files: the robot lists it
    assert {PACKAGE_ID + "/behavior_1", ".lastUploadedChoregrapheBehavior/behavior_1"} <= set(
        listed.behaviors)
    only = robot.probe.call(ListInstalledBehaviors, "behavior/installed",
                            ListInstalledBehaviors.Request(prefix="animations/Sit/"))
    assert only.behaviors == ["animations/Sit/Gestures/Hey_1"] and only.running == []
    goal = robot.run(behavior=HEY)
    sent = time.time()
    state = goal.wait_feedback(lambda s: s.status == BehaviorState.PLAYING, 10, "PLAYING")
    assert state.behavior == HEY
    # stamped when it was seen running (the robot tells no frame for a behavior it runs)
    assert sent - 1.0 < state.header.stamp.sec + state.header.stamp.nanosec * 1e-9 < \
        time.time() + 1.0
    running = robot.probe.call(ListInstalledBehaviors, "behavior/installed",
                               ListInstalledBehaviors.Request())
    assert running.running == [HEY]
    status, result = goal.result(30)
    assert status == GoalStatus.STATUS_SUCCEEDED, result.message
    assert result.status == BehaviorState.FINISHED and list(result.errors) == []
    assert result.message == HEY + " finished on the robot"
    assert 2.5 < result.duration < 10.0  # Hey_1 moves for 2.8 s
    assert [call["args"] for call in robot.calls("startBehavior")] == [[HEY]]


def test_cancel_stops_an_installed_behavior_on_the_robot(robot: Robot) -> None:
    goal = robot.run(behavior=LONG)
    goal.wait_feedback(lambda s: s.status == BehaviorState.PLAYING, 10, "PLAYING")
    goal.cancel()
    status, result = goal.result(15)
    assert status == GoalStatus.STATUS_CANCELED
    assert result.status == BehaviorState.STOPPED
    assert result.message == LONG + " stopped: the goal was cancelled"
    assert result.duration < 4.0  # before its 4.2 s
    # the call is recorded once it returned, after the signal that ended the run
    robot.probe.wait_until(lambda: [c["args"] for c in robot.calls("stopBehavior")] == [[LONG]],
                           5, "stopBehavior in the robot's record")
    assert robot.probe.call(ListInstalledBehaviors, "behavior/installed",
                            ListInstalledBehaviors.Request()).running == []
    # behavior/stop and a newer goal stop it too
    goal = robot.run(behavior=LONG)
    goal.wait_feedback(lambda s: s.status == BehaviorState.PLAYING, 10, "PLAYING")
    assert robot.probe.call(Trigger, "behavior/stop").success
    status, result = goal.result(15)
    assert status == GoalStatus.STATUS_ABORTED and result.status == BehaviorState.STOPPED
    assert "behavior/stop was called" in result.message
    first = robot.run(behavior=LONG)
    first.wait_feedback(lambda s: s.status == BehaviorState.PLAYING, 10, "PLAYING")
    second = robot.run(behavior=HEY)
    status, result = first.result(15)
    assert result.status == BehaviorState.STOPPED and "preempted" in result.message
    assert second.result(30)[1].status == BehaviorState.FINISHED


def test_an_unknown_name_is_an_error_saying_where_it_was_looked_for(robot: Robot) -> None:
    goal = robot.run(behavior="animations/Stand/Gestures/NoSuch_9")
    status, result = goal.result(15)
    assert status == GoalStatus.STATUS_ABORTED and result.status == BehaviorState.ERROR
    assert result.message == ("'animations/Stand/Gestures/NoSuch_9' is neither a file or "
                              "folder here nor a behavior installed on the robot "
                              "(behavior/installed lists them)")
    goal = robot.run(behavior=HEY, label="Wave")
    status, result = goal.result(15)
    assert result.status == BehaviorState.ERROR and "no label or frame" in result.message


def test_a_project_runs_from_the_robots_application_folder(robot: Robot) -> None:
    # here, by the runner: the loaded project, installed as the robot has it
    status, result = robot.run().result(60)
    assert status == GoalStatus.STATUS_SUCCEEDED, [e.message for e in result.errors]
    seen = robot.inserted()
    assert seen["Test/AppName"] == PACKAGE_ID + "/behavior_1"
    assert seen["Test/Greeting"] == "hello from lib" and seen["Test/Recorded"] is True
    # and on the robot, by name: the robot's engine runs it
    before = len(robot.sim.calls("ALMemory", "insertData"))
    status, result = robot.run(behavior=".lastUploadedChoregrapheBehavior/behavior_1").result(60)
    assert status == GoalStatus.STATUS_SUCCEEDED, result.message
    again = {call["args"][0]: call["args"][1]
             for call in robot.sim.calls("ALMemory", "insertData")[before:]}
    # .lastUploadedChoregrapheBehavior is the same application as its package id
    assert again["Test/AppName"] == PACKAGE_ID + "/behavior_1"
    assert again["Test/Greeting"] == "hello from lib" and again["Test/Recorded"] is True


def test_an_installed_behavior_that_fails_on_the_robot_ends_in_error(robot: Robot,
                                                                     tmp_path: Path) -> None:
    # a converted behavior installed into the robot's files (as an application would be)
    (tmp_path / "broken").mkdir()
    xar = script_behavior(tmp_path / "broken", "behavior", "pass", root_code="""
def onInput_onStart(self):
    raise ValueError("the lamp is broken")
""")
    convert(xar, tmp_path / "broken_converted")
    session = qi.Session()
    session.connect(robot.sim.url)
    root = session.service("NaoqiSimFiles").root()
    session.close()
    installed, _ = install_behavior(RobotFiles(root),
                                    load_converted(tmp_path / "broken_converted"))
    assert installed.name == "broken/."
    status, result = robot.run(behavior="broken").result(30)  # resolved by the robot
    assert status == GoalStatus.STATUS_ABORTED and result.status == BehaviorState.ERROR
    assert "broken/. failed on the robot" in result.message
    assert [(e.box_path, e.where) for e in result.errors] == [("broken/.", "robot behavior")]
    assert "ValueError: the lamp is broken" in result.errors[0].message


def test_requests_wait_for_a_robot_that_is_starting(programs, probe, example_behavior,
                                                    tmp_path: Path) -> None:
    """A goal and behavior/installed sent while the runner is still connecting to a robot
    that is starting are served once it is there (robot_start_timeout), with no warning."""
    sim = programs("sim", "--robot", "nao")
    sim.kill()  # its port, where nothing listens until it starts again
    runner = programs("runner", "-p", "robot_url:=" + sim.url,
                      "-p", "cache_dir:=%s" % (tmp_path / "cache"), "-p", "take_focus:=false")
    runs = probe.made(lambda: BehaviorRunClient(probe.node))
    probe.wait_until(lambda: probe.node.count_publishers("/behavior/state"), 30, "the runner")
    listed = []
    lister = threading.Thread(target=lambda: listed.append(probe.call(
        ListInstalledBehaviors, "behavior/installed", ListInstalledBehaviors.Request(),
        timeout=60)))
    lister.start()
    goal = Goal(runs, RunBehavior.Goal(behavior=str(example_behavior)))
    time.sleep(2.0)
    sim.start()  # the robot comes up
    status, result = goal.result(90)
    assert status == GoalStatus.STATUS_SUCCEEDED, result.message
    lister.join(60)
    assert listed and listed[0].success, listed
    assert HEY in listed[0].behaviors
    assert "cannot connect" not in runner.output()
    assert "waiting for the robot at %s" % sim.url in runner.output()
