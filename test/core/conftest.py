"""Fixtures of the engine tests (helpers live in core_builders.py, importable from tests)."""
import sys
from pathlib import Path
from typing import Any, List

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from core_builders import Harness  # noqa: E402
from naoqi_qicore.xar.model import Box  # noqa: E402


@pytest.fixture
def make_harness(request):
    if "robot" in request.fixturenames:
        # the session then closes after the behaviors are unloaded (fixtures end in
        # reverse order; libqi crashes when a proxy of a closed session is called)
        request.getfixturevalue("robot")
    made: List[Harness] = []

    def make(root: Box, **kwargs: Any) -> Harness:
        harness = Harness(root, **kwargs)
        made.append(harness)
        return harness
    yield make
    for harness in made:
        harness.player.unload()


@pytest.fixture
def robot():
    """A simulated NAO on a free loopback port and a qi session connected to it (set up
    before ``make_harness`` in the tests using both, so that it ends after it)."""
    qi = pytest.importorskip("qi")
    from naoqi_qicore.robot.sim import SimulatedRobot
    simulated = SimulatedRobot(robot="nao", listen="tcp://127.0.0.1:0").start()
    session = qi.Session()
    session.connect(simulated.url)
    yield simulated, session
    session.close()
    simulated.stop()
