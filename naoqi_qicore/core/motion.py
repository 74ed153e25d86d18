"""Motion curves of a timeline as ALMotion.angleInterpolationBezier commands.

A :class:`MotionSegment` holds exactly the arguments of ``angleInterpolationBezier``:
``keys[c][j] = [angle_rad, [type, dtime_s, dangle_rad], [type, dtime_s, dangle_rad]]``
(left handle, right handle), times in seconds from the moment the segment is sent.

Rules (reference §3.14, §8.1, §8.2):

* keys are in the curve's unit: ``unit`` 0 = degrees (sent ×π/180), 1 = ratio/percent
  (sent as is); without a unit (None or -1) LHand and RHand are ratios, every other
  actuator is in degrees;
* every handle is sent with interpolation type :data:`BEZIER_HANDLE_TYPE` (3, what
  Choregraphe's own Python export writes for ordinary handles) and in the order
  ``[type, dTime, dAngle]`` that every producer uses (the NAOqi docstring's order is
  not);
* explicit "bezier" tangents keep their handle (abscissa in frames → seconds, ordinate in
  curve unit → radians); "linear" tangents become a handle pointing a third of the way to
  the neighbouring key; "constant" ones a flat handle of that length; "bezier auto" and
  missing tangents are computed with Choregraphe's auto-tangent rule (§3.14.6);
* a segment starting at frame F holds the keys after F (a key exactly at F has nothing
  left to do: its time would be 0, which ALMotion refuses); muted curves are not sent.

:class:`ALMotionSink` executes segments on a robot and reports what became of each one.
"""
from __future__ import annotations

import functools
import math
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Collection, Dict, List, Optional, Sequence, Set, Tuple

try:
    from typing import Protocol
except ImportError:  # pragma: no cover
    Protocol = object  # type: ignore

from naoqi_qicore.xar.model import ActuatorCurve, Key

#: interpolation type sent in every Bezier handle (reference §8.1)
BEZIER_HANDLE_TYPE = 3
#: actuators whose values are ratios (0..1) when the curve has no unit
RATIO_ACTUATORS = frozenset(("LHand", "RHand"))
_DEGREE = math.pi / 180.0
_AUTO_ALPHA = 1.0 / 3.0

_LOG = logging.getLogger(__name__)


@dataclass
class MotionSegment:
    """One ``angleInterpolationBezier`` command: ``(names, times, keys)``.

    ``on_failed(message)`` is called by the sink that executes the segment when the robot
    rejects it, or it fails or is interrupted there (``message``: the robot's words);
    never for a segment stopped by its sender.  ``on_joints_left_out(names)`` is called
    when the keys of joints the robot lacks were left out of it (:class:`RobotJointFilter`).
    """

    segment_id: int
    names: List[str]
    times: List[List[float]]
    keys: List[List[list]]
    on_failed: Optional[Callable[[str], None]] = field(default=None, compare=False, repr=False)
    on_joints_left_out: Optional[Callable[[List[str]], None]] = field(
        default=None, compare=False, repr=False)

    @property
    def duration(self) -> float:
        """Seconds from sending to the last key of its longest joint."""
        return max((joint_times[-1] for joint_times in self.times if joint_times), default=0.0)


class MotionSink(Protocol):
    """Where a timeline's motion goes."""

    def send(self, segment: MotionSegment) -> None: ...

    def stop(self, segment_id: int, spare: Collection[str] = ()) -> None:
        """Stop a segment sent; the joints in ``spare`` keep moving (a newer segment sent
        elsewhere moves them)."""

    def wait_all_ended(self, timeout: float) -> bool:
        """Wait until every segment sent has ended on the robot (its call answered); False
        when some are still moving after ``timeout`` s."""


def curve_scale(curve: ActuatorCurve) -> float:
    """Factor from the curve's unit to radians (or ratio)."""
    if curve.unit == 0:
        return _DEGREE
    if curve.unit == 1:
        return 1.0
    return 1.0 if curve.actuator in RATIO_ACTUATORS else _DEGREE


Handle = Tuple[float, float]  # (offset in frames, offset in curve unit)


def _auto_handles(keys: Sequence[Key], index: int) -> Tuple[Handle, Handle]:
    """Choregraphe's automatic Bezier handles of ``keys[index]`` (reference §3.14.6)."""
    key = keys[index]
    left = keys[index - 1] if index > 0 else None
    right = keys[index + 1] if index + 1 < len(keys) else None
    left_span = key.frame - left.frame if left is not None else 0
    right_span = right.frame - key.frame if right is not None else 0
    beta = 0.0
    if left is not None and right is not None:
        low, high = sorted((left.value, right.value))
        if low < key.value < high:
            beta = (right.value - left.value) / (right.frame - left.frame)
            if abs(_AUTO_ALPHA * right_span * beta) > abs(right.value - key.value):
                beta = math.copysign(abs(right.value - key.value) / (_AUTO_ALPHA * right_span), beta)
            if abs(_AUTO_ALPHA * left_span * beta) > abs(key.value - left.value):
                beta = math.copysign(abs(key.value - left.value) / (_AUTO_ALPHA * left_span), beta)
    return ((-_AUTO_ALPHA * left_span, -_AUTO_ALPHA * beta * left_span),
            (_AUTO_ALPHA * right_span, _AUTO_ALPHA * beta * right_span))


def _tangent_handle(keys: Sequence[Key], index: int, side: str, auto: Handle) -> Handle:
    """The handle of one side of ``keys[index]`` from its ``<Tangent>``, or ``auto``."""
    key = keys[index]
    tangent = next((t for t in key.tangents if t.side == side), None)
    kind = (tangent.interp_type if tangent is not None else "bezier auto").strip().lower()
    neighbour_index = index - 1 if side == "left" else index + 1
    neighbour = keys[neighbour_index] if 0 <= neighbour_index < len(keys) else None
    if kind in ("bezier", "bezier sym", "bezier smooth", "bezier harsh"):
        return (tangent.abscissa, tangent.ordinate)
    if kind in ("linear", "none", "constant", "piecewise constant"):
        if neighbour is None:
            return (0.0, 0.0)
        third = (neighbour.frame - key.frame) * _AUTO_ALPHA
        rise = 0.0 if "constant" in kind else (neighbour.value - key.value) * _AUTO_ALPHA
        return (third, rise)
    return auto


def curve_control_points(curve: ActuatorCurve) -> List[Tuple[int, float, Handle, Handle]]:
    """``(frame, value, left handle, right handle)`` of every key, in the curve unit."""
    keys = sorted(curve.keys, key=lambda k: k.frame)
    points = []
    for index, key in enumerate(keys):
        auto_left, auto_right = _auto_handles(keys, index)
        points.append((key.frame, key.value,
                       _tangent_handle(keys, index, "left", auto_left),
                       _tangent_handle(keys, index, "right", auto_right)))
    return points


class CurveSet:
    """The non-muted curves of a timeline, ready to be cut into segments."""

    def __init__(self, curves: Sequence[ActuatorCurve]) -> None:
        self._played = [curve for curve in curves if not curve.mute and curve.keys]
        #: the frame of the last key over all curves (0 without curves)
        self.last_frame = max((key.frame for curve in self._played for key in curve.keys),
                              default=0)

    def __bool__(self) -> bool:
        return bool(self._played)

    @functools.cached_property
    def _curves(self) -> List[Tuple[str, float, List[Tuple[int, float, Handle, Handle]]]]:
        """``(actuator, scale, control points)`` of each curve, worked out when first played
        (a behavior's timelines are built at load, most of them never played)."""
        return [(curve.actuator, curve_scale(curve), curve_control_points(curve))
                for curve in self._played]

    def segment(self, segment_id: int, frame: int, fps: float) -> Optional[MotionSegment]:
        """The command playing every key after ``frame`` at ``fps`` (None if none is left)."""
        names: List[str] = []
        times: List[List[float]] = []
        keys: List[List[list]] = []
        for actuator, scale, points in self._curves:
            ahead = [p for p in points if p[0] > frame]
            if not ahead:
                continue
            names.append(actuator)
            times.append([(key_frame - frame) / fps for key_frame, _, _, _ in ahead])
            keys.append([[value * scale,
                          [BEZIER_HANDLE_TYPE, left[0] / fps, left[1] * scale],
                          [BEZIER_HANDLE_TYPE, right[0] / fps, right[1] * scale]]
                         for _, value, left, right in ahead])
        if not names:
            return None
        return MotionSegment(segment_id, names, times, keys)


#: statuses that :class:`ALMotionSink` reports for each segment (MotionStatus's names)
STARTED = "STARTED"
FINISHED = "FINISHED"
STOPPED = "STOPPED"
FAILED = "FAILED"
#: a segment whose call returns earlier than its duration minus
#: max(INTERRUPTION_MARGIN, INTERRUPTION_RATIO * duration) was interrupted on the robot
INTERRUPTION_MARGIN = 0.1
INTERRUPTION_RATIO = 0.05
#: a stop's kill is sent again while its segment still runs: this many times in all,
#: this long (s) after the previous kill returned
KILL_ATTEMPTS = 5
KILL_RETRY_DELAY = 0.05
#: a segment sharing joints with older ones in flight is sent when the robot has ended
#: them, or after this long (s) if it has not
HANDOVER_TIMEOUT = 1.0
#: libqi's Python services append their traceback to the error text after this
_QI_TRACEBACK = "\n\nAt:\n"

#: ``on_status(segment_id, status, message)``: ``message`` is "" unless FAILED
StatusCallback = Callable[[int, str, str], None]


def robot_message(error: str) -> str:
    """The robot's error text without the Python traceback libqi may append to it."""
    return error.split(_QI_TRACEBACK, 1)[0].strip()


@dataclass(eq=False)
class _Flight:
    """A segment whose ``angleInterpolationBezier`` call has not returned yet, or has
    not been made yet because older segments sharing its joints are still ending."""

    segment: MotionSegment
    #: monotonic time (s) the call was made (or the segment was sent, while it waits)
    sent_at: float
    joints: Set[str] = field(init=False)
    #: its sender asked to stop it
    stop_requested: bool = False
    #: a newer segment sharing joints with it was sent: its joints are killed
    replaced: bool = False
    #: the robot call is made
    called: bool = True
    #: older segments it waits for (its call is made when none is left)
    waiting_for: List["_Flight"] = field(default_factory=list)
    #: ends the wait after :data:`HANDOVER_TIMEOUT`
    timer: Optional[threading.Timer] = None

    def __post_init__(self) -> None:
        self.joints = set(self.segment.names)


@dataclass(eq=False)
class _Kill:
    """A ``killTasksUsingResources`` of ``joints`` claimed for ``flights`` (its ``attempt``-th
    for them); ``pending`` is what the sink holds until the robot answers it."""

    joints: List[str]
    flights: List[_Flight]
    attempt: int
    pending: Set[str] = field(init=False)

    def __post_init__(self) -> None:
        self.pending = set(self.joints)


class RobotJointFilter:
    """A motion sink leaving out of each segment the joints its robot does not have.

    A Pepper behavior may hold timelines recorded with a NAO's leg keys; ALMotion refuses a
    whole ``angleInterpolationBezier`` naming a joint the robot lacks ("'LAnklePitch' is
    not a joint... of Pepper"), and the head and arms would not move either.  The robot's
    joints are asked once (``ALMotion.getBodyNames("Body")``, when the first segment goes);
    the keys of the others are left out, which the segment's ``on_joints_left_out`` is
    told; a segment left without joints is not sent.  When the robot cannot tell its
    joints, segments go as they are.
    """

    def __init__(self, sink: MotionSink, session: Any) -> None:
        self._sink = sink
        self._session = session
        self._lock = threading.Lock()
        self._asked = False
        self._joints: Optional[Set[str]] = None

    def _robot_joints(self) -> Optional[Set[str]]:
        with self._lock:
            if not self._asked:
                connected = getattr(self._session, "isConnected", None)
                if connected is not None and not connected():
                    return None  # never call a proxy of a closed session; ask next time
                self._asked = True
                try:
                    names = self._session.service("ALMotion").getBodyNames("Body")
                except Exception as error:  # a robot that cannot tell: send as they are
                    _LOG.debug("ALMotion.getBodyNames: %s", error)
                    names = None
                if isinstance(names, (list, tuple)) and names \
                        and all(isinstance(name, str) for name in names):
                    self._joints = set(names)
            return self._joints

    def send(self, segment: MotionSegment) -> None:
        joints = self._robot_joints()
        if joints is not None:
            kept = [index for index, name in enumerate(segment.names) if name in joints]
            if len(kept) < len(segment.names):
                if segment.on_joints_left_out is not None:
                    segment.on_joints_left_out(sorted(set(segment.names) - joints))
                segment.names = [segment.names[index] for index in kept]
                segment.times = [segment.times[index] for index in kept]
                segment.keys = [segment.keys[index] for index in kept]
                if not kept:
                    return
        self._sink.send(segment)

    def stop(self, segment_id: int, spare: Collection[str] = ()) -> None:
        self._sink.stop(segment_id, spare)

    def wait_all_ended(self, timeout: float) -> bool:
        return self._sink.wait_all_ended(timeout)


class ALMotionSink:
    """Executes segments with ALMotion on a qi session and reports what became of each.

    ``send`` calls ``angleInterpolationBezier(names, times, keys, _async=True)``: the qi
    future of that call carries the robot's outcome.  ``on_status(segment_id, status,
    message)`` gets STARTED once the call is made, then exactly one of (first that holds):

    * STOPPED: its sender stopped it (:meth:`stop`, :meth:`stop_all`), or a newer segment
      sharing joints with it was sent;
    * FAILED: the call failed (``message``: the robot's error), or it returned earlier
      than the segment's duration (interrupted on the robot), or the connection was lost
      (:meth:`forget`); ``segment.on_failed(message)`` is called too;
    * FINISHED: the call returned after the segment's duration.

    A newer segment sharing joints with older ones in flight replaces them: their joints
    are killed (``killTasksUsingResources``).  A segment's call is made once the robot has
    ended the older segments sharing its joints and answered every kill of those joints
    (at most :data:`HANDOVER_TIMEOUT` later): calls made back to back may run on the
    robot in either order (libqi runs them on a thread pool), and an older task or a kill
    arriving last would end the newer one.

    Statuses of finished calls come from libqi's threads.  ``session`` is anything with
    ``service(name)``; its ALMotion proxy is fetched again after a failed call.  While a
    session that tells (``isConnected()``) is not connected, :meth:`send` and the stops
    raise RuntimeError without touching the proxy: libqi crashes the process when a proxy
    of a closed session is called, and a box stuck past its stop may keep a timeline
    running after its owner closed it.
    """

    def __init__(self, session: Any, on_status: Optional[StatusCallback] = None,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self._session = session
        self._on_status = on_status
        self._monotonic = monotonic
        self._lock = threading.Lock()
        self._all_ended = threading.Condition(self._lock)
        self._motion: Any = None
        #: segments in flight, in the order they were sent
        self._flights: Dict[int, _Flight] = {}
        #: the joints of each kill sent and not answered yet
        self._kills: List[Set[str]] = []

    # -- the robot -------------------------------------------------------------------------
    def _connected(self) -> bool:
        connected = getattr(self._session, "isConnected", None)
        return connected is None or bool(connected())

    def _service(self) -> Any:
        with self._lock:
            if not self._connected():
                self._motion = None
                raise RuntimeError("the robot session is not connected")
            if self._motion is None:
                self._motion = self._session.service("ALMotion")
            return self._motion

    def _drop_proxy(self, motion: Any) -> None:
        """Fetch ALMotion again at the next call (``motion`` may belong to a lost connection)."""
        with self._lock:
            if self._motion is motion:
                self._motion = None

    def _call(self, method: str, *args: Any) -> Tuple[Any, Any]:
        """``(proxy, future)`` of ``ALMotion.method(*args)`` started in the background."""
        motion = self._service()
        try:
            return motion, getattr(motion, method)(*args, _async=True)
        except Exception:
            self._drop_proxy(motion)
            raise

    # -- segments --------------------------------------------------------------------------
    def send(self, segment: MotionSegment) -> None:
        """Start ``segment`` on the robot; its end is reported when the robot's call returns."""
        self._service()  # raises while the robot is not connected
        flight = _Flight(segment, self._monotonic())
        with self._lock:
            older = [f for f in self._flights.values() if f.joints & flight.joints]
            for replaced in older:
                replaced.replaced = True
            unsent = self._drop_uncalled(older)  # replaced before they were sent
            older = [f for f in older if f not in unsent]
            waits = bool(older) or self._killing(flight.joints)
            kill: Optional[_Kill] = None
            if waits:
                flight.called, flight.waiting_for = False, older
                flight.timer = threading.Timer(HANDOVER_TIMEOUT, self._hand_over_late, (flight,))
                flight.timer.daemon = True
                self._flights[segment.segment_id] = flight
                if older:  # claimed now: an older one ending meanwhile cannot call this one
                    overlap = set().union(*(f.joints for f in older)) & flight.joints
                    kill = self._claim_kill([name for name in segment.names
                                             if name in overlap], older)
        for replaced in unsent:
            self._end(replaced, None)
        if not waits:
            motion, future = self._call("angleInterpolationBezier", segment.names,
                                        segment.times, segment.keys)
            self._report(segment.segment_id, STARTED, "")
            with self._lock:
                self._flights[segment.segment_id] = flight
            future.addCallback(lambda done: self._returned(motion, flight, done))
            return
        self._report(segment.segment_id, STARTED, "")
        flight.timer.start()
        try:
            self._kill(kill)
        except RuntimeError as error:  # the session went away meanwhile
            _LOG.warning("ALMotion.killTasksUsingResources: %s", error)
        self._make_ready_calls()

    def _killing(self, joints: Set[str]) -> bool:
        """A kill of some of ``joints`` is not answered yet (lock held)."""
        return any(kill & joints for kill in self._kills)

    def _hand_over_late(self, flight: _Flight) -> None:
        with self._lock:
            waiting = [str(f.segment.segment_id) for f in flight.waiting_for]
            killing = self._killing(flight.joints)
        if waiting or killing:
            _LOG.warning("motion segment %d: the robot did not end %s within %g s; sent anyway",
                         flight.segment.segment_id,
                         "segment(s) %s it replaces" % ", ".join(waiting) if waiting
                         else "the motion of its joints", HANDOVER_TIMEOUT)
        self._make_call(flight)

    def _make_ready_calls(self) -> None:
        """Make the calls of the waiting segments nothing holds back any more."""
        with self._lock:
            ready = [f for f in self._flights.values() if not f.called and not f.waiting_for
                     and not self._killing(f.joints)]
        for flight in ready:
            self._make_call(flight)

    def _make_call(self, flight: _Flight) -> None:
        """Make the robot call of a flight that waited (once; not if it ended meanwhile)."""
        segment = flight.segment
        with self._lock:
            if flight.called or self._flights.get(segment.segment_id) is not flight:
                return
            flight.called, flight.waiting_for = True, []
            if flight.timer is not None:
                flight.timer.cancel()
        flight.sent_at = self._monotonic()
        try:
            motion, future = self._call("angleInterpolationBezier", segment.names,
                                        segment.times, segment.keys)
        except Exception as error:  # noqa: BLE001 - the robot's refusal is the segment's end
            with self._lock:
                if not self._land(flight):
                    return
            self._end(flight, str(error) or type(error).__name__)
            return
        future.addCallback(lambda done: self._returned(motion, flight, done))

    def _land(self, flight: _Flight) -> bool:
        """Take ``flight`` out of those in flight (lock held); False when it is no longer
        there (already reported by :meth:`forget` or a stop)."""
        if self._flights.get(flight.segment.segment_id) is not flight:
            return False
        del self._flights[flight.segment.segment_id]
        self._all_ended.notify_all()
        return True

    def _returned(self, motion: Any, flight: _Flight, future: Any) -> None:
        """The segment's call returned (in a libqi thread)."""
        with self._lock:
            if not self._land(flight):
                return
            for waiting in self._flights.values():
                if flight in waiting.waiting_for:
                    waiting.waiting_for.remove(flight)
        error = None
        if future.hasError():
            self._drop_proxy(motion)
            error = robot_message(future.error())
        self._end(flight, error)
        self._make_ready_calls()

    def _end(self, flight: _Flight, error: Optional[str]) -> None:
        """Report the terminal status of a segment no longer in flight."""
        ran = self._monotonic() - flight.sent_at
        duration = flight.segment.duration
        if flight.stop_requested or flight.replaced:
            status, message = STOPPED, ""
        elif error is not None:
            status, message = FAILED, error
        elif ran < duration - max(INTERRUPTION_MARGIN, INTERRUPTION_RATIO * duration):
            status = FAILED
            message = "interrupted on the robot after %.2f s of its %.2f s" % (ran, duration)
        else:
            status, message = FINISHED, ""
        self._report(flight.segment.segment_id, status, message)
        if status == FAILED and flight.segment.on_failed is not None:
            flight.segment.on_failed(message)

    def _report(self, segment_id: int, status: str, message: str) -> None:
        if self._on_status is not None:
            self._on_status(segment_id, status, message)

    def stop(self, segment_id: int, spare: Collection[str] = ()) -> None:
        """Stop a segment in flight (unknown or ended segments are ignored).

        ``ALMotion.killTasksUsingResources`` (not waited for) of its joints, except those
        of segments sent after it and still in flight, and those in ``spare`` (moved by
        a newer segment sent another way): a goto sends the new segment before it stops
        the one it replaces, and the new one must keep moving (the robot ended the
        replaced task when the new one started).
        """
        with self._lock:
            flights = list(self._flights.values())
            flight = self._flights.get(segment_id)
            if flight is None:
                return
            flight.stop_requested = True
            newer = set(spare).union(*(f.joints for f in flights[flights.index(flight) + 1:]))
            unsent = self._drop_uncalled([flight])
            kill = None if unsent else self._claim_kill(
                [name for name in flight.segment.names if name not in newer], [flight])
        if unsent:
            self._end(flight, None)
            return
        self._kill(kill)

    def _drop_uncalled(self, flights: List[_Flight]) -> List[_Flight]:
        """Forget those of ``flights`` whose call is not made yet (lock held)."""
        unsent = [f for f in flights if not f.called]
        for flight in unsent:
            del self._flights[flight.segment.segment_id]
            if flight.timer is not None:
                flight.timer.cancel()
        if unsent:
            self._all_ended.notify_all()
        return unsent

    def stop_all(self) -> None:
        """Stop every segment in flight."""
        with self._lock:
            flights = list(self._flights.values())
            for flight in flights:
                flight.stop_requested = True
            unsent = self._drop_uncalled(flights)
            flights = [f for f in flights if f not in unsent]
            kill = self._claim_kill(
                list(dict.fromkeys(name for f in flights for name in f.segment.names)), flights)
        for flight in unsent:
            self._end(flight, None)
        self._kill(kill)

    def _claim_kill(self, joints: List[str], flights: List[_Flight], attempt: int = 1
                    ) -> Optional[_Kill]:
        """A kill of ``joints`` for ``flights``, to :meth:`_kill` once the lock (held) is
        released, None without joints.  Until it is answered, no segment using those
        joints is called: claimed in the same hold of the lock as the decision to kill,
        so that no segment can be called in between and then be ended by this kill."""
        if not joints:
            return None
        kill = _Kill(joints, flights, attempt)
        self._kills.append(kill.pending)
        return kill

    def _kill(self, kill: Optional[_Kill]) -> None:
        """Send ``kill`` (:meth:`_claim_kill`) to end the robot's tasks using its joints.

        The kill and the motion call it stops travel separately: a kill sent right after
        its segment can reach the robot before the task starts, and then stops nothing.
        So when the kill has returned and a segment it was for is still in flight, it is
        sent again (a few times, :data:`KILL_RETRY_DELAY` apart)."""
        if kill is None:
            return
        joints, flights, attempt, pending = kill.joints, kill.flights, kill.attempt, kill.pending
        try:
            _, future = self._call("killTasksUsingResources", joints)
        except Exception:
            self._kill_answered(pending)
            raise

        def returned(done: Any) -> None:
            self._kill_answered(pending)
            if done.hasError():
                _LOG.warning("ALMotion.killTasksUsingResources(%s): %s", joints,
                             robot_message(done.error()))
                return
            with self._lock:
                running = [flight for flight in flights
                           if self._flights.get(flight.segment.segment_id) is flight]
            if running and attempt < KILL_ATTEMPTS:
                retry = threading.Timer(KILL_RETRY_DELAY, self._retry_kill,
                                        (joints, running, attempt + 1))
                retry.daemon = True
                retry.start()
        future.addCallback(returned)

    def _kill_answered(self, pending: Set[str]) -> None:
        with self._lock:
            self._kills = [kill for kill in self._kills if kill is not pending]
        self._make_ready_calls()

    def _retry_kill(self, joints: List[str], flights: List[_Flight], attempt: int) -> None:
        with self._lock:
            running = [flight for flight in flights
                       if self._flights.get(flight.segment.segment_id) is flight]
            kill = self._claim_kill(joints, running, attempt) if running else None
        try:
            self._kill(kill)
        except RuntimeError as error:  # the session went away meanwhile
            _LOG.warning("ALMotion.killTasksUsingResources(%s): %s", joints, error)

    def forget(self, reason: str) -> None:
        """The connection is lost: end every segment in flight now (FAILED with ``reason``,
        or STOPPED when its stop was asked) and fetch ALMotion again next time."""
        with self._lock:
            flights = list(self._flights.values())
            self._flights.clear()
            self._kills = []
            self._motion = None
            self._all_ended.notify_all()
        for flight in flights:
            if flight.timer is not None:
                flight.timer.cancel()
            self._end(flight, reason)

    def wait_all_ended(self, timeout: float) -> bool:
        """Wait until no segment is in flight (every call answered); False on timeout."""
        with self._all_ended:
            return self._all_ended.wait_for(lambda: not self._flights, timeout)
