"""What NAO and Pepper look like, in simple shapes of their proportions.

Each link of :mod:`~naoqi_qicore.robot.model.kinematics` gets a few :class:`Shape`\\ s
(boxes, spheres, cylinders and capsules) placed in its own frame.  They are drawn from
the robots' published sizes (NAO is 574 mm tall, Pepper 1210 mm), not from the official
meshes.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, List, Tuple

from naoqi_qicore.robot.model.kinematics import NAO_LENGTHS, PEPPER_LENGTHS, ZERO, Vector

#: colours (r, g, b, a) by name
COLORS: Dict[str, Tuple[float, float, float, float]] = {
    "shell": (0.93, 0.93, 0.93, 1.0),
    "joint": (0.45, 0.47, 0.5, 1.0),
    "dark": (0.16, 0.17, 0.19, 1.0),
    "screen": (0.08, 0.1, 0.14, 1.0),
}


@dataclass(frozen=True)
class Shape:
    """One piece of a link's look, in the link's frame.

    ``box``: ``size`` (x, y, z) centred on ``xyz``, turned by ``rpy``; ``sphere``:
    ``radius`` around ``xyz``; ``cylinder``: ``radius`` and ``length`` along its Z axis,
    centred on ``xyz``, turned by ``rpy``; ``capsule``: ``radius`` around the segment from
    ``xyz`` to ``end``.
    """

    kind: str
    color: str
    xyz: Vector = ZERO
    rpy: Vector = ZERO
    size: Vector = ZERO
    radius: float = 0.0
    length: float = 0.0
    end: Vector = ZERO


def box(size: Vector, xyz: Vector = ZERO, color: str = "shell", rpy: Vector = ZERO) -> Shape:
    return Shape("box", color, xyz, rpy, size=size)


def sphere(radius: float, xyz: Vector = ZERO, color: str = "shell") -> Shape:
    return Shape("sphere", color, xyz, radius=radius)


def cylinder(radius: float, length: float, xyz: Vector = ZERO, color: str = "shell",
             rpy: Vector = ZERO) -> Shape:
    return Shape("cylinder", color, xyz, rpy, radius=radius, length=length)


def capsule(radius: float, start: Vector, end: Vector, color: str = "shell") -> Shape:
    return Shape("capsule", color, start, radius=radius, end=end)


def segment_rpy(start: Vector, end: Vector) -> Vector:
    """The URDF ``rpy`` turning a Z axis along the segment from ``start`` to ``end``."""
    dx, dy, dz = (e - s for s, e in zip(start, end))
    return 0.0, math.atan2(math.hypot(dx, dy), dz), math.atan2(dy, dx)


def _mirror(shapes: List[Shape]) -> List[Shape]:
    """The same shapes on the other side (Y negated)."""
    def flip(v: Vector) -> Vector:
        return v[0], -v[1], v[2]
    return [Shape(s.kind, s.color, flip(s.xyz), (-s.rpy[0], s.rpy[1], -s.rpy[2]), s.size,
                  s.radius, s.length, flip(s.end)) for s in shapes]


def _sides(left: Dict[str, List[Shape]]) -> Dict[str, List[Shape]]:
    """``left``'s links and their right twins (``LBicep`` -> ``RBicep``, ``l_wrist`` ->
    ``r_wrist``)."""
    both = dict(left)
    for link, shapes in left.items():
        right = "R" + link[1:] if link.startswith("L") else "r" + link[1:]
        both[right] = _mirror(shapes)
    return both


def _nao() -> Dict[str, List[Shape]]:
    lengths = NAO_LENGTHS
    upper = (lengths["UpperArmLength"], lengths["ElbowOffsetY"], 0.0)
    hand = (lengths["HandOffsetX"], 0.0, -lengths["HandOffsetZ"])
    body = {
        "torso": [box((0.085, 0.13, 0.17), (-0.005, 0.0, 0.02)),
                  cylinder(0.05, 0.03, (0.0, 0.0, -0.075), "joint", (math.pi / 2, 0.0, 0.0))],
        "Neck": [cylinder(0.018, 0.03, (0.0, 0.0, -0.012), "joint")],
        "Head": [sphere(0.062, (0.0, 0.0, 0.058)),
                 box((0.02, 0.11, 0.045), (0.05, 0.0, 0.065), "dark")],
    }
    body.update(_sides({
        "LShoulder": [sphere(0.026, color="joint")],
        "LBicep": [capsule(0.023, ZERO, upper)],
        "LElbow": [sphere(0.02, color="joint")],
        "LForeArm": [capsule(0.021, ZERO, (lengths["LowerArmLength"], 0.0, 0.0))],
        "l_wrist": [capsule(0.019, (0.01, 0.0, 0.0), hand, "shell")],
        "LThigh": [capsule(0.031, ZERO, (0.0, 0.0, -lengths["ThighLength"]))],
        "LTibia": [capsule(0.029, ZERO, (0.0, 0.0, -lengths["TibiaLength"]))],
        "l_ankle": [box((0.16, 0.088, 0.022), (0.02, 0.0, 0.011 - lengths["FootHeight"])),
                    box((0.06, 0.06, 0.035), (0.0, 0.0, -0.018), "joint")],
    }))
    return body


def _pepper() -> Dict[str, List[Shape]]:
    lengths = PEPPER_LENGTHS
    upper = (lengths["UpperArmLength"], lengths["ElbowOffsetY"], lengths["ElbowOffsetZ"])
    body = {
        "torso": [capsule(0.1, (-0.03, 0.0, -0.1), (-0.04, 0.0, 0.06)),
                  box((0.012, 0.25, 0.175), (0.075, 0.0, -0.05), "screen", (0.0, -0.12, 0.0))],
        "Neck": [cylinder(0.035, 0.05, (0.0, 0.0, -0.02), "joint")],
        "Head": [sphere(0.105, (0.0, 0.0, 0.105)),
                 box((0.02, 0.14, 0.05), (0.095, 0.0, 0.105), "dark")],
        "Pelvis": [capsule(0.085, ZERO, (0.0, 0.0, -lengths["ThighLength"]))],
        "Tibia": [capsule(0.11, ZERO, (0.0, 0.0, -0.16)),
                  cylinder(0.24, 0.12, (-0.01, 0.0, 0.06 - lengths["TibiaLength"])),
                  # the three wheels: front left, front right, back
                  sphere(0.07, (0.09, 0.155, 0.07 - lengths["TibiaLength"]), "dark"),
                  sphere(0.07, (0.09, -0.155, 0.07 - lengths["TibiaLength"]), "dark"),
                  sphere(0.07, (-0.17, 0.0, 0.07 - lengths["TibiaLength"]), "dark")],
    }
    body.update(_sides({
        "LShoulder": [sphere(0.05, color="joint")],
        "LBicep": [capsule(0.045, ZERO, upper)],
        "LElbow": [sphere(0.04, color="joint")],
        "LForeArm": [capsule(0.036, ZERO, (lengths["LowerArmLength"], 0.0, 0.0))],
        "l_wrist": [capsule(0.03, ZERO, (lengths["HandOffsetX"] + 0.05, 0.0, -0.01))],
    }))
    return body


def body_shapes(robot: str) -> Dict[str, List[Shape]]:
    """Link name -> its shapes, for ``robot`` ("nao" or "pepper")."""
    if robot not in ("nao", "pepper"):
        raise ValueError("robot must be nao or pepper, got %r" % (robot,))
    return _nao() if robot == "nao" else _pepper()
