"""Simulated detection extractors: ALLandMarkDetection (NAO marks), ALSoundLocalization and
ALSoundDetection.

They report what the robot's senses give them (``simulate*``, called by
``NaoqiSimPerception``) while they work (subscribed to and not paused), with the values the
real extractors raise in ALMemory.
"""
from typing import Any, Dict, List

from naoqi_qicore.robot.sim.services.extractor import Extractor
from naoqi_qicore.robot.sim.services.module import check_range

#: camera the simulated robot sees marks with
TOP_CAMERA = "CameraTop"
#: apparent size (rad) of a mark seen at 1 m
MARK_SIZE_RAD = 0.1
#: energy and confidence of a sound the simulated robot hears
SOUND_ENERGY = 0.3
SOUND_CONFIDENCE = 0.8


def stamp(seconds: float) -> List[int]:
    """``[seconds, microseconds]`` as NAOqi's extractors timestamp their values."""
    return [int(seconds), int(seconds % 1.0 * 1e6)]


class _ParameterExtractor(Extractor):
    """An extractor tuned with setParameter(name, value) (sensitivity...)."""

    PARAMETERS: Dict[str, Any] = {}

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._parameters = dict(self.PARAMETERS)

    def setParameter(self, parameter: str, value: Any) -> None:
        """Set a parameter (its name and documented range are checked)."""
        if parameter not in self._parameters:
            raise self._error("setParameter", "unknown parameter '%s' (%s)"
                              % (parameter, ", ".join(sorted(self._parameters))))
        default = self._parameters[parameter]
        if isinstance(default, float):
            value = check_range(self, "setParameter", parameter, float(value), 0.0, 1.0)
        with self._lock:
            self._parameters[parameter] = value


class ALLandMarkDetection(Extractor):
    """NAO marks (landmarks) in view: ``LandmarkDetected``."""

    NAME = "ALLandMarkDetection"
    OUTPUTS = ("LandmarkDetected",)
    EVENTS = ("LandmarkDetected",)

    def simulateLandmarks(self, markIds: List[int], alpha: float = 0.0,
                          beta: float = 0.0) -> bool:
        """Simulation only: the marks ``markIds`` are in view at camera angles (rad), side by
        side; ``[]``: none.  True when reported (the extractor works)."""
        if not self._producing():
            return False
        if not markIds:
            self._raise_event("LandmarkDetected", [])
            return True
        marks = [[[0, alpha + index * 2 * MARK_SIZE_RAD, beta, MARK_SIZE_RAD, MARK_SIZE_RAD,
                   0.0], [int(mark)]] for index, mark in enumerate(markIds)]
        self._raise_event("LandmarkDetected", [stamp(self._sim.clock()), marks, [0.0] * 6,
                                               [0.0] * 6, TOP_CAMERA])
        return True


class ALSoundLocalization(_ParameterExtractor):
    """Where sounds come from: ``ALSoundLocalization/SoundLocated``."""

    NAME = "ALSoundLocalization"
    OUTPUTS = ("ALSoundLocalization/SoundLocated",)
    EVENTS = ("ALSoundLocalization/SoundLocated",)
    PARAMETERS = {"Sensitivity": 0.9, "EnergyComputation": True}

    def simulateSound(self, azimuth: float, elevation: float) -> bool:
        """Simulation only: a sound from ``azimuth``, ``elevation`` (rad, robot frame).
        True when reported (the extractor works)."""
        if not self._producing():
            return False
        with self._lock:
            energy = SOUND_ENERGY if self._parameters["EnergyComputation"] else 0.0
        self._raise_event("ALSoundLocalization/SoundLocated", [
            stamp(self._sim.clock()), [azimuth, elevation, SOUND_CONFIDENCE, energy],
            [0.0] * 6, [0.0] * 6])
        return True


class ALSoundDetection(_ParameterExtractor):
    """Sounds starting and ending: ``SoundDetected``."""

    NAME = "ALSoundDetection"
    OUTPUTS = ("SoundDetected",)
    EVENTS = ("SoundDetected",)
    PARAMETERS = {"Sensitivity": 0.9}

    def simulateSound(self) -> bool:
        """Simulation only: a short sound.  True when reported (the extractor works)."""
        if not self._producing():
            return False
        self._raise_event("SoundDetected", [[0, 1, SOUND_CONFIDENCE]])
        return True
