"""Simulated ALAutonomousLife: states, the focused activity, its stack, history and statistics.

Activities
    ``switchFocus`` accepts an activity registered with ``SimulatedRobot.register_activity``
    (or ``NaoqiSimActivities.registerActivity`` over libqi), a behavior installed in the
    simulated ALBehaviorManager, or any name shaped like an installed behavior,
    ``"<package>/<behavior>"``, which is then registered as an interactive activity that runs
    until stopped.  Other names (no "/") fail as a non-installed behavior does on a robot.
    A registered activity with a duration stops by itself after it ("self-stop").

Transitions
    Every change of focus raises, in this order, ``AutonomousLife/CompletedActivity`` (the
    previous activity, if any), ``AutonomousLife/NextActivity`` (the new one, if any),
    ``AutonomousLife/FocusedActivity`` (the new one, "" when none), then
    ``AutonomousLife/State`` when an interactive activity is involved, then emits the
    ``activityTransition`` signal with ``{"TransitionTime" (ns since the epoch),
    "PreviousActivityName", "PreviousActivityStopReason", "FocusedActivityName",
    "FocusedActivityStartReason"}``.  When the focused activity ends for any reason but
    stopAll and the disabled/safeguard states, the top of the stack gets the focus back
    ("unstacked").

    The change itself (focus, stack, state, history) is done when the call returns; its
    events and signal are sent right after, by one thread, in the order of the changes
    (as on a robot, a client may see the answer before or after them).  The focus and
    state methods (switchFocus, stopFocus, stopAll, focusedActivity, setState, getState)
    start only once the signals of earlier changes are sent and their events handed to
    ALMemory: a client asking after a change gets its signal before the answer.
"""
from __future__ import annotations

import queue
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Deque, Dict, List, Optional, Tuple

import qi

from naoqi_qicore.robot.sim.services.module import SimModule

STATES = ("solitary", "interactive", "safeguard", "disabled")
NATURES = ("solitary", "interactive")
STOP_CURRENT = 0
STOP_AND_STACK_CURRENT = 1
API_CALLER = "unknown-api-caller"
#: focus and state changes kept for getFocusHistory and getStateHistory
HISTORY_LENGTH = 1000
START_REASONS = ("default-activity", "condition", "applauncher-voice", "applauncher-tablet",
                 "unstacked", API_CALLER)
STOP_REASONS = ("self-stop", "user-stop", "users-lost", "disabled-state", "safeguard-state",
                "permission-context", "switchfocus-api-interrupt", API_CALLER)
AUTONOMOUS_START_REASONS = ("default-activity", "condition", "applauncher-voice",
                            "applauncher-tablet")
SAFEGUARDS = ("RobotPushed", "RobotFell", "RobotMoved", "CriticalDiagnosis",
              "CriticalTemperature")
ABILITIES = ("AutonomousBlinking", "BackgroundMovement", "BasicAwareness", "ListeningMovement",
             "SpeakingMovement")
LAUNCHPAD_PLUGINS: Dict[str, Tuple[str, ...]] = {
    "basic": ("battery-level", "time-of-day", "robot-posture", "robot-moved"),
    "people": ("engagement-zones", "people-perception", "face-characteristics"),
    "dialog": ("dialog-launcher",),
}


@dataclass
class ActivityInfo:
    """An activity the robot has: nature, run time (0 = until stopped), permissions."""

    name: str
    nature: str = "interactive"
    duration_s: float = 0.0
    can_run_on_pod: bool = True
    can_run_in_sleep: bool = False


@dataclass
class _Focus:
    activity: ActivityInfo
    reason: str
    started: float  # wall clock
    parameters: Dict[str, Any] = field(default_factory=dict)
    timer: int = 0  # task id of the self-stop timer


@dataclass
class _Statistics:
    prevStartTime: float = 0.0
    prevCompletionTime: float = 0.0
    startCount: int = 0
    totalDuration: float = 0.0


class ALAutonomousLife(SimModule):
    """Autonomous Life of a simulated robot (no launchpad runs activities by itself)."""

    NAME = "ALAutonomousLife"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        # a property: clients see the signal activityTransition "({sm})" and connect to it
        # as on the robot; emitted through a property, since qi 3.1.5's Signal keeps a
        # reference to the arguments of every emission (a dict per focus change)
        self.activityTransition = qi.Property("{sm}")
        self._installed: Dict[str, ActivityInfo] = {}
        self._state = "solitary"
        self._focus: Optional[_Focus] = None
        self._stack: List[str] = []
        self._focus_history: Deque[List[Any]] = deque(maxlen=HISTORY_LENGTH)
        self._state_history: Deque[List[Any]] = deque([[self._state, time.time()]],
                                                      maxlen=HISTORY_LENGTH)
        self._statistics: Dict[str, _Statistics] = {}
        self._autonomous_statistics: Dict[str, _Statistics] = {}
        self._born = sim.clock()
        self._safeguards = {name: True for name in SAFEGUARDS}
        self._plugins = {p for plugins in LAUNCHPAD_PLUGINS.values() for p in plugins}
        self._monitoring = True
        self._offset_from_floor = 0.0
        self._transition_lock = threading.RLock()  # one transition at a time
        self._last_transition_ns = 0
        memory = self._memory()
        memory.insertData("AutonomousLife/State", self._state)
        memory.insertData("AutonomousLife/FocusedActivity", "")
        # what the changes announce (events, signal), sent in order after the calls return
        self._announcements: "queue.Queue[Optional[Callable[[], None]]]" = queue.Queue()
        self._closed = False  # nothing more is announced
        self._announcer = threading.Thread(target=self._announce, name="sim-life-events",
                                           daemon=True)
        self._announcer.start()
        self._abilities_follow(self._state)

    def close(self) -> None:
        """Send what is still to announce, then stop the announcing thread."""
        super().close()
        self._closed = True
        self._announcements.put(None)
        if self._announcer is not threading.current_thread():
            self._announcer.join(2.0)

    def _announce(self) -> None:
        while True:
            announcement = self._announcements.get()
            try:
                if announcement is None:
                    return
                announcement()
            except Exception as error:  # a client gone mid-signal: the next ones still go out
                self._sim.log.warning("ALAutonomousLife: announcing a change failed: %s", error)
            finally:
                self._announcements.task_done()

    def _wait_announced(self) -> None:
        """Wait until the changes made so far are announced (not in the announcing thread
        itself: a signal handler run there may call the focus methods)."""
        if threading.current_thread() is not self._announcer:
            self._announcements.join()

    def _raise_events(self, events: List[Tuple[str, Any]],
                      transition: Optional[Dict[str, Any]] = None) -> None:
        """Queue ALMemory ``events`` (key, value), then the ``activityTransition`` signal."""
        def send() -> None:
            memory = self._memory()
            for key, value in events:
                memory.raiseEvent(key, value)
            if transition is not None:
                self.activityTransition.setValue(transition)
        if not self._closed:
            self._announcements.put(send)

    # -- activities known to the robot ------------------------------------------------------
    def _register_activity(self, name: str, nature: str = "interactive", duration_s: float = 0.0,
                          can_run_on_pod: bool = True, can_run_in_sleep: bool = False) -> None:
        """Install an activity (simulator only; duration 0: runs until stopped)."""
        if not name:
            raise ValueError("an activity needs a name")
        if nature not in NATURES:
            raise ValueError("nature must be solitary or interactive, got %r" % nature)
        if duration_s < 0:
            raise ValueError("duration must be >= 0, got %s" % duration_s)
        with self._lock:
            self._installed[name] = ActivityInfo(name, nature, float(duration_s),
                                                  can_run_on_pod, can_run_in_sleep)

    def _unregister_activity(self, name: str) -> None:
        """Forget an activity (stopping it if it has the focus)."""
        with self._transition_lock:
            if self.focusedActivity() == name:
                self._end_focus(API_CALLER, unstack=True)
            with self._lock:
                self._installed.pop(name, None)
                self._stack = [n for n in self._stack if n != name]

    def _registered_activities(self) -> List[str]:
        """Names of the activities known so far."""
        with self._lock:
            return sorted(self._installed)

    def _known_activity(self, method: str, name: str, register: bool = False) -> ActivityInfo:
        """A registered activity, or a behavior installed in ALBehaviorManager; with
        ``register``, also any "<package>/<behavior>" name, registered as interactive."""
        with self._lock:
            known = self._installed.get(name)
        if known is not None:
            return known
        nature = self._installed_behavior_nature(name)
        shaped = "/" in name and all(name.split("/", 1))
        if nature is None and not (register and shaped):
            raise self._error(method, "activity '%s' is not installed%s" % (
                name, "" if shaped else " (expected '<package>/<behavior>')"))
        activity = ActivityInfo(name, nature if nature in NATURES else "interactive")
        if register:
            with self._lock:
                activity = self._installed.setdefault(name, activity)
            self._sim.log.info("ALAutonomousLife: activity '%s' registered on first use", name)
        return activity

    def _installed_behavior_nature(self, name: str) -> Optional[str]:
        try:
            behaviors = self._sim.service("ALBehaviorManager")
        except RuntimeError:
            return None
        installed = getattr(behaviors, "isBehaviorInstalled", None)
        if installed is None or not installed(name):
            return None
        return behaviors.getBehaviorNature(name)

    # -- transitions ------------------------------------------------------------------------
    def _transition(self, activity: Optional[ActivityInfo], start_reason: str, stop_reason: str,
                    stack_current: bool = False, parameters: Optional[Dict[str, Any]] = None,
                    next_state: Optional[str] = None) -> None:
        """Give the focus to ``activity`` (None: nobody), ending the focused one; the state
        follows the activity's nature, or becomes ``next_state`` when given."""
        with self._transition_lock:
            # transition times strictly increase, so clients can order the signals they get
            stamp = max(time.time_ns(), self._last_transition_ns + 1)
            self._last_transition_ns = stamp
            now = stamp / 1e9
            with self._lock:
                previous = self._focus
                if previous is not None:
                    self._count_end(previous, now)
                    if stack_current:
                        self._stack.append(previous.activity.name)
                focus = None
                if activity is not None:
                    focus = _Focus(activity, start_reason, now, dict(parameters or {}))
                    self._count_start(focus, now)
                    self._focus_history.append([activity.name, now])
                self._focus = focus
                old_state = self._state
                if next_state is not None:
                    self._state = next_state
                elif activity is not None and activity.nature == "interactive":
                    self._state = "interactive"
                elif self._state == "interactive":
                    self._state = "solitary"
                state_changed = self._state != old_state or self._state == "interactive"
                if self._state != old_state:
                    self._state_history.append([self._state, now])
                state = self._state
            self._abilities_follow(state)
            if previous is not None and previous.timer:
                self._sim.tasks.stop(previous.timer, join=False)
            events: List[Tuple[str, Any]] = []
            if previous is not None:
                events.append(("AutonomousLife/CompletedActivity", previous.activity.name))
            if activity is not None:
                events.append(("AutonomousLife/NextActivity", activity.name))
            events.append(("AutonomousLife/FocusedActivity",
                           activity.name if activity is not None else ""))
            if state_changed:
                events.append(("AutonomousLife/State", self._state))
            self._raise_events(events, {
                "TransitionTime": stamp,
                "PreviousActivityName": previous.activity.name if previous is not None else "",
                "PreviousActivityStopReason": stop_reason if previous is not None else "",
                "FocusedActivityName": activity.name if activity is not None else "",
                "FocusedActivityStartReason": start_reason if activity is not None else "",
            })
            if focus is not None and focus.activity.duration_s > 0:
                focus.timer = self._sim.tasks.start(self._self_stop, focus)

    def _count_start(self, focus: _Focus, now: float) -> None:
        tables = [self._statistics]
        if focus.reason in AUTONOMOUS_START_REASONS:
            tables.append(self._autonomous_statistics)
        for table in tables:
            stats = table.setdefault(focus.activity.name, _Statistics())
            stats.prevStartTime = now
            stats.startCount += 1

    def _count_end(self, focus: _Focus, now: float) -> None:
        for table in (self._statistics, self._autonomous_statistics):
            stats = table.get(focus.activity.name)
            if stats is not None and stats.prevStartTime == focus.started:
                stats.prevCompletionTime = now
                stats.totalDuration += now - focus.started

    def _self_stop(self, focus: _Focus) -> None:
        if not self._sim.tasks.sleep(focus.activity.duration_s):
            return
        with self._transition_lock:
            if self._focus is focus:
                self._end_focus("self-stop", unstack=True)

    def _end_focus(self, stop_reason: str, unstack: bool,
                   next_state: Optional[str] = None) -> bool:
        """End the focused activity; the top of the stack gets the focus if ``unstack``,
        else the stack is emptied.  False when no activity was focused."""
        with self._transition_lock:
            with self._lock:
                if self._focus is None:
                    if not unstack:
                        self._stack.clear()
                    return False
                following = None
                if unstack and self._stack:
                    following = self._installed.get(self._stack.pop())
                elif not unstack:
                    self._stack.clear()
            self._transition(following, "unstacked", stop_reason, next_state=next_state)
            return True

    def _launch(self, name: str, start_reason: str) -> None:
        """Give the focus to ``name`` as if Autonomous Life decided to (simulator only)."""
        if start_reason not in START_REASONS:
            raise ValueError("start reason must be one of %s" % ", ".join(START_REASONS))
        self._switch("launchActivity", name, STOP_CURRENT, {}, start_reason)

    def _interrupt(self, stop_reason: str) -> None:
        """End the focused activity for ``stop_reason`` (simulator only, e.g. "user-stop")."""
        if stop_reason not in STOP_REASONS:
            raise ValueError("stop reason must be one of %s" % ", ".join(STOP_REASONS))
        self._end_focus(stop_reason, unstack=True)

    def _switch(self, method: str, name: str, flags: int, parameters: Dict[str, Any],
                start_reason: str) -> None:
        if flags not in (STOP_CURRENT, STOP_AND_STACK_CURRENT):
            raise self._error(method, "flags must be STOP_CURRENT (0) or STOP_AND_STACK_CURRENT "
                              "(1), got %s" % flags)
        activity = self._known_activity(method, name, register=True)
        with self._lock:
            if self._state not in ("solitary", "interactive"):
                raise self._error(method, "Autonomous Life is in state '%s': no activity can "
                                  "get the focus" % self._state)
        self._transition(activity, start_reason, "switchfocus-api-interrupt",
                         stack_current=flags == STOP_AND_STACK_CURRENT, parameters=parameters)

    # -- NAOqi API: focus -------------------------------------------------------------------
    def switchFocus(self, activity_name: str, flags: int = STOP_CURRENT,
                    parameters: Optional[Dict[str, Any]] = None) -> None:
        """Give the focus to an activity; flags STOP_CURRENT (0) or STOP_AND_STACK_CURRENT (1)
        (the current one restarts when this one ends)."""
        self._wait_announced()
        self._switch("switchFocus", activity_name, flags, parameters or {}, API_CALLER)

    def stopFocus(self) -> None:
        """Stop the focused activity; the stacked one, if any, gets the focus back."""
        self._wait_announced()
        self._end_focus(API_CALLER, unstack=True)

    def stopAll(self) -> None:
        """Stop the focused activity and empty the stack."""
        self._wait_announced()
        self._end_focus(API_CALLER, unstack=False)

    def focusedActivity(self) -> str:
        """Name of the focused activity ("" if none)."""
        self._wait_announced()
        with self._lock:
            return self._focus.activity.name if self._focus is not None else ""

    def getFocusContext(self, key: str) -> List[Any]:
        """``[seconds, microseconds, value]`` of a parameter given to switchFocus for the
        focused activity."""
        with self._lock:
            focus = self._focus
        if focus is None:
            raise self._error("getFocusContext", "no activity is focused")
        if key not in focus.parameters:
            raise self._error("getFocusContext", "no '%s' in the context of '%s'"
                              % (key, focus.activity.name))
        return [int(focus.started), int((focus.started % 1.0) * 1e6), focus.parameters[key]]

    # -- NAOqi API: state -------------------------------------------------------------------
    def setState(self, state: str) -> None:
        """Go to solitary, disabled or safeguard (the last two stop every activity).

        interactive is entered by focusing an interactive activity; solitary cannot be set
        while an interactive activity runs (stop it first)."""
        self._wait_announced()
        if state not in STATES:
            raise self._error("setState", "unknown state '%s' (solitary, interactive, "
                              "safeguard, disabled)" % state)
        with self._transition_lock:
            with self._lock:
                current = self._state
            if state == current:
                return
            if state == "interactive":
                raise self._error("setState", "interactive is entered by focusing an "
                                  "interactive activity (switchFocus)")
            if current == "interactive" and state == "solitary":
                raise self._error("setState", "cannot go from interactive to solitary while an "
                                  "interactive activity runs (stopFocus first)")
            with self._lock:
                self._monitoring = state not in ("disabled", "safeguard")
            if state in ("disabled", "safeguard") and \
                    self._end_focus("%s-state" % state, unstack=False, next_state=state):
                return
            with self._lock:
                self._state = state
                self._state_history.append([state, time.time()])
            self._abilities_follow(state)
            self._raise_events([("AutonomousLife/State", state)])

    def getState(self) -> str:
        """solitary, interactive, safeguard or disabled."""
        self._wait_announced()
        with self._lock:
            return self._state

    # -- NAOqi API: history and statistics -----------------------------------------------------
    @staticmethod
    def _last(entries: Deque[List[Any]], depth: int) -> List[List[Any]]:
        kept = list(entries)
        return [list(e) for e in (kept[-depth:] if depth > 0 else kept)]

    def getFocusHistory(self, depth: int = 0) -> List[List[Any]]:
        """``[[activity, time (s since the epoch)], ...]`` oldest first; the last ``depth``
        (of the last :data:`HISTORY_LENGTH` focus changes)."""
        with self._lock:
            return self._last(self._focus_history, depth)

    def getStateHistory(self, depth: int = 0) -> List[List[Any]]:
        """``[[state, time (s since the epoch)], ...]`` oldest first; the last ``depth``
        (of the last :data:`HISTORY_LENGTH` state changes)."""
        with self._lock:
            return self._last(self._state_history, depth)

    @staticmethod
    def _statistics_map(table: Dict[str, _Statistics]) -> Dict[str, Dict[str, Any]]:
        return {name: dict(vars(stats)) for name, stats in table.items()}

    def getActivityStatistics(self) -> Dict[str, Dict[str, Any]]:
        """name -> {prevStartTime, prevCompletionTime, startCount, totalDuration}."""
        with self._lock:
            return self._statistics_map(self._statistics)

    def getAutonomousActivityStatistics(self) -> Dict[str, Dict[str, Any]]:
        """The same, for the activities Autonomous Life started by itself."""
        with self._lock:
            return self._statistics_map(self._autonomous_statistics)

    def getLifeTime(self) -> int:
        """Seconds since Autonomous Life started."""
        return int(self._sim.clock() - self._born)

    def getActivityNature(self, activity_name: str) -> str:
        """solitary or interactive."""
        return self._known_activity("getActivityNature", activity_name).nature

    def getActivityContextPermissionViolations(self, activity_name: str) -> List[str]:
        """Why ``activity_name`` could not start autonomously now (e.g. "nature",
        "canRunInSleep")."""
        activity = self._known_activity("getActivityContextPermissionViolations",
                                       activity_name)
        violations = []
        with self._lock:
            if activity.nature == "solitary" and self._state == "interactive":
                violations.append("nature")
        motion = self._sim.service("ALMotion")
        if not activity.can_run_in_sleep and not motion.robotIsWakeUp():
            violations.append("canRunInSleep")
        return violations

    # -- NAOqi API: safeguards, abilities, floor, launchpad --------------------------------------
    def _check_name(self, method: str, kind: str, name: str, names: Any) -> None:
        if name not in names:
            raise self._error(method, "unknown %s '%s' (%s)" % (kind, name, ", ".join(names)))

    def setSafeguardEnabled(self, name: str, enabled: bool) -> None:
        """Enable or disable a safeguard (RobotPushed, RobotFell, ...)."""
        self._check_name("setSafeguardEnabled", "safeguard", name, SAFEGUARDS)
        with self._lock:
            self._safeguards[name] = enabled

    def isSafeguardEnabled(self, name: str) -> bool:
        """Whether a safeguard is enabled."""
        self._check_name("isSafeguardEnabled", "safeguard", name, SAFEGUARDS)
        with self._lock:
            return self._safeguards[name]

    def _ability(self, name: str) -> Optional[Any]:
        """The service of autonomous ability ``name`` (ALBasicAwareness...), None when the
        robot lacks it."""
        try:
            return self._sim.service("AL" + name)
        except RuntimeError:
            return None

    def _abilities_follow(self, state: str) -> None:
        """Autonomous abilities run in the solitary and interactive states only."""
        for name in ABILITIES:
            ability = self._ability(name)
            if ability is not None and hasattr(ability, "_life_allows"):
                ability._life_allows(state in NATURES)

    def setAutonomousAbilityEnabled(self, autonomousAbility: str, enabled: bool) -> None:
        """Enable or disable an autonomous ability (AutonomousBlinking, BasicAwareness, ...)."""
        self._check_name("setAutonomousAbilityEnabled", "autonomous ability",
                         autonomousAbility, ABILITIES)
        ability = self._ability(autonomousAbility)
        if ability is not None:
            ability.setEnabled(enabled)

    def getAutonomousAbilityEnabled(self, autonomousAbility: str) -> bool:
        """Whether an autonomous ability is enabled."""
        self._check_name("getAutonomousAbilityEnabled", "autonomous ability",
                         autonomousAbility, ABILITIES)
        ability = self._ability(autonomousAbility)
        return ability is not None and ability.isEnabled()

    def getAutonomousAbilitiesStatus(self) -> List[Dict[str, Any]]:
        """``[{"name", "enabled", "running"}, ...]`` (abilities run in the solitary and
        interactive states)."""
        with self._lock:
            alive = self._state in NATURES
        status = []
        for name in ABILITIES:
            enabled = self.getAutonomousAbilityEnabled(name)
            status.append({"name": name, "enabled": enabled, "running": enabled and alive})
        return status

    def setRobotOffsetFromFloor(self, offset: float) -> None:
        """Height (m) of the robot's feet above the floor (e.g. on a table)."""
        if offset < 0.0:
            raise self._error("setRobotOffsetFromFloor", "offset must be >= 0, got %s" % offset)
        with self._lock:
            self._offset_from_floor = offset

    def getRobotOffsetFromFloor(self) -> float:
        """Height (m) set with setRobotOffsetFromFloor."""
        with self._lock:
            return self._offset_from_floor

    def startMonitoringLaunchpadConditions(self) -> None:
        """Let the launchpad evaluate activity conditions."""
        with self._lock:
            self._monitoring = True

    def stopMonitoringLaunchpadConditions(self) -> None:
        """Stop evaluating activity conditions."""
        with self._lock:
            self._monitoring = False

    def isMonitoringLaunchpadConditions(self) -> bool:
        """Whether the launchpad evaluates activity conditions."""
        with self._lock:
            return self._monitoring

    def setLaunchpadPluginEnabled(self, plugin_name: str, enabled: bool) -> None:
        """Enable or disable one launchpad plugin."""
        every = sorted(p for plugins in LAUNCHPAD_PLUGINS.values() for p in plugins)
        self._check_name("setLaunchpadPluginEnabled", "launchpad plugin", plugin_name, every)
        with self._lock:
            if enabled:
                self._plugins.add(plugin_name)
            else:
                self._plugins.discard(plugin_name)

    def getEnabledLaunchpadPlugins(self) -> List[str]:
        """Names of the enabled launchpad plugins."""
        with self._lock:
            return sorted(self._plugins)

    def getLaunchpadPluginsForGroup(self, group: str) -> List[str]:
        """Launchpad plugins of a group (basic, people, dialog)."""
        self._check_name("getLaunchpadPluginsForGroup", "launchpad group", group,
                         sorted(LAUNCHPAD_PLUGINS))
        return list(LAUNCHPAD_PLUGINS[group])
