"""ALMotion's settings and reflex switches: arms while moving, move configurations, collision
protection, breathing, idle posture, fall manager, smart stiffness, push recovery, diagnosis
effect and the external-collision security distances.

The real robot reads these in its control loop.  The simulated one keeps them, checks their
arguments as NAOqi does and gives them back, but has no obstacle, fall or push for them to
act on.  On Pepper, deactivating some safety reflexes needs the owner's consent; the owner
of a simulated robot is taken to have given it.
"""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

from naoqi_qicore.robot.sim.services.module import SimModule, check_choice

#: chain name -> the parts it stands for, per setting family (names from the API pages)
IDLE_CHAINS: Dict[str, Tuple[str, ...]] = {
    "Body": ("Head", "LArm", "RArm", "Legs"), "Legs": ("Legs",), "Arms": ("LArm", "RArm"),
    "LArm": ("LArm",), "RArm": ("RArm",), "Head": ("Head",)}
EXTERNAL_COLLISION_NAMES: Dict[str, Tuple[str, ...]] = {
    "All": ("Move", "LArm", "RArm"), "Move": ("Move",), "Arms": ("LArm", "RArm"),
    "LArm": ("LArm",), "RArm": ("RArm",)}
ARM_CHAINS: Dict[str, Tuple[str, ...]] = {
    "Arms": ("LArm", "RArm"), "LArm": ("LArm",), "RArm": ("RArm",)}

#: NAO's user-settable gait parameters: name -> (Default, Min, Max) ("Locomotion control")
NAO_MOVE_CONFIG: List[Tuple[str, Tuple[float, float, float]]] = [
    ("MaxStepX", (0.040, 0.001, 0.080)),
    ("MaxStepY", (0.140, 0.101, 0.160)),
    ("MaxStepTheta", (0.349, 0.001, 0.524)),
    ("MaxStepFrequency", (1.0, 0.0, 1.0)),
    ("StepHeight", (0.020, 0.005, 0.040)),
    ("TorsoWx", (0.0, -0.122, 0.122)),
    ("TorsoWy", (0.0, -0.122, 0.122)),
]
#: Pepper's base: velocities, accelerations and jerks (m, rad, s) -> (Default, Min, Max)
PEPPER_MOVE_CONFIG: List[Tuple[str, Tuple[float, float, float]]] = [
    ("MaxVelXY", (0.35, 0.1, 0.55)),
    ("MaxVelTheta", (1.0, 0.2, 2.0)),
    ("MaxAccXY", (0.3, 0.1, 0.55)),
    ("MaxAccTheta", (0.75, 0.1, 3.0)),
    ("MaxJerkXY", (1.0, 0.2, 5.0)),
    ("MaxJerkTheta", (2.0, 0.2, 50.0)),
]
MOVE_CONFIG_KINDS = ["Default", "Min", "Max"]
REFLEXES = ("FallManager", "SmartStiffness", "PushRecovery", "DiagnosisEffect")
ORTHOGONAL_SECURITY_DISTANCE_M = 0.4
TANGENTIAL_SECURITY_DISTANCE_M = 0.1
#: breathing: frequency range (beats per minute) and the default configuration; the largest
#: amplitude allowed falls linearly from 1 at the lowest frequency to 0 at the highest
BREATH_BPM = (5.0, 30.0)
DEFAULT_BREATH = {"Bpm": 12.0, "Amplitude": 0.5}


def move_config(robot: str, kind: str) -> List[List[Any]]:
    """``[[name, value], ...]`` of ``robot``'s move configuration ``kind`` (Default/Min/Max)."""
    table = NAO_MOVE_CONFIG if robot == "nao" else PEPPER_MOVE_CONFIG
    column = MOVE_CONFIG_KINDS.index(kind)
    return [[name, values[column]] for name, values in table]


class MotionSettings(SimModule):
    """The settings half of the simulated ALMotion (its joint and walk commands subclass it)."""

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._move_arms = {"LArm": True, "RArm": True}
        self._external_collision = {part: True for part in EXTERNAL_COLLISION_NAMES["All"]}
        self._self_collision = {arm: True for arm in ARM_CHAINS["Arms"]}
        self._breath = {part: False for part in IDLE_CHAINS["Body"]}
        self._idle_posture = {part: False for part in IDLE_CHAINS["Body"]}
        self._reflexes = {reflex: True for reflex in REFLEXES}
        self._orthogonal_distance = ORTHOGONAL_SECURITY_DISTANCE_M
        self._tangential_distance = TANGENTIAL_SECURITY_DISTANCE_M
        self._breath_config = dict(DEFAULT_BREATH)

    # -- shared ----------------------------------------------------------------------------
    def _parts(self, method: str, name: str,
               chains: Dict[str, Tuple[str, ...]]) -> Tuple[str, ...]:
        return chains[check_choice(self, method, name, list(chains))]

    def _set_parts(self, flags: Dict[str, bool], method: str, name: str,
                   chains: Dict[str, Tuple[str, ...]], enable: bool) -> None:
        parts = self._parts(method, name, chains)
        with self._lock:
            flags.update((part, enable) for part in parts)

    def _all_parts(self, flags: Dict[str, bool], method: str, name: str,
                   chains: Dict[str, Tuple[str, ...]]) -> bool:
        parts = self._parts(method, name, chains)
        with self._lock:
            return all(flags[part] for part in parts)

    def _set_reflex(self, reflex: str, enable: bool) -> None:
        with self._lock:
            self._reflexes[reflex] = enable

    def _reflex(self, reflex: str) -> bool:
        with self._lock:
            return self._reflexes[reflex]

    # -- arms while moving, move configurations ----------------------------------------------
    def setMoveArmsEnabled(self, leftArmEnable: bool, rightArmEnable: bool) -> None:
        """Whether the move task swings each arm while walking."""
        with self._lock:
            self._move_arms.update(LArm=leftArmEnable, RArm=rightArmEnable)

    def getMoveArmsEnabled(self, chainName: str) -> bool:
        """Whether the move task drives "LArm", "RArm" or both "Arms"."""
        return self._all_parts(self._move_arms, "getMoveArmsEnabled", chainName, ARM_CHAINS)

    def setWalkArmsEnabled(self, leftArmEnabled: bool, rightArmEnabled: bool) -> None:
        """Deprecated name of setMoveArmsEnabled."""
        self.setMoveArmsEnabled(leftArmEnabled, rightArmEnabled)

    def getWalkArmsEnabled(self) -> List[bool]:
        """``[left arm, right arm]`` swung while walking (deprecated)."""
        with self._lock:
            return [self._move_arms["LArm"], self._move_arms["RArm"]]

    def getMoveConfig(self, config: str) -> List[List[Any]]:
        """``[[name, value], ...]`` of the "Default", "Min" or "Max" move configuration."""
        return move_config(self._sim.robot,
                           check_choice(self, "getMoveConfig", config, MOVE_CONFIG_KINDS))

    def setMotionConfig(self, config: List[Any]) -> None:
        """Internal tuning as ``[[name, value], ...]``: checked, with nothing to tune here."""
        for entry in config:
            if not (isinstance(entry, (list, tuple)) and len(entry) == 2
                    and isinstance(entry[0], str)):
                raise self._error("setMotionConfig", "each entry must be [name, value], got %r"
                                  % (entry,))

    # -- collision protection ---------------------------------------------------------------
    def setExternalCollisionProtectionEnabled(self, name: str, enable: bool) -> None:
        """Switch external-collision avoidance of "All", "Move", "Arms", "LArm" or "RArm"."""
        self._set_parts(self._external_collision, "setExternalCollisionProtectionEnabled",
                        name, EXTERNAL_COLLISION_NAMES, enable)

    def getExternalCollisionProtectionEnabled(self, name: str) -> bool:
        """True when external-collision avoidance is on for every part of ``name``."""
        return self._all_parts(self._external_collision, "getExternalCollisionProtectionEnabled",
                               name, EXTERNAL_COLLISION_NAMES)

    def setCollisionProtectionEnabled(self, ChainName: str, Enable: bool) -> bool:
        """Switch self-collision avoidance of "Arms", "LArm" or "RArm"; always True."""
        self._set_parts(self._self_collision, "setCollisionProtectionEnabled", ChainName,
                        ARM_CHAINS, Enable)
        return True

    def getCollisionProtectionEnabled(self, ChainName: str) -> bool:
        """Whether self-collision avoidance is on for "LArm" or "RArm"."""
        arms = {arm: ARM_CHAINS[arm] for arm in ("LArm", "RArm")}
        return self._all_parts(self._self_collision, "getCollisionProtectionEnabled",
                               ChainName, arms)

    def isCollision(self, ChainName: str) -> str:
        """Collision state of "Arms", "LArm" or "RArm": "none" (nothing to touch here)."""
        self._parts("isCollision", ChainName, ARM_CHAINS)
        return "none"

    def setOrthogonalSecurityDistance(self, distance: float) -> None:
        """Distance (m) ahead of a motion within which an obstacle stops the robot."""
        if distance < 0.0:
            raise self._error("setOrthogonalSecurityDistance", "distance must be >= 0, got %s"
                              % distance)
        with self._lock:
            self._orthogonal_distance = distance

    def getOrthogonalSecurityDistance(self) -> float:
        """Orthogonal security distance in meters (0.4 by default)."""
        with self._lock:
            return self._orthogonal_distance

    def setTangentialSecurityDistance(self, distance: float) -> None:
        """Distance (m) around the robot within which an obstacle stops it."""
        if distance < 0.0:
            raise self._error("setTangentialSecurityDistance", "distance must be >= 0, got %s"
                              % distance)
        with self._lock:
            self._tangential_distance = distance

    def getTangentialSecurityDistance(self) -> float:
        """Tangential security distance in meters (0.1 by default)."""
        with self._lock:
            return self._tangential_distance

    # -- idle -------------------------------------------------------------------------------
    def setBreathEnabled(self, pChainName: str, pEnable: bool) -> None:
        """Start or stop the breathing animation of "Body", "Legs", "Arms", "LArm", "RArm" or
        "Head"."""
        self._set_parts(self._breath, "setBreathEnabled", pChainName, IDLE_CHAINS, pEnable)

    def getBreathEnabled(self, pChainName: str) -> bool:
        """Whether the whole chain breathes."""
        return self._all_parts(self._breath, "getBreathEnabled", pChainName, IDLE_CHAINS)

    def setIdlePostureEnabled(self, pChainName: str, pEnable: bool) -> None:
        """Start or stop idle posture control of a chain (same names as setBreathEnabled)."""
        self._set_parts(self._idle_posture, "setIdlePostureEnabled", pChainName, IDLE_CHAINS,
                        pEnable)

    def getIdlePostureEnabled(self, pChainName: str) -> bool:
        """Whether idle posture control is on for the whole chain."""
        return self._all_parts(self._idle_posture, "getIdlePostureEnabled", pChainName,
                               IDLE_CHAINS)

    def setBreathConfig(self, pConfig: List[Any]) -> None:
        """Breathing as ``[["Bpm", 5..30], ["Amplitude", 0..1]]`` (either may be left out);
        an amplitude too large for the frequency is lowered to the largest allowed."""
        config = dict(self._breath_config)
        for entry in pConfig:
            if not (isinstance(entry, (list, tuple)) and len(entry) == 2
                    and entry[0] in DEFAULT_BREATH and isinstance(entry[1], (int, float))
                    and not isinstance(entry[1], bool)):
                raise self._error("setBreathConfig", "each entry must be [\"Bpm\" or "
                                  "\"Amplitude\", number], got %r" % (entry,))
            config[entry[0]] = float(entry[1])
        low, high = BREATH_BPM
        if not low <= config["Bpm"] <= high:
            raise self._error("setBreathConfig", "Bpm must be in [%g, %g], got %g"
                              % (low, high, config["Bpm"]))
        if not 0.0 <= config["Amplitude"] <= 1.0:
            raise self._error("setBreathConfig", "Amplitude must be in [0, 1], got %g"
                              % config["Amplitude"])
        largest = (high - config["Bpm"]) / (high - low)
        config["Amplitude"] = min(config["Amplitude"], largest)
        with self._lock:
            self._breath_config = config

    def getBreathConfig(self) -> List[List[Any]]:
        """``[["Bpm", value], ["Amplitude", value]]`` of the breathing animation."""
        with self._lock:
            return [[name, self._breath_config[name]] for name in DEFAULT_BREATH]

    # -- reflexes ---------------------------------------------------------------------------
    def setFallManagerEnabled(self, enable: bool) -> None:
        """Switch the fall manager reflex."""
        self._set_reflex("FallManager", enable)

    def getFallManagerEnabled(self) -> bool:
        """Whether the fall manager reflex is on."""
        return self._reflex("FallManager")

    def setSmartStiffnessEnabled(self, enable: bool) -> None:
        """Switch the smart stiffness reflex of every joint."""
        self._set_reflex("SmartStiffness", enable)

    def getSmartStiffnessEnabled(self) -> bool:
        """Whether the smart stiffness reflex is on."""
        return self._reflex("SmartStiffness")

    def setPushRecoveryEnabled(self, enable: bool) -> None:
        """Switch the push recovery reflex."""
        self._set_reflex("PushRecovery", enable)

    def getPushRecoveryEnabled(self) -> bool:
        """Whether the push recovery reflex is on."""
        return self._reflex("PushRecovery")

    def setDiagnosisEffectEnabled(self, enable: bool) -> None:
        """Switch the diagnosis reflex."""
        self._set_reflex("DiagnosisEffect", enable)

    def getDiagnosisEffectEnabled(self) -> bool:
        """Whether the diagnosis reflex is on."""
        return self._reflex("DiagnosisEffect")
