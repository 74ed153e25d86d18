"""Perception that starts as on a robot: under Autonomous Life's default (solitary) state,
basic awareness runs and works on the extractors of its stimuli, so a box waiting on the
``FaceDetected`` memory input (as the standard Face Reco. box does, subscribing to nothing)
gets the faces a scenario shows; extractors give what the real ones give (time-filtered
face recognition, marks, located sounds) and only while they work."""
import sys
import time
from pathlib import Path

import pytest

qi = pytest.importorskip("qi")

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "test" / "core"))
sys.path.insert(0, str(REPO / "test" / "sim"))
from core_builders import behavior, flow_box, link, script_box  # noqa: E402
from test_sim_services_context import FakeSim, wait_until  # noqa: E402

from naoqi_qicore.converter.loader import prepare  # noqa: E402
from naoqi_qicore.robot.sim import SimulatedRobot  # noqa: E402
from naoqi_qicore.robot.sim.scenario import parse_scenario  # noqa: E402
from naoqi_qicore.robot.sim.services import perception  # noqa: E402
from naoqi_qicore.xar.model import Port  # noqa: E402

MEMORY_INPUT = 4  # the nature of an input connected to ALMemory

#: what the standard Face Reco. box does with its FaceDetected input: the names of the
#: time-filtered recognition ([2, [name]] or [3, [names]]) go out; it subscribes to nothing
FACE_RECO = """
def onInput_FaceDetected(self, p):
    if len(p) > 0 and len(p[1]) > 0:
        filtered = p[1][len(p[1]) - 1]
        if len(filtered) == 2 and filtered[0] in [2, 3]:
            for name in filtered[1]:
                ALProxy("ALMemory").insertData("Test/Recognized", name)
            self.onStopped()
"""


def face_reco_behavior():
    box = script_box("Face Reco.", 1, FACE_RECO, extra_inputs=[
        Port("FaceDetected", 0, 1, MEMORY_INPUT, 5, inner=1, stm_value_name="FaceDetected")])
    return behavior(flow_box("root", -1, [box], [link(0, 2, 1, 2), link(1, 4, 0, 4)]))


@pytest.fixture
def nao():
    robot = SimulatedRobot("nao", listen="tcp://127.0.0.1:0").start()
    session = qi.Session()
    session.connect(robot.url)
    yield robot, session
    session.close()
    robot.stop()


class Collected(list):
    """The values an ALMemory key takes from now on (growing in the background, while this
    list holds its subscriber)."""

    def __init__(self, session, key):
        super().__init__()
        self.subscriber = session.service("ALMemory").subscriber(key)
        self.subscriber.signal.connect(self.append)




def play_face_reco(robot, session, scenario_text):
    from naoqi_qicore.core import BehaviorPlayer
    from naoqi_qicore.robot.naoqi_compat import box_environment
    player = BehaviorPlayer(prepare(face_reco_behavior()), session,
                            environment=box_environment)
    player.load()
    player.play()
    runner = robot.play_scenario(parse_scenario(scenario_text))
    return player, runner


def test_a_face_reco_box_gets_the_face_a_scenario_shows_under_autonomous_life(nao):
    robot, session = nao
    assert session.service("ALAutonomousLife").getState() == "solitary"
    session.service("ALFaceDetection").learnFace("Ada")
    player, runner = play_face_reco(robot, session, "- wait: 0.3\n- face: Ada\n")
    try:
        assert player.wait(10), "the box never got the face"
        assert player.status == "FINISHED" and player.errors == []
        assert session.service("ALMemory").getData("Test/Recognized") == "Ada"
    finally:
        player.unload()
        runner.stop()


def test_with_autonomous_life_disabled_nothing_detects_faces(nao):
    robot, session = nao
    session.service("ALAutonomousLife").setState("disabled")
    session.service("ALFaceDetection").learnFace("Ada")
    player, runner = play_face_reco(robot, session, "- face: Ada\n")
    try:
        assert not player.wait(1.5)  # as on a robot: nothing runs face detection
        assert "reported once it is" in robot.perception.showFace("Ada")
    finally:
        player.unload()
        runner.stop()


def test_extractors_follow_autonomous_life_and_basic_awareness(nao):
    robot, session = nao
    faces = session.service("ALFaceDetection")
    people = session.service("ALPeoplePerception")
    sounds = session.service("ALSoundLocalization")
    life = session.service("ALAutonomousLife")
    awareness = session.service("ALBasicAwareness")
    assert awareness.isAwarenessRunning()
    assert people.getSubscribersInfo() == [["ALBasicAwareness", 30, 1.0]]
    assert faces.getSubscribersInfo() == [["ALPeoplePerception", 30, 1.0]]
    assert [s[0] for s in sounds.getSubscribersInfo()] == ["ALBasicAwareness"]
    awareness.setStimulusDetectionEnabled("Sound", False)
    assert sounds.getSubscribersInfo() == [] and not sounds.isProcessing()
    life.setAutonomousAbilityEnabled("BasicAwareness", False)
    assert not awareness.isEnabled() and not faces.isProcessing()
    life.setAutonomousAbilityEnabled("BasicAwareness", True)
    assert faces.isProcessing()
    life.setState("disabled")
    assert not awareness.isAwarenessRunning() and not faces.isProcessing()
    assert {a["name"]: a["running"] for a in life.getAutonomousAbilitiesStatus()}[
        "BasicAwareness"] is False
    life.setState("solitary")
    assert faces.isProcessing()
    people.setFaceDetectionEnabled(False)
    assert not faces.isProcessing() and people.isProcessing()
    faces.subscribe("Application")  # an application's own subscription still counts
    assert faces.isProcessing()
    faces.pause(True)
    assert faces.isPaused() and not faces.isProcessing()


def test_face_characteristics_work_on_people_perception(nao):
    robot, session = nao
    session.service("ALAutonomousLife").setState("disabled")
    people = session.service("ALPeoplePerception")
    assert not people.isProcessing()
    session.service("ALFaceCharacteristics").subscribe("App")
    assert [s[0] for s in people.getSubscribersInfo()] == ["ALFaceCharacteristics"]
    session.service("ALFaceCharacteristics").unsubscribe("App")
    assert not people.isProcessing()


def test_faces_people_and_words_reach_memory_without_an_application_subscribing(nao):
    robot, session = nao
    seen = {key: Collected(session, key) for key in (
        "FaceDetected", "PeoplePerception/PeopleDetected", "ALSoundLocalization/SoundLocated",
        "ALBasicAwareness/HumanTracked")}
    robot.perception.people(1)
    robot.perception.showFace("")
    robot.perception.sound(0.5)
    assert wait_until(lambda: all(seen.values()), 5), seen
    assert seen["ALBasicAwareness/HumanTracked"][0] == 1
    assert seen["ALSoundLocalization/SoundLocated"][0][1][0] == 0.5
    assert seen["FaceDetected"][0][1][0][1][2] == ""  # a stranger


def test_time_filtered_recognition_names_a_face_once_and_an_unknown_one_after_8_s():
    sim = FakeSim("nao")
    now = [100.0]
    sim.clock = lambda: now[0]
    faces = sim.service("ALFaceDetection")
    faces.learnFace("Ada")
    faces.subscribe("test")

    def seen(name, after):
        now[0] += after
        faces.simulateFace(name, 0.0, 0.0)
        return sim.memory.getData("FaceDetected")[1][-1]

    assert seen("Ada", 0.0) == [2, ["Ada"]]
    assert seen("Ada", 0.5) == []  # already given while faces are in view
    assert seen("Ada", perception.FORGET_AFTER_S + 0.1) == [2, ["Ada"]]  # forgotten, again
    assert seen("", 1.0) == []  # a stranger, seen every second...
    for _ in range(int(perception.UNKNOWN_AFTER_S) - 1):
        assert seen("", 1.0) == []
    assert seen("", 1.0) == [4]  # ...for 8 s without being recognised
    assert seen("", 1.0) == []  # said once
    faces.setRecognitionEnabled(False)
    assert seen("Ada", perception.FORGET_AFTER_S + 1) == []
    faces.pause(True)
    count = len(sim.memory.values("FaceDetected"))
    seen("Ada", 0.1)
    assert len(sim.memory.values("FaceDetected")) == count  # a paused extractor is silent
    sim.close()


def test_landmarks_are_reported_while_landmark_detection_works(nao):
    robot, session = nao
    values = Collected(session, "LandmarkDetected")
    runner = robot.play_scenario(parse_scenario("- landmark: [64, 68]\n"))
    assert runner.wait(5)
    time.sleep(0.7)
    assert values == []  # nothing runs landmark detection by itself
    detection = session.service("ALLandMarkDetection")
    detection.subscribe("NaoMark", 500, 0.0)
    assert wait_until(lambda: len(values) >= 2, 5)  # repeated while in view
    stamp, marks, torso, robot_pose, camera = values[0]
    assert [mark[1] for mark in marks] == [[64], [68]] and camera == "CameraTop"
    assert len(marks[0][0]) == 6 and len(torso) == 6
    assert robot.perception.landmark([]) == "no mark in view: LandmarkDetected []"
    assert wait_until(lambda: values[-1] == [])
    detection.unsubscribe("NaoMark")
    assert not detection.isProcessing()


def test_words_heard_are_located_sounds_for_basic_awareness(nao):
    robot, session = nao
    located = Collected(session, "ALSoundLocalization/SoundLocated")
    robot.perception.hear("hello")
    assert wait_until(lambda: located, 5)
    assert located[0][1][0] == 0.0 and len(located[0][0]) == 2  # from the front, stamped
    assert session.service("ALMemory").getData("ALBasicAwareness/StimulusDetected") == "Sound"
