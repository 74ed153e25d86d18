"""The robot as the live view's page draws it: NAO's or Pepper's kinematic tree and simple
shapes (:mod:`naoqi_qicore.robot.model`) as JSON, with where its eye and chest LEDs are.

The page places each link by its joints (``xyz`` and ``rpy`` from the parent link, then
the joint's angle about ``axis``; a ``mimic`` joint copies its leader's angle) and draws
the link's shapes in its frame; the LEDs are discs lit with the colours the robot reports.
"""
from dataclasses import asdict
from typing import Any, Dict, List, Optional

from naoqi_qicore.robot.model import robot_model
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


def robot_figure(robot: str) -> Dict[str, Any]:
    """What the page needs to draw ``robot`` ("nao" or "pepper"): its joints in tree order,
    each link's shapes, the shapes' colours (r, g, b, a from 0 to 1) and its LEDs
    (``lights``: ``eyes`` and ``chest``, each a link, places in its frame and a radius, or
    None when the figure has none there).  ValueError for another robot."""
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
    }
