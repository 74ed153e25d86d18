"""``behavior/run`` (RunBehavior action) while the robot or the bridge changes, each test
with a simulated robot, naoqi_bridge and behavior_runner of its own: a Pepper refusing
NAO's joints, a robot lost mid-run (once and again and again), a robot still registering
the services boxes call, a bridge killed while it moves the robot."""
import signal
import time
from typing import Callable, List

import pytest

pytest.importorskip("naoqi_qicore.robot.sim.cli", reason="needs the simulated robot")
from action_msgs.msg import GoalStatus  # noqa: E402

from naoqi_qicore.action import RunBehavior  # noqa: E402
from naoqi_qicore.msg import BehaviorState, MotionKeyframes, MotionStatus  # noqa: E402
from naoqi_qicore.ros.launcher import free_tcp_port  # noqa: E402
from naoqi_qicore.ros.run_client import BehaviorRunClient  # noqa: E402
from naoqi_qicore.srv import GoTo  # noqa: E402

from action_stack import Goal, Stack  # noqa: E402
from script_behaviors import motion_behavior, script_behavior  # noqa: E402

pytestmark = pytest.mark.long_running(minutes=1)


@pytest.fixture
def stack_for(programs, probe, example_behavior, tmp_path) -> Callable[..., Stack]:
    """A stack of the test's own (a test stopping one of its programs, or on another
    ``robot``), its runner loading wave_hello."""
    return lambda robot="nao": Stack(programs, probe, example_behavior, tmp_path, robot)


def test_nao_leg_keys_are_left_out_on_pepper(stack_for, tmp_path) -> None:
    """A Pepper refuses a motion naming NAO's legs: the runner leaves their keys out, the
    head still moves through naoqi_bridge and the run has no motion error; what was left
    out is a warning of the run, in the feedback, on behavior/state and in the result, and
    the goal still SUCCEEDS."""
    behavior = motion_behavior(tmp_path, "nao_legs", {
        "LAnklePitch": [(5, 0), (25, 20)], "RAnklePitch": [(5, 0), (25, 20)],
        "HeadYaw": [(5, 0), (25, 10)]})
    stack = stack_for("pepper")
    status_messages = stack.motion_through_bridge()
    goal = stack.run(behavior=str(behavior))
    status, result = goal.result(20)
    assert result.status == BehaviorState.FINISHED  # its timeline played to its end
    assert [error for error in result.errors if error.where == "motion"] == []
    assert status == GoalStatus.STATUS_SUCCEEDED
    told = ("root", "motion", "the robot has no joint LAnklePitch, RAnklePitch: the keys of "
            "them in this timeline are left out")
    assert [(w.box_path, w.where, w.message) for w in result.warnings] == [told]
    assert result.message.endswith("with 1 warning"), result.message
    assert [(w.box_path, w.where, w.message) for state in goal.feedback
            for w in state.warnings] == [told]  # once in the feedback
    stack.probe.wait_until(lambda: stack.states[-1].status == BehaviorState.FINISHED, 10,
                           "the state saying the run finished")
    last = stack.states[-1]
    assert last.warning_count == 1 and [w.message for w in last.warnings] == [told[2]]
    stack.probe.wait_until(lambda: MotionStatus.FINISHED in [m.status for m in status_messages],
                           10, "the head's segment finishing on the robot")
    assert MotionStatus.FAILED not in [m.status for m in status_messages]


def test_a_lost_robot_ends_the_run_with_error(stack_for) -> None:
    stack = stack_for()
    goal = stack.run()
    goal.wait_feedback(lambda s: s.status == BehaviorState.PLAYING, 10, "PLAYING")
    stack.robot.kill()
    status, result = goal.result(15)
    assert status == GoalStatus.STATUS_ABORTED
    assert result.status == BehaviorState.ERROR and "robot connection lost" in result.message
    assert "robot connection" in [error.where for error in result.errors]


class LateService:
    """A service the test registers on the simulated robot once the runner is connected."""

    def __init__(self) -> None:
        self.calls = 0

    def hello(self) -> str:
        self.calls += 1
        return "hello"


def test_the_runner_waits_for_the_services_boxes_call(programs, probe, tmp_path) -> None:
    """A robot that is starting: a service a box calls is registered 1 s after the runner
    connected, another never is.  The behavior loads once the first is there (so the box
    reaches it), and the runner gives up on the second once the robot registered nothing for
    3 s, saying so: an error of the run, which is then ABORTED."""
    import qi
    behavior = script_behavior(tmp_path, "late", """
def onInput_onStart(self):
    ALProxy("ALLateService").hello()
    try:
        self.session().service("ALNeverThere")
    except RuntimeError:
        pass
    self.onStopped()
""")
    robot = programs("sim")
    runner = programs("runner", "-p", "robot_url:=" + robot.url,
                      "-p", "behavior:=" + str(behavior),
                      "-p", "cache_dir:=" + str(tmp_path / "cache"))
    states: List[BehaviorState] = probe.listen(BehaviorState, "behavior/state")
    probe.wait_until(lambda: robot.calls("ALAutonomousLife", "getState"), 30,
                     "the runner connected")
    time.sleep(1.0)
    session = qi.Session()
    session.connect(robot.url)
    late = LateService()
    try:
        session.registerService("ALLateService", late)
        registered = time.time()
        loaded = probe.wait_until(lambda: next((s for s in states
                                                if s.status == BehaviorState.LOADED), None),
                                  30, "behavior loaded")
        stamp = loaded.header.stamp.sec + loaded.header.stamp.nanosec * 1e-9
        assert stamp >= registered + 2.5  # waited for both, then gave up
        assert "does not offer ALNeverThere" in runner.output()
        runs = probe.made(lambda: BehaviorRunClient(probe.node))
        status, result = Goal(runs, RunBehavior.Goal()).result(20)
    finally:
        session.close()
    assert late.calls == 1
    assert (status, result.status) == (GoalStatus.STATUS_ABORTED, BehaviorState.FINISHED)
    assert [(e.box_path, e.where) for e in result.errors] == [
        ("root/Script", "robot service"), ("root/Script", "robot call")], result.errors
    assert "ALNeverThere" in result.errors[0].message
    assert all("ALLateService" not in e.message for e in result.errors)


def test_a_killed_bridge_fails_its_motion_within_a_second(stack_for, tmp_path) -> None:
    """kill -9 of naoqi_bridge while it moves the robot for a run: the run's state (and
    feedback, and result) has a motion error naming the lost bridge within 1 s, and later
    motion of the run goes to ALMotion directly; a bridge stalled a moment is not lost."""
    behavior = motion_behavior(tmp_path, "long_nod", {"HeadPitch": [(1, 0), (250, 20)]})
    stack = stack_for()
    segments = stack.probe.listen(MotionKeyframes, "motion/keyframes", latched=False)
    status_messages = stack.motion_through_bridge()
    goal = stack.run(behavior=str(behavior))
    stack.probe.wait_until(lambda: any(m.status == MotionStatus.STARTED
                                       for m in status_messages), 10, "the bridge moving")

    def lost(state: BehaviorState) -> bool:
        return any(error.where == "motion" and "naoqi_bridge lost" in error.message
                   for error in state.errors)
    # a bridge stalled on a busy machine, past its DDS lease (0.2 s), is not lost: it is
    # lost 0.57 s after its last sign of life at the earliest, which leaves it 0.27 s or
    # more to be heard again after it resumes
    stack.bridge.process.send_signal(signal.SIGSTOP)
    time.sleep(0.3)
    stack.bridge.process.send_signal(signal.SIGCONT)
    time.sleep(1.0)
    assert not lost(stack.states[-1]), "a stalled bridge was taken for lost"
    sent_to_bridge = len(segments)
    killed = time.monotonic()
    stack.bridge.kill()
    stack.probe.wait_until(lambda: stack.states and lost(stack.states[-1]), 5,
                           "a motion error naming the lost bridge")
    told = time.monotonic() - killed
    assert told < 1.0, "told %.2f s after the kill" % told
    assert stack.states[-1].status == BehaviorState.PLAYING  # the timeline goes on
    goal.wait_feedback(lost, 2, "the motion error in the feedback")
    moved = len(stack.robot.calls("ALMotion", "angleInterpolationBezier"))
    stack.probe.call(GoTo, "behavior/goto", GoTo.Request(frame=200))  # a new segment
    stack.probe.wait_until(lambda: len(stack.robot.calls(
        "ALMotion", "angleInterpolationBezier")) > moved, 10, "motion sent to ALMotion")
    assert len(segments) == sent_to_bridge  # none went to the dead bridge
    goal.cancel()
    _, result = goal.result(10)
    assert [error.box_path for error in result.errors if error.where == "motion"
            and "naoqi_bridge lost" in error.message] == ["root"]


def test_the_state_never_contradicts_a_result_already_sent(programs, probe, example_behavior,
                                                           tmp_path) -> None:
    """The robot disappears mid-run again and again: each time, when the run's ERROR result
    arrives, the latched behavior/state already says how the run ended."""
    from naoqi_qicore.robot.sim import SimulatedRobot
    url = "tcp://127.0.0.1:%d" % free_tcp_port()
    robot = SimulatedRobot(listen=url).start()
    programs("runner", "-p", "robot_url:=" + url, "-p", "behavior:=" + str(example_behavior),
             "-p", "cache_dir:=" + str(tmp_path / "cache"), "-p", "take_focus:=false")
    states: List[BehaviorState] = probe.listen(BehaviorState, "behavior/state")
    runs = probe.made(lambda: BehaviorRunClient(probe.node))
    seen_at_result = []
    try:
        for _ in range(10):
            probe.wait_until(lambda: states and states[-1].status == BehaviorState.LOADED, 30,
                             "the behavior loaded")
            goal = Goal(runs, RunBehavior.Goal())
            goal.wait_feedback(lambda s: s.status == BehaviorState.PLAYING, 10, "PLAYING")
            goal.when_done(lambda: seen_at_result.append(states[-1].status))
            robot.stop()  # the robot is gone
            _, result = goal.result(10)
            assert result.status == BehaviorState.ERROR, result.message
            robot = SimulatedRobot(listen=url).start()
    finally:
        robot.stop()
    assert BehaviorState.PLAYING not in seen_at_result, seen_at_result
