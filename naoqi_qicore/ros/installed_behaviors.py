"""Behaviors installed on the robot, run by behavior_runner through ALBehaviorManager.

A robot holds installed behaviors (its animations, ``animations/Stand/Gestures/Hey_1``, and
its applications' ``<package id>/<behavior>``).  A ``behavior/run`` goal whose
``behavior`` is neither empty, nor the loaded behavior, nor a file or folder of this
machine (nor a name ending in a behavior file's suffix) names one of them: the runner then
runs it *on the robot* (:class:`RobotBehaviorRun`):

* ``ALBehaviorManager.startBehavior`` starts it (an unknown name: the goal is aborted with
  ERROR, saying it is neither a file here nor installed on the robot);
* while it runs, the goal's feedback is a ``BehaviorState`` (the behavior's name, PLAYING,
  stamped with the time of the runner's clock it was seen running) at ``state_rate``; its
  frame and fps stay 0: ALBehaviorManager does not tell where the timeline of a behavior it
  runs is; its end is seen from ``behaviorStopped`` and ``isBehaviorRunning``;
* the result: FINISHED when it ended by itself, STOPPED when the goal was cancelled,
  preempted or ``behavior/stop`` was called (``ALBehaviorManager.stopBehavior`` stops it
  on the robot first), ERROR with the robot's message when it failed
  (``behaviorFailed``) or the robot was lost.

``behavior/installed`` (``ListInstalledBehaviors``) lists them, as ROS 1 nao_apps'
``get_installed_behaviors`` did.
"""
import threading
from pathlib import Path
from typing import Any, Callable, List, Optional

from builtin_interfaces.msg import Time

from naoqi_qicore.core.events import BoxError
from naoqi_qicore.msg import BehaviorState
from naoqi_qicore.ros.behavior_cache import BEHAVIOR_SUFFIXES
from naoqi_qicore.ros.behavior_run import WHERE_ROBOT_CONNECTION, BehaviorRun
from naoqi_qicore.srv import ListInstalledBehaviors

MANAGER = "ALBehaviorManager"
#: ``BoxError.where`` of a failure the robot reported for an installed behavior
WHERE_ROBOT_BEHAVIOR = "robot behavior"
#: how long a stop waits for the robot to say the behavior stopped (s)
STOP_TIMEOUT = 5.0
#: how long a run whose behavior left the robot's running list waits for its end signal
#: (``behaviorStopped``), which tells that a failure signal sent before it was heard (s)
END_SIGNAL_TIMEOUT = 1.0
#: the behavior files of Choregraphe, beside the converter's inputs
_BEHAVIOR_SUFFIXES = BEHAVIOR_SUFFIXES + (".cbl",)


def runs_here(behavior: str, loaded: bool) -> bool:
    """Whether a goal's ``behavior`` is run by the runner itself: empty (the loaded one),
    ``loaded`` (it names the loaded behavior), a file or folder of this machine, or a name
    ending in a behavior file's suffix; otherwise it names a behavior installed on the
    robot."""
    if not behavior or loaded or behavior.lower().endswith(_BEHAVIOR_SUFFIXES):
        return True
    try:
        return Path(behavior).expanduser().exists()
    except (OSError, ValueError):
        return False


class RobotBehaviorRun(BehaviorRun):
    """A ``behavior/run`` goal's run of the installed behavior ``name`` on the robot (its
    ``player`` is None: the engine does not run it; ``goal`` is None for the runner, which
    sends no feedback of its own for it)."""

    def __init__(self, name: str, goal: Any, manager: Any, period: float,
                 log: Callable[[str], None], now: Callable[[], Time]) -> None:
        super().__init__(name, None)
        self._goal_handle = goal
        self._manager = manager
        self._period = period
        self._log = log
        self._now = now
        self._changed = threading.Event()
        #: the robot's ``behaviorStopped`` for this behavior came (and whether it can come)
        self._end_told = threading.Event()
        self._end_signalled = False
        self._links: List[tuple] = []
        self._watcher: Optional[threading.Thread] = None

    # -- starting and watching -------------------------------------------------------------
    def start(self) -> None:
        """Start the behavior on the robot; ``ValueError`` saying why it cannot.  Its
        feedback and end are followed once :meth:`watch` is called."""
        manager = self._manager
        for signal, callback in (("behaviorStopped", self._stopped),
                                 ("behaviorFailed", self._failed)):
            try:
                target = getattr(manager, signal)
                self._links.append((target, target.connect(callback)))
                self._end_signalled |= signal == "behaviorStopped"
            except (AttributeError, RuntimeError):
                pass  # a robot without the signal: its end is seen by polling
        try:
            manager.startBehavior(self.behavior)
        except RuntimeError as error:
            self._disconnect()
            raise ValueError("%s.startBehavior(%r): %s" % (MANAGER, self.behavior, error)) \
                from None

    def watch(self) -> None:
        """Send the goal's feedback while the behavior runs, and end the run when it ends
        (called once the runner holds the run: a client seeing its feedback may stop it)."""
        self._watcher = threading.Thread(target=self._watch, daemon=True,
                                         name="installed behavior " + self.behavior)
        self._watcher.start()

    def _stopped(self, name: Any) -> None:
        if str(name) == self.behavior:
            self._end_told.set()
            self._changed.set()

    def _failed(self, name: Any, *details: Any) -> None:
        if str(name) == self.behavior:
            message = " ".join(str(detail) for detail in details) or "failed"
            self.runner_errors.append(BoxError(self.behavior, WHERE_ROBOT_BEHAVIOR, message))
            self._changed.set()

    def _watch(self) -> None:
        """Until the behavior ends: feedback at the state rate, then the run's end."""
        while not self.ended:
            try:
                running = self._manager.isBehaviorRunning(self.behavior)
            except RuntimeError as error:
                self.runner_errors.append(BoxError("root", WHERE_ROBOT_CONNECTION, str(error)))
                self._finish(BehaviorState.ERROR, "robot connection lost: %s" % error)
                return
            if running:
                self._feedback()
                self._changed.wait(self._period)
                self._changed.clear()
                continue
            if self._end_signalled:
                # the robot sends behaviorFailed before the behavior leaves its running
                # list, and behaviorStopped after: the failure may reach this process after
                # the poll that saw the behavior gone, not after its end signal
                self._end_told.wait(END_SIGNAL_TIMEOUT)
            if self.runner_errors:
                self._finish(BehaviorState.ERROR, "%s failed on the robot: %s" % (
                    self.behavior, self.runner_errors[-1].message))
            elif self.stop_reason:
                self._finish(BehaviorState.STOPPED, "%s stopped: %s" % (self.behavior,
                                                                       self.stop_reason))
            else:
                self._finish(BehaviorState.FINISHED, "%s finished on the robot" % self.behavior)

    def _feedback(self) -> None:
        goal = self._goal_handle
        if goal is None or self.ended or not goal.is_active:
            return
        from naoqi_qicore.action import RunBehavior
        state = BehaviorState(behavior=self.behavior, status=BehaviorState.PLAYING)
        state.header.stamp = self._now()
        goal.publish_feedback(RunBehavior.Feedback(state=state))

    def _finish(self, status: int, message: str) -> None:
        self._disconnect()
        if self.end(status, message, 0):
            self._log(message)

    def _disconnect(self) -> None:
        links, self._links = self._links, []
        for target, link in links:
            try:
                target.disconnect(link)
            except RuntimeError:
                pass  # the robot is gone

    # -- stopping ----------------------------------------------------------------------------
    def stop(self, reason: str) -> None:
        """Stop the behavior on the robot (the run ends STOPPED saying ``reason``)."""
        if self.ended:
            return
        self.stop_reason = reason
        try:
            self._manager.stopBehavior(self.behavior)
        except RuntimeError as error:  # ended meanwhile, or the robot is gone
            self._log("%s.stopBehavior(%r): %s" % (MANAGER, self.behavior, error))
        self._changed.set()
        if not self.wait(STOP_TIMEOUT):
            self._finish(BehaviorState.STOPPED, "%s stopped: %s (the robot did not confirm "
                                                "within %.0f s)" % (self.behavior, reason,
                                                                    STOP_TIMEOUT))


class InstalledBehaviors:
    """behavior_runner's access to the behaviors installed on the robot of ``robot`` (a
    ``RobotSession``): the ``behavior/installed`` service and the runs of installed
    behaviors (feedback every ``period`` s, stamped with ``now()``)."""

    def __init__(self, robot: Any, period: float, log: Callable[[str], None],
                 now: Callable[[], Time]) -> None:
        self._robot = robot
        self._period = period
        self._log = log
        self._now = now

    def _manager(self) -> Any:
        return self._robot.service(MANAGER)

    def start(self, goal: Any) -> RobotBehaviorRun:
        """Run the installed behavior a goal names on the robot; ``ValueError`` saying why
        it cannot."""
        request = goal.request
        if request.label or request.frame >= 0:
            raise ValueError("%s is a behavior installed on the robot: it starts from its "
                             "beginning (no label or frame)" % request.behavior)
        try:
            manager = self._manager()
            installed = manager.isBehaviorInstalled(request.behavior)
        except RuntimeError as error:
            raise ValueError("%s: %s" % (MANAGER, error)) from None
        if not installed:
            raise ValueError("%r is neither a file or folder here nor a behavior installed on "
                             "the robot (behavior/installed lists them)" % request.behavior)
        try:  # the full name, which the robot's signals and queries use
            name = str(manager.resolveBehaviorName(request.behavior))
        except (AttributeError, RuntimeError):
            name = request.behavior
        run = RobotBehaviorRun(name, goal, manager, self._period, self._log, self._now)
        run.start()
        self._log("running %s on the robot" % name)
        return run

    def serve(self, request: ListInstalledBehaviors.Request,
              response: ListInstalledBehaviors.Response) -> ListInstalledBehaviors.Response:
        """``behavior/installed``: the robot's installed (and running) behaviors (a robot
        that may still be starting is waited for first)."""
        self._robot.wait_started()
        try:
            manager = self._manager()
            installed = [str(name) for name in manager.getInstalledBehaviors()]
            running = [str(name) for name in manager.getRunningBehaviors()]
        except RuntimeError as error:
            response.success, response.message = False, "%s: %s" % (MANAGER, error)
            return response
        response.behaviors = sorted(name for name in installed
                                    if name.startswith(request.prefix))
        response.running = sorted(name for name in running if name.startswith(request.prefix))
        response.success = True
        response.message = "%d behavior(s) installed on the robot" % len(response.behaviors)
        return response
