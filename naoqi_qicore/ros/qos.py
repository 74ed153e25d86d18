"""QoS profiles shared by the nodes."""
from rclpy.duration import Duration
from rclpy.qos import (DurabilityPolicy, HistoryPolicy, LivelinessPolicy, QoSProfile,
                       ReliabilityPolicy)

#: State-like topics (behavior state, focus, connection, life state): the last sample
#: reaches late subscribers, which must use the same profile.
LATCHED = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL,
                     reliability=ReliabilityPolicy.RELIABLE)

#: Commands and event streams (motion segments, stops, statuses): every message counts.
COMMANDS = QoSProfile(depth=50, history=HistoryPolicy.KEEP_LAST,
                      durability=DurabilityPolicy.VOLATILE,
                      reliability=ReliabilityPolicy.RELIABLE)

#: Streams (``/tf``: tf2_ros's ``DynamicBroadcasterQoS``; a recorder's subscription to
#: ``joint_states``): 2 s at 50 Hz kept, so that a reader busy for a moment loses nothing.
#: (``/tf_static``, tf2_ros's ``StaticBroadcasterQoS``, is :data:`LATCHED`.)
STREAM = QoSProfile(depth=100, history=HistoryPolicy.KEEP_LAST,
                    durability=DurabilityPolicy.VOLATILE,
                    reliability=ReliabilityPolicy.RELIABLE)

#: DDS lease of naoqi_bridge's ``robot/connection`` publisher (s), asserted by DDS itself
#: (rmw_fastrtps: every 2/3 of it): a killed bridge (or a stalled one) goes unheard within
#: it. Short, so that the moment a bridge goes unheard is close to the moment it stalled
#: (see ``motion_sink.LOST_AFTER_S``)
BRIDGE_LEASE_S = 0.2

#: ``robot/connection``: latched, and naoqi_bridge's liveliness (:data:`BRIDGE_LEASE_S`);
#: a subscriber with the plain :data:`LATCHED` profile gets it too
BRIDGE_CONNECTION = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST,
                               durability=DurabilityPolicy.TRANSIENT_LOCAL,
                               reliability=ReliabilityPolicy.RELIABLE,
                               liveliness=LivelinessPolicy.AUTOMATIC,
                               liveliness_lease_duration=Duration(seconds=BRIDGE_LEASE_S))
