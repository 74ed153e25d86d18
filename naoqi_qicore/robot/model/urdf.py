"""The URDF of NAO and Pepper (``robot_description``), for robot_state_publisher and RViz.

:func:`robot_description` writes the kinematic tree of
:mod:`~naoqi_qicore.robot.model.kinematics` as URDF: one ``<link>`` per link with the
simple shapes of :mod:`~naoqi_qicore.robot.model.body` as its visuals (a capsule is a
cylinder and two spheres: URDF has no capsule), one ``<joint>`` per joint, the moving ones
``revolute`` with NAOqi's names, axes and limits (NAO's RHipYawPitch ``<mimic>``\\ s
LHipYawPitch).  The text holds no ``": "`` nor ``" #"``, so that it passes unchanged
as a ``-p robot_description:="$(...)"`` command-line parameter.
"""
from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from typing import Iterable, Sequence

from naoqi_qicore.robot.model.body import COLORS, Shape, body_shapes, segment_rpy
from naoqi_qicore.robot.model.kinematics import Joint, RobotModel, robot_model


def number(value: float) -> str:
    """``value`` in plain decimal notation (no exponent, no ``-0``)."""
    text = ("%.6f" % value).rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def numbers(values: Iterable[float]) -> str:
    return " ".join(number(v) for v in values)


def _visual(link: ET.Element, geometry: str, attributes: dict, xyz: Sequence[float],
            rpy: Sequence[float], color: str) -> None:
    visual = ET.SubElement(link, "visual")
    ET.SubElement(visual, "origin", xyz=numbers(xyz), rpy=numbers(rpy))
    shape = ET.SubElement(ET.SubElement(visual, "geometry"), geometry)
    for name, value in attributes.items():
        shape.set(name, value)
    ET.SubElement(visual, "material", name=color)


def _add_shape(link: ET.Element, shape: Shape) -> None:
    if shape.kind == "box":
        _visual(link, "box", {"size": numbers(shape.size)}, shape.xyz, shape.rpy, shape.color)
    elif shape.kind == "sphere":
        _visual(link, "sphere", {"radius": number(shape.radius)}, shape.xyz, (0, 0, 0),
                shape.color)
    elif shape.kind == "cylinder":
        _visual(link, "cylinder", {"radius": number(shape.radius),
                                   "length": number(shape.length)},
                shape.xyz, shape.rpy, shape.color)
    elif shape.kind == "capsule":
        start, end = shape.xyz, shape.end
        middle = [(s + e) / 2.0 for s, e in zip(start, end)]
        length = math.dist(start, end)
        _visual(link, "cylinder", {"radius": number(shape.radius), "length": number(length)},
                middle, segment_rpy(start, end), shape.color)
        for point in (start, end):
            _visual(link, "sphere", {"radius": number(shape.radius)}, point, (0, 0, 0),
                    shape.color)
    else:
        raise ValueError("unknown shape kind %r" % shape.kind)


def _add_joint(robot: ET.Element, joint: Joint) -> None:
    element = ET.SubElement(robot, "joint", name=joint.name,
                            type="revolute" if joint.moving else "fixed")
    ET.SubElement(element, "parent", link=joint.parent)
    ET.SubElement(element, "child", link=joint.child)
    ET.SubElement(element, "origin", xyz=numbers(joint.xyz), rpy=numbers(joint.rpy))
    if joint.axis is not None and joint.limits is not None:
        ET.SubElement(element, "axis", xyz=numbers(joint.axis))
        low, high, velocity, effort = joint.limits
        ET.SubElement(element, "limit", lower=number(low), upper=number(high),
                      effort=number(effort), velocity=number(velocity))
    if joint.mimic is not None:
        ET.SubElement(element, "mimic", joint=joint.mimic, multiplier="1", offset="0")


def urdf_element(model: RobotModel) -> ET.Element:
    """The ``<robot>`` element of ``model``."""
    robot = ET.Element("robot", name=model.robot)
    for name, rgba in COLORS.items():
        ET.SubElement(ET.SubElement(robot, "material", name=name), "color", rgba=numbers(rgba))
    shapes = body_shapes(model.robot)
    for link_name in model.links:
        link = ET.SubElement(robot, "link", name=link_name)
        for shape in shapes.get(link_name, []):
            _add_shape(link, shape)
    for joint in model.joints:
        _add_joint(robot, joint)
    return robot


def robot_description(robot: str) -> str:
    """The URDF text of ``robot`` ("nao" or "pepper")."""
    element = urdf_element(robot_model(robot))
    ET.indent(element)
    return '<?xml version="1.0"?>\n' + ET.tostring(element, encoding="unicode") + "\n"

