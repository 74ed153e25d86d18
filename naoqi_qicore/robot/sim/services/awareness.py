"""Simulated autonomous abilities: ALBasicAwareness, ALAutonomousMoves, ALAutonomousBlinking."""
from typing import Any, Dict

import qi

from naoqi_qicore.robot.sim.services.module import SimModule, check_choice

ENGAGEMENT_MODES = ["Unengaged", "FullyEngaged", "SemiEngaged"]
TRACKING_MODES = ["Head", "BodyRotation", "WholeBody", "MoveContextually"]
STIMULI = ["People", "Touch", "TabletTouch", "Sound", "Movement", "NavigationMotion"]
BACKGROUND_STRATEGIES = ["none", "backToNeutral"]


class _Switchable(SimModule):
    """An ability switched by setEnabled/isEnabled, with an ``enabledChanged`` signal."""

    def __init__(self, sim: Any, enabled: bool) -> None:
        super().__init__(sim)
        self._enabled = enabled
        self.enabledChanged = qi.Signal("(b)")

    def setEnabled(self, enabled: bool) -> None:
        """Switch the ability on or off."""
        if enabled != self._enabled:
            self._enabled = enabled
            self.enabledChanged(enabled)

    def isEnabled(self) -> bool:
        """Whether the ability is on."""
        return self._enabled


class ALBasicAwareness(_Switchable):
    """Looking for and following people: modes, stimuli, pause."""

    NAME = "ALBasicAwareness"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim, enabled=False)
        self._paused = False
        self._engagement = "Unengaged"
        self._tracking = "Head"
        self._stimuli: Dict[str, bool] = {s: True for s in STIMULI}

    def startAwareness(self) -> None:
        """Deprecated: setEnabled(True)."""
        self.setEnabled(True)

    def stopAwareness(self) -> None:
        """Deprecated: setEnabled(False)."""
        self.setEnabled(False)

    def isAwarenessRunning(self) -> bool:
        """Enabled and not paused."""
        return self._enabled and not self._paused

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
        self._stimuli[stimulusName] = isStimulusDetectionEnabled

    def isStimulusDetectionEnabled(self, stimulusName: str) -> bool:
        """Whether a stimulus is reacted to."""
        return self._stimuli[check_choice(self, "isStimulusDetectionEnabled", stimulusName, STIMULI)]

    def resetAllParameters(self) -> None:
        """Default modes and stimuli."""
        self._engagement, self._tracking = "Unengaged", "Head"
        self._stimuli = {s: True for s in STIMULI}


class ALAutonomousBlinking(_Switchable):
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
