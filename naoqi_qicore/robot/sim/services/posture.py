"""Simulated ALRobotPosture: NAO's and Pepper's predefined postures, reached through ALMotion.

The current posture is recognised from the joint angles ALMotion reports (closest predefined
posture within a tolerance, else "Unknown").  As on the robot, ``goToPosture`` "computes a
path from its current posture to its target posture, and applies it": it passes through the
intermediate postures of the robot's posture graph (NAO sits down from Stand through
StandInit and Crouch); ``applyPosture`` sets the joints straight to the target.  Whole-body
posture moves run at :data:`POSTURE_SPEED_RATIO` of ALMotion's joint speeds, so a NAO's
Stand -> Sit at 0.8 takes seconds, as on the robot, not a fraction of one.
"""
import collections
import math
from typing import Any, Dict, List, Tuple

from naoqi_qicore.robot.sim.services.module import SimModule, check_range

# Left arm and leg angles in degrees, within the joint limits (hands as an opening ratio);
# the right side mirrors them.
_ARM = ("ShoulderPitch", "ShoulderRoll", "ElbowYaw", "ElbowRoll", "WristYaw", "Hand")
_NAO_LEG = ("HipRoll", "HipPitch", "KneePitch", "AnklePitch", "AnkleRoll")
_MIRRORED = {"ShoulderRoll", "ElbowYaw", "ElbowRoll", "WristYaw", "HipRoll", "AnkleRoll"}

# name -> (family, head [yaw, pitch], arm, legs)
_NAO_POSTURES: Dict[str, Tuple[str, Tuple[float, ...], Tuple[float, ...], Tuple[float, ...]]] = {
    "StandInit": ("Standing", (0, 0), (84, 7, -68, -23, 6, 0.3), (0, -25, 40, -20, 0)),
    "Stand": ("Standing", (0, -10), (90, 11, -70, -50, 0, 0.3), (0, -9, 22, -13, 0)),
    "StandZero": ("Standing", (0, 0), (0, 0, 0, 0, 0, 0.0), (0, 0, 0, 0, 0)),
    "Crouch": ("Crouching", (0, 0), (76, 5, -46, -35, 6, 0.3), (0, -50, 121, -68, 0)),
    "Sit": ("Sitting", (0, 0), (49, 7, -62, -52, 5, 0.3), (5, -50, 70, 10, 0)),
    "SitRelax": ("Sitting", (0, 0), (113, 3, 4, -8, 5, 0.3), (6, -45, 50, 16, 0)),
    "LyingBack": ("LyingBack", (0, 0), (100, 5, -90, -40, 0, 0.3), (0, 8, -5, 5, 0)),
    "LyingBelly": ("LyingBelly", (0, 30), (40, 5, -90, -40, 0, 0.3), (0, 10, 10, -10, 0)),
}
# name -> (family, head, arm, (HipRoll, HipPitch, KneePitch))
_PEPPER_POSTURES = {
    "StandInit": ("Standing", (0, -12), (90, 6, -70, -30, 0, 0.6), (0, -2, 0)),
    "Stand": ("Standing", (0, -12), (90, 6, -70, -30, 0, 0.6), (0, -2, 0)),
    "StandZero": ("Standing", (0, 0), (0, 0, 0, 0, 0, 0.0), (0, 0, 0)),
    "Crouch": ("Crouching", (0, 35), (90, 6, -70, -30, 0, 0.3), (0, -59, 29)),
}
TOLERANCE_RAD = 0.1
#: ALRobotPosture moves the whole body, balanced, well below the motors' top speeds: joints
#: move at this share of ``maxSpeedFraction`` x their maximum velocity (a NAO gets from
#: Crouch to StandInit at 0.5 in about 2.6 s, from Stand to Sit at 0.8 in about 3.6 s)
POSTURE_SPEED_RATIO = 0.25
#: the posture graph: the postures the robot moves between directly (both ways)
_NAO_GRAPH = (("StandInit", "Stand"), ("StandInit", "StandZero"), ("StandInit", "Crouch"),
              ("Crouch", "Sit"), ("Sit", "SitRelax"), ("Sit", "LyingBack"),
              ("LyingBack", "LyingBelly"), ("LyingBelly", "Crouch"))
_PEPPER_GRAPH = (("StandInit", "Stand"), ("StandInit", "StandZero"), ("StandInit", "Crouch"))


def _arm_joints(side: str, arm: Tuple[float, ...]) -> Dict[str, float]:
    sign = 1 if side == "L" else -1
    return {side + name: (value if name == "Hand" else
                          math.radians(value * (sign if name in _MIRRORED else 1)))
            for name, value in zip(_ARM, arm)}


def posture_angles(robot: str) -> Dict[str, Tuple[str, Dict[str, float]]]:
    """Predefined postures of ``robot``: name -> (family, joint -> angle in radians)."""
    postures = {}
    table = _NAO_POSTURES if robot == "nao" else _PEPPER_POSTURES
    for name, (family, head, arm, legs) in table.items():
        joints = {"HeadYaw": math.radians(head[0]), "HeadPitch": math.radians(head[1])}
        joints.update(_arm_joints("L", arm))
        joints.update(_arm_joints("R", arm))
        if robot == "nao":
            joints["LHipYawPitch"] = joints["RHipYawPitch"] = 0.0
            for side, sign in (("L", 1), ("R", -1)):
                joints.update({side + n: math.radians(v * (sign if n in _MIRRORED else 1))
                               for n, v in zip(_NAO_LEG, legs)})
        else:
            joints.update({n: math.radians(v)
                           for n, v in zip(("HipRoll", "HipPitch", "KneePitch"), legs)})
        postures[name] = (family, joints)
    return postures


def posture_path(robot: str, start: str, target: str) -> List[str]:
    """The postures ``robot`` passes through from ``start`` to ``target`` (both included),
    fewest moves first, along its posture graph."""
    neighbours: Dict[str, List[str]] = collections.defaultdict(list)
    for a, b in (_NAO_GRAPH if robot == "nao" else _PEPPER_GRAPH):
        neighbours[a].append(b)
        neighbours[b].append(a)
    previous = {start: start}
    queue = collections.deque([start])
    while queue:
        posture = queue.popleft()
        if posture == target:
            break
        for following in neighbours[posture]:
            if following not in previous:
                previous[following] = posture
                queue.append(following)
    path = [target]
    while path[-1] != start:
        path.append(previous[path[-1]])
    return path[::-1]


class ALRobotPosture(SimModule):
    """Go to, apply and recognise predefined postures."""

    NAME = "ALRobotPosture"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._postures = posture_angles(sim.robot)
        self._max_tries = 3
        self._last = ("Unknown", "Unknown")
        self._target = ""

    def _move(self, method: str, postureName: str, maxSpeedFraction: float,
              through_graph: bool) -> bool:
        if postureName not in self._postures:
            raise self._error(method, "posture '%s' is not in the posture list (%s)"
                              % (postureName, ", ".join(sorted(self._postures))))
        check_range(self, method, "maxSpeedFraction", maxSpeedFraction, 0.0, 1.0)
        if maxSpeedFraction == 0.0:
            raise self._error(method, "maxSpeedFraction must be greater than 0")
        joints = self._postures[postureName][1]
        self._target = postureName
        motion = self._sim.service("ALMotion")
        with self._activity() as activity:
            set_stiffness = getattr(motion, "setStiffnesses", None)
            if set_stiffness is not None:
                set_stiffness(list(joints), [1.0] * len(joints))
            for _ in range(max(1, self._max_tries)):
                for waypoint in self._waypoints(postureName, through_graph):
                    angles = self._postures[waypoint][1]
                    motion.angleInterpolationWithSpeed(
                        list(angles), list(angles.values()),
                        maxSpeedFraction * POSTURE_SPEED_RATIO)
                    if activity.interrupted:
                        break
                reached = self._distances()[postureName] < TOLERANCE_RAD
                if activity.interrupted or reached:
                    break
            reached = reached and not activity.interrupted
        self._notify_change()
        return reached

    def _waypoints(self, target: str, through_graph: bool) -> List[str]:
        """The postures to move to in turn to reach ``target``: along the posture graph from
        the closest predefined posture (moving to it first unless the joints are there)."""
        if not through_graph:
            return [target]
        distances = self._distances()
        start = min(distances, key=distances.get)
        path = posture_path(self._sim.robot, start, target)
        return path if distances[start] >= TOLERANCE_RAD else path[1:] or [target]

    def _notify_change(self) -> None:
        current = (self.getPosture(), self.getPostureFamily())
        if current != self._last:
            self._last = current
            self._raise_event("PostureChanged", current[0])
            self._raise_event("PostureFamilyChanged", current[1])

    def goToPosture(self, postureName: str, maxSpeedFraction: float) -> bool:
        """Move to a predefined posture; True if reached."""
        return self._move("goToPosture", postureName, maxSpeedFraction, through_graph=True)

    def applyPosture(self, postureName: str, maxSpeedFraction: float) -> bool:
        """Set the joints straight to a predefined posture (no intermediate posture);
        True if reached."""
        return self._move("applyPosture", postureName, maxSpeedFraction, through_graph=False)

    def stopMove(self) -> None:
        """Stop the posture move in progress."""
        if self._interrupt_all():
            joints = sorted({j for _, angles in self._postures.values() for j in angles})
            self._sim.service("ALMotion").killTasksUsingResources(joints)

    def _distances(self) -> Dict[str, float]:
        """Posture name -> largest joint error (radians) from the current angles."""
        names = sorted({j for _, angles in self._postures.values() for j in angles})
        current = dict(zip(names, self._sim.service("ALMotion").getAngles(names, True)))
        return {name: max(abs(current[j] - a) for j, a in joints.items() if not j.endswith("Hand"))
                for name, (_, joints) in self._postures.items()}

    def getPosture(self) -> str:
        """The predefined posture the joints are in, or "Unknown"."""
        distances = self._distances()
        if distances.get(self._target, math.inf) < TOLERANCE_RAD:
            return self._target
        best = min(distances, key=distances.get)
        return best if distances[best] < TOLERANCE_RAD else "Unknown"

    def getPostureFamily(self) -> str:
        """Family of the current posture (Standing, Sitting...), or "Unknown"."""
        posture = self.getPosture()
        return self._postures[posture][0] if posture in self._postures else "Unknown"

    def getPostureList(self) -> List[str]:
        """Names of the predefined postures."""
        return sorted(self._postures)

    def getPostureFamilyList(self) -> List[str]:
        """Names of the posture families."""
        return sorted({family for family, _ in self._postures.values()})

    def setMaxTryNumber(self, pMaxTryNumber: int) -> None:
        """How many times goToPosture tries before giving up."""
        check_range(self, "setMaxTryNumber", "pMaxTryNumber", pMaxTryNumber, 1, 100)
        self._max_tries = pMaxTryNumber
