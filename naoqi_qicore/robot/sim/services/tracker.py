"""Simulated ALTracker: targets, modes, effectors, and lookAt/pointAt moving joints via ALMotion.

Positions are converted to head and arm angles with a simple geometric model (head and
shoulders at fixed heights in the torso frame); the simulator has no vision, so tracked
targets are only reported where ``simulateTarget`` puts them (the perception service
does so for a tracked face or person in view).  In Move and Navigate modes a target seen
is at once reached (``ALTracker/TargetReached``): the simulated robot does not walk.
"""
import math
from typing import Any, Dict, List

from naoqi_qicore.robot.sim.services.module import SimModule, check_choice

TARGETS = ["RedBall", "Face", "LandMark", "LandMarks", "People", "Sound"]
MODES = ["Head", "WholeBody", "Move", "Navigate"]
EFFECTORS = ["None", "Arms", "LArm", "RArm"]
FRAMES = {0: "FRAME_TORSO", 1: "FRAME_WORLD", 2: "FRAME_ROBOT"}
HEAD_HEIGHT = 0.13     # m above the torso origin
SHOULDER = (0.10, 0.098)  # height above the torso origin, lateral offset (m)
HEAD_LIMITS = {"nao": ((-2.08, 2.08), (-0.67, 0.51)), "pepper": ((-2.08, 2.08), (-0.70, 0.64))}


def _clamp(value: float, limits: Any) -> float:
    return min(max(value, limits[0]), limits[1])


class ALTracker(SimModule):
    """Register targets and track them; look and point at positions."""

    NAME = "ALTracker"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._targets: Dict[str, Any] = {}
        self._active = ""
        self._mode = "Head"
        self._effector = "None"
        self._relative = [0.0] * 6
        self._max_distance = 3.0
        self._search = False
        self._position: List[float] = []

    def _check_position(self, method: str, position: List[float], frame: int) -> None:
        if len(position) != 3:
            raise self._error(method, "position must be [x, y, z], got %r" % (position,))
        if frame not in FRAMES:
            raise self._error(method, "frame must be 0 (torso), 1 (world) or 2 (robot)")

    def _move(self, names: List[str], angles: List[float], method: str, speed: float) -> None:
        if not 0.0 < speed <= 1.0:
            raise self._error(method, "fractionMaxSpeed must be in (0, 1], got %s" % speed)
        with self._activity():
            self._sim.service("ALMotion").angleInterpolationWithSpeed(names, angles, speed)

    # -- targets ----------------------------------------------------------------------------
    def registerTarget(self, target: str, param: Any) -> None:
        """Register a target kind (RedBall diameter, Face width, People ids...)."""
        check_choice(self, "registerTarget", target, TARGETS)
        self._targets[target] = param

    def unregisterTarget(self, target: str) -> None:
        """Forget a target (stopping its tracking)."""
        self._targets.pop(target, None)
        if self._active == target:
            self.stopTracker()

    def unregisterTargets(self, targets: List[str]) -> None:
        """Forget several targets."""
        for target in targets:
            self.unregisterTarget(target)

    def unregisterAllTargets(self) -> None:
        """Forget every target."""
        self.unregisterTargets(list(self._targets))

    def getRegisteredTargets(self) -> List[str]:
        """Registered targets."""
        return sorted(self._targets)

    def getSupportedTargets(self) -> List[str]:
        """Target kinds."""
        return list(TARGETS)

    def track(self, target: str) -> None:
        """Start tracking a registered target."""
        if target not in self._targets:
            raise self._error("track", "target '%s' is not registered" % target)
        self._active = target
        self._position = []  # not seen since this tracking started
        self._raise_event("ALTracker/ActiveTargetChanged", target)

    def stopTracker(self) -> None:
        """Stop tracking."""
        if self._active:
            self._active = ""
            self._raise_event("ALTracker/ActiveTargetChanged", "")

    def getActiveTarget(self) -> str:
        """Tracked target ("" when none)."""
        return self._active

    def isActive(self) -> bool:
        """Whether a target is tracked."""
        return bool(self._active)

    def isTargetLost(self) -> bool:
        """True while tracking a target that has not been seen."""
        return bool(self._active) and not self._position

    def isNewTargetDetected(self) -> bool:
        """Whether the tracked target has been seen."""
        return bool(self._active) and bool(self._position)

    def getTargetPosition(self, frame: int = 0) -> List[float]:
        """Last position of the tracked target ([] when none)."""
        return list(self._position) if self._active else []

    def simulateTarget(self, position: List[float]) -> None:
        """Simulation only: the tracked target is seen at [x, y, z] (torso frame)."""
        self._check_position("simulateTarget", position, 0)
        self._position = list(position)
        if self._active:
            self._raise_event("ALTracker/TargetDetected", self._active)
            self.lookAt(position, 0, 0.5, False)
            if self._mode in ("Move", "Navigate"):
                # the simulated robot has no legs to walk on: it is where it should be
                self._raise_event("ALTracker/TargetReached", True)

    # -- settings ---------------------------------------------------------------------------
    def setMode(self, mode: str) -> None:
        """Head, WholeBody, Move or Navigate."""
        self._mode = check_choice(self, "setMode", mode, MODES)

    def getMode(self) -> str:
        """The tracking mode."""
        return self._mode

    def getAvailableModes(self) -> List[str]:
        """Tracking modes."""
        return list(MODES)

    def setEffector(self, effector: str) -> None:
        """None, Arms, LArm or RArm."""
        self._effector = check_choice(self, "setEffector", effector, EFFECTORS)

    def getEffector(self) -> str:
        """The effector following the target."""
        return self._effector

    def setRelativePosition(self, target: List[float]) -> None:
        """[x, y, z, wx, wy, wz] kept from the target in Move mode."""
        if len(target) != 6:
            raise self._error("setRelativePosition", "expected 6 values, got %d" % len(target))
        self._relative = list(target)

    def getRelativePosition(self) -> List[float]:
        """[x, y, z, wx, wy, wz] kept from the target."""
        return list(self._relative)

    def setMaximumDistanceDetection(self, distance: float) -> None:
        """Targets farther than ``distance`` m are ignored."""
        self._max_distance = distance

    def getMaximumDistanceDetection(self) -> float:
        """Detection distance in m."""
        return self._max_distance

    def toggleSearch(self, search: bool) -> None:
        """Look around for a lost target."""
        self._search = search

    def isSearchEnabled(self) -> bool:
        """Whether lost targets are searched."""
        return self._search

    # -- looking and pointing ---------------------------------------------------------------
    def lookAt(self, position: List[float], frame: int, fractionMaxSpeed: float,
               useWholeBody: bool = False) -> None:
        """Turn the head towards [x, y, z] (m); returns when there."""
        self._check_position("lookAt", position, frame)
        x, y, z = position
        yaw_limits, pitch_limits = HEAD_LIMITS.get(self._sim.robot, HEAD_LIMITS["nao"])
        yaw = _clamp(math.atan2(y, x), yaw_limits)
        pitch = _clamp(math.atan2(HEAD_HEIGHT - z, math.hypot(x, y)), pitch_limits)
        self._move(["HeadYaw", "HeadPitch"], [yaw, pitch], "lookAt", fractionMaxSpeed)

    def pointAt(self, effector: str, position: List[float], frame: int,
                fractionMaxSpeed: float) -> None:
        """Point an arm ("Arms" picks the side) at [x, y, z] (m); returns when there."""
        check_choice(self, "pointAt", effector, EFFECTORS[1:])
        self._check_position("pointAt", position, frame)
        x, y, z = position
        side = effector[0] if effector != "Arms" else ("L" if y >= 0 else "R")
        lateral = SHOULDER[1] if side == "L" else -SHOULDER[1]
        pitch = _clamp(math.atan2(SHOULDER[0] - z, math.hypot(x, y - lateral)), (-2.08, 2.08))
        roll = math.atan2(y - lateral, x)
        roll = _clamp(roll, (-0.31, 1.32) if side == "L" else (-1.32, 0.31))
        self._move([side + "ShoulderPitch", side + "ShoulderRoll", side + "ElbowRoll"],
                   [pitch, roll, -0.035 if side == "L" else 0.035], "pointAt",
                   fractionMaxSpeed)
