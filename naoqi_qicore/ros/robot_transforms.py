"""The robot's transforms on ``/tf`` and ``/tf_static``, as robot_state_publisher and
naoqi_driver2 publish them, so that RViz and Foxglove show the robot from naoqi_bridge alone.

:class:`RobotTransforms` publishes, for each reading of the robot's joints:

* on ``/tf``, one transform per moving joint of the robot's URDF (``robot_description``,
  :mod:`naoqi_qicore.robot.model`): its parent link to its child link at the angle read,
  stamped as the ``joint_states`` message of the same reading;
* on ``/tf``, ``odom`` -> ``base_link``: where the torso is in the robot's world frame
  (``ALMotion.getPosition("Torso", FRAME_WORLD, True)``: its odometry, height and tilt),
  as naoqi_driver2 publishes it;
* on ``/tf_static`` (latched), once per robot, the URDF's fixed joints.

Frame names are the URDF's link names, so a robot_state_publisher fed with the same
``robot_description`` and ``joint_states`` gives the same frames; ``frame_prefix`` is put
before every frame name (robot_state_publisher's parameter of that name, for several robots
on one ROS graph).  Topics and QoS are tf2_ros's: ``/tf`` reliable, volatile, depth 100;
``/tf_static`` reliable, transient local, depth 1 (every fixed transform in one message).
"""
from typing import List, Mapping, Optional, Sequence, Tuple

import numpy as np
from builtin_interfaces.msg import Time
from geometry_msgs.msg import TransformStamped
from rclpy.node import Node
from tf2_msgs.msg import TFMessage

from naoqi_qicore.robot.model import BASE_LINK, Joint, Pose, robot_model
from naoqi_qicore.robot.model.kinematics import ZERO, joint_rotation, link_pose
from naoqi_qicore.robot.model.spaces import EFFECTOR_LINKS
from naoqi_qicore.ros.qos import LATCHED, STREAM

TF_TOPIC = "/tf"
TF_STATIC_TOPIC = "/tf_static"
#: tf2_ros's ``DynamicBroadcasterQoS`` and ``StaticBroadcasterQoS``
TF_QOS = STREAM
TF_STATIC_QOS = LATCHED
#: the frame odometry is given in (naoqi_driver2's)
ODOM_FRAME = "odom"
#: the link NAOqi's ``Torso`` position is the frame of
TORSO_LINK = EFFECTOR_LINKS["Torso"]


def transform_message(parent: str, child: str, translation: Sequence[float],
                      rotation: Sequence[float]) -> TransformStamped:
    """A ``TransformStamped`` placing frame ``child`` in frame ``parent`` (``rotation``: a
    unit quaternion ``(x, y, z, w)``), not stamped yet."""
    message = TransformStamped(child_frame_id=child)
    message.header.frame_id = parent
    _place(message, translation, rotation)
    return message


def _place(message: TransformStamped, translation: Sequence[float],
           rotation: Sequence[float]) -> None:
    """Set the translation and rotation of ``message`` in place."""
    vector, quaternion = message.transform.translation, message.transform.rotation
    vector.x, vector.y, vector.z = (float(v) for v in translation)
    quaternion.x, quaternion.y, quaternion.z, quaternion.w = (float(v) for v in rotation)


class RobotTransforms:
    """Publishes a robot's transforms on ``node`` (see the module): ``links`` False leaves
    the links' transforms to a robot_state_publisher (``odom`` -> ``base_link`` is still
    published).

    The messages of a robot are made once and refilled at each reading: a reading costs a
    quaternion product per joint (0.2 ms for NAO's 26 joints, publishing included, as
    measured here), so that 50 Hz stays cheap.
    """

    def __init__(self, node: Node, links: bool = True, frame_prefix: str = "") -> None:
        self._links = links
        self._prefix = frame_prefix
        self._tf_pub = node.create_publisher(TFMessage, TF_TOPIC, TF_QOS)
        self._static_pub = (node.create_publisher(TFMessage, TF_STATIC_TOPIC, TF_STATIC_QOS)
                            if links else None)
        #: the moving joints and their messages, refilled at each reading
        self._moving: List[Tuple[Joint, TransformStamped]] = []
        self._odometry = transform_message(self._frame(ODOM_FRAME), self._frame(BASE_LINK),
                                           ZERO, (0.0, 0.0, 0.0, 1.0))
        self._known = False
        #: the base link in the torso's frame (fixed: base_link carries the torso)
        self._base_in_torso = np.eye(4)

    def _frame(self, link: str) -> str:
        return self._prefix + link

    def _joint_message(self, joint: Joint) -> TransformStamped:
        return transform_message(self._frame(joint.parent), self._frame(joint.child),
                                 joint.xyz, joint_rotation(joint, {}))

    def set_robot(self, robot: str, stamp: Time) -> None:
        """The robot is ``robot`` ("nao" or "pepper"): publish its fixed transforms."""
        model = robot_model(robot)
        self._known = True
        self._base_in_torso = np.linalg.inv(link_pose(model, TORSO_LINK, {}).matrix)
        self._moving = [(joint, self._joint_message(joint)) for joint in model.moving_joints] \
            if self._links else []
        if self._static_pub is not None:
            fixed = [self._joint_message(joint) for joint in model.joints if not joint.moving]
            for message in fixed:
                message.header.stamp = stamp
            self._static_pub.publish(TFMessage(transforms=fixed))

    def publish(self, stamp: Time, angles: Mapping[str, float],
                torso_in_world: Optional[np.ndarray]) -> None:
        """Publish the moving joints at ``angles`` (NAOqi's names, rad) and, when known,
        ``odom`` -> ``base_link`` from the torso's pose in the world frame."""
        if not self._known:
            return
        transforms: List[TransformStamped] = []
        if torso_in_world is not None:
            base = torso_in_world @ self._base_in_torso
            _place(self._odometry, base[:3, 3], Pose(base).quaternion())
            transforms.append(self._odometry)
        for joint, message in self._moving:
            _place(message, joint.xyz, joint_rotation(joint, angles))
            transforms.append(message)
        for message in transforms:
            message.header.stamp = stamp
        if transforms:
            self._tf_pub.publish(TFMessage(transforms=transforms))
