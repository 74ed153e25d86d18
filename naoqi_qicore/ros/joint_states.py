"""``joint_states``, ``robot_description`` and the robot's transforms, as naoqi_driver2
publishes them.

:class:`JointStateStream` reads the robot at a fixed rate in a thread of its own, so that a
slow robot never delays what the node's executor serves; each reading asks, at once:

* ``ALMotion.getAngles("Body", True)``: the joint sensors (on the simulated robot, the
  angles it is executing);
* ``ALMemory.getListData`` of ``Device/SubDeviceList/<joint>/ElectricCurrent/Sensor/Value``:
  each joint motor's electric current (A), NAOqi's measure of the effort;
* ``ALMotion.getPosition("Torso", FRAME_WORLD, True)``: where the torso is in the robot's
  world frame (its odometry), for ``odom`` -> ``base_link``.

It publishes ``sensor_msgs/JointState`` on ``joint_states`` with NAOqi's joint names
(``ALMotion.getBodyNames("Body")``), stamped at the middle of the reading:

* ``position``: the angles (rad; the hands: their opening ratio, 0 closed to 1 open);
* ``velocity``: the change since the previous reading over the time between their stamps
  (rad/s; the hands: ratio/s), NaN in the first message after a connection;
* ``effort``: the motor's electric current (A), NaN for a joint the robot has no current
  sensor for (the simulated robot has none unless its ALMemory is given values).

Once connected it publishes the robot's URDF (:mod:`naoqi_qicore.robot.model`) on
``robot_description``, latched, as a ``std_msgs/String``; NAO or Pepper is told by the
joints the robot has.  With a :class:`~naoqi_qicore.ros.robot_transforms.RobotTransforms`
each reading also goes out on ``/tf`` (and the fixed joints on ``/tf_static``).
"""
import math
import threading
import time
from dataclasses import dataclass
from typing import Any, List, Optional

import numpy as np
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.time import Time
from sensor_msgs.msg import JointState
from std_msgs.msg import String

from naoqi_qicore.robot.model import robot_description
from naoqi_qicore.robot.model.spaces import FRAME_WORLD, pose_from_6d
from naoqi_qicore.ros.qos import LATCHED
from naoqi_qicore.ros.robot_transforms import RobotTransforms

#: naoqi_driver2's joint_states frequency (Hz)
DEFAULT_RATE = 50.0
#: what naoqi_driver2 publishes joint_states with
JOINT_STATES_QOS = QoSProfile(depth=10, history=HistoryPolicy.KEEP_LAST,
                              reliability=ReliabilityPolicy.RELIABLE,
                              durability=DurabilityPolicy.VOLATILE)
#: longest wait for the answers of one reading (ms)
CALL_TIMEOUT_MS = 2000
#: the ALMemory key of a joint motor's electric current (A)
CURRENT_KEY = "Device/SubDeviceList/%s/ElectricCurrent/Sensor/Value"
#: NAOqi's name of the part whose position is odometry's
TORSO = "Torso"
#: the calls of a reading, as warnings name them
ANGLES = "ALMotion.getAngles"
CURRENTS = "ALMemory.getListData (motor currents)"
ODOMETRY = "ALMotion.getPosition (odometry)"


def robot_kind(joint_names: List[str]) -> str:
    """``nao`` or ``pepper`` from the joints a robot has; ValueError for another robot."""
    if "LHipYawPitch" in joint_names:
        return "nao"
    if "KneePitch" in joint_names:
        return "pepper"
    raise ValueError("a robot with the joints %s is neither a NAO nor a Pepper"
                     % ", ".join(joint_names))


@dataclass
class _Robot:
    """What a connection gives the readings: the services and the joint names."""

    motion: Any
    memory: Any
    names: List[str]


def _number(value: Any) -> float:
    """``value`` as a float; NaN when it is no number (a key without value)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return math.nan


class JointStateStream:
    """Publishes a robot's joint states at ``rate`` Hz, its URDF and, with ``transforms``,
    its transforms (see the module)."""

    def __init__(self, node: Node, rate: float = DEFAULT_RATE,
                 transforms: Optional[RobotTransforms] = None) -> None:
        self._logger = node.get_logger()
        self._clock = node.get_clock()
        self._period = 1.0 / rate
        self._transforms = transforms
        self._description_pub = node.create_publisher(String, "robot_description", LATCHED)
        self._joint_pub = node.create_publisher(JointState, "joint_states", JOINT_STATES_QOS)
        self._robot_kind = ""
        self._robot: Optional[_Robot] = None
        self._changed = threading.Condition()
        self._closed = False
        #: what failed at the last reading (each said once until it works again)
        self._failing: set = set()
        #: the previous reading's stamp (ns) and angles, for the velocities
        self._previous: Optional[tuple] = None
        self._thread = threading.Thread(target=self._run, daemon=True, name="joint_states")
        self._thread.start()

    @property
    def robot(self) -> str:
        """``nao`` or ``pepper`` once known, else ""."""
        return self._robot_kind

    def bind(self, session: Any) -> None:
        """After a connection: learn the robot's joints, publish its URDF, read its angles."""
        motion = session.service("ALMotion")
        memory = session.service("ALMemory")
        names = [str(name) for name in motion.getBodyNames("Body")]
        try:
            robot = robot_kind(names)
        except ValueError as error:
            self._logger.error("%s: no robot_description" % error)
        else:
            if robot != self._robot_kind:
                self._robot_kind = robot
                self._description_pub.publish(String(data=robot_description(robot)))
                if self._transforms is not None:
                    self._transforms.set_robot(robot, self._clock.now().to_msg())
                self._logger.info("robot_description: %s (%d joints)" % (robot, len(names)))
        with self._changed:
            self._robot = _Robot(motion, memory, names)
            self._previous = None
            self._changed.notify_all()

    def forget(self) -> None:
        """The connection is gone: stop reading until the next :meth:`bind`."""
        with self._changed:
            self._robot = None

    def close(self) -> None:
        """Stop publishing (the thread ends)."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()
        self._thread.join(CALL_TIMEOUT_MS / 1000.0 + 1.0)

    def _next_robot(self) -> Optional[_Robot]:
        """Wait for a robot to read; None once closed."""
        with self._changed:
            self._changed.wait_for(lambda: self._closed or self._robot is not None)
            return None if self._closed else self._robot

    def _run(self) -> None:
        deadline = time.monotonic()
        while True:
            robot = self._next_robot()
            if robot is None:
                return
            self._publish(robot)
            deadline = max(deadline + self._period, time.monotonic())
            with self._changed:
                self._changed.wait_for(lambda: self._closed, deadline - time.monotonic())

    def _failed(self, what: str, reason: str) -> None:
        """A part of the reading failed: said once, until it works again."""
        if what not in self._failing:
            self._failing.add(what)
            self._logger.warning("joint_states: %s: %s" % (what, reason))

    def _works(self, what: str) -> None:
        if what in self._failing:
            self._failing.discard(what)
            self._logger.info("joint_states: %s answers again" % what)

    def _start(self, what: str, service: Any, method: str, *arguments: Any) -> Any:
        """Start the call ``what`` (``service.method(*arguments)``); its future, or None
        when it cannot be made (said)."""
        try:
            return getattr(service, method)(*arguments, _async=True)
        except (AttributeError, RuntimeError) as error:
            self._failed(what, str(error) or "the robot has no %s" % what)
            return None

    def _answer(self, what: str, future: Any) -> Any:
        """The value of a started call; None when it failed (said)."""
        if future is None:
            return None
        try:
            return future.value(CALL_TIMEOUT_MS)
        except RuntimeError as error:
            self._failed(what, str(error))
            return None

    def _publish(self, robot: _Robot) -> None:
        names = robot.names
        before = self._clock.now().nanoseconds
        angles_call = self._start(ANGLES, robot.motion, "getAngles", "Body", True)
        currents_call = self._start(CURRENTS, robot.memory, "getListData",
                                    [CURRENT_KEY % name for name in names])
        torso_call = (self._start(ODOMETRY, robot.motion, "getPosition", TORSO, FRAME_WORLD,
                                  True) if self._transforms is not None else None)
        angles = self._answer(ANGLES, angles_call)
        currents = self._answer(CURRENTS, currents_call)
        torso = self._answer(ODOMETRY, torso_call)
        after = self._clock.now().nanoseconds
        if angles is None:
            return
        if len(angles) != len(names):
            self._failed(ANGLES, "%d angles for %d joints" % (len(angles), len(names)))
            return
        self._works(ANGLES)
        positions = [float(angle) for angle in angles]
        efforts = [math.nan] * len(names)
        if currents is not None:
            if len(currents) == len(names):
                self._works(CURRENTS)
                efforts = [_number(value) for value in currents]
            else:
                self._failed(CURRENTS, "%d values for %d joints" % (len(currents), len(names)))
        stamp_ns = (before + after) // 2
        message = JointState(name=names, position=positions,
                             velocity=self._velocities(stamp_ns, positions), effort=efforts)
        message.header.stamp = Time(nanoseconds=stamp_ns).to_msg()
        if self._closed:
            return
        self._joint_pub.publish(message)
        if self._transforms is not None:
            self._transforms.publish(message.header.stamp, dict(zip(names, positions)),
                                     self._torso_pose(torso))

    def _torso_pose(self, torso: Any) -> Optional[np.ndarray]:
        """The 4x4 pose of a ``getPosition`` answer; None when there is none or it is wrong
        (said)."""
        if torso is None:
            return None
        try:
            pose = pose_from_6d(torso)
        except (TypeError, ValueError) as error:
            self._failed(ODOMETRY, str(error))
            return None
        self._works(ODOMETRY)
        return pose

    def _velocities(self, stamp_ns: int, positions: List[float]) -> List[float]:
        """Each joint's change since the previous reading per second (NaN for the first)."""
        previous, self._previous = self._previous, (stamp_ns, positions)
        if previous is None or stamp_ns <= previous[0]:
            return [math.nan] * len(positions)
        seconds = (stamp_ns - previous[0]) / 1e9
        return [(now - before) / seconds for now, before in zip(positions, previous[1])]
