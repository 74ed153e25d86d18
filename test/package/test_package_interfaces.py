"""The generated interfaces work between two processes over real DDS."""
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

rclpy = pytest.importorskip("rclpy")
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy  # noqa: E402

from naoqi_qicore.action import RunBehavior  # noqa: E402
from naoqi_qicore.msg import (ActivityFocus, BehaviorError, BehaviorState,  # noqa: E402
                              BehaviorWarning)
from naoqi_qicore.srv import GoTo  # noqa: E402

PEER = Path(__file__).with_name("interface_peer.py")
#: the type hash of tf2_msgs/msg/TFMessage in ROS 2 (as `ros2 topic info -v /tf` shows it)
TF_MESSAGE_HASH = "RIHS01_e369d0f05a23ae52508854b66f6aa0437f3449d652e8cbf22d5abe85d020f087"
LATCHED = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                     reliability=ReliabilityPolicy.RELIABLE)


def start_peer(role: str) -> subprocess.Popen:
    peer = subprocess.Popen([sys.executable, str(PEER), role], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert peer.stdout.readline().strip() == "ready"
    return peer


@pytest.fixture
def node() -> Iterator:
    rclpy.init()
    test_node = rclpy.create_node("interface_test")
    yield test_node
    test_node.destroy_node()
    rclpy.shutdown()


def test_type_names() -> None:
    assert GoTo.Request.get_fields_and_field_types() == {"label": "string", "frame": "int32"}
    assert GoTo.Request().frame == -1
    assert BehaviorState.__module__.startswith("naoqi_qicore.msg")
    assert [BehaviorState.IDLE, BehaviorState.LOADED, BehaviorState.PLAYING, BehaviorState.PAUSED,
            BehaviorState.STOPPED, BehaviorState.FINISHED, BehaviorState.ERROR] == list(range(7))
    assert BehaviorState.get_fields_and_field_types()["errors"] == \
        "sequence<naoqi_qicore/BehaviorError>"
    assert list(BehaviorError.get_fields_and_field_types()) == [
        "stamp", "box_path", "where", "exception_type", "message", "traceback"]
    assert RunBehavior.Goal.get_fields_and_field_types() == {
        "behavior": "string", "label": "string", "frame": "int32", "stack_current": "boolean"}
    assert RunBehavior.Goal().frame == -1
    assert BehaviorState.get_fields_and_field_types()["warnings"] == \
        "sequence<naoqi_qicore/BehaviorWarning>"
    assert list(BehaviorWarning.get_fields_and_field_types()) == [
        "stamp", "box_path", "where", "message"]
    assert list(RunBehavior.Result.get_fields_and_field_types()) == [
        "status", "frame", "duration", "message", "errors", "warnings"]
    assert RunBehavior.Feedback.get_fields_and_field_types() == {
        "state": "naoqi_qicore/BehaviorState"}


@pytest.mark.slow  # real processes: left out of make check
def test_goto_round_trips_between_processes(node) -> None:
    server = start_peer("serve")
    try:
        client = node.create_client(GoTo, "behavior/goto")
        assert client.wait_for_service(timeout_sec=15)
        # the server drops its answer to a client it has not discovered yet (a loaded
        # machine): ask again until one comes back
        response, deadline = None, time.monotonic() + 15
        while response is None and time.monotonic() < deadline:
            future = client.call_async(GoTo.Request(label="wave", frame=-1))
            rclpy.spin_until_future_complete(node, future, timeout_sec=2)
            response = future.result() if future.done() else None
        assert response is not None, "no answer in 15 s"
        assert response.success is True
        assert response.message == "label wave frame -1"
        assert response.frame == 42
        server.stdin.close()
        assert server.wait(timeout=15) == 0
    finally:
        server.kill()
        server.wait()


@pytest.mark.slow  # real processes: left out of make check
def test_state_and_focus_reach_a_late_subscriber(node) -> None:
    publisher = start_peer("publish")
    received = {}
    try:
        node.create_subscription(BehaviorState, "behavior/state",
                                 lambda msg: received.setdefault("state", msg), LATCHED)
        node.create_subscription(ActivityFocus, "behavior/focus",
                                 lambda msg: received.setdefault("focus", msg), LATCHED)
        deadline = time.monotonic() + 15
        while len(received) < 2 and time.monotonic() < deadline:
            rclpy.spin_once(node, timeout_sec=0.1)
    finally:
        publisher.stdin.close()
        publisher.wait(timeout=15)
    state, focus = received["state"], received["focus"]
    assert (state.behavior, state.status, state.frame, state.fps) == ("dance", 2, 17, 25.0)
    assert list(state.states) == ["Intro"]
    assert list(state.active_boxes) == ["root/Timeline", "root/Timeline/Say"]
    assert state.header.stamp.sec > 0
    assert (focus.focused_activity, focus.previous_activity) == ("pkg/dance", "pkg/idle")
    assert (focus.start_reason, focus.stop_reason) == ("unknown-api-caller",
                                                      "switchfocus-api-interrupt")
    assert list(focus.focus_stack) == ["pkg/idle"]


def _setup_function(name: str, namespace: dict):
    """A function of setup.py, defined without running setup()."""
    import ast
    source = Path(__file__).resolve().parents[2] / "setup.py"
    tree = ast.parse(source.read_text())
    [function] = [node for node in tree.body if isinstance(node, ast.FunctionDef)
                  and node.name == name]
    exec(compile(ast.Module(body=[function], type_ignores=[]), str(source), "exec"), namespace)
    return namespace[name]


def test_tf2_msgs_is_there_generated_unless_an_installation_has_its_own(tmp_path,
                                                                          monkeypatch) -> None:
    """The environment make setup builds has no tf2_msgs wheel: the build generated it
    (registered in the ament index, its .msg there for rosbag2 and recorders); a prefix on
    the build's search paths holding tf2_msgs' CMake package (a ROS 2 installation) is used
    instead."""
    import os
    from tf2_msgs.msg import TFMessage
    assert TFMessage.get_fields_and_field_types() == {
        "transforms": "sequence<geometry_msgs/TransformStamped>"}
    index = Path(sys.prefix) / "share" / "ament_index" / "resource_index"
    if (Path(sys.prefix) / "share" / "tf2_msgs" / "cmake").is_dir():
        pytest.skip("this environment has an installed tf2_msgs")
    assert (index / "packages" / "tf2_msgs").is_file()
    assert "msg/TFMessage.msg" in (index / "rosidl_interfaces" / "tf2_msgs").read_text().split()

    # ROS 2's own tf2_msgs gives /tf this type hash (Jazzy, Kilted): a ROS graph's RViz or
    # tf2 listener takes the generated type for it
    context = rclpy.Context()
    rclpy.init(context=context)
    try:
        node = rclpy.create_node("tf2_msgs_hash", context=context)
        topic = "/tf2_msgs_type_hash_%d" % os.getpid()
        node.create_publisher(TFMessage, topic, 1)
        [info] = node.get_publishers_info_by_topic(topic)
        assert str(info.topic_type_hash) == TF_MESSAGE_HASH
        node.destroy_node()
    finally:
        context.try_shutdown()

    namespace = {"os": os, "sys": sys, "Path": Path}
    _setup_function("_with_prefix", namespace)
    installed_elsewhere = _setup_function("_installed_elsewhere", namespace)
    monkeypatch.delenv("CMAKE_PREFIX_PATH", raising=False)
    monkeypatch.setenv("AMENT_PREFIX_PATH", str(tmp_path / "empty"))
    assert not installed_elsewhere("tf2_msgs")  # what this build generated does not count
    ros = tmp_path / "opt" / "ros"
    (ros / "share" / "tf2_msgs" / "cmake").mkdir(parents=True)
    (ros / "share" / "tf2_msgs" / "cmake" / "tf2_msgsConfig.cmake").write_text("")
    for variable in ("AMENT_PREFIX_PATH", "CMAKE_PREFIX_PATH"):
        monkeypatch.setenv(variable, str(ros))
        assert installed_elsewhere("tf2_msgs"), variable
        monkeypatch.setenv(variable, str(tmp_path / "empty"))
