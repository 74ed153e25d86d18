"""``behavior/run`` (RunBehavior action) of behavior_runner, with naoqi_bridge and the
simulated robot as separate processes over real DDS: runs to the end, how a goal ends
(SUCCEEDED only without error), cancel, errors of the run (each once in the feedback), a
stop that stops, preemption, fresh runs, the services during a goal, boxes unsubscribing in
onUnload.

The tests share one robot, bridge and runner, each test starting with no run going and
wave_hello loaded (test_ros_action_robot_changes.py has those that stop one of them or
need another robot)."""
import time
from typing import List

import pytest

pytest.importorskip("naoqi_qicore.robot.sim.cli", reason="needs the simulated robot")
psutil = pytest.importorskip("psutil")
from action_msgs.msg import GoalStatus  # noqa: E402
from rclpy.task import Future  # noqa: E402
from std_srvs.srv import Trigger  # noqa: E402

from naoqi_qicore.action import RunBehavior  # noqa: E402
from naoqi_qicore.msg import BehaviorState  # noqa: E402
from naoqi_qicore.ros.run_client import BehaviorRunClient  # noqa: E402
from naoqi_qicore.srv import GoTo, ListBehaviors  # noqa: E402

from action_stack import ACTIVITY, EXAMPLE, Stack  # noqa: E402
from script_behaviors import layered_behavior, script_behavior  # noqa: E402

pytestmark = pytest.mark.long_running(minutes=1.5)

#: wave_hello: labels, and its last frame
LABELS = {"Hello": 1, "Wave": 30, "Skip": 70, "Bow": 90}


@pytest.fixture(scope="module")
def shared_stack(module_programs, module_probe) -> Stack:
    """One stack for the tests that neither stop its programs nor need another robot: a
    stack starts three programs, seconds of CPU on a small machine."""
    return Stack(module_programs, module_probe, EXAMPLE, module_programs.folder)


@pytest.fixture
def stack(shared_stack: Stack) -> Stack:
    """The module's stack, idle with wave_hello loaded (goals naming a behavior load it)."""
    return shared_stack.ready(EXAMPLE)


def frames(states: List[BehaviorState]) -> List[int]:
    return [state.frame for state in states if state.status == BehaviorState.PLAYING]


def test_wave_hello_runs_to_its_end(stack: Stack) -> None:
    listed = stack.probe.call(ListBehaviors, "behavior/list").behaviors[0]
    goal = stack.run()  # the loaded behavior
    status, result = goal.result(60)
    assert status == GoalStatus.STATUS_SUCCEEDED
    assert result.status == BehaviorState.FINISHED, result.message
    assert result.frame == listed.frame_count  # its last frame
    assert "finished" in result.message and list(result.errors) == []
    assert 2.0 < result.duration < 20.0
    played = frames(goal.feedback)
    assert len(played) >= 3 and played == sorted(played) and played[-1] > played[0]
    assert stack.focused_activity() != ACTIVITY  # released when it finished


def test_cancel_stops_the_run_at_once_and_releases_the_focus(stack: Stack,
                                                             example_behavior) -> None:
    """A cancel's result comes within the time the engine gives box code to end at a stop
    (STOP_DEADLINE; wave_hello's boxes end at once: on an idle machine the result comes in
    tens of milliseconds, which bench/bench_ros.py measures; 0.59 s was seen with both
    cores busy)."""
    from naoqi_qicore.core.player import STOP_DEADLINE
    goal = stack.run(behavior=str(example_behavior), label="Wave")
    start = goal.wait_feedback(lambda s: s.status == BehaviorState.PLAYING, 10, "PLAYING")
    assert start.frame >= LABELS["Wave"]  # started at the label
    goal.wait_feedback(lambda s: s.frame >= LABELS["Wave"] + 5, 10, "a few frames played")
    assert stack.focused_activity() == ACTIVITY
    cancelled = time.monotonic()
    goal.cancel()
    status, result = goal.result(5)
    assert goal.result_time - cancelled < STOP_DEADLINE
    assert status == GoalStatus.STATUS_CANCELED
    assert result.status == BehaviorState.STOPPED and "cancelled" in result.message
    assert stack.focused_activity() != ACTIVITY
    state = stack.probe.wait_until(lambda: stack.states[-1].status == BehaviorState.STOPPED
                                  and stack.states[-1], 5, "STOPPED state")
    assert list(state.active_boxes) == []


def test_a_new_goal_preempts_the_running_one(stack: Stack) -> None:
    first = stack.run()
    first.wait_feedback(lambda s: s.status == BehaviorState.PLAYING and s.frame > 5, 10,
                        "the first goal playing")
    second = stack.run(label="Bow")
    status, result = first.result(5)
    assert status == GoalStatus.STATUS_ABORTED
    assert result.status == BehaviorState.STOPPED and "preempted" in result.message
    second.wait_feedback(lambda s: s.status == BehaviorState.PLAYING
                         and s.frame >= LABELS["Bow"], 10, "the second goal playing from Bow")
    assert stack.focused_activity() == ACTIVITY
    status, result = second.result(30)
    assert (status, result.status) == (GoalStatus.STATUS_SUCCEEDED, BehaviorState.FINISHED)


def test_services_act_on_the_goal(stack: Stack) -> None:
    goal = stack.run()
    goal.wait_feedback(lambda s: s.status == BehaviorState.PLAYING, 10, "PLAYING")
    moved = stack.probe.call(GoTo, "behavior/goto", GoTo.Request(label="Bow"))
    assert moved.success, moved.message
    goal.wait_feedback(lambda s: s.frame >= LABELS["Bow"], 5, "the goal at Bow")
    assert stack.probe.call(Trigger, "behavior/stop").success
    status, result = goal.result(5)
    assert status == GoalStatus.STATUS_ABORTED
    assert result.status == BehaviorState.STOPPED and "behavior/stop" in result.message
    assert result.frame >= LABELS["Bow"]


def test_goals_that_cannot_run_say_why(stack: Stack, tmp_path) -> None:
    for request, words in ((dict(behavior=str(tmp_path / "missing.xar")), "missing.xar"),
                           (dict(label="NoSuchLabel"), "NoSuchLabel"),
                           (dict(frame=-7), "frame")):
        status, result = stack.run(**request).result(20)
        assert status == GoalStatus.STATUS_ABORTED
        assert result.status == BehaviorState.ERROR and words in result.message
    status, result = stack.run(label="Bow").result(30)  # the runner goes on
    assert result.status == BehaviorState.FINISHED


def test_a_goal_whose_answer_is_lost_is_followed_by_the_run_client(stack: Stack) -> None:
    """The goal's answer never reaches BehaviorRunClient (as when DDS drops it for a client
    the runner has not matched yet): the goal is found in the action's status, its feedback
    and result arrive, and the caller is not told that nobody answered."""
    runs = stack.probe.made(lambda: BehaviorRunClient(stack.probe.node))
    send = runs._client.send_goal_async
    runs._client.send_goal_async = lambda *args, **kwargs: (send(*args, **kwargs), Future())[1]
    feedback: List[BehaviorState] = []
    goal = runs.run(RunBehavior.Goal(), feedback.append, timeout=20)
    result = goal.wait(60)
    assert result is not None and goal.succeeded(), result
    assert result.status == BehaviorState.FINISHED and feedback
    stack.probe.made(runs.destroy)


def test_a_failing_box_is_in_the_feedback_and_the_result(stack: Stack, tmp_path) -> None:
    behavior = script_behavior(tmp_path, "boom", """
def onInput_onStart(self):
    raise RuntimeError("BOOM from box")
""")
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


def test_a_failing_root_ends_the_run_with_error(stack: Stack, tmp_path) -> None:
    behavior = script_behavior(tmp_path, "root_boom", "", root_code="""
def onInput_onStart(self):
    raise RuntimeError("BOOM from root")
""")
    status, result = stack.run(behavior=str(behavior)).result(10)
    assert status == GoalStatus.STATUS_ABORTED
    assert result.status == BehaviorState.ERROR and "BOOM from root" in result.message
    assert [(e.box_path, e.where) for e in result.errors] == [("root", "onStart")]
    assert stack.focused_activity() != "naoqi_qicore/root_boom"


def test_cancel_ends_a_busy_box(stack: Stack, tmp_path) -> None:
    behavior = script_behavior(tmp_path, "busy", """
def onInput_onStart(self):
    x = 0
    while True:
        x += 1
""")
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


def test_a_looping_box_makes_no_robot_call_after_cancel(stack: Stack, tmp_path) -> None:
    behavior = script_behavior(tmp_path, "chatty", """
def onInput_onStart(self):
    leds = ALProxy("ALLeds")
    while True:
        leds.fadeRGB("FaceLeds", 0x0000FF, 0.0)
        time.sleep(0.02)
""")
    goal = stack.run(behavior=str(behavior))
    stack.probe.wait_until(lambda: len(stack.calls("ALLeds", "fadeRGB")) > 5, 10,
                           "the box calling the robot")
    cancelled = time.time()
    goal.cancel()
    status, result = goal.result(5)
    assert result.status == BehaviorState.STOPPED
    time.sleep(1.5)
    late = [call for call in stack.calls("ALLeds", "fadeRGB")
            if call["time"] > cancelled + 1.0]
    assert late == []


def test_a_box_failing_midway_leaves_the_other_layers_playing_to_the_end(stack: Stack,
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
    goal = stack.run(behavior=str(behavior))
    state = goal.wait_feedback(lambda s: s.errors, 10, "the sound box's error")
    assert state.status == BehaviorState.PLAYING and state.frame < 50
    status, result = goal.result(30)
    assert (status, result.status) == (GoalStatus.STATUS_ABORTED, BehaviorState.FINISHED)
    assert result.frame == 100 and result.message.endswith("with 1 error"), result.message
    assert [(e.box_path, e.where) for e in result.errors] == [("root/Play Sound File",
                                                               "onStart")]
    assert len(stack.calls("ALLeds", "fadeRGB")) == 2


def test_a_run_that_finished_with_errors_is_aborted(stack: Stack, tmp_path) -> None:
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


def test_each_error_is_in_one_feedback_and_all_are_in_the_result(stack: Stack,
                                                                  tmp_path) -> None:
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


def test_an_empty_goal_is_a_fresh_run(stack: Stack) -> None:
    """A goto while the behavior is stopped leaves it at the label; a goal naming no label
    or frame still plays it from its beginning."""
    moved = stack.probe.call(GoTo, "behavior/goto", GoTo.Request(label="Bow"))
    assert moved.success and moved.frame == LABELS["Bow"], moved.message
    goal = stack.run()
    first = goal.wait_feedback(lambda s: s.status == BehaviorState.PLAYING, 10, "PLAYING")
    assert first.frame < LABELS["Wave"], first.frame
    status, result = goal.result(60)
    assert status == GoalStatus.STATUS_SUCCEEDED, (result.message, list(result.errors))
    played = frames(goal.feedback)
    assert played[0] < LABELS["Wave"] and played[-1] >= LABELS["Bow"]


def test_a_failed_goto_answers_the_current_frame(stack: Stack) -> None:
    goal = stack.run(label="Wave")
    goal.wait_feedback(lambda s: s.frame >= LABELS["Wave"] + 3, 10, "a few frames played")
    before = max(state.frame for state in list(goal.feedback))
    answer = stack.probe.call(GoTo, "behavior/goto", GoTo.Request(label="NoSuchLabel"))
    answered = time.time()
    assert not answer.success and "NoSuchLabel" in answer.message
    # between the frames the behavior showed before the call and after the answer
    after = stack.probe.wait_until(lambda: next(
        (s for s in list(stack.states) if s.header.stamp.sec + s.header.stamp.nanosec * 1e-9
         > answered), None), 5, "a state after the answer")
    assert LABELS["Wave"] + 3 <= before <= answer.frame <= after.frame, (before, after.frame)
    goal.cancel()
    status, result = goal.result(5)
    answer = stack.probe.call(GoTo, "behavior/goto", GoTo.Request(label="NoSuchLabel"))
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


def test_a_box_unsubscribing_in_onunload_at_a_cancel(stack: Stack, tmp_path) -> None:
    behavior = script_behavior(tmp_path, "subscriber", SUBSCRIBING)
    goal = stack.run(behavior=str(behavior))
    goal.wait_feedback(lambda s: "root/Script" in s.active_boxes, 10, "the box running")
    stack.probe.wait_until(lambda: stack.calls("ALSpeechRecognition", "subscribe"), 10,
                           "the box's speech recognition started")
    goal.cancel()
    status, result = goal.result(5)
    assert status == GoalStatus.STATUS_CANCELED
    assert list(result.errors) == [], [(e.box_path, e.where, e.message) for e in result.errors]
    # what the box started on the robot was ended (once)
    assert len(stack.calls("ALSpeechRecognition", "unsubscribe")) == 1


