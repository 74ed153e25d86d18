"""RobotSession against a real libqi service directory in another process."""
import socket
import subprocess
import sys
import threading
import time
from typing import List, Optional, Tuple

import pytest

qi = pytest.importorskip("qi")

from naoqi_qicore.robot.session import ConnectionState, RobotAddress, RobotSession  # noqa: E402
from naoqi_qicore.ros.launcher import free_tcp_port  # noqa: E402

SERVER = """
import sys, time, qi
class Echo:
    def echo(self, text):
        return text
session = qi.Session()
session.listenStandalone(sys.argv[1])
time.sleep(float(sys.argv[2]))  # a robot registers its services some time after listening
session.registerService("Echo", Echo())
while True:
    time.sleep(1)
"""


def wait_for_port(port: int, timeout: float, process: subprocess.Popen) -> None:
    """Wait until ``process`` (or another program) accepts connections on ``port``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, "the server exited with code %d" % process.returncode
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    pytest.fail("the server did not listen on port %d within %.0f s" % (port, timeout))


def start_server(port: int, register_after: float = 0.0) -> subprocess.Popen:
    server = subprocess.Popen([sys.executable, "-c", SERVER, "tcp://127.0.0.1:%d" % port,
                               str(register_after)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for_port(port, 20.0, server)
    return server


def test_connects_late_reconnects_and_rebinds() -> None:
    port = free_tcp_port()
    robot = RobotSession(RobotAddress("tcp://127.0.0.1:%d" % port), max_retry_delay=0.2)
    states: List[Tuple[ConnectionState, str]] = []
    bound: List[str] = []
    rebound = threading.Event()

    def bind(session) -> None:
        bound.append(session.service("Echo").echo("bound %d" % len(bound)))
        if len(bound) == 2:
            rebound.set()

    robot.add_connected_callback(bind)
    robot.add_state_callback(lambda state, message: states.append((state, message)))
    robot.start()
    server = None
    try:
        assert not robot.wait_connected(0.3)  # nothing listens yet: it keeps trying
        assert robot.state == ConnectionState.CONNECTING
        assert "Connection refused" in robot.message
        server = start_server(port)
        assert robot.wait_connected(10)
        assert robot.service("Echo").echo("hi") == "hi"
        server.kill()
        server.wait()
        server = start_server(port)
        assert rebound.wait(10)
        assert robot.wait_connected(10)
        assert robot.service("Echo").echo("again") == "again"
    finally:
        robot.close()
        if server is not None:
            server.kill()
            server.wait()
    assert bound == ["bound 0", "bound 1"]
    lost = [message for state, message in states if state == ConnectionState.DISCONNECTED]
    assert any("lost" in message for message in lost)
    assert [state for state, _ in states].count(ConnectionState.CONNECTED) == 2
    assert states[-1] == (ConnectionState.DISCONNECTED, "closed")


def test_callbacks_wait_for_the_required_services() -> None:
    port = free_tcp_port()
    robot = RobotSession(RobotAddress("tcp://127.0.0.1:%d" % port), required_services=["Echo"])
    bound: List[str] = []
    robot.add_connected_callback(lambda session: bound.append(session.service("Echo").echo("ok")))
    server = start_server(port, register_after=1.0)
    try:
        robot.start()
        assert robot.wait_connected(10)
        assert bound == ["ok"]
    finally:
        robot.close()
        server.kill()
        server.wait()


def test_service_fails_clearly_when_not_connected() -> None:
    robot = RobotSession(RobotAddress("tcp://127.0.0.1:%d" % free_tcp_port()))
    with pytest.raises(RuntimeError, match="not connected"):
        robot.service("ALMotion")
    robot.close()


def test_a_failing_connection_is_told_once_per_reason_with_what_to_check() -> None:
    """A password means tcps: against a robot that speaks tcp every attempt fails the
    same way; that is told once, saying why tcps, then again when the reason changes."""
    port = free_tcp_port()
    server = start_server(port)
    warnings: List[str] = []
    robot = None
    try:
        robot = RobotSession(RobotAddress.from_parameters(nao_ip="127.0.0.1", nao_port=port,
                                                          password="s3cret"),
                             max_retry_delay=0.1, warn=warnings.append)
        robot.start()
        assert not robot.wait_connected(2)  # about 20 attempts
        assert len(warnings) == 1, warnings
        assert warnings[0].startswith("cannot connect to the robot at tcps://127.0.0.1:%d: "
                                      % port)
        assert "tcps (TLS, NAOqi 2.9) is used because a password was given" in warnings[0]
        assert "port %d of 127.0.0.1" % port in warnings[0] and "s3cret" not in warnings[0]
        server.kill()
        server.wait()
        server = None
        assert not robot.wait_connected(2)
        # an attempt under way when the server went may fail one other way first; each
        # reason is told once, and the last is the refusal
        assert 2 <= len(warnings) <= 3 and "Connection refused" in warnings[-1], warnings
        assert all(a != b for a, b in zip(warnings, warnings[1:])), warnings
    finally:
        if robot is not None:
            robot.close()
        if server is not None:
            server.kill()
            server.wait()


def _lose_the_robot(robot: RobotSession, server: subprocess.Popen,
                    warnings: List[str]) -> None:
    """Connect ``robot`` to ``server``, kill the server and wait (10 s at most) until
    ``robot`` has warned twice: the loss, then why it cannot reconnect."""
    robot.start()
    assert robot.wait_connected(10) and warnings == []
    server.kill()
    server.wait()
    deadline = time.monotonic() + 10
    while len(warnings) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)


def test_a_lost_robot_is_told_why_it_cannot_be_reached() -> None:
    """libqi may fail the first attempt after a loss with the lost connection's own end
    ("disconnected"): the user, already told the robot was lost, is told next why it cannot
    be reached, not "cannot connect: disconnected"."""
    port = free_tcp_port()
    server = start_server(port)
    warnings: List[str] = []
    robot = None
    try:
        robot = RobotSession(RobotAddress("tcp://127.0.0.1:%d" % port), max_retry_delay=0.1,
                             warn=warnings.append)
        connect_once = robot._connect_once
        attempts: List[str] = []

        def first_attempt_ends_with_the_lost_connection() -> Optional[str]:
            attempts.append("")
            return "disconnected" if len(attempts) == 2 else connect_once()

        robot._connect_once = first_attempt_ends_with_the_lost_connection  # type: ignore
        _lose_the_robot(robot, server, warnings)
        assert "robot tcp://127.0.0.1:%d lost: disconnected" % port in warnings[0]
        assert "Connection refused" in warnings[1], warnings
        assert len(attempts) >= 3  # the failure with the lost connection's end was made
    finally:
        if robot is not None:
            robot.close()
        server.kill()
        server.wait()


def test_a_lost_robot_is_told() -> None:
    port = free_tcp_port()
    server = start_server(port)
    warnings: List[str] = []
    robot = None
    try:
        robot = RobotSession(RobotAddress("tcp://127.0.0.1:%d" % port), max_retry_delay=0.1,
                             warn=warnings.append)
        _lose_the_robot(robot, server, warnings)
        assert "robot tcp://127.0.0.1:%d lost" % port in warnings[0]
        assert "cannot connect" in warnings[1] and "Connection refused" in warnings[1]
    finally:
        if robot is not None:
            robot.close()
        server.kill()
        server.wait()


def test_a_robot_that_is_starting_is_waited_for_quietly() -> None:
    """Within start_timeout of start(), refused connections (nothing listens yet) are told
    once as information, and wait_started() returns once the robot is there."""
    port = free_tcp_port()
    warnings: List[str] = []
    infos: List[str] = []
    robot = RobotSession(RobotAddress("tcp://127.0.0.1:%d" % port), max_retry_delay=0.1,
                         start_timeout=20.0, warn=warnings.append, inform=infos.append)
    server = None
    try:
        assert robot.wait_started() is False  # not started: nothing to wait for
        robot.start()
        waited: List[bool] = []
        waiter = threading.Thread(target=lambda: waited.append(robot.wait_started()))
        waiter.start()
        time.sleep(1.0)  # about 10 refused attempts
        assert waited == [] and warnings == []
        assert len(infos) == 1 and "waiting for the robot at tcp://127.0.0.1:%d" % port \
            in infos[0] and "Connection refused" in infos[0], infos
        server = start_server(port)
        waiter.join(15)
        assert waited == [True] and warnings == [] and len(infos) == 1
    finally:
        robot.close()
        if server is not None:
            server.kill()
            server.wait()


def test_a_robot_late_to_start_is_warned_about_and_no_longer_waited_for() -> None:
    port = free_tcp_port()
    warnings: List[str] = []
    robot = RobotSession(RobotAddress("tcp://127.0.0.1:%d" % port), max_retry_delay=0.1,
                         start_timeout=0.6, warn=warnings.append, inform=lambda _: None)
    try:
        robot.start()
        began = time.monotonic()
        assert robot.wait_started() is False
        assert 0.4 < time.monotonic() - began < 3.0
        deadline = time.monotonic() + 5
        while not warnings and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(warnings) == 1 and "(waited 0.6 s for it to start)" in warnings[0]
        assert "Connection refused" in warnings[0]
        began = time.monotonic()
        assert robot.wait_started() is False and time.monotonic() - began < 0.1
    finally:
        robot.close()


def test_a_robot_answering_wrongly_is_not_taken_for_one_starting() -> None:
    """A robot that answers, but not as asked (tcps against tcp), is not starting: warned at
    once, and requests do not wait for it."""
    port = free_tcp_port()
    server = start_server(port)
    warnings: List[str] = []
    robot = RobotSession(RobotAddress.from_parameters(nao_ip="127.0.0.1", nao_port=port,
                                                      password="s3cret"),
                         max_retry_delay=0.1, start_timeout=30.0, warn=warnings.append,
                         inform=lambda _: None)
    try:
        robot.start()
        began = time.monotonic()
        assert robot.wait_started() is False
        assert time.monotonic() - began < 10 and len(warnings) == 1
        assert "waited" not in warnings[0]
    finally:
        robot.close()
        server.kill()
        server.wait()


BURST = """
import os, sys, threading, time
from pathlib import Path
from naoqi_qicore.robot.session import bound_thread_pool
bound_thread_pool(int(sys.argv[1]))
import qi

def pool_threads():
    return sum(1 for task in Path("/proc/self/task").iterdir()
               if (task / "comm").read_text().strip() == "MainEventLoop")

class Joints:
    def read(self):
        return [0.0] * 26
robot = qi.Session()
robot.listenStandalone("tcp://127.0.0.1:0")
robot.registerService("Joints", Joints())
client = qi.Session()
client.connect(robot.endpoints()[0])
joints = client.service("Joints")
readings = [0]

def read_steadily():  # what naoqi_bridge's joint_states does, 50 readings a second
    while True:
        for future in [joints.read(_async=True) for _ in range(3)]:
            future.value(60000)
        readings[0] += 1
        time.sleep(0.02)
threading.Thread(target=read_steadily, daemon=True).start()
time.sleep(1.0)
for _ in range(24):  # callbacks that hold the pool's threads for a while
    joints.read(_async=True).addCallback(lambda future: time.sleep(1.0))
most, started = 0, readings[0]
for _ in range(100):  # the burst holds a pool of 4 for about 6 s
    time.sleep(0.1)
    most = max(most, pool_threads())
print("threads", most, "readings", readings[0] - started, flush=True)
# libqi's threads still run callbacks: a normal exit finalizes the interpreter under them
# (InterpreterFinalizingException, abort), as the node programs' end_process avoids too
os._exit(0)
"""


@pytest.mark.slow
def test_a_bounded_thread_pool_keeps_its_bound_through_a_burst() -> None:
    """libqi adds a thread each time its pool stays busy for half a second and, while a
    process calls the robot steadily, never ends them: bounded, a burst of blocking
    callbacks leaves the pool at its bound, and the steady calls go on after it."""
    result = subprocess.run([sys.executable, "-P", "-c", BURST, "4"], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    last = result.stdout.splitlines()[-1].split()  # libqi logs to the standard output too
    most, readings = int(last[1]), int(last[3])
    assert most <= 4 + 1, "%d pool threads (asio's resolver thread has the pool's name)" % most
    assert readings > 10
