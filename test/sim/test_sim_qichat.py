"""QiChat as the simulated ALDialog reads and plays it: each syntax case, then the engine
(proposals, event rules, ^call, variables) on a simulated robot built in-process."""
import time

import pytest

from naoqi_qicore.robot.robot_files import RobotFiles
from naoqi_qicore.robot.sim.context import SimContext
from naoqi_qicore.robot.sim.robot import core_service_classes
from naoqi_qicore.robot.sim.services import SERVICE_CLASSES, qichat, speech
from naoqi_qicore.robot.sim.services.qichat import TopicError, parse_topic


def _answers(topic, heard, concepts=None, variables=None):
    """(rule line, stored words) of the rule answering ``heard``, or None."""
    found = qichat.find_answer([topic], heard, lambda name: (concepts or {}).get(name, []),
                               variable=lambda name: (variables or {}).get(name))
    return None if found is None else (found[1].line, found[2])


def _say(topic, rule, stored=(), variables=None):
    concept = qichat.topic_concept([topic], lambda name: [], topic)
    return qichat.render_output(rule.output, topic, stored, concept,
                                lambda name: (variables or {}).get(name))


# -- reading --------------------------------------------------------------------------------
def test_rules_and_concepts_go_on_on_the_next_lines():
    topic = parse_topic("""topic: ~t()
language: enu
concept:(fruit) [
    apple
    "passion fruit"   # a comment inside the list
]
u:(I like ~fruit) Me too,
    fruit is good.
    ^start(animations/Stand/Gestures/Yes_1) Really!
u:(bye) see you
""")
    assert topic.concepts["fruit"]
    first = topic.rules[0]
    assert first.line == 7 and "fruit is good." in first.answer
    assert _answers(topic, "I like passion fruit") == (7, [])
    said = _say(topic, first)
    assert said.text == "Me too, fruit is good. Really!"
    assert said.actions == [("start", "animations/Stand/Gestures/Yes_1")]
    with pytest.raises(TopicError, match=r"line 3: cannot read 'oops' \(a language: line"):
        parse_topic("topic: ~t()\nlanguage: enu\n  oops\n")


def test_script_sections_are_kept_with_their_rule_and_not_read_as_qichat():
    topic = parse_topic("""topic: ~t()
language: enu
u:(my name is _*) $name=$1 your name is
%script
# a Python comment, [unbalanced ( brackets
print ALMemory.getData("name")
%script
u:(add) the sum is %script
print 1 + 1
%script now
""")
    first, second = topic.rules
    assert first.scripts == ['# a Python comment, [unbalanced ( brackets\n'
                             'print ALMemory.getData("name")']
    assert second.scripts == ["print 1 + 1"] and _say(topic, second).text == "the sum is now"
    said = _say(topic, first, ["Ada"])
    assert said.assignments == [("name", "Ada")] and said.scripts == first.scripts
    with pytest.raises(TopicError, match="line 3: unclosed %script"):
        parse_topic("topic: ~t()\nu:(a) b\n%script\nprint 1\n")
    with pytest.raises(TopicError, match="line 2: %script outside a rule"):
        parse_topic("topic: ~t()\n%script\nx = 1\n%script\n")


def test_an_output_is_rendered_into_its_steps_in_the_order_they_stand():
    topic = parse_topic("""topic: ~t()
language: enu
u:(hi) Hello ["$x==1 dear" friend] $slide=2 I am ^start(animations/Stand/Gestures/Hey_1) Pepper
%script
print 1
%script ^goto(end) $done=1
proposal: %end ~bye
""")
    said = _say(topic, topic.rules[0])
    assert said.steps == [
        ("say", "Hello friend"), ("set", "slide", "2"), ("say", "I am"),
        ("do", "start", "animations/Stand/Gestures/Hey_1"), ("say", "Pepper"),
        ("script", "print 1"), ("do", "goto", "end"), ("set", "done", "1")]
    assert said.text == "Hello friend I am Pepper"
    assert said.assignments == [("slide", "2"), ("done", "1")]
    assert said.actions == [("start", "animations/Stand/Gestures/Hey_1"), ("goto", "end")]
    assert said.scripts == ["print 1"]


def test_topics_in_other_languages_and_language_names():
    japanese = parse_topic("topic: ~jp()\nlanguage: jpj\nconcept:(wine) [白 赤]\n"
                           "u:(こんにちは) やあ\n")
    assert japanese.language == "jpj" and _answers(japanese, "こんにちは") == (4, [])
    assert parse_topic("topic: ~t()\nlanguage: English\nu:(hi) hello\n").language == "English"
    for code in ("frf", "ged", "czc", "spe", "iti", "fif"):
        assert parse_topic("topic: ~t()\nlanguage: %s\nu:(a) b\n" % code).language == code
    with pytest.raises(TopicError, match="line 2: language: needs one language code"):
        parse_topic("topic: ~t()\nlanguage:\nu:(a) b\n")


def test_sub_rules_under_proposals_nested_and_after_other_sub_rules():
    topic = parse_topic("""topic: ~t()
proposal: %start Ready?
    u1:(yes) Good
        u2:(really) Really
            u3:(sure) Sure
        u2:(no) No
    u1:(no) Pity
proposal: Next?
        u2:(again) Again
u:(hello) hi
    u1 : (there) there
""")
    ready, following = topic.proposals
    assert ready.tags == ["start"] and [r.line for r in ready.subrules] == [3, 7]
    good, pity = ready.subrules
    assert [r.line for r in good.subrules] == [4, 6]
    assert good.subrules[0].subrules[0].line == 5
    assert [r.line for r in pity.subrules] == [9]  # a u2: goes on the last u1: read
    assert following.subrules == [] and topic.rules[0].subrules[0].pattern == "there"
    with pytest.raises(TopicError, match="line 3: u2: without a u1: rule above it"):
        parse_topic("topic: ~t()\nu:(a) b\nu2:(c) d")


def test_comments_rule_functions_and_events():
    topic = parse_topic("""topic: ~t()   # the header may have a comment
# u:(commented) out
u:^private(secret) only with the focus # trailing comment
u:(e:Dialog/NotUnderstood) Sorry?
u:(e:Bell $Bell==2) Ding
u:(in:onActivation) Go
""")
    private, sorry, bell, activation = topic.rules
    assert private.private and private.answer == "only with the focus"
    assert (sorry.events, bell.events, activation.events) == (
        ["Dialog/NotUnderstood"], ["Bell"], ["in:onActivation"])
    assert _answers(topic, "Dialog NotUnderstood") is None  # events are not words
    concept = qichat.topic_concept([topic], lambda name: [], topic)
    assert qichat.match_event(bell, "Bell", concept, lambda name: "2")
    assert not qichat.match_event(bell, "Bell", concept, lambda name: "1")
    assert not qichat.match_event(bell, "Dialog/NotUnderstood", concept, lambda name: "2")


def test_variables_captures_and_conditions():
    topic = parse_topic("""topic: ~t()
u:(my name is _*) Nice to meet you $1 $name = $1
u:({Pepper} what is ["the sum of _* and _*" "_* [plus and] _*"]) $a=$1 $b=$2 ok
u:($mood==happy how are you) Great
u:(how are you) ^first["$mood==sad Not so well" "Fine, $name"]
u:(what is my name) Your name is $name
""")
    assert _answers(topic, "My name is Ada Lovelace") == (2, ["Ada Lovelace"])
    said = _say(topic, topic.rules[0], ["Ada"])
    assert said.text == "Nice to meet you Ada" and said.assignments == [("name", "Ada")]
    assert _answers(topic, "what is 3 plus 4") == (3, ["3", "4"])
    assert _answers(topic, "Pepper what is the sum of 10 and 20") == (3, ["10", "20"])
    assert _answers(topic, "how are you", variables={"mood": "happy"}) == (4, [])
    assert _answers(topic, "how are you", variables={"mood": "sad"}) == (5, [])
    assert _say(topic, topic.rules[3], variables={"mood": "sad"}).text == "Not so well"
    assert _say(topic, topic.rules[3], variables={"name": "Bo"}).text == "Fine, Bo"
    with pytest.raises(qichat.Undefined):
        _say(topic, topic.rules[4])


def test_output_choices_functions_and_bookmarks():
    topic = parse_topic("""topic: ~t()
concept:(greeting) ^rand[hi hello]
u:(hello) [first second] %mark ^wait(animations/x) ~greeting ^goto(next)
u:(count) ^enumerate(~greeting) \\pau=200\\ done
""")
    rule = topic.rules[0]
    said = _say(topic, rule)
    assert said.text.startswith("first ") and said.text.split()[1] in ("hi", "hello")
    assert said.bookmarks == ["mark"]
    assert said.actions == [("wait", "animations/x"), ("goto", "next")]
    assert _say(topic, rule).text.startswith("second ")  # choices are said in turn
    assert _say(topic, rule).text.startswith("first ")
    assert _say(topic, topic.rules[1]).text == "hi, hello \\pau=200\\ done"
    with pytest.raises(TopicError, match="line 2: unclosed '\\(' of \\^goto"):
        parse_topic("topic: ~t()\nu:(a) ^goto(b\n")
    with pytest.raises(TopicError, match=r"line 2: \^rand needs a choice"):
        parse_topic("topic: ~t()\nu:(a) ^rand hello\n")


def test_nested_quotes_concepts_with_assignments_and_dynamic_concepts():
    topic = parse_topic("""topic: ~t()
dynamic: fruit
concept:(repeat) ["what ["did you say" "were you [saying "asking me"]"] {again}" pardon]
concept:(day) ["[1st first] $day=1" "[2nd second] $day=2"]
u:(~repeat) I said hello
u:(I like ~fruit) me too
u:(the ~day) noted
""")
    assert _answers(topic, "what were you asking me again") == (5, [])
    assert _answers(topic, "what did you say") == (5, [])
    assert _answers(topic, "I like kiwis") is None
    assert _answers(topic, "I like kiwis", {"fruit": ["kiwis", "mangoes"]}) == (6, [])
    found = qichat.match_input(topic.rules[2], "the second",
                               qichat.topic_concept([topic], lambda n: [], topic),
                               lambda name: None)
    assert found is not None and found.assignments == [("day", "2")]
    with pytest.raises(TopicError, match=r"line 2: unclosed '\['"):
        parse_topic('topic: ~t()\nconcept:(x) ["a b" [c d\n')
    with pytest.raises(TopicError, match=r"line 3: unbalanced '\]'"):
        parse_topic('topic: ~t()\nconcept:(x) [a b]\n  c]\n')


def test_includes_beside_the_file_the_robot_lexicon_and_errors(tmp_path):
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "words.top").write_text(
        "topic: ~words()\nlanguage: enu\nconcept:(colour) [red blue]\n")
    main = tmp_path / "main_enu.top"
    main.write_text("topic: ~main()\nlanguage: enu\ninclude: shared/words.top\n"
                    "include: lexicon_enu.top\nu:(~colour) nice\nu:(~yes) good\n")
    topic = parse_topic(main.read_text(), str(main))
    assert _answers(topic, "blue") == (5, []) and _answers(topic, "of course") == (6, [])
    missing = tmp_path / "missing_enu.top"
    missing.write_text("topic: ~m()\n\ninclude: nowhere.top\n")
    with pytest.raises(TopicError, match=r"missing_enu\.top:3: include: file 'nowhere\.top' "
                                         r"does not exist"):
        parse_topic(missing.read_text(), str(missing))
    (tmp_path / "rules.top").write_text("topic: ~r()\nu:(a) b\n")
    main.write_text("topic: ~main()\ninclude: rules.top\n")
    with pytest.raises(TopicError, match="main_enu.top:2: include: 'rules.top' has rules"):
        parse_topic(main.read_text(), str(main))
    broken = tmp_path / "shared" / "words.top"
    broken.write_text("topic: ~words()\nconcept:(colour) [red blue\n")
    main.write_text("topic: ~main()\ninclude: shared/words.top\n")
    with pytest.raises(TopicError, match=r"words\.top:2: unclosed '\['"):
        parse_topic(main.read_text(), str(main))
    with pytest.raises(TopicError, match="line 2: include: 'x.top' is relative and the topic "
                                         "has no file"):
        parse_topic("topic: ~t()\ninclude: x.top\n")


def test_the_robot_lexicon_and_a_phrase_left_open_at_the_end_of_its_line():
    topic = parse_topic("topic: ~t()\nconcept:(angry) [\n"
                        '    "you are [silly "quite wrong"]\n'
                        '    "that stinks"\n]\nu:(~angry) sorry\n')
    assert _answers(topic, "that stinks") == (6, [])
    assert _answers(topic, "you are quite wrong") == (6, [])
    assert [w.line for w in topic.warnings] == [3]


def test_load_topic_errors_name_the_file_and_the_line(sim, tmp_path):
    dialog = sim.service("ALDialog")
    path = sim.files.local("/home/nao/bad_enu.top").path
    path.write_text("topic: ~bad()\nlanguage: enu\nu:(fine) ok\nu:(broken [input) no\n")
    with pytest.raises(RuntimeError, match=r"ALDialog::loadTopic: /home/nao/bad_enu\.top:4: "
                                           r"unclosed '\['"):
        dialog.loadTopic("/home/nao/bad_enu.top")
    path.write_text("topic: ~bad()\nlanguage: xxx\nu:(fine) ok\n")
    with pytest.raises(RuntimeError, match=r"bad_enu\.top:2: language 'xxx' is not installed"):
        dialog.loadTopic("bad_enu.top")  # relative: from /home/nao
    path.write_bytes(b"topic: ~bad()\nu:(caf\xe9) ok\n")
    with pytest.raises(RuntimeError, match="not UTF-8 text"):
        dialog.loadTopic(str(path))  # this machine's path of the robot's file
    assert dialog.getAllLoadedTopics() == []


# -- the engine -----------------------------------------------------------------------------
@pytest.fixture
def sim(monkeypatch, tmp_path):
    """A simulated NAO built in-process (real ALMemory, ALTextToSpeech...)."""
    monkeypatch.setattr(speech, "SECONDS_PER_CHARACTER", 0.0005)
    classes = {**SERVICE_CLASSES, **core_service_classes()}
    context = SimContext("nao", {n: c for n, c in classes.items() if "nao" in c.ROBOTS})
    context.files = RobotFiles(tmp_path / "robot")
    yield context
    context.close()


def _last(memory, key="Dialog/Answered"):
    try:
        return memory.getData(key)
    except RuntimeError:
        return None


def _until(predicate, timeout=3.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.005)
    return predicate()


CAFE = """topic: ~cafe()
language: enu
concept:(drink) [tea coffee "hot chocolate"]
u:(e:onStart) Welcome! ^goto(ask)
u:(e:Bell $Bell==2) Ding dong
u:(e:Dialog/NotUnderstood) Sorry?
u:(how many cups) ^call(ALMemory.getData("cups"))
    c1:(0) None yet
    c1:(_*) There are $1 cups
u:(my name is _*) Hello $1 $name=$1
u:(who am i) ^first["You are $name" "I do not know"]
u:(forget me) ^clear(name) done
u:(menu) ^gotoReactivate(ask)
proposal: %ask Tea or coffee?
    u1:(_~drink) One $1 coming ^nextProposal
    u1:(nothing) Fine ^sameProposal
proposal: Anything else?
    u1:(no) Bye $done=1
"""


def test_proposals_goto_next_same_and_reactivate(sim):
    dialog, memory = sim.service("ALDialog"), sim.service("ALMemory")
    dialog.activateTopic(dialog.loadTopicContent(CAFE))
    dialog.subscribe("test")
    assert _until(lambda: _last(memory) == "Tea or coffee?")  # e:onStart, then ^goto(ask)
    dialog.forceInput("nothing")
    assert _last(memory) == "Tea or coffee?"  # ^sameProposal
    dialog.forceInput("Hot Chocolate")
    assert memory.getData("ALTextToSpeech/CurrentSentence") == "Anything else?"
    dialog.forceInput("no")
    assert _last(memory) == "Bye" and memory.getData("done") == "1"
    dialog.forceInput("menu")  # the used proposal comes back with ^gotoReactivate
    assert _last(memory) == "Tea or coffee?"
    dialog.forceInput("tea")
    assert _last(memory) == "One tea coming"  # ^nextProposal: "Anything else?" was said
    with pytest.raises(RuntimeError, match="no proposal to make"):
        dialog.forceOutput()
    dialog.unsubscribe("test")


def test_event_rules_call_callbacks_and_variables(sim):
    dialog, memory = sim.service("ALDialog"), sim.service("ALMemory")
    dialog.activateTopic(dialog.loadTopicContent(CAFE))
    dialog.subscribe("test")
    assert _until(lambda: _last(memory) == "Tea or coffee?")
    assert memory.getSubscribers("Bell") == ["ALDialog"]
    memory.raiseEvent("Bell", 1)
    memory.raiseEvent("Bell", 2)
    assert _until(lambda: _last(memory) == "Ding dong")
    memory.insertData("cups", 0)
    dialog.forceInput("how many cups")
    assert _last(memory) == "None yet"
    memory.insertData("cups", 3)
    dialog.forceInput("how many cups")
    assert _last(memory) == "There are 3 cups"
    dialog.forceInput("who am I")
    assert _last(memory) == "I do not know"
    dialog.forceInput("my name is Ada")
    dialog.forceInput("who am I")
    assert _last(memory) == "You are Ada"
    dialog.forceInput("forget me")
    dialog.forceInput("who am I")
    assert _last(memory) == "I do not know"
    dialog.forceInput("something else entirely")
    assert memory.getData("Dialog/NotUnderstood") == "something else entirely"
    assert _until(lambda: _last(memory) == "Sorry?")  # its e:Dialog/NotUnderstood rule
    dialog.unsubscribe("test")
    assert memory.getSubscribers("Bell") == []


def test_a_topic_activated_while_the_dialog_runs_starts_and_private_rules(sim):
    dialog, memory = sim.service("ALDialog"), sim.service("ALMemory")
    dialog.activateTopic(dialog.loadTopicContent(
        "topic: ~a()\nlanguage: enu\nu:(hello) hi from a\nu:^private(secret) a's secret\n"))
    dialog.subscribe("test")
    dialog.activateTopic(dialog.loadTopicContent(
        "topic: ~b()\nlanguage: enu\nu:(e:onStart) b starts\nu:^private(code) b's code\n"))
    assert _until(lambda: _last(memory) == "b starts")
    dialog.setFocus("a")
    dialog.forceInput("code")  # b's private rule: b has not the focus
    assert memory.getData("Dialog/NotUnderstood") == "code"
    dialog.forceInput("secret")
    assert _last(memory) == "a's secret"
    dialog.setFocus("b")
    dialog.forceInput("code")
    assert _last(memory) == "b's code"
    dialog.unsubscribe("test")


def test_french_topics_answer_in_french_only(sim):
    dialog, memory = sim.service("ALDialog"), sim.service("ALMemory")
    dialog.activateTopic(dialog.loadTopicContent(
        "topic: ~salut()\nlanguage: frf\nu:(bonjour {robot}) salut\n"))
    assert dialog.getLoadedTopics("French") == ["salut"]
    dialog.subscribe("test")
    dialog.forceInput("bonjour")
    assert memory.getData("Dialog/NotUnderstood") == "bonjour"  # the dialog speaks English
    dialog.setLanguage("French")
    dialog.forceInput("Bonjour robot")
    assert _last(memory) == "salut"
    dialog.unsubscribe("test")


def test_an_event_rule_sees_the_value_its_event_carried(sim):
    """ALMemory may hold a later value of the key by the time an event rule is answered
    (events are delivered on libqi's threads): the rule's $key is the event's own value."""
    dialog, memory = sim.service("ALDialog"), sim.service("ALMemory")
    dialog.activateTopic(dialog.loadTopicContent(
        "topic: ~bells()\nlanguage: enu\nu:(e:Bell $Bell==2) Ding dong\n"
        "u:(e:Bell) bell $Bell\n"))
    dialog.subscribe("test")
    said = []
    link = memory.subscriber("Dialog/Answered")
    link.signal.connect(said.append)
    for value in (1, 2, 3):
        memory.raiseEvent("Bell", value)
    assert _until(lambda: len(said) == 3)
    assert sorted(said) == ["Ding dong", "bell 1", "bell 3"]
    dialog.unsubscribe("test")


def test_an_input_that_backtracks_without_end_does_not_hold_the_robot(caplog):
    """Wildcards nested so that Python's ``re`` takes minutes on a long sentence: the rule
    is taken as not matching it, in a bounded time, with a warning; other rules still
    match."""
    topic = parse_topic("topic: ~t()\nlanguage: enu\n"
                        "u:(" + "* " * 12 + "{[a b]} * x) never\n"
                        "u:(hello *) hi\n")
    concept = qichat.topic_concept([topic], lambda name: [], topic)
    sentence = " ".join(["word"] * 60)
    started = time.monotonic()
    assert qichat.match_input(topic.rules[0], sentence, concept, lambda name: None) is None
    assert time.monotonic() - started < 2.0
    found = qichat.match_input(topic.rules[1], "hello " + sentence, concept,
                               lambda name: None)
    assert found is not None
