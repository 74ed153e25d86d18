"""Simulated autonomous abilities: ALBasicAwareness, ALAutonomousMoves, ALAutonomousBlinking.

Autonomous abilities run while they are enabled (the default) and Autonomous Life is in its
solitary or interactive state (ALAutonomousLife tells them, :meth:`Switchable._life_allows`).
Basic awareness, while it runs, works on top of the extractors of the stimuli it reacts to,
as on a robot: it subscribes (as "ALBasicAwareness") to ALPeoplePerception for "People",
ALSoundLocalization for "Sound" and ALMovementDetection for "Movement", so those extractors
(and ALFaceDetection, under ALPeoplePerception) report what they perceive with no
application subscribing to them.
"""
from typing import Any, Dict, Set

import qi

from naoqi_qicore.robot.sim.services.module import SimModule, check_choice

ENGAGEMENT_MODES = ["Unengaged", "FullyEngaged", "SemiEngaged"]
TRACKING_MODES = ["Head", "BodyRotation", "WholeBody", "MoveContextually"]
STIMULI = ["People", "Touch", "TabletTouch", "Sound", "Movement", "NavigationMotion"]
BACKGROUND_STRATEGIES = ["none", "backToNeutral"]
#: stimulus -> the extractor basic awareness works on for it
STIMULUS_EXTRACTORS = {"People": "ALPeoplePerception", "Sound": "ALSoundLocalization",
                       "Movement": "ALMovementDetection"}


class Switchable(SimModule):
    """An ability switched by setEnabled/isEnabled, with an ``enabledChanged`` signal; it
    runs while enabled and allowed by Autonomous Life."""

    def __init__(self, sim: Any, enabled: bool) -> None:
        super().__init__(sim)
        self._enabled = enabled
        self._allowed = True
        self.enabledChanged = qi.Signal("(b)")

    def setEnabled(self, enabled: bool) -> None:
        """Switch the ability on or off."""
        with self._lock:
            changed, self._enabled = enabled != self._enabled, enabled
        if changed:
            self._changed()
            self.enabledChanged(enabled)

    def isEnabled(self) -> bool:
        """Whether the ability is on."""
        with self._lock:
            return self._enabled

    def _life_allows(self, allowed: bool) -> None:
        """Autonomous Life's state lets the ability run (solitary, interactive) or not."""
        with self._lock:
            changed, self._allowed = allowed != self._allowed, allowed
        if changed:
            self._changed()

    def _runs(self) -> bool:
        """Enabled and allowed by Autonomous Life."""
        with self._lock:
            return self._enabled and self._allowed

    def _changed(self) -> None:
        """Whether the ability runs may have changed."""


class ALBasicAwareness(Switchable):
    """Looking for and following people: modes, stimuli, pause."""

    NAME = "ALBasicAwareness"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim, enabled=True)
        self._paused = False
        self._engagement = "Unengaged"
        self._tracking = "Head"
        self._stimuli: Dict[str, bool] = {s: True for s in STIMULI}
        self._extractors: Set[str] = set()  # extractors it subscribed to
        self._closing = False
        self._changed()

    def _changed(self) -> None:
        """Subscribe to the extractors of the enabled stimuli while running, else leave
        them."""
        with self._lock:
            running = self._enabled and self._allowed and not self._closing
            wanted = {STIMULUS_EXTRACTORS[s] for s, on in self._stimuli.items()
                      if on and s in STIMULUS_EXTRACTORS} if running else set()
            starting, stopping = wanted - self._extractors, self._extractors - wanted
            self._extractors = wanted
        for name in sorted(stopping):
            self._extractor(name, subscribe=False)
        for name in sorted(starting):
            self._extractor(name, subscribe=True)

    def _extractor(self, name: str, subscribe: bool) -> None:
        try:
            extractor = self._sim.service(name)
            (extractor.subscribe if subscribe else extractor.unsubscribe)(self.NAME)
        except RuntimeError as error:  # a robot without it only loses that stimulus
            self._sim.log.debug("ALBasicAwareness: %s: %s", name, error)

    def close(self) -> None:
        """Leave the extractors (the robot shuts down)."""
        self._closing = True
        self._changed()
        super().close()

    def startAwareness(self) -> None:
        """Deprecated: setEnabled(True)."""
        self.setEnabled(True)

    def stopAwareness(self) -> None:
        """Deprecated: setEnabled(False)."""
        self.setEnabled(False)

    def isAwarenessRunning(self) -> bool:
        """Enabled, allowed by Autonomous Life and not paused."""
        return self._runs() and not self._paused

    def pauseAwareness(self) -> None:
        """Pause (keep enabled)."""
        self._paused = True

    def resumeAwareness(self) -> None:
        """Resume after pauseAwareness."""
        self._paused = False

    def isAwarenessPaused(self) -> bool:
        """Whether paused."""
        return self._paused

    def setEngagementMode(self, modeName: str) -> None:
        """Unengaged, FullyEngaged or SemiEngaged."""
        self._engagement = check_choice(self, "setEngagementMode", modeName, ENGAGEMENT_MODES)

    def getEngagementMode(self) -> str:
        """The engagement mode."""
        return self._engagement

    def setTrackingMode(self, modeName: str) -> None:
        """Head, BodyRotation, WholeBody or MoveContextually."""
        self._tracking = check_choice(self, "setTrackingMode", modeName, TRACKING_MODES)

    def getTrackingMode(self) -> str:
        """The tracking mode."""
        return self._tracking

    def setStimulusDetectionEnabled(self, stimulusName: str, isStimulusDetectionEnabled: bool
                                    ) -> None:
        """React to a stimulus (People, Touch, TabletTouch, Sound, Movement...) or not."""
        check_choice(self, "setStimulusDetectionEnabled", stimulusName, STIMULI)
        with self._lock:
            self._stimuli[stimulusName] = isStimulusDetectionEnabled
        self._changed()

    def isStimulusDetectionEnabled(self, stimulusName: str) -> bool:
        """Whether a stimulus is reacted to."""
        return self._stimuli[check_choice(self, "isStimulusDetectionEnabled", stimulusName, STIMULI)]

    def resetAllParameters(self) -> None:
        """Default modes and stimuli."""
        with self._lock:
            self._engagement, self._tracking = "Unengaged", "Head"
            self._stimuli = {s: True for s in STIMULI}
        self._changed()


class ALAutonomousBlinking(Switchable):
    """Eye blinking."""

    NAME = "ALAutonomousBlinking"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim, enabled=True)


class ALAutonomousMoves(SimModule):
    """Small moves while listening and at rest."""

    NAME = "ALAutonomousMoves"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._listening = True
        self._background = "backToNeutral"

    def setExpressiveListeningEnabled(self, enabled: bool) -> None:
        """Move while listening."""
        self._listening = enabled

    def getExpressiveListeningEnabled(self) -> bool:
        """Whether the robot moves while listening."""
        return self._listening

    def setBackgroundStrategy(self, strategy: str) -> None:
        """"none" or "backToNeutral"."""
        self._background = check_choice(self, "setBackgroundStrategy", strategy,
                                   BACKGROUND_STRATEGIES)

    def getBackgroundStrategy(self) -> str:
        """The background strategy."""
        return self._background
