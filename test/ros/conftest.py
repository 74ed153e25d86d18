"""Fixtures of the ROS tests: real processes (simulated robot, bridge, runner) and a probe node.

Every process runs with the venv's interpreter, inherits the per-run ROS_DOMAIN_ID of
test/conftest.py, logs into the test's tmp_path and is stopped (SIGINT, then SIGKILL)
when the test ends.  Their temporary files go into a folder beside the test's tmp_path
(TMPDIR): a process a test kills on purpose (a robot disappearing) leaves nothing in the
system's /tmp.
"""
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # script_behaviors
rclpy = pytest.importorskip("rclpy")
from rclpy.action import ActionClient  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402

from naoqi_qicore.robot.sim.recorder import read_calls  # noqa: E402
from naoqi_qicore.ros.launcher import (SIMULATOR_LISTEN, python_program,  # noqa: E402
                                       start_simulator)
from naoqi_qicore.ros.qos import COMMANDS, LATCHED  # noqa: E402
from process_tools import wait_until  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
#: how long a new client waits, once it sees a service, for the server to discover it
SERVER_DISCOVERY_S = 0.5


class Program:
    """A process of the test, its output in a log file."""

    def __init__(self, name: str, command: List[str], log_dir: Path) -> None:
        self.name = name
        self.command = command
        self.log = log_dir / (name + ".log")
        self.process: Optional[subprocess.Popen] = None
        self.start()

    def start(self) -> None:
        self.process = self.launch(self.command)

    def launch(self, command: List[str], pass_fds: Tuple[int, ...] = ()) -> subprocess.Popen:
        """Start ``command`` logging into the log file (``pass_fds``: descriptors it inherits)."""
        path = [str(REPO)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        # beside the test's tmp_path, not in it: behaviors a test writes there are
        # converted with the folder they are in
        temporary = self.log.parent.with_name(self.log.parent.name + "-tmp")
        temporary.mkdir(exist_ok=True)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(path), PYTHONUNBUFFERED="1",
                   TMPDIR=str(temporary))
        with open(self.log, "a") as log:
            return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env,
                                    cwd=str(REPO), pass_fds=pass_fds)

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """Kill at once (a robot disappearing)."""
        self.process.kill()
        self.process.wait(10)

    def stop(self) -> int:
        """SIGINT, then SIGKILL after 10 s; the exit code."""
        if self.alive():
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        return self.process.returncode


class SimulatedRobotProcess(Program):
    """``naoqi_sim`` on a free loopback port (the same one when started again), recording
    every call into a JSON Lines file; ``arguments`` are more of its options (``--robot
    pepper``)."""

    def __init__(self, log_dir: Path, *arguments: str) -> None:
        self.url = SIMULATOR_LISTEN
        self.record = log_dir / "robot-calls.jsonl"
        self.arguments = arguments
        super().__init__("naoqi_sim", [], log_dir)

    def start(self) -> None:
        self.command = python_program("naoqi_qicore.robot.sim.cli", "--listen", self.url,
                                      "--record", str(self.record), *self.arguments)
        self.process, self.url = start_simulator(self.launch, self.command)

    @property
    def port(self) -> int:
        """The port it listens on."""
        return int(self.url.rsplit(":", 1)[1])

    def calls(self, service: Optional[str] = None, method: Optional[str] = None) -> List[Dict]:
        """The calls recorded so far, optionally only those of ``service.method``."""
        if not self.record.exists():
            return []
        return [call for call in read_calls(self.record)
                if (not service or call["service"] == service)
                and (not method or call["method"] == method)]


class Probe:
    """A test node spinning in the background: calls services, keeps what topics carry."""

    def __init__(self) -> None:
        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node("ros_test_probe", context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self._lock = threading.Lock()
        self.received: Dict[str, List[Any]] = {}
        self._clients: Dict[str, Any] = {}
        #: held while the executor spins; entities the executor must not see half made
        #: are made holding it
        self._spinning = threading.Lock()
        self._waiting = threading.Event()
        self._thread = threading.Thread(target=self._spin, daemon=True)
        self._thread.start()

    def _spin(self) -> None:
        while self.context.ok():
            try:
                with self._spinning:
                    self.executor.spin_once(timeout_sec=0.05)
            except Exception:  # shutting down
                if self.context.ok():
                    raise
                return
            if self._waiting.is_set():
                time.sleep(0.005)  # let the maker take the lock

    def made(self, make: Callable[[], Any]) -> Any:
        """What ``make()`` returns, called while the executor does not spin: for entities
        of the node it must not see half made, or made or destroyed from another thread."""
        self._waiting.set()
        try:
            with self._spinning:
                return make()
        finally:
            self._waiting.clear()

    def action_client(self, action_type: Any, name: str) -> ActionClient:
        """An action client of the probe's node.  rclpy's ActionClient joins the node before
        it is complete (no ``_lock`` yet): an executor spinning meanwhile fails on it."""
        return self.made(lambda: ActionClient(self.node, action_type, name))

    def listen(self, message_type: Any, topic: str, latched: bool = True) -> List[Any]:
        """Keep every message of ``topic``; returns the (growing) list."""
        with self._lock:
            if topic in self.received:
                return self.received[topic]
            messages: List[Any] = []
            self.received[topic] = messages
        self.node.create_subscription(message_type, topic, messages.append,
                                      LATCHED if latched else COMMANDS)
        return messages

    def call(self, service_type: Any, name: str, request: Any = None,
             timeout: float = 20.0) -> Any:
        """Call a service and return its response (fails the test on timeout).  A client's
        first call waits ``SERVER_DISCOVERY_S`` after the service is seen: the server's
        middleware drops an answer to a client it has not discovered yet ("failed to send
        response (timeout)"), which a server just started meets."""
        client = self._clients.get(name)
        if client is None:
            client = self._clients[name] = self.node.create_client(service_type, name)
            wait_until(lambda: client.service_is_ready(), timeout, "service " + name)
            time.sleep(SERVER_DISCOVERY_S)
        wait_until(lambda: client.service_is_ready(), timeout, "service " + name)
        future = client.call_async(request if request is not None else service_type.Request())
        done = threading.Event()
        future.add_done_callback(lambda _: done.set())
        if not done.wait(timeout):
            pytest.fail("no answer from %s within %.0f s" % (name, timeout))
        return future.result()

    #: poll a predicate until it holds (``wait_until``), for the tests' convenience
    wait_until = staticmethod(wait_until)

    def close(self) -> None:
        self.context.try_shutdown()
        self._thread.join(5)
        self.node.destroy_node()


@pytest.fixture
def example_behavior(repo_root: Path) -> Path:
    """examples/wave_hello/behavior.xar."""
    return repo_root / "examples" / "wave_hello" / "behavior.xar"


@pytest.fixture
def probe() -> Iterator[Probe]:
    test_probe = Probe()
    yield test_probe
    test_probe.close()


class Programs:
    """Starts programs (``programs(kind, *arguments)``) logging into ``folder``; a runner may
    load the behaviors under ``roots`` (and the examples) unless its arguments say else."""

    def __init__(self, folder: Path, roots: List[Path]) -> None:
        self.folder = folder
        self.roots = [str(root) for root in roots] + [str(REPO / "examples")]
        self.started: List[Program] = []

    def __call__(self, kind: str, *arguments: str) -> Program:
        if kind == "sim":
            program: Program = SimulatedRobotProcess(self.folder, *arguments)
        else:
            module = {"bridge": "naoqi_qicore.ros.bridge",
                      "runner": "naoqi_qicore.ros.behavior_runner",
                      "convert": "naoqi_qicore.ros.convert_node"}[kind]
            if kind == "runner":
                arguments = ("-p", "behavior_roots:=%s" % (self.roots,), *arguments)
            program = Program(kind, python_program(module, "--ros-args", *arguments),
                              self.folder)
        self.started.append(program)
        return program

    def stop_all(self) -> None:
        """Stop them all, last started first, and show their logs (seen on a failure)."""
        for program in reversed(self.started):
            program.stop()
        for program in self.started:
            sys.stdout.write("---- %s ----\n%s\n" % (program.name, program.output()[-4000:]))


@pytest.fixture
def programs(tmp_path: Path) -> Iterator[Programs]:
    """Start programs of the test; all are stopped at its end (and their logs shown on failure)."""
    started = Programs(tmp_path, [tmp_path])
    yield started
    started.stop_all()


@pytest.fixture(scope="module")
def module_probe() -> Iterator[Probe]:
    """A probe the tests of a module share (with :func:`module_programs`)."""
    test_probe = Probe()
    yield test_probe
    test_probe.close()


@pytest.fixture(scope="module")
def module_programs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Programs]:
    """Programs the tests of a module share, stopped after its last test; a runner may load
    behaviors from every test's tmp_path."""
    started = Programs(tmp_path_factory.mktemp("module_programs"),
                       [tmp_path_factory.getbasetemp()])
    yield started
    started.stop_all()


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    """Headless chromium with one page (``bench/chromium_page.py``); skips without it."""
    sys.path.insert(0, str(REPO / "bench"))
    from chromium_page import ChromiumMissing, ChromiumPage, find_chromium
    try:
        find_chromium()
    except ChromiumMissing as missing:
        pytest.skip(str(missing))
    pytest.importorskip("websocket", reason="needs websocket-client (.setup/requirements.txt)")
    opened = ChromiumPage(tmp_path / "chromium-profile")
    yield opened
    opened.close()
