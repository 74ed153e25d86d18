"""Soak: what behavior_runner, naoqi_bridge and the simulated robot keep over thousands of
play/stop, load and cancel cycles.

The three programs run as separate processes, as ``make demo`` starts them, with
``examples/wave_hello`` (a Say box that speaks through ``ALTextToSpeech.post.say``, memory
events, a timeline with motion through the bridge).  Cycles, in a fixed pattern of ten:

* seven play/stop: ``behavior/play``, a pause of 0 to 45 ms (the Say box's sentence is on
  its way to the robot, queued or spoken), every other one a ``behavior/goto`` to a label,
  then ``behavior/stop``;
* two ``behavior/run`` goals cancelled 0 to 45 ms after they were accepted;
* one ``behavior/load`` of the behavior (a fresh engine, box scripts compiled again).

RSS, threads and open file descriptors of each process are printed at launch, at the
start (after ``--warmup`` cycles: the first loads fill caches that stay), after 1,000 and
5,000 cycles, at the end and after ``--rest`` seconds without cycles, with the growth from
the start to then and the thread names whose count changed; then how long a fresh
``ALTextToSpeech.say`` of one word takes (a queue of sentences left by the stopped runs
would delay it), and the errors of the runs the runner's states told (each once).
Acceptance: after 6,000 cycles each process grew by less than 5 MB and 5 threads, and no
run had an error.

    .venv/bin/python bench/bench_soak.py [--cycles 6000] [--warmup 100]
"""
import argparse
import collections
import os
import random
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("ROS_DOMAIN_ID", str(random.randint(102, 200)))
os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")

import psutil  # noqa: E402
import qi  # noqa: E402
import rclpy  # noqa: E402
from rclpy.action import ActionClient  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from std_srvs.srv import Trigger  # noqa: E402

from naoqi_qicore.action import RunBehavior  # noqa: E402
from naoqi_qicore.msg import BehaviorState  # noqa: E402
from naoqi_qicore.ros.launcher import (SIMULATOR_LISTEN, Plan, ProcessGroup,  # noqa: E402
                                       start_simulator)
from naoqi_qicore.ros.qos import LATCHED  # noqa: E402
from naoqi_qicore.srv import GoTo, LoadBehavior, Play  # noqa: E402

BEHAVIOR = REPO / "examples" / "wave_hello" / "behavior.xar"
#: the programs measured, in the order they are started
PROGRAMS = ("naoqi_sim", "naoqi_bridge", "behavior_runner")
#: what each cycle of a group of ten does
PATTERN = ("play", "play", "goal", "play", "play", "play", "goal", "play", "play", "load")
#: cycles after which usage is printed (besides the start and the end)
CHECKPOINTS = (1000, 5000)
#: acceptance: growth over the soak, per process
MAX_GROWTH_MB = 5.0
MAX_GROWTH_THREADS = 5
#: errors of the runs printed at most (all are counted)
MAX_ERRORS_SHOWN = 10
#: what the fresh say at the end speaks
FRESH_SENTENCE = "hello"
ANSWER_TIMEOUT = 30.0


@dataclass
class Usage:
    """What one process holds."""

    rss_mb: float
    threads: int
    fds: int
    #: thread name -> how many threads have it
    thread_names: Dict[str, int]

    @staticmethod
    def of(pid: int) -> "Usage":
        process = psutil.Process(pid)
        names: Dict[str, int] = collections.Counter()
        for task in Path("/proc/%d/task" % pid).iterdir():
            try:
                names[(task / "comm").read_text().strip()] += 1
            except OSError:  # the thread ended meanwhile
                continue
        return Usage(process.memory_info().rss / 2 ** 20, process.num_threads(),
                     process.num_fds(), dict(names))


def wait_done(future: Any, what: str, timeout: float = ANSWER_TIMEOUT) -> Any:
    """The result of an rclpy future completed by the spinning thread."""
    done = threading.Event()
    future.add_done_callback(lambda _: done.set())
    if not done.wait(timeout):
        raise RuntimeError("no answer for %s within %.0f s" % (what, timeout))
    return future.result()


class Soak:
    """The simulated robot, naoqi_bridge and behavior_runner (with ``behavior``) started as
    processes, and a node of this process driving the cycles."""

    def __init__(self, behavior: Path = BEHAVIOR, work: Optional[Path] = None) -> None:
        self.behavior = behavior
        self.work = work or Path(tempfile.mkdtemp(prefix="bench_soak-"))
        self._own_work = work is None
        self.url = ""
        plan = Plan(behavior=str(behavior), log_level="error")
        self._group = ProcessGroup()
        self._context = rclpy.Context()
        rclpy.init(context=self._context)
        self.node = rclpy.create_node("bench_soak", context=self._context)
        self._executor = SingleThreadedExecutor(context=self._context)
        self._executor.add_node(self.node)
        self.states: List[BehaviorState] = []
        #: every error of a run the runner's states told, once each (stamp, box, where,
        #: message)
        self.errors: Dict[Tuple[int, int, str, str, str], None] = {}
        self.node.create_subscription(BehaviorState, "behavior/state", self._on_state, LATCHED)
        self._clients = {name: self.node.create_client(kind, name) for kind, name in (
            (Play, "behavior/play"), (Trigger, "behavior/stop"), (GoTo, "behavior/goto"),
            (LoadBehavior, "behavior/load"))}
        self._runs = ActionClient(self.node, RunBehavior, "behavior/run")
        self._spinner = threading.Thread(target=self._spin, daemon=True, name="bench_soak")
        self._spinner.start()
        self.pids: Dict[str, int] = {}
        try:
            simulator, self.url = start_simulator(self._group.starter("naoqi_sim"),
                                                  plan.simulator_command(SIMULATOR_LISTEN, "nao"))
            bridge = self._group.start("naoqi_bridge", plan.bridge_command(self.url))
            runner = self._group.start("behavior_runner", plan.runner_command(self.url))
            self.pids = dict(zip(PROGRAMS, (simulator.pid, bridge.pid, runner.pid)))
            self._wait_ready()
        except BaseException:
            self.close()
            raise

    def _on_state(self, state: BehaviorState) -> None:
        self.states.append(state)
        for error in state.errors:
            self.errors.setdefault((error.stamp.sec, error.stamp.nanosec, error.box_path,
                                    error.where, error.message))

    def run_errors(self) -> List[str]:
        """The errors of the runs so far, as ``box: where: message``, in the order told."""
        return ["%s: %s: %s" % key[2:] for key in list(self.errors)]

    def _spin(self) -> None:
        while self._context.ok():
            try:
                self._executor.spin_once(timeout_sec=0.05)
            except Exception:  # shutting down
                if self._context.ok():
                    raise

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 60
        while not (self.states and self.states[-1].status == BehaviorState.LOADED):
            if time.monotonic() > deadline:
                raise RuntimeError("the runner did not load %s within 60 s" % self.behavior)
            time.sleep(0.05)
        for client in self._clients.values():
            if not client.wait_for_service(timeout_sec=30):
                raise RuntimeError("no service " + client.srv_name)
        if not self._runs.wait_for_server(timeout_sec=30):
            raise RuntimeError("no behavior/run action server")

    def call(self, name: str, request: Any) -> Any:
        """Call one of the runner's services; RuntimeError when it refuses."""
        answer = wait_done(self._clients[name].call_async(request), name)
        if not answer.success:
            raise RuntimeError("%s: %s" % (name, answer.message))
        return answer

    def cycle(self, index: int) -> None:
        """Cycle ``index`` of the pattern (see the module doc)."""
        kind = PATTERN[index % len(PATTERN)]
        pause = (index % 4) * 0.015
        if kind == "load":
            self.call("behavior/load", LoadBehavior.Request(path=str(self.behavior)))
        elif kind == "goal":
            handle = wait_done(self._runs.send_goal_async(RunBehavior.Goal()), "a goal")
            if not handle.accepted:
                raise RuntimeError("behavior/run refused a goal")
            time.sleep(pause)
            result = handle.get_result_async()
            handle.cancel_goal_async()
            wait_done(result, "the result of a cancelled goal")
        else:
            self.call("behavior/play", Play.Request())
            time.sleep(pause)
            if index % 2:
                self.call("behavior/goto", GoTo.Request(label="Wave"))
            self.call("behavior/stop", Trigger.Request())

    def usage(self) -> Dict[str, Usage]:
        """RSS, threads and descriptors of each program now."""
        return {name: Usage.of(pid) for name, pid in self.pids.items()}

    def fresh_say_seconds(self, timeout: float = 60.0) -> float:
        """How long ``ALTextToSpeech.say`` of :data:`FRESH_SENTENCE` takes on the robot now
        (from a qi session of this process)."""
        session = qi.Session()
        session.connect(self.url)
        try:
            started = time.monotonic()
            future = session.service("ALTextToSpeech").say(FRESH_SENTENCE, _async=True)
            future.wait(int(timeout * 1000))
            if not future.isFinished():
                future.cancel()
                return float("inf")
            return time.monotonic() - started
        finally:
            session.close()

    def close(self) -> None:
        self._context.try_shutdown()
        self._spinner.join(5)
        self._group.stop_all()
        if self._own_work:
            shutil.rmtree(self.work, ignore_errors=True)


def table(rows: List[tuple]) -> str:
    """The usage rows ``(label, cycles, seconds, {program: Usage})`` and the growth from
    the second row (the start) to the last."""
    header = "%-8s %6s %7s" % ("when", "cycles", "time s") + "".join(
        "  %-25s" % name for name in PROGRAMS)
    units = " " * 23 + "".join("  %-25s" % "RSS MB  threads  fds" for _ in PROGRAMS)
    lines = [header, units]
    for label, cycles, seconds, usage in rows:
        lines.append("%-8s %6d %7.0f" % (label, cycles, seconds) + "".join(
            "  %6.1f  %7d  %4d     " % (u.rss_mb, u.threads, u.fds)
            for u in (usage[name] for name in PROGRAMS)))
    start, end = rows[1][3], rows[-1][3]
    lines.append("%-8s %6s %7s" % ("growth", "", "") + "".join(
        "  %+6.1f  %+7d  %+4d     " % (end[n].rss_mb - start[n].rss_mb,
                                       end[n].threads - start[n].threads,
                                       end[n].fds - start[n].fds) for n in PROGRAMS))
    return "\n".join(lines)


def thread_growth(start: Dict[str, Usage], end: Dict[str, Usage]) -> List[str]:
    """Per program, the thread names whose count changed (libqi names its pools)."""
    lines = []
    for name in PROGRAMS:
        before, after = start[name].thread_names, end[name].thread_names
        changed = ["%s %+d" % (thread, after.get(thread, 0) - before.get(thread, 0))
                   for thread in sorted(set(before) | set(after))
                   if after.get(thread, 0) != before.get(thread, 0)]
        if changed:
            lines.append("%s threads: %s" % (name, ", ".join(changed)))
    return lines


def growth_problems(start: Dict[str, Usage], end: Dict[str, Usage]) -> List[str]:
    """What grew beyond the acceptance limits."""
    problems = []
    for name in PROGRAMS:
        memory = end[name].rss_mb - start[name].rss_mb
        threads = end[name].threads - start[name].threads
        if memory >= MAX_GROWTH_MB:
            problems.append("%s grew by %.1f MB" % (name, memory))
        if threads >= MAX_GROWTH_THREADS:
            problems.append("%s grew by %d threads" % (name, threads))
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cycles", type=int, default=6000, help="cycles after the warm-up")
    parser.add_argument("--warmup", type=int, default=100,
                        help="cycles before the start is measured")
    parser.add_argument("--rest", type=float, default=10.0,
                        help="seconds without cycles before the last measure (libqi ends "
                             "pool threads idle for 5 s)")
    arguments = parser.parse_args()
    soak = Soak()
    try:
        began = time.monotonic()
        rows = [("launch", 0, 0.0, soak.usage())]
        for index in range(arguments.warmup):
            soak.cycle(index)
        started = time.monotonic()
        rows.append(("start", 0, 0.0, soak.usage()))
        for done in range(1, arguments.cycles + 1):
            soak.cycle(arguments.warmup + done - 1)
            if done in CHECKPOINTS and done != arguments.cycles:
                rows.append(("%dk" % (done // 1000), done, time.monotonic() - started,
                             soak.usage()))
            if done % 500 == 0:
                print("... %d cycles, %.0f s" % (done, time.monotonic() - started),
                      file=sys.stderr, flush=True)
        rows.append(("end", arguments.cycles, time.monotonic() - started, soak.usage()))
        time.sleep(arguments.rest)
        rows.append(("rested", arguments.cycles, time.monotonic() - started, soak.usage()))
        print(table(rows))
        for line in thread_growth(rows[1][3], rows[-1][3]):
            print(line)
        print("fresh ALTextToSpeech.say(%r): %.2f s" % (FRESH_SENTENCE, soak.fresh_say_seconds()))
        print("machine: %d CPUs, load average %.2f; %.1f min in all"
              % (os.cpu_count(), os.getloadavg()[0], (time.monotonic() - began) / 60))
        problems = growth_problems(rows[1][3], rows[-1][3])
        errors = soak.run_errors()
        print("errors of the runs: %d%s" % (len(errors), "".join(
            "\n  " + error for error in errors[:MAX_ERRORS_SHOWN])))
        if errors:
            problems.append("%d run error(s)" % len(errors))
        print("growth: " + ("; ".join(problems) if problems else
                            "every process grew by less than %.0f MB and %d threads"
                            % (MAX_GROWTH_MB, MAX_GROWTH_THREADS)))
        return 1 if problems else 0
    finally:
        soak.close()


if __name__ == "__main__":
    sys.exit(main())
