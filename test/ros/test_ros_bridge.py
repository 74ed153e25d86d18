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


@pytest.fixture
def bridge(programs, probe):
    robot = programs("sim")
    programs("bridge", "-p", "robot_url:=" + robot.url)
    connection = probe.listen(RobotConnection, "robot/connection")
    probe.wait_until(lambda: connection and connection[-1].state == RobotConnection.CONNECTED,
                     30, "bridge connected")
    assert connection[-1].url == robot.url
    return robot


def statuses(messages, segment_id):
    return [m.status for m in messages if m.segment_id == segment_id]


def test_segments_run_finish_and_stop(bridge, probe) -> None:
    status = probe.listen(MotionStatus, "motion/status", latched=False)
    keyframes = probe.node.create_publisher(MotionKeyframes, "motion/keyframes", COMMANDS)
    stop = probe.node.create_publisher(MotionStop, "motion/stop", COMMANDS)
    probe.wait_until(lambda: keyframes.get_subscription_count() > 0, 10, "bridge subscribed")
    keyframes.publish(keyframes_message(1, ["HeadYaw"], [[0.2]], [[KEY]]))
    probe.wait_until(lambda: MotionStatus.FINISHED in statuses(status, 1), 10, "segment 1 done")
    assert statuses(status, 1) == [MotionStatus.STARTED, MotionStatus.FINISHED]
    call = bridge.calls("ALMotion", "angleInterpolationBezier")[0]
    assert call["args"][:3] == [["HeadYaw"], [[0.2]], [[KEY]]]

    keyframes.publish(keyframes_message(2, ["HeadPitch"], [[30.0]], [[KEY]]))
    probe.wait_until(lambda: MotionStatus.STARTED in statuses(status, 2), 10, "segment 2 runs")
    stop.publish(MotionStop(segment_id=2))
    probe.wait_until(lambda: MotionStatus.STOPPED in statuses(status, 2), 10, "segment 2 stopped")

    broken = keyframes_message(3, ["HeadYaw"], [[0.2]], [[KEY]])
    broken.joints[0].left_types = []
    keyframes.publish(broken)
    probe.wait_until(lambda: MotionStatus.FAILED in statuses(status, 3), 10, "segment 3 refused")
    failed = [m for m in status if m.segment_id == 3][-1]
    assert "joint 'HeadYaw'" in failed.message


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
