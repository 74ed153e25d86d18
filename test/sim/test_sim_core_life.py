"""ALAutonomousLife of the simulated robot over libqi: focus, stack, reasons, events, states."""
import os
import sys
import threading
import time

import pytest

qi = pytest.importorskip("qi")

sys.path.insert(0, os.path.dirname(__file__))
from sim_core_support import sim_session, wait_until  # noqa: E402

STOP_CURRENT, STOP_AND_STACK_CURRENT = 0, 1
LIFE_EVENTS = ("AutonomousLife/CompletedActivity", "AutonomousLife/NextActivity",
               "AutonomousLife/FocusedActivity", "AutonomousLife/State")


class EventLog:
    """A client module receiving ALMemory callbacks, in the order the robot sends them."""

    def __init__(self):
        self.events = []
        self._lock = threading.Lock()

    def onEvent(self, key, value, message):
        with self._lock:
            self.events.append((key.split("/")[1], value))

    def take(self):
        with self._lock:
            events, self.events = self.events, []
        return events


class Life:
    """The robot's ALAutonomousLife and what it reports."""

    def __init__(self, session):
        self.session = session
        self.life = session.service("ALAutonomousLife")
        self.activities = session.service("NaoqiSimActivities")
        self.memory = session.service("ALMemory")
        self.transitions = []
        self.life.activityTransition.connect(self.transitions.append)
        self.log = EventLog()
        self.module_id = session.registerService("TestLifeEvents", self.log)
        for key in LIFE_EVENTS:
            self.memory.subscribeToEvent(key, "TestLifeEvents", "onEvent")

    def reset(self):
        self.life.stopAll()
        if self.life.getState() != "solitary":
            self.life.setState("solitary")
        self.settle()
        self.transitions.clear()
        self.log.take()

    def settle(self):
        """Wait until the notifications sent so far have arrived."""
        marker = object()
        seen = []
        subscriber = self.memory.subscriber("Test/LifeSync")
        subscriber.signal.connect(seen.append)
        self.memory.raiseEvent("Test/LifeSync", id(marker))
        assert wait_until(lambda: seen)
        time.sleep(0.02)  # the signal and the callbacks travel on different connections

    def _last(self, count):
        # libqi may run the callbacks of one signal concurrently: order them by time
        ordered = sorted(list(self.transitions), key=lambda t: t["TransitionTime"])
        return [(t["PreviousActivityName"], t["PreviousActivityStopReason"],
                 t["FocusedActivityName"], t["FocusedActivityStartReason"])
                for t in ordered[-count:]]

    def expect(self, *expected):
        """Assert that the last transitions are ``expected`` (previous, stop reason, focused,
        start reason), waiting a little: signals arrive shortly after the calls return."""
        wait_until(lambda: self._last(len(expected)) == list(expected))
        assert self._last(len(expected)) == list(expected)


@pytest.fixture(scope="module")
def robot():
    with sim_session("nao") as (_, session):
        life = Life(session)
        yield life
        session.unregisterService(life.module_id)


@pytest.fixture
def life(robot):
    robot.reset()
    return robot


def test_switch_focus_stop_current(life):
    life.life.switchFocus("app-a/behavior_1")
    assert life.life.focusedActivity() == "app-a/behavior_1"
    life.life.switchFocus("app-b/behavior_1", STOP_CURRENT)
    expected = [("", "", "app-a/behavior_1", "unknown-api-caller"),
                ("app-a/behavior_1", "switchfocus-api-interrupt", "app-b/behavior_1",
                 "unknown-api-caller")]
    life.expect(*expected)
    life.life.stopFocus()  # nothing stacked: nobody has the focus
    life.expect(("app-b/behavior_1", "unknown-api-caller", "", ""))
    assert life.life.focusedActivity() == ""
    assert isinstance(life.transitions[-1]["TransitionTime"], int)


def test_events_order_and_state(life):
    life.life.switchFocus("app-a/behavior_1")
    life.life.switchFocus("app-b/behavior_1")
    life.life.stopFocus()
    life.settle()
    assert life.log.take() == [
        ("NextActivity", "app-a/behavior_1"), ("FocusedActivity", "app-a/behavior_1"),
        ("State", "interactive"),
        ("CompletedActivity", "app-a/behavior_1"), ("NextActivity", "app-b/behavior_1"),
        ("FocusedActivity", "app-b/behavior_1"), ("State", "interactive"),  # re-raised
        ("CompletedActivity", "app-b/behavior_1"), ("FocusedActivity", ""),
        ("State", "solitary")]
    assert life.memory.getData("AutonomousLife/FocusedActivity") == ""


def test_stack_and_unstack(life):
    life.life.switchFocus("app-a/behavior_1")
    life.life.switchFocus("app-b/behavior_1", STOP_AND_STACK_CURRENT)
    life.life.switchFocus("app-c/behavior_1", STOP_AND_STACK_CURRENT)
    life.life.stopFocus()
    assert life.life.focusedActivity() == "app-b/behavior_1"
    life.life.stopFocus()
    assert life.life.focusedActivity() == "app-a/behavior_1"
    expected = [
        ("app-b/behavior_1", "switchfocus-api-interrupt", "app-c/behavior_1",
         "unknown-api-caller"),
        ("app-c/behavior_1", "unknown-api-caller", "app-b/behavior_1", "unstacked"),
        ("app-b/behavior_1", "unknown-api-caller", "app-a/behavior_1", "unstacked")]
    life.expect(*expected)
    life.life.stopFocus()
    assert life.life.focusedActivity() == ""


def test_stop_all_empties_the_stack(life):
    life.life.switchFocus("app-a/behavior_1")
    life.life.switchFocus("app-b/behavior_1", STOP_AND_STACK_CURRENT)
    life.life.stopAll()
    life.expect(("app-b/behavior_1", "unknown-api-caller", "", ""))
    assert life.life.focusedActivity() == ""
    life.life.stopFocus()  # nothing left to unstack
    assert life.life.focusedActivity() == ""


def test_self_stop_unstacks(life):
    life.activities.registerActivity("timed/short", "interactive", 0.2)
    life.life.switchFocus("app-a/behavior_1")
    life.life.switchFocus("timed/short", STOP_AND_STACK_CURRENT)
    assert wait_until(lambda: life.life.focusedActivity() == "app-a/behavior_1", 3.0)
    life.expect(("timed/short", "self-stop", "app-a/behavior_1", "unstacked"))
    stats = life.life.getActivityStatistics()["timed/short"]
    assert stats["startCount"] >= 1 and stats["totalDuration"] >= 0.15
    assert stats["prevCompletionTime"] >= stats["prevStartTime"]


def test_disabled_and_safeguard_stop_everything(life):
    life.life.switchFocus("app-a/behavior_1")
    life.life.switchFocus("app-b/behavior_1", STOP_AND_STACK_CURRENT)
    life.life.setState("disabled")
    life.expect(("app-b/behavior_1", "disabled-state", "", ""))
    assert life.life.getState() == "disabled"
    assert not life.life.isMonitoringLaunchpadConditions()
    with pytest.raises(RuntimeError, match="state 'disabled'"):
        life.life.switchFocus("app-a/behavior_1")
    life.life.setState("solitary")
    assert life.life.focusedActivity() == ""  # the stack was emptied
    life.life.switchFocus("app-a/behavior_1")
    life.life.setState("safeguard")
    life.expect(("app-a/behavior_1", "safeguard-state", "", ""))
    life.life.setState("solitary")
    states = [state for state, _ in life.life.getStateHistory(5)]
    assert states == ["disabled", "solitary", "interactive", "safeguard", "solitary"]


def test_state_rules(life):
    with pytest.raises(RuntimeError, match="unknown state 'sleepy'"):
        life.life.setState("sleepy")
    with pytest.raises(RuntimeError, match="interactive is entered by focusing"):
        life.life.setState("interactive")
    life.life.switchFocus("app-a/behavior_1")
    assert life.life.getState() == "interactive"
    with pytest.raises(RuntimeError, match="cannot go from interactive to solitary"):
        life.life.setState("solitary")
    life.life.stopFocus()
    assert life.life.getState() == "solitary"
    life.activities.registerActivity("lonely/walk", "solitary", 0.0)
    life.life.switchFocus("lonely/walk")
    assert life.life.getState() == "solitary"
    assert life.life.getActivityNature("lonely/walk") == "solitary"


def test_unknown_activities_and_flags(life):
    with pytest.raises(RuntimeError, match="activity 'nonsense' is not installed"):
        life.life.switchFocus("nonsense")
    with pytest.raises(RuntimeError, match="flags must be"):
        life.life.switchFocus("app-a/behavior_1", 7)
    with pytest.raises(RuntimeError, match="activity 'never/seen' is not installed"):
        life.life.getActivityNature("never/seen")  # asking does not install it
    life.life.switchFocus("new-package/new_behavior")  # shaped like an installed behavior
    assert "new-package/new_behavior" in life.activities.getActivities()
    # behaviors installed in ALBehaviorManager are activities, with their nature
    assert life.life.getActivityNature("dialog_applauncher/.") == "solitary"
    life.life.switchFocus("animations/Stand/Gestures/Hey_1")
    assert life.life.getState() == "interactive"
    with pytest.raises(RuntimeError, match="nature must be"):
        life.activities.registerActivity("x/y", "grumpy", 0.0)


def test_autonomous_launches_and_interruptions(life):
    life.activities.registerActivity("auto/greet", "interactive", 0.0)
    life.activities.launchActivity("auto/greet", "condition")
    life.expect(("", "", "auto/greet", "condition"))
    for reason in ("user-stop", "users-lost", "permission-context"):
        life.life.switchFocus("app-a/behavior_1")
        life.activities.interruptActivity(reason)
        life.expect(("app-a/behavior_1", reason, "", ""))
    life.activities.launchActivity("auto/greet", "applauncher-tablet")
    life.activities.launchActivity("app-a/behavior_1", "default-activity")
    life.expect(("auto/greet", "switchfocus-api-interrupt", "app-a/behavior_1",
                 "default-activity"))
    autonomous = life.life.getAutonomousActivityStatistics()
    assert autonomous["auto/greet"]["startCount"] == 2
    assert set(autonomous["auto/greet"]) == {"prevStartTime", "prevCompletionTime",
                                            "startCount", "totalDuration"}
    with pytest.raises(RuntimeError, match="start reason"):
        life.activities.launchActivity("auto/greet", "whim")


def test_every_start_reason_of_an_autonomous_launch(life):
    life.activities.registerActivity("auto/any", "interactive", 0.0)
    for reason in ("default-activity", "condition", "applauncher-voice", "applauncher-tablet"):
        life.activities.launchActivity("auto/any", reason)
        life.expect(("", "", "auto/any", reason))
        life.activities.interruptActivity("user-stop")
        life.expect(("auto/any", "user-stop", "", ""))


def test_history_and_context(life):
    life.life.switchFocus("hist/one")
    life.life.switchFocus("hist/two", STOP_CURRENT, {"who": "tester"})
    history = life.life.getFocusHistory(2)
    assert [name for name, _ in history] == ["hist/one", "hist/two"]
    assert history[0][1] <= history[1][1]
    assert len(life.life.getFocusHistory()) >= 2
    seconds, micros, value = life.life.getFocusContext("who")
    assert value == "tester" and seconds > 0 and 0 <= micros < 10 ** 6
    with pytest.raises(RuntimeError, match="no 'what'"):
        life.life.getFocusContext("what")
    assert life.life.getLifeTime() >= 0


def test_permissions_safeguards_abilities_launchpad(life, robot):
    life.activities.registerActivity("lonely/idle", "solitary", 0.0)
    life.life.switchFocus("app-a/behavior_1")
    assert life.life.getActivityContextPermissionViolations("lonely/idle") == ["nature"]
    life.life.stopFocus()
    motion = robot.session.service("ALMotion")
    motion.rest()
    try:
        assert life.life.getActivityContextPermissionViolations("lonely/idle") == \
            ["canRunInSleep"]
    finally:
        motion.wakeUp()
    life.life.setSafeguardEnabled("RobotFell", False)
    assert not life.life.isSafeguardEnabled("RobotFell")
    life.life.setSafeguardEnabled("RobotFell", True)
    with pytest.raises(RuntimeError, match="unknown safeguard"):
        life.life.isSafeguardEnabled("RobotBored")
    life.life.setAutonomousAbilityEnabled("BackgroundMovement", False)
    status = {s["name"]: s for s in life.life.getAutonomousAbilitiesStatus()}
    assert status["BackgroundMovement"] == {"name": "BackgroundMovement", "enabled": False,
                                            "running": False}
    assert status["BasicAwareness"]["running"]
    life.life.setAutonomousAbilityEnabled("BackgroundMovement", True)
    assert life.life.getAutonomousAbilityEnabled("BackgroundMovement")
    life.life.setRobotOffsetFromFloor(0.7)
    assert life.life.getRobotOffsetFromFloor() == pytest.approx(0.7)
    with pytest.raises(RuntimeError, match=">= 0"):
        life.life.setRobotOffsetFromFloor(-1.0)
    life.life.stopMonitoringLaunchpadConditions()
    assert not life.life.isMonitoringLaunchpadConditions()
    life.life.startMonitoringLaunchpadConditions()
    basic = life.life.getLaunchpadPluginsForGroup("basic")
    life.life.setLaunchpadPluginEnabled(basic[0], False)
    assert basic[0] not in life.life.getEnabledLaunchpadPlugins()
    life.life.setLaunchpadPluginEnabled(basic[0], True)
    with pytest.raises(RuntimeError, match="unknown launchpad group"):
        life.life.getLaunchpadPluginsForGroup("nope")


def test_focus_calls_wait_for_the_announcements_of_earlier_changes():
    """switchFocus answers before its signal is sent; the next focus call starts after it."""
    from naoqi_qicore.robot.sim import SimulatedRobot
    with SimulatedRobot(robot="nao", listen="tcp://127.0.0.1:0") as robot:
        life = robot.service("ALAutonomousLife")
        sent = []

        class SlowClient:
            def setValue(self, info):  # noqa: N802 (qi.Property's name)
                time.sleep(0.05)
                sent.append(info["FocusedActivityName"])
        life.activityTransition = SlowClient()  # the module emits through this attribute
        life.switchFocus("app-a/behavior_1")
        assert life.focusedActivity() == "app-a/behavior_1"
        assert sent == ["app-a/behavior_1"]
        life.stopFocus()
        assert life.getState() == "solitary"
        assert sent == ["app-a/behavior_1", ""]


def test_histories_keep_the_last_changes(monkeypatch):
    """A robot serving for hours keeps a bounded history."""
    from naoqi_qicore.robot.sim import SimulatedRobot, autonomous_life
    monkeypatch.setattr(autonomous_life, "HISTORY_LENGTH", 5)
    with SimulatedRobot(listen="tcp://127.0.0.1:0") as robot:
        life = robot.service("ALAutonomousLife")
        for index in range(8):
            life.switchFocus("history/%d" % index)
            life.stopFocus()
        assert [name for name, _ in life.getFocusHistory()] == [
            "history/%d" % index for index in range(3, 8)]
        assert len(life.getStateHistory()) == 5


def test_focus_changes_keep_nothing(monkeypatch):
    """A robot changing focus for hours does not grow (qi's Signal keeps the argument of
    every emission: the transitions go out through a property, a signal to clients)."""
    import gc
    from naoqi_qicore.robot.sim import SimulatedRobot, autonomous_life
    monkeypatch.setattr(autonomous_life, "HISTORY_LENGTH", 5)
    with SimulatedRobot(listen="tcp://127.0.0.1:0") as robot:
        client = qi.Session()
        client.connect(robot.url)
        received = []
        client.service("ALAutonomousLife").activityTransition.connect(
            lambda info: received.append(None))  # counted, not kept: kept values are blocks
        life = robot.service("ALAutonomousLife")

        def changes(count):
            for index in range(count):
                life.switchFocus("soak/%d" % (index % 3))
                life.stopFocus()
        changes(20)
        gc.collect()
        before = sys.getallocatedblocks()
        changes(300)
        gc.collect()
        grown = sys.getallocatedblocks() - before
        print("600 focus changes: %+d allocated blocks" % grown)
        assert wait_until(lambda: len(received) == 640)
        client.close()
    assert grown < 600, "600 focus changes kept %d memory blocks" % grown
