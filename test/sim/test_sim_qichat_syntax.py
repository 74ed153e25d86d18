"""QiChat's syntax as NAOqi's reference documents it, one construct per case: each topic is
read, loaded into the simulated ALDialog and played with the words a person says and the
events the robot raises (the answers are checked), and the events of a choice are heard
through a scenario on a simulated robot serving libqi."""
import os
import sys
import time

import pytest

from naoqi_qicore.robot.sim.scenario import parse_scenario
from naoqi_qicore.robot.sim.services import qichat
from naoqi_qicore.robot.sim.services.qichat import parse_topic

sys.path.insert(0, os.path.dirname(__file__))
from test_sim_qichat import sim  # noqa: F401,E402  (a simulated NAO built in-process)

pytestmark = pytest.mark.long_running(minutes=0.3)

NOTHING = None  # the step gets no answer

#: construct -> (topic body after its header, steps): a step is ("hear", words, answer),
#: ("event", key, value, answer), ("set", variable, value) or ("concept", name, [values])
CONSTRUCTS = {
    "user rule": ("u:(hello) hi there", [("hear", "Hello!", "hi there")]),
    "choice": ("u:(I like [tea coffee]) me too",
               [("hear", "I like coffee", "me too"), ("hear", "I like milk", NOTHING)]),
    "optional part": ("u:(I feel {very quite} well) nice",
                      [("hear", "I feel well", "nice"), ("hear", "I feel quite well", "nice")]),
    "phrase in a choice": ('u:(["good morning" hello] robot) morning',
                           [("hear", "good morning robot", "morning"),
                            ("hear", "good robot", NOTHING)]),
    "wildcard": ("u:(I * you) and you", [("hear", "I really like you", "and you")]),
    "forbidden word": ("u:(I !not love you) love you too",
                       [("hear", "I not love you", NOTHING),
                        ("hear", "I love you", "love you too")]),
    "input storing": ("u:(my name is _*) hello $1",
                      [("hear", "my name is Ada Lovelace", "hello Ada Lovelace")]),
    "concept in input and output": (
        "concept:(drink) [tea coffee]\nu:(do you have _~drink) yes, $1\nu:(a drink) ~drink?",
        [("hear", "do you have tea", "yes, tea"), ("hear", "a drink", "tea?"),
         ("hear", "a drink", "coffee?")]),
    "dynamic concept": ("dynamic: fruit\nu:(I want _~fruit) here is your $1",
                        [("hear", "I want a kiwi", NOTHING), ("concept", "fruit", ["kiwi"]),
                         ("hear", "I want kiwi", "here is your kiwi")]),
    "^addToConcept and ^removeFromConcept": (
        "dynamic: pet\nu:(add _*) ^addToConcept(~pet, $1) added\nu:(drop _*) "
        "^removeFromConcept(~pet, $1) dropped\nu:(~pet) a pet",
        [("hear", "dog", NOTHING), ("hear", "add dog", "added"), ("hear", "dog", "a pet"),
         ("hear", "drop dog", "dropped"), ("hear", "dog", NOTHING)]),
    "variable in input": ("u:(I am $name) I know", [("hear", "I am Bo", NOTHING),
                                                    ("set", "name", "Bo"),
                                                    ("hear", "I am Bo", "I know")]),
    "condition in input": ("u:($mood==happy how are you) great\nu:(how are you) so so",
                           [("hear", "how are you", "so so"), ("set", "mood", "happy"),
                            ("hear", "how are you", "great")]),
    "assignment in output, used in the same output": (
        "u:(my name is _*) $name=$1 nice to meet you $name\nu:(who am I) you are $name",
        [("hear", "my name is Ada", "nice to meet you Ada"), ("hear", "who am I", "you are Ada")]),
    "assignment in input": (
        "u:(I like _[tea coffee] $drink=$1) so $drink it is\n"
        'u:(["red $color=red" "blue $color=blue"] please) $color then',
        [("hear", "I like coffee", "so coffee it is"), ("hear", "blue please", "blue then")]),
    "^clear": ("u:(call me _*) $name=$1 ok\nu:(forget me) ^clear(name) done\n"
               'u:(who am I) ^first["you are $name" "I do not know"]',
               [("hear", "call me Bo", "ok"), ("hear", "who am I", "you are Bo"),
                ("hear", "forget me", "done"), ("hear", "who am I", "I do not know")]),
    "output choice in turn, skipping what cannot be said": (
        'u:(is my name Ada) ["$name==Ada yes" "no it is $name"]',
        [("set", "name", "Bo"), ("hear", "is my name Ada", "no it is Bo"),
         ("set", "name", "Ada"), ("hear", "is my name Ada", "yes")]),
    "^rand": ("u:(toss) ^rand[heads tails]", [("hear", "toss", ("heads", "tails"))]),
    "^first": ('u:(hi) ^first["$name==Bo hi Bo" "hello stranger"]',
               [("hear", "hi", "hello stranger")]),
    "bookmarks and animation functions": (
        "u:(dance) %start ^start(animations/Stand/Gestures/Hey_1) let us dance "
        "^wait(animations/Stand/Gestures/Hey_1) ^run(animations/x) ^runSound(sounds/y) "
        "^stop(animations/x) ^mode(contextual) now",
        [("hear", "dance", "let us dance now")]),
    "comments": ("# a whole comment line\nu:(hello) hi # a comment after the rule",
                 [("hear", "hello", "hi")]),
    "sub-rules": ("u:(ask me) tea or coffee?\n    u1:(tea) here is tea\n"
                  "        u2:(thanks) you are welcome\n    u1:(coffee) here is coffee",
                  [("hear", "thanks", NOTHING), ("hear", "ask me", "tea or coffee?"),
                   ("hear", "tea", "here is tea"), ("hear", "thanks", "you are welcome")]),
    "proposals and ^goto ^nextProposal ^sameProposal": (
        "u:(quiz) ^goto(q1)\nproposal: %q1 two plus two?\n    u1:(four) right ^nextProposal\n"
        "    u1:(*) no ^sameProposal\nproposal: three plus three?",
        [("hear", "quiz", "two plus two?"), ("hear", "five", "two plus two?"),
         ("hear", "four", "three plus three?")]),
    "^gotoReactivate ^enableThenGoto ^activate ^deactivate": (
        "u:(again) ^gotoReactivate(q)\nu:(quiet) ^deactivate(q) ok\nu:(ask) ^goto(q)\n"
        "u:(back) ^enableThenGoto(q)\nproposal: %q ready?",
        [("hear", "ask", "ready?"), ("hear", "ask", ""), ("hear", "again", "ready?"),
         ("hear", "quiet", "ok"), ("hear", "back", "ready?")]),
    "^topicTag": ("u:(go) ^topicTag(t, far)\nproposal: %far far away",
                  [("hear", "go", "far away")]),
    "^private ^stayInScope": (
        "u:^private(secret) only here\nu:(ask) yes or no? ^stayInScope\n    u1:(yes) good",
        [("hear", "secret", "only here"), ("hear", "ask", "yes or no?"),
         ("hear", "yes", "good")]),
    "def: functions": ("def:greet($who) hello $who\nu:(hi _*) ^greet($1)",
                       [("hear", "hi Bo", "hello Bo")]),
    "^call and c1:": ('u:(cups) ^call(ALMemory.getData("cups"))\n    c1:(0) none\n'
                      "    c1:(_*) $1 cups",
                      [("set", "cups", "3"), ("hear", "cups", "3 cups")]),
    "event": ("u:(e:Bell) ding", [("hear", "Bell", NOTHING), ("event", "Bell", 1, "ding")]),
    "event with a condition and its value": (
        "u:(e:Level $Level>2) level $Level",
        [("event", "Level", 1, NOTHING), ("event", "Level", 5, "level 5")]),
    "events in a choice": (
        "u:([e:RightBumperPressed e:LeftBumperPressed]) my feet",
        [("event", "LeftBumperPressed", 1, "my feet"),
         ("event", "RightBumperPressed", 1, "my feet")]),
    "event or words in a choice of a sub-rule": (
        "concept:(yes) [yes yeah]\nu:(shall we) shall we?\n"
        "    u1:([~yes e:Dialog/AnswerYes]) let us go\n    u1:([no e:Dialog/AnswerNo]) pity",
        [("hear", "shall we", "shall we?"), ("event", "Dialog/AnswerYes", 1, "let us go"),
         ("hear", "shall we", "shall we?"), ("hear", "yeah", "let us go"),
         ("hear", "shall we", "shall we?"), ("event", "Dialog/AnswerNo", 1, "pity")]),
    "e:onStart": ("u:(e:onStart) welcome", [("started", "welcome")]),
    "events and words in a choice with an assignment": (
        'u:(["e:Tablet/Yes $answer=yes" "yes please $answer=words"]) got $answer',
        [("event", "Tablet/Yes", 1, "got yes"), ("hear", "yes please", "got words")]),
}


def _answered(memory, then, expected, timeout=3.0):
    """Wait for ALDialog's answer after the step ``then``: ``expected`` (a text, a tuple of
    possible texts, or NOTHING)."""
    memory.insertData("Dialog/Answered", "<none>")
    memory.insertData("Dialog/NotUnderstood", "<none>")
    then()
    deadline = time.monotonic() + (0.3 if expected is NOTHING else timeout)
    while time.monotonic() < deadline:
        if memory.getData("Dialog/Answered") != "<none>":
            break
        time.sleep(0.005)
    said = memory.getData("Dialog/Answered")
    if expected is NOTHING:
        assert said == "<none>", "answered %r" % said
    elif isinstance(expected, tuple):
        assert said in expected
    else:
        assert said == expected


@pytest.mark.parametrize("construct", sorted(CONSTRUCTS))
def test_construct_reads_and_answers(sim, construct):  # noqa: F811
    body, steps = CONSTRUCTS[construct]
    text = "topic: ~t()\nlanguage: enu\n%s\n" % body
    parse_topic(text)  # reads without a tolerance warning
    dialog, memory = sim.service("ALDialog"), sim.service("ALMemory")
    dialog.activateTopic(dialog.loadTopicContent(text))
    for step in steps:
        kind = step[0]
        if kind == "set":
            memory.insertData(step[1], step[2])
        elif kind == "concept":
            dialog.setConcept(step[1], "English", step[2])
        elif kind == "started":
            _answered(memory, lambda: dialog.subscribe("test"), step[1])
        else:
            if not dialog.getSubscribersInfo():
                dialog.subscribe("test")
            if kind == "hear":
                _answered(memory, lambda: dialog.forceInput(step[1]), step[2])
            else:
                _answered(memory, lambda: memory.raiseEvent(step[1], step[2]), step[3])
    dialog.stopDialog()


def test_the_events_of_a_rule_are_found_wherever_they_are():
    topic = parse_topic("topic: ~t()\nu:([~yes e:Dialog/AnswerYes {e:Other}]) ok\n"
                        "u:(hello) hi\n    u1:([e:A \"thank you\" e:in]) fine\n")
    first, second = topic.rules
    assert first.events == ["Dialog/AnswerYes", "Other"] and second.events == []
    assert second.subrules[0].events == ["A", "in"]
    concept = qichat.topic_concept([topic], lambda name: [], topic)
    assert qichat.match_event(first, "Other", concept, lambda name: None)
    assert qichat.match_input(second.subrules[0], "thank you", concept, lambda name: None)
    assert not qichat.match_input(second.subrules[0], "e A", concept, lambda name: None)


# -- through a scenario, on a simulated robot serving libqi ---------------------------------
HELLO_WORLD = """topic: ~hello()
language: enu
concept:(yes) [yes yeah sure]
u:([e:RightBumperPressed e:LeftBumperPressed]) Do you want to play?
    u1:([~yes e:Dialog/AnswerYes]) Great, let us play
    u1:([no e:Dialog/AnswerNo]) Maybe later
u:(my name is _*) $name=$1 Nice to meet you $name
"""


def test_a_scenario_touches_says_and_raises_what_the_topic_waits_for():
    qi = pytest.importorskip("qi")
    from naoqi_qicore.robot.sim import SimulatedRobot
    robot = SimulatedRobot(robot="nao", listen="tcp://127.0.0.1:0").start()
    session = qi.Session()
    try:
        session.connect(robot.url)
        answers = []
        subscriber = session.service("ALMemory").subscriber("Dialog/Answered")
        subscriber.signal.connect(answers.append)
        dialog = session.service("ALDialog")
        dialog.activateTopic(dialog.loadTopicContent(HELLO_WORLD))
        dialog.subscribe("Test")
        lines = []
        runner = robot.play_scenario(parse_scenario("""
- touch: left_bumper
- after_say: do you want to play
  raise: {key: Dialog/AnswerYes, value: 1}
- after_say: let us play
  touch: right_bumper
- after_say: do you want to play
  hear: yeah
- after_say: let us play
  hear: my name is Ada
""", "hello.yaml"), lines.append)
        assert runner.wait(15), lines
        deadline = time.monotonic() + 5
        while "Nice to meet you Ada" not in answers and time.monotonic() < deadline:
            time.sleep(0.01)
        said = [a for a in answers if a]  # a touch raises its key when pressed and released
        assert said[0] == "Do you want to play?" and said[-1] == "Nice to meet you Ada"
        assert said.count("Great, let us play") == 2  # the event, then "yeah"
        assert session.service("ALMemory").getData("name") == "Ada"
    finally:
        session.close()
        robot.stop()
