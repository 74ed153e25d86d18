"""The simulated robot behavior_runner starts in-process evaluates no code for other local
processes unless the user sets ``allow_eval`` (issue 21, point 2)."""
import re

import pytest

from process_tools import wait_until

qi = pytest.importorskip("qi")

STARTED = re.compile(r"no robot given: simulated robot at (tcp://127\.0\.0\.1:\d+)")


def _bridge_of(runner):
    url = wait_until(lambda: STARTED.search(runner.output()), 60,
                     "the runner's in-process robot").group(1)
    session = qi.Session()
    session.connect(url)
    return session, session.service("ALPythonBridge")


def test_the_runners_simulated_robot_evaluates_no_code_by_default(programs):
    runner = programs("runner")
    session, bridge = _bridge_of(runner)
    try:
        with pytest.raises(RuntimeError, match=r"ALPythonBridge::eval: evaluating Python code "
                                               r"is off .*allow_eval parameter of "
                                               r"behavior_runner"):
            bridge.eval("import os; os.getpid()")
    finally:
        session.close()


def test_allow_eval_turns_the_bridge_on_for_behaviors_that_need_it(programs):
    runner = programs("runner", "-p", "allow_eval:=true")
    session, bridge = _bridge_of(runner)
    try:
        assert bridge.evalReturn("6 * 7") == 42
    finally:
        session.close()
