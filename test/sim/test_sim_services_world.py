"""System, people, awareness, tracking and navigation services of the simulated robot."""
import math
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from test_sim_services_context import pepper, sim, wait_until  # noqa: E402,F401  (fixtures)


def test_system_records_power_requests(sim):
    system = sim.service("ALSystem")
    assert system.robotName() == "nao" and system.systemVersion().startswith("2.")
    assert system.setRobotName("Astro-1") and system.robotName() == "Astro-1"
    with pytest.raises(RuntimeError, match="invalid robot name 'no way'"):
        system.setRobotName("no way")
    assert system.shutdown() and system.reboot()
    assert system.requests == ["shutdown", "reboot"]
    assert sim.memory.getData("ALSystem/reboot") == 1
    system.setTimezone("Asia/Tokyo")
    assert system.timezone() == "Asia/Tokyo"
    assert 0 < system.freeMemory() < system.totalMemory()
    assert system.diskFree(False)[0][0] == "/home/nao"


def test_preferences(sim):
    prefs = sim.service("ALPreferenceManager")
    prefs.setValue("com.app", "volume", 40)
    assert prefs.getValue("com.app", "volume") == 40
    assert prefs.getValue("com.app", "missing") is None
    sim.files.local("/home/nao/prefs.xml").path.write_text(
        '<ModulePreference name="com.other"><Preference name="a" value="1"/>'
        '<Preference name="b" value="2"/></ModulePreference>')
    prefs.importPrefFile("/home/nao/prefs.xml", False)
    assert prefs.getDomainList() == ["com.app", "com.other"]
    assert prefs.getValueList("com.other") == [["a", "1"], ["b", "2"]]
    prefs.removeValue("com.app", "volume")
    prefs.removeDomainValues("com.other")
    assert prefs.getDomainList() == []
    with pytest.raises(RuntimeError, match="does not exist"):
        prefs.importPrefFile("/home/nao/none.xml", True)
    # no entity of a preference file is expanded: nothing of another file is read
    sim.files.local("/home/nao/entity.xml").path.write_text(
        '<!DOCTYPE m [<!ENTITY x SYSTEM "file:///etc/hostname">]>'
        '<ModulePreference name="com.x"><Preference name="a" value="&x;"/></ModulePreference>')
    with pytest.raises(RuntimeError, match="entity.xml: not a preference file .*external "
                                           "entity"):
        prefs.importPrefFile("/home/nao/entity.xml", True)
    assert "com.x" not in prefs.getDomainList()


def test_service_manager_knows_the_services_of_installed_applications(sim):
    app = sim.files.apps / "my-app"
    app.mkdir()
    (app / "manifest.xml").write_text(
        '<package uuid="my-app"><services><service name="Main" execStart="scripts/main.py" '
        'autorun="false"/><service name="Tool" execStart="bin/tool"/><service name="NoCommand"/>'
        '</services></package>')
    (app / "bin").mkdir()
    (app / "bin" / "tool").write_bytes(b"\x7fELF")
    manager = sim.service("ALServiceManager")
    failures = []
    manager._watch_failures(failures.append)
    assert [info["name"] for info in manager.services()] == ["my-app.Main", "my-app.Tool"]
    assert manager.service("Main") == {"name": "my-app.Main", "execStart": "scripts/main.py",
                                       "autorun": False, "running": False, "pid": 0,
                                       "starts": 0}
    # a service that cannot start: False, and a failure saying why
    assert not manager.startService("my-app.Main") and not manager.startService("Tool")
    assert [(f["service"], f["message"].split(", ")[-1]) for f in failures] == [
        ("my-app.Main", "which the application does not have (no file /home/nao/.local/share/"
                        "PackageManager/apps/my-app/scripts/main.py)"),
        ("my-app.Tool", "which is no Python script: the simulated robot runs Python services "
                        "only")]
    assert manager._package_failures("my-app") == failures
    assert not manager.isServiceRunning("Main") and not manager.stopService("Main")
    for method in (manager.startService, manager.stopService, manager.service):
        with pytest.raises(RuntimeError, match="no service named 'x' in the installed "
                                               "applications"):
            method("x")


def test_people_perception_signals_go_with_its_events(sim):
    """NAOqi 2.5+'s ALPeoplePerception has the qi signals justArrived and justLeft (the
    person's id) beside its PeoplePerception/JustArrived and JustLeft events."""
    people = sim.service("ALPeoplePerception")
    heard = []
    people.justArrived.connect(lambda person: heard.append(("arrived", person)))
    people.justLeft.connect(lambda person: heard.append(("left", person)))
    first, second = people.simulatePersonArrives(1.0), people.simulatePersonArrives(2.0)
    people.simulatePersonLeaves(first)
    people.resetPopulation()
    assert wait_until(lambda: len(heard) == 4)
    # each emission reaches the callbacks from libqi's threads: in any order
    assert sorted(heard) == [("arrived", first), ("arrived", second), ("left", first),
                             ("left", second)]
    # the robot's other events fire no signal of its
    sim.memory.raiseEvent("PeoplePerception/PeopleDetected", [])
    assert not wait_until(lambda: len(heard) > 4, timeout=0.3)


def test_people_faces_and_mood(sim):
    people = sim.service("ALPeoplePerception")
    person = people.simulatePersonArrives(1.2)
    assert sim.memory.getData("PeoplePerception/JustArrived") == person
    assert sim.memory.getData("PeoplePerception/PeopleList") == [person]
    characteristics = sim.service("ALFaceCharacteristics")
    assert characteristics.analyzeFaceCharacteristics(person)
    assert sim.memory.getData("PeoplePerception/Person/%d/AgeProperties" % person)[0] > 0
    people.simulatePersonLeaves(person)
    assert not characteristics.analyzeFaceCharacteristics(person)
    faces = sim.service("ALFaceDetection")
    assert faces.learnFace("Ada") and not faces.learnFace("Ada")
    faces.subscribe("test", 500, 0.0)
    faces.simulateFace("Ada", 0.1, -0.1)
    detected = sim.memory.getData("FaceDetected")
    assert detected[1][0][1][2] == "Ada" and detected[1][1] == [2, ["Ada"]]
    assert faces.forgetPerson("Ada") and faces.getLearnedFacesList() == []
    mood = sim.service("ALMood")
    assert mood.getEmotionalReaction() == "none"
    mood.simulateReaction("positive", 0.8)
    assert mood.currentPersonState()["valence"]["value"] == 0.8
    assert mood.getEmotionalReaction() == "positive" and mood.getEmotionalReaction() == "none"


def test_sonar_publishes_while_subscribed(sim):
    sonar = sim.service("ALSonar")
    sonar.subscribe("test")
    assert sim.memory.getData("Device/SubDeviceList/US/Left/Sensor/Value") == 5.0
    sonar.simulateObstacle(0.3, 2.0)
    assert sim.memory.getData("SonarLeftDetected") == 0.3
    assert sim.memory.getData("SonarRightNothingDetected") == 2.0
    assert sonar.getSubscribersInfo() == [["test", 30, 1.0]]


def test_awareness_blinking_and_autonomous_moves(sim):
    awareness = sim.service("ALBasicAwareness")
    assert awareness.isEnabled() and awareness.isAwarenessRunning()  # on by default
    changes = []
    awareness.enabledChanged.connect(changes.append)
    awareness.stopAwareness()
    awareness.startAwareness()
    assert awareness.isEnabled() and awareness.isAwarenessRunning()
    awareness.pauseAwareness()
    assert not awareness.isAwarenessRunning()
    awareness.setEngagementMode("FullyEngaged")
    awareness.setTrackingMode("BodyRotation")
    awareness.setStimulusDetectionEnabled("Sound", False)
    assert not awareness.isStimulusDetectionEnabled("Sound")
    with pytest.raises(RuntimeError, match="'Smell' is not one of"):
        awareness.setStimulusDetectionEnabled("Smell", True)
    awareness.stopAwareness()
    assert wait_until(lambda: sorted(changes) == [False, False, True])  # qi delivers later
    blinking = sim.service("ALAutonomousBlinking")
    blinking.setEnabled(False)
    assert not blinking.isEnabled()
    moves = sim.service("ALAutonomousMoves")
    moves.setBackgroundStrategy("none")
    moves.setExpressiveListeningEnabled(False)
    assert moves.getBackgroundStrategy() == "none" and not moves.getExpressiveListeningEnabled()


def test_tracker_targets_and_look_at(sim):
    tracker = sim.service("ALTracker")
    tracker.registerTarget("Face", 0.1)
    with pytest.raises(RuntimeError, match="'Cat' is not one of"):
        tracker.registerTarget("Cat", 1)
    with pytest.raises(RuntimeError, match="target 'RedBall' is not registered"):
        tracker.track("RedBall")
    tracker.setMode("WholeBody")
    tracker.setEffector("LArm")
    tracker.track("Face")
    assert tracker.getActiveTarget() == "Face" and tracker.isTargetLost()
    tracker.simulateTarget([1.0, 1.0, 0.13])
    assert tracker.isNewTargetDetected()
    assert sim.motion.angles["HeadYaw"] == pytest.approx(math.pi / 4)
    tracker.lookAt([1.0, 0.0, -0.87], 0, 0.5, False)
    assert sim.motion.angles["HeadPitch"] == pytest.approx(0.51)  # clamped to the limit
    tracker.pointAt("Arms", [1.0, -0.5, 0.1], 0, 0.5)
    assert sim.motion.angles["RShoulderPitch"] == pytest.approx(0.0)
    with pytest.raises(RuntimeError, match=r"position must be \[x, y, z\]"):
        tracker.lookAt([1.0, 0.0], 0, 0.5, False)
    tracker.unregisterAllTargets()
    assert tracker.getActiveTarget() == "" and tracker.getRegisteredTargets() == []


def test_navigation_moves_through_motion(pepper):
    navigation = pepper.service("ALNavigation")
    assert navigation.navigateTo(1.0, 0.0)
    assert pepper.motion.position[0] == pytest.approx(1.0)
    trajectory = ["Composed", ["Holonomic", ["Line", [1.0, 0.0]], math.pi / 2, 2.0],
                  ["Holonomic", ["Line", [1.0, 0.0]], 0.0, 2.0]]
    assert navigation.moveAlong(trajectory)
    assert pepper.motion.position[:2] == pytest.approx([2.0, 1.0])
    with pytest.raises(RuntimeError, match="unknown trajectory"):
        navigation.moveAlong(["Teleport", [1, 2]])
    with pytest.raises(RuntimeError, match="less than 3 m"):
        navigation.navigateTo(5.0, 0.0)
    with pytest.raises(RuntimeError, match="localization is not started"):
        navigation.getRobotPositionInMap()
    assert navigation.explore(2.0) == 0
    saved = navigation.saveExploration()
    assert navigation.loadExploration(saved)
    navigation.startLocalization()
    assert navigation.getRobotPositionInMap()[0] == pytest.approx([0.0, 0.0, 0.0])
    assert navigation.navigateToInMap([0.5, 0.0]) == 0
    assert navigation.getRobotPositionInMap()[0][:2] == pytest.approx([0.5, 0.0], abs=1e-9)
    navigation.relocalizeInMap([1.0, 2.0, 0.5])
    assert navigation.getRobotPositionInMap()[0] == pytest.approx([1.0, 2.0, 0.5])
    task = navigation.pCall("navigateTo", 1.0, 1.0)
    navigation.stopNavigateTo()
    assert navigation.wait(task, 1000) is False
    assert pepper.service("ALVisualCompass").moveTo(0.0, 0.0, 1.0)


def test_circle_trajectory_end():
    from naoqi_qicore.robot.sim.services.navigation import trajectory_end
    x, y, theta = trajectory_end(["Circle", [0.0, 1.0], math.pi])
    assert (x, y, theta) == pytest.approx((0.0, 2.0, math.pi))
