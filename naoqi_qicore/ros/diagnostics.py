"""``/diagnostics`` (diagnostic_msgs/DiagnosticArray) of our nodes, without diagnostic_updater.

A :class:`Diagnostics` publishes what its ``statuses()`` function returns once a second and
whenever :meth:`Diagnostics.update` finds it changed.  Status names are
``naoqi_qicore: <node> <what>`` and hardware_id is the robot URL without credentials.
"""
import threading
from typing import Callable, Dict, List, Optional

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from rclpy.node import Node

from naoqi_qicore.robot.session import ConnectionState, RobotSession, strip_credentials

OK = DiagnosticStatus.OK
WARN = DiagnosticStatus.WARN
ERROR = DiagnosticStatus.ERROR
#: the usual period of /diagnostics (s)
PERIOD = 1.0
TOPIC = "/diagnostics"


def status(node: Node, what: str, level: bytes, message: str, hardware_id: str,
           values: Dict[str, object]) -> DiagnosticStatus:
    """A DiagnosticStatus named ``naoqi_qicore: <node name> <what>`` (texts without credentials)."""
    return DiagnosticStatus(
        level=level, name="naoqi_qicore: %s %s" % (node.get_name(), what),
        message=strip_credentials(message), hardware_id=strip_credentials(hardware_id),
        values=[KeyValue(key=key, value=strip_credentials(str(value)))
                for key, value in values.items()])


def connection_status(node: Node, robot: RobotSession) -> DiagnosticStatus:
    """The robot connection: OK connected, WARN connecting, ERROR lost or unreachable."""
    state = robot.state
    if state == ConnectionState.CONNECTED:
        level, message = OK, "connected to %s" % robot.url
    elif state == ConnectionState.CONNECTING:
        level = WARN if not robot.message or robot.message == "not connected yet" else ERROR
        message = "connecting to %s: %s" % (robot.url, robot.message)
    else:
        level, message = ERROR, "disconnected from %s: %s" % (robot.url, robot.message)
    return status(node, "robot connection", level, message, robot.url,
                  {"url": robot.url, "state": state.name, "last_error": robot.message})


class Diagnostics:
    """Publishes ``statuses()`` on /diagnostics at 1 Hz and, through :meth:`update`, on change."""

    def __init__(self, node: Node, statuses: Callable[[], List[DiagnosticStatus]]) -> None:
        self._node = node
        self._statuses = statuses
        self._lock = threading.Lock()
        self._last: Optional[tuple] = None
        self._closed = False
        self._publisher = node.create_publisher(DiagnosticArray, TOPIC, 10)
        self._timer = node.create_timer(PERIOD, lambda: self.update(force=True))

    def update(self, force: bool = False) -> None:
        """Publish if the statuses changed (or ``force``)."""
        if self._closed:
            return
        try:
            statuses = self._statuses()
        except Exception as error:  # diagnostics must never stop the node
            self._node.get_logger().debug("diagnostics: %s" % error)
            return
        key = tuple((s.level, s.name, s.message, tuple((v.key, v.value) for v in s.values))
                    for s in statuses)
        with self._lock:
            if not force and key == self._last:
                return
            self._last = key
        array = DiagnosticArray(status=statuses)
        array.header.stamp = self._node.get_clock().now().to_msg()
        try:
            self._publisher.publish(array)
        except Exception:  # the node is being destroyed
            pass

    def close(self) -> None:
        self._closed = True
