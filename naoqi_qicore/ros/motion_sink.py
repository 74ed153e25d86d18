"""The engine's motion sink of behavior_runner: through naoqi_bridge, or ALMotion directly.

A segment goes to the bridge (``motion/keyframes``) when a bridge is up (heard on
``robot/connection``, whose DDS liveliness it asserts), subscribes to that topic and
reports its robot connected; otherwise (``motion_output`` auto) it is executed by the
engine's own ALMotion sink on the runner's session.  A stop goes where its segment went,
so a bridge appearing or disappearing mid-behavior never loses a stop; a stop of a segment
the runner moves itself spares the joints of newer segments at the bridge.  A segment that the
bridge reports FAILED on ``motion/status`` gets its ``on_failed`` called, as the direct
sink does for its own.

A bridge that goes away (killed, its host gone: unheard for its DDS lease,
``qos.BRIDGE_LEASE_S``, then :data:`LOST_AFTER_S` more) fails the segments it was
executing (``on_failed``: an error of the run naming the lost bridge); later segments go
to ALMotion directly, or fail at once with ``motion_output`` bridge.  A bridge heard again
within :data:`LOST_AFTER_S` (its process stalled on a busy machine) is not lost.
"""
import threading
import time
from typing import Any, Collection, Dict, List, Optional

from rclpy.node import Node

from naoqi_qicore.core.motion import MotionSegment
from naoqi_qicore.msg import MotionKeyframes, MotionStatus, MotionStop, RobotConnection
from naoqi_qicore.ros.motion_messages import keyframes_message
from naoqi_qicore.ros.qos import BRIDGE_CONNECTION, BRIDGE_LEASE_S, COMMANDS

try:  # rclpy of Iron and later
    from rclpy.event_handler import SubscriptionEventCallbacks
except ImportError:  # Humble
    from rclpy.qos_event import SubscriptionEventCallbacks

#: values of the runner's ``motion_output`` parameter
MOTION_OUTPUTS = ("auto", "bridge", "direct")
#: how long a bridge past its lease may take to be heard again before it is lost (s). The
#: lease runs out 1/3 to all of it after the bridge's last sign of life (rmw_fastrtps
#: asserts it every 2/3 of it), so a bridge is lost 0.57 to 0.7 s after it stopped: one
#: killed is told within a second, and one stalled for a moment on a busy machine (up to
#: about half a second, the time to be heard again included) is not lost
LOST_AFTER_S = 0.5


class BridgeMotionSink:
    """A ``MotionSink`` publishing to naoqi_bridge, falling back to ``direct``."""

    def __init__(self, node: Node, direct: Any, mode: str = "auto") -> None:
        if mode not in MOTION_OUTPUTS:
            raise ValueError("motion_output must be one of %s, got %r"
                             % (", ".join(MOTION_OUTPUTS), mode))
        self._direct = direct
        self._mode = mode
        self._lock = threading.Lock()
        self._bridge_idle = threading.Condition(self._lock)
        #: segments sent to the bridge that it has not reported ended yet
        self._at_bridge: Dict[int, MotionSegment] = {}
        self._bridge_connected = False
        #: a bridge asserts its liveliness on robot/connection (False once it is lost)
        self._bridge_alive = False
        self._losing: Optional[threading.Timer] = None
        self._keyframes = node.create_publisher(MotionKeyframes, "motion/keyframes", COMMANDS)
        self._stop = node.create_publisher(MotionStop, "motion/stop", COMMANDS)
        self._clock = node.get_clock()
        node.create_subscription(
            RobotConnection, "robot/connection", self._on_connection, BRIDGE_CONNECTION,
            event_callbacks=SubscriptionEventCallbacks(liveliness=self._on_liveliness))
        node.create_subscription(MotionStatus, "motion/status", self._on_status, COMMANDS)

    def _on_connection(self, message: RobotConnection) -> None:
        self._bridge_connected = message.state == RobotConnection.CONNECTED

    def _on_liveliness(self, info: Any) -> None:
        """A bridge became alive, or went unheard for its lease: lost unless it is heard
        again within :data:`LOST_AFTER_S`."""
        with self._lock:
            losing, self._losing = self._losing, None
            if info.alive_count == 0:
                timer = threading.Timer(LOST_AFTER_S, lambda: self._lost(timer))
                timer.daemon = True
                self._losing = timer
                timer.start()
        if losing is not None:
            losing.cancel()
        if info.alive_count > 0:
            self._bridge_alive = True

    def _lost(self, timer: threading.Timer) -> None:
        """The bridge is gone (``timer`` ran out): the segments it was executing fail (no
        bridge reports their end any more)."""
        with self._lock:
            if self._losing is not timer:
                return  # heard again meanwhile
            self._losing = None
            self._bridge_alive = False
            lost, self._at_bridge = list(self._at_bridge.values()), {}
            self._bridge_idle.notify_all()
        self._fail(lost, "naoqi_bridge lost: not heard for %.1f s (killed, or its machine "
                   "gone) while it executed this motion" % (BRIDGE_LEASE_S + LOST_AFTER_S))

    @staticmethod
    def _fail(segments: List[MotionSegment], message: str) -> None:
        for segment in segments:
            if segment.on_failed is not None:
                segment.on_failed(message)

    @property
    def mode(self) -> str:
        """The ``motion_output`` it was made with: auto, bridge or direct."""
        return self._mode

    @property
    def bridge_ready(self) -> bool:
        """True when segments go to a bridge right now."""
        return (self._mode != "direct" and self._bridge_alive and self._bridge_connected
                and self._keyframes.get_subscription_count() > 0)

    def _on_status(self, message: MotionStatus) -> None:
        """The bridge's report on a segment: a failure reaches the segment's sender."""
        if message.status == MotionStatus.STARTED:
            return
        with self._lock:
            segment = self._at_bridge.pop(message.segment_id, None)
            self._bridge_idle.notify_all()
        if (segment is not None and message.status == MotionStatus.FAILED
                and segment.on_failed is not None):
            segment.on_failed(message.message)

    def send(self, segment: MotionSegment) -> None:
        """Execute ``segment``."""
        if not self.bridge_ready:
            if self._mode == "bridge":
                self._fail([segment], "motion_output is bridge and no naoqi_bridge connected "
                           "to the robot is up")
            else:
                self._direct.send(segment)
            return
        message = keyframes_message(segment.segment_id, segment.names, segment.times,
                                    segment.keys)
        message.header.stamp = self._clock.now().to_msg()
        with self._lock:
            self._at_bridge[segment.segment_id] = segment
        self._keyframes.publish(message)

    def stop(self, segment_id: int, spare: Collection[str] = ()) -> None:
        """Stop a segment sent by :meth:`send` (ended ones are ignored where they went).
        A segment the runner moves itself is stopped sparing ``spare`` and the joints of
        the segments at the bridge (a bridge that came up mid-run moves the newer ones)."""
        with self._lock:
            at_bridge = self._at_bridge.pop(segment_id, None) is not None
            self._bridge_idle.notify_all()
            spared = set(spare).union(*(segment.names for segment in self._at_bridge.values()))
        if at_bridge:
            message = MotionStop(segment_id=segment_id)
            message.header.stamp = self._clock.now().to_msg()
            self._stop.publish(message)
        else:
            self._direct.stop(segment_id, spared)

    def wait_all_ended(self, timeout: float) -> bool:
        """Wait until the bridge reported the end of every segment sent to it and the direct
        sink's calls answered; False on timeout."""
        deadline = time.monotonic() + timeout
        with self._bridge_idle:
            if not self._bridge_idle.wait_for(lambda: not self._at_bridge, timeout):
                return False
        return self._direct.wait_all_ended(max(0.0, deadline - time.monotonic()))

    def forget(self, reason: str) -> None:
        """The runner's robot connection is lost: the segments it executes itself fail now
        (the bridge reports its own)."""
        self._direct.forget(reason)
