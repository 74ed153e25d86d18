"""behavior_runner + naoqi_bridge + the simulated robot, as separate processes over real DDS.

The behavior is examples/wave_hello (labels Hello 1, Wave 30, Skip 70, Bow 90 at 25 fps;
a goto box at Skip jumps to Bow).  Motion reaches the robot through the bridge; the
robot records an ``angleInterpolationBezier`` call when it returns (the motion ended), so
the tests follow a moving segment through ``motion/keyframes`` and ``motion/status``.
"""
import time
from pathlib import Path
from typing import Any, Callable, List

import pytest

pytest.importorskip("naoqi_qicore.robot.sim.cli", reason="needs the simulated robot")
pytest.importorskip("naoqi_qicore.core.player", reason="needs the engine")
from std_srvs.srv import Trigger  # noqa: E402

from naoqi_qicore.msg import (ActivityFocus, BehaviorState, MotionKeyframes,  # noqa: E402
                              MotionStatus, RobotConnection)
from naoqi_qicore.ros.run_client import BehaviorRunClient  # noqa: E402
from naoqi_qicore.srv import (GoTo, ListBehaviors, LoadBehavior, Play,  # noqa: E402
                              SetLifeState, SwitchFocus)

pytestmark = pytest.mark.long_running(minutes=1.8)

FPS = 25.0
LABELS = {"Hello": 1, "Wave": 30, "Skip": 70, "Bow": 90}
ACTIVITY = "naoqi_qicore/wave_hello"


class Stack:
    """The three processes and what the test node sees of them."""

    def __init__(self, programs: Callable[..., Any], probe: Any, behavior: Path,
                 tmp_path: Path) -> None:
        self.probe = probe
        self.wait_until = probe.wait_until
        self.robot = programs("sim")
        self.bridge = programs("bridge", "-p", "robot_url:=" + self.robot.url,
                               "-p", "max_retry_delay:=0.2")
        self.runner = programs("runner", "-p", "robot_url:=" + self.robot.url,
                               "-p", "behavior:=" + str(behavior),
                               "-p", "cache_dir:=" + str(tmp_path / "cache"))
        self.states: List[BehaviorState] = probe.listen(BehaviorState, "behavior/state")
        self.focus: List[ActivityFocus] = probe.listen(ActivityFocus, "behavior/focus")
        self.connection: List[RobotConnection] = probe.listen(RobotConnection,
                                                              "robot/connection")
        self.segments: List[MotionKeyframes] = probe.listen(MotionKeyframes, "motion/keyframes",
                                                            latched=False)
        self.motion_status: List[MotionStatus] = probe.listen(MotionStatus, "motion/status",
                                                              latched=False)
        self.wait_state(lambda s: s.status == BehaviorState.LOADED, 60, "LOADED")
        self.wait_until(lambda: self.connection and self.connection[-1].state
                   == RobotConnection.CONNECTED, 30, "bridge connected")
        # motion/keyframes and motion/status are not latched: subscribed before any play
        for topic in ("/motion/keyframes", "/motion/status"):
            self.wait_until(lambda: probe.node.count_publishers(topic) > 0, 10,
                            "a publisher of " + topic)

    def state(self) -> BehaviorState:
        return self.states[-1]

    def wait_state(self, predicate, timeout: float = 10.0, what: str = "") -> BehaviorState:
        return self.wait_until(lambda: self.states and predicate(self.states[-1]) and self.states[-1],
                          timeout, "behavior state " + what)

    def motion_calls(self) -> List[dict]:
        """The robot's ``angleInterpolationBezier`` calls that have returned."""
        return self.robot.calls("ALMotion", "angleInterpolationBezier")

    def moving_segment(self, after: int = 0) -> MotionKeyframes:
        """The first segment numbered above ``after`` that the bridge started on the robot."""
        def started() -> List[MotionKeyframes]:
            ids = {m.segment_id for m in self.motion_status if m.status == MotionStatus.STARTED}
            return [s for s in self.segments if s.segment_id > after and s.segment_id in ids]
        return self.wait_until(started, 10, "a motion segment started on the robot")[0]

    def wait_motion_stopped(self, segment: MotionKeyframes) -> None:
        """Wait until the robot was asked to end the tasks using ``segment``'s joints and the
        bridge reported the segment STOPPED."""
        joints = sorted(joint.name for joint in segment.joints)
        self.wait_until(lambda: [call for call in self.robot.calls(
            "ALMotion", "killTasksUsingResources") if sorted(call["args"][0]) == joints], 5,
            "the motion stopped at the robot")
        self.wait_until(lambda: [m for m in self.motion_status if m.segment_id ==
                                 segment.segment_id and m.status == MotionStatus.STOPPED], 5,
                        "the segment reported STOPPED")

    def stopped_tasks(self, service: str) -> List[Any]:
        """Task ids the robot was asked to stop (``service.stop(id)``)."""
        return [call["args"][0] for call in self.robot.calls(service, "stop")]

    def trigger(self, name: str):
        return self.probe.call(Trigger, "behavior/" + name)

    def play(self, stack_current: bool = False):
        return self.probe.call(Play, "behavior/play", Play.Request(stack_current=stack_current))


@pytest.fixture
def stack(programs, probe, example_behavior, tmp_path) -> Stack:
    return Stack(programs, probe, example_behavior, tmp_path)


def test_play_sends_motion_to_the_robot_and_finishes(stack: Stack) -> None:
    answer = stack.play()
    assert answer.success, answer.message
    playing = stack.wait_state(lambda s: s.status == BehaviorState.PLAYING, 10, "PLAYING")
    assert playing.behavior == "wave_hello"
    assert playing.fps == FPS
    motion = stack.wait_until(stack.motion_calls, 10, "an angleInterpolationBezier call")
    names = motion[0]["args"][0]
    assert {"HeadYaw", "RShoulderPitch", "RElbowRoll"} <= set(names)
    stack.wait_state(lambda s: s.status == BehaviorState.FINISHED, 20, "FINISHED")
    # the Say boxes spoke through the runner's own session
    spoken = " ".join(str(call["args"]) for call in stack.robot.calls("ALTextToSpeech"))
    assert "Hello, I am NAO" in spoken and "Goodbye" in spoken
    # released when it finished (state and focus are separate topics: no order between them)
    stack.wait_until(lambda: stack.focus[-1].focused_activity != ACTIVITY, 5, "focus released")


def test_goto_label_jumps_and_motion_resumes_there(stack: Stack) -> None:
    assert stack.play().success
    stack.wait_state(lambda s: s.status == BehaviorState.PLAYING and s.frame >= 5, 10)
    before = stack.moving_segment()
    answer = stack.probe.call(GoTo, "behavior/goto", GoTo.Request(label="Bow"))
    assert answer.success, answer.message
    assert answer.frame == LABELS["Bow"]
    state = stack.wait_state(lambda s: s.frame >= LABELS["Bow"], 5, "frame >= Bow")
    assert state.status == BehaviorState.PLAYING
    after = stack.moving_segment(after=before.segment_id)
    # HeadYaw keys at 100 and 120: from frame 90 they come 10 and 30 frames later
    head_yaw = next(joint for joint in after.joints if joint.name == "HeadYaw")
    assert list(head_yaw.times) == pytest.approx([(100 - 90) / FPS, (120 - 90) / FPS],
                                                 abs=1e-6)


def test_goto_frame_while_paused_stays_paused(stack: Stack) -> None:
    assert stack.play().success
    stack.wait_state(lambda s: s.status == BehaviorState.PLAYING and s.frame >= 3, 10)
    first = stack.moving_segment()
    # the runner sends motion directly until it has heard the bridge is connected: once
    # a segment went through the bridge, start again from frame 1 to pause before Wave
    assert stack.probe.call(GoTo, "behavior/goto", GoTo.Request(frame=1)).success
    moving = stack.moving_segment(after=first.segment_id)
    paused = stack.trigger("pause")
    assert paused.success, paused.message
    frame = stack.wait_state(lambda s: s.status == BehaviorState.PAUSED, 5, "PAUSED").frame
    stack.wait_motion_stopped(moving)
    stack.probe.call(Trigger, "behavior/pause")  # pausing twice is refused, not fatal
    answer = stack.probe.call(GoTo, "behavior/goto", GoTo.Request(frame=LABELS["Wave"]))
    assert answer.success, answer.message
    assert answer.frame == LABELS["Wave"]
    state = stack.wait_state(lambda s: s.frame == LABELS["Wave"], 5, "at Wave")
    assert state.status == BehaviorState.PAUSED
    assert frame < LABELS["Wave"]
    resumed = stack.trigger("resume")
    assert resumed.success, resumed.message
    stack.wait_state(lambda s: s.status == BehaviorState.PLAYING
                     and s.frame > LABELS["Wave"], 5, "playing after Wave")
    again = stack.moving_segment(after=moving.segment_id)
    # resumed from Wave (30): RElbowRoll's next key is at 35
    elbow = next(joint for joint in again.joints if joint.name == "RElbowRoll")
    assert elbow.times[0] == pytest.approx((35 - LABELS["Wave"]) / FPS, abs=1e-6)


def test_stop_unloads_boxes_and_releases_focus(stack: Stack) -> None:
    assert stack.play().success
    stack.wait_state(lambda s: s.status == BehaviorState.PLAYING and s.active_boxes, 10)
    stack.wait_until(lambda: stack.focus and stack.focus[-1].focused_activity == ACTIVITY, 5, "focus")
    speech = stack.wait_until(lambda: [call for call in stack.robot.calls("ALTextToSpeech", "say")
                                       if "result" in call], 5, "Say Hello")  # its task id
    moving = stack.moving_segment()
    answer = stack.trigger("stop")
    assert answer.success, answer.message
    stopped = stack.wait_state(lambda s: s.status == BehaviorState.STOPPED, 5, "STOPPED")
    assert list(stopped.active_boxes) == []
    # Say Hello's onUnload stopped its speech; the timeline's motion was stopped
    stack.wait_until(lambda: speech[0]["result"] in stack.stopped_tasks("ALTextToSpeech"), 5,
                     "speech stopped")
    stack.wait_motion_stopped(moving)
    focus = stack.wait_until(lambda: stack.focus[-1].focused_activity != ACTIVITY and stack.focus[-1],
                       5, "focus released")
    assert focus.previous_activity == ACTIVITY
    assert not stack.trigger("stop").success  # nothing to stop any more


def test_stacking_gives_the_focus_back(stack: Stack) -> None:
    other = stack.probe.call(SwitchFocus, "life/switch_focus",
                             SwitchFocus.Request(activity_name="idle-app/behavior_1"))
    assert other.success, other.message
    assert stack.play(stack_current=True).success
    # the robot's focus signal may come before the answer to the runner's switchFocus, and
    # only that answer says the other activity was stacked: a message in between has the
    # runner focused and nothing stacked yet
    stack.wait_until(lambda: stack.focus[-1].focused_activity == ACTIVITY
                     and list(stack.focus[-1].focus_stack) == ["idle-app/behavior_1"],
                     5, "runner focused, idle-app stacked")
    assert stack.trigger("stop").success
    back = stack.wait_until(lambda: stack.focus[-1].focused_activity == "idle-app/behavior_1"
                      and stack.focus[-1], 5, "stacked activity back")
    assert back.start_reason == "unstacked"
    assert list(back.focus_stack) == []


def test_wrong_requests_are_refused_and_the_node_keeps_serving(stack: Stack) -> None:
    probe = stack.probe
    refused = [
        probe.call(GoTo, "behavior/goto", GoTo.Request(label="NoSuchLabel")),
        probe.call(GoTo, "behavior/goto", GoTo.Request(frame=100000)),
        probe.call(GoTo, "behavior/goto", GoTo.Request()),
        stack.trigger("resume"),
        stack.trigger("pause"),
        stack.trigger("stop"),
        probe.call(LoadBehavior, "behavior/load", LoadBehavior.Request(path="")),
        probe.call(SwitchFocus, "life/switch_focus", SwitchFocus.Request(activity_name="")),
        probe.call(SwitchFocus, "life/switch_focus", SwitchFocus.Request(activity_name="a/b",
                                                                         flags=7)),
    ]
    for answer in refused:
        assert answer.success is False
        assert answer.message
    assert stack.play().success
    assert not stack.play().success  # already playing
    assert stack.runner.alive() and stack.bridge.alive()


def test_play_refused_when_the_robot_refuses_the_focus(stack: Stack) -> None:
    disabled = stack.probe.call(SetLifeState, "life/set_state", SetLifeState.Request(state="disabled"))
    assert disabled.success, disabled.message
    refused = stack.play()
    assert refused.success is False and "switchFocus" in refused.message
    time.sleep(0.5)  # time enough for a behavior started by mistake to show it
    assert stack.state().status == BehaviorState.LOADED
    assert stack.robot.calls("ALTextToSpeech") == [] and stack.motion_calls() == []
    assert stack.probe.call(SetLifeState, "life/set_state",
                            SetLifeState.Request(state="solitary")).success
    assert stack.play().success
    stack.wait_state(lambda s: s.status == BehaviorState.PLAYING, 5, "PLAYING")


def test_broken_file_keeps_the_loaded_behavior(stack: Stack, tmp_path) -> None:
    broken = tmp_path / "broken.xar"
    broken.write_text('<?xml version="1.0" encoding="UTF-8" ?>\n<ChoregrapheProject '
                      'xar_version="3"><Box name="root" id="-1"><Timeline enable="1" fps=')
    answer = stack.probe.call(LoadBehavior, "behavior/load", LoadBehavior.Request(path=str(broken)))
    assert answer.success is False
    assert "broken.xar" in answer.message
    missing = stack.probe.call(LoadBehavior, "behavior/load",
                               LoadBehavior.Request(path=str(tmp_path / "missing.xar")))
    assert missing.success is False
    listed = stack.probe.call(ListBehaviors, "behavior/list")
    assert [b.name for b in listed.behaviors] == ["wave_hello"]
    info = listed.behaviors[0]
    assert dict(zip(info.labels, info.label_frames)) == LABELS
    assert info.fps == FPS and info.frame_count >= 120
    assert stack.runner.alive()
    assert stack.play().success


def test_load_replaces_the_behavior(stack: Stack, example_behavior: Path) -> None:
    assert stack.play().success
    stack.wait_state(lambda s: s.status == BehaviorState.PLAYING, 10)
    answer = stack.probe.call(LoadBehavior, "behavior/load", LoadBehavior.Request(
        path=str(example_behavior.parent)))  # the folder holding behavior.xar
    assert answer.success, answer.message
    assert dict(zip(answer.behavior.labels, answer.behavior.label_frames)) == LABELS
    stack.wait_state(lambda s: s.status == BehaviorState.LOADED, 10, "LOADED again")


def test_robot_lost_and_back(stack: Stack) -> None:
    assert stack.play().success
    stack.wait_state(lambda s: s.status == BehaviorState.PLAYING, 10)
    stack.robot.kill()
    lost = stack.wait_state(lambda s: s.status == BehaviorState.ERROR, 10, "ERROR")
    assert "lost" in lost.last_error
    stack.wait_until(lambda: stack.connection[-1].state == RobotConnection.DISCONNECTED, 10,
               "bridge disconnected")
    assert stack.connection[-1].message
    refused = stack.play()
    assert refused.success is False and "not connected" in refused.message
    stack.robot.start()  # same port
    stack.wait_until(lambda: stack.connection[-1].state == RobotConnection.CONNECTED, 20,
               "bridge reconnected")
    stack.wait_state(lambda s: s.status == BehaviorState.LOADED, 20, "LOADED after reconnection")
    before = len(stack.motion_calls())
    assert stack.play().success
    stack.wait_until(lambda: len(stack.motion_calls()) > before, 10, "motion after reconnection")


def test_nothing_loaded_then_load(programs, probe, example_behavior, tmp_path) -> None:
    """A runner started without a behavior (and without a bridge: motion goes direct)."""
    robot = programs("sim")
    runner = programs("runner", "-p", "robot_url:=" + robot.url,
                      "-p", "cache_dir:=" + str(tmp_path / "cache"))
    states = probe.listen(BehaviorState, "behavior/state")
    refused = probe.call(Play, "behavior/play", Play.Request())
    assert refused.success is False and "no behavior loaded" in refused.message
    assert probe.call(GoTo, "behavior/goto", GoTo.Request(label="Wave")).success is False
    assert probe.call(ListBehaviors, "behavior/list").behaviors == []
    broken = tmp_path / "broken.xar"
    broken.write_text("<ChoregrapheProject")
    assert probe.call(LoadBehavior, "behavior/load",
                      LoadBehavior.Request(path=str(broken))).success is False
    assert runner.alive()
    loaded = probe.call(LoadBehavior, "behavior/load",
                        LoadBehavior.Request(path=str(example_behavior)))
    assert loaded.success, loaded.message
    probe.wait_until(lambda: states and states[-1].status == BehaviorState.LOADED, 10, "LOADED")
    assert probe.call(Play, "behavior/play", Play.Request()).success
    probe.wait_until(lambda: robot.calls("ALMotion", "angleInterpolationBezier"), 10,
                     "motion sent directly")


def test_peers_load_only_from_the_behavior_roots(programs, probe, example_behavior,
                                                 tmp_path) -> None:
    """Box code runs with the runner's rights: behavior/load and behavior/run take paths
    only inside behavior_roots (by default the folder the runner was started in, here the
    checkout, the installed examples, the folder of the behavior parameter and the cache;
    a link out of a root is followed before the check)."""
    from naoqi_qicore.action import RunBehavior
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    start = allowed / "start.xar"
    start.write_bytes(example_behavior.read_bytes())
    outside = tmp_path / "outside.xar"
    outside.write_bytes(example_behavior.read_bytes())
    (allowed / "link.xar").symlink_to(outside)
    robot = programs("sim")
    runner = programs("runner", "-p", "robot_url:=" + robot.url, "-p", "behavior:=" + str(start),
                      "-p", "cache_dir:=" + str(tmp_path / "cache"),
                      "-p", "behavior_roots:=['']")  # the defaults
    states = probe.listen(BehaviorState, "behavior/state")
    probe.wait_until(lambda: states and states[-1].status == BehaviorState.LOADED, 20, "LOADED")
    for path in (outside, allowed / "link.xar"):
        refused = probe.call(LoadBehavior, "behavior/load", LoadBehavior.Request(path=str(path)))
        assert refused.success is False and "behavior_roots" in refused.message, path
    runs = probe.made(lambda: BehaviorRunClient(probe.node))
    handle = runs.send(RunBehavior.Goal(behavior=str(outside), frame=-1), timeout=20)
    if handle.accepted:  # accepted then ended: the result says why
        result = handle.get_result_async()
        probe.wait_until(lambda: result.done(), 20, "the result")
        assert result.result().result.status == BehaviorState.ERROR
        assert "behavior_roots" in result.result().result.message
    assert robot.calls("ALMotion", "angleInterpolationBezier") == []
    again = allowed / "again.xar"
    again.write_bytes(example_behavior.read_bytes())
    assert probe.call(LoadBehavior, "behavior/load",
                      LoadBehavior.Request(path=str(again))).success
    assert runner.alive()


def test_a_runner_started_alone_runs_goals_from_its_folder(programs, probe, example_behavior,
                                                           repo_root, tmp_path) -> None:
    """What the README does: start the nodes in the checkout with no behavior and no
    behavior_roots, then send a goal naming $PWD/examples/wave_hello/behavior.xar.  It
    runs; the parameter behavior_roots reads back the folders in effect, which the runner
    also logs; a behavior elsewhere is still refused."""
    from action_msgs.msg import GoalStatus
    from rcl_interfaces.srv import GetParameters

    from naoqi_qicore.action import RunBehavior
    robot = programs("sim")
    cache = tmp_path / "cache"
    runner = programs("runner", "-p", "robot_url:=" + robot.url, "-p", "cache_dir:=" + str(cache),
                      "-p", "behavior_roots:=['']")  # the defaults
    response = probe.call(GetParameters, "/behavior_runner/get_parameters",
                          GetParameters.Request(names=["behavior_roots", "cache_dir"]))
    roots, cache_dir = response.values
    assert str(repo_root) in roots.string_array_value
    assert str(cache.resolve()) in roots.string_array_value
    assert cache_dir.string_value == str(cache.resolve())
    assert "peers may load behaviors from %s" % repo_root in runner.output()
    probe.wait_until(lambda: "connected to" in runner.output(), 30, "the runner connected")
    runs = probe.made(lambda: BehaviorRunClient(probe.node))

    def run(behavior: Path) -> Any:
        result = runs.send(RunBehavior.Goal(behavior=str(behavior), frame=-1),
                           timeout=20).get_result_async()
        probe.wait_until(lambda: result.done(), 60, "the result")
        return result.result()

    done = run(repo_root / "examples" / "wave_hello" / "behavior.xar")
    assert done.status == GoalStatus.STATUS_SUCCEEDED, done.result.message
    assert done.result.status == BehaviorState.FINISHED
    elsewhere = tmp_path / "elsewhere.xar"
    elsewhere.write_bytes(example_behavior.read_bytes())
    refused = run(elsewhere)
    assert refused.status == GoalStatus.STATUS_ABORTED
    assert "outside the folders this node accepts" in refused.result.message


@pytest.mark.parametrize("level, shown", [("info", False), ("debug", True)])
def test_libqi_follows_the_log_level(programs, probe, level, shown) -> None:
    """A runner with its simulated robot in-process: libqi's line for each service the
    robot registers shows at debug only, and its SDK layout notice never."""
    runner = programs("runner", "--log-level", level)
    probe.wait_until(lambda: "connected to" in runner.output(), 30, "the runner connected")
    output = runner.output()
    assert ('Registered Service "ALMotion"' in output) is shown, output[-2000:]
    assert "qi.path.sdklayout" not in output
