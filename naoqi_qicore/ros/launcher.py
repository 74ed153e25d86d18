"""``run_behavior``: the simulated robot, naoqi_bridge and behavior_runner with one command.

What ``ros2 launch naoqi_qicore run_behavior.launch.py`` does, for machines without the
``launch`` packages: each program runs as its own process with this interpreter; Ctrl-C
(or SIGTERM) stops the runner first (it stops the behavior and releases the focus), then
the bridge, then the simulated robot.  When one of them exits on its own, the others are
stopped too and its exit code is returned.
"""
import argparse
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import List, Optional

#: how long a process may take to stop after SIGINT before it gets SIGTERM, then SIGKILL
STOP_TIMEOUT = 10.0


def free_tcp_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(host: str, port: int, timeout: float, process: subprocess.Popen) -> None:
    """Wait until ``host:port`` accepts connections; ``RuntimeError`` if it never does."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("the simulated robot exited with code %d" % process.returncode)
        try:
            with socket.create_connection((host, port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("the simulated robot did not listen on %s:%d within %.0f s"
                       % (host, port, timeout))


def python_program(module: str, *arguments: str) -> List[str]:
    """Command running ``module``'s ``main()`` with this interpreter."""
    return [sys.executable, "-c", "import sys; from %s import main; sys.exit(main())" % module,
            *arguments]


@dataclass
class Plan:
    """What to start."""

    behavior: str
    robot_url: str = ""
    namespace: str = ""
    autoplay: bool = False
    log_level: str = "info"
    robot: str = "nao"
    record: str = ""

    def ros_arguments(self, node_parameters: List[str]) -> List[str]:
        arguments = ["--ros-args", "--log-level", self.log_level]
        if self.namespace:
            arguments += ["-r", "__ns:=" + ("/" + self.namespace).replace("//", "/")]
        for parameter in node_parameters:
            arguments += ["-p", parameter]
        return arguments

    def simulator_command(self, url: str) -> List[str]:
        command = python_program("naoqi_qicore.robot.sim.cli", "--robot", self.robot,
                                 "--listen", url)
        if self.record:
            command += ["--record", self.record]
        return command

    def bridge_command(self, url: str) -> List[str]:
        return python_program("naoqi_qicore.ros.bridge",
                              *self.ros_arguments(["robot_url:=" + url]))

    def runner_command(self, url: str) -> List[str]:
        parameters = ["robot_url:=" + url, "behavior:=" + self.behavior,
                      "autoplay:=" + ("true" if self.autoplay else "false")]
        return python_program("naoqi_qicore.ros.behavior_runner",
                              *self.ros_arguments(parameters))


class ProcessGroup:
    """Processes started in order and stopped in reverse order."""

    def __init__(self) -> None:
        self.processes: List[subprocess.Popen] = []
        self.names: List[str] = []

    def start(self, name: str, command: List[str]) -> subprocess.Popen:
        # Own session: a terminal's Ctrl-C reaches only us, and we stop them in order.
        process = subprocess.Popen(command, start_new_session=True)
        self.processes.append(process)
        self.names.append(name)
        return process

    def first_exit(self, stop: threading.Event) -> Optional[int]:
        """Wait until a process exits or ``stop`` is set; the index of the exited process."""
        while not stop.is_set():
            for index, process in enumerate(self.processes):
                if process.poll() is not None:
                    return index
            stop.wait(0.1)
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


def run(plan: Plan) -> int:
    """Start everything the plan asks for and supervise it; returns an exit code."""
    group = ProcessGroup()
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set())
                for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        url = plan.robot_url
        if not url:
            port = free_tcp_port()
            url = "tcp://127.0.0.1:%d" % port
            simulator = group.start("naoqi_sim", plan.simulator_command(url))
            wait_for_port("127.0.0.1", port, 30.0, simulator)
            print("run_behavior: simulated %s robot at %s" % (plan.robot, url), flush=True)
        group.start("naoqi_bridge", plan.bridge_command(url))
        group.start("behavior_runner", plan.runner_command(url))
        exited = group.first_exit(stop)
        if exited is None:
            return 0
        code = group.processes[exited].returncode
        print("run_behavior: %s exited with code %d, stopping the others"
              % (group.names[exited], code), file=sys.stderr, flush=True)
        return code or 1
    except RuntimeError as error:
        print("run_behavior: %s" % error, file=sys.stderr)
        return 1
    finally:
        group.stop_all()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def parse_arguments(argv: Optional[List[str]] = None) -> Plan:
    parser = argparse.ArgumentParser(
        prog="run_behavior",
        description="Start naoqi_bridge and behavior_runner (and a simulated robot when no "
                    "robot URL is given). Ctrl-C stops them all.")
    parser.add_argument("behavior", help=".xar, .pml, .crg, .pkg or converted folder to load")
    parser.add_argument("--robot-url", default=os.environ.get("NAOQI_URL", ""),
                        help="qi URL of a robot (default: start a simulated one; "
                             "environment variable NAOQI_URL)")
    parser.add_argument("--namespace", default="", help="ROS namespace of the nodes")
    parser.add_argument("--autoplay", action="store_true", help="play once connected")
    parser.add_argument("--log-level", default="info",
                        choices=("debug", "info", "warn", "error", "fatal"))
    parser.add_argument("--robot", default="nao", choices=("nao", "pepper"),
                        help="model of the simulated robot")
    parser.add_argument("--record", default="",
                        help="JSON Lines file where the simulated robot records every call")
    arguments = parser.parse_args(argv)
    return Plan(behavior=os.path.abspath(arguments.behavior), robot_url=arguments.robot_url,
                namespace=arguments.namespace, autoplay=arguments.autoplay,
                log_level=arguments.log_level, robot=arguments.robot,
                record=os.path.abspath(arguments.record) if arguments.record else "")


def main(argv: Optional[List[str]] = None) -> int:
    """Console entry point of ``run_behavior``."""
    return run(parse_arguments(argv))
