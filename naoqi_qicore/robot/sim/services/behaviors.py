"""Simulated ALBehaviorManager: installed behaviors, running them, and the events it raises.

A behavior installed from a .xar runs through ALFrameManager (its timeline length); one
without a file runs for ``DEFAULT_BEHAVIOR_SECONDS``.
"""
import os
import threading
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

import qi

from naoqi_qicore.robot.sim.services.module import Activity, SimModule, running_as

DEFAULT_BEHAVIOR_SECONDS = 1.0


@dataclass
class InstalledBehavior:
    """A behavior on the robot: name "<package>/<behavior>", optional .xar, tags, nature."""

    name: str
    xar: Optional[str] = None
    nature: str = "interactive"
    tags: List[str] = field(default_factory=list)


DEFAULT_BEHAVIORS = [
    InstalledBehavior("animations/Stand/Gestures/Hey_1", tags=["hello", "hi"]),
    InstalledBehavior("animations/Stand/Gestures/Enthusiastic_4", tags=["happy"]),
    InstalledBehavior("animations/Sit/Gestures/Hey_1", tags=["hello", "hi"]),
    InstalledBehavior("dialog_applauncher/.", nature="solitary"),
]


class ALBehaviorManager(SimModule):
    """Install, preload, run, start and stop behaviors by name."""

    NAME = "ALBehaviorManager"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._installed: Dict[str, InstalledBehavior] = {b.name: b for b in DEFAULT_BEHAVIORS}
        self._loaded: List[str] = []
        self._running: Dict[str, Activity] = {}
        self._defaults: List[str] = []
        self.behaviorStarted = qi.Signal("(s)")
        self.behaviorStopped = qi.Signal("(s)")
        self.behaviorLoaded = qi.Signal("(s)")
        self.behaviorFailed = qi.Signal("(ss)")

    # -- internals --------------------------------------------------------------------------
    def _publish_running(self) -> None:
        with self._lock:
            running = sorted(self._running)
        self._memory().insertData("BehaviorsRun", running)

    def _claim(self, method: str, behavior: str) -> str:
        name = self.resolveBehaviorName(behavior)
        with self._lock:
            if name in self._running:
                raise self._error(method, "behavior '%s' is already running" % name)
            self._running[name] = Activity()
        return name

    def _run(self, name: str, started: Optional[threading.Event] = None) -> None:
        with self._lock:
            activity = self._running[name]
        self._publish_running()
        self.behaviorStarted(name)
        if started is not None:
            started.set()
        try:
            self._play(name, activity)
        except RuntimeError as error:
            self._raise_event("ALBehaviorManager/BehaviorFailed", [name, str(error)])
            self.behaviorFailed(name, str(error))
            raise
        finally:
            with self._lock:
                self._running.pop(name, None)
            self._publish_running()
            self.behaviorStopped(name)

    def _play(self, name: str, activity: Activity) -> None:
        xar = self._installed[name].xar
        with running_as(activity):
            if xar is None:
                activity.sleep(DEFAULT_BEHAVIOR_SECONDS)
                return
            frames = self._sim.service("ALFrameManager")
            behavior_id = frames.newBehaviorFromFile(xar, "")
            try:
                frames.completeBehavior(behavior_id)
            finally:
                frames.deleteBehavior(behavior_id)

    # -- installed behaviors --------------------------------------------------------------------
    def installBehavior(self, absolutePath: str, localPath: str, overwrite: bool) -> bool:
        """Install the .xar (or the folder holding behavior.xar) under the name ``localPath``."""
        xar = (os.path.join(absolutePath, "behavior.xar") if os.path.isdir(absolutePath)
               else absolutePath)
        if not os.path.isfile(xar):
            raise self._error("installBehavior", "no behavior at '%s'" % absolutePath)
        with self._lock:
            if localPath in self._installed and not overwrite:
                return False
            existed = localPath in self._installed
            self._installed[localPath] = InstalledBehavior(localPath, xar)
        self._raise_event("ALBehaviorManager/Behavior%s" % ("Updated" if existed else "Added"),
                          localPath)
        return True

    def removeBehavior(self, behavior: str) -> bool:
        """Uninstall a behavior (stopping it); False if it was not installed."""
        if behavior not in self._installed:
            return False
        if self.isBehaviorRunning(behavior):
            self.stopBehavior(behavior)
        with self._lock:
            del self._installed[behavior]
            if behavior in self._loaded:
                self._loaded.remove(behavior)
        self._raise_event("ALBehaviorManager/BehaviorRemoved", behavior)
        return True

    def resolveBehaviorName(self, name: str) -> str:
        """Full "<package>/<behavior>" name of ``name`` (a full name or a package name)."""
        with self._lock:
            if name in self._installed:
                return name
            matches = sorted(b for b in self._installed if b.startswith(name.rstrip("/") + "/"))
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
        with self._lock:
            return sorted(self._installed)

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
        return self._installed[self.resolveBehaviorName(behavior)].nature

    def getBehaviorTags(self, behavior: str) -> List[str]:
        """Tags of a behavior."""
        return list(self._installed[self.resolveBehaviorName(behavior)].tags)

    def getBehaviorsByTag(self, tag: str) -> List[str]:
        """Behaviors carrying ``tag``."""
        with self._lock:
            return sorted(n for n, b in self._installed.items() if tag in b.tags)

    def getTagList(self) -> List[str]:
        """Every tag."""
        with self._lock:
            return sorted({t for b in self._installed.values() for t in b.tags})

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
        """Run a behavior and return when it ends."""
        self._run(self._claim("runBehavior", behavior))

    def startBehavior(self, behavior: str) -> None:
        """Start a behavior and return once it has started."""
        name = self._claim("startBehavior", behavior)
        started = threading.Event()
        self._sim.tasks.start(self._run, name, started)
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
