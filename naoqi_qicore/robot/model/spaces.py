"""NAOqi's spaces and effectors: where ``ALMotion.getPosition`` says a part of the robot is.

NAOqi places a part in one of three spaces: :data:`FRAME_TORSO` (the torso's frame),
:data:`FRAME_ROBOT` (on the ground under the robot: between NAO's feet, under Pepper's
base, X forward, Z up) and :data:`FRAME_WORLD` (where the robot frame was when the robot
started: the robot frame moved by its odometry, ``ALMotion.getRobotPosition``).  A part is
named by a chain (its effector: ``LArm`` the hand, ``LLeg`` the sole, ``Head`` and
``Torso``) or a joint (its frame).  :func:`part_pose` computes them from joint angles with
the kinematic model, and :func:`position_6d` gives NAOqi's ``[x, y, z, wx, wy, wz]``.
"""
from __future__ import annotations

import math
from typing import Dict, List, Mapping, Sequence

import numpy as np

from naoqi_qicore.robot.model.kinematics import (Pose, RobotModel, link_pose, rotation_rpy,
                                                 transform)

FRAME_TORSO = 0
FRAME_WORLD = 1
FRAME_ROBOT = 2
SPACES = (FRAME_TORSO, FRAME_WORLD, FRAME_ROBOT)
#: the link of each chain's effector (and of the torso)
EFFECTOR_LINKS: Dict[str, str] = {"Torso": "torso", "Head": "Head", "LArm": "l_gripper",
                                  "RArm": "r_gripper", "LLeg": "l_sole", "RLeg": "r_sole"}
#: what stands on the ground: NAO's soles, Pepper's base
GROUND_LINKS = {"nao": ("l_sole", "r_sole"), "pepper": ("base_footprint",)}


def part_link(model: RobotModel, name: str) -> str:
    """The link whose frame is the part ``name`` (a chain or a joint); KeyError when the
    robot has no such part."""
    link = EFFECTOR_LINKS.get(name)
    if link is None:
        link = model.joint(name).child
    if link not in model.links:
        raise KeyError(name)
    return link


def ground_frame(model: RobotModel, angles: Mapping[str, float]) -> np.ndarray:
    """The robot frame (:data:`FRAME_ROBOT`) in the base frame for joint ``angles``: on the
    plane of the lowest of what stands on the ground (NAO's soles, Pepper's base), under the
    middle of them, turned as that lowest one."""
    standing = [link_pose(model, link, angles) for link in GROUND_LINKS[model.robot]]
    lowest = min(standing, key=lambda pose: pose.position[2])
    middle = np.mean([pose.matrix[:3, 3] for pose in standing], axis=0)
    up = lowest.rotation[:, 2]
    # the middle brought down (or up) along the ground's normal onto the lowest one's plane
    middle = middle - up * float(np.dot(middle - lowest.matrix[:3, 3], up))
    return transform(lowest.rotation, middle)


def odometry_transform(odometry: Sequence[float]) -> np.ndarray:
    """The robot frame in the world frame for ``ALMotion.getRobotPosition``'s
    ``[x, y, theta]``."""
    x, y, theta = odometry
    return transform(rotation_rpy((0.0, 0.0, theta)), (x, y, 0.0))


def part_pose(model: RobotModel, angles: Mapping[str, float], name: str, space: int,
              odometry: Sequence[float] = (0.0, 0.0, 0.0)) -> np.ndarray:
    """The 4x4 pose of the part ``name`` in ``space`` for joint ``angles`` and the robot's
    ``odometry`` (``[x, y, theta]``, used by :data:`FRAME_WORLD`).  KeyError for an unknown
    part, ValueError for an unknown space."""
    if space not in SPACES:
        raise ValueError("space must be 0 (FRAME_TORSO), 1 (FRAME_WORLD) or 2 "
                         "(FRAME_ROBOT), got %r" % (space,))
    in_base = link_pose(model, part_link(model, name), angles).matrix
    if space == FRAME_TORSO:
        return np.linalg.inv(link_pose(model, "torso", angles).matrix) @ in_base
    in_robot = np.linalg.inv(ground_frame(model, angles)) @ in_base
    if space == FRAME_ROBOT:
        return in_robot
    return odometry_transform(odometry) @ in_robot


def position_6d(pose: np.ndarray) -> List[float]:
    """NAOqi's Position6D ``[x, y, z, wx, wy, wz]`` of a 4x4 pose (``wx, wy, wz``: roll,
    pitch and yaw about fixed axes)."""
    x, y, z = (float(v) for v in pose[:3, 3])
    roll, pitch, yaw = Pose(pose).rpy()
    return [x, y, z, roll, pitch, yaw]


def pose_from_6d(position: Sequence[float]) -> np.ndarray:
    """The 4x4 pose of NAOqi's Position6D ``[x, y, z, wx, wy, wz]``."""
    if len(position) != 6 or not all(math.isfinite(float(v)) for v in position):
        raise ValueError("a Position6D is 6 finite numbers, got %r" % (list(position),))
    x, y, z, roll, pitch, yaw = (float(v) for v in position)
    return transform(rotation_rpy((roll, pitch, yaw)), (x, y, z))
