"""Scenarios: reading and checking them, and what they make the simulated robot perceive,
seen by a client as a behavior sees it (ALMemory events, tablet signals)."""
import re
import threading
import time

import pytest

from naoqi_qicore.robot.sim import scenario as scenario_module
from naoqi_qicore.robot.sim.scenario import (ScenarioError, is_yes_no_question, load_scenario,
                                             parse_scenario)
from naoqi_qicore.robot.sim.senses import example_input
from naoqi_qicore.robot.sim.services import speech

qi = pytest.importorskip("qi")
from naoqi_qicore.robot.sim import SimulatedRobot  # noqa: E402

pytestmark = pytest.mark.long_running(minutes=0.5)


# -- reading ----------------------------------------------------------------------------------
def test_a_scenario_file_is_read_into_steps(tmp_path):
    path = tmp_path / "talk.yaml"
    path.write_text("""
name: talk
seed: 3
steps:
  - at: 1.5
    face: Ada
    people: 2
  - after_say: "what is your (name|surname)"
    wait: 0.5
    hear: yes
  - on_event: {key: Dialog/IsStarted, value: 1}
    hear: {text: "I like tea", confidence: 0.6, wait: 3}
  - on_call: ALTabletService.show*
    tablet_touch: [640, 400]
    tablet_event: {myapp/clicked: 1}
  - touch: head
    sonar: {left: 0.4}
    raise: {key: Custom/Key, value: [1, 2]}
    face: false
  - hear: hello
    do: [{touch: head}, {wait: 1}, {touch: head}]
""")
    scenario = load_scenario(path, "pepper")
    assert (scenario.name, scenario.seed, scenario.generic) == ("talk", 3, False)
    assert [step.trigger[0] if step.trigger else None for step in scenario.steps] == [
        "at", "after_say", "on_event", "on_call", None, None]
    # actions keep the order they are written in; "yes" stays a word
    assert [kind for kind, _ in scenario.steps[1].actions] == ["wait", "hear"]
    assert scenario.steps[1].actions[1][1] == {"text": "yes", "confidence": 0.75, "wait": 10.0}
    assert scenario.steps[2].actions[0][1] == {"text": "I like tea", "confidence": 0.6,
                                               "wait": 3.0}
    assert scenario.steps[4].actions[-1] == ("face", None)
    assert [kind for kind, _ in scenario.steps[5].actions] == ["hear", "touch", "wait", "touch"]
    assert scenario.steps[1].describe() == "step 2 (after_say 'what is your (name|surname)')"
    assert load_scenario("generic").generic


@pytest.mark.parametrize("text, message", [
    ("", "the scenario is empty"),
    ("steps: []", "the scenario has no steps"),
    ("- hear: [yes\n", ":2: not valid YAML"),
    ("hello", "expected a list of steps or a mapping with 'steps', got a string"),
    ("{steps: [{hear: hi}], speed: 2}", "unknown key 'speed' (a scenario has steps"),
    ("- heer: hi", "step 1: unknown key 'heer' (did you mean 'hear'?)"),
    ("- hear: hi\n- at: 1\n  on_event: X", "step 2: two triggers (at and on_event)"),
    ("- hear: hi\n- 3", "step 2: a step is a mapping of a trigger and actions"),
    ("- at: -1\n  hear: hi", "step 1: at must be a number >= 0, got -1"),
    ("- touch: nose", "step 1: touch: unknown part 'nose'"),
    ("- touch: heda", "(did you mean 'head'?)"),
    ("- hear: ''", "step 1: hear must be a non-empty text"),
    ("- hear: {txt: hi}", "step 1: hear: unknown field 'txt' (fields: text, confidence, wait)"),
    ("- hear: {text: hi, confidence: 2}", "hear confidence must be a number in [0, 1]"),
    ("- face: ''", "step 1: face must be a name, true (a stranger), false (no face)"),
    ("- people: many", "step 1: people must be a count in [0, 100]"),
    ("- at: %s\n  hear: hi" % ("9" * 400), "step 1: at must be a number >= 0, got a number "
                                           "of 400 digits"),
    ("- hear: !!int hello", ":1: 'hello' cannot be read as int"),
    ("- at: !!float soon\n  hear: hi", ":1: 'soon' cannot be read as float"),
    ("- face: !!bool maybe", ":1: 'maybe' cannot be read as bool"),
    ("- at: !!timestamp never", ":1: 'never' cannot be read as timestamp"),
    ("- people: %s" % ("9" * 5000), ":1: '99999999"),
    ("- wait: 1.0e+300", "step 1: wait must be a number >= 0, got 1e+300"),
    ("- people: 100000000", "step 1: people must be a count in [0, 100], got 100000000"),
    ("- landmark: [%d]" % 2 ** 40, "step 1: landmark must be a mark id (0 to 2147483647)"),
    ("- raise: {key: K, value: %d}" % 2 ** 70, "step 1: raise: a number of 22 digits does not "
                                              "fit in the 64 bits of the robot's numbers"),
    ("- tablet_touch: [1]", "step 1: tablet_touch must be [x, y] (pixels)"),
    ("- sonar: {left: 9}", "step 1: sonar left must be a number in [0.2, 5]"),
    ("- raise: {key: K}", "step 1: raise: 'value' is missing"),
    ("- on_call: showWebview\n  hear: hi", "on_call must be SERVICE.METHOD"),
    ("- wait: soon", "step 1: wait must be a number >= 0"),
    ("- touch: head\n  wait: 1\n  touch: head", ":3: 'touch' twice in one "
                                                  "mapping (to do something twice, list"),
    ("- do: [{touch: head}, {at: 1}]", "step 1: do item 2: 'at' is not an action"),
])
def test_invalid_scenarios_say_which_file_and_step(tmp_path, text, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ScenarioError) as raised:
        load_scenario(path)
    assert str(raised.value).startswith(str(path) + ":")
    assert message in str(raised.value)


#: a scenario using every kind of value, each replaced in turn by :data:`HOSTILE` values
EVERY_FIELD = """name: all
seed: 3
steps:
- at: 1
  hear: {text: hi, confidence: 0.5, wait: 2}
- after_say: hello
  touch: head
  face: {name: Ada, alpha: 0.1, beta: 0.2}
  people: 2
- on_event: {key: K, value: 1}
  tablet_touch: [10, 20]
  tablet_event: {E: 1}
  sonar: {left: 1, right: 2}
- on_call: ALTabletService.showWebview
  raise: {key: K, value: [1, 2]}
  landmark: [64]
  sound: {azimuth: 0.1, elevation: 0.2}
  battery: {charge: 50, plugged: true}
  temperature: {device: Head, celsius: 40}
- expect: {say: hi, within: 2}
  wait: 1
"""
HOSTILE = ["!!int x", "9" * 400, "-" + "9" * 400, "9" * 5000, "!!float x", "!!bool x",
           "!!timestamp x", "!!binary '%%%'", "!!set [1]", "!!python/name:os.system", "1.0e+400",
           "-.inf", ".nan", "[]", "{}", "~", "''", "[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]",
           "&a 1", "*a", "!!str", "0x" + "f" * 300, "1_000_000_000_000_000_000_000", "'\\x00'",
           "\"\\ud800\"", "{K: {K: {K: {K: 1}}}}", "!!omap [a: 1]", "?", "- - -"]


def test_hostile_values_anywhere_are_refused_with_the_file_and_line():
    """Every value of a scenario replaced by each hostile value: the scenario is read, or
    refused with a ScenarioError naming the file; never another exception."""
    import re
    values = list(re.finditer(r"(?<=: )[^{}\[\]\n,]+(?=[,}\]\n])", EVERY_FIELD))
    tried = 0
    for found in values:
        for hostile in HOSTILE:
            text = EVERY_FIELD[:found.start()] + hostile + EVERY_FIELD[found.end():]
            try:
                parse_scenario(text, "hostile.yaml")
            except ScenarioError as error:
                assert str(error).startswith("hostile.yaml"), (hostile, str(error))
            tried += 1
    assert tried > 800


def test_robot_specific_steps_are_checked_for_the_robot(tmp_path):
    path = tmp_path / "tablet.yaml"
    path.write_text("- touch: back_bumper\n- tablet_touch: [10, 20]\n")
    load_scenario(path, "pepper")
    with pytest.raises(ScenarioError, match=r"step 1: touch: NAO has no part 'back_bumper'"):
        load_scenario(path, "nao")
    path.write_text("- tablet_touch: [10, 20]\n")
    with pytest.raises(ScenarioError, match=r"tablet.yaml:1: step 1: tablet_touch: NAO has no "
                                            r"tablet"):
        load_scenario(path, "nao")
    with pytest.raises(ScenarioError, match="cannot read the scenario"):
        load_scenario(tmp_path / "missing.yaml")


def test_example_inputs_of_qichat_patterns():
    concepts = {"hello": ["hi", "hello", "good morning"], "greet": ["{dear} ~hello"]}

    def concept(name):
        return concepts.get(name, [])
    assert example_input("~hello {robot}", concept) == "hi"
    assert example_input('["a cup of tea" coffee] please *', concept) == "a cup of tea please"
    assert example_input("_[tea coffee] now", concept) == "tea now"
    assert example_input("~greet", concept) == "hi"
    assert example_input("I like ~fruit", concept) is None  # an empty concept
    assert example_input("e:onStart", concept) is None
    assert example_input("*", concept) == ""


def test_yes_no_questions():
    assert is_yes_no_question("Hello. Do you want to play?")
    assert is_yes_no_question("Shall we go on? Say yes or no.")
    assert not is_yes_no_question("What is your name?")
    assert not is_yes_no_question("Do it now.")


# -- playing --------------------------------------------------------------------------------
@pytest.fixture(autouse=True)
def fast_speech(monkeypatch):
    monkeypatch.setattr(speech, "SECONDS_PER_CHARACTER", 0.002)


class Client:
    """A client session of a simulated robot, keeping the ALMemory events it subscribed to."""

    def __init__(self, robot):
        self.session = qi.Session()
        self.session.connect(robot.url)
        self.memory = self.session.service("ALMemory")
        self.events = []
        self._keep = []
        self._lock = threading.Lock()

    def service(self, name):
        return self.session.service(name)

    def watch(self, *keys):
        for key in keys:
            subscriber = self.memory.subscriber(key)
            subscriber.signal.connect(lambda value, key=key: self._add(key, value))
            self._keep.append(subscriber)

    def _add(self, key, value):
        with self._lock:
            self.events.append((key, value))

    def values(self, key):
        with self._lock:
            return [value for seen, value in self.events if seen == key]

    def wait_for(self, key, count=1, timeout=10.0):
        deadline = time.monotonic() + timeout
        while len(self.values(key)) < count:
            assert time.monotonic() < deadline, "no %s in %s" % (key, self.events)
            time.sleep(0.01)
        return self.values(key)


@pytest.fixture
def nao():
    robot = SimulatedRobot(robot="nao", listen="tcp://127.0.0.1:0").start()
    client = Client(robot)
    yield robot, client
    client.session.close()
    robot.stop()


@pytest.fixture
def pepper():
    robot = SimulatedRobot(robot="pepper", listen="tcp://127.0.0.1:0").start()
    client = Client(robot)
    yield robot, client
    client.session.close()
    robot.stop()


def play(robot, text):
    lines = []
    runner = robot.play_scenario(parse_scenario(text, "test.yaml"), lines.append)
    return runner, lines


def test_words_are_heard_after_the_robot_asks(nao):
    robot, client = nao
    client.watch("WordRecognized")
    runner, lines = play(robot, """
- after_say: what is your name
  hear: Ada
- after_say: "(?i)nice to meet you, \\\\w+"
  hear: {text: maybe, confidence: 0.4}
""")
    asr = client.service("ALSpeechRecognition")
    tts = client.service("ALTextToSpeech")
    tts.say("Hello.")  # not the sentence step 1 waits for
    asr.setVocabulary(["Ada", "Bob"], False)
    asr.subscribe("Test")
    tts.say("What is \\pau=50\\ your name?")  # speech tags are not what the robot said
    assert client.wait_for("WordRecognized") == [["Ada", 0.75]]
    tts.say("Nice to meet you, Ada")
    assert runner.wait(10)
    assert client.wait_for("WordRecognized", 2)[1] == ["", 0.0]  # out of its vocabulary
    assert "step 1 (after_say 'what is your name'): the robot said 'What is your name?'" in lines
    assert any("hear 'maybe' -> ALSpeechRecognition: 'maybe' is not in its vocabulary" in line
               for line in lines)


@pytest.mark.parametrize("pattern", ["(a+)+$", "(a|aa)+$"])
def test_a_pattern_that_backtracks_does_not_stall_the_robot(nao, pattern):
    """A scenario pattern that a backtracking matcher takes minutes over (Python's re
    held the whole robot 16 s on one sentence) is matched with a time bound."""
    robot, client = nao
    runner, lines = play(robot, "- after_say: %r\n  hear: yes\n" % pattern)
    tts = client.service("ALTextToSpeech")
    started = time.monotonic()
    tts.say("a" * 27 + "!")
    tts.say("a" * 27 + "!")
    assert client.service("ALMotion").getJointNames("Head") == ["HeadYaw", "HeadPitch"]
    assert time.monotonic() - started < 3.0
    assert not runner.wait(0)  # the pattern was not found in the sentence


def test_hear_waits_for_the_robot_to_listen(nao):
    robot, client = nao
    client.watch("WordRecognized")
    asr = client.service("ALSpeechRecognition")
    asr.setVocabulary(["yes"], False)
    runner, lines = play(robot, "- hear: {text: 'yes', wait: 5}\n"
                                "- on_event: Test/Go\n  hear: {text: 'no', wait: 0}\n")
    time.sleep(0.3)
    asr.subscribe("Late")  # starts listening after the scenario began to speak
    assert client.wait_for("WordRecognized") == [["yes", 0.75]]
    asr.unsubscribe("Late")
    client.memory.raiseEvent("Test/Go", 1)
    assert runner.wait(5)
    assert client.values("WordRecognized") == [["yes", 0.75]]
    assert "nobody listens" in lines[-2] and "'no' is lost" in lines[-2]


def test_dialog_hears_inputs_and_answers(nao):
    robot, client = nao
    client.watch("Dialog/LastInput", "Dialog/Answered")
    dialog = client.service("ALDialog")
    dialog.activateTopic(dialog.loadTopicContent(
        "topic: ~drinks()\nlanguage: enu\nu:(hello) Tea or coffee?\n  u1:(tea) Here is tea\n"))
    dialog.subscribe("Test")
    runner, lines = play(robot, "- hear: hello\n- after_say: tea or coffee\n  hear: tea\n")
    assert runner.wait(10)
    assert client.wait_for("Dialog/Answered", 2) == ["Tea or coffee?", "Here is tea"]
    assert client.values("Dialog/LastInput") == ["hello", "tea"]


def test_touches_raise_the_sensor_events_with_their_values(nao):
    robot, client = nao
    client.watch("TouchChanged", "FrontTactilTouched", "RearTactilTouched",
                 "HandRightBackTouched", "LeftBumperPressed")
    runner, lines = play(robot, """
- on_event: Start/Touching
  touch: head
  do:
    - wait: 0.05
    - touch: right_hand
    - touch: left_bumper
""")
    client.memory.raiseEvent("Start/Touching", 1)
    assert runner.wait(10)
    # (libqi may hand a client close events in any order: the memory has the last value)
    for key in ("FrontTactilTouched", "RearTactilTouched", "HandRightBackTouched",
                "LeftBumperPressed"):
        assert sorted(client.wait_for(key, 2)) == [0.0, 1.0], key
        assert client.memory.getData(key) == 0.0  # pressed, then released
    changes = client.wait_for("TouchChanged", 10)
    assert sorted(changes) == sorted([[[sensor, state]] for state in (True, False) for sensor in (
        "Head/Touch/Front", "Head/Touch/Middle", "Head/Touch/Rear", "RHand/Touch/Back",
        "LFoot/Bumper/Left")])


def test_a_face_stays_in_view_while_face_detection_runs(nao):
    robot, client = nao
    client.service("ALAutonomousLife").setState("disabled")  # no basic awareness either
    client.watch("FaceDetected")
    faces = client.service("ALFaceDetection")
    faces.learnFace("Ada")
    runner, lines = play(robot, "- face: Ada\n")
    assert runner.wait(5)
    time.sleep(0.3)
    assert client.values("FaceDetected") == []  # nobody asked for faces yet
    faces.subscribe("Test")
    detected = client.wait_for("FaceDetected", 2, timeout=5)  # repeated while in view
    timestamp, infos, torso_pose, robot_pose, camera = detected[0]
    assert len(timestamp) == 2 and len(torso_pose) == 6 and camera == 0
    (shape, extra), recognition = infos
    assert shape[0] == 0 and extra[:3] == [1, 0.8, "Ada"] and recognition == [2, ["Ada"]]
    robot.perception.hideFace()
    client.wait_for("FaceDetected", len(client.values("FaceDetected")) + 1)
    assert client.values("FaceDetected")[-1] == []


def test_people_arrive_and_basic_awareness_tracks_them(nao):
    robot, client = nao
    client.watch("PeoplePerception/JustArrived", "PeoplePerception/JustLeft",
                 "ALBasicAwareness/HumanTracked", "ALBasicAwareness/HumanLost",
                 "ALBasicAwareness/StimulusDetected", "PeoplePerception/PeopleDetected")
    client.service("ALBasicAwareness").setEnabled(True)
    client.service("ALPeoplePerception").subscribe("Test")
    runner, lines = play(robot, "- people: 2\n- wait: 0.7\n- people: 0\n")
    assert runner.wait(10)
    assert sorted(client.wait_for("PeoplePerception/JustLeft", 2)) == [1, 2]
    assert sorted(client.values("PeoplePerception/JustArrived")) == [1, 2]
    assert client.values("ALBasicAwareness/StimulusDetected") == ["People", "People"]
    assert client.values("ALBasicAwareness/HumanTracked") == [1]
    assert client.values("ALBasicAwareness/HumanLost") == [1]
    detected = client.values("PeoplePerception/PeopleDetected")
    assert detected and [person[0] for person in detected[0][1]] == [1, 2]


def test_a_tracked_person_in_view_is_detected_and_reached_in_move_mode(pepper):
    robot, client = pepper
    client.watch("ALTracker/TargetDetected", "ALTracker/TargetReached")
    tracker = client.service("ALTracker")
    tracker.registerTarget("People", [])
    tracker.setMode("Move")
    tracker.track("People")
    runner, lines = play(robot, "- people: 1\n- wait: 1.2\n")
    assert runner.wait(10)
    assert client.wait_for("ALTracker/TargetReached") == [True]
    assert client.values("ALTracker/TargetDetected") == ["People"]  # once per tracking
    assert tracker.getTargetPosition(0)[0] == pytest.approx(1.0)


def test_tablet_touches_events_sonar_and_raise_on_pepper(pepper):
    robot, client = pepper
    client.watch("myapp/clicked", "SonarLeftDetected", "Device/SubDeviceList/US/Left/Sensor/Value",
                 "Custom/Key")
    touches = []
    tablet = client.service("ALTabletService")
    tablet.onTouchDown.connect(lambda x, y: touches.append((x, y)))
    client.service("ALSonar").subscribe("Test")
    runner, lines = play(robot, """
- on_call: ALTabletService.show*
  tablet_touch: [640, 400]
  tablet_event: {myapp/clicked: {button: ok}}
  sonar: {left: 0.4}
  raise: {key: Custom/Key, value: [1, two]}
""")
    tablet.showWebview("http://198.18.0.1/apps/quiz/")
    assert runner.wait(10), lines
    assert client.wait_for("Custom/Key") == [[1, "two"]]
    assert client.wait_for("myapp/clicked") == [{"button": "ok"}]
    assert client.wait_for("SonarLeftDetected") == [0.4]
    assert 0.4 in client.wait_for("Device/SubDeviceList/US/Left/Sensor/Value", 2)
    assert client.memory.getData("Device/SubDeviceList/US/Left/Sensor/Value") == 0.4
    assert client.memory.getData("Device/SubDeviceList/US/Right/Sensor/Value") == 5.0
    deadline = time.monotonic() + 5
    while not touches and time.monotonic() < deadline:
        time.sleep(0.01)
    assert touches == [(640.0, 400.0)]
    assert "step 1 (on_call ALTabletService.show*): call ALTabletService.showWebview" in lines


def test_steps_at_times_run_in_order(nao):
    robot, client = nao
    client.watch("Mark")
    started = time.monotonic()
    runner, lines = play(robot, """
- at: 0.4
  raise: {key: Mark, value: 2}
- at: 0.1
  raise: {key: Mark, value: 3}
""")
    assert runner.wait(5)
    assert time.monotonic() - started >= 0.4
    assert sorted(client.wait_for("Mark", 2)) == [2, 3]
    assert client.memory.getData("Mark") == 3  # already past: at once, after step 1
    # each says when it ran: step 1 at its time (later only by what a loaded machine adds),
    # step 2, already past, at once after it
    first = re.match(r"step 1 \(at 0\.4 s\): ([0-9.]+) s after the start", lines[1])
    second = re.match(r"step 2 \(at 0\.1 s\): ([0-9.]+) s after the start", lines[3])
    assert first and second, lines
    assert 0.4 <= float(first.group(1)) <= 1.0
    assert 0.0 <= float(second.group(1)) - float(first.group(1)) <= 0.1


def test_stopping_the_robot_stops_a_waiting_scenario(nao):
    robot, client = nao
    runner, lines = play(robot, "- after_say: never said\n  hear: hi\n")
    thread_names = {t.name for t in threading.enumerate()}
    assert any(name.startswith("sim-scenario") for name in thread_names)
    robot.stop()
    assert runner.done.is_set()
    assert not any(t.name.startswith("sim-scenario") and t.is_alive()
                   for t in threading.enumerate())


# -- the generic person --------------------------------------------------------------------
@pytest.fixture
def quick_generic(monkeypatch):
    monkeypatch.setattr(scenario_module, "REPLY_DELAY_S", 0.2)
    monkeypatch.setattr(scenario_module, "IDLE_REPLY_S", 1.0)
    monkeypatch.setattr(scenario_module, "TOUCH_AFTER_S", 0.3)
    monkeypatch.setattr(scenario_module, "TOUCH_EVERY_S", 0.6)


def quiz(robot, client, questions):
    """The robot asks ``questions`` (with a vocabulary each), listening after each; returns
    the words it recognised."""
    client.watch("WordRecognized")
    asr = client.service("ALSpeechRecognition")
    tts = client.service("ALTextToSpeech")
    heard = []
    for sentence, vocabulary in questions:
        asr.setVocabulary(vocabulary, False)
        tts.say(sentence)
        asr.subscribe("Quiz")
        heard.append(client.wait_for("WordRecognized", len(heard) + 1)[-1][0])
        asr.unsubscribe("Quiz")
    return heard


QUESTIONS = [("Do you like robots?", ["no", "yes"]), ("Pick a colour.", ["red", "green", "blue"]),
             ("Pick a number.", ["one", "two", "three", "four"]), ("Pick again.", ["a", "b", "c"])]


def test_generic_answers_with_the_words_the_robot_offers_and_is_deterministic(quick_generic):
    runs = []
    for _ in range(2):
        robot = SimulatedRobot(robot="nao", listen="tcp://127.0.0.1:0").start()
        client = Client(robot)
        try:
            robot.play_scenario(load_scenario("generic"))
            runs.append(quiz(robot, client, QUESTIONS))
        finally:
            client.session.close()
            robot.stop()
    assert runs[0] == runs[1]
    assert runs[0][0] == "yes"  # a yes/no question
    for word, (_, vocabulary) in zip(runs[0], QUESTIONS):
        assert word in vocabulary


def test_generic_answers_a_dialog_with_its_expected_sub_rules(nao, quick_generic):
    robot, client = nao
    client.watch("Dialog/Answered", "Dialog/NotUnderstood")
    dialog = client.service("ALDialog")
    dialog.activateTopic(dialog.loadTopicContent("""topic: ~order()
language: enu
concept:(drink) ["hot chocolate" tea coffee]
u:([hello hi] {robot}) Hello! Would you like a drink?
    u1:(yes) Which one?
        u2:(~drink) Here is your drink
    u1:(no) Goodbye
"""))
    dialog.subscribe("Test")
    robot.play_scenario(load_scenario("generic"))
    answers = client.wait_for("Dialog/Answered", 3)
    assert answers == ["Hello! Would you like a drink?", "Which one?", "Here is your drink"]
    assert client.values("Dialog/NotUnderstood") == []


def test_generic_touches_the_head_when_something_waits_for_it(nao, quick_generic):
    robot, client = nao
    client.watch("FaceDetected")
    client.service("ALFaceDetection").subscribe("Test")
    lines = []
    robot.play_scenario(load_scenario("generic"), lines.append)
    assert client.wait_for("FaceDetected")[0][1][0][1][2] == ""  # a stranger shows up
    time.sleep(0.8)
    assert not any("touch" in line for line in lines)  # nothing waits for a touch
    client.watch("MiddleTactilTouched")
    assert sorted(client.wait_for("MiddleTactilTouched", 2, timeout=5)[:2]) == [0.0, 1.0]


def test_generic_touches_one_head_sensor_at_a_time(nao, quick_generic, monkeypatch):
    """A behavior with a handler per head sensor (each says something) gets one of them
    started by a touch of the generic person, as by a person's finger: not all three."""
    monkeypatch.setattr(scenario_module, "TOUCH_EVERY_S", 30.0)  # one touch in this test
    robot, client = nao
    tts = client.service("ALTextToSpeech")
    said = []
    for key, sentence in (("FrontTactilTouched", "front"), ("MiddleTactilTouched", "middle"),
                          ("RearTactilTouched", "rear")):
        subscriber = client.memory.subscriber(key)
        subscriber.signal.connect(lambda value, sentence=sentence: (
            said.append(sentence), tts.say(sentence)) if value == 1.0 else None)
        client._keep.append(subscriber)
    lines = []
    robot.play_scenario(load_scenario("generic"), lines.append)
    deadline = time.monotonic() + 5
    while not any("generic: touch" in line for line in lines):
        assert time.monotonic() < deadline, lines
        time.sleep(0.01)
    time.sleep(0.5)  # what the touch started has had time to start
    assert len(said) == 1, said
    touched = [line for line in lines if "generic: touch" in line]
    assert touched == ["generic: touch head_%s -> touched head_%s (Head/Touch/%s)"
                       % (said[0], said[0], said[0].capitalize())]


def test_generic_does_not_spin_while_nothing_happens(nao, quick_generic):
    robot, client = nao
    lines = []
    robot.play_scenario(load_scenario("generic"), lines.append)
    time.sleep(0.3)
    cpu = time.process_time()
    time.sleep(1.5)
    assert time.process_time() - cpu < 0.3
    assert len(lines) == 2  # the start and the face: nobody listens, nothing waits
