"""The timeline: libqicore's tests/test_timeline.cpp (reference §6.2) and deterministic
ticks, flags, gotos, pause and end, on a fake clock."""
import math
import threading
import time

import pytest

from naoqi_qicore.core import FakeClock, GotoError
from naoqi_qicore.core.motion import ALMotionSink, CurveSet, MotionSegment
from naoqi_qicore.core.timeline import Timeline
from naoqi_qicore.xar.model import ActuatorCurve, BehaviorKeyframe, BehaviorLayer, Diagram, Key

from core_builders import RECORD, RecordingSink, curve, link, script_box, timeline_box

JOINTS = ["HeadYaw", "HeadPitch", "LShoulderPitch", "LShoulderRoll", "LElbowYaw",
          "LElbowRoll", "LWristYaw", "LHand", "LHipYawPitch", "LHipRoll", "LHipPitch",
          "LKneePitch", "LAnklePitch", "LAnkleRoll", "RHipRoll", "RHipPitch", "RKneePitch",
          "RAnklePitch", "RAnkleRoll", "RShoulderPitch", "RShoulderRoll", "RElbowYaw",
          "RElbowRoll", "RWristYaw", "RHand"]


class TimelineRig:
    """The fixture timeline of libqicore's test: 25 curves, keys at frames 21..47, 25 fps."""

    def __init__(self, **kwargs):
        self.clock = FakeClock()
        self.sink = RecordingSink()
        self.frames = []
        self.ended = threading.Event()
        curves = [ActuatorCurve(joint, unit=0, keys=[Key(frame, 10.0 + index)
                                                       for frame in range(21, 48, 2)])
                  for index, joint in enumerate(JOINTS)]
        self.timeline = Timeline(clock=self.clock, fps=25, start_frame=0, end_frame=-1,
                                 curves=CurveSet(curves), motion=self.sink,
                                 on_frame=self.frames.append, on_end=self.ended.set, **kwargs)

    def advance(self, seconds):
        self.clock.advance(seconds)

    def run_to_end(self, limit=10.0):
        step = 0.2
        while not self.ended.is_set() and limit > 0:
            self.advance(step)
            limit -= step
        return self.ended.is_set()


@pytest.fixture
def rig():
    made = TimelineRig()
    yield made
    made.timeline.stop()


def test_create_timeline(rig):
    assert rig.timeline.fps == 25 and rig.timeline.frame == 0 and not rig.timeline.playing
    assert rig.timeline.end_frame == 47  # end -1 = last key


def test_open_file_and_play(rig):
    rig.timeline.play()
    assert rig.run_to_end()
    assert rig.frames == list(range(0, 48))
    assert len(rig.sink.sent) == 1  # one command for the whole motion
    assert not rig.timeline.playing


def test_play_and_pause(rig):
    rig.timeline.play()
    rig.advance(1.0)
    assert rig.frames[-1] == 25
    rig.timeline.pause()
    assert rig.sink.stopped == [rig.sink.sent[0].segment_id]
    rig.advance(1.0)
    assert rig.frames[-1] == 25 and not rig.timeline.playing
    rig.timeline.play()
    assert rig.run_to_end()
    assert rig.frames == list(range(0, 48))
    resent = rig.sink.sent[1]
    assert resent.times[0][0] == pytest.approx((27 - 26) / 25)  # from the frame after the pause


def test_play_and_stop(rig):
    rig.timeline.play()
    rig.advance(0.5)
    rig.timeline.stop()
    assert not rig.timeline.playing and rig.timeline.frame == 0
    assert rig.sink.stopped == [rig.sink.sent[0].segment_id]
    assert not rig.ended.is_set()  # stop does not fire the end


def test_modify_fps_before_start(rig):
    assert rig.timeline.fps == 25
    rig.timeline.set_fps(15)
    assert rig.timeline.fps == 15
    rig.timeline.play()
    rig.advance(47 / 15 - 0.01)
    assert not rig.ended.is_set()
    rig.advance(0.02)
    assert rig.ended.is_set()
    assert rig.sink.sent[0].times[0][0] == pytest.approx(21 / 15)


def test_modify_fps_after_start(rig):
    rig.timeline.play()
    rig.advance(0.4)  # frame 10
    rig.timeline.set_fps(15)
    assert rig.timeline.fps == 15
    rig.clock.settle()
    assert rig.run_to_end()
    assert rig.frames[-1] == 47
    assert len(rig.sink.sent) == 2 and rig.sink.stopped == [rig.sink.sent[0].segment_id]


def test_goto_while_playing_sends_the_motion_before_returning(rig):
    rig.timeline.play()
    rig.advance(0.4)  # frame 10
    rig.timeline.goto(30)
    # sent by goto itself, in the caller's thread: no clock step, no waiting for the ticks
    assert len(rig.sink.sent) == 2 and rig.sink.stopped == [rig.sink.sent[0].segment_id]
    assert rig.sink.sent[1].times[0][0] == pytest.approx((31 - 30) / 25)
    deadline = time.monotonic() + 5
    while 30 not in rig.frames and time.monotonic() < deadline:
        time.sleep(0.001)  # the timeline's thread wakes up and runs frame 30
    assert 30 in rig.frames and len(rig.sink.sent) == 2  # without sending it again
    rig.timeline.goto(47)  # the end: nothing left to move
    assert len(rig.sink.sent) == 2
    assert rig.run_to_end() and rig.frames[-1] == 47


def test_go_to_before_start(rig):
    rig.timeline.goto(44)
    rig.timeline.play()
    assert rig.run_to_end()
    assert rig.frames == [44, 45, 46, 47]


def test_go_to_after_start(rig):
    rig.timeline.play()
    rig.advance(0.2)
    rig.timeline.goto(44)
    rig.clock.settle()
    assert rig.run_to_end()
    assert rig.frames[-4:] == [44, 45, 46, 47]
    assert 43 not in rig.frames


def test_ticks_are_on_absolute_deadlines():
    clock = FakeClock()
    stamps = []
    timeline = Timeline(clock=clock, fps=50, end_frame=200,
                        on_frame=lambda frame: stamps.append((frame, clock.now())))
    timeline.play()
    clock.advance(4.0)
    timeline.wait(5)
    assert [frame for frame, _ in stamps] == list(range(0, 201))
    for frame, stamp in stamps:
        assert stamp == pytest.approx(frame / 50, abs=1e-9)


def test_motion_segment_units_and_handles():
    curves = CurveSet([curve("HeadYaw", [(10, 90.0), (20, 0.0)], unit=0),
                       curve("LHand", [(10, 0.5), (30, 1.0)], unit=None),
                       curve("RHand", [(10, 50.0)], unit=1),
                       ActuatorCurve("HeadPitch", mute=1, keys=[Key(10, 1.0)])])
    segment = curves.segment(7, 0, 25)
    assert segment.names == ["HeadYaw", "LHand", "RHand"]  # muted curve not sent
    assert segment.times[0] == [pytest.approx(0.4), pytest.approx(0.8)]
    first = segment.keys[0][0]
    assert first[0] == pytest.approx(math.pi / 2)
    assert first[1][0] == 3 and first[2][0] == 3  # bezier handles
    assert segment.keys[1][0][0] == pytest.approx(0.5)  # hand without unit: ratio
    assert segment.keys[2][0][0] == pytest.approx(50.0)  # unit 1: as is
    # auto tangents of a key between its neighbours: a third of the span, sloped
    middle = CurveSet([curve("HeadYaw", [(0, 0.0), (10, 10.0), (20, 20.0)])]).segment(1, -1, 10)
    _, left, right = middle.keys[0][1]
    assert left[1] == pytest.approx(-10 / 3 / 10) and right[1] == pytest.approx(10 / 3 / 10)
    assert right[2] == pytest.approx(10 / 3 * math.pi / 180)


def _keyframe_root(**kwargs):
    """Root with layer A: a@1, b@10, c@20; each keyframe has a recording box started by onLoad."""
    keyframes = []
    for name, index in (("a", 1), ("b", 10), ("c", 20)):
        box = script_box("box_" + name, 1, RECORD)
        keyframes.append(BehaviorKeyframe(name, index, Diagram([box], [link(0, 1, 1, 2)])))
    return timeline_box("root", -1, [BehaviorLayer("A", keyframes)], **kwargs)


def started(harness):
    return [name for name, what in harness.log if what == "onStart"]


def test_flags_switch_states_at_their_frame(make_harness):
    harness = make_harness(_keyframe_root(end_frame=30))
    harness.player.load()
    harness.player.play()
    harness.settle()
    assert started(harness) == ["l1_box_a"]
    assert harness.player.state_names == ["a"]
    harness.advance(9 / 25)
    assert harness.player.frame == 9 and started(harness) == ["l1_box_a"]
    harness.advance(1 / 25)
    assert started(harness) == ["l1_box_a", "l1_box_b"]
    assert ("l1_box_a", "onUnload") in harness.log
    assert harness.player.state_names == ["b"]
    harness.advance(20 / 25)
    assert harness.player.status == "FINISHED"
    assert started(harness) == ["l1_box_a", "l1_box_b", "l1_box_c"]
    entered = [event.detail for event in harness.kinds("state_entered")]
    assert entered == ["l0_root_state_0", "l0_root_state_1", "l0_root_state_2"]


def test_goto_label_and_frame_while_playing(make_harness):
    harness = make_harness(_keyframe_root())
    player = harness.player
    player.load()
    assert player.labels == {"a": 1, "b": 10, "c": 20}
    player.play()
    harness.settle()
    assert player.goto("c") == 20
    harness.settle()
    assert player.frame == 20 and player.state_names == ["c"]
    assert player.goto(15) == 15  # a frame is reached exactly, in the state showing it
    harness.settle()
    assert player.frame == 15 and player.state_names == ["b"]
    with pytest.raises(GotoError):
        player.goto("nowhere")
    with pytest.raises(GotoError):
        player.goto(-3)
    assert player.status == "PLAYING"


def test_goto_and_stop_then_play(make_harness):
    harness = make_harness(_keyframe_root())
    player = harness.player
    player.load()
    assert player.goto("b", play=False) == 10
    assert player.status == "LOADED" and player.frame == 10
    player.play()
    harness.settle()
    assert started(harness) == ["l1_box_b"]
    assert player.goto("c", play=False) == 20
    harness.settle()
    assert player.status == "PAUSED"
    harness.advance(1.0)
    assert player.frame == 20


def test_pause_resume_keeps_the_frame(make_harness):
    root = _keyframe_root(curves=[curve("HeadYaw", [(50, 10.0), (100, 0.0)])])
    harness = make_harness(root)
    player = harness.player
    player.load()
    player.play()
    harness.advance(0.4)
    assert player.frame == 10
    player.pause()
    assert player.status == "PAUSED"
    assert harness.sink.stopped == [harness.sink.sent[0].segment_id]
    harness.advance(1.0)
    assert player.frame == 10
    player.resume()
    harness.settle()
    assert player.frame == 11
    assert harness.sink.sent[1].times[0][0] == pytest.approx((50 - 11) / 25)
    harness.advance(89 / 25)
    assert player.status == "FINISHED"  # end of motion: the root's onStopped fires


class _ClosedSession:
    """A session its owner closed: a proxy of it must never be called."""

    def __init__(self):
        self.connected = True
        self.calls = []

    def isConnected(self):  # noqa: N802 (qi's name)
        return self.connected

    def service(self, name):
        session = self

        class Future:
            def addCallback(self, callback):  # noqa: N802 (qi's name)
                """The task never ends in this test."""

        class Proxy:
            def angleInterpolationBezier(self, *args, **kwargs):  # noqa: N802 (qi's name)
                if not session.connected:
                    raise AssertionError("a proxy of a closed session was called")
                session.calls.append("angleInterpolationBezier")
                return Future()
        return Proxy()


def test_motion_sink_never_calls_a_proxy_of_a_closed_session():
    session = _ClosedSession()
    sink = ALMotionSink(session)
    segment = MotionSegment(1, ["HeadYaw"], [[0.5]], [[[0.1, [3, -0.1, 0.0], [3, 0.1, 0.0]]]])
    sink.send(segment)  # connected: the proxy is fetched, called and kept
    session.connected = False
    with pytest.raises(RuntimeError, match="not connected"):
        sink.send(segment)
    with pytest.raises(RuntimeError, match="not connected"):
        sink.stop(segment.segment_id)
    assert session.calls == ["angleInterpolationBezier"]
