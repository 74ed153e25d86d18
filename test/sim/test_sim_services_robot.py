"""End to end: the services inside the simulated robot, called from a client qi.Session."""
import time

import pytest

from naoqi_qicore.robot.sim.services import speech

qi = pytest.importorskip("qi")
SimulatedRobot = getattr(pytest.importorskip("naoqi_qicore.robot.sim"), "SimulatedRobot", None)
if SimulatedRobot is None:
    pytest.skip("the simulated robot core is not available", allow_module_level=True)


def _client(robot):
    session = qi.Session()
    session.connect(robot.url)
    return session


@pytest.fixture(scope="module")
def pepper():
    robot = SimulatedRobot(robot="pepper", listen="tcp://127.0.0.1:0")
    robot.start()
    session = _client(robot)
    yield session
    session.close()
    robot.stop()


def test_speech_events_reach_the_robot_memory(pepper, monkeypatch):
    monkeypatch.setattr(speech, "SECONDS_PER_CHARACTER", 0.002)
    pepper.service("ALTextToSpeech").say("Hello from the simulator", "English")
    memory = pepper.service("ALMemory")
    assert memory.getData("ALTextToSpeech/CurrentSentence") == "Hello from the simulator"
    assert memory.getData("ALTextToSpeech/TextDone") == 1


def test_posture_moves_the_simulated_joints(pepper):
    posture = pepper.service("ALRobotPosture")
    assert posture.goToPosture("Crouch", 1.0)
    assert posture.getPosture() == "Crouch"
    hip = pepper.service("ALMotion").getAngles(["HipPitch"], True)[0]
    assert hip == pytest.approx(-1.03, abs=0.05)


def test_posted_led_fade_can_be_stopped(pepper):
    leds = pepper.service("ALLeds")
    task = leds.pCall("fadeRGB", "FaceLeds", 0x00FF00, 1.0)
    time.sleep(0.05)
    assert leds.isRunning(task)
    leds.stop(task)
    assert leds.wait(task, 2000) is False
    # the eyes start white: red fades towards 0 and stops part-way, green stays on
    assert 0.0 < leds.getIntensity("LeftFaceLedsRed") < 1.0
    assert leds.getIntensity("LeftFaceLedsGreen") == pytest.approx(1.0)


def test_tablet_only_on_pepper(pepper):
    assert pepper.service("ALTabletService").robotIp() == "198.18.0.1"
    robot = SimulatedRobot(robot="nao", listen="tcp://127.0.0.1:0")
    robot.start()
    session = _client(robot)
    try:
        with pytest.raises(RuntimeError):
            session.service("ALTabletService")
        assert "BrainLeds" in session.service("ALLeds").listGroups()
    finally:
        session.close()
        robot.stop()
