"""``behavior/run`` (RunBehavior action) of behavior_runner, with naoqi_bridge and the
simulated robot as separate processes over real DDS: runs to the end, how a goal ends
(SUCCEEDED only without error), cancel, errors of the run (each once in the feedback), a
stop that stops, preemption, fresh runs, the services during a goal, a robot still
registering its services, boxes unsubscribing in onUnload."""
import signal
import threading
import time
from pathlib import Path
from typing import Any, Callable, List, Optional

import pytest

pytest.importorskip("naoqi_qicore.robot.sim.cli", reason="needs the simulated robot")
psutil = pytest.importorskip("psutil")
from action_msgs.msg import GoalStatus  # noqa: E402
from diagnostic_msgs.msg import DiagnosticArray  # noqa: E402
from rclpy.task import Future  # noqa: E402
from std_srvs.srv import Trigger  # noqa: E402

from naoqi_qicore.action import RunBehavior  # noqa: E402
from naoqi_qicore.msg import (BehaviorState, MotionKeyframes, MotionStatus,  # noqa: E402
                              RobotConnection)
from naoqi_qicore.ros.launcher import free_tcp_port  # noqa: E402
from naoqi_qicore.ros.run_client import BehaviorRunClient  # noqa: E402
from naoqi_qicore.srv import GoTo, ListBehaviors  # noqa: E402

from script_behaviors import layered_behavior, motion_behavior, script_behavior  # noqa: E402

pytestmark = pytest.mark.long_running(minutes=2)

ACTIVITY = "naoqi_qicore/wave_hello"
#: the runner's /diagnostics status saying where motion goes
RUNNER_MOTION = "naoqi_qicore: behavior_runner motion"
#: wave_hello: labels, and its last frame
LABELS = {"Hello": 1, "Wave": 30, "Skip": 70, "Bow": 90}


def wait_future(future: Any, timeout: float, what: str) -> Any:
    done = threading.Event()
    future.add_done_callback(lambda _: done.set())
    if not done.wait(timeout):
        pytest.fail("timed out after %.0f s waiting for %s" % (timeout, what))
    return future.result()


class Goal:
    """A ``behavior/run`` goal sent by the test: its feedback states and its result."""

    def __init__(self, runs: BehaviorRunClient, request: RunBehavior.Goal) -> None:
        self.feedback: List[BehaviorState] = []
        self.handle = runs.send(request, self.feedback.append, timeout=20)
        assert self.handle.accepted
        self._result = self.handle.get_result_async()
        self.result_time: Optional[float] = None
        self._result.add_done_callback(lambda _: setattr(self, "result_time", time.monotonic()))

    def wait_feedback(self, predicate: Callable[[BehaviorState], Any], timeout: float,
                      what: str) -> BehaviorState:
        deadline = time.monotonic() + timeout
        while True:
            found = next((state for state in list(self.feedback) if predicate(state)), None)
            if found is not None:
                return found
            if time.monotonic() > deadline:
                pytest.fail("no feedback with %s within %.1f s (last: %s)" % (
                    what, timeout, self.feedback[-1] if self.feedback else None))
            time.sleep(0.01)

    def cancel(self) -> None:
        wait_future(self.handle.cancel_goal_async(), 10, "the cancel answer")

    def when_done(self, callback: Callable[[], None]) -> None:
        """Call ``callback()`` in the probe's thread once the result arrives."""
        self._result.add_done_callback(lambda _: callback())

    def result(self, timeout: float = 30.0) -> Any:
        """``(goal status, RunBehavior.Result)``."""
        answer = wait_future(self._result, timeout, "the result")
        return answer.status, answer.result


class Stack:
    """The simulated robot, the bridge and the runner (with ``behavior``), and an action
    client."""

    def __init__(self, programs: Callable[..., Any], probe: Any, behavior: Path,
                 tmp_path: Path, robot: str = "nao") -> None:
        self.probe = probe
        # made first: the runner discovers it while it starts
        self.runs = probe.made(lambda: BehaviorRunClient(probe.node))
        self.robot = programs("sim", "--robot", robot)
        self.bridge = programs("bridge", "-p", "robot_url:=" + self.robot.url)
        self.runner = programs("runner", "-p", "robot_url:=" + self.robot.url,
                               "-p", "behavior:=" + str(behavior),
                               "-p", "cache_dir:=" + str(tmp_path / "cache"))
        self.states: List[BehaviorState] = probe.listen(BehaviorState, "behavior/state")
        connection = probe.listen(RobotConnection, "robot/connection")
        probe.wait_until(lambda: self.states and self.states[-1].status == BehaviorState.LOADED,
                         60, "behavior loaded")
        probe.wait_until(lambda: connection and connection[-1].state
                         == RobotConnection.CONNECTED, 30, "bridge connected")

    def run(self, **fields: Any) -> Goal:
        return Goal(self.runs, RunBehavior.Goal(**fields))

    def focused_activity(self) -> str:
        return self.probe.call(Trigger, "life/focused_activity").message

    def motion_through_bridge(self) -> List[MotionStatus]:
        """Wait until the runner's motion goes through the bridge; returns the (growing)
        list of the bridge's motion/status messages."""
        status_messages = self.probe.listen(MotionStatus, "motion/status", latched=False)
        diagnostics = self.probe.listen(DiagnosticArray, "/diagnostics", latched=False)
        # motion/status is not latched: subscribed before the first segment is sent
        self.probe.wait_until(lambda: self.probe.node.count_publishers("/motion/status") > 0,
                              10, "the bridge's motion/status publisher")
        # the runner sends motion itself until it has heard of a bridge connected to the robot
        self.probe.wait_until(lambda: motion_output(diagnostics) == "naoqi_bridge", 20,
                              "the runner's motion going through naoqi_bridge")
        return status_messages


@pytest.fixture
def wave(programs, probe, example_behavior, tmp_path) -> Stack:
    return Stack(programs, probe, example_behavior, tmp_path)


def frames(states: List[BehaviorState]) -> List[int]:
    return [state.frame for state in states if state.status == BehaviorState.PLAYING]


def test_wave_hello_runs_to_its_end(wave: Stack) -> None:
    listed = wave.probe.call(ListBehaviors, "behavior/list").behaviors[0]
    goal = wave.run()  # the loaded behavior
    status, result = goal.result(60)
    assert status == GoalStatus.STATUS_SUCCEEDED
    assert result.status == BehaviorState.FINISHED, result.message
    assert result.frame == listed.frame_count  # its last frame
    assert "finished" in result.message and list(result.errors) == []
    assert 2.0 < result.duration < 20.0
    played = frames(goal.feedback)
    assert len(played) >= 3 and played == sorted(played) and played[-1] > played[0]
    assert wave.focused_activity() != ACTIVITY  # released when it finished


def test_cancel_stops_within_half_a_second_and_releases_the_focus(wave: Stack,
                                                                  example_behavior) -> None:
    goal = wave.run(behavior=str(example_behavior), label="Wave")
    start = goal.wait_feedback(lambda s: s.status == BehaviorState.PLAYING, 10, "PLAYING")
    assert start.frame >= LABELS["Wave"]  # started at the label
    goal.wait_feedback(lambda s: s.frame >= LABELS["Wave"] + 5, 10, "a few frames played")
    assert wave.focused_activity() == ACTIVITY
    cancelled = time.monotonic()
    goal.cancel()
    status, result = goal.result(5)
    assert goal.result_time - cancelled < 0.5
    assert status == GoalStatus.STATUS_CANCELED
    assert result.status == BehaviorState.STOPPED and "cancelled" in result.message
    assert wave.focused_activity() != ACTIVITY
    state = wave.probe.wait_until(lambda: wave.states[-1].status == BehaviorState.STOPPED
                                  and wave.states[-1], 5, "STOPPED state")
    assert list(state.active_boxes) == []


def test_a_new_goal_preempts_the_running_one(wave: Stack) -> None:
    first = wave.run()
    first.wait_feedback(lambda s: s.status == BehaviorState.PLAYING and s.frame > 5, 10,
                        "the first goal playing")
    second = wave.run(label="Bow")
    status, result = first.result(5)
    assert status == GoalStatus.STATUS_ABORTED
    assert result.status == BehaviorState.STOPPED and "preempted" in result.message
    second.wait_feedback(lambda s: s.status == BehaviorState.PLAYING
                         and s.frame >= LABELS["Bow"], 10, "the second goal playing from Bow")
    assert wave.focused_activity() == ACTIVITY
    status, result = second.result(30)
    assert (status, result.status) == (GoalStatus.STATUS_SUCCEEDED, BehaviorState.FINISHED)


def test_services_act_on_the_goal(wave: Stack) -> None:
    goal = wave.run()
    goal.wait_feedback(lambda s: s.status == BehaviorState.PLAYING, 10, "PLAYING")
    moved = wave.probe.call(GoTo, "behavior/goto", GoTo.Request(label="Bow"))
    assert moved.success, moved.message
    goal.wait_feedback(lambda s: s.frame >= LABELS["Bow"], 5, "the goal at Bow")
    assert wave.probe.call(Trigger, "behavior/stop").success
    status, result = goal.result(5)
    assert status == GoalStatus.STATUS_ABORTED
    assert result.status == BehaviorState.STOPPED and "behavior/stop" in result.message
    assert result.frame >= LABELS["Bow"]


def test_goals_that_cannot_run_say_why(wave: Stack, tmp_path) -> None:
    for request, words in ((dict(behavior=str(tmp_path / "missing.xar")), "missing.xar"),
                           (dict(label="NoSuchLabel"), "NoSuchLabel"),
                           (dict(frame=-7), "frame")):
        status, result = wave.run(**request).result(20)
        assert status == GoalStatus.STATUS_ABORTED
        assert result.status == BehaviorState.ERROR and words in result.message
    status, result = wave.run(label="Bow").result(30)  # the runner goes on
    assert result.status == BehaviorState.FINISHED


@pytest.fixture
def stack_for(programs, probe, example_behavior, tmp_path) -> Callable[..., Stack]:
    """A stack whose runner loads wave_hello (on a simulated ``robot``); goals then name the
    behavior to run."""
    return lambda robot="nao": Stack(programs, probe, example_behavior, tmp_path, robot)


def test_a_goal_whose_answer_is_lost_is_followed_by_the_run_client(stack_for) -> None:
    """The goal's answer never reaches BehaviorRunClient (as when DDS drops it for a client
    the runner has not matched yet): the goal is found in the action's status, its feedback
    and result arrive, and the caller is not told that nobody answered."""
    stack = stack_for()
    runs = stack.probe.made(lambda: BehaviorRunClient(stack.probe.node))
    send = runs._client.send_goal_async
    runs._client.send_goal_async = lambda *args, **kwargs: (send(*args, **kwargs), Future())[1]
    feedback: List[BehaviorState] = []
    goal = runs.run(RunBehavior.Goal(), feedback.append, timeout=20)
    result = goal.wait(60)
    assert result is not None and goal.succeeded(), result
    assert result.status == BehaviorState.FINISHED and feedback
    stack.probe.made(runs.destroy)


def test_a_failing_box_is_in_the_feedback_and_the_result(stack_for, tmp_path) -> None:
    behavior = script_behavior(tmp_path, "boom", """
def onInput_onStart(self):
    raise RuntimeError("BOOM from box")
""")
    stack = stack_for()
    sent = time.time()
    goal = stack.run(behavior=str(behavior))
    state = goal.wait_feedback(lambda s: s.errors, 5, "an error")
    received = time.time()
    assert state.status == BehaviorState.PLAYING  # the box stopped, the behavior goes on
    [error] = state.errors
    # the feedback told it at once (the goal's conversion and load before it take what the
    # machine gives them)
    failed = error.stamp.sec + error.stamp.nanosec * 1e-9
    assert sent <= failed <= received < failed + 0.5
    assert (error.box_path, error.where, error.exception_type, error.message) == (
        "root/Script", "onStart", "RuntimeError", "BOOM from box")
    assert 'raise RuntimeError("BOOM from box")' in error.traceback
    assert state.last_error == "root/Script: onStart: RuntimeError: BOOM from box"
    assert state.error_count == 1
    goal.cancel()
    status, result = goal.result(5)
    assert result.status == BehaviorState.STOPPED
    assert [(e.box_path, e.message) for e in result.errors] == [("root/Script", "BOOM from box")]


def test_a_failing_root_ends_the_run_with_error(stack_for, tmp_path) -> None:
    behavior = script_behavior(tmp_path, "root_boom", "", root_code="""
def onInput_onStart(self):
    raise RuntimeError("BOOM from root")
""")
    stack = stack_for()
    status, result = stack.run(behavior=str(behavior)).result(10)
    assert status == GoalStatus.STATUS_ABORTED
    assert result.status == BehaviorState.ERROR and "BOOM from root" in result.message
    assert [(e.box_path, e.where) for e in result.errors] == [("root", "onStart")]
    assert stack.focused_activity() != "naoqi_qicore/root_boom"


def test_cancel_ends_a_busy_box(stack_for, tmp_path) -> None:
    behavior = script_behavior(tmp_path, "busy", """
def onInput_onStart(self):
    x = 0
    while True:
        x += 1
""")
    stack = stack_for()
    runner = psutil.Process(stack.runner.process.pid)
    goal = stack.run(behavior=str(behavior))
    goal.wait_feedback(lambda s: "root/Script" in s.active_boxes, 10, "the box running")
    time.sleep(0.5)
    # it spins: on a machine shared with other work it gets its share of the cores, not
    # one of them (about 35 % of a core at a load of 8 on 2 cores, 10 % at a load of 20),
    # and stopped it uses next to none
    spinning = runner.cpu_percent(interval=1.0)
    goal.cancel()
    status, result = goal.result(5)
    assert result.status == BehaviorState.STOPPED
    assert [e for e in result.errors if e.where == "stop"] == []  # it could be stopped
    stopped = runner.cpu_percent(interval=3.0)
    print("runner: %.0f %% of a core while the box spun, %.1f %% once stopped"
          % (spinning, stopped))
    assert stopped < 5.0 and spinning > max(5.0, 2 * stopped)


def test_a_looping_box_makes_no_robot_call_after_cancel(stack_for, tmp_path) -> None:
    behavior = script_behavior(tmp_path, "chatty", """
def onInput_onStart(self):
    leds = ALProxy("ALLeds")
    while True:
        leds.fadeRGB("FaceLeds", 0x0000FF, 0.0)
        time.sleep(0.02)
""")
    stack = stack_for()
    goal = stack.run(behavior=str(behavior))
    stack.probe.wait_until(lambda: len(stack.robot.calls("ALLeds", "fadeRGB")) > 5, 10,
                           "the box calling the robot")
    cancelled = time.time()
    goal.cancel()
    status, result = goal.result(5)
    assert result.status == BehaviorState.STOPPED
    time.sleep(1.5)
    late = [call for call in stack.robot.calls("ALLeds", "fadeRGB")
            if call["time"] > cancelled + 1.0]
    assert late == []


def motion_output(diagnostics: List[DiagnosticArray]) -> Optional[str]:
    """Where the runner said last on /diagnostics that its motion goes (None: not said)."""
    for array in reversed(list(diagnostics)):
        for status in array.status:
            if status.name == RUNNER_MOTION:
                return next(value.value for value in status.values if value.key == "output")
    return None


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


def test_a_box_failing_midway_leaves_the_other_layers_playing_to_the_end(stack_for,
                                                                         tmp_path) -> None:
    """A sound box whose file is missing fails 1 s into a 4 s timeline: its failure is an
    error of the run (in the feedback at once), the other layer's boxes and the motion go
    on to the end, where the run FINISHED with that error (the goal ABORTED for it)."""
    leds = """
def onInput_onStart(self):
    ALProxy("ALLeds").fadeRGB("FaceLeds", 0x00FF00, 0.1)
"""
    behavior = layered_behavior(tmp_path, "sound_missing", {
        "sound": [(25, "Play Sound File", """
def onInput_onStart(self):
    self.session().service("ALAudioPlayer").playFile("/home/nao/missing_sound.ogg")
    self.onStopped()
""")],
        "leds": [(50, "Eyes", leds), (90, "Eyes again", leds)]},
        {"HeadYaw": [(5, 0), (50, 20), (100, 0)]})
    stack = stack_for()
    goal = stack.run(behavior=str(behavior))
    state = goal.wait_feedback(lambda s: s.errors, 10, "the sound box's error")
    assert state.status == BehaviorState.PLAYING and state.frame < 50
    status, result = goal.result(30)
    assert (status, result.status) == (GoalStatus.STATUS_ABORTED, BehaviorState.FINISHED)
    assert result.frame == 100 and result.message.endswith("with 1 error"), result.message
    assert [(e.box_path, e.where) for e in result.errors] == [("root/Play Sound File",
                                                               "onStart")]
    assert len(stack.robot.calls("ALLeds", "fadeRGB")) == 2


def test_a_lost_robot_ends_the_run_with_error(wave: Stack) -> None:
    goal = wave.run()
    goal.wait_feedback(lambda s: s.status == BehaviorState.PLAYING, 10, "PLAYING")
    wave.robot.kill()
    status, result = goal.result(15)
    assert status == GoalStatus.STATUS_ABORTED
    assert result.status == BehaviorState.ERROR and "robot connection lost" in result.message
    assert "robot connection" in [error.where for error in result.errors]


def test_a_run_that_finished_with_errors_is_aborted(stack_for, tmp_path) -> None:
    """The behavior reaches its end, but a robot call of a box failed on its way (caught by
    the box; the robot did not offer the service when the behavior loaded either): the goal
    is ABORTED, its result FINISHED with the errors; a behavior without them SUCCEEDS."""
    failing = script_behavior(tmp_path, "caught", """
def onInput_onStart(self):
    try:
        ALProxy("ALNoSuchService").hello()
    except RuntimeError:
        pass
    self.onStopped()
""")
    clean = script_behavior(tmp_path, "clean", """
def onInput_onStart(self):
    ALProxy("ALTextToSpeech").say("hello")
    self.onStopped()
""")
    stack = stack_for()
    status, result = stack.run(behavior=str(failing)).result(20)
    assert (status, result.status) == (GoalStatus.STATUS_ABORTED, BehaviorState.FINISHED)
    assert result.message.endswith("with 2 errors"), result.message
    assert [(e.box_path, e.where) for e in result.errors] == [
        ("root/Script", "robot service"), ("root/Script", "robot call")]
    assert result.errors[0].message == \
        "the robot does not offer ALNoSuchService (called by root/Script)"
    assert "Cannot find service 'ALNoSuchService'" in result.errors[1].message
    status, result = stack.run(behavior=str(clean)).result(20)
    assert (status, result.status) == (GoalStatus.STATUS_SUCCEEDED, BehaviorState.FINISHED)
    assert list(result.errors) == [] and "error" not in result.message


def test_each_error_is_in_one_feedback_and_all_are_in_the_result(stack_for, tmp_path) -> None:
    """Errors happening one after the other: each one is in the feedback once, in the
    first feedback after it happened, never again; the result has them all."""
    behavior = script_behavior(tmp_path, "errors", """
def onInput_onStart(self):
    for attempt in range(4):
        try:
            ALProxy("ALNoSuchService%d" % attempt)
        except RuntimeError:
            pass
        time.sleep(0.6)
    self.onStopped()
""")
    stack = stack_for()
    goal = stack.run(behavior=str(behavior))
    status, result = goal.result(30)
    assert status == GoalStatus.STATUS_ABORTED
    assert len(result.errors) == 4
    told = [(e.message, e.stamp.sec, e.stamp.nanosec) for state in goal.feedback
            for e in state.errors]
    assert sorted(told) == sorted((e.message, e.stamp.sec, e.stamp.nanosec)
                                  for e in result.errors)
    counts = [state.error_count for state in goal.feedback]
    assert counts == sorted(counts) and counts[-1] == 4
    # with the error that made it grow, and only that one
    for before, state in zip(goal.feedback, goal.feedback[1:]):
        assert len(state.errors) == state.error_count - before.error_count
    assert len([state for state in goal.feedback if state.status == BehaviorState.PLAYING]) \
        > 4  # frames and boxes still go out at every change


def test_an_empty_goal_is_a_fresh_run(wave: Stack) -> None:
    """A goto while the behavior is stopped leaves it at the label; a goal naming no label
    or frame still plays it from its beginning."""
    moved = wave.probe.call(GoTo, "behavior/goto", GoTo.Request(label="Bow"))
    assert moved.success and moved.frame == LABELS["Bow"], moved.message
    goal = wave.run()
    first = goal.wait_feedback(lambda s: s.status == BehaviorState.PLAYING, 10, "PLAYING")
    assert first.frame < LABELS["Wave"], first.frame
    status, result = goal.result(60)
    assert status == GoalStatus.STATUS_SUCCEEDED, (result.message, list(result.errors))
    played = frames(goal.feedback)
    assert played[0] < LABELS["Wave"] and played[-1] >= LABELS["Bow"]


def test_a_failed_goto_answers_the_current_frame(wave: Stack) -> None:
    goal = wave.run(label="Wave")
    goal.wait_feedback(lambda s: s.frame >= LABELS["Wave"] + 3, 10, "a few frames played")
    before = max(state.frame for state in list(goal.feedback))
    answer = wave.probe.call(GoTo, "behavior/goto", GoTo.Request(label="NoSuchLabel"))
    answered = time.time()
    assert not answer.success and "NoSuchLabel" in answer.message
    # between the frames the behavior showed before the call and after the answer
    after = wave.probe.wait_until(lambda: next(
        (s for s in list(wave.states) if s.header.stamp.sec + s.header.stamp.nanosec * 1e-9
         > answered), None), 5, "a state after the answer")
    assert LABELS["Wave"] + 3 <= before <= answer.frame <= after.frame, (before, after.frame)
    goal.cancel()
    status, result = goal.result(5)
    answer = wave.probe.call(GoTo, "behavior/goto", GoTo.Request(label="NoSuchLabel"))
    assert not answer.success and answer.frame == result.frame  # stopped: where it ended


#: a box subscribing to ALMemory events in onLoad and onStart, unsubscribing in onUnload,
#: which its onStop calls too (as many library boxes do; a stop runs only the onUnload)
SUBSCRIBING = """
def onLoad(self):
    self.memory = ALProxy("ALMemory")
    self.memory.subscribeToEvent("Test/Loaded", self.getName(), "onEvent")
def onUnload(self):
    self.memory.unsubscribeToEvent("Test/Loaded", self.getName())
    self.memory.unsubscribeToEvent("Test/Started", self.getName())
    self.memory.unsubscribeToEvent("WordRecognized", self.getName())
def onEvent(self, key, value, message):
    pass
def onInput_onStart(self):
    self.memory.subscribeToEvent("Test/Started", self.getName(), "onEvent")
    self.memory.subscribeToEvent("WordRecognized", self.getName(), "onEvent")
def onInput_onStop(self):
    self.onUnload()
"""


def test_a_box_unsubscribing_in_onunload_at_a_cancel(stack_for, tmp_path) -> None:
    behavior = script_behavior(tmp_path, "subscriber", SUBSCRIBING)
    stack = stack_for()
    goal = stack.run(behavior=str(behavior))
    goal.wait_feedback(lambda s: "root/Script" in s.active_boxes, 10, "the box running")
    stack.probe.wait_until(lambda: stack.robot.calls("ALSpeechRecognition", "subscribe"), 10,
                           "the box's speech recognition started")
    goal.cancel()
    status, result = goal.result(5)
    assert status == GoalStatus.STATUS_CANCELED
    assert list(result.errors) == [], [(e.box_path, e.where, e.message) for e in result.errors]
    # what the box started on the robot was ended (once)
    assert len(stack.robot.calls("ALSpeechRecognition", "unsubscribe")) == 1


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
    stack.bridge.process.send_signal(signal.SIGSTOP)  # a bridge stalled on a busy machine
    time.sleep(0.45)
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
