"""Expectations of scenarios (``expect:`` steps): reading and checking them, and deciding
them against a simulated robot and what the program running the behavior reports."""
import time

import pytest

from naoqi_qicore.robot.sim.expectations import Expectation, Verdict, parse_expectation
from naoqi_qicore.robot.sim.observations import SAID, TABLET, RobotWatch, RunObserver
from naoqi_qicore.robot.sim.recorder import CallRecord
from naoqi_qicore.robot.sim.scenario import ScenarioError, load_scenario, parse_scenario
from naoqi_qicore.robot.sim.services import speech

qi = pytest.importorskip("qi")
from naoqi_qicore.robot.sim import SimulatedRobot  # noqa: E402


# -- reading --------------------------------------------------------------------------------
def test_every_kind_of_expectation_is_read(tmp_path):
    path = tmp_path / "check.yaml"
    path.write_text("""
- expect: {say: "hello|hi", within: 5}
- expect: {box: "root/Say Hello"}
  hear: yes
- expect: {state: Wave, within: 2.5}
- expect: {joint: {RShoulderPitch: -1.0, RElbowRoll: 0.5}, tolerance: 0.1, within: 4}
- expect: {tablet: "*.png"}
- expect: {ends: finished, within: 30}
""")
    steps = load_scenario(path, "pepper").steps
    assert [step.expectation for step in steps] == [
        Expectation("say", steps[0].expectation.target, 5.0),
        Expectation("box", "root/Say Hello"),
        Expectation("state", "Wave", 2.5),
        Expectation("joint", {"RShoulderPitch": -1.0, "RElbowRoll": 0.5}, 4.0, 0.1),
        Expectation("tablet", "*.png"),
        Expectation("ends", "FINISHED", 30.0)]
    assert steps[0].expectation.target[0] == "hello|hi"
    assert [step.line for step in steps] == [2, 3, 5, 6, 7, 8]
    assert steps[1].actions == [("hear", {"text": "yes", "confidence": 0.75, "wait": 10.0})]
    assert steps[0].describe() == "step 1 (expect the robot to say /hello|hi/)"
    assert steps[0].where(str(path)) == "%s:2: step 1" % path
    assert len(load_scenario(path).expectations) == 6


@pytest.mark.parametrize("text, message", [
    ("- hear: hi\n- expect: {sya: hello}",
     "check.yaml:2: step 2: expect: unknown field 'sya' (did you mean 'say'?)"),
    ("- expect: {say: hi, box: Say}",
     "check.yaml:1: step 1: expect: an expectation is about one thing (one of say, box, "
     "state, joint, tablet, ends), got say and box"),
    ("- expect: {within: 3}", "step 1: expect: an expectation is about one thing"),
    ("- expect: hello", "step 1: expect: an expectation is a mapping such as {say: hello"),
    ("- expect: {say: hi, within: 0}", "step 1: expect: within must be a number > 0, got 0"),
    ("- expect: {say: hi, tolerance: 0.1}", "tolerance goes with joint, not say"),
    ("- expect: {say: ''}", "step 1: expect: say must be a non-empty text"),
    ("- expect: {joint: {RShoulderPich: 1}}",
     "joint: 'RShoulderPich' is not a joint of NAO or Pepper (did you mean 'RShoulderPitch'?)"),
    ("- expect: {joint: {HeadYaw: up}}", "joint HeadYaw must be a number, got 'up'"),
    ("- expect: {joint: []}", "joint must be a mapping of joint names to angles in rad"),
    ("- expect: {ends: DONE}", "ends must be one of FINISHED, STOPPED, ERROR, got 'DONE'"),
    ("-   hear: hi\n    expect: {say: x}\n    after_say: y",
     "check.yaml:3: step 1: two triggers (expect and after_say)"),
])
def test_bad_expectations_name_their_file_line_and_step(tmp_path, text, message):
    path = tmp_path / "check.yaml"
    path.write_text(text)
    with pytest.raises(ScenarioError) as raised:
        load_scenario(path)
    assert message in str(raised.value)
    assert str(raised.value).startswith(str(path) + ":")


def test_expectations_the_robot_cannot_meet_are_refused_for_it(tmp_path):
    path = tmp_path / "nao.yaml"
    path.write_text("- hear: hi\n- expect: {tablet: welcome.html}\n")
    with pytest.raises(ScenarioError, match=r"nao.yaml:2: step 2: expect tablet: NAO has no "
                                            r"tablet"):
        load_scenario(path, "nao")
    path.write_text("- expect: {joint: {HipRoll: 0.1}}\n")
    load_scenario(path, "pepper")
    with pytest.raises(ScenarioError, match=r"nao.yaml:1: step 1: expect joint: NAO has no "
                                            r"joint HipRoll"):
        load_scenario(path, "nao")


def test_a_say_expectation_matches_as_after_say_does():
    hello = parse_expectation({"say": "what is your (name|surname)"})
    from naoqi_qicore.robot.sim.observations import Observation
    assert hello.met_by(Observation("said", "And what is your surname?"))
    assert not hello.met_by(Observation("saying", "What is your name?"))
    plain = parse_expectation({"say": "really?("})  # not a regular expression: a text
    assert plain.met_by(Observation("said", "Really?( no"))
    box = parse_expectation({"box": "Say*"})
    assert box.met_by(Observation("box", "root/Dialog/Say Hello"))
    assert not box.met_by(Observation("box", "root/Dialog"))
    assert parse_expectation({"tablet": "img/*.png"}).met_by(
        Observation("tablet", "http://198.18.0.1/apps/quiz/img/a.png"))


# -- the verdict ----------------------------------------------------------------------------
def test_a_verdict_travels_as_plain_values_and_judges_the_run():
    verdict = Verdict("t.yaml", 2, decided=True, held=["t.yaml:1: step 1: box root/A started"],
                      expected_end="")
    assert Verdict.from_dict(verdict.as_dict()) == verdict
    assert verdict.lines() == ["t.yaml: 2 expectations held"]
    assert verdict.run_as_expected("FINISHED", 0, False)
    assert verdict.run_as_expected("STOPPED", 0, True)
    assert not verdict.run_as_expected("STOPPED", 0, False)
    assert not verdict.run_as_expected("FINISHED", 1, False)
    assert not verdict.run_as_expected("ERROR", 1, False)
    verdict.expected_end = "ERROR"
    assert verdict.run_as_expected("ERROR", 3, False)
    verdict.expected_end = "STOPPED"
    assert verdict.run_as_expected("STOPPED", 0, False)
    assert not verdict.run_as_expected("STOPPED", 1, False)
    failed = Verdict("t.yaml", 3, decided=True, failure="t.yaml:2: step 2: expected ...",
                     unchecked=[3, 5])
    assert not failed.passed
    assert failed.lines() == ["expectation failed: t.yaml:2: step 2: expected ...",
                              "t.yaml: not checked: steps 3, 5"]
    assert Verdict("t.yaml", 1).lines() == [
        "t.yaml: the run ended before its expectations were checked"]


def test_a_run_observer_tells_what_the_engine_did():
    from naoqi_qicore.core.events import EngineEvent
    told = []
    observer = RunObserver(lambda kind, name, detail: told.append((kind, name)))
    for event in [EngineEvent("status", "root", "LOADED"), EngineEvent("status", "root", "PLAYING"),
                  EngineEvent("box_started", "root", "onStart"),
                  EngineEvent("state_entered", "root", "root_state_0", {"labels": ["Hello"]}),
                  EngineEvent("box_started", "root/A", "onStart"),
                  EngineEvent("state_entered", "root/A", "A_state_1", {"labels": ["Inner"]}),
                  EngineEvent("output_fired", "root/A", "onStopped"),
                  EngineEvent("status", "root", "PAUSED"), EngineEvent("status", "root", "PLAYING"),
                  EngineEvent("state_entered", "root", "root_state_1",
                              {"labels": ["Wave", "Arms"]})]:
        observer.engine_event(event, "root")
    observer.ended("FINISHED", "no errors")
    assert told == [("started", ""), ("box", "root"), ("state", "Hello"), ("box", "root/A"),
                    ("state", "Wave"), ("state", "Arms"), ("ended", "FINISHED")]


# -- deciding against a robot ----------------------------------------------------------------
@pytest.fixture(autouse=True)
def fast_speech(monkeypatch):
    monkeypatch.setattr(speech, "SECONDS_PER_CHARACTER", 0.002)


@pytest.fixture
def pepper():
    robot = SimulatedRobot(robot="pepper", listen="tcp://127.0.0.1:0").start()
    html = robot.context.files.apps / "t" / "html"  # what the robot serves its tablet
    html.mkdir(parents=True)
    for image in ("welcome.png", "a.png"):
        (html / image).write_bytes(b"\x89PNG\r\n\x1a\n")
    session = qi.Session()
    session.connect(robot.url)
    yield robot, session
    session.close()
    robot.stop()


def play(robot, text):
    lines = []
    runner = robot.play_scenario(parse_scenario(text, "t.yaml"), lines.append)
    return runner, lines


class LaggingMemory:
    """ALMemory's notifications as the robot's dispatcher thread gives them, run when the
    test says (a loaded machine: they lag behind the calls)."""

    def __init__(self):
        self.pending, self.watchers = [], []

    def _watch(self, watcher):
        self.watchers.append(watcher)

    def _unwatch(self, watcher):
        self.watchers.remove(watcher)

    def _after_notifications(self, call):
        self.pending.append(call)

    def raiseEvent(self, key, value):
        self.pending.append(lambda: [watcher(key, value) for watcher in self.watchers])

    def dispatch(self):
        while self.pending:
            self.pending.pop(0)()


def test_the_robot_is_seen_doing_things_in_the_order_it_did_them():
    """A call that ends after a sentence is seen after it, however late the sentence's
    notifications come: a scenario waiting for the sentence then for the tablet sees both."""
    memory, record, seen = LaggingMemory(), CallRecord(), []
    watch = RobotWatch(memory, record, seen.append)
    memory.raiseEvent("ALTextToSpeech/CurrentSentence", "hello there")
    memory.raiseEvent("ALTextToSpeech/TextDone", 1)
    call = record.start("ALTabletService", "showImage", ["http://198.18.0.1/apps/t/a.png"])
    record.end(call, True)
    memory.dispatch()
    watch.close()
    assert [(o.kind, o.name) for o in seen if o.kind in (SAID, TABLET)] == [
        (SAID, "hello there"), (TABLET, "http://198.18.0.1/apps/t/a.png")]


def test_expectations_of_every_kind_hold_as_the_robot_and_behavior_do_them(pepper):
    robot, session = pepper
    runner, lines = play(robot, """
- expect: {box: Greet, within: 2}
- expect: {state: Hello, within: 2}
- expect: {say: "^hello", within: 2}
- expect: {tablet: "*.png", within: 2}
- expect: {joint: {RShoulderPitch: -1.0}, tolerance: 0.05, within: 3}
- expect: {ends: FINISHED, within: 2}
""")
    runner.observe_behavior("started")
    runner.observe_behavior("box", "root/Greet")
    runner.observe_behavior("state", "Hello")
    session.service("ALTextToSpeech").say("Hello there")
    tablet = session.service("ALTabletService")
    tablet.showImage("ftp://nowhere/x.png")  # refused: shows nothing
    tablet.showImage("http://198.18.0.1/apps/t/welcome.png")
    session.service("ALMotion").angleInterpolation("RShoulderPitch", -1.0, 0.3, True)
    runner.observe_behavior("ended", "FINISHED", "no errors")
    assert runner.decided.wait(5), lines
    verdict = runner.verdict()
    assert verdict.passed and verdict.expected_end == "FINISHED", verdict
    assert verdict.lines() == ["t.yaml: 6 expectations held"]
    assert verdict.held[3] == "t.yaml:5: step 4: the tablet shows " \
                              "http://198.18.0.1/apps/t/welcome.png"
    assert verdict.held[4].startswith("t.yaml:6: step 5: the joints reached their targets "
                                      "(read: RShoulderPitch -")
    assert verdict.held[1] == "t.yaml:3: step 2: keyframe Hello reached"  # told at once
    assert lines[-1] == "t.yaml: 6 expectations held"


def test_the_end_of_a_run_is_seen_after_the_sentence_said_before_it(pepper):
    """ALMemory tells its watchers from its own thread: a run's end, reported at once by
    the program running the behavior, must not overtake the sentence that ended first."""
    robot, session = pepper
    memory = robot.service("ALMemory")

    def slow(key, value):
        if key == "ALTextToSpeech/TextStarted" and value == 1:
            time.sleep(0.5)  # a busy machine: the dispatcher is late
    memory._watch(slow)
    runner, lines = play(robot, "- expect: {say: hello}\n- expect: {ends: FINISHED}\n")
    runner.observe_behavior("started")
    session.service("ALTextToSpeech").say("Hello")
    runner.observe_behavior("ended", "FINISHED", "no errors")
    assert runner.decided.wait(5), lines
    assert runner.verdict().passed, runner.verdict()


def test_a_page_the_robots_web_server_does_not_have_is_not_the_page_expected(pepper):
    """The tablet shows the web server's "404 Not Found" page for a robot URL with no file:
    an expectation of that page fails, saying so."""
    robot, session = pepper
    runner, _ = play(robot, "- expect: {tablet: '*/t/quiz.html', within: 1}\n")
    runner.observe_behavior("started")
    assert session.service("ALTabletService").showWebview("http://198.18.0.1/apps/t/quiz.html")
    assert runner.decided.wait(5)
    assert runner.verdict().failure == (
        "t.yaml:1: step 1: expected the tablet to show '*/t/quiz.html' within 1 s; the tablet "
        "showed: http://198.18.0.1/apps/t/quiz.html (404 Not Found)")


def test_an_expectation_not_met_in_time_fails_saying_what_happened_instead(pepper):
    robot, session = pepper
    runner, lines = play(robot, """
- expect: {say: hello, within: 1}
- expect: {say: goodbye, within: 0.5}
- expect: {ends: FINISHED}
""")
    tts = session.service("ALTextToSpeech")
    tts.say("Hello")  # before the run started: its time does not count yet
    tts.say("What is your name?")
    assert not runner.decided.wait(0.7)
    runner.observe_behavior("started")
    tts.say("Nice to meet you")
    assert runner.decided.wait(5)
    verdict = runner.verdict()
    assert not verdict.passed
    assert verdict.failure == 't.yaml:3: step 2: expected the robot to say /goodbye/ within ' \
                              '0.5 s; it said: "What is your name?", "Nice to meet you"'
    assert verdict.unchecked == [3]
    assert "expectation failed: " + verdict.failure in lines


@pytest.mark.parametrize("expect, instead", [
    ("{box: Dance}", "boxes started: root/Greet"),
    ("{state: Wave}", "keyframes reached: Hello"),
    ("{tablet: '*.mp4'}", "the tablet showed: http://198.18.0.1/apps/t/a.png"),
    ("{joint: {HeadYaw: 1.0}}", "they are at HeadYaw 0.00 rad"),
    ("{ends: STOPPED}", "it ended FINISHED (no errors)"),
    ("{say: bye}", 'it said: "Hello"'),
])
def test_the_end_of_the_run_fails_what_was_not_met(pepper, expect, instead):
    robot, session = pepper
    runner, _ = play(robot, "- expect: %s\n" % expect)
    runner.observe_behavior("started")
    runner.observe_behavior("box", "root/Greet")
    runner.observe_behavior("state", "Hello")
    session.service("ALTabletService").showImage("http://198.18.0.1/apps/t/a.png")
    session.service("ALTextToSpeech").say("Hello")
    runner.observe_behavior("ended", "FINISHED", "no errors")
    assert runner.decided.wait(5)
    failure = runner.verdict().failure
    assert failure.startswith("t.yaml:1: step 1: expected ")
    assert failure.endswith("; " + instead) or ("; %s; the behavior ended FINISHED after " % instead
                                                in failure and failure.endswith("(no errors)"))


def test_a_joint_expectation_says_how_close_the_joint_came(pepper):
    robot, session = pepper
    runner, _ = play(robot, "- expect: {joint: {HeadYaw: 1.0}, tolerance: 0.01, within: 1.5}\n")
    runner.observe_behavior("started")
    motion = session.service("ALMotion")
    motion.angleInterpolation("HeadYaw", 0.8, 0.3, True)
    time.sleep(0.1)
    motion.angleInterpolation("HeadYaw", 0.2, 0.3, True)
    assert runner.decided.wait(5)
    assert runner.verdict().failure.endswith(
        "within 1.5 s; they came closest at HeadYaw 0.80 rad and are at HeadYaw 0.20 rad")


def test_a_joint_passing_its_target_between_two_readings_reached_it():
    from naoqi_qicore.robot.sim.expectations import JointApproach
    approach = JointApproach(parse_expectation({"joint": {"HeadYaw": 1.0, "HeadPitch": 0.0},
                                                "tolerance": 0.01}))
    assert not approach.update({"HeadYaw": 0.5, "HeadPitch": 0.0})
    assert approach.update({"HeadYaw": 1.3, "HeadPitch": 0.005})  # went through 1.0
    assert not approach.update({"HeadYaw": 1.4, "HeadPitch": 0.0})
    assert approach.closest == {"HeadYaw": 1.3, "HeadPitch": 0.005}


def test_a_run_that_ends_while_a_trigger_waits_fails_the_next_expectation(pepper):
    robot, _ = pepper
    runner, lines = play(robot, """
- hear: hello
- after_say: ready
  hear: go
- at: 1
- expect: {say: done}
- expect: {box: Other}
""")
    runner.observe_behavior("started")
    runner.observe_behavior("ended", "ERROR", "root/Greet: onStart: RuntimeError: no")
    assert runner.decided.wait(12)  # hear gives up waiting for a listener
    verdict = runner.verdict()
    assert verdict.failure.startswith("t.yaml:6: step 4: expected the robot to say /done/ "
                                      "within 10 s; the behavior ended ERROR after ")
    assert verdict.failure.endswith("(root/Greet: onStart: RuntimeError: no), while step 2 "
                                    "waited for its trigger")
    assert verdict.unchecked == [5]


def test_a_scenario_stopped_before_deciding_leaves_its_expectations_unchecked(pepper):
    robot, _ = pepper
    runner, _ = play(robot, "- expect: {say: hi}\n- expect: {say: bye}\n")
    runner.stop()
    verdict = runner.verdict()
    assert not verdict.decided and verdict.unchecked == [1, 2]
    assert verdict.lines() == ["t.yaml: the run ended before its expectations were checked",
                               "t.yaml: not checked: steps 1, 2"]


def test_another_process_tells_the_scenario_over_libqi(pepper):
    robot, session = pepper
    scenario = session.service("NaoqiSimScenario")
    with pytest.raises(RuntimeError, match="the robot plays no scenario"):
        scenario.verdict()
    runner, _ = play(robot, "- expect: {box: Greet}\n- expect: {ends: FINISHED}\n")
    assert scenario.verdict()["decided"] is False
    scenario.observeBehavior("started", "", "")
    scenario.observeBehavior("box", "root/Greet", "")
    with pytest.raises(RuntimeError, match="a behavior observation is one of started, box, "
                                           "state, ended, got 'frame'"):
        scenario.observeBehavior("frame", "12", "")
    scenario.observeBehavior("ended", "FINISHED", "")
    assert runner.decided.wait(5)
    assert Verdict.from_dict(scenario.verdict()).passed
