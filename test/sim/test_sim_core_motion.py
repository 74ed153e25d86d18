"""ALMotion of the simulated robot, driven from this process over libqi (the robot runs in
another process)."""
import math
import os
import sys
import time

import pytest

qi = pytest.importorskip("qi")

sys.path.insert(0, os.path.dirname(__file__))
from sim_core_support import sim_session, wait_until  # noqa: E402

from naoqi_qicore.robot.sim.bezier import BezierCurve  # noqa: E402

pytestmark = pytest.mark.long_running(minutes=0.3)


@pytest.fixture(scope="module")
def nao():
    with sim_session("nao") as (_, session):
        yield session


@pytest.fixture
def motion(nao):
    motion = nao.service("ALMotion")
    motion.killAll()
    motion.setStiffnesses("Body", 1.0)
    motion.angleInterpolationWithSpeed(["HeadYaw", "HeadPitch", "LShoulderPitch"],
                                       [0.0, 0.0, 0.0], 1.0)
    return motion


def head_yaw(motion):
    return motion.getAngles("HeadYaw", True)[0]


def test_joint_names_chains_and_limits(nao):
    motion = nao.service("ALMotion")
    body = motion.getJointNames("Body")
    assert len(body) == 26 and {"LHand", "RHand", "RHipYawPitch"} <= set(body)
    assert motion.getJointNames("JointActuators") == body
    assert motion.getJointNames("Head") == ["HeadYaw", "HeadPitch"]
    assert sum(len(motion.getJointNames(c)) for c in ("Head", "LArm", "RArm", "LLeg", "RLeg")) == 26
    assert motion.getJointNames("LArm")[-1] == "LHand"
    assert motion.getLimits("HeadYaw") == [[pytest.approx(-2.08567), pytest.approx(2.08567),
                                            pytest.approx(8.26797), pytest.approx(1.547)]]
    assert len(motion.getLimits("Body")) == 26


def test_angles_evolve_during_an_interpolation(motion):
    # long enough to be seen half-way on a loaded machine
    future = motion.angleInterpolation("HeadYaw", 1.0, 3.0, True, _async=True)
    assert wait_until(lambda: 0.05 < head_yaw(motion) < 0.95, 3.0)
    future.value()
    assert head_yaw(motion) == pytest.approx(1.0, abs=1e-9)


def test_angle_interpolation_through_several_angles_and_relative(motion):
    motion.angleInterpolation(["HeadYaw", "HeadPitch"], [[0.4, 0.2], [0.3, 0.1]], [0.1, 0.2],
                              True)
    assert motion.getAngles(["HeadYaw", "HeadPitch"], False) == [pytest.approx(0.2),
                                                                 pytest.approx(0.1)]
    motion.angleInterpolation("HeadYaw", [0.3], [0.1], False)
    assert head_yaw(motion) == pytest.approx(0.5)


def test_bezier_keys_are_followed(nao, motion):
    keys = [[0.8, [3, -0.1, 0.0], [3, 0.1, 0.0]], [-0.4, [3, -0.1, 0.0], [3, 0.1, 0.0]]]
    curve = BezierCurve([0.3, 0.6], keys, start_angle=0.0)
    recorder = nao.service("NaoqiSimRecorder")
    first = recorder.count()
    future = motion.angleInterpolationBezier(["HeadYaw"], [[0.3, 0.6]], [keys], _async=True)
    time.sleep(0.3)
    sample = head_yaw(motion)
    future.value()
    assert head_yaw(motion) == pytest.approx(-0.4)
    # the sample lies on the curve at the time the robot received getAngles, counted from
    # the time it received angleInterpolationBezier (the robot's own call record)
    calls = recorder.calls(first)
    move = next(c for c in calls if c["method"] == "angleInterpolationBezier")
    read = next(c for c in calls if c["method"] == "getAngles")
    since = read["time"] - move["time"]
    assert 0.0 < since < 0.6
    # every 0.1 ms from 5 ms before to 5 ms after the call (a coarser grid can step over
    # the curve's extreme at a key, which the robot may well have sampled)
    window = [curve.angle_at(max(0.0, since + step / 10000)) for step in range(-50, 51 + int(
        read["duration"] * 10000))]
    assert min(window) - 1e-6 <= sample <= max(window) + 1e-6


def test_angles_are_clamped_to_the_limits(motion):
    motion.angleInterpolationWithSpeed("HeadPitch", 3.0, 1.0)
    assert motion.getAngles("HeadPitch", True)[0] == pytest.approx(0.514872)


def test_set_angles_does_not_block_and_reaches_the_target(motion):
    started = time.monotonic()
    motion.setAngles("HeadYaw", 0.6, 0.2)
    assert time.monotonic() - started < 0.2
    assert wait_until(lambda: head_yaw(motion) == pytest.approx(0.6), 3.0)
    motion.changeAngles("HeadYaw", -0.2, 1.0)
    assert wait_until(lambda: head_yaw(motion) == pytest.approx(0.4), 3.0)


def test_post_wait_stop_and_is_running(motion):
    task = motion.pCall("angleInterpolation", "HeadYaw", 1.0, 2.0, True)
    assert isinstance(task, int) and motion.isRunning(task)
    assert motion.wait(task, 50) is True  # timed out: still moving
    assert not motion.areResourcesAvailable(["HeadYaw"])
    assert motion.areResourcesAvailable(["LShoulderPitch"])
    assert ["angleInterpolation", pytest.approx(1, abs=10 ** 6)] in [
        [name, number] for name, number in motion.getTaskList()]
    motion.stop(task)
    assert motion.wait(task, 2000) is False
    assert not motion.isRunning(task)
    stopped = head_yaw(motion)
    assert 0.0 < stopped < 1.0
    time.sleep(0.1)
    assert head_yaw(motion) == stopped  # stopped where it was
    assert motion.areResourcesAvailable(["HeadYaw"])


def test_kill_task_kill_resources_and_kill_all(motion):
    # a posted call starts in a thread of its own: each kill below waits for its task to run
    task = motion.pCall("angleInterpolation", "HeadYaw", 1.0, 2.0, True)
    assert wait_until(lambda: head_yaw(motion) > 0.0)
    assert motion.killTask(task) is True
    assert motion.wait(task, 2000) is False
    assert motion.killTask(task) is False
    task = motion.pCall("angleInterpolation", ["HeadYaw", "LShoulderPitch"], [0.5, 0.5], 2.0,
                        True)
    # HeadYaw is still where the killed task left it: wait for this one to run, not for it
    assert wait_until(lambda: [t[0] for t in motion.getTaskList()] == ["angleInterpolation"])
    motion.killTasksUsingResources(["Head"])
    assert motion.wait(task, 2000) is False
    motion.pCall("angleInterpolation", "LShoulderPitch", 1.0, 2.0, True)
    assert wait_until(lambda: [t[0] for t in motion.getTaskList()] == ["angleInterpolation"])
    motion.move(0.05, 0.0, 0.0)
    motion.killAll()
    assert motion.getTaskList() == [] and not motion.moveIsActive()


def test_a_new_command_takes_the_joints_of_the_old_one(motion):
    old = motion.pCall("angleInterpolation", "HeadYaw", 1.0, 2.0, True)
    time.sleep(0.1)
    motion.angleInterpolationWithSpeed("HeadYaw", -0.2, 1.0)
    assert motion.wait(old, 1000) is False
    assert head_yaw(motion) == pytest.approx(-0.2)


def test_joints_without_stiffness_stay(motion):
    motion.setStiffnesses("HeadYaw", 0.0)
    assert motion.getStiffnesses("Head") == [0.0, 1.0]
    motion.angleInterpolation("HeadYaw", 0.5, 0.1, True)
    assert head_yaw(motion) == 0.0
    motion.setStiffnesses("HeadYaw", 1.0)


def test_rest_and_wake_up(nao, motion):
    """A NAO sits down to rest and gets up from Crouch at ALRobotPosture's whole-body pace,
    in seconds as on the robot."""
    memory = nao.service("ALMemory")
    started = time.monotonic()
    motion.rest()
    assert time.monotonic() - started > 2.0  # the knees bend by 81 degrees
    assert not motion.robotIsWakeUp()
    assert max(motion.getStiffnesses("Body")) == 0.0
    assert memory.getData("robotIsWakeUp") is False
    assert motion.getAngles("LKneePitch", True)[0] == pytest.approx(math.radians(121), abs=1e-6)
    motion.wakeUp()
    assert motion.robotIsWakeUp() and min(motion.getStiffnesses("Body")) == 1.0
    assert motion.getAngles("LKneePitch", True)[0] == pytest.approx(math.radians(40), abs=1e-6)


def test_walking_is_integrated_over_time(motion):
    start = motion.getRobotPosition(True)
    future = motion.moveTo(0.1, 0.0, 0.0, _async=True)  # 1 s at NAO's 0.1 m/s
    time.sleep(0.4)
    x = motion.getRobotPosition(False)[0] - start[0]
    assert 0.01 < x < 0.09 and motion.moveIsActive()
    assert future.value() is True
    end = motion.getRobotPosition(True)
    assert math.hypot(end[0] - start[0], end[1] - start[1]) == pytest.approx(0.1)

    motion.move(0.0, 0.0, 0.5)  # turn on the spot
    time.sleep(0.2)
    assert motion.getRobotVelocity() == [0.0, 0.0, 0.5]
    motion.stopMove()
    turned = motion.getRobotPosition(True)[2] - end[2]
    assert 0.05 < turned < 0.25
    assert motion.getRobotPosition(True)[:2] == pytest.approx(end[:2])
    with pytest.raises(RuntimeError, match="exceeds"):
        motion.move(1.0, 0.0, 0.0)
    motion.moveToward(0.5, 0.0, 0.0)  # half of NAO's top speed, forwards
    assert motion.getRobotVelocity() == [pytest.approx(0.05), 0.0, 0.0]
    motion.stopMove()
    assert motion.getRobotVelocity() == [0.0, 0.0, 0.0] and not motion.moveIsActive()
    with pytest.raises(RuntimeError, match="fractions must be in"):
        motion.moveToward(2.0, 0.0, 0.0)
    before = motion.getRobotPosition(True)
    motion.walkTo(0.0, 0.02, 0.0)  # the deprecated name of moveTo
    after = motion.getRobotPosition(True)
    assert math.hypot(after[0] - before[0], after[1] - before[1]) == pytest.approx(0.02)


def test_hands_open_and_close_over_time(motion):
    motion.openHand("LHand")
    assert motion.getAngles("LHand", True) == [pytest.approx(1.0)]
    future = motion.closeHand("LHand", _async=True)
    assert wait_until(lambda: 0.05 < motion.getAngles("LHand", True)[0] < 0.95, timeout=1.0)
    future.value()
    assert motion.getAngles("LHand", True) == [pytest.approx(0.0)]
    with pytest.raises(RuntimeError, match="'LArm' is not one of LHand, RHand"):
        motion.openHand("LArm")


def test_move_settings_are_kept_and_checked(motion):
    motion.setMoveArmsEnabled(False, True)
    assert [motion.getMoveArmsEnabled(c) for c in ("LArm", "RArm", "Arms")] == [
        False, True, False]
    motion.setMoveArmsEnabled(True, True)
    assert motion.getMoveArmsEnabled("Arms")
    with pytest.raises(RuntimeError, match="ALMotion::getMoveArmsEnabled: 'Head' is not one"):
        motion.getMoveArmsEnabled("Head")
    low, default, high = (dict(motion.getMoveConfig(kind)) for kind in ("Min", "Default", "Max"))
    assert list(low) == ["MaxStepX", "MaxStepY", "MaxStepTheta", "MaxStepFrequency",
                         "StepHeight", "TorsoWx", "TorsoWy"]
    assert all(low[k] <= default[k] <= high[k] for k in low)
    assert default["MaxStepX"] == pytest.approx(0.04) and high["StepHeight"] == pytest.approx(0.04)
    with pytest.raises(RuntimeError, match="'Fast' is not one of Default, Min, Max"):
        motion.getMoveConfig("Fast")
    motion.setMotionConfig([["ENABLE_FOOT_CONTACT_PROTECTION", False]])
    with pytest.raises(RuntimeError, match="each entry must be \\[name, value\\]"):
        motion.setMotionConfig([["ENABLE_FOOT_CONTACT_PROTECTION"]])


def test_reflexes_and_protections_are_switched_per_part(motion):
    assert motion.getExternalCollisionProtectionEnabled("All")
    motion.setExternalCollisionProtectionEnabled("LArm", False)
    assert not motion.getExternalCollisionProtectionEnabled("All")
    assert not motion.getExternalCollisionProtectionEnabled("Arms")
    assert motion.getExternalCollisionProtectionEnabled("Move")
    motion.setExternalCollisionProtectionEnabled("All", True)
    assert motion.getExternalCollisionProtectionEnabled("LArm")
    with pytest.raises(RuntimeError, match="'Legs' is not one of All, Move, Arms"):
        motion.setExternalCollisionProtectionEnabled("Legs", False)
    assert motion.setCollisionProtectionEnabled("Arms", False) is True
    assert not motion.getCollisionProtectionEnabled("RArm")
    motion.setCollisionProtectionEnabled("Arms", True)
    with pytest.raises(RuntimeError, match="'Arms' is not one of LArm, RArm"):
        motion.getCollisionProtectionEnabled("Arms")
    assert motion.isCollision("Arms") == "none"
    motion.setBreathEnabled("Arms", True)
    assert motion.getBreathEnabled("LArm") and not motion.getBreathEnabled("Body")
    motion.setBreathEnabled("Body", False)
    assert not motion.getBreathEnabled("RArm")
    motion.setIdlePostureEnabled("Head", True)
    assert motion.getIdlePostureEnabled("Head") and not motion.getIdlePostureEnabled("Legs")
    motion.setIdlePostureEnabled("Head", False)
    for reflex in ("FallManager", "SmartStiffness", "PushRecovery", "DiagnosisEffect"):
        assert getattr(motion, "get%sEnabled" % reflex)() is True
        getattr(motion, "set%sEnabled" % reflex)(False)
        assert getattr(motion, "get%sEnabled" % reflex)() is False
        getattr(motion, "set%sEnabled" % reflex)(True)
    assert motion.getOrthogonalSecurityDistance() == pytest.approx(0.4)
    assert motion.getTangentialSecurityDistance() == pytest.approx(0.1)
    motion.setOrthogonalSecurityDistance(0.25)
    assert motion.getOrthogonalSecurityDistance() == pytest.approx(0.25)
    motion.setOrthogonalSecurityDistance(0.4)
    with pytest.raises(RuntimeError, match="distance must be >= 0"):
        motion.setTangentialSecurityDistance(-0.1)


def test_errors_reach_the_client(motion):
    with pytest.raises(RuntimeError, match="'LeftEar' is not a joint"):
        motion.getAngles(["HeadYaw", "LeftEar"], True)
    with pytest.raises(RuntimeError, match="ALMotion::setAngles: takes 3"):
        motion.setAngles("HeadYaw", 0.1)
    with pytest.raises(RuntimeError, match="must be a float"):
        motion.setAngles("HeadYaw", 0.1, "fast")
    with pytest.raises(RuntimeError, match="speed fraction"):
        motion.angleInterpolationWithSpeed("HeadYaw", 0.1, 2.0)
    with pytest.raises(RuntimeError, match="joint 'HeadYaw'"):
        motion.angleInterpolationBezier(["HeadYaw"], [[0.5, 0.2]],
                                        [[[0.1, [3, 0, 0], [3, 0, 0]]] * 2])
    with pytest.raises(RuntimeError, match="2 angles but 1 times"):
        motion.angleInterpolation("HeadYaw", [0.1, 0.2], [0.5], True)
    with pytest.raises(AttributeError):
        motion.flyTo(1.0)


def test_pepper_joints():
    with sim_session("pepper") as (_, session):
        motion = session.service("ALMotion")
        assert motion.getJointNames("Leg") == ["HipRoll", "HipPitch", "KneePitch"]
        assert len(motion.getJointNames("Body")) == 17
        with pytest.raises(RuntimeError, match="'LLeg' is not a joint"):
            motion.getJointNames("LLeg")
        assert motion.getLimits("LHand")[0][:2] == [pytest.approx(0.02), pytest.approx(0.98)]
        assert [name for name, _ in motion.getMoveConfig("Default")][:2] == [
            "MaxVelXY", "MaxVelTheta"]
        motion.openHand("RHand")
        assert motion.getAngles("RHand", True) == [pytest.approx(0.98)]


def test_positions_of_parts_in_naoqis_three_spaces(motion):
    """getPosition: the feet stand on the ground of the robot frame, the torso above them;
    the world frame is the robot frame moved by the odometry; a hand moves with its arm."""
    motion.angleInterpolationWithSpeed("LShoulderPitch", 0.0, 1.0)  # the arm forward
    torso = motion.getPosition("Torso", 2, True)
    assert 0.25 < torso[2] < 0.35  # NAO's torso stands about 30 cm high
    for sole in ("LLeg", "RLeg"):
        assert motion.getPosition(sole, 2, True)[2] == pytest.approx(0.0, abs=1e-6)
    assert motion.getPosition("Torso", 0, True) == pytest.approx([0.0] * 6, abs=1e-9)
    hand = motion.getPosition("LArm", 0, True)
    assert hand[0] > 0.2 and hand[1] > 0.1  # forward of the left shoulder
    # the head's joint frame, in the torso, is NeckOffsetZ above it
    assert motion.getPosition("HeadYaw", 0, True)[:3] == pytest.approx([0, 0, 0.1265])

    before = motion.getRobotPosition(True)
    motion.moveTo(0.05, 0.0, 0.3)
    x, y, theta = motion.getRobotPosition(True)
    in_robot = motion.getPosition("LArm", 2, True)
    in_world = motion.getPosition("LArm", 1, True)
    turned = (x + in_robot[0] * math.cos(theta) - in_robot[1] * math.sin(theta),
              y + in_robot[0] * math.sin(theta) + in_robot[1] * math.cos(theta))
    assert in_world[:2] == pytest.approx(turned, abs=1e-6)
    assert in_world[2] == pytest.approx(in_robot[2], abs=1e-9)
    assert in_world[5] == pytest.approx(in_robot[5] + theta, abs=1e-6)
    assert theta - before[2] == pytest.approx(0.3, abs=1e-6)
    with pytest.raises(RuntimeError, match="neither a chain nor a joint"):
        motion.getPosition("LWing", 0, True)
    with pytest.raises(RuntimeError, match="FRAME_ROBOT"):
        motion.getPosition("Torso", 3, True)
