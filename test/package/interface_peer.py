"""The other process of the interface tests: serves GoTo or publishes messages.

Usage: ``python interface_peer.py serve|publish``. It prints ``ready`` once its
endpoints exist and exits once the test closes its stdin (or after 30 s).
"""
import sys
import threading
import time

import rclpy
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

from naoqi_qicore.msg import ActivityFocus, BehaviorState
from naoqi_qicore.srv import GoTo

LATCHED = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                     reliability=ReliabilityPolicy.RELIABLE)


def serve(node) -> None:
    """Answer GoTo calls, echoing what was asked into the response, until the test closes
    stdin (or 30 s): a client may have to ask again, since the middleware drops an answer
    to a client the server has not discovered yet ("failed to send response")."""
    calls = []
    closed = threading.Event()

    def go_to(request, response):
        calls.append(request)
        response.success = request.label == "wave"
        response.message = "label %s frame %d" % (request.label, request.frame)
        response.frame = 42 if request.label else request.frame
        return response

    def read_until_closed() -> None:
        sys.stdin.read()
        closed.set()

    node.create_service(GoTo, "behavior/goto", go_to)
    threading.Thread(target=read_until_closed, daemon=True).start()
    print("ready", flush=True)
    deadline = time.monotonic() + 30
    while not closed.is_set() and time.monotonic() < deadline:
        rclpy.spin_once(node, timeout_sec=0.1)


def publish(node) -> None:
    """Publish one latched BehaviorState and one latched ActivityFocus."""
    state_pub = node.create_publisher(BehaviorState, "behavior/state", LATCHED)
    focus_pub = node.create_publisher(ActivityFocus, "behavior/focus", LATCHED)
    state = BehaviorState()
    state.header.stamp = node.get_clock().now().to_msg()
    state.behavior = "dance"
    state.status = BehaviorState.PLAYING
    state.frame = 17
    state.fps = 25.0
    state.states = ["Intro"]
    state.active_boxes = ["root/Timeline", "root/Timeline/Say"]
    focus = ActivityFocus()
    focus.stamp = state.header.stamp
    focus.focused_activity = "pkg/dance"
    focus.previous_activity = "pkg/idle"
    focus.start_reason = "unknown-api-caller"
    focus.stop_reason = "switchfocus-api-interrupt"
    focus.focus_stack = ["pkg/idle"]
    state_pub.publish(state)
    focus_pub.publish(focus)
    print("ready", flush=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and sys.stdin.readline() != "":
        pass  # the test closes stdin once it has read both messages


def main() -> None:
    rclpy.init()
    node = rclpy.create_node("interface_peer_" + sys.argv[1])
    try:
        {"serve": serve, "publish": publish}[sys.argv[1]](node)
    finally:
        node.destroy_node()
        rclpy.shutdown()


if __name__ == "__main__":
    main()
