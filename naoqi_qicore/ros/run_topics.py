"""The topics of a run, as a recording keeps them and Foxglove shows them: what the robot
does (naoqi_bridge's joint states, URDF, transforms, speech and connection), what the
behavior does (behavior_runner's state and focus) and the motion segments between them.

Each is ``(name, message type, QoS of a subscription to it)``: names are relative (the
nodes' namespace resolves them) but for tf2's absolute ``/tf`` and ``/tf_static``; a
latched topic is subscribed transient local, so that its last message reaches a
subscriber that comes late; the joint states as a stream, so that a reader busy for a
moment (a run starting) loses none.
"""
from typing import Any, List, Tuple

from rclpy.qos import DurabilityPolicy, QoSProfile
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage

from naoqi_qicore.msg import (ActivityFocus, BehaviorState, MotionKeyframes, MotionStatus,
                              MotionStop, RobotConnection)
from naoqi_qicore.ros.qos import COMMANDS, LATCHED, STREAM
from naoqi_qicore.ros.robot_transforms import TF_QOS, TF_STATIC_QOS, TF_STATIC_TOPIC, TF_TOPIC

RUN_TOPICS: List[Tuple[str, Any, QoSProfile]] = [
    ("joint_states", JointState, STREAM),
    ("robot_description", String, LATCHED),
    (TF_TOPIC, TFMessage, TF_QOS),
    (TF_STATIC_TOPIC, TFMessage, TF_STATIC_QOS),
    ("behavior/state", BehaviorState, LATCHED),
    ("behavior/focus", ActivityFocus, LATCHED),
    ("robot/speech", String, COMMANDS),
    ("robot/heard", String, COMMANDS),
    ("motion/keyframes", MotionKeyframes, COMMANDS),
    ("motion/status", MotionStatus, COMMANDS),
    ("motion/stop", MotionStop, COMMANDS),
    ("robot/connection", RobotConnection, LATCHED),
]


def latched(qos: QoSProfile) -> bool:
    """Whether a subscription with ``qos`` gets the last messages published before it."""
    return qos.durability == DurabilityPolicy.TRANSIENT_LOCAL
