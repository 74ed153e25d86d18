"""The simulator's own services, for tests and tools (their calls are not recorded).

``NaoqiSimRecorder``
    ``calls(sinceIndex=0)`` -> the recorded calls, the clients' and the robot's own (dicts,
    see :mod:`naoqi_qicore.robot.sim.recorder`), ``count()``, ``clear()``, ``dropped()``.
``NaoqiSimActivities``
    What a real robot gets from installed applications and its launchpad:
    ``registerActivity(name, nature, durationS)`` (nature solitary|interactive, duration 0 =
    runs until stopped, else stops by itself: "self-stop"), ``unregisterActivity(name)``,
    ``getActivities()``, ``launchActivity(name, startReason)`` (focus given by Autonomous
    Life itself, e.g. reason "condition"), ``interruptActivity(stopReason)`` (the focused
    activity ends, e.g. "user-stop" for a head touch, "users-lost").
``NaoqiSimScenario``
    The scenario being played, for the program running the behavior in another process
    (``behavior_runner``, ``run_behavior``): ``expectations()`` (how many it has, 0 when no
    scenario is played), ``observeBehavior(kind, name, detail)`` reports the run (kinds
    started, box, state, ended: see :meth:`ScenarioRunner.observe_behavior
    <naoqi_qicore.robot.sim.scenario.ScenarioRunner.observe_behavior>`), ``verdict()`` says
    how its expectations went (:class:`~naoqi_qicore.robot.sim.expectations.Verdict` as a
    dict).
``NaoqiSimFiles``
    Where the robot's files are on this machine: ``root()`` (the folder holding
    ``home/nao/...``) and ``token()`` (the content of the root's ``.naoqi_sim_root`` file,
    so that a client can tell the root is on its own machine).
``NaoqiSimApps``
    The applications a client installs in the robot's files, and their services
    (:mod:`~naoqi_qicore.robot.sim.services.service_manager`): ``installed(packageId)``
    (the application was installed: its autorun services start), ``failures(packageId)``
    (its services' failures since then) and the signal ``serviceFailed(failure)``; a
    failure is a dict: ``id``, ``package``, ``service``, ``message``, ``traceback``.
``NaoqiSimTasks``
    The calls clients posted (``post``, ``pCall``) that failed on the robot, which a real
    robot only logs: the signal ``taskFailed(failure)``; a failure is a dict: ``id`` (the
    task id ``pCall`` returned), ``call`` (``ALAudioPlayer.playFile``), ``message``.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

import qi

from naoqi_qicore.robot.robot_apps import is_package_id
from naoqi_qicore.robot.sim.context import SimContext
from naoqi_qicore.robot.sim.recorder import CallRecord
from naoqi_qicore.robot.sim.services.module import SimModule


class NaoqiSimRecorder(SimModule):
    """The call record, over libqi."""

    NAME = "NaoqiSimRecorder"

    def __init__(self, sim: SimContext, record: CallRecord) -> None:
        super().__init__(sim)
        self._record = record

    def calls(self, sinceIndex: int = 0) -> List[Dict[str, Any]]:
        """Recorded calls kept in memory whose index is >= ``sinceIndex``."""
        return self._record.since(sinceIndex)

    def count(self) -> int:
        """How many calls were recorded since the start (running ones included)."""
        return self._record.count()

    def dropped(self) -> int:
        """How many of the oldest calls are no longer kept in memory (the record keeps the
        last ``--record-limit``; the ``--record`` file has them all)."""
        return self._record.dropped()

    def clear(self) -> None:
        """Forget the recorded calls kept in memory."""
        self._record.clear()


class NaoqiSimActivities(SimModule):
    """Activities the simulated ALAutonomousLife knows, and its autonomous decisions."""

    NAME = "NaoqiSimActivities"

    def _life(self) -> Any:
        return self._sim.service("ALAutonomousLife")

    def _checked(self, method: str, action: Any, *args: Any) -> None:
        try:
            action(*args)
        except ValueError as error:
            raise self._error(method, str(error)) from None

    def registerActivity(self, name: str, nature: str = "interactive",
                         durationS: float = 0.0) -> None:
        """Install an activity (duration 0: runs until stopped)."""
        self._checked("registerActivity", self._life()._register_activity, name, nature,
                      durationS)

    def unregisterActivity(self, name: str) -> None:
        """Uninstall an activity (stopping it if focused)."""
        self._life()._unregister_activity(name)

    def getActivities(self) -> List[str]:
        """Names of the installed activities."""
        return self._life()._registered_activities()

    def launchActivity(self, name: str, startReason: str = "condition") -> None:
        """Focus ``name`` as Autonomous Life would (start reason condition, default-activity,
        applauncher-voice or applauncher-tablet)."""
        self._checked("launchActivity", self._life()._launch, name, startReason)

    def interruptActivity(self, stopReason: str = "user-stop") -> None:
        """End the focused activity for ``stopReason`` (the stacked one comes back)."""
        self._checked("interruptActivity", self._life()._interrupt, stopReason)


class NaoqiSimScenario(SimModule):
    """The scenario the robot plays (``scenario()``: its runner, None when none is played)."""

    NAME = "NaoqiSimScenario"

    def __init__(self, sim: SimContext, scenario: Callable[[], Optional[Any]]) -> None:
        super().__init__(sim)
        self._scenario = scenario

    def _runner(self, method: str) -> Any:
        runner = self._scenario()
        if runner is None:
            raise self._error(method, "the robot plays no scenario")
        return runner

    def expectations(self) -> int:
        """How many expectations the scenario played has (0 when none is played)."""
        runner = self._scenario()
        return len(runner.scenario.expectations) if runner is not None else 0

    def observeBehavior(self, kind: str, name: str = "", detail: str = "") -> None:
        """What the behavior did: started, box NAME started, state NAME reached, ended with
        status NAME (``detail``: how)."""
        runner = self._runner("observeBehavior")
        try:
            runner.observe_behavior(kind, name, detail)
        except ValueError as error:
            raise self._error("observeBehavior", str(error)) from None

    def verdict(self) -> Dict[str, Any]:
        """How the scenario's expectations went (``decided`` once known)."""
        return self._runner("verdict").verdict().as_dict()


class NaoqiSimFiles(SimModule):
    """Where the simulated robot's files are (see :mod:`naoqi_qicore.robot.robot_files`)."""

    NAME = "NaoqiSimFiles"

    def __init__(self, sim: SimContext, token: str) -> None:
        super().__init__(sim)
        self._token = token

    def root(self) -> str:
        """The folder of this machine holding the robot's ``home/nao/...``."""
        return str(self._sim.files.root)

    def token(self) -> str:
        """What the root's ``.naoqi_sim_root`` file holds."""
        return self._token


class NaoqiSimApps(SimModule):
    """Installed applications and the failures of their services (see the module doc)."""

    NAME = "NaoqiSimApps"

    def __init__(self, sim: SimContext) -> None:
        super().__init__(sim)
        self.serviceFailed = qi.Signal("(m)")
        self._manager()._watch_failures(self.serviceFailed)

    def _manager(self) -> Any:
        return self._sim.service("ALServiceManager")

    def installed(self, packageId: str) -> None:
        """Application ``packageId`` was installed in the robot's files: its autorun
        services start (returns once they registered their services, or ended)."""
        if not is_package_id(packageId) or not (self._sim.files.apps / packageId).is_dir():
            raise self._error("installed", "no application '%s' in the robot's files"
                              % packageId)
        self._manager()._app_installed(packageId)

    def failures(self, packageId: str) -> List[Dict[str, Any]]:
        """The failures of the application's services since it was last installed."""
        return self._manager()._package_failures(packageId)


class NaoqiSimTasks(SimModule):
    """The posted calls that failed on the robot (see the module doc)."""

    NAME = "NaoqiSimTasks"

    def __init__(self, sim: SimContext) -> None:
        super().__init__(sim)
        self.taskFailed = qi.Signal("(m)")
        sim.tasks.watch_failures(self.taskFailed)
