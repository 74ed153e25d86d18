"""Simulated ALMotion: joints that follow their commands in time, stiffness, and walking.

State evolves with time without a control loop: each joint holds either an angle or the
curve it follows since a start time, and ``getAngles`` evaluates the curves at call time.
Every command is a Bezier curve from the joint's current angle (see
:mod:`naoqi_qicore.robot.sim.bezier`):

* ``angleInterpolationBezier``: the given keys;
* ``angleInterpolation``: keys through the given angles with automatic smooth tangents;
* ``angleInterpolationWithSpeed``, ``setAngles``, ``changeAngles``: one key with flat
  handles, reached when the slowest joint, at ``fraction`` of its maximum velocity, gets
  there (all joints arrive together).

Blocking commands hold their joints (resources) until they end; a new command on some of
those joints, ``stop(id)``, ``killTask``, ``killTasksUsingResources`` or ``killAll`` ends the
older one and its joints stay where they are.  Joints without stiffness do not move.
Angles are clamped to the joint limits; on NAO, RHipYawPitch follows LHipYawPitch.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from naoqi_qicore.robot.model.kinematics import robot_model
from naoqi_qicore.robot.model.spaces import part_pose, position_6d
from naoqi_qicore.robot.sim.bezier import BezierCurve, auto_keys
from naoqi_qicore.robot.sim.joints import JointTable
from naoqi_qicore.robot.sim.motion_settings import MotionSettings
from naoqi_qicore.robot.sim.services.module import Activity, check_choice
from naoqi_qicore.robot.sim.services.posture import POSTURE_SPEED_RATIO, posture_angles

#: a cubic Bezier with flat handles peaks at 1.5 times its mean velocity
FLAT_CURVE_PEAK_FACTOR = 1.5
#: (linear m/s, angular rad/s) top walking speeds
WALK_SPEED = {"nao": (0.1, 0.5), "pepper": (0.35, 1.0)}
#: wakeUp and rest move the whole body as ALRobotPosture does, at this speed fraction (a
#: NAO gets up from Crouch in about 2.6 s)
WAKE_UP_SPEED_FRACTION = 0.5
#: period of ALMotion's control loop (ms)
MOTION_CYCLE_MS = 10
#: body and head version getRobotConfig gives for each robot
ROBOT_VERSION = {"nao": "6.0", "pepper": "1.8"}
MODEL_TYPE = {"nao": "nao", "pepper": "juliette"}
_FLAT = [3, 0.0, 0.0]


@dataclass(eq=False)
class MotionTask:
    """A running joint command; ``activity`` is None for non-blocking ones (setAngles)."""

    number: int
    method: str
    joints: Set[str]
    end: float
    activity: Optional[Activity] = None


@dataclass
class _Following:
    """A joint following ``curve`` since ``start``, for ``task``."""

    curve: BezierCurve
    start: float
    task: MotionTask


@dataclass
class _BaseMotion:
    """The robot base moving from ``origin`` (x, y, theta in the world) since ``start``.

    Either towards ``target`` (relative pose, straight in the origin frame) in ``duration``
    seconds, or at ``velocity`` (robot frame) until stopped.
    """

    origin: Tuple[float, float, float]
    start: float
    target: Optional[Tuple[float, float, float]] = None
    duration: float = 0.0
    velocity: Tuple[float, float, float] = (0.0, 0.0, 0.0)
    activity: Optional[Activity] = field(default=None, compare=False)


def _compose(pose: Sequence[float], delta: Sequence[float]) -> Tuple[float, float, float]:
    x, y, theta = pose
    dx, dy, dtheta = delta
    heading = math.atan2(math.sin(theta + dtheta), math.cos(theta + dtheta))
    return (x + dx * math.cos(theta) - dy * math.sin(theta),
            y + dx * math.sin(theta) + dy * math.cos(theta), heading)


def _twist_displacement(velocity: Sequence[float], dt: float) -> Tuple[float, float, float]:
    """Displacement (robot frame at the start) after ``dt`` s at a constant ``velocity``."""
    vx, vy, w = velocity
    if abs(w) < 1e-9:
        return vx * dt, vy * dt, 0.0
    turn = w * dt
    return ((vx * math.sin(turn) + vy * (math.cos(turn) - 1.0)) / w,
            (vx * (1.0 - math.cos(turn)) + vy * math.sin(turn)) / w, turn)


def _as_list(value: Any) -> List[Any]:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class ALMotion(MotionSettings):
    """Joint and walk commands of a simulated NAO or Pepper (settings: :class:`MotionSettings`)."""

    NAME = "ALMotion"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._joints = JointTable(sim.robot)
        postures = posture_angles(sim.robot)
        stand = postures["StandInit"][1]
        self._rest_pose = postures["Crouch"][1]
        self._stand_pose = stand
        self._angles: Dict[str, float] = {j: self._joints.clamp(j, stand.get(j, 0.0))
                                          for j in self._joints.body}
        self._following: Dict[str, _Following] = {}
        self._tasks: Set[MotionTask] = set()
        self._task_numbers = 0
        self._stiffness: Dict[str, float] = {j: 1.0 for j in self._joints.body}
        self._awake = True
        self._pose: Tuple[float, float, float] = (0.0, 0.0, 0.0)
        self._base: Optional[_BaseMotion] = None

    # -- joint state ------------------------------------------------------------------------
    def _expand(self, method: str, names: Any) -> List[str]:
        try:
            return self._joints.expand(names)
        except ValueError as error:
            raise self._error(method, str(error)) from None

    def _angle(self, joint: str, now: float) -> float:
        joint = self._joints.coupled.get(joint, joint)
        following = self._following.get(joint)
        if following is None:
            return self._angles[joint]
        elapsed = now - following.start
        if elapsed >= following.curve.duration:
            self._angles[joint] = self._joints.clamp(joint, following.curve.final_angle)
            del self._following[joint]
            return self._angles[joint]
        return self._joints.clamp(joint, following.curve.angle_at(elapsed))

    def _freeze(self, joints: Set[str], now: float, task: Optional[MotionTask] = None) -> None:
        """Stop ``joints`` where they are (only those following ``task`` when given)."""
        for joint in joints:
            following = self._following.get(joint)
            if following is not None and (task is None or following.task is task):
                self._angles[joint] = self._angle(joint, now)
                self._following.pop(joint, None)

    def _end_tasks(self, tasks: List[MotionTask], now: float,
                   spare: Optional[Activity] = None) -> None:
        """Stop ``tasks`` where they are and interrupt their blocking calls (except the
        activity ``spare``: the caller's own)."""
        for task in tasks:
            self._tasks.discard(task)
            self._freeze(task.joints, now, task)
            if task.activity is not None and task.activity is not spare:
                task.activity.interrupt()

    def _start(self, method: str, curves: Dict[str, Tuple[List[float], List[list]]],
               relative: bool = False, activity: Optional[Activity] = None) -> MotionTask:
        """Start joints on their curves: joint -> (times, keys); ``relative`` keys are
        offsets from the current angle; ``activity`` is the blocking call's (None for a
        non-blocking command).  Returns the task (already registered)."""
        with self._lock:
            now = self._sim.clock()
            prepared: Dict[str, BezierCurve] = {}
            for joint, (times, keys) in curves.items():
                joint = self._joints.coupled.get(joint, joint)
                if self._stiffness[joint] <= 0.0:
                    continue
                start_angle = self._angle(joint, now)
                if relative:
                    keys = [[start_angle + k[0], k[1], k[2]] for k in keys]
                keys = [[self._joints.clamp(joint, k[0]), k[1], k[2]] for k in keys]
                try:
                    prepared[joint] = BezierCurve(times, keys, start_angle)
                except ValueError as error:
                    raise self._error(method, "joint '%s': %s" % (joint, error)) from None
            joints = {self._joints.coupled.get(j, j) for j in curves}
            self._end_tasks([t for t in self._tasks if t.joints & joints], now, activity)
            self._task_numbers += 1
            task = MotionTask(self._task_numbers, method, set(prepared), now, activity)
            for joint, curve in prepared.items():
                self._following[joint] = _Following(curve, now, task)
                task.end = max(task.end, now + curve.duration)
            self._tasks.add(task)
        return task

    def _run(self, method: str, curves: Dict[str, Tuple[List[float], List[list]]],
             relative: bool = False) -> None:
        """A blocking command: start it and wait until it ends or is killed."""
        with self._activity() as activity:
            task = self._start(method, curves, relative, activity=activity)
            activity.sleep(task.end - self._sim.clock())
            with self._lock:
                if task in self._tasks:
                    self._end_tasks([task], self._sim.clock(), spare=activity)

    def _speed_curves(self, method: str, joints: List[str], targets: List[float],
                      fraction: float) -> Dict[str, Tuple[List[float], List[list]]]:
        if not 0.0 < fraction <= 1.0:
            raise self._error(method, "the speed fraction must be in ]0, 1], got %s" % fraction)
        if len(targets) != len(joints):
            raise self._error(method, "%d joints but %d angles" % (len(joints), len(targets)))
        now = self._sim.clock()
        with self._lock:
            duration = max([FLAT_CURVE_PEAK_FACTOR * abs(
                self._joints.clamp(j, a) - self._angle(j, now))
                / (fraction * self._joints.limits[j][2]) for j, a in zip(joints, targets)] + [0.0])
        duration = max(duration, 1e-3)
        return {j: ([duration], [[a, _FLAT, _FLAT]]) for j, a in zip(joints, targets)}

    # -- joint commands -----------------------------------------------------------------------
    def angleInterpolation(self, names: Any, angleLists: Any, timeLists: Any,
                           isAbsolute: bool) -> None:
        """Move joints through angles at times (s), smoothly; blocks until done."""
        joints = self._expand("angleInterpolation", names)
        angles = self._per_joint("angleInterpolation", "angleLists", joints, angleLists)
        times = self._times_per_joint("angleInterpolation", joints, timeLists, angles)
        curves = {}
        for joint, joint_angles, joint_times in zip(joints, angles, times):
            if len(joint_angles) != len(joint_times):
                raise self._error("angleInterpolation", "joint '%s': %d angles but %d times"
                                  % (joint, len(joint_angles), len(joint_times)))
            curves[joint] = (joint_times, auto_keys(joint_times, joint_angles))
        self._run("angleInterpolation", curves, relative=not isAbsolute)

    def _per_joint(self, method: str, argument: str, joints: List[str],
                   value: Any) -> List[List[float]]:
        """NAOqi's flexible shapes (a number, a list, a list of lists) as one list per joint."""
        if _is_number(value):
            return [[float(value)] for _ in joints]
        items = _as_list(value)
        if len(joints) == 1 and all(_is_number(v) for v in items):
            return [[float(v) for v in items]]
        if len(items) != len(joints):
            raise self._error(method, "%s has %d entries for %d joints"
                              % (argument, len(items), len(joints)))
        result = []
        for joint, item in zip(joints, items):
            entries = _as_list(item)
            if not entries or not all(_is_number(v) for v in entries):
                raise self._error(method, "joint '%s': %s entry must be numbers, got %r"
                                  % (joint, argument, item))
            result.append([float(v) for v in entries])
        return result

    def _times_per_joint(self, method: str, joints: List[str], value: Any,
                         values: List[List[float]]) -> List[List[float]]:
        """Times per joint: like :meth:`_per_joint`, and one flat list of times shared by
        every joint when each joint has that many values."""
        items = _as_list(value)
        if (len(joints) > 1 and items and all(_is_number(v) for v in items)
                and all(len(v) == len(items) for v in values)):
            return [[float(t) for t in items] for _ in joints]
        return self._per_joint(method, "timeLists", joints, value)

    def angleInterpolationWithSpeed(self, names: Any, targetAngles: Any,
                                    maxSpeedFraction: float) -> None:
        """Move joints to angles at a fraction of their maximum speed; blocks until done."""
        joints = self._expand("angleInterpolationWithSpeed", names)
        targets = [a[0] for a in self._per_joint("angleInterpolationWithSpeed", "targetAngles",
                                                 joints, targetAngles)]
        self._run("angleInterpolationWithSpeed", self._speed_curves(
            "angleInterpolationWithSpeed", joints, targets, maxSpeedFraction))

    def angleInterpolationBezier(self, jointNames: List[str], times: List[Any],
                                 controlPoints: List[Any]) -> None:
        """Follow Bezier keys ``[angle, [type, dTime, dAngle], [type, dTime, dAngle]]``."""
        joints = self._expand("angleInterpolationBezier", jointNames)
        if not len(joints) == len(times) == len(controlPoints):
            raise self._error("angleInterpolationBezier", "%d joints, %d time lists and %d key "
                              "lists" % (len(joints), len(times), len(controlPoints)))
        curves = {}
        for joint, joint_times, keys in zip(joints, times, controlPoints):
            if not isinstance(joint_times, (list, tuple)) or not isinstance(keys, (list, tuple)):
                raise self._error("angleInterpolationBezier", "joint '%s': times and keys must "
                                  "be lists" % joint)
            curves[joint] = (list(joint_times), list(keys))
        self._run("angleInterpolationBezier", curves)

    def setAngles(self, names: Any, angles: Any, fractionMaxSpeed: float) -> None:
        """Start joints towards angles at a fraction of their maximum speed (non-blocking)."""
        joints = self._expand("setAngles", names)
        targets = [a[0] for a in self._per_joint("setAngles", "angles", joints, angles)]
        self._start("setAngles", self._speed_curves("setAngles", joints, targets,
                                                     fractionMaxSpeed))

    def changeAngles(self, names: Any, changes: Any, fractionMaxSpeed: float) -> None:
        """Start joints by angle changes at a fraction of their maximum speed (non-blocking)."""
        joints = self._expand("changeAngles", names)
        deltas = [a[0] for a in self._per_joint("changeAngles", "changes", joints, changes)]
        now = self._sim.clock()
        with self._lock:
            targets = [self._angle(j, now) + d for j, d in zip(joints, deltas)]
        self._start("changeAngles", self._speed_curves("changeAngles", joints, targets,
                                                       fractionMaxSpeed))

    def getAngles(self, names: Any, useSensors: bool) -> List[float]:
        """Angles of joints now (rad; hands: opening ratio)."""
        joints = self._expand("getAngles", names)
        now = self._sim.clock()
        with self._lock:
            return [self._angle(j, now) for j in joints]

    def getPosition(self, name: str, space: int, useSensorValues: bool) -> List[float]:
        """``[x, y, z, wx, wy, wz]`` of a chain's effector (``LArm``: the hand, ``LLeg``:
        the sole, ``Head``, ``Torso``) or a joint's frame, in FRAME_TORSO (0), FRAME_WORLD
        (1: the robot frame moved by the odometry) or FRAME_ROBOT (2: on the ground under
        the robot), from the angles now (see :mod:`naoqi_qicore.robot.model.spaces`)."""
        now = self._sim.clock()
        with self._lock:
            angles = {joint: self._angle(joint, now) for joint in self._joints.body}
            odometry = self._pose_at(now)
        try:
            pose = part_pose(robot_model(self._sim.robot), angles, name, int(space), odometry)
        except KeyError:
            raise self._error("getPosition", "'%s' is neither a chain nor a joint of %s"
                              % (name, self._sim.robot)) from None
        except ValueError as error:
            raise self._error("getPosition", str(error)) from None
        return position_6d(pose)

    # -- tasks and resources ------------------------------------------------------------------
    def _blocking_tasks(self) -> List[MotionTask]:
        return [t for t in self._tasks if t.activity is not None]

    def killTask(self, motionTaskID: int) -> bool:
        """Kill a motion started with post; False if no such motion runs."""
        with self._lock:
            activity = self._posted.get(motionTaskID)
            tasks = [t for t in self._tasks if activity is not None and t.activity is activity]
            self._end_tasks(tasks, self._sim.clock())
        return bool(tasks)

    def killTasksUsingResources(self, resourceNames: List[str]) -> None:
        """Kill the motions using any of these joints (or chains)."""
        joints = set(self._expand("killTasksUsingResources", resourceNames))
        joints |= {self._joints.coupled.get(j, j) for j in joints}
        with self._lock:
            now = self._sim.clock()
            self._end_tasks([t for t in self._tasks if t.joints & joints], now)
            self._freeze(joints, now)

    def killAll(self) -> None:
        """Kill every motion, walking included."""
        with self._lock:
            now = self._sim.clock()
            self._end_tasks(list(self._tasks), now)
            self._freeze(set(self._following), now)
        self.stopMove()

    def areResourcesAvailable(self, resourceNames: List[str]) -> bool:
        """True if no blocking motion uses these joints."""
        joints = set(self._expand("areResourcesAvailable", resourceNames))
        with self._lock:
            self._settle()
            return not any(t.joints & joints for t in self._blocking_tasks())

    def _settle(self) -> None:
        """Forget the tasks whose curves have all ended (non-blocking ones end by themselves)."""
        now = self._sim.clock()
        for task in [t for t in self._tasks if t.activity is None and t.end <= now]:
            self._tasks.discard(task)
            self._freeze(task.joints, now, task)

    def getTaskList(self) -> List[List[Any]]:
        """``[[method name, motion task number], ...]`` of the motions running."""
        with self._lock:
            self._settle()
            return [[t.method, t.number] for t in sorted(self._tasks, key=lambda t: t.number)]

    # -- joints, limits, stiffness ----------------------------------------------------------
    def getJointNames(self, name: str) -> List[str]:
        """Joints of a joint, chain ("Head", "LArm", ...) or "Body"/"JointActuators"."""
        return self._expand("getJointNames", name)

    def getBodyNames(self, name: str) -> List[str]:
        """Same as getJointNames."""
        return self._expand("getBodyNames", name)

    def getLimits(self, name: str) -> List[List[float]]:
        """``[[min, max, max velocity, max torque], ...]`` of each joint of ``name``."""
        return [list(self._joints.limits[j]) for j in self._expand("getLimits", name)]

    def setStiffnesses(self, names: Any, stiffnesses: Any) -> None:
        """Set the stiffness (0..1) of joints: one value for all, or one per joint."""
        joints = self._expand("setStiffnesses", names)
        values = _as_list(stiffnesses)
        if len(values) == 1:
            values = values * len(joints)
        if len(values) != len(joints) or not all(_is_number(v) for v in values):
            raise self._error("setStiffnesses", "expected one stiffness or %d, got %r"
                              % (len(joints), stiffnesses))
        with self._lock:
            now = self._sim.clock()
            for joint, value in zip(joints, values):
                if not 0.0 <= value <= 1.0:
                    raise self._error("setStiffnesses", "stiffness of '%s' must be in [0, 1], "
                                      "got %s" % (joint, value))
                if value <= 0.0:
                    self._freeze({joint}, now)
                self._stiffness[joint] = float(value)

    def getStiffnesses(self, jointName: Any) -> List[float]:
        """Stiffness of each joint of ``jointName``."""
        with self._lock:
            return [self._stiffness[j] for j in self._expand("getStiffnesses", jointName)]

    def stiffnessInterpolation(self, names: Any, stiffnessLists: Any, timeLists: Any) -> None:
        """Reach stiffnesses at times; blocks until the last time (the last values are kept)."""
        joints = self._expand("stiffnessInterpolation", names)
        values = self._per_joint("stiffnessInterpolation", "stiffnessLists", joints,
                                 stiffnessLists)
        times = self._times_per_joint("stiffnessInterpolation", joints, timeLists, values)
        with self._activity() as activity:
            if activity.sleep(max(t[-1] for t in times)):
                self.setStiffnesses(joints, [v[-1] for v in values])

    def _go_to(self, method: str, pose: Dict[str, float]) -> None:
        joints = [j for j in self._joints.body if j in pose]
        self._run(method, self._speed_curves(method, joints, [pose[j] for j in joints],
                                             WAKE_UP_SPEED_FRACTION * POSTURE_SPEED_RATIO))

    def _move_hand(self, method: str, handName: str, opened: bool) -> None:
        hand = check_choice(self, method, handName, ["LHand", "RHand"])
        low, high = self._joints.limits[hand][:2]
        self._go_to(method, {hand: high if opened else low})

    def openHand(self, handName: str) -> None:
        """Open "LHand" or "RHand" fully; blocks until open."""
        self._move_hand("openHand", handName, opened=True)

    def closeHand(self, handName: str) -> None:
        """Close "LHand" or "RHand" fully; blocks until closed."""
        self._move_hand("closeHand", handName, opened=False)

    def wakeUp(self) -> None:
        """Stiffen every joint and stand up."""
        self.setStiffnesses("Body", 1.0)
        self._go_to("wakeUp", self._stand_pose)
        with self._lock:
            self._awake = True
        self._raise_event("robotIsWakeUp", True)

    def rest(self, chainName: str = "") -> None:
        """Go to the rest posture and release the stiffness (of one chain only, e.g. "LArm",
        when ``chainName`` is given: the robot stays awake)."""
        if chainName:
            joints = set(self._expand("rest", chainName))
            self._go_to("rest", {j: a for j, a in self._rest_pose.items() if j in joints})
            self.setStiffnesses(sorted(joints), 0.0)
            return
        self._go_to("rest", self._rest_pose)
        self.setStiffnesses("Body", 0.0)
        with self._lock:
            self._awake = False
        self._raise_event("robotIsWakeUp", False)

    def robotIsWakeUp(self) -> bool:
        """True after wakeUp, False after rest."""
        with self._lock:
            return self._awake

    # -- walking ----------------------------------------------------------------------------
    def _pose_at(self, now: float) -> Tuple[float, float, float]:
        base = self._base
        if base is None:
            return self._pose
        elapsed = now - base.start
        if base.target is not None:
            share = 1.0 if base.duration <= 0.0 else min(1.0, elapsed / base.duration)
            return _compose(base.origin, [share * v for v in base.target])
        return _compose(base.origin, _twist_displacement(base.velocity, elapsed))

    def _set_base(self, base: Optional[_BaseMotion], interrupt: bool = True) -> None:
        """Replace the base motion (the robot stays where it is now); the blocking call
        of the previous one is interrupted unless ``interrupt`` is False."""
        with self._lock:
            now = self._sim.clock()
            self._pose = self._pose_at(now)
            previous, self._base = self._base, base
            if base is not None:
                base.origin, base.start = self._pose, now
        if interrupt and previous is not None and previous.activity is not None:
            previous.activity.interrupt()

    def moveTo(self, x: float, y: float, theta: float, *moveConfiguration: Any) -> bool:
        """Walk to a pose relative to the robot; blocks until there (False if stopped)."""
        linear, angular = WALK_SPEED[self._sim.robot]
        duration = max(math.hypot(x, y) / linear, abs(theta) / angular)
        with self._activity() as activity:
            base = _BaseMotion((0.0, 0.0, 0.0), 0.0, (x, y, theta), duration,
                               activity=activity)
            self._set_base(base)
            arrived = activity.sleep(duration)
            with self._lock:
                mine = self._base is base
            if mine:
                self._set_base(None, interrupt=False)
        return arrived

    def walkTo(self, x: float, y: float, theta: float, *feetGaitConfig: Any) -> None:
        """Deprecated (NAOqi 1.14) name of moveTo."""
        self.moveTo(x, y, theta)

    def move(self, x: float, y: float, theta: float, *moveConfiguration: Any) -> None:
        """Walk at a velocity (m/s, rad/s, robot frame) until told otherwise."""
        linear, angular = WALK_SPEED[self._sim.robot]
        if math.hypot(x, y) > linear + 1e-9 or abs(theta) > angular + 1e-9:
            raise self._error("move", "velocity (%s, %s, %s) exceeds %s m/s, %s rad/s"
                              % (x, y, theta, linear, angular))
        self._set_base(_BaseMotion((0.0, 0.0, 0.0), 0.0, velocity=(x, y, theta))
                       if (x, y, theta) != (0, 0, 0) else None)

    def moveToward(self, x: float, y: float, theta: float, *moveConfiguration: Any) -> None:
        """Walk at fractions (-1..1) of the top speed until told otherwise."""
        if not all(-1.0 <= v <= 1.0 for v in (x, y, theta)):
            raise self._error("moveToward", "fractions must be in [-1, 1], got (%s, %s, %s)"
                              % (x, y, theta))
        linear, angular = WALK_SPEED[self._sim.robot]
        norm = max(1.0, math.hypot(x, y))
        self.move(x * linear / norm, y * linear / norm, theta * angular)

    def stopMove(self) -> None:
        """Stop walking where the robot is."""
        self._set_base(None)

    def moveIsActive(self) -> bool:
        """True while walking."""
        with self._lock:
            base = self._base
            if base is not None and base.target is not None and \
                    self._sim.clock() - base.start >= base.duration:
                return False
            return base is not None

    def waitUntilMoveIsFinished(self) -> None:
        """Block until a moveTo ends."""
        with self._activity() as activity:
            while self.moveIsActive() and activity.sleep(0.01):
                pass

    def getRobotPosition(self, useSensors: bool) -> List[float]:
        """``[x, y, theta]`` of the robot in the world (odometry since the start)."""
        with self._lock:
            return list(self._pose_at(self._sim.clock()))

    def getRobotVelocity(self) -> List[float]:
        """``[vx, vy, vtheta]`` in the robot frame."""
        with self._lock:
            base = self._base
            if base is None:
                return [0.0, 0.0, 0.0]
            if base.target is not None:
                if base.duration <= 0.0 or self._sim.clock() - base.start >= base.duration:
                    return [0.0, 0.0, 0.0]
                return [v / base.duration for v in base.target]
            return list(base.velocity)

    # -- deprecated walk names, idle walk requests ---------------------------------------------
    def walkIsActive(self) -> bool:
        """Deprecated name of moveIsActive."""
        return self.moveIsActive()

    def stopWalk(self) -> None:
        """Deprecated name of stopMove."""
        self.stopMove()

    def killWalk(self) -> None:
        """Deprecated name of killMove."""
        self.killMove()

    def killMove(self) -> None:
        """End the walk at once, where the robot is."""
        self.stopMove()

    def waitUntilWalkIsFinished(self) -> None:
        """Deprecated name of waitUntilMoveIsFinished."""
        self.waitUntilMoveIsFinished()

    def moveInit(self) -> None:
        """Get ready to walk (stand, stiff): wakes the robot up when it rests."""
        if not self.robotIsWakeUp():
            self.wakeUp()

    def walkInit(self) -> None:
        """Deprecated name of moveInit."""
        self.moveInit()

    def setWalkTargetVelocity(self, x: float, y: float, theta: float, frequency: float,
                              *feetGaitConfig: Any) -> None:
        """Deprecated: walk at fractions (-1..1) of the top speed; ``frequency`` 0 stops."""
        if frequency == 0.0:
            self.stopMove()
            return
        self.moveToward(x, y, theta)

    def getNextRobotPosition(self) -> List[float]:
        """``[x, y, theta]`` where the robot will be once the walk now asked for ends (its
        position now when it is not walking to a target)."""
        with self._lock:
            base = self._base
            if base is None or base.target is None:
                return list(self._pose_at(self._sim.clock()))
            return list(_compose(base.origin, base.target))

    def getSensorNames(self) -> List[str]:
        """Names of the joint position sensors (one per joint)."""
        return list(self._joints.body)

    def getMotionCycleTime(self) -> int:
        """Period of the motion control loop, in ms."""
        return MOTION_CYCLE_MS

    def getRobotConfig(self) -> List[List[str]]:
        """``[[names...], [values...]]`` describing the robot: model, versions, joints."""
        version = ROBOT_VERSION[self._sim.robot]
        return [["Model Type", "Head Version", "Body Version", "Number of Joints"],
                [MODEL_TYPE[self._sim.robot], version, version, str(len(self._joints.body))]]

    def getSummary(self) -> str:
        """A text about the joints (angle, stiffness) and the motions running."""
        now = self._sim.clock()
        with self._lock:
            lines = ["%-16s %8.3f rad  stiffness %.2f" % (j, self._angle(j, now),
                                                          self._stiffness[j])
                     for j in self._joints.body]
            tasks = ["%s (task %d)" % (t.method, t.number) for t in self._tasks]
        return "\n".join(["Joints:"] + lines + ["Tasks: %s" % (", ".join(tasks) or "none")])

    def close(self) -> None:
        """Stop every motion."""
        self.killAll()
        super().close()
