"""Foxglove without ROS: naoqi_bridge's Foxglove server (``foxglove_port``,
``run_behavior --foxglove``), seen from a real client of the Foxglove WebSocket protocol
(``bench/foxglove_client.py``: subprotocol ``foxglove.sdk.v1``, subscriptions, binary
message frames decoded with mcap-ros2-support from the schemas the server advertised).

The relay's own behaviour is checked in-process (the relay on the probe's node, with
publishers of its own); the run with the simulated robot, the bridge and the runner end to
end."""
import socket
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from dataclasses import dataclass
from typing import Any, Iterator, List

import pytest

pytest.importorskip("foxglove", reason="needs foxglove-sdk (.setup/requirements.txt)")
websocket = pytest.importorskip("websocket", reason="needs websocket-client "
                                                     "(.setup/requirements.txt)")
psutil = pytest.importorskip("psutil")
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import String  # noqa: E402
from tf2_msgs.msg import TFMessage  # noqa: E402

from naoqi_qicore.msg import MotionStop  # noqa: E402
from naoqi_qicore.robot.sim.joints import JointTable  # noqa: E402
from naoqi_qicore.ros import foxglove_relay  # noqa: E402
from naoqi_qicore.ros import connection_limit  # noqa: E402
from naoqi_qicore.ros.connection_limit import ConnectionLimit  # noqa: E402
from naoqi_qicore.ros.foxglove_relay import (MAX_CLIENTS, VIEWED_TOPICS,  # noqa: E402
                                             FoxgloveRelay, is_loopback)
from naoqi_qicore.ros.joint_states import JOINT_STATES_QOS  # noqa: E402
from naoqi_qicore.ros.launcher import free_tcp_port, python_program  # noqa: E402
from naoqi_qicore.ros.message_schemas import message_definition, type_name  # noqa: E402
from naoqi_qicore.ros.qos import LATCHED  # noqa: E402
from naoqi_qicore.ros.robot_transforms import transform_message  # noqa: E402
from process_tools import AutoplayLauncher, wait_until  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from foxglove_client import FoxgloveClient  # noqa: E402

BEHAVIOR_STATE_LOADED, BEHAVIOR_STATE_FINISHED = 1, 5
URDF = '<?xml version="1.0"?>\n<robot name="test"><link name="base_link"/></robot>\n'


@dataclass
class Served:
    """The relay on the probe's node, with publishers of some viewed topics; ``stops``:
    what the node receives on ``motion/stop``."""

    node: Any
    relay: FoxgloveRelay
    url: str
    joint_states: Any
    description: Any
    static: Any
    stops: List[Any]

    def subscribers(self, topic: str) -> int:
        return self.node.count_subscribers(topic)


@pytest.fixture
def served(probe) -> Iterator[Served]:
    node = probe.node
    stops = probe.listen(MotionStop, "motion/stop", latched=False)
    publishers = probe.made(lambda: (
        node.create_publisher(JointState, "joint_states", JOINT_STATES_QOS),
        node.create_publisher(String, "robot_description", LATCHED),
        node.create_publisher(TFMessage, "/tf_static", LATCHED)))
    relay = probe.made(lambda: FoxgloveRelay(node, 0))
    yield Served(node, relay, "ws://127.0.0.1:%d" % relay.port, *publishers, stops)
    probe.made(relay.close)


@pytest.fixture
def clients() -> Iterator[Any]:
    """Open Foxglove clients; all are closed at the end of the test."""
    opened: List[FoxgloveClient] = []

    def connect(url: str) -> FoxgloveClient:
        client = FoxgloveClient(url)
        opened.append(client)
        client.wait_for(lambda: client.server_info and client.channels)
        return client

    yield connect
    for client in opened:
        client.close()


def test_loopback_addresses() -> None:
    assert all(is_loopback(host) for host in ("127.0.0.1", "127.0.0.53", "::1", "localhost"))
    assert not any(is_loopback(host) for host in ("0.0.0.0", "::", "10.0.0.5", "robot.local",
                                                  ""))


def test_every_viewed_topic_is_a_channel_in_the_encodings_of_ros_2(served, clients) -> None:
    client = clients(served.url)
    assert client.subprotocol == "foxglove.sdk.v1"
    # read only: no publishing by clients, no services, parameters, graph nor assets
    assert client.server_info["capabilities"] == []
    assert set(client.channels) == {served.node.resolve_topic_name(topic)
                                    for topic, _, _ in VIEWED_TOPICS}
    types = {served.node.resolve_topic_name(topic): type_name(message_type)
             for topic, message_type, _ in VIEWED_TOPICS}
    for topic, channel in client.channels.items():
        assert (channel["encoding"], channel["schemaEncoding"]) == ("cdr", "ros2msg")
        assert channel["schemaName"] == types[topic]
        assert channel["schema"] == message_definition(types[topic])


def test_a_topic_is_read_only_while_a_client_subscribes_to_it(served, clients) -> None:
    assert served.subscribers("/joint_states") == 0
    client = clients(served.url)
    time.sleep(0.5)  # a few updates of the relay: a connected client alone subscribes nothing
    assert served.subscribers("/joint_states") == 0
    client.subscribe("/joint_states")
    wait_until(lambda: served.subscribers("/joint_states") == 1, 5, "the relay subscribed")
    wait_until(lambda: served.joint_states.get_subscription_count() == 1, 5, "matched")
    for index in range(5):
        served.joint_states.publish(JointState(name=["HeadYaw", "HeadPitch"],
                                               position=[0.1 * index, -0.2]))
    wait_until(lambda: len(client.received("/joint_states")) == 5, 5, "5 joint states")
    decoded = client.decoded("/joint_states")
    assert [list(m.name) for m in decoded] == [["HeadYaw", "HeadPitch"]] * 5
    assert [m.position[0] for m in decoded] == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.4])
    assert served.subscribers("/tf") == 0  # nobody asked for it
    client.close()
    wait_until(lambda: served.subscribers("/joint_states") == 0, 5, "the relay unsubscribed")


def test_a_client_coming_late_gets_the_latched_messages(served, clients) -> None:
    served.description.publish(String(data=URDF))
    fixed = transform_message("base_link", "torso", (0.0, 0.0, 0.1), (0.0, 0.0, 0.0, 1.0))
    served.static.publish(TFMessage(transforms=[fixed]))
    first = clients(served.url)
    first.subscribe("/robot_description", "/tf_static")
    first.wait_for(lambda: first.received("/robot_description") and first.received("/tf_static"))
    late = clients(served.url)
    late.subscribe("/robot_description", "/tf_static")
    late.wait_for(lambda: late.received("/robot_description") and late.received("/tf_static"))
    assert [m.data for m in late.decoded("/robot_description")] == [URDF]
    [static] = late.decoded("/tf_static")
    assert [(t.header.frame_id, t.child_frame_id) for t in static.transforms] == [
        ("base_link", "torso")]
    # the first client got them again (the server sends a channel's messages to all its
    # subscribers): the same messages, nothing else
    assert {m.data for m in first.decoded("/robot_description")} == {URDF}


def test_clients_can_neither_publish_nor_call_nor_fetch(served, clients) -> None:
    client = clients(served.url)
    client.send({"op": "advertise", "channels": [{
        "id": 1, "topic": "/motion/stop", "encoding": "cdr",
        "schemaName": "naoqi_qicore/msg/MotionStop"}]})
    client.send({"op": "getParameters", "parameterNames": ["/robot_description"], "id": "1"})
    client.send({"op": "setParameters", "parameters": [{"name": "foxglove_port", "value": 1}]})
    client.send({"op": "subscribeConnectionGraph"})
    client.send({"op": "fetchAsset", "uri": "file:///etc/passwd", "requestId": 1})
    refused = client.wait_for(lambda: len(client.statuses) >= 5 and client.statuses)
    messages = " ".join(status["message"] for status in refused)
    for capability in ("clientPublish", "parameters", "connection graph", "assets"):
        assert "does not support %s" % capability in messages
    time.sleep(0.3)
    assert served.stops == [] and served.subscribers("/motion/stop") == 1  # the probe's own


def test_clients_beyond_the_limit_are_disconnected(served, clients) -> None:
    connected = [clients(served.url) for _ in range(MAX_CLIENTS)]
    wait_until(lambda: served.relay.clients == MAX_CLIENTS, 5, "the clients counted")
    assert _disconnected(served.url)
    time.sleep(0.5)
    assert not any(client.closed.is_set() for client in connected)
    # once a client leaves, another may come
    connected[0].close()
    wait_until(lambda: served.relay.clients == MAX_CLIENTS - 1, 5, "one gone")
    newcomer = clients(served.url)
    wait_until(lambda: served.relay.clients == MAX_CLIENTS, 5, "the newcomer counted")
    assert not newcomer.closed.is_set()


def test_connections_that_never_send_a_request_cannot_hold_the_places(
        probe, clients, monkeypatch) -> None:
    monkeypatch.setattr(foxglove_relay, "HANDSHAKE_TIMEOUT", 1.0)
    relay = probe.made(lambda: FoxgloveRelay(probe.node, 0))
    idle: List[socket.socket] = []
    try:
        idle += [socket.create_connection(("127.0.0.1", relay.port))
                 for _ in range(MAX_CLIENTS)]
        wait_until(lambda: relay.clients == MAX_CLIENTS, 5, "the idle connections counted")
        for connection in idle:  # shut down once their time to send a request is over
            connection.settimeout(10)
            assert connection.recv(1) == b""
        client = clients("ws://127.0.0.1:%d" % relay.port)
        wait_until(lambda: relay.clients == 1, 5, "the client counted")
        time.sleep(2.5)  # beyond its time: the server answered it, it stays
        assert not client.closed.is_set() and relay.clients == 1
    finally:
        for connection in idle:
            connection.close()
        probe.made(relay.close)


def _other_addresses() -> List[str]:
    """This machine's IPv4 addresses other than loopback ones."""
    return [address.address for addresses in psutil.net_if_addrs().values()
            for address in addresses
            if address.family == socket.AF_INET and not is_loopback(address.address)]


def test_the_server_listens_on_loopback_only_and_stops_with_nothing_left(probe) -> None:
    process = psutil.Process()
    threads = None
    for _ in range(3):
        relay = probe.made(lambda: FoxgloveRelay(probe.node, 0))
        port = relay.port
        assert [c.laddr.ip for c in process.net_connections("tcp")
                if c.status == psutil.CONN_LISTEN and c.laddr.port == port] == ["127.0.0.1"]
        for address in _other_addresses():  # not reachable from another interface
            with socket.socket() as other:
                other.settimeout(2)
                assert other.connect_ex((address, port)) != 0
        client = FoxgloveClient("ws://127.0.0.1:%d" % port)
        try:
            client.subscribe("/joint_states")
            wait_until(lambda: probe.node.count_subscribers("/joint_states") == 1, 5,
                       "the relay subscribed")
            probe.made(relay.close)
            assert client.closed.wait(5)  # the server ended the connection
        finally:
            client.close()
        wait_until(lambda: probe.node.count_subscribers("/joint_states") == 0, 5,
                   "the relay's subscription gone")
        assert _port_freed(port, 5.0)  # the server's socket is closed (the SDK does it in
        # its own thread, shortly after stop returns)
        # foxglove-sdk keeps one runtime for the process: started and stopped again, the
        # servers leave no thread behind
        if threads is None:
            threads = process.num_threads()
        deadline = time.monotonic() + 5.0  # a thread of this process's earlier tests may
        while process.num_threads() > threads and time.monotonic() < deadline:  # be ending
            time.sleep(0.05)
        assert process.num_threads() <= threads


def _port_freed(port: int, timeout: float) -> bool:
    """Whether ``port`` of 127.0.0.1 can be bound again within ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_server(("127.0.0.1", port)).close()
            return True
        except OSError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)


def _disconnected(url: str) -> bool:
    """Whether the server ends a new connection within 5 s (in its handshake or after)."""
    try:
        client = FoxgloveClient(url)
    except (OSError, websocket.WebSocketException):
        return True
    try:
        return client.closed.wait(5)
    finally:
        client.close()


def test_a_connection_limit_shuts_down_the_connections_beyond(tmp_path) -> None:
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    accepted: List[socket.socket] = []
    peers = [socket.create_connection(("127.0.0.1", port)) for _ in range(5)]
    for _ in peers:
        accepted.append(server.accept()[0])
    reported: List[Any] = []
    limit = ConnectionLimit(port, 3, lambda kept, refused: reported.append((kept, refused)))
    try:
        assert limit.enforce() == 2 and limit.clients == 3
        [(kept, refused)] = reported
        assert kept == 3 and len(refused) == 2
        ends = []
        for peer in peers:
            peer.settimeout(0.3)
            try:
                ends.append(peer.recv(1) == b"")
            except socket.timeout:
                ends.append(False)
        assert ends == [False, False, False, True, True]
        # those shut down are not refused again while the server has not closed them yet
        assert limit.enforce() == 0 and len(reported) == 1
        accepted[0].close()
        assert limit.enforce() == 0 and limit.clients == 2
    finally:
        for open_socket in peers + accepted + [server]:
            open_socket.close()


def test_a_connection_limit_shuts_down_connections_the_server_never_answered() -> None:
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    now = [0.0]
    limit = ConnectionLimit(port, 3, lambda kept, refused: None, handshake_timeout=10.0,
                            clock=lambda: now[0])
    peers = [socket.create_connection(("127.0.0.1", port)) for _ in range(2)]
    accepted = [server.accept()[0] for _ in peers]
    try:
        accepted[0].sendall(b"HTTP/1.1 101 Switching Protocols\r\n\r\n")
        peers[0].recv(64)
        assert limit.enforce() == 0 and limit.clients == 2
        now[0] = 9.0
        assert limit.enforce() == 0 and limit.clients == 2  # still in its time
        now[0] = 10.0
        wait_until(lambda: connection_limit.bytes_answered(accepted[0]) > 0, 5, "acked")
        assert limit.enforce() == 1 and limit.clients == 1
        peers[1].settimeout(2)
        assert peers[1].recv(1) == b""  # the silent one: shut down
        peers[0].settimeout(0.3)
        with pytest.raises(socket.timeout):  # the answered one: kept
            peers[0].recv(1)
    finally:
        for open_socket in peers + accepted + [server]:
            open_socket.close()


def test_the_bridge_serves_no_other_address_unless_allowed() -> None:
    bridge = subprocess.run(python_program(
        "naoqi_qicore.ros.bridge", "--ros-args", "-p", "robot_url:=tcp://127.0.0.1:1",
        "-p", "foxglove_port:=0", "-p", "foxglove_host:=0.0.0.0"),
        capture_output=True, text=True, timeout=60)
    assert bridge.returncode == 2
    assert "foxglove_host 0.0.0.0 is not a loopback address" in bridge.stderr
    assert "foxglove_allow_remote:=true" in bridge.stderr


def _connect(url: str, launcher: AutoplayLauncher) -> FoxgloveClient:
    """A client of the server once it listens (the bridge takes a moment to start)."""
    deadline = time.monotonic() + 60
    while True:
        assert launcher.process.poll() is None, "\n".join(launcher.lines)
        try:
            return FoxgloveClient(url)
        except (OSError, websocket.WebSocketException):
            assert time.monotonic() < deadline, "no Foxglove server at %s" % url
            time.sleep(0.1)


@pytest.mark.slow
def test_foxglove_sees_the_robot_wave_during_a_run(example_behavior, repo_root, probe) -> None:
    """``run_behavior wave_hello --foxglove PORT``: a client subscribed before the run sees
    the joints move, the transforms, what the robot says and the behavior's state; one
    coming after it gets the robot's description and fixed transforms."""
    from naoqi_qicore.srv import Play
    port = free_tcp_port()
    url = "ws://127.0.0.1:%d" % port
    launcher = AutoplayLauncher(example_behavior, repo_root, "--foxglove", str(port),
                                autoplay=False)
    watcher = late = None
    children = []
    try:
        assert launcher.wait_for("run_behavior: Foxglove at ") == \
            "run_behavior: Foxglove at %s (Open connection, Foxglove WebSocket)" % url
        watcher = _connect(url, launcher)
        watcher.subscribe("/joint_states", "/tf", "/behavior/state", "/robot/speech")
        # behavior/state comes from the runner, through the bridge's relay
        watcher.wait_for(lambda: any(s.status == BEHAVIOR_STATE_LOADED
                                     for s in watcher.decoded("/behavior/state")), 90)
        watcher.wait_for(lambda: len(watcher.received("/joint_states")) > 10, 30)
        assert probe.call(Play, "behavior/play", timeout=30).success
        watcher.wait_for(lambda: watcher.decoded("/behavior/state")[-1].status
                         == BEHAVIOR_STATE_FINISHED, 60)
        watcher.wait_for(lambda: len(watcher.received("/robot/speech")) == 2, 10)

        nao = JointTable("nao").body
        joint_states = watcher.decoded("/joint_states")
        assert all(list(m.name) == nao for m in joint_states)
        shoulder = [m.position[nao.index("RShoulderPitch")] for m in joint_states]
        assert max(shoulder) - min(shoulder) > 0.5  # the wave
        times = [log_time / 1e9 for log_time, _ in watcher.received("/joint_states")]
        assert (len(times) - 1) / (times[-1] - times[0]) >= 20.0
        frames = {(t.header.frame_id, t.child_frame_id)
                  for m in watcher.decoded("/tf")[-5:] for t in m.transforms}
        assert {("odom", "base_link"), ("RElbow", "RForeArm")} <= frames
        assert [m.data for m in watcher.decoded("/robot/speech")] == [
            "Hello, I am NAO. Watch me wave!", "Goodbye!"]

        late = _connect(url, launcher)
        late.subscribe("/robot_description", "/tf_static")
        late.wait_for(lambda: late.received("/robot_description") and
                      late.received("/tf_static"), 10)
        urdf = ET.fromstring(late.decoded("/robot_description")[-1].data)
        assert urdf.get("name") == "nao"
        # simple shapes only: Foxglove draws them with no ROS package to fetch meshes from
        shapes = {shape.tag for geometry in urdf.iter("geometry") for shape in geometry}
        assert shapes and shapes <= {"box", "sphere", "cylinder"}
        static = late.decoded("/tf_static")[-1]
        assert ("base_link", "torso") in [(t.header.frame_id, t.child_frame_id)
                                          for t in static.transforms]
        children = psutil.Process(launcher.process.pid).children(recursive=True)
        assert launcher.interrupt() == 0
        assert psutil.wait_procs(children, timeout=10)[1] == []
    finally:
        for client in (watcher, late):
            if client is not None:
                client.close()
        launcher.close(children)
