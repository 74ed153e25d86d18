"""NAO's and Pepper's kinematic trees, from their published link lengths and joint axes.

A :class:`RobotModel` is a tree of links joined by joints: each joint places its child
link in its parent's frame (``xyz`` in m, ``rpy`` in rad, the URDF convention) and, when it
moves, turns it about ``axis`` by the joint's angle.  Joint names, limits and coupling are
NAOqi's (:mod:`naoqi_qicore.robot.sim.joints`); link names are those of the robots' ROS
descriptions (``torso``, ``LBicep``, ``l_wrist``, ``l_sole``...), so that frames and tools
made for those descriptions fit.  All joint frames have the same orientation at the zero
pose (X forward, Y to the robot's left, Z up), as in the NAOqi documentation.

NAO (H25 V4/V5/V6) lengths are those of the NAOqi documentation's *Links* tables (mm there,
m here); Pepper's those of the robot's own URDF (as naoqi_driver2 ships it).

:func:`forward_kinematics` gives the pose of every link frame in the base frame for a dict
of joint angles.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from naoqi_qicore.robot.sim.joints import JointTable, Limits

Vector = Tuple[float, float, float]
ZERO: Vector = (0.0, 0.0, 0.0)
X_AXIS: Vector = (1.0, 0.0, 0.0)
Y_AXIS: Vector = (0.0, 1.0, 0.0)
Z_AXIS: Vector = (0.0, 0.0, 1.0)
#: the root link; ``torso`` hangs from it with no offset (as in the robots' descriptions)
BASE_LINK = "base_link"

#: NAO H25 V4/V5/V6 link lengths (m), named as in the NAOqi documentation
NAO_LENGTHS: Dict[str, float] = {
    "NeckOffsetZ": 0.1265,
    "ShoulderOffsetY": 0.098,
    "ShoulderOffsetZ": 0.100,
    "UpperArmLength": 0.105,
    "ElbowOffsetY": 0.015,
    "LowerArmLength": 0.05595,
    "HandOffsetX": 0.05775,
    "HandOffsetZ": 0.01231,
    "HipOffsetZ": 0.085,
    "HipOffsetY": 0.050,
    "ThighLength": 0.100,
    "TibiaLength": 0.1029,
    "FootHeight": 0.04519,
}

#: Pepper link offsets (m) from the robot's own URDF
PEPPER_LENGTHS: Dict[str, float] = {
    "NeckOffsetX": -0.038,
    "NeckOffsetZ": 0.1699,
    "ShoulderOffsetX": -0.057,
    "ShoulderOffsetY": 0.14974,
    "ShoulderOffsetZ": 0.08682,
    "UpperArmLength": 0.1812,
    "ElbowOffsetY": 0.015,
    "ElbowOffsetZ": 0.00013,
    #: the forearm leaves the elbow pitched down by 9 degrees
    "ElbowPitch": -0.157079,
    "LowerArmLength": 0.150,
    "HandOffsetX": 0.025,
    "HipOffsetX": 0.00002,
    "HipOffsetZ": 0.139,
    "HipPitchOffsetZ": 0.079,
    "ThighLength": 0.268,
    "TibiaLength": 0.334,
}


@dataclass(frozen=True)
class Joint:
    """A joint placing ``child`` in ``parent``'s frame; ``axis`` None: a fixed joint."""

    name: str
    parent: str
    child: str
    xyz: Vector = ZERO
    rpy: Vector = ZERO
    axis: Optional[Vector] = None
    #: NAOqi's ``(min, max, max velocity, max torque)`` of a moving joint
    limits: Optional[Limits] = None
    #: the joint this one copies (NAO's RHipYawPitch follows LHipYawPitch)
    mimic: Optional[str] = None

    @property
    def moving(self) -> bool:
        return self.axis is not None


class RobotModel:
    """The kinematic tree of one robot (``nao`` or ``pepper``)."""

    def __init__(self, robot: str, joints: Sequence[Joint]) -> None:
        self.robot = robot
        self.joints: List[Joint] = list(joints)
        self.root = BASE_LINK
        children = {joint.child for joint in self.joints}
        self.links: List[str] = [self.root] + [joint.child for joint in self.joints]
        if self.root in children or len(set(self.links)) != len(self.links):
            raise ValueError("%s: every link but %s must have exactly one parent joint"
                             % (robot, self.root))
        known = set(self.links)
        for joint in self.joints:
            if joint.parent not in known:
                raise ValueError("%s: joint %s hangs from the unknown link %s"
                                 % (robot, joint.name, joint.parent))
        self._by_name = {joint.name: joint for joint in self.joints}
        self._by_child = {joint.child: joint for joint in self.joints}

    def joint(self, name: str) -> Joint:
        """The joint called ``name`` (KeyError when there is none)."""
        return self._by_name[name]

    def chain(self, link: str) -> List[Joint]:
        """The joints from the root down to ``link`` (KeyError for an unknown link)."""
        if link != self.root and link not in self._by_child:
            raise KeyError(link)
        joints: List[Joint] = []
        while link != self.root:
            joint = self._by_child[link]
            joints.append(joint)
            link = joint.parent
        return joints[::-1]

    @property
    def moving_joints(self) -> List[Joint]:
        """The joints NAOqi moves, in tree order."""
        return [joint for joint in self.joints if joint.moving]

    def ordered_joints(self) -> List[Joint]:
        """The joints, each after the joint of its parent link."""
        placed = {self.root}
        pending = list(self.joints)
        ordered: List[Joint] = []
        while pending:
            ready = [joint for joint in pending if joint.parent in placed]
            if not ready:
                raise ValueError("%s: links not connected to %s: %s" % (
                    self.robot, self.root, ", ".join(j.child for j in pending)))
            for joint in ready:
                ordered.append(joint)
                placed.add(joint.child)
                pending.remove(joint)
        return ordered


def rotation_rpy(rpy: Sequence[float]) -> np.ndarray:
    """The rotation of URDF's ``rpy``: roll about X, then pitch about Y, then yaw about Z
    (fixed axes)."""
    roll, pitch, yaw = rpy
    cr, sr, cp, sp, cy, sy = (math.cos(roll), math.sin(roll), math.cos(pitch),
                              math.sin(pitch), math.cos(yaw), math.sin(yaw))
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


def rotation_about(axis: Sequence[float], angle: float) -> np.ndarray:
    """The rotation by ``angle`` (rad) about the unit vector ``axis``."""
    x, y, z = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    cross = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
    return np.eye(3) + math.sin(angle) * cross + (1.0 - math.cos(angle)) * cross @ cross


def transform(rotation: np.ndarray, translation: Sequence[float]) -> np.ndarray:
    """The 4x4 homogeneous transform of ``rotation`` then ``translation``."""
    matrix = np.eye(4)
    matrix[:3, :3] = rotation
    matrix[:3, 3] = translation
    return matrix


@dataclass(frozen=True)
class Pose:
    """Where a link frame is in the base frame: a 4x4 homogeneous transform."""

    matrix: np.ndarray

    @property
    def position(self) -> Vector:
        """Origin of the frame (m)."""
        x, y, z = self.matrix[:3, 3]
        return float(x), float(y), float(z)

    @property
    def rotation(self) -> np.ndarray:
        """3x3 rotation: its columns are the frame's X, Y and Z axes."""
        return self.matrix[:3, :3]

    def quaternion(self) -> Tuple[float, float, float, float]:
        """The orientation as a unit quaternion ``(x, y, z, w)``."""
        m = self.rotation
        w = math.sqrt(max(0.0, 1.0 + m[0, 0] + m[1, 1] + m[2, 2])) / 2.0
        x = math.copysign(math.sqrt(max(0.0, 1.0 + m[0, 0] - m[1, 1] - m[2, 2])) / 2.0,
                          m[2, 1] - m[1, 2])
        y = math.copysign(math.sqrt(max(0.0, 1.0 - m[0, 0] + m[1, 1] - m[2, 2])) / 2.0,
                          m[0, 2] - m[2, 0])
        z = math.copysign(math.sqrt(max(0.0, 1.0 - m[0, 0] - m[1, 1] + m[2, 2])) / 2.0,
                          m[1, 0] - m[0, 1])
        return x, y, z, w

    def rpy(self) -> Vector:
        """The orientation as URDF's (and NAOqi's Position6D's) roll, pitch and yaw: the
        angles :func:`rotation_rpy` turns back into this rotation."""
        m = self.rotation
        pitch = math.asin(max(-1.0, min(1.0, -float(m[2, 0]))))
        return (math.atan2(float(m[2, 1]), float(m[2, 2])), pitch,
                math.atan2(float(m[1, 0]), float(m[0, 0])))


def joint_angle(joint: Joint, angles: Mapping[str, float]) -> float:
    """The angle of ``joint`` in ``angles`` (a mimic joint follows its leader when it is not
    given itself; a joint given nowhere is at 0)."""
    if joint.name in angles:
        return float(angles[joint.name])
    if joint.mimic is not None:
        return float(angles.get(joint.mimic, 0.0))
    return 0.0


Quaternion = Tuple[float, float, float, float]


def quaternion_product(a: Quaternion, b: Quaternion) -> Quaternion:
    """The rotation ``a`` then ``b`` in ``a``'s turned frame (Hamilton product), ``(x, y, z,
    w)``."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz)


@functools.lru_cache(maxsize=None)
def _offset_matrix(joint: Joint) -> np.ndarray:
    """The fixed part of ``joint``'s placement (``xyz`` and ``rpy``), a 4x4 transform."""
    matrix = transform(rotation_rpy(joint.rpy), joint.xyz)
    matrix.setflags(write=False)
    return matrix


@functools.lru_cache(maxsize=None)
def _joint_offset(joint: Joint) -> Tuple[Quaternion, Vector]:
    """The fixed part of ``joint``'s placement as a quaternion, and its unit axis."""
    offset = Pose(_offset_matrix(joint)).quaternion()
    axis = joint.axis if joint.axis is not None else X_AXIS
    norm = math.sqrt(sum(v * v for v in axis))
    return offset, (axis[0] / norm, axis[1] / norm, axis[2] / norm)


def joint_rotation(joint: Joint, angles: Mapping[str, float]) -> Quaternion:
    """The rotation of :func:`joint_transform` as a unit quaternion ``(x, y, z, w)`` (its
    translation is ``joint.xyz``), computed without matrices: a joint's transform for each
    reading of a robot's angles, cheaply."""
    offset, (x, y, z) = _joint_offset(joint)
    if joint.axis is None:
        return offset
    half = joint_angle(joint, angles) / 2.0
    sine = math.sin(half)
    return quaternion_product(offset, (x * sine, y * sine, z * sine, math.cos(half)))


def joint_transform(joint: Joint, angles: Mapping[str, float]) -> np.ndarray:
    """The 4x4 transform placing ``joint``'s child link in its parent link's frame, for
    joint ``angles`` (what robot_state_publisher publishes for the joint)."""
    placed = _offset_matrix(joint)
    if joint.axis is not None:
        return placed @ transform(rotation_about(joint.axis, joint_angle(joint, angles)), ZERO)
    return placed.copy()


def link_pose(model: RobotModel, link: str, angles: Mapping[str, float]) -> Pose:
    """The pose of the one link frame ``link`` in the base frame (what
    :func:`forward_kinematics` gives it, computing its chain only)."""
    matrix = np.eye(4)
    for joint in model.chain(link):
        matrix = matrix @ joint_transform(joint, angles)
    return Pose(matrix)


def forward_kinematics(model: RobotModel, angles: Mapping[str, float]) -> Dict[str, Pose]:
    """The pose of every link frame of ``model`` in its base frame, for joint ``angles``
    (rad, NAOqi's names; the hands' opening ratio turns their gripper frame as the robots'
    descriptions do)."""
    poses: Dict[str, np.ndarray] = {model.root: np.eye(4)}
    for joint in model.ordered_joints():
        poses[joint.child] = poses[joint.parent] @ joint_transform(joint, angles)
    return {link: Pose(matrix) for link, matrix in poses.items()}


# -- the two robots --------------------------------------------------------------------------
def _moving(table: JointTable, name: str, parent: str, child: str, axis: Vector,
            xyz: Vector = ZERO, rpy: Vector = ZERO) -> Joint:
    return Joint(name, parent, child, xyz, rpy, axis, table.limits[name],
                 table.coupled.get(name))


def _arm(table: JointTable, side: str, shoulder: Vector, upper_arm: Vector,
         elbow_rpy: Vector, forearm: Vector, hand: Vector) -> List[Joint]:
    """One arm: ``side`` "L" or "R"; offsets already mirrored for the side."""
    s, w = side, side.lower()
    return [
        _moving(table, s + "ShoulderPitch", "torso", s + "Shoulder", Y_AXIS, shoulder),
        _moving(table, s + "ShoulderRoll", s + "Shoulder", s + "Bicep", Z_AXIS),
        _moving(table, s + "ElbowYaw", s + "Bicep", s + "Elbow", X_AXIS, upper_arm, elbow_rpy),
        _moving(table, s + "ElbowRoll", s + "Elbow", s + "ForeArm", Z_AXIS),
        _moving(table, s + "WristYaw", s + "ForeArm", w + "_wrist", X_AXIS, forearm),
        _moving(table, s + "Hand", w + "_wrist", w + "_gripper", X_AXIS, hand),
    ]


def _nao_leg(table: JointTable, side: str) -> List[Joint]:
    lengths = NAO_LENGTHS
    sign = 1.0 if side == "L" else -1.0
    s, w = side, side.lower()
    # the hip yaw-pitch axis lies in the Y-Z plane at 45 degrees, mirrored on the right
    hip_axis = (0.0, math.sqrt(0.5), -sign * math.sqrt(0.5))
    return [
        _moving(table, s + "HipYawPitch", "torso", s + "Pelvis", hip_axis,
                (0.0, sign * lengths["HipOffsetY"], -lengths["HipOffsetZ"])),
        _moving(table, s + "HipRoll", s + "Pelvis", s + "Hip", X_AXIS),
        _moving(table, s + "HipPitch", s + "Hip", s + "Thigh", Y_AXIS),
        _moving(table, s + "KneePitch", s + "Thigh", s + "Tibia", Y_AXIS,
                (0.0, 0.0, -lengths["ThighLength"])),
        _moving(table, s + "AnklePitch", s + "Tibia", s + "AnklePitch", Y_AXIS,
                (0.0, 0.0, -lengths["TibiaLength"])),
        _moving(table, s + "AnkleRoll", s + "AnklePitch", w + "_ankle", X_AXIS),
        Joint(s + "Leg_effector_fixedjoint", w + "_ankle", w + "_sole",
              (0.0, 0.0, -lengths["FootHeight"])),
    ]


def _nao() -> RobotModel:
    table = JointTable("nao")
    lengths = NAO_LENGTHS
    joints = [
        Joint("base_link_fixedjoint", BASE_LINK, "torso"),
        _moving(table, "HeadYaw", "torso", "Neck", Z_AXIS, (0.0, 0.0, lengths["NeckOffsetZ"])),
        _moving(table, "HeadPitch", "Neck", "Head", Y_AXIS),
    ]
    for side, sign in (("L", 1.0), ("R", -1.0)):
        joints += _arm(table, side,
                       shoulder=(0.0, sign * lengths["ShoulderOffsetY"],
                                 lengths["ShoulderOffsetZ"]),
                       upper_arm=(lengths["UpperArmLength"], sign * lengths["ElbowOffsetY"], 0.0),
                       elbow_rpy=ZERO, forearm=(lengths["LowerArmLength"], 0.0, 0.0),
                       hand=(lengths["HandOffsetX"], 0.0, -lengths["HandOffsetZ"]))
        joints += _nao_leg(table, side)
    return RobotModel("nao", joints)


def _pepper() -> RobotModel:
    table = JointTable("pepper")
    lengths = PEPPER_LENGTHS
    joints = [
        Joint("base_link_fixedjoint", BASE_LINK, "torso"),
        _moving(table, "HeadYaw", "torso", "Neck", Z_AXIS,
                (lengths["NeckOffsetX"], 0.0, lengths["NeckOffsetZ"])),
        _moving(table, "HeadPitch", "Neck", "Head", Y_AXIS),
        _moving(table, "HipRoll", "torso", "Hip", X_AXIS,
                (lengths["HipOffsetX"], 0.0, -lengths["HipOffsetZ"])),
        _moving(table, "HipPitch", "Hip", "Pelvis", Y_AXIS,
                (0.0, 0.0, -lengths["HipPitchOffsetZ"])),
        _moving(table, "KneePitch", "Pelvis", "Tibia", Y_AXIS,
                (0.0, 0.0, -lengths["ThighLength"])),
        Joint("base_footprint_joint", "Tibia", "base_footprint",
              (0.0, 0.0, -lengths["TibiaLength"])),
    ]
    for side, sign in (("L", 1.0), ("R", -1.0)):
        joints += _arm(table, side,
                       shoulder=(lengths["ShoulderOffsetX"], sign * lengths["ShoulderOffsetY"],
                                 lengths["ShoulderOffsetZ"]),
                       upper_arm=(lengths["UpperArmLength"], sign * lengths["ElbowOffsetY"],
                                  lengths["ElbowOffsetZ"]),
                       elbow_rpy=(0.0, lengths["ElbowPitch"], 0.0),
                       forearm=(lengths["LowerArmLength"], 0.0, 0.0),
                       hand=(lengths["HandOffsetX"], 0.0, 0.0))
    return RobotModel("pepper", joints)


_MODELS: Dict[str, RobotModel] = {}


def robot_model(robot: str) -> RobotModel:
    """The kinematic tree of ``robot`` ("nao" or "pepper"); ValueError for another name."""
    builders = {"nao": _nao, "pepper": _pepper}
    if robot not in builders:
        raise ValueError("robot must be nao or pepper, got %r" % (robot,))
    if robot not in _MODELS:
        _MODELS[robot] = builders[robot]()
    return _MODELS[robot]
