"""Simulated ALBehaviorManager: installed behaviors, running them, and the events it raises.

The robot's installed behaviors are, as on a NAO or Pepper:

* its stock animations (:data:`STOCK_BEHAVIORS`, ``animations/Stand/Gestures/Hey_1``...):
  each runs for its duration, as long as the real one moves;
* the behaviors of the applications in its files
  (``/home/nao/.local/share/PackageManager/apps/<package id>/``, Choregraphe's
  ``.lastUploadedChoregrapheBehavior`` included), named ``<package id>/<behavior>``: a
  converted behavior really runs (the engine plays it in the robot's process, connected
  to the robot, as NAOqi ran installed behaviors), to its end or until stopped;
* the ``.xar`` files a client installed with ``installBehavior``: they run through
  ALFrameManager (their timeline's length).

Every behavior can be stopped; ``behaviorStarted``/``behaviorStopped`` and the
``BehaviorsRun`` memory key follow what runs.
"""
import functools
import math
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional

import qi

from naoqi_qicore.robot.robot_files import APPS
from naoqi_qicore.robot.sim.services.module import (Activity, SimModule, current_activity,
                                                    running_as)


@dataclass
class InstalledBehavior:
    """A behavior on the robot: name "<package>/<behavior>", tags, nature, and what runs:
    its ``.xar`` (a robot path), its converted folder (of this machine), or neither (it
    runs for ``seconds``, infinite: until stopped)."""

    name: str
    seconds: float = math.inf
    nature: str = "interactive"
    tags: List[str] = field(default_factory=list)
    xar: Optional[str] = None
    folder: Optional[Path] = None


#: the robot's own animations (durations as the real ones move) and applications
STOCK_BEHAVIORS = [
    InstalledBehavior("animations/Stand/Gestures/Hey_1", 2.8, tags=["hello", "hi"]),
    InstalledBehavior("animations/Stand/Gestures/Hey_3", 2.2, tags=["hello"]),
    InstalledBehavior("animations/Stand/Gestures/BowShort_1", 2.5, tags=["bow", "hello"]),
    InstalledBehavior("animations/Stand/Gestures/Explain_1", 2.9, tags=["explain"]),
    InstalledBehavior("animations/Stand/Gestures/Enthusiastic_4", 2.4, tags=["happy"]),
    InstalledBehavior("animations/Stand/Emotions/Positive/Happy_4", 3.6, tags=["happy"]),
    InstalledBehavior("animations/Stand/Waiting/ScratchHead_1", 4.2, tags=["thinking"]),
    InstalledBehavior("animations/Sit/Gestures/Hey_1", 2.6, tags=["hello", "hi"]),
    InstalledBehavior("dialog_applauncher/.", nature="solitary"),
]


class ALBehaviorManager(SimModule):
    """Install, preload, run, start and stop behaviors by name."""

    NAME = "ALBehaviorManager"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._stock: Dict[str, InstalledBehavior] = {b.name: b for b in STOCK_BEHAVIORS}
        self._added: Dict[str, InstalledBehavior] = {}
        self._loaded: List[str] = []
        self._running: Dict[str, Activity] = {}
        self._defaults: List[str] = []
        self.behaviorStarted = qi.Signal("(s)")
        self.behaviorStopped = qi.Signal("(s)")
        self.behaviorLoaded = qi.Signal("(s)")
        self.behaviorFailed = qi.Signal("(ss)")

    # -- internals --------------------------------------------------------------------------
    def _installed(self) -> Dict[str, InstalledBehavior]:
        """Every installed behavior by name (the applications' as the robot's files hold
        them now)."""
        from naoqi_qicore.robot.robot_apps import installed_apps
        with self._lock:
            behaviors = dict(self._stock)
            behaviors.update(self._added)
        for app in installed_apps(self._sim.files):
            for behavior in app.behaviors:
                name = "%s/%s" % (app.package_id, behavior)
                behaviors[name] = InstalledBehavior(name, folder=app.folder / behavior)
        return behaviors

    def _behavior(self, name: str) -> InstalledBehavior:
        return self._installed()[self.resolveBehaviorName(name)]

    def _publish_running(self) -> None:
        with self._lock:
            running = sorted(self._running)
        self._memory().insertData("BehaviorsRun", running)

    def _claim(self, method: str, behavior: str) -> InstalledBehavior:
        installed = self._behavior(behavior)
        with self._lock:
            if installed.name in self._running:
                raise self._error(method, "behavior '%s' is already running" % installed.name)
            self._running[installed.name] = Activity()
        return installed

    def _run(self, behavior: InstalledBehavior,
             started: Optional[threading.Event] = None) -> None:
        name = behavior.name
        with self._lock:
            activity = self._running[name]
        self._publish_running()
        self.behaviorStarted(name)
        if started is not None:
            started.set()
        try:
            self._play(behavior, activity)
        except RuntimeError as error:
            self._raise_event("ALBehaviorManager/BehaviorFailed", [name, str(error)])
            self.behaviorFailed(name, str(error))
            raise
        finally:
            with self._lock:
                self._running.pop(name, None)
            self._publish_running()
            self.behaviorStopped(name)

    def _play(self, behavior: InstalledBehavior, activity: Activity) -> None:
        with running_as(activity):
            if behavior.folder is not None:
                self._play_converted(behavior, activity)
            elif behavior.xar is not None:
                self._play_timeline(behavior.xar)
            else:
                activity.sleep(behavior.seconds)

    def _play_timeline(self, xar: str) -> None:
        frames = self._sim.service("ALFrameManager")
        behavior_id = frames.newBehaviorFromFile(xar, "")
        try:
            frames.completeBehavior(behavior_id)
        finally:
            frames.deleteBehavior(behavior_id)

    def _play_converted(self, behavior: InstalledBehavior, activity: Activity) -> None:
        """Play an application's converted behavior with the engine, on a session of this
        robot, until it ends or ``activity`` is interrupted; its failure as an error."""
        from naoqi_qicore.converter.loader import load_converted
        from naoqi_qicore.core.player import BehaviorPlayer
        from naoqi_qicore.robot.naoqi_compat import box_environment
        from naoqi_qicore.xar.errors import XarError
        assert behavior.folder is not None
        try:
            loaded = load_converted(behavior.folder)
        except XarError as error:
            raise self._error("runBehavior", "%s cannot be run: %s" % (behavior.name, error))
        if not self._sim.endpoints:
            raise self._error("runBehavior", "the robot is not listening")
        session = qi.Session()
        session.connect(self._sim.endpoints[0])
        player = BehaviorPlayer(loaded, session, environment=functools.partial(
            box_environment, files=self._sim.files))
        try:
            player.load()
            player.play()
            while not activity.interrupted and not player.wait(0.05):
                pass
            if activity.interrupted:
                player.stop()
            failed = player.last_error if player.status == "ERROR" else ""
        except Exception as error:  # a behavior that does not load: its error
            failed = str(error)
        finally:
            player.unload()
            session.close()
        if failed:
            raise self._error("runBehavior", "%s failed: %s" % (behavior.name, failed))

    # -- installed behaviors --------------------------------------------------------------------
    def installBehavior(self, absolutePath: str, localPath: str, overwrite: bool) -> bool:
        """Install the .xar of the robot's files (or the folder holding its behavior.xar)
        under the name ``localPath``."""
        place = self._file("installBehavior", absolutePath)
        xar = place / "behavior.xar" if place.is_dir() else place
        if not xar.is_file():
            raise self._error("installBehavior", "no behavior at '%s'" % absolutePath)
        installed = self._installed()
        if localPath in installed and not overwrite:
            return False
        with self._lock:
            self._added[localPath] = InstalledBehavior(
                localPath, xar=xar.shown)
        self._raise_event("ALBehaviorManager/Behavior%s" % (
            "Updated" if localPath in installed else "Added"), localPath)
        return True

    def removeBehavior(self, behavior: str) -> bool:
        """Uninstall a behavior (stopping it; an application's behavior goes with its
        application's folder); False if it was not installed."""
        installed = self._installed().get(behavior)
        if installed is None:
            return False
        if self.isBehaviorRunning(behavior):
            self.stopBehavior(behavior)
        with self._lock:
            self._stock.pop(behavior, None)
            self._added.pop(behavior, None)
            if behavior in self._loaded:
                self._loaded.remove(behavior)
        if installed.folder is not None:  # a link there is removed, never followed
            app = self._sim.files.local(APPS) / behavior.split("/", 1)[0]
            try:
                app.remove()
            except OSError as error:
                raise self._file_failed("removeBehavior", "remove", app.shown, error) from None
        self._raise_event("ALBehaviorManager/BehaviorRemoved", behavior)
        return True

    def resolveBehaviorName(self, name: str) -> str:
        """Full "<package>/<behavior>" name of ``name`` (a full name or a package name)."""
        installed = self._installed()
        if name in installed:
            return name
        matches = sorted(b for b in installed if b.startswith(name.rstrip("/") + "/"))
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise self._error("resolveBehaviorName", "'%s' is ambiguous: %s"
                              % (name, ", ".join(matches)))
        raise self._error("resolveBehaviorName", "behavior '%s' is not installed" % name)

    def isBehaviorInstalled(self, name: str) -> bool:
        """True when ``name`` resolves to an installed behavior."""
        try:
            self.resolveBehaviorName(name)
        except RuntimeError:
            return False
        return True

    def isBehaviorPresent(self, prefixedBehavior: str) -> bool:
        """Deprecated name of isBehaviorInstalled."""
        return self.isBehaviorInstalled(prefixedBehavior)

    def getInstalledBehaviors(self) -> List[str]:
        """Full names of the installed behaviors."""
        return sorted(self._installed())

    def getBehaviorNames(self) -> List[str]:
        """Deprecated name of getInstalledBehaviors."""
        return self.getInstalledBehaviors()

    def getUserBehaviorNames(self) -> List[str]:
        """Installed behaviors that are not the robot's own animations."""
        return [b for b in self.getInstalledBehaviors() if not b.startswith("animations/")]

    def getSystemBehaviorNames(self) -> List[str]:
        """The robot's own animations."""
        return [b for b in self.getInstalledBehaviors() if b.startswith("animations/")]

    def getBehaviorNature(self, behavior: str) -> str:
        """"interactive" or "solitary"."""
        return self._behavior(behavior).nature

    def getBehaviorTags(self, behavior: str) -> List[str]:
        """Tags of a behavior."""
        return list(self._behavior(behavior).tags)

    def getBehaviorsByTag(self, tag: str) -> List[str]:
        """Behaviors carrying ``tag``."""
        return sorted(n for n, b in self._installed().items() if tag in b.tags)

    def getTagList(self) -> List[str]:
        """Every tag."""
        return sorted({t for b in self._installed().values() for t in b.tags})

    # -- loading and running ----------------------------------------------------------------
    def preloadBehavior(self, behavior: str) -> bool:
        """Load a behavior so that it starts faster."""
        name = self.resolveBehaviorName(behavior)
        with self._lock:
            if name not in self._loaded:
                self._loaded.append(name)
        self.behaviorLoaded(name)
        self._raise_event("ALBehaviorManager/BehaviorsLoaded", [name])
        return True

    def isBehaviorLoaded(self, name: str) -> bool:
        """True once preloaded (or running)."""
        with self._lock:
            return name in self._loaded or name in self._running

    def getLoadedBehaviors(self) -> List[str]:
        """Preloaded or running behaviors."""
        with self._lock:
            return sorted(set(self._loaded) | set(self._running))

    def runBehavior(self, behavior: str) -> None:
        """Run a behavior and return when it ends (or when the call running it is stopped:
        a posted runBehavior, an animation of an animated speech)."""
        installed = self._claim("runBehavior", behavior)
        caller = current_activity()
        with self._lock:
            stop = self._running[installed.name].interrupt
        if caller is not None:
            caller.when_interrupted(stop)
        try:
            self._run(installed)
        finally:
            if caller is not None:
                caller.forget(stop)

    def startBehavior(self, behavior: str) -> None:
        """Start a behavior and return once it has started."""
        installed = self._claim("startBehavior", behavior)
        started = threading.Event()
        self._sim.tasks.start(self._run, installed, started)
        started.wait()

    def stopBehavior(self, behavior: str) -> None:
        """Stop a running behavior."""
        with self._lock:
            activity = self._running.get(behavior)
        if activity is None:
            raise self._error("stopBehavior", "behavior '%s' is not running" % behavior)
        activity.interrupt()
        while self.isBehaviorRunning(behavior):
            threading.Event().wait(0.005)

    def stopAllBehaviors(self) -> None:
        """Stop every running behavior."""
        for name in self.getRunningBehaviors():
            try:
                self.stopBehavior(name)
            except RuntimeError:
                pass  # ended on its own meanwhile

    def isBehaviorRunning(self, behavior: str) -> bool:
        """True while the behavior runs."""
        with self._lock:
            return behavior in self._running

    def getRunningBehaviors(self) -> List[str]:
        """Names of the running behaviors."""
        with self._lock:
            return sorted(self._running)

    # -- default behaviors --------------------------------------------------------------------
    def getDefaultBehaviors(self) -> List[str]:
        """Behaviors started when the robot boots."""
        with self._lock:
            return list(self._defaults)

    def addDefaultBehavior(self, behavior: str) -> None:
        """Start ``behavior`` at boot."""
        name = self.resolveBehaviorName(behavior)
        with self._lock:
            if name not in self._defaults:
                self._defaults.append(name)

    def removeDefaultBehavior(self, behavior: str) -> None:
        """Do not start ``behavior`` at boot."""
        with self._lock:
            if behavior in self._defaults:
                self._defaults.remove(behavior)

    def playDefaultProject(self) -> None:
        """Start the default behaviors that are not running."""
        for name in self.getDefaultBehaviors():
            if not self.isBehaviorRunning(name):
                self.startBehavior(name)

    def close(self) -> None:
        """Stop every running behavior."""
        with self._lock:
            running = list(self._running.values())
        for activity in running:
            activity.interrupt()
        super().close()
