"""naoqi_bridge against the simulated robot: motion segments and ALAutonomousLife."""
import pytest

pytest.importorskip("naoqi_qicore.robot.sim.cli", reason="needs the simulated robot")
from std_msgs.msg import String  # noqa: E402
from std_srvs.srv import Trigger  # noqa: E402

from naoqi_qicore.msg import (ActivityFocus, MotionKeyframes, MotionStatus,  # noqa: E402
                              MotionStop, RobotConnection)
from naoqi_qicore.ros.motion_messages import keyframes_message  # noqa: E402
from naoqi_qicore.ros.qos import COMMANDS  # noqa: E402
from naoqi_qicore.srv import (GetFocusHistory, SetAutonomousAbility,  # noqa: E402
                              SetLifeState, SwitchFocus)

KEY = [0.2, [2, -0.1, 0.0], [2, 0.1, 0.0]]


def start_bridge(programs, probe, *robot_options: str):
    """The simulated robot (with ``robot_options``) and a bridge connected to it."""
    robot = programs("sim", *robot_options)
    programs("bridge", "-p", "robot_url:=" + robot.url)
    connection = probe.listen(RobotConnection, "robot/connection")
    probe.wait_until(lambda: connection and connection[-1].state == RobotConnection.CONNECTED,
                     30, "bridge connected")
    assert connection[-1].url == robot.url
    return robot


@pytest.fixture
def bridge(programs, probe):
    return start_bridge(programs, probe)


def statuses(messages, segment_id):
    return [m.status for m in messages if m.segment_id == segment_id]


class MotionTopics:
    """The test's ends of motion/keyframes, motion/stop and motion/status."""

    def __init__(self, probe) -> None:
        self.probe = probe
        self.status = probe.listen(MotionStatus, "motion/status", latched=False)
        self.keyframes = probe.node.create_publisher(MotionKeyframes, "motion/keyframes",
                                                     COMMANDS)
        self.stop = probe.node.create_publisher(MotionStop, "motion/stop", COMMANDS)
        probe.wait_until(lambda: self.keyframes.get_subscription_count() > 0, 10,
                         "bridge subscribed")
        probe.wait_until(lambda: probe.node.count_publishers("/motion/status") > 0, 10,
                         "the bridge's motion/status publisher")  # not latched

    def wait_status(self, segment_id: int, status: int, what: str) -> MotionStatus:
        return self.probe.wait_until(lambda: [m for m in self.status if m.segment_id ==
                                              segment_id and m.status == status], 10, what)[-1]


def test_segments_run_finish_and_stop(bridge, probe) -> None:
    motion = MotionTopics(probe)
    motion.keyframes.publish(keyframes_message(1, ["HeadYaw"], [[0.2]], [[KEY]]))
    motion.wait_status(1, MotionStatus.FINISHED, "segment 1 done")
    assert statuses(motion.status, 1) == [MotionStatus.STARTED, MotionStatus.FINISHED]
    call = bridge.calls("ALMotion", "angleInterpolationBezier")[0]
    assert call["args"][:3] == [["HeadYaw"], [[0.2]], [[KEY]]]
    assert call["duration"] >= 0.2  # reported FINISHED when the robot's call returned

    motion.keyframes.publish(keyframes_message(2, ["HeadPitch"], [[30.0]], [[KEY]]))
    motion.wait_status(2, MotionStatus.STARTED, "segment 2 runs")
    motion.stop.publish(MotionStop(segment_id=2))
    motion.wait_status(2, MotionStatus.STOPPED, "segment 2 stopped")
    assert [c["args"] for c in bridge.calls("ALMotion", "killTasksUsingResources")] \
        == [[["HeadPitch"]]]

    broken = keyframes_message(3, ["HeadYaw"], [[0.2]], [[KEY]])
    broken.joints[0].left_types = []
    motion.keyframes.publish(broken)
    failed = motion.wait_status(3, MotionStatus.FAILED, "segment 3 refused")
    assert "joint 'HeadYaw'" in failed.message

    # a newer segment on the same joints replaces an older one: STOPPED, never FAILED
    motion.keyframes.publish(keyframes_message(4, ["HeadYaw", "HeadPitch"], [[30.0], [30.0]],
                                               [[KEY], [KEY]]))
    motion.wait_status(4, MotionStatus.STARTED, "segment 4 runs")
    motion.keyframes.publish(keyframes_message(5, ["HeadYaw"], [[30.0]], [[KEY]]))
    motion.wait_status(4, MotionStatus.STOPPED, "segment 4 replaced")
    motion.stop.publish(MotionStop(segment_id=MotionStop.ALL))
    motion.wait_status(5, MotionStatus.STOPPED, "every segment stopped")
    assert statuses(motion.status, 4) == [MotionStatus.STARTED, MotionStatus.STOPPED]
    assert statuses(motion.status, 5) == [MotionStatus.STARTED, MotionStatus.STOPPED]


def test_a_segment_the_robot_rejects_fails_with_its_message(programs, probe) -> None:
    robot = start_bridge(programs, probe, "--robot", "pepper")
    motion = MotionTopics(probe)
    legs = ["LHipPitch", "LKneePitch", "LAnklePitch"]  # NAO's: Pepper has no legs
    motion.keyframes.publish(keyframes_message(1, legs, [[0.5]] * 3, [[KEY]] * 3))
    failed = motion.wait_status(1, MotionStatus.FAILED, "segment 1 rejected")
    assert statuses(motion.status, 1) == [MotionStatus.STARTED, MotionStatus.FAILED]
    assert "is not a joint" in failed.message and "Pepper" in failed.message
    assert failed.message == robot.calls("ALMotion", "angleInterpolationBezier")[0]["error"]
    # the bridge keeps serving: a segment Pepper can play finishes
    motion.keyframes.publish(keyframes_message(2, ["HeadYaw"], [[0.2]], [[KEY]]))
    motion.wait_status(2, MotionStatus.FINISHED, "segment 2 done")


def test_autonomous_life_services(bridge, probe) -> None:
    life_state = probe.listen(String, "life/state")
    focus = probe.listen(ActivityFocus, "life/focus")
    bad = probe.call(SetLifeState, "life/set_state", SetLifeState.Request(state="sleepy"))
    assert bad.success is False and "solitary" in bad.message
    assert probe.call(SetLifeState, "life/set_state",
                      SetLifeState.Request(state="solitary")).success
    probe.wait_until(lambda: life_state and life_state[-1].data == "solitary", 5, "solitary")
    assert probe.call(Trigger, "life/get_state").message == "solitary"

    for activity, flags in (("app-a/behavior_1", 0), ("app-b/behavior_1", 1)):
        answer = probe.call(SwitchFocus, "life/switch_focus",
                            SwitchFocus.Request(activity_name=activity, flags=flags))
        assert answer.success, answer.message
    assert probe.call(Trigger, "life/focused_activity").message == "app-b/behavior_1"
    stacked = probe.wait_until(lambda: focus and focus[-1].focused_activity == "app-b/behavior_1"
                               and focus[-1], 5, "app-b focused")
    assert list(stacked.focus_stack) == ["app-a/behavior_1"]

    assert probe.call(Trigger, "life/stop_focus").success
    back = probe.wait_until(lambda: focus[-1].focused_activity == "app-a/behavior_1" and focus[-1],
                            5, "app-a back")
    assert back.start_reason == "unstacked"
    history = probe.call(GetFocusHistory, "life/get_focus_history", GetFocusHistory.Request())
    assert history.success, history.message
    assert "app-b/behavior_1" in history.activities
    assert probe.call(Trigger, "life/stop_all").success
    assert probe.call(Trigger, "life/focused_activity").message == ""
    ability = probe.call(SetAutonomousAbility, "life/set_autonomous_ability_enabled",
                         SetAutonomousAbility.Request(ability="BackgroundMovement", enabled=False))
    assert ability.success, ability.message
    assert not probe.call(SetAutonomousAbility, "life/set_autonomous_ability_enabled",
                          SetAutonomousAbility.Request()).success
