"""The engine's motion sink of behavior_runner: through naoqi_bridge, or ALMotion directly.

A segment goes to the bridge (``motion/keyframes``) when a bridge subscribes to that
topic and reports its robot connected on ``robot/connection``; otherwise it is executed
by the engine's own ALMotion sink on the runner's session.  A stop goes where its segment
went, so a bridge appearing or disappearing mid-behavior never loses a stop.
"""
import threading
from typing import Any, Dict

from rclpy.node import Node

from naoqi_qicore.msg import MotionKeyframes, MotionStop, RobotConnection
from naoqi_qicore.ros.motion_messages import keyframes_message
from naoqi_qicore.ros.qos import COMMANDS, LATCHED

#: values of the runner's ``motion_output`` parameter
MOTION_OUTPUTS = ("auto", "bridge", "direct")


class BridgeMotionSink:
    """A ``MotionSink`` publishing to naoqi_bridge, falling back to ``direct``."""

    def __init__(self, node: Node, direct: Any, mode: str = "auto") -> None:
        if mode not in MOTION_OUTPUTS:
            raise ValueError("motion_output must be one of %s, got %r"
                             % (", ".join(MOTION_OUTPUTS), mode))
        self._direct = direct
        self._mode = mode
        self._lock = threading.Lock()
        self._via_bridge: Dict[int, bool] = {}
        self._bridge_connected = False
        self._keyframes = node.create_publisher(MotionKeyframes, "motion/keyframes", COMMANDS)
        self._stop = node.create_publisher(MotionStop, "motion/stop", COMMANDS)
        self._clock = node.get_clock()
        node.create_subscription(RobotConnection, "robot/connection", self._on_connection,
                                 LATCHED)

    def _on_connection(self, message: RobotConnection) -> None:
        self._bridge_connected = message.state == RobotConnection.CONNECTED

    @property
    def bridge_ready(self) -> bool:
        """True when segments go to a bridge right now."""
        if self._mode == "direct":
            return False
        if self._mode == "bridge":
            return True
        return self._bridge_connected and self._keyframes.get_subscription_count() > 0

    def send(self, segment: Any) -> None:
        """Execute ``segment`` (a core ``MotionSegment``)."""
        via_bridge = self.bridge_ready
        with self._lock:
            self._via_bridge[segment.segment_id] = via_bridge
        if via_bridge:
            message = keyframes_message(segment.segment_id, segment.names, segment.times,
                                        segment.keys)
            message.header.stamp = self._clock.now().to_msg()
            self._keyframes.publish(message)
        else:
            self._direct.send(segment)

    def stop(self, segment_id: int) -> None:
        """Stop a segment sent by :meth:`send`."""
        with self._lock:
            via_bridge = self._via_bridge.pop(segment_id, None)
        if via_bridge:
            message = MotionStop(segment_id=segment_id)
            message.header.stamp = self._clock.now().to_msg()
            self._stop.publish(message)
        elif via_bridge is not None:
            self._direct.stop(segment_id)
