"""ALMotionSink: what becomes of each segment, decided from the robot's own answers.

A fake ALMotion whose futures the tests complete, a fake monotonic clock; one test on the
simulated Pepper for the robot's real rejection of NAO's legs.
"""
import threading
import time
from typing import Any, Callable, List, Optional, Tuple

import pytest

from naoqi_qicore.core import motion
from naoqi_qicore.core.motion import (FAILED, FINISHED, STARTED, STOPPED, ALMotionSink,
                                      MotionSegment)

KEY = [0.2, [3, -0.1, 0.0], [3, 0.1, 0.0]]


class FakeFuture:
    """A qi future completed by the test."""

    def __init__(self) -> None:
        self._callbacks: List[Callable[[Any], None]] = []
        self._done = False
        self._error: Optional[str] = None

    def addCallback(self, callback: Callable[[Any], None]) -> None:  # noqa: N802 (qi's name)
        self._callbacks.append(callback)
        if self._done:
            callback(self)

    def hasError(self) -> bool:  # noqa: N802 (qi's name)
        return self._error is not None

    def error(self) -> str:
        return self._error or ""

    def complete(self, error: Optional[str] = None) -> None:
        self._done, self._error = True, error
        for callback in self._callbacks:
            callback(self)


class FakeMotion:
    """ALMotion: ``angleInterpolationBezier`` futures are kept; kills answer at once, or
    when the test says if ``session.kill_answers`` is a list."""

    def __init__(self, session: "FakeSession") -> None:
        self._session = session

    def angleInterpolationBezier(self, names, times, keys, _async=False):  # noqa: N802
        assert _async
        self._session.check_open()
        future = FakeFuture()
        self._session.moves.append((list(names), future))
        return future

    def killTasksUsingResources(self, names, _async=False):  # noqa: N802
        assert _async
        self._session.check_open()
        self._session.kills.append(list(names))
        future = FakeFuture()
        if self._session.kill_answers is None:
            future.complete()
        else:
            self._session.kill_answers.append(future)
        return future


class FakeSession:
    def __init__(self) -> None:
        self.connected = True
        self.fetched = 0
        self.moves: List[Tuple[List[str], FakeFuture]] = []
        self.kills: List[List[str]] = []
        #: futures of the kills the test answers (None: kills answer at once)
        self.kill_answers: Optional[List[FakeFuture]] = None

    def isConnected(self) -> bool:  # noqa: N802 (qi's name)
        return self.connected

    def check_open(self) -> None:
        if not self.connected:
            raise AssertionError("a proxy of a closed session was called")

    def service(self, name: str) -> FakeMotion:
        assert name == "ALMotion"
        self.fetched += 1
        return FakeMotion(self)

    def future(self, names: List[str]) -> FakeFuture:
        """The future of the last call moving exactly ``names``."""
        return [future for moved, future in self.moves if moved == names][-1]


class Rig:
    """A sink on a fake session, with its clock and everything it reported."""

    def __init__(self) -> None:
        self.session = FakeSession()
        self.now = 0.0
        self.statuses: List[Tuple[int, str, str]] = []
        self.failures: List[Tuple[int, str]] = []
        self.sink = ALMotionSink(self.session, lambda *status: self.statuses.append(status),
                                 monotonic=lambda: self.now)

    def send(self, segment_id: int, names: List[str], duration: float = 1.0) -> MotionSegment:
        segment = MotionSegment(segment_id, names, [[duration] for _ in names],
                                [[KEY] for _ in names])
        segment.on_failed = lambda message: self.failures.append((segment_id, message))
        self.sink.send(segment)
        return segment

    def of(self, segment_id: int) -> List[Tuple[str, str]]:
        return [(status, message) for sid, status, message in self.statuses if sid == segment_id]


@pytest.fixture
def rig(monkeypatch: pytest.MonkeyPatch) -> Rig:
    # a kill is sent once: the fake robot's answers come when the test says, and a retry
    # would come from a timer whenever the machine lets it run
    monkeypatch.setattr(motion, "KILL_ATTEMPTS", 1)
    return Rig()


def test_a_segment_that_runs_its_duration_finishes(rig: Rig) -> None:
    rig.send(1, ["HeadYaw", "HeadPitch"], duration=2.0)
    assert rig.of(1) == [(STARTED, "")]
    rig.now = 1.95  # within the tolerance: max(0.1 s, 5 %)
    rig.session.future(["HeadYaw", "HeadPitch"]).complete()
    assert rig.of(1) == [(STARTED, ""), (FINISHED, "")]
    assert rig.failures == [] and rig.session.kills == []


def test_a_segment_the_robot_rejects_fails_with_its_message(rig: Rig) -> None:
    rig.send(1, ["LAnklePitch"])
    error = ("RuntimeError: ALMotion::angleInterpolationBezier: 'LAnklePitch' is not a joint, "
             "chain or group of Pepper\n\nAt:\n  /sim/motion.py(128): _expand\n")
    rig.session.future(["LAnklePitch"]).complete(error)
    message = ("RuntimeError: ALMotion::angleInterpolationBezier: 'LAnklePitch' is not a "
               "joint, chain or group of Pepper")
    assert rig.of(1) == [(STARTED, ""), (FAILED, message)]
    assert rig.failures == [(1, message)]
    rig.send(2, ["HeadYaw"])  # ALMotion is fetched again after a failed call
    assert rig.session.fetched == 2


def test_a_segment_that_returns_early_was_interrupted_on_the_robot(rig: Rig) -> None:
    rig.send(1, ["HeadYaw"], duration=2.0)
    rig.now = 0.5
    rig.session.future(["HeadYaw"]).complete()
    message = "interrupted on the robot after 0.50 s of its 2.00 s"
    assert rig.of(1) == [(STARTED, ""), (FAILED, message)]
    assert rig.failures == [(1, message)]


def test_stop_kills_the_joints_and_reports_stopped(rig: Rig) -> None:
    rig.send(1, ["HeadYaw", "LShoulderPitch"], duration=2.0)
    rig.sink.stop(1)
    assert rig.session.kills == [["HeadYaw", "LShoulderPitch"]]
    rig.now = 0.3
    rig.session.future(["HeadYaw", "LShoulderPitch"]).complete()  # the robot ended it
    assert rig.of(1) == [(STARTED, ""), (STOPPED, "")]
    assert rig.failures == []
    rig.sink.stop(1)  # ended: ignored
    rig.sink.stop(99)  # unknown: ignored
    assert rig.session.kills == [["HeadYaw", "LShoulderPitch"]]


def moved(rig: Rig) -> List[List[str]]:
    """The joints of every angleInterpolationBezier call made, in order."""
    return [names for names, _ in rig.session.moves]


def test_a_segment_replaced_by_a_newer_one_is_stopped_never_failed(rig: Rig) -> None:
    rig.send(1, ["HeadYaw", "HeadPitch"], duration=2.0)
    rig.now = 0.4
    rig.send(2, ["HeadPitch"], duration=1.0)
    # the older task is ended first: two calls made back to back may start on the robot
    # in either order, and the older one starting last would end the newer one
    assert rig.session.kills == [["HeadPitch"]]
    assert moved(rig) == [["HeadYaw", "HeadPitch"]] and rig.of(2) == [(STARTED, "")]
    rig.session.future(["HeadYaw", "HeadPitch"]).complete()  # the robot ended the older task
    assert rig.of(1) == [(STARTED, ""), (STOPPED, "")]
    assert moved(rig) == [["HeadYaw", "HeadPitch"], ["HeadPitch"]]
    assert rig.of(2) == [(STARTED, "")] and rig.failures == []
    rig.sink.send(MotionSegment(3, ["LHand"], [[1.0]], [[KEY]]))  # other joints: no effect
    assert rig.session.kills == [["HeadPitch"]]
    rig.now = 1.4
    rig.session.future(["HeadPitch"]).complete()
    assert rig.of(2) == [(STARTED, ""), (FINISHED, "")]


def test_a_replaced_segment_the_robot_does_not_end_is_sent_after_a_while(
        rig: Rig, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(motion, "HANDOVER_TIMEOUT", 0.05)
    rig.send(1, ["HeadYaw"], duration=2.0)
    rig.send(2, ["HeadYaw"])
    deadline = time.monotonic() + 5
    while len(moved(rig)) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert moved(rig) == [["HeadYaw"], ["HeadYaw"]]
    assert "did not end segment(s) 1 it replaces within 0.05 s; sent anyway" in caplog.text
    rig.now = 1.0
    for _, future in rig.session.moves:
        future.complete()
    assert rig.of(1) == [(STARTED, ""), (STOPPED, "")]
    assert rig.of(2) == [(STARTED, ""), (FINISHED, "")]


def test_a_segment_stopped_or_replaced_before_its_call_is_never_sent(rig: Rig) -> None:
    rig.send(1, ["HeadYaw", "HeadPitch"], duration=2.0)
    rig.send(2, ["HeadYaw"])  # waits for 1 to end
    rig.sink.stop(2)
    assert rig.of(2) == [(STARTED, ""), (STOPPED, "")]
    rig.send(3, ["HeadPitch"])  # waits for 1
    rig.send(4, ["HeadPitch", "LHand"])  # replaces 3, which was never sent, and waits for 1
    assert rig.of(3) == [(STARTED, ""), (STOPPED, "")]
    rig.send(5, ["RHand"])
    rig.send(6, ["RHand"])  # waits for 5
    rig.sink.stop_all()
    assert rig.of(6) == [(STARTED, ""), (STOPPED, "")]
    for _, future in rig.session.moves:
        future.complete()
    assert moved(rig) == [["HeadYaw", "HeadPitch"], ["RHand"]]
    assert [status for _, status, _ in rig.statuses if status != STARTED] == [STOPPED] * 6
    assert rig.sink.wait_all_ended(0)


def test_a_segment_waits_for_the_answers_to_the_kills_of_its_joints(rig: Rig) -> None:
    """A kill still on its way would end a newer segment that reached the robot first."""
    rig.session.kill_answers = []
    rig.send(1, ["HeadYaw"], duration=2.0)
    rig.sink.stop(1)
    rig.session.future(["HeadYaw"]).complete()  # the kill has ended it; its answer is late
    assert rig.of(1) == [(STARTED, ""), (STOPPED, "")]
    rig.send(2, ["HeadYaw", "LHand"])
    rig.send(3, ["RHand"])  # other joints: sent at once
    assert moved(rig) == [["HeadYaw"], ["RHand"]] and rig.of(2) == [(STARTED, "")]
    rig.session.kill_answers[0].complete()
    assert moved(rig) == [["HeadYaw"], ["RHand"], ["HeadYaw", "LHand"]]

    # a stop's kill and a replacing segment's kill: the first ends the old segment, the
    # second must be answered before the new one goes
    rig.sink.stop(2)
    rig.send(4, ["LHand"])
    assert rig.session.kills[-2:] == [["HeadYaw", "LHand"], ["LHand"]]
    rig.session.future(["HeadYaw", "LHand"]).complete()
    rig.session.kill_answers[1].complete()
    assert moved(rig)[-1] == ["HeadYaw", "LHand"]  # 4 still waits for the second answer
    rig.session.kill_answers[2].complete()
    assert moved(rig)[-1] == ["LHand"]
    assert rig.of(2) == [(STARTED, ""), (STOPPED, "")] and rig.of(4) == [(STARTED, "")]


def test_an_older_segment_ending_as_a_newer_one_starts_leaves_it_to_the_kill(
        rig: Rig) -> None:
    """The older segment's call returns while the sink tells that the newer one STARTED,
    before the kill of the joints they share is sent: the newer one is still called only
    once that kill is answered, never before it (the kill would end it on the robot)."""
    rig.session.kill_answers = []
    rig.send(1, ["HeadYaw"], duration=2.0)
    told = rig.sink._on_status

    def on_status(segment_id: int, status: str, message: str) -> None:
        told(segment_id, status, message)
        if (segment_id, status) == (2, STARTED):
            rig.now = 0.5
            rig.session.future(["HeadYaw"]).complete()  # 1 ends on the robot right then
    rig.sink._on_status = on_status
    rig.send(2, ["HeadYaw"])
    assert rig.of(1) == [(STARTED, ""), (STOPPED, "")]
    assert rig.session.kills == [["HeadYaw"]] and moved(rig) == [["HeadYaw"]]
    rig.session.kill_answers[0].complete()
    assert moved(rig) == [["HeadYaw"], ["HeadYaw"]]  # after the kill's answer
    rig.now = 1.6
    rig.session.moves[-1][1].complete()
    assert rig.of(2) == [(STARTED, ""), (FINISHED, "")] and rig.failures == []


def test_stopping_a_replaced_segment_spares_the_newer_one(rig: Rig) -> None:
    """A goto sends the new segment first, then stops the one it replaces."""
    rig.send(1, ["HeadYaw", "HeadPitch", "LHand"], duration=2.0)
    rig.send(2, ["HeadYaw", "HeadPitch"])  # kills the joints it shares with 1
    rig.sink.stop(1)  # kills the others
    assert rig.session.kills == [["HeadYaw", "HeadPitch"], ["LHand"]]
    rig.session.future(["HeadYaw", "HeadPitch", "LHand"]).complete()
    rig.send(3, ["HeadYaw"])
    rig.send(4, ["HeadPitch"])
    rig.sink.stop(2)  # every joint of 2 belongs to a newer segment: nothing more to kill
    assert rig.session.kills == [["HeadYaw", "HeadPitch"], ["LHand"], ["HeadYaw"],
                                 ["HeadPitch"]]
    rig.session.future(["HeadYaw", "HeadPitch"]).complete()
    assert rig.of(2) == [(STARTED, ""), (STOPPED, "")]
    rig.sink.stop_all()
    assert rig.session.kills[-1] == ["HeadYaw", "HeadPitch"]
    for names in (["HeadYaw"], ["HeadPitch"]):
        rig.session.future(names).complete()
    assert [status for _, status, _ in rig.statuses if status != STARTED] == [STOPPED] * 4
    assert rig.failures == []


def test_forget_ends_every_segment_in_flight_once(rig: Rig) -> None:
    rig.send(1, ["HeadYaw"])
    rig.send(2, ["LHand"])
    rig.sink.stop(2)
    rig.session.connected = False
    rig.sink.forget("robot lost: socket closed")
    assert rig.of(1) == [(STARTED, ""), (FAILED, "robot lost: socket closed")]
    assert rig.of(2) == [(STARTED, ""), (STOPPED, "")]
    assert rig.failures == [(1, "robot lost: socket closed")]
    rig.session.future(["HeadYaw"]).complete("disconnected")  # late answers change nothing
    rig.session.future(["LHand"]).complete("disconnected")
    assert len(rig.statuses) == 4
    with pytest.raises(RuntimeError, match="not connected"):
        rig.send(3, ["HeadYaw"])
    rig.session.connected = True
    rig.send(3, ["HeadYaw"])  # the proxy of the lost connection is not used again
    assert rig.session.fetched == 2


def test_a_closed_session_is_never_touched(rig: Rig) -> None:
    rig.send(1, ["HeadYaw"])
    rig.session.connected = False
    with pytest.raises(RuntimeError, match="not connected"):
        rig.send(2, ["HeadYaw"])
    with pytest.raises(RuntimeError, match="not connected"):
        rig.sink.stop(1)
    with pytest.raises(RuntimeError, match="not connected"):
        rig.sink.stop_all()
    assert len(rig.session.moves) == 1 and rig.session.kills == []


def test_on_the_simulated_pepper() -> None:
    """The real robot protocol: NAO's legs are rejected, a stop is a kill of the joints."""
    qi = pytest.importorskip("qi")
    from naoqi_qicore.robot.sim import SimulatedRobot
    robot = SimulatedRobot(robot="pepper", listen="tcp://127.0.0.1:0").start()
    session = qi.Session()
    session.connect(robot.url)
    ended = threading.Condition()
    statuses: List[Tuple[int, str, str]] = []

    def report(*status: Any) -> None:
        with ended:
            statuses.append(status)
            ended.notify_all()

    def wait_end(segment_id: int) -> Tuple[str, str]:
        with ended:
            assert ended.wait_for(lambda: [s for s in statuses if s[0] == segment_id
                                           and s[1] != STARTED], 5)
            return [s[1:] for s in statuses if s[0] == segment_id][-1]
    try:
        sink = ALMotionSink(session, report)
        sink.send(MotionSegment(1, ["LAnklePitch"], [[0.2]], [[KEY]]))
        status, message = wait_end(1)
        assert status == FAILED and "'LAnklePitch' is not a joint" in message
        assert "Pepper" in message and "At:" not in message
        sink.send(MotionSegment(2, ["HeadYaw"], [[0.2]], [[KEY]]))
        assert wait_end(2) == (FINISHED, "")
        sink.send(MotionSegment(3, ["HeadYaw", "HeadPitch"], [[5.0], [5.0]], [[KEY], [KEY]]))
        sink.stop(3)
        assert wait_end(3) == (STOPPED, "")
        kills = [c["args"] for c in robot.calls() if c["method"] == "killTasksUsingResources"]
        # sent again when it reached the robot before the task it stops had started
        assert kills and all(kill == [["HeadYaw", "HeadPitch"]] for kill in kills), kills
    finally:
        session.close()
        robot.stop()
