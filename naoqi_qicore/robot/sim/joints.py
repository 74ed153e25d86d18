"""NAO (V5/V6, 25 degrees of freedom) and Pepper joints: names, chains and limits.

Limits are ``(min rad, max rad, max velocity rad/s, max torque N.m)`` as
``ALMotion.getLimits`` returns them (hands: opening ratio), from the robots' public URDF
descriptions.  On NAO, RHipYawPitch is driven by LHipYawPitch (one motor for both).
"""
from __future__ import annotations

from typing import Dict, List, Tuple

Limits = Tuple[float, float, float, float]

_NAO_LIMITS: Dict[str, Limits] = {
    "HeadYaw": (-2.08567, 2.08567, 8.26797, 1.547),
    "HeadPitch": (-0.671952, 0.514872, 7.19407, 1.532),
    "LShoulderPitch": (-2.08567, 2.08567, 8.26797, 1.329),
    "LShoulderRoll": (-0.314159, 1.32645, 7.19407, 1.7835),
    "LElbowYaw": (-2.08567, 2.08567, 8.26797, 1.547),
    "LElbowRoll": (-1.54462, -0.0349066, 7.19407, 1.532),
    "LWristYaw": (-1.82387, 1.82387, 24.6229, 0.4075),
    "LHand": (0.0, 1.0, 8.33, 0.292),
    "LHipYawPitch": (-1.14529, 0.740718, 4.16174, 3.348),
    "LHipRoll": (-0.379435, 0.79046, 4.16174, 3.348),
    "LHipPitch": (-1.53589, 0.48398, 6.40239, 3.023),
    "LKneePitch": (-0.0923279, 2.11255, 6.40239, 3.023),
    "LAnklePitch": (-1.18944, 0.922581, 6.40239, 3.023),
    "LAnkleRoll": (-0.397761, 0.768992, 4.16174, 3.348),
    "RHipYawPitch": (-1.14529, 0.740718, 4.16174, 3.348),
    "RHipRoll": (-0.79046, 0.379435, 4.16174, 3.348),
    "RHipPitch": (-1.53589, 0.48398, 6.40239, 3.0226),
    "RKneePitch": (-0.0923279, 2.11255, 6.40239, 3.0226),
    "RAnklePitch": (-1.1863, 0.932006, 6.40239, 3.0226),
    "RAnkleRoll": (-0.768992, 0.397761, 4.16174, 3.348),
    "RShoulderPitch": (-2.08567, 2.08567, 8.26797, 1.329),
    "RShoulderRoll": (-1.32645, 0.314159, 7.19407, 1.783),
    "RElbowYaw": (-2.08567, 2.08567, 8.26797, 1.547),
    "RElbowRoll": (0.0349066, 1.54462, 7.19407, 1.532),
    "RWristYaw": (-1.82387, 1.82387, 24.6229, 0.4075),
    "RHand": (0.0, 1.0, 8.33, 0.292),
}

_PEPPER_LIMITS: Dict[str, Limits] = {
    "HeadYaw": (-2.08567, 2.08567, 7.33998, 5.428),
    "HeadPitch": (-0.706858, 0.637045, 9.22756, 2.666),
    "LShoulderPitch": (-2.08567, 2.08567, 7.33998, 5.428),
    "LShoulderRoll": (0.00872665, 1.56207, 9.22756, 2.666),
    "LElbowYaw": (-2.08567, 2.08567, 7.33998, 5.428),
    "LElbowRoll": (-1.56207, -0.00872665, 9.22756, 2.666),
    "LWristYaw": (-1.82387, 1.82387, 17.3835, 0.2014),
    "LHand": (0.02, 0.98, 12.56, 0.144),
    "HipRoll": (-0.514872, 0.514872, 2.27032, 10.1884),
    "HipPitch": (-1.03847, 1.03847, 2.93276, 19.787),
    "KneePitch": (-0.514872, 0.514872, 2.93276, 27.702),
    "RShoulderPitch": (-2.08567, 2.08567, 7.33998, 5.428),
    "RShoulderRoll": (-1.56207, -0.00872665, 9.22756, 2.666),
    "RElbowYaw": (-2.08567, 2.08567, 7.33998, 5.428),
    "RElbowRoll": (0.00872665, 1.56207, 9.22756, 2.666),
    "RWristYaw": (-1.82387, 1.82387, 17.3835, 0.2014),
    "RHand": (0.02, 0.98, 12.56, 0.144),
}

_ARM = ("ShoulderPitch", "ShoulderRoll", "ElbowYaw", "ElbowRoll", "WristYaw", "Hand")
_NAO_LEG = ("HipYawPitch", "HipRoll", "HipPitch", "KneePitch", "AnklePitch", "AnkleRoll")

_CHAINS: Dict[str, Dict[str, List[str]]] = {
    "nao": {
        "Head": ["HeadYaw", "HeadPitch"],
        "LArm": ["L" + n for n in _ARM],
        "LLeg": ["L" + n for n in _NAO_LEG],
        "RLeg": ["R" + n for n in _NAO_LEG],
        "RArm": ["R" + n for n in _ARM],
    },
    "pepper": {
        "Head": ["HeadYaw", "HeadPitch"],
        "LArm": ["L" + n for n in _ARM],
        "Leg": ["HipRoll", "HipPitch", "KneePitch"],
        "RArm": ["R" + n for n in _ARM],
    },
}

#: joints that follow another one (NAO's hip yaw-pitch motor drives both sides)
COUPLED: Dict[str, Dict[str, str]] = {"nao": {"RHipYawPitch": "LHipYawPitch"}, "pepper": {}}


class JointTable:
    """Joints of one robot, and how NAOqi names groups of them."""

    def __init__(self, robot: str) -> None:
        self.robot = robot
        self.limits: Dict[str, Limits] = _NAO_LIMITS if robot == "nao" else _PEPPER_LIMITS
        self.chains = _CHAINS[robot]
        self.body: List[str] = [j for chain in self.chains.values() for j in chain]
        self.coupled = COUPLED[robot]

    def groups(self) -> Dict[str, List[str]]:
        """Group names ALMotion accepts: "Body", "JointActuators", "Joints", the chains."""
        groups = {"Body": self.body, "JointActuators": self.body, "Joints": self.body}
        groups.update(self.chains)
        return groups

    def expand(self, names: object) -> List[str]:
        """Joint names for a joint, chain or group name, or a list of them.

        Raises ValueError naming the first unknown name.
        """
        items = [names] if isinstance(names, str) else list(names)  # type: ignore[call-overload]
        groups = self.groups()
        joints: List[str] = []
        for item in items:
            if not isinstance(item, str):
                raise ValueError("a joint name must be a string, got %r" % (item,))
            if item in groups:
                joints.extend(groups[item])
            elif item in self.limits:
                joints.append(item)
            else:
                raise ValueError("'%s' is not a joint, chain or group of %s" % (
                    item, self.robot.upper() if self.robot == "nao" else "Pepper"))
        return joints

    def clamp(self, joint: str, angle: float) -> float:
        """``angle`` limited to the joint's range."""
        low, high = self.limits[joint][:2]
        return min(high, max(low, angle))
