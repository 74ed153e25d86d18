"""End to end: the services inside the simulated robot, called from a client qi.Session."""
import threading
import time

import pytest

from naoqi_qicore.robot.sim.services import speech
from naoqi_qicore.robot.sim.services.posture import posture_path

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


def test_go_to_posture_passes_through_the_posture_graph_at_the_robots_pace():
    """NAOqi's goToPosture "computes a path from its current posture to its target posture,
    and applies it" (ALRobotPosture overview): a NAO sits down from StandInit through Crouch,
    in seconds, and the call returns when it sits."""
    assert posture_path("nao", "Stand", "Sit") == ["Stand", "StandInit", "Crouch", "Sit"]
    assert posture_path("pepper", "Stand", "Crouch") == ["Stand", "StandInit", "Crouch"]
    robot = SimulatedRobot(robot="nao", listen="tcp://127.0.0.1:0")
    robot.start()
    session = _client(robot)
    try:
        posture, motion = session.service("ALRobotPosture"), session.service("ALMotion")
        assert posture.getPosture() == "StandInit"
        knees, done = [], threading.Event()

        def sample_knee():
            while not done.wait(0.02):
                knees.append(motion.getAngles("LKneePitch", True)[0])

        sampler = threading.Thread(target=sample_knee)
        sampler.start()
        started = time.monotonic()
        try:
            assert posture.goToPosture("Sit", 1.0) is True
        finally:
            took = time.monotonic() - started
            done.set()
            sampler.join()
        assert posture.getPosture() == "Sit"
        assert 2.0 < took < 6.0  # knees 1.4 rad down, ankles 1.4 rad up, one after the other
        assert max(knees) > 2.0  # crouched (knees at 121 degrees) on the way: Sit is at 70
    finally:
        session.close()
        robot.stop()


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
