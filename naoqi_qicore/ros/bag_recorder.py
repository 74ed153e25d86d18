"""A run recorded as an MCAP file that ``ros2 bag info``, ``ros2 bag play`` and Foxglove open.

:class:`BagRecorder` subscribes, on the node it is given (behavior_runner's), to the topics
of a run (:data:`~naoqi_qicore.ros.run_topics.RUN_TOPICS`: the robot's joint states,
description and transforms (``/tf``, ``/tf_static``) from naoqi_bridge, the behavior's state
and focus, what the robot said and heard, the motion segments and the robot connection) and
writes every message it receives, as it receives it, the way rosbag2's MCAP storage does:

* the ``ros2`` profile; a schema per message type, named ``package/msg/Type``, encoding
  ``ros2msg`` (:mod:`~naoqi_qicore.ros.message_schemas`);
* a channel per topic (its full name), message encoding ``cdr``, with the metadata rosbag2
  replays from: ``offered_qos_profiles`` (the QoS the topic's publishers offer, so that a
  latched topic plays back latched) and ``topic_type_hash``;
* each message's CDR bytes as received, stamped with the time it was received (ns).

The file is created when the recorder starts (never over an existing file) and finished
(summary, statistics) when it is closed.
"""
import threading
import time
from pathlib import Path
from typing import Any, Dict, List

import yaml
from mcap.writer import CompressionType, Writer
from rclpy.node import Node
from rclpy.qos import QoSProfile
from rclpy.serialization import deserialize_message

from naoqi_qicore.msg import RobotConnection
from naoqi_qicore.ros.message_schemas import (MESSAGE_ENCODING, SCHEMA_ENCODING,
                                              message_definition, type_name)
from naoqi_qicore.ros.run_topics import RUN_TOPICS

#: the robot's streams (naoqi_bridge's): the first play waits until the recorder is connected
#: to their publishers and naoqi_bridge says it is connected to the robot (its ALMemory
#: subscriptions for what the robot says and hears are made by then)
ROBOT_STREAMS = ("joint_states", "robot/speech", "robot/heard")
#: how long that first play waits at most (s)
STREAMS_TIMEOUT = 5.0
PROFILE = "ros2"


def _duration(nanoseconds: int) -> Dict[str, int]:
    return {"sec": nanoseconds // 1_000_000_000, "nsec": nanoseconds % 1_000_000_000}


def offered_qos_profiles(profiles: List[QoSProfile]) -> str:
    """QoS profiles as rosbag2 keeps them in a channel's metadata (the enumerations as
    numbers: read by every rosbag2 since Humble)."""
    return yaml.safe_dump([{
        "history": int(qos.history), "depth": int(qos.depth),
        "reliability": int(qos.reliability), "durability": int(qos.durability),
        "deadline": _duration(qos.deadline.nanoseconds),
        "lifespan": _duration(qos.lifespan.nanoseconds),
        "liveliness": int(qos.liveliness),
        "liveliness_lease_duration": _duration(qos.liveliness_lease_duration.nanoseconds),
        "avoid_ros_namespace_conventions": bool(qos.avoid_ros_namespace_conventions),
    } for qos in profiles], sort_keys=False)


class BagRecorder:
    """Records the :data:`~naoqi_qicore.ros.run_topics.RUN_TOPICS` of ``node``'s namespace
    into the MCAP file ``path``.

    ``ValueError`` when the file exists, cannot be created, or a message definition is
    missing (then no file is left behind).
    """

    def __init__(self, node: Node, path: str) -> None:
        self._node = node
        self.path = Path(path).expanduser().absolute()
        schemas = {type_name(t): message_definition(type_name(t)) for _, t, _ in RUN_TOPICS}
        try:
            self._file = open(self.path, "xb")  # never over an existing file or link
        except OSError as error:
            raise ValueError("cannot create the bag file %s: %s"
                             % (self.path, error.strerror or error)) from None
        self._lock = threading.Lock()
        self._writer = Writer(self._file, compression=CompressionType.ZSTD)
        self._writer.start(profile=PROFILE, library="naoqi_qicore")
        self._schema_ids = {name: self._writer.register_schema(name, SCHEMA_ENCODING,
                                                               text.encode("utf-8"))
                            for name, text in schemas.items()}
        self._channels: Dict[str, int] = {}
        self._sequences: Dict[str, int] = {}
        self._closed = False
        self._streams_awaited = False
        self._robot_connected = threading.Event()
        # last: the node may be spinning, and a latched message is received at once
        self._subscriptions = {
            topic: node.create_subscription(message_type, topic,
                                            self._receiver(topic, message_type, qos),
                                            qos, raw=True)
            for topic, message_type, qos in RUN_TOPICS}

    def wait_for_robot_streams(self, timeout: float = STREAMS_TIMEOUT) -> List[str]:
        """Once (the first play): wait until each of :data:`ROBOT_STREAMS` has a publisher
        this recorder is connected to and naoqi_bridge reports on ``robot/connection`` that
        it is connected to the robot, so that the run is recorded from its first movement
        and sentence (discovery and the bridge's connection take a moment after the nodes
        start).  The topics still not streamed after ``timeout`` s (all of them while the
        bridge is not connected); later calls return [] at once."""
        if self._streams_awaited:
            return []
        self._streams_awaited = True
        deadline = time.monotonic() + timeout
        while True:
            missing = [self._subscriptions[topic].topic_name for topic in ROBOT_STREAMS
                       if self._subscriptions[topic].get_publisher_count() == 0
                       or not self._robot_connected.is_set()]
            if not missing or time.monotonic() >= deadline:
                return missing
            time.sleep(0.02)

    def _receiver(self, topic: str, message_type: Any, qos: QoSProfile) -> Any:
        name = type_name(message_type)
        resolved = self._node.resolve_topic_name(topic)
        if message_type is not RobotConnection:
            return lambda data: self._write(resolved, name, qos, data)

        def receive_connection(data: bytes) -> None:
            self._write(resolved, name, qos, data)
            state = deserialize_message(bytes(data), RobotConnection).state
            if state == RobotConnection.CONNECTED:
                self._robot_connected.set()
            else:
                self._robot_connected.clear()
        return receive_connection

    def _channel(self, topic: str, type_name_: str, qos: QoSProfile) -> int:
        channel = self._channels.get(topic)
        if channel is None:
            publishers = self._node.get_publishers_info_by_topic(topic)
            profiles = [info.qos_profile for info in publishers] or [qos]
            hashes = {str(info.topic_type_hash) for info in publishers
                      if getattr(info, "topic_type_hash", None) is not None}
            channel = self._channels[topic] = self._writer.register_channel(
                topic, MESSAGE_ENCODING, self._schema_ids[type_name_], {
                    "offered_qos_profiles": offered_qos_profiles(profiles),
                    "topic_type_hash": hashes.pop() if len(hashes) == 1 else ""})
        return channel

    def _write(self, topic: str, type_name_: str, qos: QoSProfile, data: bytes) -> None:
        now = time.time_ns()
        with self._lock:
            if self._closed:
                return
            channel = self._channel(topic, type_name_, qos)
            sequence = self._sequences[topic] = self._sequences.get(topic, 0) + 1
            self._writer.add_message(channel, log_time=now, data=bytes(data), publish_time=now,
                                     sequence=sequence)

    def close(self) -> None:
        """Stop recording and finish the file."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        for subscription in self._subscriptions.values():
            self._node.destroy_subscription(subscription)
        with self._lock:
            self._writer.finish()
            self._file.close()

