"""The robot as the live view's page draws it: NAO's or Pepper's kinematic tree and simple
shapes (:mod:`naoqi_qicore.robot.model`) as JSON, with where its eye and chest LEDs are.

The page places each link by its joints (``xyz`` and ``rpy`` from the parent link, then
the joint's angle about ``axis``; a ``mimic`` joint copies its leader's angle) and draws
the link's shapes in its frame; the LEDs are discs lit with the colours the robot reports.
Its camera frames the sphere ``reach``, which holds the robot in every pose (arms raised
too), so that no move leaves the picture.
"""
import functools
import math
from dataclasses import asdict
from typing import Any, Dict, List, Optional, Sequence

from naoqi_qicore.robot.model import forward_kinematics, robot_model
from naoqi_qicore.robot.model.body import COLORS, Shape, body_shapes

#: the link holding the eyes, and the colour of the shape they are set in (the visor)
EYES_LINK = "Head"
VISOR_COLOR = "dark"
#: the link holding the chest button, set in the front of its first box of shell colour
CHEST_LINK = "torso"
CHEST_COLOR = "shell"
#: radius of the chest button (m)
CHEST_RADIUS = 0.012


def _first_box(shapes: List[Shape], color: str) -> Optional[Shape]:
    return next((shape for shape in shapes if shape.kind == "box" and shape.color == color),
                None)


def _eyes(shapes: List[Shape]) -> Optional[Dict[str, Any]]:
    """Two discs on the front of the visor, a quarter of its width from the middle."""
    visor = _first_box(shapes, VISOR_COLOR)
    if visor is None:
        return None
    x, y, z = visor.xyz
    front = x + visor.size[0] / 2
    side = visor.size[1] / 4
    return {"link": EYES_LINK, "places": [[front, y + side, z], [front, y - side, z]],
            "radius": visor.size[2] * 0.35}


def _chest(shapes: List[Shape]) -> Optional[Dict[str, Any]]:
    """A disc on the front of the torso's box, above its middle."""
    body = _first_box(shapes, CHEST_COLOR)
    if body is None:
        return None
    x, y, z = body.xyz
    return {"link": CHEST_LINK, "places": [[x + body.size[0] / 2, y, z + body.size[2] / 4]],
            "radius": CHEST_RADIUS}


def _length(vector: Sequence[float]) -> float:
    return math.sqrt(sum(value * value for value in vector))


def shape_reach(shape: Shape) -> float:
    """How far from its link's origin any point of ``shape`` lies, at most (m)."""
    if shape.kind == "box":
        return _length(shape.xyz) + _length(shape.size) / 2
    if shape.kind == "cylinder":
        return _length(shape.xyz) + math.hypot(shape.length / 2, shape.radius)
    if shape.kind == "capsule":
        return max(_length(shape.xyz), _length(shape.end)) + shape.radius
    return _length(shape.xyz) + shape.radius  # a sphere


@functools.lru_cache(maxsize=None)
def reach_sphere(robot: str) -> Dict[str, Any]:
    """A sphere holding ``robot``'s shapes in every pose its joints allow: ``centre`` (m,
    in the root link's frame) and ``radius`` (m).

    A link lies within reach of the first moving joint of its chain from the root, which
    stays where it is whatever the angles (the root does not move): in a ball round that
    joint of the lengths between the joints below it plus how far the link's shapes reach
    (a link that no joint moves: round its origin).  The sphere holds these balls.
    """
    model = robot_model(robot)
    origins = {link: pose.position for link, pose in forward_kinematics(model, {}).items()}
    balls = []
    for link, shapes in body_shapes(robot).items():
        chain = model.chain(link)
        first = next((index for index, joint in enumerate(chain) if joint.moving), len(chain))
        pivot = chain[first].child if first < len(chain) else link
        below = sum(_length(joint.xyz) for joint in chain[first + 1:])
        balls.append((origins[pivot], below + max(shape_reach(shape) for shape in shapes)))
    centre = [(min(c[axis] - r for c, r in balls) + max(c[axis] + r for c, r in balls)) / 2
              for axis in range(3)]
    radius = max(_length([c[axis] - centre[axis] for axis in range(3)]) + r for c, r in balls)
    return {"centre": centre, "radius": radius}


def robot_figure(robot: str) -> Dict[str, Any]:
    """What the page needs to draw ``robot`` ("nao" or "pepper"): its joints in tree order,
    each link's shapes, the shapes' colours (r, g, b, a from 0 to 1) and its LEDs
    (``lights``: ``eyes`` and ``chest``, each a link, places in its frame and a radius, or
    None when the figure has none there) and the sphere its camera frames (``reach``:
    :func:`reach_sphere`).  ValueError for another robot."""
    model = robot_model(robot)
    shapes = body_shapes(robot)
    return {
        "robot": robot,
        "root": model.root,
        "joints": [{"name": joint.name, "parent": joint.parent, "child": joint.child,
                    "xyz": list(joint.xyz), "rpy": list(joint.rpy),
                    "axis": list(joint.axis) if joint.axis is not None else None,
                    "mimic": joint.mimic} for joint in model.ordered_joints()],
        "shapes": {link: [asdict(shape) for shape in link_shapes]
                   for link, link_shapes in shapes.items()},
        "colors": {name: list(rgba) for name, rgba in COLORS.items()},
        "lights": {"eyes": _eyes(shapes.get(EYES_LINK, [])),
                   "chest": _chest(shapes.get(CHEST_LINK, []))},
        "reach": reach_sphere(robot),
    }
