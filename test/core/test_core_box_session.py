"""Box code reaching the robot as it did on NAOqi: ``self.session()``, ``qi.Session()``,
``ALProxy`` with an address, ALMemory callbacks into boxes (naoqi_compat.box_session)."""
import time

import pytest

from naoqi_qicore.core.environment import BehaviorContext
from naoqi_qicore.robot.naoqi_compat.box_session import (BoxSession, LocalSubscriptions,
                                                         is_robot_itself)
from naoqi_qicore.robot.naoqi_compat.robot_work import RobotWork

from core_builders import flow_box, link, script_box

qi = pytest.importorskip("qi")


def one_box(code: str):
    box = script_box("Box", 1, code)
    return flow_box("root", -1, [box], [link(0, 2, 1, 2), link(1, 4, 0, 4)])


def logged(harness, matches, seconds: float = 10.0) -> bool:
    """Whether an entry ``matches`` reaches the box log within ``seconds`` (box callbacks
    run in threads of their own)."""
    end = time.monotonic() + seconds
    while not any(matches(entry) for entry in list(harness.log)):
        if time.monotonic() > end:
            return False
        time.sleep(0.01)
    return True


def test_the_robots_own_address_is_the_robot():
    assert is_robot_itself("tcp://127.0.0.1:9559")
    assert is_robot_itself("tcp://localhost")
    assert is_robot_itself("127.0.0.1:9559")
    assert not is_robot_itself("tcp://127.0.0.1:9600")
    assert not is_robot_itself("tcp://192.168.1.10:9559")


def test_connect_to_the_robot_itself_reaches_the_behaviors_robot():
    connected = []

    class Inner:
        def connect(self, url):
            connected.append(url)

    class Robot:
        def url(self):
            return "tcp://10.0.0.5:40000"

    context = BehaviorContext(Robot(), None, "behavior-1", "/tmp")
    session = BoxSession(Inner(), context, LocalSubscriptions(context),
                         RobotWork(Robot(), context.guard))
    session.connect("tcp://127.0.0.1:9559")
    session.connect("tcp://192.168.1.10:9559")
    assert connected == ["tcp://10.0.0.5:40000", "tcp://192.168.1.10:9559"]


def test_memory_events_reach_a_box_through_its_session(make_harness, robot):
    """The Speech Reco. box idiom: ALMemory of ``self.session()`` calls the box back by
    its name, and unsubscribing works (the robot never hears of the box)."""
    simulated, session = robot
    harness = make_harness(one_box("""
def onInput_onStart(self):
    self.memory = self.session().service("ALMemory")
    self.memory.subscribeToEvent("WordRecognized", self.getName(), "onWord")
    record(self.getName(), "subscribed")
def onWord(self, key, value, message):
    record(self.getName(), "word", key, value)
    self.memory.unsubscribeToEvent("WordRecognized", self.getName())
    record(self.getName(), "unsubscribed")
"""), session=session, naoqi=True)
    harness.player.load()
    harness.player.play()
    harness.settle()
    assert [entry[1] for entry in harness.log] == ["subscribed"]
    session.service("ALMemory").raiseEvent("WordRecognized", ["hello", 0.9])
    assert logged(harness, lambda entry: entry[1] == "unsubscribed")
    assert ("l1_Box", "word", "WordRecognized", ["hello", 0.9]) in harness.log
    assert harness.kinds("error") == []
    assert session.service("ALMemory").getSubscribers("WordRecognized") == []


def test_subscribing_to_an_extractor_event_starts_the_extractor(make_harness, robot):
    """As on NAOqi, a box subscribing to WordRecognized with ALMemory.subscribeToEvent has
    the speech recognition working for it (Speech Reco. and Choice boxes rely on it) until
    it unsubscribes from all its events, or the behavior is unloaded."""
    simulated, session = robot
    harness = make_harness(one_box("""
def onInput_onStart(self):
    self.memory = ALProxy("ALMemory")
    ALProxy("ALSpeechRecognition").setVocabulary(u"oui/non".encode("utf-8").split("/"), False)
    for event in ("WordRecognized", "SpeechDetected", "FaceDetected"):
        self.memory.subscribeToEvent(event, self.getName(), "onEvent")
    record(self.getName(), "subscribed")
def onEvent(self, key, value, message):
    if key == "WordRecognized":  # recorded once done: the stop below cannot cut it short
        self.memory.unsubscribeToEvent("WordRecognized", self.getName())
        record(self.getName(), "word", str(value[0]))
def onUnload(self):
    self.memory.unsubscribeToEvent("SpeechDetected", self.getName())
"""), session=session, naoqi=True)
    asr, faces = session.service("ALSpeechRecognition"), session.service("ALFaceDetection")
    session.service("ALAutonomousLife").setState("disabled")  # only the box runs extractors
    harness.player.load()
    harness.player.play()
    harness.settle()
    assert [info[0] for info in asr.getSubscribersInfo()] == ["l1_Box"]
    assert [info[0] for info in faces.getSubscribersInfo()] == ["l1_Box"]
    assert asr.simulateRecognition("non", 0.8)
    assert logged(harness, lambda entry: entry == ("l1_Box", "word", "non"))
    assert [info[0] for info in asr.getSubscribersInfo()] == ["l1_Box"]  # SpeechDetected
    harness.player.stop()
    harness.settle()
    assert asr.getSubscribersInfo() == []
    assert [info[0] for info in faces.getSubscribersInfo()] == ["l1_Box"]
    harness.player.unload()
    assert faces.getSubscribersInfo() == []
    assert harness.kinds("error") == []


def test_scripts_connecting_to_localhost_reach_the_robot(make_harness, robot):
    simulated, session = robot
    session.service("ALMemory").insertData("Box/Value", 42)
    harness = make_harness(one_box("""
def onInput_onStart(self):
    import qi.path
    own = qi.Session()
    own.connect("tcp://127.0.0.1:9559")
    proxy = ALProxy("ALMemory", "127.0.0.1", 9559)
    record(self.getName(), "values", own.service("ALMemory").getData("Box/Value"),
           proxy.getData("Box/Value"), self.session().service("ALFrameManager") is ALFrameManager,
           qi.Session is not None and hasattr(qi, "path"))
    own.close()
    self.onStopped()
"""), session=session, naoqi=True)
    harness.player.load()
    harness.player.play()
    assert harness.player.wait(10)
    assert harness.kinds("error") == []
    assert ("l1_Box", "values", 42, 42, True, True) in harness.log

