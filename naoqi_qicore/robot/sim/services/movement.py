"""Simulated movement abilities: ALAnimationPlayer and the moves Autonomous Life adds by itself
(ALSpeakingMovement, ALListeningMovement, ALBackgroundMovement).

An animation is a behavior of the robot's ``animations`` package: one ALBehaviorManager has
installed runs as that behavior; any other animation path (the robot's library is larger
than the few the simulated robot installs, and applications ship their own) plays for
:data:`ANIMATION_SECONDS`, as an interruptible call.
"""
from typing import Any, Dict, List

from naoqi_qicore.robot.sim.services.awareness import Switchable
from naoqi_qicore.robot.sim.services.module import SimModule, check_choice

#: how long an animation the simulated robot has no file for plays (s)
ANIMATION_SECONDS = 2.0
ANIMATIONS_PACKAGE = "animations"
SPEAKING_MODES = ["random", "contextual"]


class ALAnimationPlayer(SimModule):
    """Run an animation by path or by tag."""

    NAME = "ALAnimationPlayer"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._tags: Dict[str, List[str]] = {}
        self._tag_paths: List[str] = []

    def _behaviors(self) -> Any:
        return self._sim.service("ALBehaviorManager")

    def _path(self, animation: str) -> str:
        """``animation`` as a behavior name ("animations/..." or "<package>/...")."""
        name = animation.strip().strip("/")
        if not name:
            raise self._error("run", "the animation name is empty")
        return name if "/" in name else "%s/%s" % (ANIMATIONS_PACKAGE, name)

    def run(self, animation: str) -> None:
        """Play ``animation`` (a path such as "animations/Stand/Gestures/Hey_1") to its end."""
        name = self._path(animation)
        behaviors = self._behaviors()
        if name in behaviors.getInstalledBehaviors():
            behaviors.runBehavior(name)
            return
        with self._activity() as activity:
            activity.sleep(ANIMATION_SECONDS)

    def runTag(self, tag: str, path: str = "") -> None:
        """Play an animation tagged ``tag`` (among those under ``path`` if given)."""
        if not tag:
            raise self._error("runTag", "the tag is empty")
        candidates = self._tagged(tag, path)
        self.run(candidates[0] if candidates else "%s/%s" % (path.strip("/") or
                                                             ANIMATIONS_PACKAGE, tag))

    def _tagged(self, tag: str, path: str) -> List[str]:
        """Animations tagged ``tag`` under ``path``, or under the robot's animations and the
        paths declared (declarePathForTags) when no path is given."""
        with self._lock:
            declared = list(self._tags.get(tag, []))
            prefixes = [path.strip("/")] if path.strip("/") else \
                [ANIMATIONS_PACKAGE] + [p.strip("/") for p in self._tag_paths]
        installed = self._behaviors().getBehaviorsByTag(tag)
        return [name for name in dict.fromkeys(declared + installed)
                if any(name.startswith(prefix + "/") for prefix in prefixes)]

    def addTagForAnimations(self, tagsToAnimations: Dict[str, Any]) -> None:
        """Give tags to animations: ``{tag: [animation path, ...]}``."""
        with self._lock:
            for tag, animations in tagsToAnimations.items():
                names = [animations] if isinstance(animations, str) else list(animations)
                self._tags.setdefault(str(tag), []).extend(self._path(n) for n in names)

    def declarePathForTags(self, path: str) -> None:
        """Look for tagged animations under ``path`` too."""
        with self._lock:
            self._tag_paths.append(path)

    def reset(self) -> None:
        """Forget the tags and paths declared."""
        with self._lock:
            self._tags.clear()
            self._tag_paths.clear()


class ALSpeakingMovement(Switchable):
    """Gestures while the robot speaks (an autonomous ability)."""

    NAME = "ALSpeakingMovement"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim, enabled=True)
        self._mode = "contextual"

    def setMode(self, mode: str) -> None:
        """"random" or "contextual" gestures."""
        self._mode = check_choice(self, "setMode", mode, SPEAKING_MODES)

    def getMode(self) -> str:
        """The gesture mode."""
        return self._mode


class ALListeningMovement(Switchable):
    """Small moves while the robot listens (an autonomous ability)."""

    NAME = "ALListeningMovement"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim, enabled=True)


class ALBackgroundMovement(Switchable):
    """Breathing-like moves while the robot is idle (an autonomous ability)."""

    NAME = "ALBackgroundMovement"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim, enabled=True)
