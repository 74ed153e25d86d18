"""A client of the Foxglove WebSocket protocol, doing what Foxglove does when it opens a
server (``ws://...``): it reads the server's info and its channels, subscribes to channels
by topic, and receives their messages; ROS 2 ones (schema encoding ``ros2msg``, message
encoding ``cdr``) are decoded with mcap-ros2-support, from the schema the server advertised.

    with FoxgloveClient("ws://127.0.0.1:8765") as client:
        client.subscribe("/joint_states")
        ...
        client.decoded("/joint_states")     # every message received, decoded

What naoqi_bridge's Foxglove server's tests and ``bench_bridge_readings.py --foxglove-clients``
use (websocket-client).
"""
import json
import struct
import threading
from typing import Any, Callable, Dict, Iterable, List, Tuple

import websocket
from mcap.records import Schema
from mcap_ros2.decoder import DecoderFactory

from chromium_page import poll

#: the subprotocol foxglove-sdk's server speaks (Foxglove offers it and the older
#: ``foxglove.websocket.v1``, which the server refuses)
SUBPROTOCOL = "foxglove.sdk.v1"
#: the first byte of a server's binary frame carrying a message: opcode, subscription id
#: (uint32), log time (uint64, ns), then the message
MESSAGE_DATA = 1
_MESSAGE_HEADER = struct.Struct("<BIQ")


class FoxgloveClient:
    """Connected to ``url`` until :meth:`close`; a thread of its own reads what the server
    sends.  ``server_info`` is the server's first message; ``channels`` the advertised
    channels by topic; ``statuses`` the status messages the server sent."""

    def __init__(self, url: str, timeout: float = 10.0, subprotocol: str = SUBPROTOCOL) -> None:
        self._socket = websocket.create_connection(url, subprotocols=[subprotocol],
                                                   timeout=timeout)
        self.subprotocol = self._socket.getsubprotocol()
        self._lock = threading.Lock()
        self.server_info: Dict[str, Any] = {}
        self.channels: Dict[str, Dict[str, Any]] = {}
        self.statuses: List[Dict[str, Any]] = []
        #: topic -> [(log time in ns, message bytes)], in the order received
        self.messages: Dict[str, List[Tuple[int, bytes]]] = {}
        self._subscriptions: Dict[int, str] = {}
        self._decoders: Dict[str, Callable[[bytes], Any]] = {}
        self.closed = threading.Event()
        self._socket.settimeout(None)
        self._reader = threading.Thread(target=self._read, daemon=True, name="foxglove client")
        self._reader.start()

    def __enter__(self) -> "FoxgloveClient":
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()

    def _read(self) -> None:
        try:
            while True:
                frame = self._socket.recv()
                if isinstance(frame, bytes):
                    self._message(frame)
                elif frame:
                    self._control(json.loads(frame))
                else:  # the server closed the connection
                    return
        except (websocket.WebSocketException, OSError):
            return
        finally:
            self.closed.set()

    def _control(self, message: Dict[str, Any]) -> None:
        with self._lock:
            if message["op"] == "serverInfo":
                self.server_info = message
            elif message["op"] == "advertise":
                self.channels.update({channel["topic"]: channel
                                      for channel in message["channels"]})
            elif message["op"] == "status":
                self.statuses.append(message)

    def _message(self, frame: bytes) -> None:
        if frame[0] != MESSAGE_DATA:
            return
        _, subscription, log_time = _MESSAGE_HEADER.unpack_from(frame)
        with self._lock:
            topic = self._subscriptions.get(subscription)
            if topic is not None:
                self.messages.setdefault(topic, []).append(
                    (log_time, frame[_MESSAGE_HEADER.size:]))

    @staticmethod
    def wait_for(predicate: Callable[[], Any], timeout: float = 10.0,
                 what: str = "the Foxglove server") -> Any:
        """Poll ``predicate`` until it returns something true (returned); ``TimeoutError``
        after ``timeout`` s."""
        return poll(predicate, timeout, what)

    def send(self, message: Dict[str, Any]) -> None:
        """Send a JSON message (an ``op`` of the protocol)."""
        self._socket.send(json.dumps(message))

    def subscribe(self, *topics: str, timeout: float = 10.0) -> None:
        """Subscribe to the channels of ``topics`` once they are advertised."""
        self.wait_for(lambda: all(topic in self.channels for topic in topics), timeout)
        with self._lock:
            subscriptions = []
            for topic in topics:
                subscription = len(self._subscriptions) + 1
                self._subscriptions[subscription] = topic
                subscriptions.append({"id": subscription,
                                      "channelId": self.channels[topic]["id"]})
        self.send({"op": "subscribe", "subscriptions": subscriptions})

    def received(self, topic: str) -> List[Tuple[int, bytes]]:
        """The messages of ``topic`` received so far: (log time, bytes)."""
        with self._lock:
            return list(self.messages.get(topic, []))

    def decoded(self, topic: str) -> List[Any]:
        """The messages of ``topic`` received so far, decoded from their CDR bytes with the
        ``ros2msg`` schema the server advertised for the channel."""
        decoder = self._decoders.get(topic)
        if decoder is None:
            channel = self.channels[topic]
            assert (channel["encoding"], channel["schemaEncoding"]) == ("cdr", "ros2msg"), \
                channel
            decoder = DecoderFactory().decoder_for("cdr", Schema(
                id=channel["id"], name=channel["schemaName"], encoding="ros2msg",
                data=channel["schema"].encode("utf-8")))
            self._decoders[topic] = decoder
        return [decoder(data) for _, data in self.received(topic)]

    def counts(self, topics: Iterable[str]) -> Dict[str, int]:
        """How many messages of each of ``topics`` were received so far."""
        with self._lock:
            return {topic: len(self.messages.get(topic, [])) for topic in topics}

    def close(self) -> None:
        """Close the connection (the reading thread ends)."""
        self._socket.close()
        self._reader.join(5)
