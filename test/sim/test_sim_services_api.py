"""NAOqi's API as documented: every method of the API reference table, on every service the
simulated NAO and Pepper offer, is served over libqi with its documented arguments and
answers a value of its documented type (or, when the simulated robot cannot emulate it,
returns when it returns nothing and answers an error naming it otherwise); the services with
state behave as on a robot."""
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

qi = pytest.importorskip("qi")

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "test" / "sim"))
sys.path.insert(0, str(REPO / "bench"))
from test_sim_services_context import pepper, sim, wait_until  # noqa: E402,F401 (fixtures)

from naoqi_qicore.robot.sim import SimulatedRobot  # noqa: E402
from naoqi_qicore.robot.sim.robot import core_service_classes  # noqa: E402
from naoqi_qicore.robot.sim.scenario import parse_scenario  # noqa: E402
from naoqi_qicore.robot.sim.services import SERVICE_CLASSES, api, body  # noqa: E402
from naoqi_qicore.robot.sim.services.api_table import API, GROUPS  # noqa: E402

pytestmark = pytest.mark.long_running(minutes=0.4)

NOT_SIMULATED = "is part of NAOqi's API but is not simulated"
#: an argument of each documented type
SAMPLES = {"int": 0, "float": 0.0, "str": "", "bool": False, "list": [], "dict": {}, "any": []}
#: answer types: what a documented type may come back as over libqi
ANSWERS = {"int": (int,), "float": (float, int), "str": (str,), "bool": (bool,),
           "list": (list, tuple), "dict": (dict,), "none": (type(None),)}
#: calls that would end the test's robot or wait for something that never comes
NOT_CALLED = {("ALMemory", "getDataOnChange"), ("ALModule", "exit")}
CALL_TIMEOUT_S = 5.0


def _answer_fits(value: Any, documented: str) -> bool:
    if documented == "any":
        return True
    if documented == "int" and isinstance(value, bool):
        return False
    return isinstance(value, ANSWERS[documented])


def _call(service: Any, method: api.Method) -> Any:
    arguments = [SAMPLES[p.type] for p in method.parameters if not p.optional]
    future = getattr(service, method.name)(*arguments, _async=True)
    if not future.wait(int(CALL_TIMEOUT_S * 1000)) == qi.FutureState.FinishedWithValue:
        if future.isRunning():
            return "running"  # a blocking call (a motion, a speech) started
        return future  # an error, checked by the caller
    return future.value()


def _served(robot_kind: str):
    robot = SimulatedRobot(robot_kind, listen="tcp://127.0.0.1:0").start()
    session = qi.Session()
    session.connect(robot.url)
    return robot, session


@pytest.mark.parametrize("robot_kind", ["nao", "pepper"])
def test_every_documented_method_is_served_over_libqi(robot_kind):
    robot, session = _served(robot_kind)
    try:
        documented = set(api.documented_services())
        offered = [name for name in robot.services() if name in documented]
        assert len(offered) >= 70
        wrong, checked, not_simulated = [], 0, 0
        for name in offered:
            service = session.service(name)
            for method in api.documented_methods(name).values():
                if (name, method.name) in NOT_CALLED or ("ALModule", method.name) in NOT_CALLED:
                    continue
                checked += 1
                result = _call(service, method)
                if isinstance(result, qi.Future):
                    error = result.error()
                    if NOT_SIMULATED in error:
                        not_simulated += 1
                        if "%s.%s %s" % (name, method.name, NOT_SIMULATED) not in error:
                            wrong.append("%s.%s: %s" % (name, method.name, error[:120]))
                    elif "takes" in error or "must be" in error.split("\n")[0] and \
                            "argument" in error or "Can't find" in error:
                        wrong.append("%s.%s refuses its documented arguments: %s"
                                     % (name, method.name, error.split("\n")[0][:160]))
                elif result != "running" and not _answer_fits(result, method.returns):
                    wrong.append("%s.%s answered %r, not %s" % (name, method.name, result,
                                                                  method.returns))
        assert wrong == [], "\n".join(wrong)
        assert checked > 1500 and not_simulated < checked / 3
    finally:
        session.close()
        robot.stop()


def test_the_table_parses_and_every_setting_has_a_default():
    for service in list(API):
        methods = api.documented_methods(service)
        assert methods, service
        for setter, getter in api.setting_pairs(methods).items():
            assert methods[getter].answers, (service, getter)
    assert set(GROUPS) <= set(API)
    with pytest.raises(ValueError, match="every argument needs one of the types"):
        api.parse_method("set(x) -> none")
    with pytest.raises(ValueError, match="non-default argument follows"):
        api.parse_method("f(a: int = 1, b: int) -> none")


def test_hand_written_methods_accept_the_documented_argument_counts():
    """A class's own method takes at least the documented required arguments and at most its
    documented ones (or more when it has optional ones of its own)."""
    import inspect
    wrong = []
    for name, cls in {**SERVICE_CLASSES, **core_service_classes()}.items():
        for method in api.documented_methods(name).values():
            function = getattr(cls, method.name)
            own = getattr(function, "__checked__", function)
            if hasattr(own, "__documented__"):
                continue  # built from the table itself
            parameters = list(inspect.signature(own).parameters.values())[1:]
            positional = [p for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD,
                                                               p.POSITIONAL_ONLY)]
            variadic = any(p.kind == p.VAR_POSITIONAL for p in parameters)
            required = sum(1 for p in positional if p.default is p.empty)
            if required > method.required or (not variadic and
                                              len(positional) < len(method.parameters)):
                wrong.append("%s.%s%s vs documented %d..%d" % (
                    name, method.name, inspect.signature(own), method.required,
                    len(method.parameters)))
    assert wrong == [], "\n".join(wrong)


def test_a_setting_is_either_kept_by_the_table_or_written_out_on_both_sides():
    """A setter built from the table beside a class's own getter (or the reverse) would keep
    a value the other never sees (a setting the table keeps: its getter has an answer; a
    setter without one, such as ALMotion.setPosition, is refused as not simulated)."""
    def built(cls, name):
        function = getattr(cls, name, None)
        return hasattr(getattr(function, "__checked__", function), "__documented__")
    mixed = []
    for name, cls in {**SERVICE_CLASSES, **core_service_classes()}.items():
        for setter, getter in api.setting_pairs(api.documented_methods(name)).items():
            if built(cls, setter) != built(cls, getter):
                mixed.append("%s.%s / %s" % (name, setter, getter))
    assert mixed == []


def test_settings_the_table_keeps_and_answers_it_gives(pepper):
    darkness = pepper.service("ALDarknessDetection")
    assert darkness.getDarknessThreshold() == 60
    darkness.setDarknessThreshold(40)
    assert darkness.getDarknessThreshold() == 40
    recorder = pepper.service("ALVideoRecorder")
    recorder.setFrameRate(5)
    assert recorder.getFrameRate() == 5 and recorder.getResolution() == 2
    assert darkness.setActiveCamera(1) is True and darkness.getActiveCamera() == 1
    assert pepper.service("ALDiagnosis").getPassiveDiagnosis() == []
    with pytest.raises(TypeError, match="ALDarknessDetection::setDarknessThreshold: argument 1"):
        darkness.setDarknessThreshold("dark")
    # returns nothing: returns as on the robot, without recording anything
    assert recorder.startRecording("/home/nao/recordings", "clip") is None
    with pytest.raises(RuntimeError, match="ALVideoRecorder.stopRecording " + NOT_SIMULATED):
        recorder.stopRecording()
    help = darkness.getMethodHelp("setDarknessThreshold")
    assert help[0] == "setDarknessThreshold" and help[2] == [["threshold", "an int"]]
    assert "getDarknessThreshold" in darkness.getMethodList()


def test_extractor_methods(sim):
    sonar = sim.service("ALSonar")
    sonar.subscribe("a", 100, 0.5)
    sonar.subscribe("b", 50, 0.8)
    sonar.updatePeriod("a", 20)
    sonar.updatePrecision("b", 0.9)
    assert sonar.getCurrentPeriod() == 20 and sonar.getCurrentPrecision() == 0.9
    assert sonar.getMyPeriod("a") == 20 and sonar.getMyPrecision("a") == 0.5
    assert sonar.isProcessing()
    sonar.pause(True)
    assert sonar.isPaused() and not sonar.isProcessing()
    with pytest.raises(RuntimeError, match="module 'c' is not subscribed"):
        sonar.getMyPeriod("c")
    assert "FaceDetected" in sim.service("ALFaceDetection").getEventList()


# -- services with state ------------------------------------------------------------------------
@pytest.mark.slow  # real processes: left out of make check
def test_breath_config_from_another_process(tmp_path):
    """``session.service("ALMotion").setBreathConfig([["Bpm", 15.0]])`` from a process of its
    own, against ``naoqi_sim``."""
    process = subprocess.Popen(
        [sys.executable, "-m", "naoqi_qicore.robot.sim", "--listen", "tcp://127.0.0.1:0"],
        cwd=str(REPO), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env=dict(os.environ, PYTHONPATH=str(REPO), PYTHONUNBUFFERED="1"))
    try:
        url = process.stdout.readline().split("listening on ")[-1].strip()
        assert url.startswith("tcp://127.0.0.1:"), url
        client = subprocess.run([sys.executable, "-c", """
import qi, sys
session = qi.Session()
session.connect(sys.argv[1])
motion = session.service("ALMotion")
motion.setBreathConfig([["Bpm", 15.0]])
print(motion.getBreathConfig())
motion.setBreathConfig([["Bpm", 25], ["Amplitude", 1.0]])
print(motion.getBreathConfig())
try:
    motion.setBreathConfig([["Bpm", 45.0]])
except RuntimeError as error:
    print(str(error).splitlines()[0])
print(session.service("ALMemory").getData("Device/SubDeviceList/Head/Temperature/Sensor/Value"))
""", url], capture_output=True, text=True, timeout=60,
            env=dict(os.environ, PYTHONPATH=str(REPO)))
        assert client.returncode == 0, client.stderr
        lines = [line for line in client.stdout.splitlines()
                 if not re.match(r"\[[A-Z]\] ", line)]  # libqi's own log lines
        assert lines[0] == "[['Bpm', 15.0], ['Amplitude', 0.5]]"
        assert lines[1] == "[['Bpm', 25.0], ['Amplitude', 0.2]]"  # clipped for 25 bpm
        assert lines[2].endswith("ALMotion::setBreathConfig: Bpm must be in [5, 30], got 45")
        assert float(lines[3]) == body.START_CPU_C
    finally:
        process.terminate()
        process.wait(15)


@pytest.fixture
def nao():
    robot, session = _served("nao")
    yield robot, session
    session.close()
    robot.stop()


def test_battery_charge_and_events(nao):
    robot, session = nao
    memory = session.service("ALMemory")
    seen = []
    links = []
    for key in ("BatteryChargeChanged", "BatteryPowerPluggedChanged", "BatteryLowDetected",
                "BatteryChargingFlagChanged"):
        subscriber = memory.subscriber(key)
        links.append((subscriber, subscriber.signal.connect(
            lambda value, key=key: seen.append((key, value)))))
    battery = session.service("ALBattery")
    assert battery.getBatteryCharge() == body.START_CHARGE
    runner = robot.play_scenario(parse_scenario(
        "- battery: 15\n- battery: {charge: 16, plugged: true}\n"))
    assert runner.wait(5)
    assert wait_until(lambda: len(seen) == 5)
    # libqi runs a remote subscriber's callbacks on its thread pool, so two events (even of
    # one key) may reach the callbacks in either order; the values ALMemory keeps are ordered
    assert sorted(seen) == sorted([
        ("BatteryChargeChanged", 15), ("BatteryLowDetected", True), ("BatteryChargeChanged", 16),
        ("BatteryPowerPluggedChanged", True), ("BatteryChargingFlagChanged", True)])
    assert battery.getBatteryCharge() == 16
    assert memory.getData(body.BATTERY_CHARGE_KEY) == pytest.approx(0.16)


def test_body_temperature_values_events_and_notifications(nao):
    robot, session = nao
    memory = session.service("ALMemory")
    temperature = session.service("ALBodyTemperature")
    assert memory.getData("Device/SubDeviceList/Head/Temperature/Sensor/Value") == 52.0
    assert memory.getData("Device/SubDeviceList/LKneePitch/Temperature/Sensor/Value") == 32.0
    assert temperature.getTemperatureDiagnosis() == []
    hot = []
    subscriber = memory.subscriber("HotDeviceDetected")
    subscriber.signal.connect(hot.append)
    runner = robot.play_scenario(parse_scenario(
        "- temperature: {device: LKneePitch, celsius: 76}\n"))
    assert runner.wait(5)
    assert wait_until(lambda: hot == [[["LKneePitch", 2]]])
    assert temperature.getTemperatureDiagnosis() == [2, ["LKneePitch"]]
    assert memory.getData("Device/SubDeviceList/LKneePitch/Temperature/Sensor/Status") == 2
    notifications = session.service("ALNotificationManager").notifications()
    assert [n["severity"] for n in notifications] == ["warning"]
    assert "LKneePitch" in notifications[0]["message"]
    with pytest.raises(RuntimeError, match="no device 'Toe'"):
        robot.perception.temperature("Toe", 50.0)


def test_notifications_are_added_read_and_removed(sim):
    manager = sim.service("ALNotificationManager")
    first = manager.add({"message": "Hello", "severity": "info", "removeOnRead": False})
    second = manager.add({"message": "Bye", "severity": "error"})
    assert [n["id"] for n in manager.notifications()] == [first, second]
    assert manager.notification(first)["message"] == "Hello"
    assert manager.notification(second)["severity"] == "error"
    assert [n["id"] for n in manager.notifications()] == [first]  # removed on read
    assert manager.remove(first) and not manager.remove(first)
    assert sim.memory.values("NotificationAdded") == [first, second]
    assert sim.memory.values("NotificationRemoved") == [second, first]
    with pytest.raises(RuntimeError, match="severity must be one of"):
        manager.add({"message": "x", "severity": "fatal"})


def test_animations_run_by_path_and_tag(sim, monkeypatch):
    import dataclasses
    from naoqi_qicore.robot.sim.services import behaviors, movement
    monkeypatch.setattr(movement, "ANIMATION_SECONDS", 0.05)
    monkeypatch.setattr(behaviors, "STOCK_BEHAVIORS", [  # the stock animations, quicker
        dataclasses.replace(behavior, seconds=min(behavior.seconds, 0.05))
        for behavior in behaviors.STOCK_BEHAVIORS])
    player = sim.service("ALAnimationPlayer")
    started = []
    sim.service("ALBehaviorManager").behaviorStarted.connect(started.append)
    player.run("animations/Stand/Gestures/Hey_1")  # installed: run by ALBehaviorManager
    assert wait_until(lambda: started == ["animations/Stand/Gestures/Hey_1"])
    player.run("animations/Stand/Gestures/Explain_3")  # the robot's library: played
    player.addTagForAnimations({"wave": ["animations/Stand/Gestures/Hey_1"]})
    assert player._tagged("wave", "") == ["animations/Stand/Gestures/Hey_1"]
    assert player._tagged("happy", "") == ["animations/Stand/Emotions/Positive/Happy_4",
                                           "animations/Stand/Gestures/Enthusiastic_4"]
    player.runTag("hello")
    with pytest.raises(RuntimeError, match="the tag is empty"):
        player.runTag("")


def test_autonomous_abilities_are_the_services_of_the_same_name(nao):
    robot, session = nao
    life = session.service("ALAutonomousLife")
    speaking = session.service("ALSpeakingMovement")
    life.setAutonomousAbilityEnabled("SpeakingMovement", False)
    assert speaking.isEnabled() is False
    speaking.setEnabled(True)
    assert life.getAutonomousAbilityEnabled("SpeakingMovement") is True
    speaking.setMode("random")
    assert speaking.getMode() == "random"
    with pytest.raises(RuntimeError, match="'bored' is not one of"):
        speaking.setMode("bored")


def test_motion_deprecated_walk_names_and_robot_description(nao):
    robot, session = nao
    motion = session.service("ALMotion")
    motion.setWalkArmsEnabled(False, True)
    assert motion.getWalkArmsEnabled() == [False, True] and not motion.getMoveArmsEnabled("LArm")
    motion.setWalkTargetVelocity(0.5, 0.0, 0.0, 1.0)
    assert motion.walkIsActive()
    motion.stopWalk()
    assert not motion.moveIsActive()
    assert motion.getNextRobotPosition() == motion.getRobotPosition(False)
    assert "HeadYaw" in motion.getSensorNames() and motion.getMotionCycleTime() == 10
    assert motion.getRobotConfig()[1][0] == "nao"
    assert "HeadYaw" in motion.getSummary()
    with pytest.raises(RuntimeError, match="ALMotion.getCOM " + NOT_SIMULATED):
        motion.getCOM("Body", 0, True)


def test_the_corpus_report_counts_not_simulated_methods_as_ours():
    from corpus_report import OURS, classify
    detail = ("box: onStart: RuntimeError: ALMotion.getCOM is part of NAOqi's API but is "
              "not simulated")
    assert classify(detail)[0] == OURS

