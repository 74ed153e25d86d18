"""The ``behavior/run`` action of behavior_runner (``naoqi_qicore/action/RunBehavior``).

A goal runs a behavior to its end: the runner loads it when needed, goes to the label or
frame asked for (else the behavior starts from its beginning), plays it and answers how it
ended (FINISHED, STOPPED or ERROR, the frame, the duration, every error and warning of the
run).  The goal SUCCEEDS only when the behavior FINISHED with no error (a warning does not
count); it is CANCELED when the client cancelled it, and ABORTED otherwise (finished with
errors, stopped, failed, could not start).  Feedback is the behavior's state, on every
change and at ``state_rate`` while it plays, each error and warning of the run in the
feedback that follows it (once).  Cancelling
a goal stops the behavior; a new goal while one runs preempts it (the old one ends
STOPPED, "preempted").

The action server lives on a node of its own (``<runner name>_action``, same namespace)
spun by a multi-threaded executor in its own thread: the runner's node is spun by rclpy's
events executor, which serves services with the least latency but has no actions, and a
goal waits for its run in a thread while cancel requests are served in another.
"""
import copy
import threading
import time
from typing import Any, Dict, Optional, Protocol, Set

import rclpy
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node

from naoqi_qicore.action import RunBehavior
from naoqi_qicore.core.player import MOTION_ANSWER_WAIT, STOP_LIMIT
from naoqi_qicore.msg import BehaviorState
from naoqi_qicore.ros.behavior_run import BehaviorRun, error_message, warning_message

ACTION_NAME = "behavior/run"
#: threads serving goals, cancel requests and results
THREADS = 4
#: seconds a goal waits, once its run ended by itself, for its box code to end and the
#: robot to answer its last motion calls
RUN_CLOSE_TIMEOUT = STOP_LIMIT + MOTION_ANSWER_WAIT + 0.5
#: how long (s) a goal whose cancel was accepted may wait for rclpy to mark it canceling
CANCELING_TIMEOUT = 5.0


class RunController(Protocol):
    """What the action asks of behavior_runner."""

    def start_run(self, goal: Any) -> BehaviorRun:
        """Load, position and play the behavior of ``goal``; ``ValueError`` saying why not."""

    def stop_run(self, run: BehaviorRun, reason: str) -> None:
        """Stop ``run`` (no-op when it has ended); its end says ``reason``."""


def result_message(run: BehaviorRun) -> RunBehavior.Result:
    """The result of an ended run (its message tells the errors and warnings of a run that
    FINISHED)."""
    message = run.message
    if run.status == BehaviorState.FINISHED:
        counts = [_count(run.error_count, "error"), _count(run.warning_count, "warning")]
        told = " and ".join(count for count in counts if count)
        if told:
            message += " with " + told
    return RunBehavior.Result(status=run.status, frame=int(run.frame), duration=run.duration,
                              message=message,
                              errors=[error_message(error) for error in run.errors()],
                              warnings=[warning_message(warning) for warning in run.warnings()])


def _count(number: int, what: str) -> str:
    """``"2 errors"``, ``"1 warning"``, "" for none."""
    return "%d %s%s" % (number, what, "" if number == 1 else "s") if number else ""


class RunActionServer:
    """Serves ``behavior/run`` for the runner ``node`` through ``runs``."""

    def __init__(self, node: Node, runs: RunController) -> None:
        self._runs = runs
        self._lock = threading.Lock()
        self._goal_runs: Dict[bytes, BehaviorRun] = {}
        #: goals whose cancel this server accepted (one with no run yet is stopped once
        #: its run is known)
        self._cancel_accepted: Set[bytes] = set()
        self._node = rclpy.create_node(node.get_name() + "_action",
                                       namespace=node.get_namespace(), context=node.context,
                                       use_global_arguments=False,
                                       start_parameter_services=False)
        self._server = ActionServer(self._node, RunBehavior, ACTION_NAME,
                                    execute_callback=self._execute,
                                    goal_callback=lambda goal: GoalResponse.ACCEPT,
                                    cancel_callback=self._cancel,
                                    callback_group=ReentrantCallbackGroup())
        self._executor = MultiThreadedExecutor(num_threads=THREADS, context=node.context)
        self._executor.add_node(self._node)
        self._thread = threading.Thread(target=self._executor.spin, daemon=True,
                                        name=node.get_name() + " action")
        self._thread.start()

    def close(self) -> None:
        """Stop serving (the runner stops its runs itself)."""
        self._executor.shutdown(timeout_sec=2.0)
        self._server.destroy()
        self._node.destroy_node()

    @staticmethod
    def feedback(run: Optional[BehaviorRun], state: BehaviorState) -> None:
        """Send ``state`` as feedback of ``run``'s goal, if it has one that still runs, its
        ``errors`` and ``warnings`` being those of the run not sent yet (the result has them
        all)."""
        if run is None or run.goal is None or run.ended or not run.goal.is_active:
            return
        state = copy.copy(state)
        state.errors = [error_message(error) for error in run.untold_errors()]
        state.warnings = [warning_message(warning) for warning in run.untold_warnings()]
        run.goal.publish_feedback(RunBehavior.Feedback(state=state))

    # -- callbacks -------------------------------------------------------------------------
    def _cancel(self, goal: Any) -> CancelResponse:
        """Accept, and stop the goal's run in the background (its result says STOPPED)."""
        with self._lock:
            key = bytes(goal.goal_id.uuid)
            self._cancel_accepted.add(key)
            run = self._goal_runs.get(key)
        if run is not None:
            threading.Thread(target=self._runs.stop_run, args=(run, "the goal was cancelled"),
                             daemon=True, name="cancel").start()
        return CancelResponse.ACCEPT

    def _execute(self, goal: Any) -> RunBehavior.Result:
        key = bytes(goal.goal_id.uuid)
        try:
            return self._run_goal(goal, key)
        finally:
            with self._lock:
                self._cancel_accepted.discard(key)

    def _run_goal(self, goal: Any, key: bytes) -> RunBehavior.Result:
        if goal.is_cancel_requested:
            goal.canceled()
            return RunBehavior.Result(status=BehaviorState.STOPPED,
                                      message="cancelled before it started")
        try:
            run = self._runs.start_run(goal)
        except ValueError as error:
            goal.abort()
            return RunBehavior.Result(status=BehaviorState.ERROR, message=str(error))
        with self._lock:
            self._goal_runs[key] = run
            cancelled = key in self._cancel_accepted or goal.is_cancel_requested
        try:
            if cancelled:  # cancelled while it started
                self._runs.stop_run(run, "the goal was cancelled")
            run.wait()
            if run.player is not None:  # box code of a run that ended by itself ends too
                run.player.wait_run_closed(RUN_CLOSE_TIMEOUT)
            result = result_message(run)
        finally:
            with self._lock:
                self._goal_runs.pop(key, None)
        if run.succeeded:
            goal.succeed()
        elif self._canceling(goal, key) and run.status == BehaviorState.STOPPED:
            goal.canceled()
        else:
            goal.abort()
        return result

    def _canceling(self, goal: Any, key: bytes) -> bool:
        """Whether ``goal`` is being cancelled.  rclpy marks a goal canceling after the
        cancel callback has returned, and the run that callback stops can end first: a
        goal whose cancel was accepted waits for the mark (it can only end CANCELED then)."""
        with self._lock:
            accepted = key in self._cancel_accepted
        deadline = time.monotonic() + CANCELING_TIMEOUT
        while accepted and not goal.is_cancel_requested and time.monotonic() < deadline:
            time.sleep(0.005)
        return goal.is_cancel_requested
