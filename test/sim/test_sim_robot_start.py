"""A robot that is starting: the simulated robot opens its port only once every service is
registered (a client that connects the moment it can, as behavior_runner and naoqi_bridge
do, finds them all, not the first few), and clients wait for the services they need while
a robot registers services."""
import subprocess
import threading
import sys
import time
from pathlib import Path

import pytest

qi = pytest.importorskip("qi")

from naoqi_qicore.ros.launcher import free_tcp_port  # noqa: E402
from naoqi_qicore.robot.session import wait_for_services  # noqa: E402
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


@pytest.mark.slow  # real processes: left out of make check
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


class Service:
    def hello(self) -> str:
        return "hello"


def test_waiting_for_services_ends_once_the_robot_stops_registering():
    """Two services wanted: one registers 0.5 s after the wait began, the other never.  The
    wait ends 1 s after the last registration (not at its 10 s limit), with the one missing;
    a wait for services the robot has ends at once."""
    robot = qi.Session()
    robot.listenStandalone("tcp://127.0.0.1:0")
    client = qi.Session()
    client.connect(robot.endpoints()[0])
    try:
        late = threading.Timer(0.5, robot.registerService, ("ALLate", Service()))
        started = time.monotonic()
        late.start()
        missing = wait_for_services(client, ["ALLate", "ALNever"], 10.0, settled=1.0)
        waited = time.monotonic() - started
        late.join()
        assert missing == ["ALNever"]
        assert 1.4 < waited < 3.0, waited
        started = time.monotonic()
        assert wait_for_services(client, ["ALLate"], 10.0, settled=1.0) == []
        assert time.monotonic() - started < 0.5
        client.close()
        assert wait_for_services(client, ["ALLate"], 10.0) == ["ALLate"]  # no connection
    finally:
        client.close()
        robot.close()


class _BindingLate:
    """A session whose robot lists ``Echo`` at once but binds its object only after
    ``failures`` calls, as libqi does between a service's registration and its binding."""

    class _Signal:
        def connect(self, callback) -> int:
            return 1

        def disconnect(self, link: int) -> None:
            pass

    def __init__(self, failures: int) -> None:
        self.serviceRegistered = self._Signal()
        self.failures = failures
        self.calls = 0

    def services(self):
        return [{"name": "Echo"}]

    def service(self, name: str):
        self.calls += 1
        if self.calls <= self.failures:
            raise RuntimeError("The call request could not be handled.")
        return object()


def test_a_listed_service_counts_once_it_answers():
    """A runner's first call to a service the robot had just listed failed with "The call
    request could not be handled": the wait now lasts until the service answers."""
    session = _BindingLate(failures=3)
    started = time.monotonic()
    assert wait_for_services(session, ["Echo"], 10.0, settled=5.0) == []
    assert session.calls == 4
    assert time.monotonic() - started < 1.0  # tried again at once, not after ``settled``
    never = _BindingLate(failures=10 ** 6)
    assert wait_for_services(never, ["Echo"], 10.0, settled=0.3) == ["Echo"]
