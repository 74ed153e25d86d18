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
"""
from __future__ import annotations

import math
import logging
import threading
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

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
    """One ``angleInterpolationBezier`` command: ``(names, times, keys)``."""

    segment_id: int
    names: List[str]
    times: List[List[float]]
    keys: List[List[list]]


class MotionSink(Protocol):
    """Where a timeline's motion goes."""

    def send(self, segment: MotionSegment) -> None: ...

    def stop(self, segment_id: int) -> None: ...


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
        self._curves = [(curve.actuator, curve_scale(curve), curve_control_points(curve))
                        for curve in curves if not curve.mute and curve.keys]

    def __bool__(self) -> bool:
        return bool(self._curves)

    @property
    def last_frame(self) -> int:
        """The frame of the last key over all curves (0 without curves)."""
        return max((points[-1][0] for _, _, points in self._curves), default=0)

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


class ALMotionSink:
    """Sends segments to ALMotion on a qi session (``pCall`` + ``stop(taskId)``).

    ``session`` is anything with ``service(name)``; calls are made with ``_async=True`` so
    that a slow robot never holds the timeline's frame clock; a segment stopped before
    its task id arrived is stopped as soon as it does.  The ALMotion proxy is fetched
    again after a failure (e.g. after a reconnection).  While a session that tells
    (``isConnected()``) is not connected, calls fail with RuntimeError without touching
    the proxy: libqi crashes the process when a proxy of a closed session is called, and
    a box stuck past its stop may keep a timeline running after its owner closed it.
    """

    def __init__(self, session: Any) -> None:
        self._session = session
        self._lock = threading.Lock()
        self._motion: Any = None
        #: segment id -> qi future of its task id
        self._tasks: Dict[int, Any] = {}

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

    def send(self, segment: MotionSegment) -> None:
        """Start the segment in the background on the robot."""
        try:
            future = self._service().pCall("angleInterpolationBezier", segment.names,
                                           segment.times, segment.keys, _async=True)
        except Exception:
            with self._lock:
                self._motion = None
            raise
        with self._lock:
            self._tasks[segment.segment_id] = future
        future.addCallback(lambda done: self._report(segment.segment_id, done))

    def _report(self, segment_id: int, future: Any) -> None:
        if future.hasError():
            _LOG.warning("ALMotion.angleInterpolationBezier (segment %d): %s",
                         segment_id, future.error())

    def stop(self, segment_id: int) -> None:
        """Stop a segment still moving (unknown or finished segments are ignored)."""
        with self._lock:
            future = self._tasks.pop(segment_id, None)
        if future is None:
            return
        motion = self._service()

        def stop_task(done: Any) -> None:
            if done.hasValue():
                try:
                    if not self._connected():
                        raise RuntimeError("the robot session is not connected")
                    motion.stop(int(done.value()), _async=True)
                except Exception as error:  # the robot may be gone: nothing to stop
                    _LOG.warning("ALMotion.stop (segment %d): %s", segment_id, error)
        future.addCallback(stop_task)
