"""Pure pieces of the ROS layer: robot addresses, motion messages, focus tracking, the
run action's cancel."""
import threading
from pathlib import Path
from typing import List

import pytest

rclpy = pytest.importorskip("rclpy")
from rclpy.action import CancelResponse  # noqa: E402

from naoqi_qicore.robot.session import RobotAddress, connection_hints  # noqa: E402
from naoqi_qicore.ros.path_roots import default_behavior_roots, split_roots  # noqa: E402
from naoqi_qicore.ros.focus import FocusTracker, focus_details  # noqa: E402
from naoqi_qicore.ros.motion_messages import bezier_arguments, keyframes_message  # noqa: E402
from naoqi_qicore.msg import BehaviorState  # noqa: E402
from naoqi_qicore.ros.run_action import RunActionServer  # noqa: E402


@pytest.mark.parametrize("parameters, url, user", [
    (dict(robot_url="tcp://10.0.0.2:9559"), "tcp://10.0.0.2:9559", ""),
    (dict(robot_url="10.0.0.2"), "tcp://10.0.0.2:9559", ""),
    (dict(robot_url="tcps://10.0.0.2", password="pw"), "tcps://10.0.0.2:9503", ""),
    (dict(nao_ip="10.0.0.2"), "tcp://10.0.0.2:9559", ""),
    (dict(nao_ip="10.0.0.2", nao_port=9600), "tcp://10.0.0.2:9600", ""),
    (dict(nao_ip="10.0.0.2", password="pw"), "tcps://10.0.0.2:9503", "nao"),
    (dict(nao_ip="10.0.0.2", user="me", password="pw", nao_port=9000), "tcps://10.0.0.2:9000", "me"),
    (dict(robot_url="tcp://127.0.0.1:5000", nao_ip="10.0.0.2"), "tcp://127.0.0.1:5000", ""),
])
def test_robot_address_from_parameters(parameters, url, user) -> None:
    address = RobotAddress.from_parameters(**parameters)
    assert (address.url, address.user) == (url, user)
    assert "pw" not in repr(address)


@pytest.mark.parametrize("parameters, error", [
    (dict(), "set robot_url or nao_ip"),
    (dict(robot_url="http://x"), "not a tcp"),
    (dict(robot_url="tcp://x:99999"), "invalid port"),
    (dict(nao_ip="x", nao_port=0), "not a TCP port"),
])
def test_robot_address_errors(parameters, error) -> None:
    with pytest.raises(ValueError, match=error):
        RobotAddress.from_parameters(**parameters)


def test_keyframes_round_trip_to_bezier_arguments() -> None:
    names = ["HeadYaw", "RHand"]
    times = [[0.4, 1.2], [0.8]]
    keys = [[[0.1, [3, -0.1, 0.0], [3, 0.2, 0.05]], [-0.3, [2, -0.3, 0.0], [2, 0.3, 0.0]]],
            [[0.9, [1, -0.25, 0.0], [1, 0.25, 0.0]]]]
    message = keyframes_message(7, names, times, keys)
    assert message.segment_id == 7
    assert bezier_arguments(message) == (names, times, keys)


def test_keyframes_shape_errors() -> None:
    with pytest.raises(ValueError, match="2 names, 1 time lists"):
        keyframes_message(1, ["A", "B"], [[0.1]], [[[0.0, [1, 0, 0], [1, 0, 0]]]])
    message = keyframes_message(1, ["A"], [[0.1, 0.2]], [[[0.0, [1, 0, 0], [1, 0, 0]]] * 2])
    message.joints[0].right_types = [1]
    with pytest.raises(ValueError, match="joint 'A'"):
        bezier_arguments(message)


def test_focus_stack_follows_switches_and_unstacking() -> None:
    focus = FocusTracker()
    focus.observed("pkg/idle")
    focus.switched("pkg/dance", 1, "pkg/idle")
    assert (focus.focused, focus.previous, focus.stack) == ("pkg/dance", "pkg/idle", ["pkg/idle"])
    assert focus.stop_reason == "switchfocus-api-interrupt"
    focus.transition({"FocusedActivityName": "pkg/idle", "FocusedActivityStartReason": "unstacked",
                      "PreviousActivityName": "pkg/dance",
                      "PreviousActivityStopReason": "unknown-api-caller"})
    assert (focus.focused, focus.previous, focus.stack) == ("pkg/idle", "pkg/dance", [])
    assert focus.start_reason == "unstacked"


def test_focus_ignores_transitions_delivered_out_of_order() -> None:
    def transition(time_ns, focused, reason, previous):
        return {"TransitionTime": time_ns, "FocusedActivityName": focused,
                "FocusedActivityStartReason": reason, "PreviousActivityName": previous,
                "PreviousActivityStopReason": "switchfocus-api-interrupt"}
    focus = FocusTracker()
    focus.transition(transition(100, "pkg/idle", "unknown-api-caller", ""))
    focus.switched("pkg/dance", 1, "pkg/idle")
    focus.transition(transition(300, "pkg/dance", "unknown-api-caller", "pkg/idle"))
    # an older transition reaching us late changes nothing, and never pops the stack
    focus.transition(transition(200, "pkg/idle", "unknown-api-caller", "pkg/x"))
    assert (focus.focused, focus.previous, focus.stack) == ("pkg/dance", "pkg/idle", ["pkg/idle"])


def test_only_an_unstacked_start_pops_the_stack() -> None:
    focus = FocusTracker()
    focus.observed("pkg/idle")
    focus.switched("pkg/dance", 1, "pkg/idle")
    focus.transition({"FocusedActivityName": "pkg/idle", "FocusedActivityStartReason": "user",
                      "PreviousActivityName": "pkg/dance"})
    assert (focus.focused, focus.stack) == ("pkg/idle", ["pkg/idle"])


def test_focus_without_stacking_and_idle_states() -> None:
    focus = FocusTracker()
    focus.observed("pkg/a")
    focus.switched("pkg/b", 0, "pkg/a")
    assert focus.stack == []
    focus.switched("pkg/c", 1, "pkg/b")
    assert focus.stack == ["pkg/b"]
    focus.observed("pkg/b")  # the robot gave the focus back without a transition signal
    assert (focus.focused, focus.start_reason, focus.stack) == ("pkg/b", "unstacked", [])
    focus.switched("pkg/d", 1, "pkg/b")
    focus.state_changed("disabled")
    assert (focus.focused, focus.stack, focus.stop_reason) == ("", [], "disabled-state")


def test_focus_same_result_whichever_comes_first() -> None:
    from builtin_interfaces.msg import Time
    robot_first, call_first = FocusTracker(), FocusTracker()
    for focus in (robot_first, call_first):
        focus.observed("pkg/idle")
    robot_first.observed("pkg/dance")  # the robot's event arrives before the call returns
    robot_first.switched("pkg/dance", 1, "pkg/idle")
    call_first.switched("pkg/dance", 1, "pkg/idle")
    call_first.observed("pkg/dance")
    for focus in (robot_first, call_first):
        message = focus.message(Time(sec=5))
        assert (message.focused_activity, message.previous_activity) == ("pkg/dance", "pkg/idle")
        assert (message.start_reason, message.stop_reason) == ("unknown-api-caller",
                                                               "switchfocus-api-interrupt")
        assert list(message.focus_stack) == ["pkg/idle"] and message.stamp.sec == 5
    robot_first.observed("pkg/idle")  # stopFocus: the robot unstacks before the call returns
    robot_first.focus_stopped("pkg/dance", "pkg/idle")
    call_first.focus_stopped("pkg/dance", "pkg/idle")
    for focus in (robot_first, call_first):
        assert (focus.focused, focus.previous, focus.start_reason, focus.stop_reason,
                focus.stack) == ("pkg/idle", "pkg/dance", "unstacked", "unknown-api-caller", [])


def _transition(focused, start_reason, previous, stop_reason):
    return {"FocusedActivityName": focused, "FocusedActivityStartReason": start_reason,
            "PreviousActivityName": previous, "PreviousActivityStopReason": stop_reason}


def test_focus_names_the_node_whose_call_changed_it_whichever_comes_first() -> None:
    """The robot says "unknown-api-caller" for any client's switchFocus: the node names itself
    and its call, from the first message on (the robot's report may come before the answer)."""
    from builtin_interfaces.msg import Time
    focus = FocusTracker("/behavior_runner")
    focus.observed("pkg/idle")
    assert focus.changed_message(Time()).changed_by == ""  # the robot's own doing
    focus.switching("pkg/dance", 1, "pkg/idle")
    focus.transition(_transition("pkg/dance", "unknown-api-caller", "pkg/idle",
                                 "switchfocus-api-interrupt"))
    taken = focus.changed_message(Time())
    assert (taken.focused_activity, taken.changed_by, taken.change_call,
            list(taken.focus_stack)) == ("pkg/dance", "/behavior_runner", "switchFocus",
                                         ["pkg/idle"])
    assert taken.start_reason == "unknown-api-caller"  # what the robot reports, kept
    focus.switched("pkg/dance", 1, "pkg/idle")  # its answer: nothing new to publish
    assert focus.changed_message(Time()) is None
    focus.stopping("pkg/dance")
    focus.observed("pkg/idle")  # the robot gives the stacked activity the focus back
    back = focus.changed_message(Time())
    assert (back.focused_activity, back.start_reason, back.changed_by, back.change_call,
            list(back.focus_stack)) == ("pkg/idle", "unstacked", "/behavior_runner",
                                        "stopFocus", [])
    focus.focus_stopped("pkg/dance", "pkg/idle")
    assert focus.changed_message(Time()) is None
    # another client's switch, and the robot's report of it after the answer
    focus.transition(_transition("app/other", "unknown-api-caller", "pkg/idle",
                                 "switchfocus-api-interrupt"))
    other = focus.changed_message(Time())
    assert (other.focused_activity, other.changed_by, other.change_call) == ("app/other", "", "")


def test_focus_report_after_the_answer_keeps_the_caller() -> None:
    from builtin_interfaces.msg import Time
    focus = FocusTracker("/naoqi_bridge")
    focus.switching("pkg/dance", 0, "")
    focus.switched("pkg/dance", 0, "")
    first = focus.changed_message(Time())
    focus.transition(_transition("pkg/dance", "unknown-api-caller", "", ""))  # none stopped
    assert focus.changed_message(Time()) is None and first.changed_by == "/naoqi_bridge"
    focus.stopped_all()
    stopped = focus.changed_message(Time())
    assert (stopped.focused_activity, stopped.previous_activity, stopped.change_call) == (
        "", "pkg/dance", "stopAll")


def test_a_failed_switch_claims_no_later_change() -> None:
    from builtin_interfaces.msg import Time
    focus = FocusTracker("/behavior_runner")
    focus.switching("pkg/dance", 0, "")
    focus.call_failed()
    focus.observed("pkg/dance")  # someone else gave it the focus
    assert focus.changed_message(Time()).changed_by == ""


def test_focus_details_name_the_caller_instead_of_the_robots_reason() -> None:
    from naoqi_qicore.msg import ActivityFocus
    taken = ActivityFocus(focused_activity="pkg/dance", previous_activity="pkg/idle",
                          start_reason="unknown-api-caller",
                          stop_reason="switchfocus-api-interrupt",
                          changed_by="/behavior_runner", change_call="switchFocus",
                          focus_stack=["pkg/idle"])
    assert focus_details(taken) == ["previous pkg/idle",
                                    "started by /behavior_runner (switchFocus)",
                                    "previous stopped: switchfocus-api-interrupt",
                                    "stack pkg/idle"]
    released = ActivityFocus(focused_activity="pkg/idle", previous_activity="pkg/dance",
                             start_reason="unstacked", stop_reason="unknown-api-caller",
                             changed_by="/behavior_runner", change_call="stopFocus")
    assert focus_details(released) == ["previous pkg/dance", "started: unstacked",
                                       "previous stopped by /behavior_runner (stopFocus)"]
    by_robot = ActivityFocus(focused_activity="pkg/dance", start_reason="unknown-api-caller")
    assert focus_details(by_robot) == ["started: unknown-api-caller"]
    assert focus_details(ActivityFocus()) == []


def _write_record(tmp_path, calls):
    """A record file as the simulator writes it: a line when each call starts (in the order
    of ``calls``), a line when it ends (its result or error)."""
    import json

    ends = ("result", "error")
    lines = [dict({key: value for key, value in call.items() if key not in ends}, index=index)
             for index, call in enumerate(calls)]
    lines += [dict({key: value for key, value in call.items() if key in ends}, index=index,
                   end=call["time"] + 0.1, duration=0.1) for index, call in enumerate(calls)]
    record = tmp_path / "calls.jsonl"
    record.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return record


def test_demo_replays_the_robot_calls_it_plots(tmp_path) -> None:
    from naoqi_qicore.robot.sim.bezier import BezierCurve
    from naoqi_qicore.ros.demo import PLOT_STEP, executed_trajectories

    key = [0.5, [3, -0.3, 0.0], [3, 0.3, 0.0]]
    back = [-0.2, [3, -0.1, 0.0], [3, 0.1, 0.0]]
    record = _write_record(tmp_path, [  # not in the order they started
        dict(time=100.2, service="ALTextToSpeech", method="say", args=["hi"], result=None),
        dict(time=100.5, service="ALMotion", method="killTasksUsingResources",
             args=[["HeadYaw"]], result=None),
        dict(time=100.0, service="ALMotion", method="angleInterpolationBezier",
             args=[["HeadYaw", "HeadPitch"], [[1.0], [1.0]], [[key], [key]]], post=False,
             result=None),
        dict(time=100.9, service="ALMotion", method="angleInterpolationBezier",
             args=[["HeadYaw"], [[0.0]], [[back]]], post=False, error="times must be > 0"),
        dict(time=101.0, service="ALMotion", method="angleInterpolationBezier",
             args=[["HeadYaw"], [[0.5]], [[back]]], post=False, result=None),
    ])
    origin, samples = executed_trajectories(record)
    assert origin == 100.0 and sorted(samples) == ["HeadPitch", "HeadYaw"]
    head_yaw = dict((round(t / PLOT_STEP), angle) for t, angle in samples["HeadYaw"])
    first = BezierCurve([1.0], [key], 0.0)  # from StandInit, where HeadYaw is 0
    assert head_yaw[0] == 0.0
    assert head_yaw[15] == pytest.approx(first.angle_at(0.3))
    held = first.angle_at(0.5)  # killed half-way: held there until the next call
    assert 0.0 < held < 0.5
    # HeadPitch belonged to the killed call too: held as well
    assert head_yaw[35] == head_yaw[49] == samples["HeadPitch"][-1][1] == pytest.approx(held)
    assert head_yaw[62] == pytest.approx(BezierCurve([0.5], [back], held).angle_at(0.24))
    assert samples["HeadYaw"][-1] == (pytest.approx(1.5, abs=PLOT_STEP), pytest.approx(-0.2))


def test_demo_replay_a_later_call_ends_the_earlier_one(tmp_path) -> None:
    from naoqi_qicore.robot.sim.bezier import BezierCurve
    from naoqi_qicore.ros.demo import PLOT_STEP, executed_trajectories

    key = [0.5, [3, -0.3, 0.0], [3, 0.3, 0.0]]
    back = [-0.2, [3, -0.1, 0.0], [3, 0.1, 0.0]]
    record = _write_record(tmp_path, [
        dict(time=100.4, service="ALMotion", method="angleInterpolationBezier",
             args=[["HeadYaw"], [[0.5]], [[back]]], post=False, result=None),
        dict(time=100.0, service="ALMotion", method="angleInterpolationBezier",
             args=[["HeadYaw", "HeadPitch"], [[1.0], [1.0]], [[key], [key]]], post=False,
             result=None),
    ])
    _, samples = executed_trajectories(record)
    first = BezierCurve([1.0], [key], 0.0)
    taken_over = first.angle_at(0.4)
    head_yaw = dict((round(t / PLOT_STEP), angle) for t, angle in samples["HeadYaw"])
    head_pitch = dict((round(t / PLOT_STEP), angle) for t, angle in samples["HeadPitch"])
    assert head_yaw[30] == pytest.approx(BezierCurve([0.5], [back], taken_over).angle_at(0.2))
    # the later call ended the earlier one: HeadPitch stays where it was at 0.4 s
    assert head_pitch[20] == pytest.approx(taken_over)
    assert head_pitch[45] == head_pitch[30] == pytest.approx(taken_over)
    assert samples["HeadYaw"][-1] == (pytest.approx(0.9, abs=PLOT_STEP), pytest.approx(-0.2))


def test_default_behavior_roots(tmp_path, monkeypatch) -> None:
    """The working folder, the behavior's folder and the cache; never / nor a folder other
    users may write into."""
    monkeypatch.delenv("AMENT_PREFIX_PATH", raising=False)  # no installed examples here
    here = tmp_path / "here"
    (here / "b").mkdir(parents=True)
    cache = tmp_path / "cache"
    roots, note = default_behavior_roots(str(here / "b" / "x.xar"), cache, here)
    assert roots == [here, here / "b", cache] and note == ""
    roots, note = default_behavior_roots("", cache, here)
    assert roots == [here, cache]
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    roots, note = default_behavior_roots("", cache, shared)
    assert roots == [cache] and "other users may write into it" in note
    roots, note = default_behavior_roots("", cache, Path("/"))
    assert roots == [cache] and "the file system's root" in note


def test_split_roots(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert split_roots("a::/b: ") == [str(tmp_path / "a"), "/b"]
    assert split_roots("") == []


def test_connection_hints_say_why_tcps() -> None:
    with_password = RobotAddress.from_parameters(nao_ip="10.0.0.5", password="s3cret")
    hints = connection_hints(with_password)
    assert "tcps (TLS, NAOqi 2.9) is used because a password was given" in hints
    assert "port 9503 of 10.0.0.5" in hints and "user name (nao) and password" in hints
    assert "s3cret" not in hints
    plain = connection_hints(RobotAddress.from_parameters(nao_ip="10.0.0.5"))
    assert "TLS" not in plain and "password" not in plain and "port 9559 of 10.0.0.5" in plain


class _StoppedRun:
    """A run that ends STOPPED as soon as it is stopped."""

    def __init__(self) -> None:
        self.ended = threading.Event()
        self.status, self.frame, self.duration = BehaviorState.PLAYING, 0, 0.0
        self.message, self.error_count, self.succeeded, self.player = "", 0, False, None
        self.warning_count = 0
        self.stopped_status = BehaviorState.STOPPED

    def stop(self, reason: str) -> None:
        self.status, self.message = self.stopped_status, "stopped: " + reason
        self.ended.set()

    def wait(self) -> None:
        self.ended.wait(10)

    def errors(self) -> list:
        return []

    def warnings(self) -> list:
        return []


class _Goal:
    """A goal handle whose cancel rclpy marks only ``late`` seconds after it was accepted."""

    def __init__(self, late: float) -> None:
        self.goal_id = type("GoalId", (), {"uuid": bytes(range(16))})()
        self.late = late
        self._marked = threading.Event()
        self.ended = ""

    def accept_cancel(self) -> None:
        threading.Timer(self.late, self._marked.set).start()

    @property
    def is_cancel_requested(self) -> bool:
        return self._marked.is_set()

    def canceled(self) -> None:
        assert self._marked.is_set(), "CANCELED before rclpy marked the goal canceling"
        self.ended = "CANCELED"

    def abort(self) -> None:
        self.ended = "ABORTED"

    def succeed(self) -> None:
        self.ended = "SUCCEEDED"


def test_a_cancelled_goal_ends_canceled_when_its_run_stops_before_rclpy_marks_it() -> None:
    """rclpy marks a goal canceling only after the cancel callback returned; the run that
    callback stops can end first, and the goal must still end CANCELED, not ABORTED."""

    run = _StoppedRun()
    started = threading.Event()

    class Runs:
        def start_run(self, goal):
            started.set()
            return run

        def stop_run(self, stopped, reason):
            stopped.stop(reason)

    context = rclpy.Context()
    rclpy.init(context=context)
    node = rclpy.create_node("unit_runner", context=context)
    server = RunActionServer(node, Runs())
    try:
        goal = _Goal(late=0.3)
        executing = threading.Thread(target=lambda: setattr(goal, "result",
                                                            server._execute(goal)))
        executing.start()
        assert started.wait(5)
        assert server._cancel(goal) == CancelResponse.ACCEPT
        goal.accept_cancel()  # what rclpy does once the callback has returned
        executing.join(10)
        assert goal.ended == "CANCELED" and goal.result.message == "stopped: the goal was cancelled"
        # a goal nobody cancelled does not wait: a stopped run is ABORTED at once
        run.ended.clear()
        other = _Goal(late=0.0)
        stopper = threading.Timer(0.1, run.stop, ("behavior/stop was called",))
        stopper.start()
        server._execute(other)
        assert other.ended == "ABORTED"
    finally:
        server.close()
        node.destroy_node()
        rclpy.shutdown(context=context)


def test_a_stop_of_the_runners_own_motion_spares_the_joints_the_bridge_moves_since(
        ) -> None:
    """A bridge coming up mid-run: a segment the runner moved itself, stopped after a newer
    one went to the bridge on the same joints (a goto), is stopped sparing those joints (a
    kill of them would end the bridge's segment); with nothing at the bridge, as before."""
    from naoqi_qicore.core.motion import MotionSegment
    from naoqi_qicore.ros.motion_sink import BridgeMotionSink

    class Direct:
        def __init__(self) -> None:
            self.sent, self.stops = [], []

        def send(self, segment) -> None:
            self.sent.append(segment.segment_id)

        def stop(self, segment_id: int, spare=()) -> None:
            self.stops.append((segment_id, set(spare)))

    class Bridge(BridgeMotionSink):
        ready = False
        bridge_ready = property(lambda self: self.ready)

    def segment(segment_id: int, names) -> MotionSegment:
        key = [0.1, [3, -0.1, 0.0], [3, 0.1, 0.0]]
        return MotionSegment(segment_id, list(names), [[0.4]] * len(names),
                             [[key]] * len(names))

    context = rclpy.Context()
    rclpy.init(context=context)
    node = rclpy.create_node("unit_motion", context=context)
    try:
        direct = Direct()
        sink = Bridge(node, direct)
        sink.send(segment(1, ["HeadYaw", "RShoulderPitch"]))  # no bridge yet
        sink.send(segment(2, ["LShoulderPitch"]))
        Bridge.ready = True  # the bridge comes up
        sink.send(segment(3, ["HeadYaw"]))
        assert direct.sent == [1, 2] and list(sink._at_bridge) == [3]
        sink.stop(1)  # the goto's stop of the segment it replaced
        assert direct.stops == [(1, {"HeadYaw"})]
        sink.stop(3)
        sink.stop(2)
        assert direct.stops[-1] == (2, set())  # nothing at the bridge any more
    finally:
        Bridge.ready = False
        node.destroy_node()
        rclpy.shutdown(context=context)


def test_the_demo_waits_for_the_focus_its_run_took_to_be_released(capsys) -> None:
    """The demo's last focus line comes when the runner releases the focus, which a loaded
    machine may deliver late: the demo waits for that release (it slept a fixed 0.5 s), and
    only an activity seen focused while it watched counts."""
    import time

    from naoqi_qicore.msg import ActivityFocus
    from naoqi_qicore.ros.demo import Watcher

    class Node:
        def __init__(self) -> None:
            self.callbacks = {}

        def create_subscription(self, kind, topic, callback, qos) -> None:
            self.callbacks[topic] = callback

    node = Node()
    watcher = Watcher(node, time.monotonic())
    focus = node.callbacks["behavior/focus"]
    focus(ActivityFocus(focused_activity="", previous_activity="an/earlier_run"))
    assert not watcher.focus_released.is_set()
    focus(ActivityFocus(focused_activity="naoqi_qicore/wave", changed_by="/behavior_runner",
                        change_call="switchFocus"))
    assert not watcher.focus_released.is_set()
    threading.Timer(0.3, focus, [ActivityFocus(
        focused_activity="", previous_activity="naoqi_qicore/wave",
        changed_by="/behavior_runner", change_call="stopFocus")]).start()
    assert watcher.focus_released.wait(5)
    assert "previous stopped by /behavior_runner (stopFocus)" in capsys.readouterr().out


#: a node program whose timer callback takes 1 s, saying when it starts and ends
_SLOW_CALLBACK_PROGRAM = """
import sys, time
from rclpy.node import Node
from naoqi_qicore.ros.node_parameters import NodeProgram
from naoqi_qicore.ros.spin import run_node

class Slow(Node):
    def __init__(self):
        super().__init__("slow_callback")
        self.create_timer(0.05, self.tick)

    def tick(self):
        print("callback started", flush=True)
        time.sleep(1.0)
        print("callback ended", flush=True)

sys.exit(run_node(Slow, NodeProgram("slow", "slow_callback", "A slow callback."), sys.argv))
"""


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_a_signal_ends_a_node_program_between_callbacks_never_inside_one(signal_name,
                                                                         tmp_path) -> None:
    """Ctrl-C or SIGTERM while a callback runs: the callback ends (a bag's chunk being
    written is finished, not cut off by an exception), then the program ends with 0."""
    import signal
    import subprocess
    import sys
    program = tmp_path / "slow.py"
    program.write_text(_SLOW_CALLBACK_PROGRAM)
    process = subprocess.Popen([sys.executable, str(program)], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    try:
        assert process.stdout.readline().strip() == "callback started"
        process.send_signal(getattr(signal, signal_name))
        output, _ = process.communicate(timeout=20)
    finally:
        process.kill()
    assert "callback ended" in output and "Traceback" not in output, output
    assert process.returncode == 0, output


class _LateSignalsManager:
    """ALBehaviorManager whose behavior fails at once, while its signals (behaviorFailed,
    then behaviorStopped) reach the runner's process 0.3 s after its poll saw it gone."""

    class Signal:
        def __init__(self) -> None:
            self.callbacks: List = []

        def connect(self, callback) -> int:
            self.callbacks.append(callback)
            return len(self.callbacks)

        def disconnect(self, link: int) -> None:
            pass

    def __init__(self) -> None:
        self.behaviorFailed, self.behaviorStopped = self.Signal(), self.Signal()

    def startBehavior(self, name: str) -> None:  # noqa: N802 (NAOqi's name)
        import threading
        import time

        def late_signals() -> None:
            time.sleep(0.3)
            for callback in self.behaviorFailed.callbacks:
                callback(name, "root: onStart: ValueError: the lamp is broken")
            for callback in self.behaviorStopped.callbacks:
                callback(name)
        threading.Thread(target=late_signals, daemon=True).start()

    def isBehaviorRunning(self, name: str) -> bool:  # noqa: N802
        return False


def test_an_installed_behavior_whose_failure_is_heard_late_ends_in_error() -> None:
    from builtin_interfaces.msg import Time
    from naoqi_qicore.ros.installed_behaviors import RobotBehaviorRun
    run = RobotBehaviorRun("broken/.", None, _LateSignalsManager(), 0.05, lambda line: None,
                           Time)
    run.start()
    run.watch()
    assert run.wait(5)
    assert run.status == BehaviorState.ERROR, run.message
    assert "the lamp is broken" in run.message
