"""The simulated robot opens its port only once every service is registered: a client that
connects the moment it can (as behavior_runner and naoqi_bridge do, retrying) finds them
all, not the first few."""
import subprocess
import sys
import time
from pathlib import Path

import pytest

qi = pytest.importorskip("qi")

from naoqi_qicore.ros.launcher import free_tcp_port  # noqa: E402
from naoqi_qicore.robot.sim import SimulatedRobot  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def first_services(url: str, process: subprocess.Popen, timeout: float = 30.0) -> set:
    """The service names a client sees on its first successful connection to ``url``,
    trying as fast as it can."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, "naoqi_sim exited"
        session = qi.Session()
        try:
            session.connect(url)
        except RuntimeError:
            time.sleep(0.002)
            continue
        try:
            return {info["name"] for info in session.services()}
        finally:
            session.close()
    pytest.fail("could not connect to %s within %.0f s" % (url, timeout))


@pytest.mark.parametrize("robot", ["nao", "pepper"])
def test_a_client_connecting_at_once_finds_every_service(robot):
    url = "tcp://127.0.0.1:%d" % free_tcp_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "naoqi_qicore.robot.sim", "--robot", robot, "--listen", url],
        cwd=str(REPO), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        seen = first_services(url, process)
    finally:
        process.terminate()
        process.wait(10)
    with SimulatedRobot(robot=robot, listen="tcp://127.0.0.1:0") as reference:
        every = set(reference.services())
    assert "ALTextToSpeech" in every and every <= seen, sorted(every - seen)
