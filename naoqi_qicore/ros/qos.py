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

#: how long naoqi_bridge may go unheard before behavior_runner takes it for gone (s): the
#: DDS lease of its ``robot/connection`` publisher, asserted by DDS itself (a killed bridge
#: is noticed within it; a bridge process stalled for about a third of it is taken for
#: gone too, until it is heard again)
BRIDGE_LEASE_S = 0.6

#: ``robot/connection``: latched, and naoqi_bridge's liveliness (:data:`BRIDGE_LEASE_S`);
#: a subscriber with the plain :data:`LATCHED` profile gets it too
BRIDGE_CONNECTION = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST,
                               durability=DurabilityPolicy.TRANSIENT_LOCAL,
                               reliability=ReliabilityPolicy.RELIABLE,
                               liveliness=LivelinessPolicy.AUTOMATIC,
                               liveliness_lease_duration=Duration(seconds=BRIDGE_LEASE_S))
