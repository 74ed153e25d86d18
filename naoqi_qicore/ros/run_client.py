"""Running a behavior through ``behavior/run`` from a program, and saying what happens.

:class:`BehaviorRunClient` sends ``RunBehavior`` goals from a node that the caller spins
in another thread; :class:`RunningGoal` is one goal: its feedback goes to a callback as it
arrives, its result and how the goal ended (SUCCEEDED only for a behavior that finished
with no error, ABORTED, CANCELED) can be waited for, and it can be cancelled.
:func:`state_line` and :func:`result_lines` are how ``make demo`` and ``run_behavior``
print them.
"""
import threading
from typing import Any, Callable, List, Optional

from action_msgs.msg import GoalStatus
from rclpy.action import ActionClient
from rclpy.node import Node

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
    """Sends ``RunBehavior`` goals from ``node`` (spun by the caller in another thread)."""

    def __init__(self, node: Node, action: str = "behavior/run") -> None:
        self._client = ActionClient(node, RunBehavior, action)

    def run(self, goal: RunBehavior.Goal, on_feedback: Callable[[BehaviorState], None],
            timeout: float = 30.0) -> RunningGoal:
        """Send ``goal``; ``on_feedback(state)`` is called with each feedback.
        ``RuntimeError`` when no server answers within ``timeout`` s or the goal is refused."""
        if not self._client.wait_for_server(timeout_sec=timeout):
            raise RuntimeError("no behavior/run action server within %.0f s" % timeout)
        sent = self._client.send_goal_async(
            goal, feedback_callback=lambda message: on_feedback(message.feedback.state))
        accepted = threading.Event()
        sent.add_done_callback(lambda _: accepted.set())
        if not accepted.wait(timeout):
            raise RuntimeError("behavior/run did not answer the goal within %.0f s" % timeout)
        handle = sent.result()
        if not handle.accepted:
            raise RuntimeError("behavior/run refused the goal")
        return RunningGoal(handle)

    def destroy(self) -> None:
        self._client.destroy()
