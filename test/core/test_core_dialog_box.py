"""Dialog boxes (a ``<dialogFile>``, no script) on the simulated robot's ALDialog."""
import time

import pytest

from core_builders import BANG, flow_box, inputs, link, script_box, stopped
from naoqi_qicore.core.dialog_box import is_dialog_box, topic_files
from naoqi_qicore.xar.model import Box, Port, Script

STRING, PUNCTUAL = 3, 2
ENGLISH = """topic: ~Hello()
language: enu
u:(hello) hi there
u:(tea please) $choice=tea
u:(bye) see you $onStopped=1
"""
FRENCH = "topic: ~Hello()\nlanguage: frf\nu:(bonjour) salut\n"


@pytest.fixture
def project(tmp_path):
    (tmp_path / "behavior_1").mkdir()
    (tmp_path / "Hello").mkdir()
    (tmp_path / "Hello" / "Hello.dlg").write_text(
        "multilanguage:Hello\n  enu:Hello_enu.top\n  frf:Hello_frf.top\n")
    (tmp_path / "Hello" / "Hello_enu.top").write_text("\ufeff" + ENGLISH)  # with a BOM
    (tmp_path / "Hello" / "Hello_frf.top").write_text(FRENCH)
    return tmp_path


def dialog_box(box_id: int) -> Box:
    return Box("Hello", box_id, inputs=inputs(),
               outputs=[stopped(4), Port("choice", STRING, 1, PUNCTUAL, 5), Port("hi", BANG, 1,
                                                                                   PUNCTUAL, 6)],
               script=Script(4, ""), dialog_files=["../Hello/Hello.dlg"])


def wait_for(condition, seconds=5.0):
    limit = time.monotonic() + seconds
    while not condition() and time.monotonic() < limit:
        time.sleep(0.01)
    return condition()


def test_dialog_files_name_a_topic_per_language(project):
    dlg = str(project / "Hello" / "Hello.dlg")
    assert topic_files(dlg, "French") == [str(project / "Hello" / "Hello_frf.top")]
    assert topic_files(dlg, "Korean") == []
    assert topic_files("a/b.top", "English") == ["a/b.top"]
    assert is_dialog_box(dialog_box(1))
    assert not is_dialog_box(script_box("Say", 1, "def onLoad(self):\n    pass"))


def test_a_dialog_box_talks_and_fires_its_outputs(make_harness, robot, project):
    simulated, session = robot
    recorder = script_box("Got", 2, """
def onInput_onStart(self, value):
    record("choice", value)
""", extra_inputs=(), outputs=[stopped(4)])
    recorder.inputs[1] = Port("onStart", STRING, 1, 2, 2)
    root = flow_box("root", -1, [dialog_box(1), recorder],
                    [link(0, 2, 1, 2), link(1, 5, 2, 2), link(1, 4, 0, 4)])
    harness = make_harness(root, session=session, naoqi=True)
    harness.player.behavior_path = str(project / "behavior_1")
    dialog = session.service("ALDialog")
    harness.player.load()
    harness.player.play()
    harness.settle()
    assert dialog.getActivatedTopics() == ["Hello"]
    assert dialog.getLoadedTopics("French") == []
    dialog.forceInput("hello")
    assert simulated.service("ALMemory").getData("Dialog/Answered") == "hi there"
    dialog.forceInput("tea please")
    assert wait_for(lambda: ("choice", "tea") in harness.log)
    dialog.forceInput("bye")
    assert harness.player.wait(5) and harness.player.status == "FINISHED"
    assert dialog.getAllLoadedTopics() == [] and dialog.getSubscribersInfo() == []
    assert harness.kinds("error") == []


def test_a_dialog_box_without_a_topic_for_the_language_reports_it(make_harness, robot, project):
    simulated, session = robot
    session.service("ALDialog").setLanguage("Korean")
    harness = make_harness(flow_box("root", -1, [dialog_box(1)], [link(0, 2, 1, 2)]),
                           session=session, naoqi=True)
    harness.player.behavior_path = str(project / "behavior_1")
    harness.player.load()
    harness.player.play()
    harness.settle()
    [error] = harness.kinds("error")
    assert error.box_path == "root/Hello" and "no topic in ../Hello/Hello.dlg" in error.detail
    assert "Korean" in error.detail
    assert session.service("ALDialog").getAllLoadedTopics() == []


def test_included_topics_next_to_a_topic_are_inlined(tmp_path):
    """``include:`` of a file beside the topic travels with its content; the robot's own
    lexicon (no file here) is left for ALDialog."""
    from naoqi_qicore.core.dialog_box import topic_content
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "concepts_enu.top").write_text(
        "topic: ~concepts()\nlanguage: enu\nconcept:(fruit) [apple pear]\n")
    (tmp_path / "main").mkdir()
    (tmp_path / "main" / "main_enu.top").write_text(
        "topic: ~main()\nlanguage: enu\ninclude: lexicon_enu.top\n"
        "include: ../shared/concepts_enu.top\nu:(~fruit) yummy\n")
    content = topic_content(str(tmp_path / "main" / "main_enu.top"))
    assert content == ("topic: ~main()\nlanguage: enu\ninclude: lexicon_enu.top\n"
                       "concept:(fruit) [apple pear]\nu:(~fruit) yummy\n")
