"""Running a behavior through ``behavior/run`` from a program, and saying what happens.

:class:`BehaviorRunClient` sends ``RunBehavior`` goals from a node that the caller spins
in another thread; :class:`RunningGoal` is one goal: its feedback goes to a callback as it
arrives, its result and how the goal ended (SUCCEEDED only for a behavior that finished
with no error, ABORTED, CANCELED) can be waited for, and it can be cancelled.
:func:`state_line` and :func:`result_lines` are how ``make demo`` and ``run_behavior``
print them.
"""
import threading
import time
import uuid
from typing import Any, Callable, Dict, List, Optional

from action_msgs.msg import GoalStatus, GoalStatusArray
from rclpy.action import ActionClient
from rclpy.action.client import ClientGoalHandle
from rclpy.node import Node
from rclpy.qos import qos_profile_action_status_default
from unique_identifier_msgs.msg import UUID

from naoqi_qicore.action import RunBehavior
from naoqi_qicore.msg import BehaviorState

STATUS_NAMES = {getattr(BehaviorState, name): name for name in
                ("IDLE", "LOADED", "PLAYING", "PAUSED", "STOPPED", "FINISHED", "ERROR")}
#: how a goal ended (``GoalStatus``)
GOAL_STATUS_NAMES = {GoalStatus.STATUS_SUCCEEDED: "SUCCEEDED",
                     GoalStatus.STATUS_ABORTED: "ABORTED", GoalStatus.STATUS_CANCELED: "CANCELED"}


def state_line(state: BehaviorState) -> str:
    """One line about a behavior state: status, frame, states, boxes, newest error."""
    return "state  %-8s frame %3d  states %s  boxes %s%s" % (
        STATUS_NAMES.get(state.status, state.status), state.frame, list(state.states),
        list(state.active_boxes), "  error: " + state.last_error if state.last_error else "")


def result_lines(result: RunBehavior.Result, goal_status: Optional[int] = None) -> List[str]:
    """How the goal (``goal_status``, a ``GoalStatus`` code, when given) and its run ended,
    then one line per error, then per warning of the run."""
    goal = " (goal %s)" % GOAL_STATUS_NAMES.get(goal_status, goal_status) \
        if goal_status is not None else ""
    lines = ["result %s at frame %d after %.2f s: %s%s" % (
        STATUS_NAMES.get(result.status, result.status), result.frame, result.duration,
        result.message, goal)]
    lines += ["  error %s: %s: %s%s" % (error.box_path, error.where,
                                        error.exception_type + ": " if error.exception_type
                                        else "", error.message) for error in result.errors]
    lines += ["  warning %s: %s: %s" % (warning.box_path, warning.where, warning.message)
              for warning in result.warnings]
    return lines


class RunningGoal:
    """A ``behavior/run`` goal that was accepted."""

    def __init__(self, handle: Any) -> None:
        self._handle = handle
        self._done = threading.Event()
        self._result = handle.get_result_async()
        self._result.add_done_callback(lambda _: self._done.set())

    def wait(self, timeout: Optional[float] = None) -> Optional[RunBehavior.Result]:
        """The result once the run ended; None on timeout."""
        if not self._done.wait(timeout):
            return None
        return self._result.result().result

    @property
    def status(self) -> Optional[int]:
        """How the goal ended (``GoalStatus.STATUS_SUCCEEDED``, ``STATUS_ABORTED``,
        ``STATUS_CANCELED``); None while it runs."""
        return self._result.result().status if self._done.is_set() else None

    def succeeded(self) -> bool:
        """True when the goal has ended SUCCEEDED (the action's own verdict)."""
        return self.status == GoalStatus.STATUS_SUCCEEDED

    def cancel(self, timeout: float = 10.0) -> Optional[RunBehavior.Result]:
        """Cancel the goal (the behavior stops) and wait for its result."""
        if not self._done.is_set():
            self._handle.cancel_goal_async()
        return self.wait(timeout)


class BehaviorRunClient:
    """Sends ``RunBehavior`` goals from ``node`` (spun by the caller in another thread).

    A goal's answer can fail to reach the caller although the runner accepted the goal and
    runs it: rclpy's ``send_goal_async`` (9.x) hands back a future it registers only after
    the request went out, so an answer that comes back first completes another one, and DDS
    drops a reply to a client the runner has not matched yet.  The client names each goal
    itself and also reads the action's status topic (latched), where the runner lists every
    goal it accepted: a goal listed there is taken as accepted even when its answer is lost."""

    def __init__(self, node: Node, action: str = "behavior/run") -> None:
        self._client = ActionClient(node, RunBehavior, action)
        self._listed = threading.Condition()
        #: the goals being sent, with when the runner accepted each once the status lists it
        #: (None until then); only those, so that the client stays small over many goals
        self._accepted: Dict[bytes, Any] = {}
        self._status = node.create_subscription(
            GoalStatusArray, action + "/_action/status", self._on_status,
            qos_profile_action_status_default)

    def _on_status(self, message: GoalStatusArray) -> None:
        with self._listed:
            for status in message.status_list:
                key = bytes(status.goal_info.goal_id.uuid)
                if key in self._accepted:
                    self._accepted[key] = status.goal_info.stamp
            self._listed.notify_all()

    def send(self, goal: RunBehavior.Goal,
             on_feedback: Optional[Callable[[BehaviorState], None]] = None,
             timeout: float = 30.0) -> ClientGoalHandle:
        """Send ``goal``; its rclpy goal handle once accepted (or refused: ``.accepted``).
        ``on_feedback(state)`` is called with each feedback.  ``RuntimeError`` when no
        server answers within ``timeout`` s."""
        if not self._client.wait_for_server(timeout_sec=timeout):
            raise RuntimeError("no behavior/run action server within %.0f s" % timeout)
        goal_id = UUID(uuid=list(uuid.uuid4().bytes))
        key = bytes(goal_id.uuid)
        with self._listed:
            self._accepted[key] = None  # watched for before it is sent
        sent = self._client.send_goal_async(
            goal, goal_uuid=goal_id, feedback_callback=None if on_feedback is None else (
                lambda message: on_feedback(message.feedback.state)))
        sent.add_done_callback(lambda _: self._notify())
        deadline = time.monotonic() + timeout
        with self._listed:
            try:
                while not sent.done() and self._accepted[key] is None:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise RuntimeError("behavior/run did not answer the goal within %.0f s"
                                           % timeout)
                    self._listed.wait(left)
            finally:
                stamp = self._accepted.pop(key)
        if sent.done():
            return sent.result()
        # accepted (listed by the server), its answer lost on the way
        return ClientGoalHandle(self._client, goal_id, RunBehavior.Impl.SendGoalService.Response(
            accepted=True, stamp=stamp))

    def run(self, goal: RunBehavior.Goal, on_feedback: Callable[[BehaviorState], None],
            timeout: float = 30.0) -> RunningGoal:
        """Send ``goal`` and follow it; ``RuntimeError`` when no server answers within
        ``timeout`` s or the goal is refused."""
        handle = self.send(goal, on_feedback, timeout)
        if not handle.accepted:
            raise RuntimeError("behavior/run refused the goal")
        return RunningGoal(handle)

    def _notify(self) -> None:
        with self._listed:
            self._listed.notify_all()

    def destroy(self) -> None:
        self._client.destroy()
