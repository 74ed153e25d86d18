"""The services as libqi sees them: registered in a real qi.Session on loopback through the
robot's recording facade, called from another session (optional arguments, errors,
post-style tasks, deferred results and signals cross the wire)."""
import os
import sys
import time

import pytest

qi = pytest.importorskip("qi")

sys.path.insert(0, os.path.dirname(__file__))
from test_sim_services_context import FakeSim, wait_until  # noqa: E402

from naoqi_qicore.robot.sim.facade import recording_facade  # noqa: E402
from naoqi_qicore.robot.sim.recorder import CallRecord  # noqa: E402
from naoqi_qicore.robot.sim.services import services_for, speech  # noqa: E402


@pytest.fixture(scope="module")
def robot():
    context = FakeSim("pepper")
    server = qi.Session()
    server.listenStandalone("tcp://127.0.0.1:0")
    record = CallRecord()
    for name in services_for("pepper"):
        server.registerService(name, recording_facade(name, context.service(name), record))
    client = qi.Session()
    client.connect(server.endpoints()[0])
    yield context, client
    client.close()
    context.close()
    server.close()


def test_every_service_is_reachable(robot):
    context, client = robot
    for name in services_for("pepper"):
        assert client.service(name).ping() is True


def test_optional_arguments_and_errors_cross_the_wire(robot, monkeypatch):
    context, client = robot
    monkeypatch.setattr(speech, "SECONDS_PER_CHARACTER", 0.001)
    tts = client.service("ALTextToSpeech")
    tts.say("hello")
    tts.say("bonjour", "French")
    assert context.memory.getData("ALTextToSpeech/CurrentSentence") == "bonjour"
    with pytest.raises(RuntimeError, match="ALTextToSpeech::say: argument 1"):
        tts.say(3)
    with pytest.raises(RuntimeError, match="language 'Klingon' is not installed"):
        tts.setLanguage("Klingon")


def test_post_tasks_and_signals_cross_the_wire(robot):
    context, client = robot
    leds = client.service("ALLeds")
    task = leds.pCall("fadeRGB", "FaceLeds", 0xFF0000, 0.3)
    assert leds.isRunning(task)
    leds.stop(task)
    assert leds.wait(task, 1000) is False
    tablet = client.service("ALTabletService")
    touches = []
    tablet.onTouchDown.connect(lambda x, y: touches.append((x, y)))
    tablet.simulateTouch(10.0, 20.0)
    assert wait_until(lambda: touches == [(10.0, 20.0)])
    with pytest.raises(RuntimeError, match="no service named 'app.main'"):
        client.service("ALServiceManager").startService("app.main")
    frames = client.service("ALFrameManager")
    behavior = frames.newBehavior("/data/apps/x", "")
    assert frames.getBehaviorPath(behavior) == "/data/apps/x"


def test_a_services_signal_that_goes_with_an_event_reaches_clients(robot):
    """A client connects to ALPeoplePerception.justArrived; the robot raising
    PeoplePerception/JustArrived (a scenario's people, or the event itself) fires it."""
    context, client = robot
    arrived = []
    client.service("ALPeoplePerception").justArrived.connect(arrived.append)
    person = context.service("ALPeoplePerception").simulatePersonArrives(1.5)
    context.service("ALMemory").raiseEvent("PeoplePerception/JustArrived", 42)
    # two emissions may reach the client's callbacks in either order (libqi's threads)
    assert wait_until(lambda: sorted(arrived) == sorted([person, 42]), timeout=10.0)


def test_a_private_naoqi_method_is_called_and_recorded_by_its_name():
    """``ALAnimatedSpeech._stopAll``: clients call it by its NAOqi name, and the call record
    names it so."""
    context = FakeSim("pepper")
    server, client = qi.Session(), qi.Session()
    record = CallRecord()
    try:
        server.listenStandalone("tcp://127.0.0.1:0")
        server.registerService("ALAnimatedSpeech", recording_facade(
            "ALAnimatedSpeech", context.service("ALAnimatedSpeech"), record))
        client.connect(server.endpoints()[0])
        assert client.service("ALAnimatedSpeech")._stopAll(True) is None
        assert [(call["service"], call["method"]) for call in record.since()] == [
            ("ALAnimatedSpeech", "_stopAll")]
    finally:
        client.close()
        server.close()
        context.close()


def test_image_buffers_cross_the_wire(robot):
    _, client = robot
    video = client.service("ALVideoDevice")
    handle = video.subscribeCamera("remote", 0, 0, 13, 5)
    image = video.getImageRemote(handle)
    assert list(image[:4]) == [160, 120, 3, 13] and len(image[6]) == 160 * 120 * 3
    assert isinstance(image[6], (bytes, bytearray))
    assert video.unsubscribe(handle)


def test_the_choice_box_private_topic_loader_crosses_the_wire(robot):
    # Choregraphe's Choice box writes a topic named with a UUID and loads it this way
    context, client = robot
    name = "dlg_choice_4b04ad1f-5782-401b_grg"
    behavior = context.files.local("/home/nao/app/behavior_1").path
    behavior.mkdir(parents=True)
    (behavior / "choice.top").write_text(
        "topic: ~%s () \nlanguage: grg \ndynamic: choices4b04ad1f-5782-401b\n"
        "u:(in:onActivation) ~question \n\tu1:(~choices4b04ad1f-5782-401b) $test=0 \n" % name)
    dialog = client.service("ALDialog")
    # the behavior's folder as the box sees it: this machine's path of the robot's files
    assert dialog._addDialogFromTopicBox("choice.top", str(behavior)) == name
    assert dialog._addDialogFromTopicBox("choice.top", "/home/nao/app/behavior_1") == name
    assert dialog._addDialogFromTopicBox("/home/nao/app/behavior_1/choice.top",
                                         "/elsewhere") == name
    assert name in dialog.getAllLoadedTopics()
    with pytest.raises(RuntimeError, match="ALDialog::_addDialogFromTopicBox: file"):
        dialog._addDialogFromTopicBox("missing.top", str(behavior))
    with pytest.raises(RuntimeError, match="'../../../etc/passwd' is outside the robot's"):
        dialog._addDialogFromTopicBox("../../../etc/passwd", "/home/nao/app")
    dialog.unloadTopic(name)


def test_queued_sentences_hold_no_thread_and_stop_all_throws_them(robot, monkeypatch):
    """A client's say returns when its sentence is spoken, but sentences waiting their turn
    hold no thread of the robot (posted or called), and stopAll ends them all at once."""
    psutil = pytest.importorskip("psutil")
    context, client = robot
    monkeypatch.setattr(speech, "SECONDS_PER_CHARACTER", 0.05)
    tts = client.service("ALTextToSpeech")
    process = psutil.Process()
    before = process.num_threads()
    called = [tts.say("sentence number %d" % index, _async=True) for index in range(30)]
    posted = [tts.pCall("say", "posted sentence %d" % index) for index in range(30)]
    assert wait_until(lambda: context.memory.data.get("ALTextToSpeech/TextStarted") == 1)
    time.sleep(0.3)
    assert process.num_threads() < before + 5
    assert all(tts.isRunning(task) for task in posted)
    tts.stopAll()
    for future in called:
        future.wait(2000)
        assert future.isFinished() and not future.hasError()
    assert not any(tts.isRunning(task) for task in posted)
    statuses = [status for _, status in context.memory.values("ALTextToSpeech/Status")]
    assert statuses.count("thrown") == 59 and statuses.count("stopped") == 1
    began = time.monotonic()
    tts.say("next")
    assert time.monotonic() - began < 1.0


def test_a_cancelled_say_leaves_the_queue(robot, monkeypatch):
    context, client = robot
    monkeypatch.setattr(speech, "SECONDS_PER_CHARACTER", 0.05)
    tts = client.service("ALTextToSpeech")
    speaking = tts.say("a long sentence " * 10, _async=True)
    assert wait_until(lambda: context.memory.data.get("ALTextToSpeech/TextStarted") == 1)
    waiting = tts.say("never said", _async=True)
    waiting.cancel()  # the robot is asked to cancel it, and answers
    waiting.wait(2000)
    assert waiting.isFinished()
    speaking.cancel()
    speaking.wait(2000)
    assert speaking.isFinished()
    assert "never said" not in context.memory.values("ALTextToSpeech/CurrentSentence")
    began = time.monotonic()
    tts.say("next")
    assert time.monotonic() - began < 1.0
