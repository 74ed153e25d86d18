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
from typing import List, Mapping, Optional

import numpy as np
from builtin_interfaces.msg import Time
from geometry_msgs.msg import Quaternion, Transform, TransformStamped, Vector3
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from tf2_msgs.msg import TFMessage

from naoqi_qicore.robot.model import BASE_LINK, Pose, RobotModel, forward_kinematics, robot_model
from naoqi_qicore.robot.model.kinematics import joint_transform

TF_TOPIC = "/tf"
TF_STATIC_TOPIC = "/tf_static"
#: tf2_ros's ``DynamicBroadcasterQoS`` and ``StaticBroadcasterQoS``
TF_QOS = QoSProfile(depth=100, history=HistoryPolicy.KEEP_LAST,
                    reliability=ReliabilityPolicy.RELIABLE,
                    durability=DurabilityPolicy.VOLATILE)
TF_STATIC_QOS = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST,
                           reliability=ReliabilityPolicy.RELIABLE,
                           durability=DurabilityPolicy.TRANSIENT_LOCAL)
#: the frame odometry is given in (naoqi_driver2's)
ODOM_FRAME = "odom"
#: the link NAOqi's ``Torso`` position is the frame of
TORSO_LINK = "torso"


def transform_message(parent: str, child: str, matrix: np.ndarray,
                      stamp: Time) -> TransformStamped:
    """A ``TransformStamped`` placing frame ``child`` in frame ``parent`` by the 4x4
    ``matrix``."""
    x, y, z = (float(v) for v in matrix[:3, 3])
    qx, qy, qz, qw = Pose(matrix).quaternion()
    message = TransformStamped(child_frame_id=child, transform=Transform(
        translation=Vector3(x=x, y=y, z=z), rotation=Quaternion(x=qx, y=qy, z=qz, w=qw)))
    message.header.stamp = stamp
    message.header.frame_id = parent
    return message


class RobotTransforms:
    """Publishes a robot's transforms on ``node`` (see the module): ``links`` False leaves
    the links' transforms to a robot_state_publisher (``odom`` -> ``base_link`` is still
    published)."""

    def __init__(self, node: Node, links: bool = True, frame_prefix: str = "") -> None:
        self._links = links
        self._prefix = frame_prefix
        self._tf_pub = node.create_publisher(TFMessage, TF_TOPIC, TF_QOS)
        self._static_pub = (node.create_publisher(TFMessage, TF_STATIC_TOPIC, TF_STATIC_QOS)
                            if links else None)
        self._model: Optional[RobotModel] = None
        #: the base link in the torso's frame (fixed: base_link carries the torso)
        self._base_in_torso = np.eye(4)

    def _frame(self, link: str) -> str:
        return self._prefix + link

    def set_robot(self, robot: str, stamp: Time) -> None:
        """The robot is ``robot`` ("nao" or "pepper"): publish its fixed transforms."""
        model = robot_model(robot)
        self._model = model
        self._base_in_torso = np.linalg.inv(forward_kinematics(model, {})[TORSO_LINK].matrix)
        if self._static_pub is not None:
            self._static_pub.publish(TFMessage(transforms=[
                transform_message(self._frame(joint.parent), self._frame(joint.child),
                                  joint_transform(joint, {}), stamp)
                for joint in model.joints if not joint.moving]))

    def publish(self, stamp: Time, angles: Mapping[str, float],
                torso_in_world: Optional[np.ndarray]) -> None:
        """Publish the moving joints at ``angles`` (NAOqi's names, rad) and, when known,
        ``odom`` -> ``base_link`` from the torso's pose in the world frame."""
        model = self._model
        if model is None:
            return
        transforms: List[TransformStamped] = []
        if torso_in_world is not None:
            transforms.append(transform_message(
                self._frame(ODOM_FRAME), self._frame(BASE_LINK),
                torso_in_world @ self._base_in_torso, stamp))
        if self._links:
            transforms += [transform_message(self._frame(joint.parent), self._frame(joint.child),
                                             joint_transform(joint, angles), stamp)
                           for joint in model.moving_joints]
        if transforms:
            self._tf_pub.publish(TFMessage(transforms=transforms))
