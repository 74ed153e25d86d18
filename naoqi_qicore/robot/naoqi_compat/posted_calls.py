"""Calls box code posted (``proxy.post.x()``, ``pCall``) that failed on the simulated
robot: warnings of the run.

A posted call returns a task id at once; when the call then fails on the robot, no caller
is left to receive its error, and NAOqi only logs it there: a Play Sound File box whose
file is missing plays nothing, and the run looks clean.  On a simulated robot, which
tells the failures of posted calls (``NaoqiSimTasks.taskFailed``), :class:`PostedCallFailures`
makes each failure of a task the behavior's box code posted a warning of the run
(``RunWarning(where="posted call")``) naming the box and the call.  A real robot tells
nothing of the kind: nothing is done there.
"""
from __future__ import annotations

import collections
import threading
from typing import Any, Dict, Tuple

from naoqi_qicore.core.environment import BehaviorContext
from naoqi_qicore.core.events import WHERE_POSTED_CALL, RunWarning
from naoqi_qicore.robot.naoqi_compat.sim_signals import SimSignalLink

#: the simulated robot's service telling the failures of posted calls
SIM_TASKS_SERVICE = "NaoqiSimTasks"
#: failures kept while the answer of their post (the task id) has not come yet
MAX_EARLY_FAILURES = 64
#: posted calls kept (the oldest forgotten beyond: the robot does not tell those that
#: ended well, and a run may post without end)
MAX_POSTED = 1000


class PostedCallFailures:
    """Warnings of the runs of one loaded behavior for its posted calls that failed."""

    def __init__(self, context: BehaviorContext) -> None:
        self._context = context
        self._lock = threading.Lock()
        #: task id -> (box, call) of the calls box code posted
        self._posted: "collections.OrderedDict[int, Tuple[str, str]]" = \
            collections.OrderedDict()
        #: task id -> failure, for failures told before their post's answer
        self._early: "collections.OrderedDict[int, Dict[str, Any]]" = \
            collections.OrderedDict()
        self._link = SimSignalLink(context.session, SIM_TASKS_SERVICE, "taskFailed",
                                   self._failed)

    def posted(self, box: str, call: str, task_id: int) -> None:
        """Box ``box`` posted ``call`` (``ALAudioPlayer.playFile``), the robot's task
        ``task_id``."""
        with self._lock:
            failure = self._early.pop(task_id, None)
            if failure is None:
                self._posted[task_id] = (box, call)
                while len(self._posted) > MAX_POSTED:
                    self._posted.popitem(last=False)
        if failure is not None:
            self._warn(box, call, failure)

    def _failed(self, failure: Dict[str, Any]) -> None:
        task_id = failure.get("id")
        with self._lock:
            posted = self._posted.pop(task_id, None)
            if posted is None:  # its post has not answered yet, or another client's
                self._early[task_id] = failure
                while len(self._early) > MAX_EARLY_FAILURES:
                    self._early.popitem(last=False)
        if posted is not None:
            self._warn(*posted, failure)

    def _warn(self, box: str, call: str, failure: Dict[str, Any]) -> None:
        self._context.record_warning(RunWarning(
            box, WHERE_POSTED_CALL, "the call %s it posted failed on the robot: %s"
            % (failure.get("call") or call, failure.get("message", ""))))

    def close(self) -> None:
        """The behavior is unloaded: failures are not its warnings any more."""
        self._link.close()
