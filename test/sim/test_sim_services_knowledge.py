"""ALKnowledge (the robot's triple store) and ALPythonBridge (Python evaluated in the robot)."""
import os
import re
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from test_sim_services_context import FakeSim, sim  # noqa: E402,F401  (fixtures)


# -- ALKnowledge ----------------------------------------------------------------------------
def test_triples_are_added_read_and_counted(sim):
    knowledge = sim.service("ALKnowledge")
    knowledge.add("home", "sky", "colour", "blue")
    knowledge.add("home", "sky", "colour", "grey")
    knowledge.add("home", "user_42", "name", "Paul")
    knowledge.add("work", "sky", "colour", "black")
    assert knowledge.getObject("home", "sky", "colour") == ["blue", "grey"]
    assert knowledge.getSubject("home", "name", "Paul") == ["user_42"]
    assert knowledge.getPredicate("home", "user_42", "Paul") == ["name"]
    assert knowledge.getObject("work", "sky", "colour") == ["black"]  # domains are apart
    assert knowledge.getObject("home", "sea", "colour") == []
    knowledge.add("home", "sky", "colour", "blue")  # again: counted, not duplicated
    assert knowledge.getObject("home", "sky", "colour") == ["blue", "grey"]
    metadata = knowledge._metadata("home", ("sky", "colour", "blue"))
    assert metadata["addingCount"] == ["2"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", metadata["addedDate"][0])
    with pytest.raises(RuntimeError, match=r"ALKnowledge::add: a triple needs .*object"):
        knowledge.add("home", "sky", "colour", "")
    with pytest.raises(RuntimeError, match="ALKnowledge::add: the domain is empty"):
        knowledge.add("", "sky", "colour", "blue")


def test_queries_contains_and_wildcards(sim):
    knowledge = sim.service("ALKnowledge")
    for subject, predicate, obj in [("sky", "colour", "blue"), ("sea", "colour", "blue"),
                                    ("sea", "taste", "salt")]:
        knowledge.add("d", subject, predicate, obj)
    assert knowledge.contains("d", "sea", "taste", "salt")
    assert knowledge.contains("d", "", "colour", "")
    assert not knowledge.contains("d", "sky", "taste", "")
    assert knowledge.query("d", "", "colour", "blue") == ["sky", "sea"]
    assert knowledge.query("d", "sea", "", "salt") == ["taste"]
    assert knowledge.queryTriplet("d", "sea", "", "") == [["sea", "colour", "blue"],
                                                         ["sea", "taste", "salt"]]
    assert knowledge.queryTriplet("d", "", "", "") == [
        ["sky", "colour", "blue"], ["sea", "colour", "blue"], ["sea", "taste", "salt"]]
    with pytest.raises(RuntimeError, match="leave exactly one of subject, predicate and "
                                           "object empty \\(2 are\\)"):
        knowledge.query("d", "sea", "", "")


def test_update_remove_reset_and_ids(sim):
    knowledge = sim.service("ALKnowledge")
    knowledge.add("d", "lamp", "state", "on")
    knowledge.add("d", "lamp", "colour", "red")
    lamp = knowledge.getId("d", "lamp", "state", "on")
    assert knowledge.getTripletFromId("d", lamp) == ["lamp", "state", "on"]
    knowledge.update("d", "lamp", "state", "off")
    assert knowledge.getObject("d", "lamp", "state") == ["off"]
    assert knowledge.getId("d", "lamp", "state", "off") != lamp
    with pytest.raises(RuntimeError, match="no triple with id"):
        knowledge.getTripletFromId("d", lamp)
    with pytest.raises(RuntimeError, match="ALKnowledge::getId: no triple lamp - state - on"):
        knowledge.getId("d", "lamp", "state", "on")
    knowledge.remove("d", "lamp", "", "")
    assert knowledge.queryTriplet("d", "", "", "") == []
    knowledge.add("d", "a", "b", "c")
    knowledge.add("e", "a", "b", "c")
    knowledge.resetKnowledge("d")
    assert not knowledge.contains("d", "", "", "")
    assert knowledge.contains("e", "a", "b", "c")


# -- ALPythonBridge -------------------------------------------------------------------------
def test_eval_runs_statements_in_one_namespace(sim):
    sim.allow_eval = True
    bridge = sim.service("ALPythonBridge")
    assert bridge.eval("total = 40\ndef add(a, b):\n    return a + b\n") == ""
    assert bridge.evalReturn("add(total, 2)") == 42
    error = bridge.eval("1 / 0")
    assert error.startswith("Traceback") and "ZeroDivisionError: division by zero" in error
    assert "pythonbridge.py" not in error  # the evaluated code's frames only
    assert "SyntaxError" in bridge.eval("def (")
    with pytest.raises(RuntimeError, match="ALPythonBridge::evalReturn: .*NameError"):
        bridge.evalReturn("missing_name")
    with pytest.raises(RuntimeError, match=r"evalReturn: File \"<ALPythonBridge>\", line 1"
                                           r"\n(.*\n)+SyntaxError: invalid syntax"):
        bridge.evalReturn("x = 1")  # a statement has no value


def test_eval_full_reports_value_error_and_printed_text(sim):
    import sys as system
    sim.allow_eval = True
    bridge = sim.service("ALPythonBridge")
    assert bridge.evalFull("[1, 'a', {'k': 2.5}, None, (3, 4)]") == [
        [1, "a", {"k": 2.5}, None, [3, 4]], "", "", ""]
    value, error, out, err = bridge.evalFull(
        "import sys\nprint('hello', 42)\nprint('oops', file=sys.stderr)\nx = 1")
    assert (value, error, out, err) == (None, "", "hello 42\n", "oops\n")
    value, error, out, _ = bridge.evalFull("print('before')\nraise ValueError('bad')")
    assert value is None and out == "before\n" and "ValueError: bad" in error
    value, error, _, _ = bridge.evalFull("object()")
    assert value is None and "cannot be sent back as a NAOqi value" in error
    with pytest.raises(RuntimeError, match=r"the result\[1\] \(a object\) cannot be sent"):
        bridge.evalReturn("[1, object()]")
    assert system.stdout is not None  # the robot's own output is untouched


def test_python_bridge_evaluates_only_when_allowed_and_on_loopback():
    robot = FakeSim("nao")
    bridge = robot.service("ALPythonBridge")
    try:
        for method, code in (("eval", "x = 1"), ("evalReturn", "6 * 7"), ("evalFull", "1")):
            with pytest.raises(RuntimeError, match=r"ALPythonBridge::%s: evaluating Python code "
                                                   r"is off .* naoqi_sim --allow-eval" % method):
                getattr(bridge, method)(code)
        robot.allow_eval = True
        robot.endpoints = ["tcp://127.0.0.1:9559", "tcp://192.168.1.20:9559"]
        with pytest.raises(RuntimeError, match="listens on tcp://127.0.0.1:9559, "
                                               "tcp://192.168.1.20:9559, not only on loopback"):
            bridge.eval("x = 1")
        robot.endpoints = ["tcp://127.0.0.1:9559", "tcp://localhost:9559"]
        assert bridge.evalReturn("6 * 7") == 42
    finally:
        robot.close()


def test_knowledge_and_python_bridge_over_libqi():
    qi = pytest.importorskip("qi")
    from naoqi_qicore.robot.sim import SimulatedRobot
    with SimulatedRobot(robot="pepper", listen="tcp://127.0.0.1:0", allow_eval=True) as robot:
        session = qi.Session()
        session.connect(robot.url)
        bridge = session.service("ALPythonBridge")
        assert bridge.eval("names = ['a', 'b']") == ""
        assert bridge.evalReturn("names + ['c']") == ["a", "b", "c"]
        assert bridge.evalFull("print(len(names))")[2] == "2\n"
        knowledge = session.service("ALKnowledge")
        knowledge.add("com.aldebaran.learning", "user_1", "name", "Paul")
        assert knowledge.queryTriplet("com.aldebaran.learning", "user_1", "", "") == [
            ["user_1", "name", "Paul"]]
        with pytest.raises(RuntimeError, match="ALKnowledge::query: leave exactly one"):
            knowledge.query("com.aldebaran.learning", "", "", "")
        session.close()
