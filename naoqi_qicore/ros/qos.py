"""QoS profiles shared by the nodes."""
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

#: State-like topics (behavior state, focus, connection, life state): the last sample
#: reaches late subscribers, which must use the same profile.
LATCHED = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL,
                     reliability=ReliabilityPolicy.RELIABLE)

#: Commands and event streams (motion segments, stops, statuses): every message counts.
COMMANDS = QoSProfile(depth=50, history=HistoryPolicy.KEEP_LAST,
                      durability=DurabilityPolicy.VOLATILE,
                      reliability=ReliabilityPolicy.RELIABLE)
