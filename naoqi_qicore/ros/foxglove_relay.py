"""The robot and the run in Foxglove with no ROS on the viewing side: a Foxglove WebSocket
server (foxglove-sdk: subprotocol ``foxglove.sdk.v1``, as foxglove_bridge 3.2 and later) in
a node, relaying the topics of :data:`VIEWED_TOPICS` as they travel on the ROS graph.

:class:`FoxgloveRelay` advertises one channel per topic (its name resolved in the node's
namespace) with the encodings Foxglove decodes from foxglove_bridge: schema encoding
``ros2msg`` (the message definition with its dependencies, as recordings have it:
:mod:`~naoqi_qicore.ros.message_schemas`), message encoding ``cdr``, each message's bytes as
DDS carried them (raw subscriptions: nothing is deserialised), stamped with the time they
were received.  So the 3D panel shows the robot from ``/robot_description`` (boxes,
spheres and cylinders: no mesh to fetch) and the transforms, and the Raw Messages, Plot,
Log and Diagnostics panels read the rest.

A topic is subscribed on the ROS side only while a client is subscribed to its channel: with
no client the relay reads nothing (a look every :data:`UPDATE_PERIOD` s applies what
clients asked for).  A client subscribing to a latched topic (``robot_description``,
``/tf_static``, ``behavior/state``...) gets its publishers' last messages, as a ROS
subscriber that comes late does: the relay subscribes again and DDS hands the latched
messages over again (foxglove-sdk sends a message to every client subscribed to its
channel: those subscribed before get them once more).

Read only and local: the server advertises no capability (no publishing by clients, no
services, parameters, connection graph nor assets), listens on a loopback address unless
``allow_remote`` says otherwise, keeps at most :data:`MAX_CLIENTS` clients connected
(:mod:`~naoqi_qicore.ros.connection_limit`: one more is disconnected within
:data:`LIMIT_PERIOD` s, and so is a connection with no complete request within
:data:`~naoqi_qicore.ros.connection_limit.HANDSHAKE_TIMEOUT` s) and at most
:data:`BACKLOG` messages queued per client (the oldest are dropped for a client too slow to
read them).
"""
import ipaddress
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Set, Tuple

from diagnostic_msgs.msg import DiagnosticArray
from rcl_interfaces.msg import Log
from rclpy.node import Node
from rclpy.qos import QoSProfile

from naoqi_qicore.ros import diagnostics
from naoqi_qicore.ros.connection_limit import HANDSHAKE_TIMEOUT, ConnectionLimit
from naoqi_qicore.ros.message_schemas import (MESSAGE_ENCODING, SCHEMA_ENCODING,
                                              message_definition, type_name)
from naoqi_qicore.ros.qos import STREAM
from naoqi_qicore.ros.run_topics import RUN_TOPICS, latched

#: where the server listens unless told otherwise
LOOPBACK = "127.0.0.1"
#: where the nodes' log messages go (rcl's), for Foxglove's Log panel
ROSOUT_TOPIC = "/rosout"
#: the run's topics, the nodes' log messages and their diagnostics
VIEWED_TOPICS: List[Tuple[str, Any, QoSProfile]] = RUN_TOPICS + [
    (ROSOUT_TOPIC, Log, STREAM),
    (diagnostics.TOPIC, DiagnosticArray, STREAM),
]
#: clients connected at once, at most
MAX_CLIENTS = 8
#: messages queued for a client, at most (2.5 s of joint states and transforms at 50 Hz)
BACKLOG = 256
#: how often the relay applies the clients' subscriptions (s)
UPDATE_PERIOD = 0.2
#: how often it looks at the connected clients (s): a look reads every descriptor of the
#: process (0.3 ms for a bridge's 34)
LIMIT_PERIOD = 1.0


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address (``localhost``, 127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: it may name any address
        return False


def websocket_url(host: str, port: int) -> str:
    """The URL Foxglove opens for a server at ``host:port``."""
    return "ws://%s:%d" % ("[%s]" % host if ":" in host else host, port)


@dataclass
class _Relayed:
    """A topic relayed on a channel, and what clients asked of it."""

    topic: str
    message_type: Any
    qos: QoSProfile
    channel: Any
    #: the clients subscribed to the channel (their ids)
    clients: Set[int] = field(default_factory=set)
    #: the clients subscribed when the topic was subscribed on the ROS side
    served: Set[int] = field(default_factory=set)
    subscription: Any = None


class FoxgloveRelay:
    """Serves the :data:`VIEWED_TOPICS` of ``node`` to Foxglove on ``host:port`` (port 0:
    any free one; see the module).  ``ValueError`` (said why) when ``host`` is not a
    loopback address and ``allow_remote`` is False, when foxglove-sdk is not installed,
    a message definition is missing or the port cannot be had."""

    def __init__(self, node: Node, port: int, host: str = LOOPBACK,
                 allow_remote: bool = False) -> None:
        if not allow_remote and not is_loopback(host):
            raise ValueError("%s is not a loopback address: any machine of the network could "
                             "watch the robot" % host)
        try:
            import foxglove
        except ImportError:
            raise ValueError("the Foxglove server needs the foxglove-sdk Python package "
                             "(pip install foxglove-sdk)") from None
        self._node = node
        self._lock = threading.Lock()
        self._context = foxglove.Context()
        self._relayed: Dict[int, _Relayed] = {}
        for topic, message_type, qos in VIEWED_TOPICS:
            name = type_name(message_type)
            schema = foxglove.Schema(name=name, encoding=SCHEMA_ENCODING,
                                     data=message_definition(name).encode("utf-8"))
            resolved = node.resolve_topic_name(topic)
            channel = foxglove.Channel(resolved, schema=schema, context=self._context,
                                       message_encoding=MESSAGE_ENCODING)
            self._relayed[channel.id()] = _Relayed(resolved, message_type, qos, channel)
        try:
            self._server = foxglove.start_server(
                name=node.get_fully_qualified_name(), host=host, port=port, capabilities=[],
                server_listener=self, context=self._context, message_backlog_size=BACKLOG)
        except RuntimeError as error:
            self._close_channels()
            raise ValueError("cannot serve Foxglove on %s: %s"
                             % (websocket_url(host, port), error)) from None
        self.url = websocket_url(host, self._server.port)
        self._limit = ConnectionLimit(self._server.port, MAX_CLIENTS, self._refused,
                                      HANDSHAKE_TIMEOUT)
        if not self._limit.supported:
            node.get_logger().warning("foxglove: this system does not list a process's "
                                      "sockets: the clients are not limited to %d"
                                      % MAX_CLIENTS)
        self._clients_said = 0
        self._next_look = 0.0
        self._timer = node.create_timer(UPDATE_PERIOD, self._update)

    @property
    def port(self) -> int:
        """The port the server listens on."""
        return self._server.port

    @property
    def clients(self) -> int:
        """How many clients were connected at the last look (every :data:`LIMIT_PERIOD` s)."""
        return self._limit.clients

    # -- foxglove-sdk's ServerListener (called from its threads) ---------------------------
    def on_subscribe(self, client: Any, channel: Any) -> None:
        """A client subscribed to a channel: its topic is subscribed at the next update."""
        with self._lock:
            relayed = self._relayed.get(channel.id)
            if relayed is not None:
                relayed.clients.add(client.id)

    def on_unsubscribe(self, client: Any, channel: Any) -> None:
        """A client unsubscribed (or went away)."""
        with self._lock:
            relayed = self._relayed.get(channel.id)
            if relayed is not None:
                relayed.clients.discard(client.id)

    # -- the node's side (its executor's thread) -------------------------------------------
    def _update(self) -> None:
        """Subscribe to the topics clients want, again to a latched one a new client wants,
        and leave those no client wants; keep the clients within the limit."""
        if time.monotonic() >= self._next_look:
            self._next_look = time.monotonic() + LIMIT_PERIOD
            self._look_at_clients()
        with self._lock:
            wanted = [(relayed, set(relayed.clients)) for relayed in self._relayed.values()]
        for relayed, clients in wanted:
            again = latched(relayed.qos) and bool(clients - relayed.served)
            if relayed.subscription is not None and (again or not clients):
                self._node.destroy_subscription(relayed.subscription)
                relayed.subscription = None
            if clients and relayed.subscription is None:
                relayed.subscription = self._node.create_subscription(
                    relayed.message_type, relayed.topic, self._forward(relayed.channel),
                    relayed.qos, raw=True)
                relayed.served = clients

    def _look_at_clients(self) -> None:
        """Disconnect the clients beyond the limit; say how many are connected when that
        changes."""
        self._limit.enforce()
        if self.clients != self._clients_said:
            self._clients_said = self.clients
            self._node.get_logger().info("foxglove: %d client%s connected" % (
                self.clients, "" if self.clients == 1 else "s"))

    @staticmethod
    def _forward(channel: Any) -> Callable[[bytes], None]:
        return lambda data: channel.log(bytes(data), log_time=time.time_ns())

    def _refused(self, clients: int, peers: List[str]) -> None:
        self._node.get_logger().warning(
            "foxglove: disconnected %s (%d clients connected, %d at most; or no request "
            "within %g s)" % (", ".join(peers), clients, MAX_CLIENTS, HANDSHAKE_TIMEOUT),
            throttle_duration_sec=10.0)

    def _close_channels(self) -> None:
        for relayed in self._relayed.values():
            relayed.channel.close()

    def close(self) -> None:
        """Stop serving (clients are disconnected) and leave the topics."""
        self._node.destroy_timer(self._timer)
        self._server.stop()
        for relayed in self._relayed.values():
            if relayed.subscription is not None:
                self._node.destroy_subscription(relayed.subscription)
                relayed.subscription = None
        self._close_channels()
