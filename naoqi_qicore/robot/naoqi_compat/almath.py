"""The part of Aldebaran's ``almath`` that box scripts use, in plain Python.

Constants ``PI``, ``PI_2``, ``TO_RAD``, ``TO_DEG``; ``modulo2PI``, ``clipData``;
``Pose2D`` (x, y, theta: composition with ``*``, ``inverse``, ``diff``, ``distance``,
``norm``, ``toVector``), ``Position2D``, ``Position3D``, ``Position6D`` and ``Transform``
(3x4 homogeneous matrix: ``*``, ``inverse``, ``toVector``, ``from_*`` helpers), and the
conversions ``transformFromPose2D``, ``pose2DFromTransform``,
``transformFromPosition6D``, ``position6DFromTransform``.
"""
from __future__ import annotations

import math
from typing import Iterable, List, Sequence

PI = math.pi
PI_2 = math.pi / 2
TO_RAD = math.pi / 180.0
TO_DEG = 180.0 / math.pi


def modulo2PI(angle: float) -> float:  # noqa: N802 (almath name)
    """``angle`` brought into ]-π, π]."""
    wrapped = math.fmod(angle + PI, 2 * PI)
    if wrapped <= 0:
        wrapped += 2 * PI
    return wrapped - PI


def clipData(low: float, high: float, value: float) -> float:  # noqa: N802
    return min(max(value, low), high)


def _values(args: Sequence, count: int, kind: str) -> List[float]:
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    if len(args) == 0:
        return [0.0] * count
    if len(args) == 1:
        return [float(args[0])] * count
    if len(args) != count:
        raise TypeError("%s takes %d values, got %d" % (kind, count, len(args)))
    return [float(a) for a in args]


class _Vector:
    _fields: tuple = ()

    def __init__(self, *args: float) -> None:
        for name, value in zip(self._fields, _values(args, len(self._fields), type(self).__name__)):
            setattr(self, name, value)

    def toVector(self) -> List[float]:  # noqa: N802
        return [getattr(self, name) for name in self._fields]

    def _with(self, values: Iterable[float]):
        return type(self)(list(values))

    def __add__(self, other):
        return self._with(a + b for a, b in zip(self.toVector(), other.toVector()))

    def __sub__(self, other):
        return self._with(a - b for a, b in zip(self.toVector(), other.toVector()))

    def __neg__(self):
        return self._with(-a for a in self.toVector())

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and all(
            abs(a - b) < 1e-4 for a, b in zip(self.toVector(), other.toVector()))

    def isNear(self, other, epsilon: float = 1e-4) -> bool:  # noqa: N802
        return all(abs(a - b) < epsilon for a, b in zip(self.toVector(), other.toVector()))

    def norm(self) -> float:
        return math.sqrt(sum(v * v for v in self.toVector()[:3]))

    def __repr__(self) -> str:
        return "%s(%s)" % (type(self).__name__, ", ".join("%s=%.6g" % (n, getattr(self, n))
                                                         for n in self._fields))


class Position2D(_Vector):
    _fields = ("x", "y")

    def __mul__(self, factor: float) -> "Position2D":
        return Position2D(self.x * factor, self.y * factor)

    def distance(self, other: "Position2D") -> float:
        return math.hypot(self.x - other.x, self.y - other.y)


class Position3D(_Vector):
    _fields = ("x", "y", "z")

    def __mul__(self, factor: float) -> "Position3D":
        return Position3D(self.x * factor, self.y * factor, self.z * factor)

    def distance(self, other: "Position3D") -> float:
        return (self - other).norm()


class Position6D(_Vector):
    _fields = ("x", "y", "z", "wx", "wy", "wz")


class Pose2D(_Vector):
    """A planar pose: position (m) and heading ``theta`` (rad)."""

    _fields = ("x", "y", "theta")

    def __mul__(self, other: "Pose2D") -> "Pose2D":
        """Compose: ``other`` expressed in this pose's frame."""
        cos, sin = math.cos(self.theta), math.sin(self.theta)
        return Pose2D(self.x + cos * other.x - sin * other.y,
                      self.y + sin * other.x + cos * other.y,
                      self.theta + other.theta)

    def inverse(self) -> "Pose2D":
        cos, sin = math.cos(self.theta), math.sin(self.theta)
        return Pose2D(-cos * self.x - sin * self.y, sin * self.x - cos * self.y, -self.theta)

    def diff(self, other: "Pose2D") -> "Pose2D":
        """The pose taking ``self`` to ``other`` (``self.inverse() * other``)."""
        return self.inverse() * other

    def distance(self, other: "Pose2D") -> float:
        return math.hypot(self.x - other.x, self.y - other.y)

    def norm(self) -> float:
        return math.hypot(self.x, self.y)

    def getAngle(self) -> float:  # noqa: N802
        return math.atan2(self.y, self.x)


class Transform:
    """A rigid transform: rotation ``r1_c1..r3_c3`` and translation ``r1_c4..r3_c4``."""

    def __init__(self, *args: float) -> None:
        if len(args) == 1 and isinstance(args[0], (list, tuple)):
            args = tuple(args[0])
        if len(args) == 3:  # translation only
            values = [1.0, 0.0, 0.0, args[0], 0.0, 1.0, 0.0, args[1], 0.0, 0.0, 1.0, args[2]]
        elif len(args) in (12, 16):
            values = [float(v) for v in args[:12]]
        elif not args:
            values = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0]
        else:
            raise TypeError("Transform takes 0, 3, 12 or 16 values, got %d" % len(args))
        self._m = values

    def __getattr__(self, name: str) -> float:
        if len(name) == 5 and name[0] == "r" and name[2:4] == "_c":
            row, column = int(name[1]) - 1, int(name[4]) - 1
            if 0 <= row < 3 and 0 <= column < 4:
                return self._m[row * 4 + column]
        raise AttributeError(name)

    def __setattr__(self, name: str, value: float) -> None:
        if len(name) == 5 and name[0] == "r" and name[2:4] == "_c":
            self._m[(int(name[1]) - 1) * 4 + int(name[4]) - 1] = float(value)
        else:
            object.__setattr__(self, name, value)

    def _cell(self, row: int, column: int) -> float:
        return self._m[row * 4 + column]

    def __mul__(self, other: "Transform") -> "Transform":
        result = []
        for row in range(3):
            for column in range(4):
                value = sum(self._cell(row, k) * other._cell(k, column) for k in range(3))
                if column == 3:
                    value += self._cell(row, 3)
                result.append(value)
        return Transform(result)

    def inverse(self) -> "Transform":
        rotation_t = [[self._cell(c, r) for c in range(3)] for r in range(3)]
        translation = [-sum(rotation_t[r][k] * self._cell(k, 3) for k in range(3))
                       for r in range(3)]
        return Transform([v for r in range(3) for v in rotation_t[r] + [translation[r]]])

    def toVector(self) -> List[float]:  # noqa: N802
        return list(self._m) + [0.0, 0.0, 0.0, 1.0]

    def determinant(self) -> float:
        m = self._cell
        return (m(0, 0) * (m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1))
                - m(0, 1) * (m(1, 0) * m(2, 2) - m(1, 2) * m(2, 0))
                + m(0, 2) * (m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0)))

    @staticmethod
    def fromPosition(x: float, y: float, z: float, wx: float = 0.0, wy: float = 0.0,  # noqa: N802
                     wz: float = 0.0) -> "Transform":
        return transformFromPosition6D(Position6D(x, y, z, wx, wy, wz))

    @staticmethod
    def from3DRotation(wx: float, wy: float, wz: float) -> "Transform":  # noqa: N802
        return transformFromPosition6D(Position6D(0, 0, 0, wx, wy, wz))

    @staticmethod
    def fromRotZ(angle: float) -> "Transform":  # noqa: N802
        return transformFromPosition6D(Position6D(0, 0, 0, 0, 0, angle))

    def __repr__(self) -> str:
        return "Transform(%s)" % ", ".join("%.6g" % v for v in self._m)


def transformFromPosition6D(position: Position6D) -> Transform:  # noqa: N802
    """Rotation ``Rz(wz) * Ry(wy) * Rx(wx)`` then translation (almath's convention)."""
    cx, sx = math.cos(position.wx), math.sin(position.wx)
    cy, sy = math.cos(position.wy), math.sin(position.wy)
    cz, sz = math.cos(position.wz), math.sin(position.wz)
    return Transform([cz * cy, cz * sy * sx - sz * cx, cz * sy * cx + sz * sx, position.x,
                      sz * cy, sz * sy * sx + cz * cx, sz * sy * cx - cz * sx, position.y,
                      -sy, cy * sx, cy * cx, position.z])


def position6DFromTransform(transform: Transform) -> Position6D:  # noqa: N802
    wy = math.atan2(-transform.r3_c1, math.hypot(transform.r1_c1, transform.r2_c1))
    wz = math.atan2(transform.r2_c1, transform.r1_c1)
    wx = math.atan2(transform.r3_c2, transform.r3_c3)
    return Position6D(transform.r1_c4, transform.r2_c4, transform.r3_c4, wx, wy, wz)


def transformFromPose2D(pose: Pose2D) -> Transform:  # noqa: N802
    return transformFromPosition6D(Position6D(pose.x, pose.y, 0.0, 0.0, 0.0, pose.theta))


def pose2DFromTransform(transform: Transform) -> Pose2D:  # noqa: N802
    return Pose2D(transform.r1_c4, transform.r2_c4, math.atan2(transform.r2_c1, transform.r1_c1))
