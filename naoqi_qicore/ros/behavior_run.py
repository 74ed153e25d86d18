"""One run of behavior_runner's behavior, from play to its end, and its errors as messages.

A :class:`BehaviorRun` starts when the behavior plays (``behavior/play`` or a
``behavior/run`` goal) and ends once, with FINISHED (the behavior ended by itself),
STOPPED (``behavior/stop``, a cancelled or preempted goal, another behavior loaded, the
runner shutting down) or ERROR (the root box failed, the robot was lost).  Its errors are
the engine's (:class:`~naoqi_qicore.core.events.BoxError`) plus the runner's own (the
robot connection lost); its warnings (:class:`~naoqi_qicore.core.events.RunWarning`) are
the engine's.  It :attr:`~BehaviorRun.succeeded` only when it FINISHED with no error
(warnings or not): that is the ``behavior/run`` goal's SUCCEEDED.
"""
import threading
import time
from typing import Any, List, Optional, Set

from builtin_interfaces.msg import Time

from naoqi_qicore.core.events import BoxError, RunWarning
from naoqi_qicore.msg import BehaviorError, BehaviorState, BehaviorWarning

#: ``BehaviorState`` codes of the ends of a run
ENDS = (BehaviorState.STOPPED, BehaviorState.FINISHED, BehaviorState.ERROR)
#: ``BoxError.where`` of a lost robot connection
WHERE_ROBOT_CONNECTION = "robot connection"


def _stamp(wall_time: float) -> Time:
    seconds = int(wall_time)
    return Time(sec=seconds, nanosec=int((wall_time - seconds) * 1e9))


def error_message(error: BoxError) -> BehaviorError:
    """The ROS message of an engine error."""
    return BehaviorError(stamp=_stamp(error.time), box_path=error.box_path, where=error.where,
                         exception_type=error.exception_type, message=error.message,
                         traceback=error.traceback)


def warning_message(warning: RunWarning) -> BehaviorWarning:
    """The ROS message of a warning of a run."""
    return BehaviorWarning(stamp=_stamp(warning.time), box_path=warning.box_path,
                           where=warning.where, message=warning.message)


class BehaviorRun:
    """A run of the behavior ``behavior`` played by ``player`` (``goal``: the
    ``behavior/run`` goal handle that asked for it, None for ``behavior/play``)."""

    def __init__(self, behavior: str, player: Any, goal: Optional[Any] = None) -> None:
        self.behavior = behavior
        self.player = player
        self.goal = goal
        self.started = time.monotonic()
        self._ended = threading.Event()
        self._lock = threading.Lock()
        self.status: Optional[int] = None
        self.message = ""
        self.frame = 0
        self.duration = 0.0
        #: what asked for the stop ("cancel", "behavior/stop"...), "" when none did
        self.stop_reason = ""
        #: errors of the run that the engine does not know (the robot lost)
        self.runner_errors: List[BoxError] = []
        #: errors and warnings already sent in the goal's feedback
        self._told: Set[BoxError] = set()
        self._told_warnings: Set[RunWarning] = set()

    @property
    def ended(self) -> bool:
        return self._ended.is_set()

    def end(self, status: int, message: str, frame: int) -> bool:
        """End the run (once: False when it had ended already)."""
        with self._lock:
            if self._ended.is_set():
                return False
            self.status, self.message, self.frame = status, message, frame
            self.duration = time.monotonic() - self.started
            self._ended.set()
        return True

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Wait for the end of the run; False on timeout."""
        return self._ended.wait(timeout)

    @property
    def error_count(self) -> int:
        """How many errors the run had (more than :meth:`errors` keeps when there were
        over ``MAX_RUN_ERRORS``)."""
        return len(self.runner_errors) + (self.player.error_count if self.player is not None
                                          else 0)

    @property
    def succeeded(self) -> bool:
        """The run reached its end (FINISHED) with no error."""
        return self.status == BehaviorState.FINISHED and self.error_count == 0

    def errors(self) -> List[BoxError]:
        """Every error of the run, oldest first."""
        errors = list(self.player.errors) if self.player is not None else []
        return sorted(errors + self.runner_errors, key=lambda error: error.time)

    def untold_errors(self) -> List[BoxError]:
        """The errors of the run not returned by an earlier call, oldest first (each error
        goes once in the goal's feedback)."""
        with self._lock:
            new = [error for error in self.errors() if error not in self._told]
            self._told.update(new)
        return new

    @property
    def warning_count(self) -> int:
        """How many warnings the run had."""
        return self.player.warning_count if self.player is not None else 0

    def warnings(self) -> List[RunWarning]:
        """Every warning of the run, oldest first."""
        return list(self.player.warnings) if self.player is not None else []

    def untold_warnings(self) -> List[RunWarning]:
        """The warnings of the run not returned by an earlier call, oldest first."""
        with self._lock:
            new = [warning for warning in self.warnings() if warning not in self._told_warnings]
            self._told_warnings.update(new)
        return new
