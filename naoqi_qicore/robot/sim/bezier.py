"""Cubic Bezier joint curves as ``ALMotion.angleInterpolationBezier`` evaluates them.

A key is ``[angle, left_handle, right_handle]`` and a handle is ``[type, dTime, dAngle]``
(seconds and radians, relative to the key; the type is not used by the maths).  Between
key ``j`` at ``times[j]`` and key ``j+1`` the curve is the cubic Bezier with control points

    P0 = key j,  P1 = key j + right handle j,  P2 = key j+1 + left handle j+1,  P3 = key j+1

in the (time, angle) plane.  A time is turned into the curve parameter by bisection on the
time polynomial, then the angle polynomial is evaluated.  Handles reaching past the
neighbour key in time are shortened (direction kept) so each segment stays a function of
time.  The motion starts at time 0 from the joint's current angle with a flat handle.

Pure Python, no qi: the engine and tests may use it too.
"""
from __future__ import annotations

import bisect
from typing import List, Sequence, Tuple

Point = Tuple[float, float]

_BISECTION_STEPS = 48


def _cubic(p0: float, p1: float, p2: float, p3: float, u: float) -> float:
    v = 1.0 - u
    return v * v * v * p0 + 3.0 * v * v * u * p1 + 3.0 * v * u * u * p2 + u * u * u * p3


def _clip_handle(d_time: float, d_angle: float, max_time: float) -> Point:
    """Shorten a handle (keeping its direction) so that ``|d_time| <= max_time``."""
    if abs(d_time) <= max_time:
        return d_time, d_angle
    scale = max_time / abs(d_time)
    return d_time * scale, d_angle * scale


def segment_control_points(t0: float, a0: float, right: Sequence[float],
                           t1: float, a1: float, left: Sequence[float]) -> Tuple[Point, ...]:
    """The four (time, angle) control points from key (t0, a0) to key (t1, a1).

    ``right`` is the first key's right handle, ``left`` the second key's left handle, both
    ``[type, dTime, dAngle]``; a right handle going back in time or a left handle going
    forward is ignored (zero handle).
    """
    span = t1 - t0
    rt, ra = (_clip_handle(float(right[1]), float(right[2]), span)
              if float(right[1]) > 0.0 else (0.0, 0.0))
    lt, la = (_clip_handle(float(left[1]), float(left[2]), span)
              if float(left[1]) < 0.0 else (0.0, 0.0))
    return (t0, a0), (t0 + rt, a0 + ra), (t1 + lt, a1 + la), (t1, a1)


def evaluate_segment(points: Sequence[Point], t: float) -> float:
    """Angle of the Bezier segment ``points`` at time ``t`` (clamped to the segment)."""
    (t0, a0), (t1, a1), (t2, a2), (t3, a3) = points
    if t <= t0:
        return a0
    if t >= t3:
        return a3
    low, high = 0.0, 1.0
    for _ in range(_BISECTION_STEPS):
        mid = 0.5 * (low + high)
        if _cubic(t0, t1, t2, t3, mid) < t:
            low = mid
        else:
            high = mid
    return _cubic(a0, a1, a2, a3, 0.5 * (low + high))


class BezierCurve:
    """One joint's curve: ``times`` (s, increasing, > 0) and NAOqi Bezier ``keys``,
    started at time 0 from ``start_angle``."""

    def __init__(self, times: Sequence[float], keys: Sequence[Sequence], start_angle: float) -> None:
        if not times or len(times) != len(keys):
            raise ValueError("need as many times as keys, and at least one (got %d times, "
                             "%d keys)" % (len(times), len(keys)))
        self.times: List[float] = [float(t) for t in times]
        if self.times[0] < 0.0 or any(b <= a for a, b in zip(self.times, self.times[1:])):
            raise ValueError("times must be >= 0 and strictly increasing: %s" % self.times)
        for key in keys:
            if len(key) != 3 or len(key[1]) != 3 or len(key[2]) != 3:
                raise ValueError("a key is [angle, [type, dTime, dAngle], [type, dTime, "
                                 "dAngle]], got %r" % (key,))
        self.angles: List[float] = [float(key[0]) for key in keys]
        flat = (0, 0.0, 0.0)
        self._segments: List[Tuple[Point, ...]] = []
        if self.times[0] > 0.0:
            self._segments.append(segment_control_points(
                0.0, float(start_angle), flat, self.times[0], self.angles[0], keys[0][1]))
        for j in range(len(keys) - 1):
            self._segments.append(segment_control_points(
                self.times[j], self.angles[j], keys[j][2],
                self.times[j + 1], self.angles[j + 1], keys[j + 1][1]))
        self._starts = [segment[0][0] for segment in self._segments]

    @property
    def duration(self) -> float:
        """Time of the last key."""
        return self.times[-1]

    @property
    def final_angle(self) -> float:
        """Angle of the last key."""
        return self.angles[-1]

    def angle_at(self, t: float) -> float:
        """Angle at ``t`` seconds from the start (the last key's angle after the end)."""
        if t >= self.duration or not self._segments:
            return self.final_angle
        index = max(0, bisect.bisect_right(self._starts, t) - 1)
        return evaluate_segment(self._segments[index], t)


def auto_keys(times: Sequence[float], angles: Sequence[float]) -> List[list]:
    """Keys with automatic smooth tangents through ``(times[j], angles[j])``.

    The rule of Choregraphe's automatic Bezier tangents: a key strictly between its
    neighbours' angles gets the neighbours' slope, clipped so that it does not overshoot;
    other keys (ends and extrema) get a flat tangent.  Handles are a third of the distance
    to the neighbour in time (the first key's left neighbour is time 0).
    """
    alpha = 1.0 / 3.0
    keys = []
    count = len(times)
    for j, (t, angle) in enumerate(zip(times, angles)):
        t_left, a_left = (times[j - 1], angles[j - 1]) if j > 0 else (0.0, angle)
        t_right, a_right = (times[j + 1], angles[j + 1]) if j + 1 < count else (t, angle)
        slope = 0.0
        if min(a_left, a_right) < angle < max(a_left, a_right) and t_right > t_left:
            slope = (a_right - a_left) / (t_right - t_left)
            if t_right > t and abs(alpha * (t_right - t) * slope) > abs(a_right - angle):
                slope = (a_right - angle) / (alpha * (t_right - t))
            if t > t_left and abs(alpha * (t - t_left) * slope) > abs(angle - a_left):
                slope = (angle - a_left) / (alpha * (t - t_left))
        left_dt = -alpha * (t - t_left)
        right_dt = alpha * (t_right - t)
        keys.append([float(angle), [3, left_dt, left_dt * slope], [3, right_dt, right_dt * slope]])
    return keys
