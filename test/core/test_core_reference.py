"""libqicore's own tests that test_core_statemachine/test_core_timeline do not cover
(reference §6): the timed state machine tests of tests/test_statemachine.cpp@36a450e
(timeouts are timeline flags here) and python/tests/test_all.sh, which played the
fixture behaviors hello, parameters and un_wait_deux on a robot."""
import time
from pathlib import Path

import pytest

from naoqi_qicore.xar.model import BehaviorKeyframe, BehaviorLayer, Diagram
from naoqi_qicore.xar.parser import parse_xar_file

from core_builders import timeline_box

FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "reference" / \
    "reference-converter-2012"


def keyframes_root(fps, *keyframes):
    """A root timeline whose layer has empty keyframes ``(name, index)``: its states."""
    layer = BehaviorLayer("A", [BehaviorKeyframe(name, index, Diagram([], []))
                                for name, index in keyframes])
    return timeline_box("root", -1, [layer], fps=fps)


def test_two_states_with_time_out(make_harness):
    """s1 -> s2 after 300 ms: at 10 fps, s2 starts at frame 4."""
    harness = make_harness(keyframes_root(10, ("s1", 1), ("s2", 4)))
    harness.player.load()
    harness.player.play()
    harness.advance(0.2)
    assert harness.player.state_names == ["s1"]
    harness.advance(0.8)
    assert harness.player.state_names == ["s2"]


def test_ten_linear_states_with_time_out(make_harness):
    """Nine transitions of 50 ms: at 20 fps, one state a frame; after 2 s the last one."""
    harness = make_harness(keyframes_root(20, *(("s%d" % i, i + 1) for i in range(10))))
    harness.player.load()
    harness.player.play()
    harness.advance(2.0)
    entered = [event.detail for event in harness.kinds("state_entered")]
    assert entered == ["l0_root_state_%d" % i for i in range(10)]
    assert harness.player.state_names == ["s9"]


def test_four_states_mixed_time_out(make_harness):
    """s1 -> s2 after 100 ms, s2 -> s3 by hand (a goto), s3 -> s4 after 100 ms."""
    harness = make_harness(keyframes_root(10, ("s1", 1), ("s2", 2), ("s3", 100), ("s4", 101)))
    harness.player.load()
    harness.player.play()
    harness.advance(1.0)
    assert harness.player.state_names == ["s2"]
    harness.player.goto("s3")
    harness.settle()
    assert harness.player.state_names == ["s3"]
    harness.advance(1.0)
    assert harness.player.state_names == ["s4"]


def play_fixture(make_harness, robot, name):
    if not FIXTURES.is_dir():
        pytest.skip("reference fixtures not available at %s" % FIXTURES)
    simulated, session = robot
    root = parse_xar_file(FIXTURES / name / "input.xar").root
    harness = make_harness(root, session=session, naoqi=True)
    harness.player.load()
    harness.player.play()
    return harness


def said(simulated):
    return [call["args"][0].split("\\  ")[-1].split(" \\")[0].strip()
            for call in simulated.calls() if call["method"] == "say"]


def test_all_hello(make_harness, robot):
    """hello.xar: root onStart -> Say "Hello" -> root onStopped; main.py exits 0."""
    harness = play_fixture(make_harness, robot, "hello")
    assert harness.player.wait(20)
    assert harness.player.status == "FINISHED"
    assert harness.kinds("error") == []
    assert said(robot[0]) == ["Hello"]


def test_all_parameters(make_harness, robot, capsys):
    """parameters.xar: typed outputs and parameters along int -> string -> 2stringtable -> ok."""
    harness = play_fixture(make_harness, robot, "parameters")
    assert harness.player.wait(20)
    assert harness.player.status == "FINISHED"
    assert harness.kinds("error") == []
    assert "param1 = gna, param2 = gnagnnaa" in capsys.readouterr().out


def test_all_un_wait_deux(make_harness, robot):
    """un_wait_deux.xar: "Un" when the timeline starts, "Deux" at frame 121 (4.8 s at
    25 fps); a timeline without motion then plays on (test_all.sh's timeout: WARN)."""
    harness = play_fixture(make_harness, robot, "un_wait_deux")
    harness.settle()
    wait_for(lambda: said(robot[0]) == ["Un"])
    harness.advance(119 / 25)
    assert said(robot[0]) == ["Un"]
    harness.advance(2 / 25)
    wait_for(lambda: said(robot[0]) == ["Un", "Deux"])
    assert harness.kinds("error") == []
    assert harness.player.status == "PLAYING"


def wait_for(condition, timeout=10.0):
    """Say boxes speak in threads of their own on the real robot protocol."""
    limit = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < limit, "timed out"
        time.sleep(0.01)
