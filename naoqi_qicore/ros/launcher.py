"""``run_behavior``: the simulated robot, naoqi_bridge and behavior_runner with one command.

What ``ros2 launch naoqi_qicore run_behavior.launch.py`` does, for machines without the
``launch`` packages: each program runs as its own process with this interpreter; Ctrl-C
(or SIGTERM) stops the runner first (it stops the behavior and releases the focus), then
the bridge, then the simulated robot.  When one of them exits on its own, the others are
stopped too and its exit code is returned.

With ``--autoplay`` the behavior is run once it is loaded, through the ``behavior/run``
action: its feedback (each state change) and its result are printed, then everything is
stopped and ``run_behavior`` exits with the run's outcome (:data:`EXIT_SUCCEEDED` when the
goal SUCCEEDED, :data:`EXIT_RUN_FAILED` otherwise); ``--stay`` keeps the programs serving
after the run until Ctrl-C.  Ctrl-C during the run cancels it before stopping the programs
(:data:`EXIT_INTERRUPTED`).  ``--scenario FILE|generic`` is passed to the simulated robot:
people around it say and do what the scenario says.  A scenario with expectations (it needs
``--autoplay``) decides the run: the runner tells it what the behavior does, the run is
stopped once every expectation held or one failed, the verdict is printed
(:mod:`naoqi_qicore.ros.sim_scenario`) and the exit status is :data:`EXIT_EXPECTATION_FAILED`
when one failed, else :data:`EXIT_SUCCEEDED` when the run ended as the scenario expected
(FINISHED, or stopped at the scenario's end, with no error; or the status its ``ends``
expectation names), else :data:`EXIT_RUN_FAILED`.

Peers of the ROS domain may have the runner load behaviors from the folders of ``--roots``
(``behavior_roots``); by default the folder ``run_behavior`` was started in, the
package's examples, the behavior's folder and the cache (see ``path_roots``).

``--params-file`` (a ``/**: ros__parameters:`` YAML file) goes to both nodes, and
``--nao-ip``, ``--nao-port``, ``--username`` and ``--password-file`` become parameters of
both nodes (naoqi_driver's names); the password itself never appears on a command line: a
password in ``--robot-url`` (``tcp://user:password@...``) reaches the nodes in their
environment (``NAOQI_PASSWORD``, readable only by this user), their ``robot_url`` has none.

Each program runs with this interpreter importing only installed code: the folder
``run_behavior`` was started in is not on its ``sys.path`` (``python -P``), so a module
lying there (a ``secrets.py``) cannot run inside the simulated robot or the nodes.
No simulated robot is started when a robot is given by ``--robot-url``, ``--nao-ip`` or the
parameters file.

``--view [PORT]`` turns on the runner's live view (a web page on 127.0.0.1 showing the
behavior's diagram with what runs highlighted, and its controls; port :data:`VIEW_PORT`
by default, 0 for any free port) and prints its URL.

``--bag FILE.mcap`` has the runner record the run into that MCAP file (its ``bag_file``).

``--foxglove [PORT]`` has the bridge serve Foxglove's WebSocket protocol on 127.0.0.1 (its
``foxglove_port``; port :data:`FOXGLOVE_PORT`, Foxglove's default, without a port, 0 for
any free port) and prints its URL: Foxglove shows the robot and the run with no ROS
installed beside it.
"""
import argparse
import json
import os
import random
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

from naoqi_qicore.robot.console import say
from naoqi_qicore.ros.path_roots import split_roots

#: exit status: the autoplayed run SUCCEEDED, or the programs served until Ctrl-C
EXIT_SUCCEEDED = 0
#: exit status: the autoplayed run ended otherwise (errors, stopped, refused), or a
#: program exited on its own without an exit status of its own
EXIT_RUN_FAILED = 1
#: exit status: wrong arguments, or a program could not start with them (argparse's, the
#: nodes', the simulated robot's)
EXIT_USAGE = 2
#: exit status: an expectation of the scenario failed
EXIT_EXPECTATION_FAILED = 4
#: exit status: Ctrl-C or SIGTERM before the autoplayed run ended (128 + SIGINT)
EXIT_INTERRUPTED = 130
#: how long a process may take to stop after SIGINT before it gets SIGTERM, then SIGKILL
STOP_TIMEOUT = 10.0
#: how long closing waits for a cancelled run's result to be printed once it has come
REPORT_TIMEOUT = 5.0
#: port of the live view of ``--view`` without a port
VIEW_PORT = 8765
#: port of the Foxglove server of ``--foxglove`` without a port (Foxglove's default
#: connection is ws://localhost:8765)
FOXGLOVE_PORT = 8765
#: how long the end of a run waits for the scenario to decide its expectations (s)
VERDICT_TIMEOUT = 5.0


#: where Linux says which ports it hands out itself: to connections and to ``bind`` to port 0
EPHEMERAL_PORT_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
#: the lowest port :func:`free_tcp_port` picks below the ephemeral range (above the usual
#: development servers' ports)
PICKED_PORT_FLOOR = 15000
#: how many ports :func:`free_tcp_port` tries outside the ephemeral range
PICK_ATTEMPTS = 64


def _ports_outside_ephemeral_range() -> List[Tuple[int, int]]:
    """The ranges [start, stop) of ports the kernel never hands out itself; none when its
    ephemeral range cannot be read."""
    try:
        low, high = (int(word) for word in EPHEMERAL_PORT_RANGE.read_text().split())
    except (OSError, ValueError):
        return []
    ranges = [(PICKED_PORT_FLOOR, low), (high + 1, 65536)]
    return [(start, stop) for start, stop in ranges if stop - start >= 1000]


def _bindable(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_tcp_port() -> int:
    """A TCP port free on 127.0.0.1 right now, for a server started next.

    Picked at random outside the kernel's ephemeral range where there is one: a program
    binding port 0, or any connection, is given ports of that range only, so none can
    take the port between this pick and the server's own ``bind``."""
    ranges = _ports_outside_ephemeral_range()
    if ranges:
        chooser = random.SystemRandom()
        for _ in range(PICK_ATTEMPTS):
            start, stop = chooser.choice(ranges)
            port = chooser.randrange(start, stop)
            if _bindable(port):
                return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


#: where a simulated robot started by a program listens: a free port of loopback, which it
#: tells (``naoqi_sim --ready-fd``)
SIMULATOR_LISTEN = "tcp://127.0.0.1:0"


def start_simulator(start: Callable[[List[str], Tuple[int, ...]], subprocess.Popen],
                    command: List[str], timeout: float = 30.0) -> Tuple[subprocess.Popen, str]:
    """Start the ``naoqi_sim`` ``command`` with ``start(command, descriptors to pass)`` and
    wait until clients can connect; the process and the URL it listens on.

    The simulator tells its URL through a pipe once it listens: a port picked beforehand
    may be taken by another program meanwhile, and a check that something listens there
    could find that other program.  ``RuntimeError`` when it exits or is silent for
    ``timeout`` s."""
    read_end, write_end = os.pipe()
    try:
        process = start(command + ["--ready-fd", str(write_end)], (write_end,))
    finally:
        os.close(write_end)
    told = b""
    deadline = time.monotonic() + timeout
    try:
        while not told.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([read_end], [], [], left)[0]:
                raise RuntimeError("the simulated robot did not listen within %.0f s" % timeout)
            piece = os.read(read_end, 4096)
            if not piece:  # it closed the pipe without a URL: it stopped
                try:
                    code = process.wait(5)
                except subprocess.TimeoutExpired:
                    code = None
                raise RuntimeError("the simulated robot exited with code %s" % code)
            told += piece
    finally:
        os.close(read_end)
    return process, told.decode("utf-8").strip()


def python_program(module: str, *arguments: str) -> List[str]:
    """Command running ``module``'s ``main()`` with this interpreter, importing only installed
    code: the working folder is not on its ``sys.path`` (``-P``; before Python 3.11, which
    has no ``-P``, the command takes it off before importing anything), ``PYTHONPATH`` is
    kept (a colcon install needs it)."""
    run = "import sys; from %s import main; sys.exit(main())" % module
    if sys.version_info >= (3, 11):
        return [sys.executable, "-P", "-c", run, *arguments]
    return [sys.executable, "-c", "import sys; del sys.path[0]; " + run, *arguments]


#: parameters of both nodes that say which robot to connect to
ROBOT_PARAMETERS = ("robot_url", "nao_ip")


def robot_in_params_file(path: str) -> bool:
    """True when the ROS parameters file ``path`` gives a node a robot (``robot_url`` or
    ``nao_ip``): then no simulated robot is needed.  ``ValueError`` when it cannot be read."""
    if not path:
        return False
    import yaml
    try:
        with open(path, encoding="utf-8") as stream:
            content = yaml.safe_load(stream) or {}
    except (OSError, yaml.YAMLError) as error:
        raise ValueError("cannot read the parameters file %s: %s" % (path, error)) from None
    if not isinstance(content, dict):
        raise ValueError("%s is not a ROS parameters file (/**: ros__parameters: ...)" % path)
    sections = []
    for value in content.values():  # node names, possibly under namespaces
        while isinstance(value, dict) and "ros__parameters" not in value and len(value) == 1:
            value = next(iter(value.values()))
        if isinstance(value, dict) and isinstance(value.get("ros__parameters"), dict):
            sections.append(value["ros__parameters"])
    return any(section.get(name) for section in sections for name in ROBOT_PARAMETERS)


@dataclass
class Plan:
    """What to start."""

    behavior: str
    robot_url: str = ""
    namespace: str = ""
    autoplay: bool = False
    log_level: str = "info"
    robot: str = "auto"
    record: str = ""
    scenario: str = ""
    #: the scenario has expectations: they decide the run
    expectations: bool = False
    params_file: str = ""
    nao_ip: str = ""
    nao_port: int = 0  # 0: the nodes' default
    username: str = ""
    password_file: str = ""
    #: port of the runner's live view: None for none, 0 for any free port
    view: Optional[int] = None
    #: MCAP file the runner records the run into ("": none)
    bag: str = ""
    #: port of the bridge's Foxglove server: None for none, 0 for any free port
    foxglove: Optional[int] = None
    #: folders peers may load behaviors from (absolute); empty: the runner's default
    behavior_roots: Tuple[str, ...] = ()
    #: keep the programs serving after the autoplayed run ended
    stay: bool = False
    #: the simulated robot's ALPythonBridge evaluates code
    allow_eval: bool = False

    def needs_simulated_robot(self) -> bool:
        """No robot given by ``robot_url``, ``nao_ip`` or the parameters file."""
        return not (self.robot_url or self.nao_ip or robot_in_params_file(self.params_file))

    def robot_parameters(self, url: str) -> Dict[str, Any]:
        """The connection parameters of both nodes (only those given; ``url`` without its
        password: see :meth:`node_environment`)."""
        from naoqi_qicore.robot.session import url_password
        parameters: Dict[str, Any] = {"robot_url": url_password(url)[0]} if url else {}
        for name in ("nao_ip", "nao_port", "username", "password_file"):
            value = getattr(self, name)
            if value:
                parameters[name] = value
        return parameters

    def node_environment(self) -> Dict[str, str]:
        """What the nodes' environment adds to this one's: the password of ``robot_url``
        as ``NAOQI_PASSWORD`` (never on a command line, where any user of the machine reads
        it), unless this environment gives one already (the nodes take it first, as they
        did from the URL)."""
        from naoqi_qicore.robot.session import PASSWORD_ENV, url_password
        password = url_password(self.robot_url)[1]
        return {PASSWORD_ENV: password} if password and PASSWORD_ENV not in os.environ else {}

    def simulated_robot(self) -> Tuple[str, str]:
        """The kind of simulated robot to start and why (see ``--robot``)."""
        from naoqi_qicore.converter.robot_kind import NAO, simulated_robot_for
        if not self.behavior and self.robot == "auto":
            return NAO, "no behavior given"
        return simulated_robot_for(self.behavior, self.robot)

    def runner_parameters(self, url: str) -> Dict[str, Any]:
        """The runner's parameters (the connection's, the behavior, its roots, its
        recording)."""
        parameters: Dict[str, Any] = dict(self.robot_parameters(url), behavior=self.behavior)
        if self.behavior_roots:
            parameters["behavior_roots"] = list(self.behavior_roots)
        if self.bag:
            parameters["bag_file"] = self.bag
        return parameters

    def ros_arguments(self, node_parameters: Dict[str, Any]) -> List[str]:
        """``--ros-args``: the parameters file first, then ``node_parameters`` (which win)."""
        arguments = ["--ros-args", "--log-level", self.log_level]
        if self.namespace:
            arguments += ["-r", "__ns:=" + ("/" + self.namespace).replace("//", "/")]
        if self.params_file:
            arguments += ["--params-file", self.params_file]
        for name, value in node_parameters.items():
            # YAML values: a quoted string stays a string ("123" as a user name)
            arguments += ["-p", "%s:=%s" % (name, json.dumps(value))]
        return arguments

    def simulator_command(self, url: str, robot: str) -> List[str]:
        command = python_program("naoqi_qicore.robot.sim.cli", "--robot", robot,
                                 "--listen", url)
        if self.record:
            command += ["--record", self.record]
        if self.scenario:
            command += ["--scenario", self.scenario]
        if self.allow_eval:
            command.append("--allow-eval")
        return command

    def bridge_parameters(self, url: str, foxglove_port: Optional[int] = None) -> Dict[str, Any]:
        """The bridge's parameters (the connection's); ``foxglove_port`` (not None) turns its
        Foxglove server on."""
        parameters = self.robot_parameters(url)
        if foxglove_port is not None:
            parameters["foxglove_port"] = foxglove_port
        return parameters

    def bridge_command(self, url: str, foxglove_port: Optional[int] = None) -> List[str]:
        """The bridge's command; ``foxglove_port`` (not None) turns its Foxglove server on."""
        return python_program("naoqi_qicore.ros.bridge",
                              *self.ros_arguments(self.bridge_parameters(url, foxglove_port)))

    def runner_command(self, url: str, view_port: int = 0) -> List[str]:
        """The runner's command; ``view_port`` (not 0) turns its live view on."""
        parameters = self.runner_parameters(url)
        if view_port:
            parameters["view_port"] = view_port
        return python_program("naoqi_qicore.ros.behavior_runner",
                              *self.ros_arguments(parameters))


class ProcessGroup:
    """Processes started in order and stopped in reverse order."""

    def __init__(self) -> None:
        self.processes: List[subprocess.Popen] = []
        self.names: List[str] = []

    def start(self, name: str, command: List[str],
              environment: Optional[Dict[str, str]] = None,
              pass_fds: Tuple[int, ...] = ()) -> subprocess.Popen:
        """Start ``command`` (``environment``: variables added to this one's; ``pass_fds``:
        descriptors it inherits)."""
        # Own session: a terminal's Ctrl-C reaches only us, and we stop them in order.
        process = subprocess.Popen(command, start_new_session=True, pass_fds=pass_fds,
                                   env=dict(os.environ, **environment) if environment else None)
        self.processes.append(process)
        self.names.append(name)
        return process

    def starter(self, name: str) -> Callable[[List[str], Tuple[int, ...]], subprocess.Popen]:
        """``start(command, pass_fds)`` starting the process ``name`` in this group."""
        return lambda command, pass_fds: self.start(name, command, pass_fds=pass_fds)

    def first_exit(self, wake: threading.Event) -> Optional[int]:
        """Wait until a process exits or ``wake`` is set; the index of the exited process."""
        while not wake.is_set():
            for index, process in enumerate(self.processes):
                if process.poll() is not None:
                    return index
            wake.wait(0.1)
        return None

    def stop_all(self) -> None:
        """SIGINT each process, last started first; escalate when one does not exit."""
        for process in reversed(self.processes):
            if process.poll() is not None:
                continue
            for sig, timeout in ((signal.SIGINT, STOP_TIMEOUT), (signal.SIGTERM, 3.0),
                                 (signal.SIGKILL, 3.0)):
                process.send_signal(sig)
                try:
                    process.wait(timeout)
                    break
                except subprocess.TimeoutExpired:
                    continue


class AutoRun:
    """Runs the loaded behavior through ``behavior/run`` once the runner says it is loaded,
    printing the feedback and the result (a node of its own, spun in a thread).  When the
    run has ended, :attr:`succeeded` says whether its goal SUCCEEDED, :attr:`result` is its
    result (None when there is none), :attr:`ended` is set and ``on_end()`` is called."""

    def __init__(self, namespace: str, on_end: Callable[[], None]) -> None:
        import rclpy
        from rclpy.executors import SingleThreadedExecutor

        from naoqi_qicore.msg import BehaviorState
        from naoqi_qicore.ros.qos import LATCHED
        from naoqi_qicore.ros.run_client import BehaviorRunClient
        self._context = rclpy.Context()
        rclpy.init(context=self._context, signal_handler_options=_no_signal_handlers())
        self._node = rclpy.create_node("run_behavior", namespace=namespace or None,
                                       context=self._context)
        self._executor = SingleThreadedExecutor(context=self._context)
        self._executor.add_node(self._node)
        self._loaded = threading.Event()
        self._node.create_subscription(
            BehaviorState, "behavior/state",
            lambda state: self._loaded.set() if state.status == BehaviorState.LOADED else None,
            LATCHED)
        self._runs = BehaviorRunClient(self._node)  # made before the node spins
        self._on_end = on_end
        self._goal: Any = None
        #: set by close(): no goal is sent after it
        self._closing = threading.Event()
        #: set once no goal is being sent any more (sent, refused, or given up)
        self._settled = threading.Event()
        self._last_line = ""
        #: None while the run has not ended, then whether its goal SUCCEEDED
        self.succeeded: Optional[bool] = None
        self.result: Any = None
        self.ended = threading.Event()
        self._thread = threading.Thread(target=self._spin, daemon=True, name="run_behavior")
        self._thread.start()

    def _spin(self) -> None:
        while self._context.ok():
            try:
                self._executor.spin_once(timeout_sec=0.1)
            except Exception:  # shutting down
                if self._context.ok():
                    raise

    def start(self, stop: threading.Event) -> None:
        """Send the goal once the behavior is loaded (gives up when ``stop`` is set or the
        run is closed)."""
        from naoqi_qicore.action import RunBehavior
        try:
            while not (stop.is_set() or self._closing.is_set()):
                if self._loaded.wait(0.1):
                    break
            if stop.is_set() or self._closing.is_set():  # no run started after Ctrl-C
                return
            self._goal = self._runs.run(RunBehavior.Goal(), self._feedback)
        except RuntimeError as error:
            say("run_behavior: %s" % error, sys.stderr)
            self._ended(False)
            return
        finally:
            self._settled.set()
        threading.Thread(target=self._report, daemon=True, name="run_behavior result").start()

    def _feedback(self, state: Any) -> None:
        from naoqi_qicore.ros.run_client import state_line
        line = state_line(state)
        if line != self._last_line:
            self._last_line = line
            say("run_behavior: " + line)

    def _report(self) -> None:
        from naoqi_qicore.ros.run_client import result_lines
        result = self._goal.wait()
        # the run has ended before its result is printed: a Ctrl-C of a user who read it
        # finds the outcome decided, not a run to interrupt
        self.result, self.succeeded = result, self._goal.succeeded()
        for line in result_lines(result, self._goal.status) if result is not None else []:
            say("run_behavior: " + line)
        self._ended(self.succeeded)

    def _ended(self, succeeded: bool) -> None:
        self.succeeded = succeeded
        self.ended.set()
        self._on_end()

    def stop(self, timeout: float) -> None:
        """Cancel the run (the behavior stops) and wait at most ``timeout`` s for its end."""
        if self._goal is not None:
            self._goal.cancel(timeout)
        self.ended.wait(timeout)

    def close(self) -> None:
        """Cancel the run if it still runs (its result is printed), then leave ROS.  A goal
        being sent is waited for first: Ctrl-C as its first feedback is printed, before the
        runner's acceptance is in, cancels it too."""
        self._closing.set()
        self._settled.wait(REPORT_TIMEOUT)
        if self._goal is not None and self._goal.cancel() is not None:
            self.ended.wait(REPORT_TIMEOUT)  # the result's lines, printed by its own thread
        self._context.try_shutdown()
        self._thread.join(5)


def _no_signal_handlers() -> Any:
    from rclpy.signals import SignalHandlerOptions
    return SignalHandlerOptions.NO


def run(plan: Plan) -> int:
    """Start everything the plan asks for and supervise it; returns an exit code (see the
    module: ``EXIT_*``)."""
    group = ProcessGroup()
    wake = threading.Event()  # a signal, or the end of the autoplayed run
    interrupted = threading.Event()

    def interrupt(*_: Any) -> None:
        interrupted.set()
        wake.set()

    previous = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}
    auto_run: Optional[AutoRun] = None
    verdict: Any = None  # a ScenarioVerdict when the scenario has expectations
    stopped_by_scenario = False
    run_code: Optional[int] = None
    try:
        url = plan.robot_url
        if plan.needs_simulated_robot():
            robot, reason = plan.simulated_robot()
            _, url = start_simulator(group.starter("naoqi_sim"),
                                     plan.simulator_command(SIMULATOR_LISTEN, robot))
            say("run_behavior: simulated %s robot at %s: %s"
                % ("Pepper" if robot == "pepper" else "NAO", url, reason))
            if plan.expectations:
                from naoqi_qicore.ros.sim_scenario import ScenarioVerdict
                verdict = ScenarioVerdict(url, wake.set)
        foxglove_port = None if plan.foxglove is None else plan.foxglove or free_tcp_port()
        group.start("naoqi_bridge", plan.bridge_command(url, foxglove_port),
                    plan.node_environment())
        if foxglove_port is not None:
            from naoqi_qicore.ros.foxglove_relay import LOOPBACK, websocket_url
            say("run_behavior: Foxglove at %s (Open connection, Foxglove WebSocket)"
                % websocket_url(LOOPBACK, foxglove_port))
        view_port = 0 if plan.view is None else plan.view or free_tcp_port()
        group.start("behavior_runner", plan.runner_command(url, view_port),
                    plan.node_environment())
        if view_port:
            from naoqi_qicore.ros.live_view import view_url
            say("run_behavior: live view at %s" % view_url(view_port))
        if plan.autoplay:
            auto_run = AutoRun(plan.namespace, wake.set)
            threading.Thread(target=auto_run.start, args=(interrupted,), daemon=True,
                             name="run_behavior goal").start()
        else:
            say("run_behavior: serving; Ctrl-C stops them all")
        while True:
            exited = group.first_exit(wake)
            if exited is not None:
                code = group.processes[exited].returncode
                say("run_behavior: %s exited with code %d, stopping the others"
                    % (group.names[exited], code), sys.stderr)
                return code if code > 0 else EXIT_RUN_FAILED
            if auto_run is None:  # woken by Ctrl-C or SIGTERM: it served until then
                return EXIT_SUCCEEDED
            if auto_run.succeeded is None and verdict is not None and verdict.decided.is_set() \
                    and not interrupted.is_set() and not stopped_by_scenario:
                say("run_behavior: the scenario is decided: stopping the run")
                stopped_by_scenario = True
                auto_run.stop(STOP_TIMEOUT)
            if auto_run.succeeded is None:  # interrupted before the run ended
                return EXIT_INTERRUPTED
            if run_code is None:
                run_code = EXIT_SUCCEEDED if auto_run.succeeded else EXIT_RUN_FAILED
                if verdict is not None:
                    run_code = _judged(verdict, auto_run.result, stopped_by_scenario)
            if interrupted.is_set() or not plan.stay:
                return run_code
            say("run_behavior: the run has ended; the programs keep serving (--stay): "
                "Ctrl-C to quit")
            wake.clear()
            if interrupted.is_set():  # Ctrl-C came while this was said
                wake.set()
    except (RuntimeError, ValueError) as error:  # the simulated robot did not start
        say("run_behavior: %s" % error, sys.stderr)
        return EXIT_USAGE
    finally:
        if auto_run is not None:
            auto_run.close()
        if verdict is not None:
            verdict.close()
        group.stop_all()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _judged(scenario: Any, result: Any, stopped_by_scenario: bool) -> int:
    """The exit status of a run whose ``scenario`` (a ``ScenarioVerdict``) has
    expectations, once their verdict is printed (``result``: the run's, None when it did
    not start)."""
    if result is None:
        return EXIT_RUN_FAILED
    verdict = scenario.verdict(VERDICT_TIMEOUT)
    for line in verdict.lines():
        say("run_behavior: " + line)
    if not verdict.passed:
        return EXIT_EXPECTATION_FAILED
    from naoqi_qicore.ros.run_client import STATUS_NAMES
    return EXIT_SUCCEEDED if verdict.run_as_expected(
        STATUS_NAMES.get(result.status, ""), len(result.errors), stopped_by_scenario) \
        else EXIT_RUN_FAILED


def parse_arguments(argv: Optional[List[str]] = None) -> Plan:
    parser = argparse.ArgumentParser(
        prog="run_behavior",
        description="Start naoqi_bridge and behavior_runner (and a simulated robot when no "
                    "robot URL is given). Ctrl-C stops them all.",
        epilog="exit status: %d when the programs served until Ctrl-C or the --autoplay run "
               "SUCCEEDED (with a scenario that has expectations: every one held and the "
               "run ended as it expected); %d when the run ended otherwise (errors, "
               "stopped, refused) or a program exited; %d for wrong arguments or a program "
               "that could not start; %d when an expectation of the scenario failed; %d "
               "when interrupted before the --autoplay run ended"
               % (EXIT_SUCCEEDED, EXIT_RUN_FAILED, EXIT_USAGE, EXIT_EXPECTATION_FAILED,
                  EXIT_INTERRUPTED))
    parser.add_argument("behavior", nargs="?", default="",
                        help=".xar, .pml, .crg, .pkg or converted folder to load (without "
                             "one, goals of behavior/run name it)")
    parser.add_argument("--robot-url", default=os.environ.get("NAOQI_URL", ""),
                        help="qi URL of a robot (default: start a simulated one; "
                             "environment variable NAOQI_URL)")
    parser.add_argument("--namespace", default="", help="ROS namespace of the nodes")
    parser.add_argument("--autoplay", action="store_true",
                        help="run the behavior once it is loaded (behavior/run), printing its "
                             "state changes and how it ended, then stop everything and exit "
                             "with the run's outcome")
    parser.add_argument("--stay", action="store_true",
                        help="with --autoplay: keep the programs serving after the run, until "
                             "Ctrl-C")
    parser.add_argument("--roots", action="append", default=[], metavar="DIR[:DIR...]",
                        help="folders peers may have the runner load behaviors from (the "
                             "runner's behavior_roots; repeatable; default: this folder, the "
                             "package's examples, the behavior's folder and the cache)")
    parser.add_argument("--log-level", default="info",
                        choices=("debug", "info", "warn", "error", "fatal"))
    parser.add_argument("--robot", default="auto", choices=("auto", "nao", "pepper"),
                        help="model of the simulated robot (default: the robot the behavior "
                             "was written for, from its project's manifest, joints and "
                             "services)")
    parser.add_argument("--record", default="",
                        help="JSON Lines file where the simulated robot records every call")
    parser.add_argument("--scenario", default="", metavar="FILE|generic",
                        help="what people around the simulated robot say and do: a YAML "
                             "scenario file, or 'generic' (someone answers whatever it asks); "
                             "its expectations (expect: steps) decide the --autoplay run")
    parser.add_argument("--params-file", default="", metavar="FILE",
                        help="ROS parameters file (/**: ros__parameters: ...) for both nodes; "
                             "the options here win over it")
    parser.add_argument("--nao-ip", default="",
                        help="robot address (naoqi_driver's nao_ip), when no --robot-url")
    parser.add_argument("--nao-port", default=0, type=int,
                        help="NAOqi port with --nao-ip (default of the nodes: 9559)")
    parser.add_argument("--username", default="", help="NAOqi 2.9 user name")
    parser.add_argument("--password-file", default="", metavar="FILE",
                        help="file holding the NAOqi 2.9 password (never the password itself "
                             "on a command line)")
    parser.add_argument("--view", nargs="?", type=int, const=VIEW_PORT, metavar="PORT",
                        help="serve the live view, a web page on 127.0.0.1 showing the "
                             "behavior's diagram with what runs highlighted, with the controls "
                             "(default port %d; 0: any free port); its URL is printed"
                             % VIEW_PORT)
    parser.add_argument("--bag", default="", metavar="FILE.mcap",
                        help="record the run (joint states, robot description, transforms, "
                             "behavior state and focus, speech, motion segments) into this new "
                             "MCAP file, for ros2 bag play and Foxglove")
    parser.add_argument("--foxglove", nargs="?", type=int, const=FOXGLOVE_PORT, metavar="PORT",
                        help="have the bridge serve Foxglove's WebSocket protocol on 127.0.0.1, "
                             "read only: the robot in 3D, its joints, transforms, speech and "
                             "the behavior's state, with no ROS installed beside Foxglove "
                             "(default port %d, Foxglove's; 0: any free port); its URL is "
                             "printed" % FOXGLOVE_PORT)
    parser.add_argument("--allow-eval", action="store_true",
                        help="let the simulated robot's ALPythonBridge evaluate the Python "
                             "code clients send, for behaviors that need it (off by default: "
                             "any local process could run code with its rights)")
    arguments = parser.parse_args(argv)
    bag = os.path.abspath(arguments.bag) if arguments.bag else ""
    if bag and os.path.lexists(bag):
        parser.error("--bag: %s exists (a recording never replaces a file)" % bag)
    if bag and not os.path.isdir(os.path.dirname(bag)):
        parser.error("--bag: no folder %s" % os.path.dirname(bag))
    if arguments.autoplay and not arguments.behavior:
        parser.error("--autoplay needs a behavior")
    if arguments.stay and not arguments.autoplay:
        parser.error("--stay goes with --autoplay (without it the programs serve until "
                     "Ctrl-C)")
    for option, port in (("--view", arguments.view), ("--foxglove", arguments.foxglove)):
        if port is not None and not 0 <= port <= 65535:
            parser.error("%s: %d is not a TCP port (0 to 65535)" % (option, port))
    if arguments.view and arguments.view == arguments.foxglove:
        parser.error("--view and --foxglove both ask for port %d: give one of them another "
                     "port (--foxglove %d)" % (arguments.view, arguments.view + 1))
    params_file = os.path.abspath(arguments.params_file) if arguments.params_file else ""
    try:
        robot_in_file = robot_in_params_file(params_file)
    except ValueError as error:
        parser.error(str(error))
    scenario = arguments.scenario
    expectations = False
    if scenario:
        from naoqi_qicore.robot.sim.scenario import GENERIC, ScenarioError, load_scenario
        if arguments.robot_url or arguments.nao_ip or robot_in_file:
            parser.error("--scenario needs the simulated robot (no --robot-url, NAOQI_URL, "
                         "--nao-ip or robot in the parameters file)")
        try:  # its robot-specific steps are checked by naoqi_sim
            expectations = bool(load_scenario(scenario).expectations)
        except ScenarioError as error:
            parser.error(str(error))
        if expectations and not arguments.autoplay:
            parser.error("--scenario %s has expectations: they check a run (add --autoplay)"
                         % scenario)
        scenario = scenario if scenario == GENERIC else os.path.abspath(scenario)
    return Plan(behavior=os.path.abspath(arguments.behavior) if arguments.behavior else "",
                robot_url=arguments.robot_url,
                namespace=arguments.namespace, autoplay=arguments.autoplay,
                log_level=arguments.log_level, robot=arguments.robot,
                record=os.path.abspath(arguments.record) if arguments.record else "",
                scenario=scenario, expectations=expectations, params_file=params_file,
                nao_ip=arguments.nao_ip,
                nao_port=arguments.nao_port, username=arguments.username,
                password_file=(os.path.abspath(arguments.password_file)
                               if arguments.password_file else ""),
                view=arguments.view, bag=bag, foxglove=arguments.foxglove,
                behavior_roots=tuple(root for text in arguments.roots
                                     for root in split_roots(text)),
                stay=arguments.stay, allow_eval=arguments.allow_eval)


def main(argv: Optional[List[str]] = None) -> int:
    """Console entry point of ``run_behavior``."""
    plan = parse_arguments(argv)
    # once run() has decided the exit status, a Ctrl-C arriving on the way out (its
    # handlers put back) changes nothing: Python's default would exit 130 instead
    signal.signal(signal.SIGINT, lambda *_: None)
    return run(plan)
