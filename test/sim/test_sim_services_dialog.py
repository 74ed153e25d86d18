"""ALSpeechRecognition, ALDialog and the QiChat subset of the simulated robot."""
import os
import sys

import pytest

from naoqi_qicore.robot.sim.services import qichat, speech

sys.path.insert(0, os.path.dirname(__file__))
from test_sim_services_context import sim  # noqa: E402,F401  (fixtures)

TOPIC = """topic: ~greetings()
language: enu
concept:(hello) [hi hello "good morning"]
dynamic: fruit
u:(~hello {robot}) Hello human! $greeted=1
u:(I like ~fruit) ^start(animations/Stand/Gestures/Yes_1) Me too
u:(what is your name *) My name is Nao
proposal: Do you like fruit?
"""


@pytest.fixture(autouse=True)
def fast_speech(monkeypatch):
    monkeypatch.setattr(speech, "SECONDS_PER_CHARACTER", 0.001)


@pytest.fixture
def topic_file(sim):
    """A topic of the robot's files: its robot path."""
    sim.files.local("/home/nao/greetings_enu.top").path.write_text(TOPIC)
    return "/home/nao/greetings_enu.top"


def test_speech_recognition_vocabulary_and_word_recognized(sim):
    asr = sim.service("ALSpeechRecognition")
    asr.setLanguage("French")
    asr.setVocabulary(["oui", "non"], False)
    assert asr.simulateRecognition("oui", 0.7) is False  # nobody subscribed
    asr.subscribe("Test_ASR")
    assert sim.memory.values("ALSpeechRecognition/Status") == ["ListenOn"]
    assert asr.simulateRecognition("Oui", 0.7) is True
    assert sim.memory.getData("WordRecognized") == ["oui", 0.7]
    assert asr.simulateRecognition("peut-être", 0.7) is False
    assert sim.memory.getData("WordRecognized") == ["", 0.0]
    with pytest.raises(RuntimeError, match="running; call pause"):
        asr.setVocabulary(["a"], False)
    asr.pause(True)
    asr.pushContexts()
    asr.setVocabulary(["bonjour"], True)
    asr.pause(False)
    assert asr.simulateRecognition("bonjour robot", 0.6)
    assert sim.memory.getData("WordRecognized") == ["<...> bonjour <...>", 0.6]
    asr.pause(True)
    asr.popContexts()
    asr.pause(False)
    assert asr.simulateRecognition("non", 0.5)
    asr.unsubscribe("Test_ASR")
    assert sim.memory.values("ALSpeechRecognition/Status")[-1] == "Idle"
    with pytest.raises(RuntimeError, match="module 'Test_ASR' is not subscribed"):
        asr.unsubscribe("Test_ASR")


def test_dialog_topics_lifecycle(sim, topic_file):
    dialog = sim.service("ALDialog")
    name = dialog.loadTopic(topic_file)
    assert name == "greetings"
    assert dialog.getLoadedTopics("English") == ["greetings"]
    dialog.activateTopic(name)
    assert dialog.getActivatedTopics() == ["greetings"]
    with pytest.raises(RuntimeError, match="topic 'greetings' is still activated"):
        dialog.unloadTopic(name)
    dialog.deactivateTopic(name)
    dialog.unloadTopic(name)
    assert dialog.getAllLoadedTopics() == []
    with pytest.raises(RuntimeError, match="topic 'greetings' is not loaded"):
        dialog.activateTopic(name)
    with pytest.raises(RuntimeError, match="does not exist"):
        dialog.loadTopic(topic_file + ".missing")


def test_dialog_answers_forced_inputs(sim, topic_file):
    dialog = sim.service("ALDialog")
    dialog.activateTopic(dialog.loadTopic(topic_file))
    dialog.forceInput("hello")  # not subscribed: only the event
    assert sim.memory.getData("Dialog/LastInput") == "hello"
    assert sim.memory.values("Dialog/Answered") == []
    dialog.subscribe("my_dialog")
    dialog.forceInput("Good morning robot")
    assert sim.memory.getData("Dialog/Answered") == "Hello human!"
    assert sim.memory.getData("ALTextToSpeech/CurrentSentence") == "Hello human!"
    assert sim.memory.getData("greeted") == "1"
    dialog.forceInput("I like mangoes")
    assert sim.memory.getData("Dialog/NotUnderstood") == "I like mangoes"
    dialog.setConcept("fruit", "English", ["mangoes", "kiwis"])
    dialog.forceInput("I like mangoes")
    assert sim.memory.getData("Dialog/Answered") == "Me too"
    dialog.forceInput("what is your name please")
    assert sim.memory.getData("Dialog/Answered") == "My name is Nao"
    dialog.forceOutput()
    assert sim.memory.getData("Dialog/Answered") == "Do you like fruit?"
    with pytest.raises(RuntimeError, match="no proposal"):
        dialog.forceOutput()
    dialog.stopDialog()
    assert sim.memory.getData("Dialog/IsStarted") == 0


def test_an_outputs_variables_are_set_where_they_stand_in_it(sim, monkeypatch):
    """A variable before the answer's words is set when it starts, one after them once they
    are said: a Dialog box stopped by ``$onStopped=1`` lets its goodbye be said first."""
    written = []
    for method in ("insertData", "raiseEvent"):
        original = getattr(sim.memory, method)
        monkeypatch.setattr(sim.memory, method, lambda key, value, original=original: (
            written.append((key, value)), original(key, value))[-1])
    dialog = sim.service("ALDialog")
    dialog.activateTopic(dialog.loadTopicContent(
        "topic: ~bye()\nlanguage: enu\nu:(bye) $leaving=1 Goodbye $name! $onStopped=1\n"
        "u:(stay) $staying=1\n"))
    dialog.subscribe("bye")
    sim.memory.insertData("name", "Ada")
    dialog.forceInput("stay")
    dialog.forceInput("bye")
    said = [key for key, value in written if key in ("leaving", "onStopped", "staying") or (
        key == "ALTextToSpeech/TextDone" and value == 1)]
    assert said == ["staying", "leaving", "ALTextToSpeech/TextDone", "onStopped"]
    assert sim.memory.getData("Dialog/Answered") == "Goodbye Ada!"


def test_sub_rules_answer_right_after_their_rule(sim):
    dialog = sim.service("ALDialog")
    dialog.activateTopic(dialog.loadTopicContent(
        "topic: ~menu-2 ()\nlanguage: enu\nu:(order) Tea or coffee?\n"
        "    u1:([tea coffee]) Good choice\n        u2:(sugar) One lump\n"
        "u:(tea) Tea is only after an order\n"))
    dialog.subscribe("menu")
    for heard, answer in [("tea", "Tea is only after an order"), ("order", "Tea or coffee?"),
                          ("tea", "Good choice"), ("sugar", "One lump"),
                          ("tea", "Tea is only after an order")]:
        dialog.forceInput(heard)
        assert sim.memory.getData("Dialog/Answered") == answer, heard
    dialog.forceInput("sugar")
    assert sim.memory.getData("Dialog/NotUnderstood") == "sugar"
    dialog.activateTopic(dialog.loadTopicContent(
        "topic: ~ask()\nlanguage: enu\nproposal: Hungry?\n    u1:(yes) Have a biscuit\n"
        "u:^private(hungry) Always\n"))
    dialog.setFocus("ask")
    dialog.forceOutput()
    dialog.forceInput("yes")
    assert sim.memory.getData("Dialog/Answered") == "Have a biscuit"
    dialog.forceInput("hungry")
    assert sim.memory.getData("Dialog/Answered") == "Always"
    with pytest.raises(qichat.TopicError, match="line 3: u2: without a u1: rule above it"):
        qichat.parse_topic("topic: ~t()\nu:(a) b\nu2:(c) d")


def test_dialog_language_and_threshold(sim):
    dialog = sim.service("ALDialog")
    dialog.setLanguage("French")
    assert dialog.getLanguage() == "French"
    with pytest.raises(RuntimeError, match="language 'Elvish' is not installed"):
        dialog.setLanguage("Elvish")
    dialog.setASRConfidenceThreshold(0.3)
    assert dialog.getASRConfidenceThreshold() == pytest.approx(0.3)
    with pytest.raises(RuntimeError, match="threshold must be in"):
        dialog.setASRConfidenceThreshold(3)


def test_dialog_converts_language_names_and_qichat_codes(sim):
    """An application asks ALDialog the QiChat code of the robot's language to pick its
    topic files (``convertLongToNU(getLanguage())``), and the other way round."""
    dialog = sim.service("ALDialog")
    assert dialog.convertLongToNU(dialog.getLanguage()) == "enu"
    assert [dialog.convertLongToNU(name) for name in ("French", "Japanese", "German")] == \
        ["frf", "jpj", "ged"]
    assert dialog.convertNUToLong("frf") == "French"
    names = dialog.getLanguageListNUToLong()
    assert names["enu"] == "English" and dialog.getLanguageListLongToNU()["Chinese"] == "mnc"
    # every language the robot has installed converts both ways
    assert sorted(names.values()) == sorted(speech.INSTALLED_LANGUAGES)
    assert all(dialog.convertNUToLong(dialog.convertLongToNU(name)) == name
               for name in speech.INSTALLED_LANGUAGES)
    with pytest.raises(RuntimeError, match="convertLongToNU: unknown language 'Elvish'"):
        dialog.convertLongToNU("Elvish")
    with pytest.raises(RuntimeError, match="convertNUToLong: unknown language code 'xx'"):
        dialog.convertNUToLong("xx")


TAGGED = """topic: ~survey()
language: enu
u:(_~numbers) %score thanks for $1
u:(hello) hi ^deactivate(greeting)
u:(hello) %greeting hello again
proposal: %QUESTION How do you rate us?
proposal: %BYE Goodbye
"""


def test_dialog_tags_switch_rules_and_say_proposals(sim):
    """activateTag/deactivateTag switch the rules tagged so (u: rules too, as ^activate and
    ^deactivate do); gotoTag(tag, topic) says the tagged proposal, as often as asked."""
    dialog = sim.service("ALDialog")
    dialog.setConcept("numbers", "English", ["one", "two"])
    topic = dialog.loadTopicContent(TAGGED.replace("~numbers", "~numbers_dyn").replace(
        "language: enu\n", "language: enu\ndynamic: numbers_dyn\n"))
    dialog.setConcept("numbers_dyn", "English", ["one", "two"])
    dialog.activateTopic(topic)
    dialog.subscribe("survey")
    dialog.deactivateTag("score", topic)
    dialog.forceInput("two")
    assert sim.memory.getData("Dialog/NotUnderstood") == "two"
    dialog.activateTag("score", topic)
    dialog.forceInput("two")
    assert sim.memory.getData("Dialog/Answered") == "thanks for two"
    dialog.forceInput("hello")
    dialog.forceInput("hello")  # the first answer switched its tagged sibling off
    assert sim.memory.values("Dialog/Answered")[-2:] == ["hi", "hi"]
    for _ in range(2):
        dialog.gotoTag("QUESTION", topic)
        assert sim.memory.getData("Dialog/Answered") == "How do you rate us?"
    dialog.gotoTag("BYE", topic)
    assert sim.memory.getData("Dialog/Answered") == "Goodbye"
    with pytest.raises(RuntimeError, match="gotoTag: topic 'survey' has no proposal tagged "
                                           "'score'"):
        dialog.gotoTag("score", topic)
    with pytest.raises(RuntimeError, match="deactivateTag: topic 'other' is not loaded"):
        dialog.deactivateTag("score", "other")


def test_bad_topics_name_the_line(sim):
    with pytest.raises(qichat.TopicError, match="line 1: expected 'topic"):
        qichat.parse_topic("u:(hi) hello")
    with pytest.raises(qichat.TopicError, match=r"line 3: unclosed '\['"):
        qichat.parse_topic("topic: ~t()\nlanguage: enu\nu:([hi hello) hey")
    with pytest.raises(RuntimeError, match=r"ALDialog::loadTopicContent: <content>: line 2"):
        sim.service("ALDialog").loadTopicContent("topic: ~t()\nnonsense here")
