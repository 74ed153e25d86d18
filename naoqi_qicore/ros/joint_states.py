"""``joint_states`` and ``robot_description`` of a robot, as naoqi_driver2 publishes them.

:class:`JointStateStream` reads ``ALMotion.getAngles("Body", True)`` (the joint sensors;
on the simulated robot, the angles it is executing) at a fixed rate in a thread of its
own, so that a slow robot never delays what the node's executor serves, and publishes
``sensor_msgs/JointState`` on ``joint_states`` with NAOqi's joint names
(``ALMotion.getBodyNames("Body")``), positions in rad (hands: opening ratio), no velocity
nor effort, and the stamp of the middle of the call.  Once connected it publishes the
robot's URDF (:mod:`naoqi_qicore.robot.model`) on ``robot_description``, latched, as a
``std_msgs/String``; NAO or Pepper is told by the joints the robot has.
"""
import threading
import time
from typing import Any, List, Optional

from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.time import Time
from sensor_msgs.msg import JointState
from std_msgs.msg import String

from naoqi_qicore.robot.model import robot_description
from naoqi_qicore.ros.qos import LATCHED

#: naoqi_driver2's joint_states frequency (Hz)
DEFAULT_RATE = 50.0
#: what naoqi_driver2 publishes joint_states with
JOINT_STATES_QOS = QoSProfile(depth=10, history=HistoryPolicy.KEEP_LAST,
                              reliability=ReliabilityPolicy.RELIABLE,
                              durability=DurabilityPolicy.VOLATILE)
#: longest wait for one getAngles answer (ms)
CALL_TIMEOUT_MS = 2000


def robot_kind(joint_names: List[str]) -> str:
    """``nao`` or ``pepper`` from the joints a robot has; ValueError for another robot."""
    if "LHipYawPitch" in joint_names:
        return "nao"
    if "KneePitch" in joint_names:
        return "pepper"
    raise ValueError("a robot with the joints %s is neither a NAO nor a Pepper"
                     % ", ".join(joint_names))


class JointStateStream:
    """Publishes a robot's joint angles at ``rate`` Hz and its URDF (see the module)."""

    def __init__(self, node: Node, rate: float = DEFAULT_RATE) -> None:
        self._logger = node.get_logger()
        self._clock = node.get_clock()
        self._period = 1.0 / rate
        self._description_pub = node.create_publisher(String, "robot_description", LATCHED)
        self._joint_pub = node.create_publisher(JointState, "joint_states", JOINT_STATES_QOS)
        self._robot = ""
        self._motion: Any = None
        self._names: List[str] = []
        self._changed = threading.Condition()
        self._closed = False
        self._failing = False
        self._thread = threading.Thread(target=self._run, daemon=True, name="joint_states")
        self._thread.start()

    @property
    def robot(self) -> str:
        """``nao`` or ``pepper`` once known, else ""."""
        return self._robot

    def bind(self, session: Any) -> None:
        """After a connection: learn the robot's joints, publish its URDF, read its angles."""
        motion = session.service("ALMotion")
        names = [str(name) for name in motion.getBodyNames("Body")]
        try:
            robot = robot_kind(names)
        except ValueError as error:
            self._logger.error("%s: no robot_description" % error)
        else:
            if robot != self._robot:
                self._robot = robot
                self._description_pub.publish(String(data=robot_description(robot)))
                self._logger.info("robot_description: %s (%d joints)" % (robot, len(names)))
        with self._changed:
            self._motion, self._names = motion, names
            self._changed.notify_all()

    def forget(self) -> None:
        """The connection is gone: stop reading until the next :meth:`bind`."""
        with self._changed:
            self._motion = None

    def close(self) -> None:
        """Stop publishing (the thread ends)."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()
        self._thread.join(CALL_TIMEOUT_MS / 1000.0 + 1.0)

    def _next_robot(self) -> Optional[tuple]:
        """Wait for a robot to read: ``(ALMotion, joint names)``, or None once closed."""
        with self._changed:
            self._changed.wait_for(lambda: self._closed or self._motion is not None)
            return None if self._closed else (self._motion, self._names)

    def _run(self) -> None:
        deadline = time.monotonic()
        while True:
            robot = self._next_robot()
            if robot is None:
                return
            self._publish(*robot)
            deadline = max(deadline + self._period, time.monotonic())
            with self._changed:
                self._changed.wait_for(lambda: self._closed, deadline - time.monotonic())

    def _publish(self, motion: Any, names: List[str]) -> None:
        before = self._clock.now().nanoseconds
        try:
            angles = [float(angle) for angle in
                      motion.getAngles("Body", True, _async=True).value(CALL_TIMEOUT_MS)]
            if len(angles) != len(names):
                raise RuntimeError("%d angles for %d joints" % (len(angles), len(names)))
        except RuntimeError as error:
            if not self._failing:
                self._failing = True
                self._logger.warning("joint_states: ALMotion.getAngles: %s" % error)
            return
        after = self._clock.now().nanoseconds
        if self._failing:
            self._failing = False
            self._logger.info("joint_states: the robot answers again")
        message = JointState(name=names, position=angles)
        message.header.stamp = Time(nanoseconds=(before + after) // 2).to_msg()
        if not self._closed:
            self._joint_pub.publish(message)
