"""Timelines on a robot that lacks some of their joints (a Pepper behavior recorded with a
NAO's legs): those keys are left out with one warning, the other joints move."""
import time
from typing import List

import pytest

from core_builders import FakeSession, curve, link, script_box, timeline_box
from naoqi_qicore.xar.model import BehaviorKeyframe, BehaviorLayer, Diagram

PEPPER_BODY = ["HeadYaw", "HeadPitch", "LShoulderPitch", "LShoulderRoll", "LElbowYaw",
               "LElbowRoll", "LWristYaw", "LHand", "HipRoll", "HipPitch", "KneePitch",
               "RShoulderPitch", "RShoulderRoll", "RElbowYaw", "RElbowRoll", "RWristYaw",
               "RHand"]


class PepperSession(FakeSession):
    """An in-memory robot whose ALMotion tells Pepper's joints."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: List[str] = []

    def service(self, name):
        if name == "ALMotion":
            session = self

            class Motion:
                def getBodyNames(self, group):  # noqa: N802 (NAOqi's name)
                    session.asked.append(group)
                    return list(PEPPER_BODY)
            return Motion()
        return super().service(name)


def legs_and_head(**kwargs):
    """A root timeline moving NAO's left ankle and the head, then only the ankle."""
    waiter = script_box("Wait", 1, "")
    return timeline_box("root", -1, [BehaviorLayer("layer", [
        BehaviorKeyframe("k", 1, Diagram([waiter], [link(0, 2, 1, 2)]))])],
        curves=[curve("LAnklePitch", [(5, 0), (25, 20), (60, 0)]),
                curve("HeadYaw", [(5, 0), (25, 10)])], **kwargs)


def test_leg_keys_are_left_out_on_a_robot_without_legs(make_harness):
    session = PepperSession()
    harness = make_harness(legs_and_head(), session=session)
    harness.player.load()
    harness.player.play()
    harness.settle()
    first = harness.sink.sent[0]
    assert first.names == ["HeadYaw"] and len(first.times) == len(first.keys) == 1
    harness.player.goto(30)  # from frame 30 only the ankle moves: nothing is sent
    harness.advance(0.2)
    assert len(harness.sink.sent) == 1
    assert session.asked == ["Body"]  # asked once
    harness.advance(3)
    assert harness.player.status == "FINISHED" and harness.player.errors == []
    # the run says it, once, as a warning of the box whose timeline lost keys
    expected = "root: motion: the robot has no joint LAnklePitch: the keys of it in this " \
               "timeline are left out"
    assert [w.text() for w in harness.player.warnings] == [expected]
    assert [e.detail for e in harness.kinds("warning")] == [expected]
    assert harness.player.warning_count == 1
    harness.player.play()  # a new run says it again
    harness.settle()
    assert [w.text() for w in harness.player.warnings] == [expected]


def test_a_robot_that_cannot_tell_its_joints_gets_every_key(make_harness):
    harness = make_harness(legs_and_head())  # FakeSession: no joint list
    harness.player.load()
    harness.player.play()
    harness.settle()
    assert harness.sink.sent[0].names == ["LAnklePitch", "HeadYaw"]


def moves(robot):
    """The joints of each angleInterpolationBezier the simulated robot received."""
    return [call["args"][0] for call in robot.calls()
            if call["method"] == "angleInterpolationBezier"]


def test_on_the_simulated_pepper(make_harness):
    """The simulated Pepper refuses a segment naming NAO's legs, as a real one does: the
    head still moves and the run has no motion error."""
    qi = pytest.importorskip("qi")
    from naoqi_qicore.core.motion import ALMotionSink, RobotJointFilter
    from naoqi_qicore.robot.sim import SimulatedRobot
    robot = SimulatedRobot(robot="pepper", listen="tcp://127.0.0.1:0").start()
    session = qi.Session()
    session.connect(robot.url)
    try:
        harness = make_harness(legs_and_head(), session=session)
        player = harness.player
        # the robot's own motion, not the harness's recording sink
        player.motion = RobotJointFilter(ALMotionSink(session), session)
        player.load()
        player.play()
        deadline = time.monotonic() + 10
        while not moves(robot) and time.monotonic() < deadline:
            time.sleep(0.02)  # the robot records a call once it has returned
        assert moves(robot) == [["HeadYaw"]]
        assert [error for error in player.errors if error.where == "motion"] == []
        harness.advance(3)
        assert player.status == "FINISHED"
        assert [w.where for w in player.warnings] == ["motion"]
        player.unload()
    finally:
        session.close()
        robot.stop()
