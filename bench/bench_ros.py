"""ROS latencies of behavior_runner + naoqi_bridge on the simulated robot.

* goto -> ALMotion: from calling ``behavior/goto`` (label) on a playing behavior to the
  first ALMotion call the simulated robot receives for it;
* play -> onStart: from calling ``behavior/play`` to the robot call made by the first
  box's onStart (``ALMemory.raiseEvent("Bench/onStart", ...)``);
* goal accepted -> ALMotion: from the moment behavior_runner accepted a ``behavior/run``
  goal (the ``stamp`` of its answer) to the first ALMotion call the simulated robot
  receives for that run;
* cancel -> STOPPED result: from sending the goal's cancel request (once its motion has
  reached the robot) to receiving its result, which must say STOPPED.

Each latency runs from ``time.time()`` just before the request is sent to the ``time``
the simulated robot's call record gives the matching call (``time.time()`` when the call
reached the robot's service object, in the simulator's process; the record writes a call
when it starts): one wall clock, same machine.  ``--count`` calls (200 by default) are
spaced by ``--gap`` seconds (20 ms by default: each call meets a settled system, not the
tail of the previous one) and the p50 / p99 / max are printed in milliseconds, with the
time the service took to answer and the machine's load (the processes share its CPUs with
whatever else runs).
Targets: goto -> ALMotion p99 <= 5 ms; play -> first onStart p99 <= 10 ms; goal accepted
-> ALMotion p99 <= 10 ms; cancel -> STOPPED result p99 <= 100 ms.

    .venv/bin/python bench/bench_ros.py [--count 200] [--gap 0.02]
"""
import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable, List, Tuple

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("ROS_DOMAIN_ID", str(random.randint(102, 200)))
os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")

import rclpy  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from std_srvs.srv import Trigger  # noqa: E402

from naoqi_qicore.action import RunBehavior  # noqa: E402
from naoqi_qicore.msg import BehaviorState  # noqa: E402
from naoqi_qicore.ros.launcher import (SIMULATOR_LISTEN, Plan, ProcessGroup,  # noqa: E402
                                       start_simulator)
from naoqi_qicore.ros.qos import LATCHED  # noqa: E402
from naoqi_qicore.ros.run_client import BehaviorRunClient  # noqa: E402
from naoqi_qicore.srv import GoTo, Play  # noqa: E402

IO = ('<Input name="onLoad" type="1" type_size="1" nature="0" inner="1" id="1" />'
      '<Input name="onStart" type="1" type_size="1" nature="2" inner="0" id="2" />'
      '<Input name="onStop" type="1" type_size="1" nature="3" inner="0" id="3" />'
      '<Output name="onStopped" type="1" type_size="1" nature="1" inner="0" id="4" />')
MARK = '''class MyClass(GeneratedClass):
    def __init__(self):
        GeneratedClass.__init__(self)

    def onLoad(self):
        self.memory = ALProxy("ALMemory")

    def onInput_onStart(self):
        self.memory.raiseEvent("Bench/onStart", 1)

    def onInput_onStop(self):
        pass
'''
#: a root timeline: a box at frame 1 that marks its onStart, labels A and B, one long curve
BENCH_XAR = (
    '<?xml version="1.0" encoding="UTF-8" ?>\n'
    '<ChoregrapheProject xmlns="http://www.aldebaran-robotics.com/schema/choregraphe/project.xsd"'
    ' xar_version="3"><Box name="root" id="-1" x="0" y="0"><script language="4"><content>'
    '<![CDATA[]]></content></script>' + IO +
    '<Timeline enable="1" fps="25" start_frame="0" end_frame="-1" size="3000">'
    '<BehaviorLayer name="bench"><BehaviorKeyframe name="A" index="1"><Diagram>'
    '<Box name="Mark" id="1" x="0" y="0"><script language="4"><content><![CDATA[' + MARK +
    ']]></content></script>' + IO + '</Box>'
    '<Link inputowner="1" indexofinput="2" outputowner="0" indexofoutput="1" /></Diagram>'
    '</BehaviorKeyframe><BehaviorKeyframe name="B" index="1500"><Diagram /></BehaviorKeyframe>'
    '</BehaviorLayer><ActuatorList model="nao"><ActuatorCurve name="value" actuator="HeadYaw"'
    ' mute="0" unit="0"><Key frame="1" value="0" /><Key frame="1500" value="30" />'
    '<Key frame="3000" value="0" /></ActuatorCurve></ActuatorList></Timeline></Box>'
    '</ChoregrapheProject>\n')


class Record:
    """The simulated robot's call record, read incrementally: the calls as they start (the
    lines that end them are skipped) whose line holds one of ``kept`` (naoqi_bridge reads
    the robot 50 times a second: those calls are skipped unparsed)."""

    def __init__(self, path: Path, kept: Tuple[str, ...]) -> None:
        self.path = path
        self._kept = kept
        self._offset = 0
        self.calls: List[dict] = []  # read, not yet matched

    def poll(self) -> None:
        if not self.path.exists():
            return
        with open(self.path) as stream:
            stream.seek(self._offset)
            for line in stream:
                if not line.endswith("\n"):
                    break
                self._offset += len(line.encode())
                if any(text in line for text in self._kept):
                    call = json.loads(line)
                    if "service" in call:
                        self.calls.append(call)

    def first_after(self, start: float, match: Callable[[dict], bool],
                    timeout: float = 5.0) -> float:
        """Time of the first matching call at or after ``start`` (wall clock s)."""
        deadline = time.monotonic() + timeout
        index = 0
        while time.monotonic() < deadline:
            self.poll()
            for index in range(index, len(self.calls)):
                call = self.calls[index]
                if call["time"] >= start and match(call):
                    del self.calls[:index + 1]  # later measurements start later
                    return call["time"]
            time.sleep(0.005)  # the time measured is the record's: polling only waits for it
        raise RuntimeError("no matching robot call within %.0f s" % timeout)


def wait_done(future, what: str, timeout: float = 30.0):
    """The result of an rclpy future completed by the spinning thread."""
    done = threading.Event()
    future.add_done_callback(lambda _: done.set())
    if not done.wait(timeout):
        raise RuntimeError("no answer for " + what)
    return future.result()


def run_goals(runs: BehaviorRunClient, record: "Record", is_motion: Callable[[dict], bool],
              count: int, gap: float) -> Tuple[List[float], List[float]]:
    """``count`` behavior/run goals, each cancelled once its first motion has reached the
    robot: (goal accepted -> first ALMotion call, cancel -> STOPPED result) latencies.  (A
    cancel at a fixed time after the goal could come, on a loaded machine, before the run's
    motion, which then never reached the robot.)"""
    motion_latencies, cancel_latencies = [], []
    for _ in range(count):
        time.sleep(gap)
        handle = runs.send(RunBehavior.Goal(), timeout=30)
        if not handle.accepted:
            raise RuntimeError("behavior/run refused a goal")
        accepted = handle.stamp.sec + handle.stamp.nanosec * 1e-9
        result_future = handle.get_result_async()
        result_time: List[float] = []
        result_future.add_done_callback(lambda _: result_time.append(time.time()))
        motion_latencies.append(record.first_after(accepted, is_motion) - accepted)
        cancelled = time.time()
        handle.cancel_goal_async()
        result = wait_done(result_future, "a result").result
        if result.status != BehaviorState.STOPPED:
            raise RuntimeError("a cancelled goal ended %d: %s" % (result.status, result.message))
        cancel_latencies.append(result_time[0] - cancelled)
    return motion_latencies, cancel_latencies


def percentiles(samples: List[float]) -> str:
    ordered = sorted(samples)
    pick = lambda q: ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]  # noqa
    return "p50 %.2f ms  p99 %.2f ms  max %.2f ms  (n=%d)" % (
        pick(0.5) * 1e3, pick(0.99) * 1e3, ordered[-1] * 1e3, len(ordered))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=200, help="calls measured per latency")
    parser.add_argument("--gap", type=float, default=0.02, help="pause between calls (s)")
    arguments = parser.parse_args()
    count, gap = arguments.count, arguments.gap
    work = Path(tempfile.mkdtemp(prefix="bench_ros-"))
    behavior = work / "bench.xar"
    behavior.write_text(BENCH_XAR)
    record_path = work / "robot-calls.jsonl"
    plan = Plan(behavior=str(behavior), record=str(record_path), log_level="warn")
    group = ProcessGroup()
    rclpy.init()
    node = rclpy.create_node("bench_ros")
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    states: List[BehaviorState] = []
    node.create_subscription(BehaviorState, "behavior/state", states.append, LATCHED)
    run_client = BehaviorRunClient(node)  # made before the node spins
    threading.Thread(target=executor.spin, daemon=True).start()
    record = Record(record_path, ("angleInterpolation", "Bench/onStart"))

    clients = {name: node.create_client(service_type, name) for service_type, name in (
        (Play, "behavior/play"), (Trigger, "behavior/stop"), (GoTo, "behavior/goto"))}

    def call(name: str, request):
        done = threading.Event()
        future = clients[name].call_async(request)
        future.add_done_callback(lambda _: done.set())
        if not done.wait(30):
            raise RuntimeError("no answer from %s" % name)
        answer = future.result()
        if not answer.success:
            raise RuntimeError("%s: %s" % (name, answer.message))
        return answer

    try:
        _, url = start_simulator(group.starter("naoqi_sim"),
                                 plan.simulator_command(SIMULATOR_LISTEN, "nao"))
        group.start("naoqi_bridge", plan.bridge_command(url))
        group.start("behavior_runner", plan.runner_command(url))
        deadline = time.monotonic() + 60
        while not (states and states[-1].status == BehaviorState.LOADED):
            if time.monotonic() > deadline:
                raise RuntimeError("the runner did not load the bench behavior")
            time.sleep(0.05)
        for client in clients.values():
            if not client.wait_for_service(timeout_sec=30):
                raise RuntimeError("no service " + client.srv_name)
        time.sleep(1.0)  # the bridge is up and matched

        is_start = lambda c: c.get("service") == "ALMemory" and "Bench/onStart" in str(c.get("args"))  # noqa
        is_motion = lambda c: c.get("service") == "ALMotion" and "angleInterpolation" in (  # noqa
            c.get("method", "") + str(c.get("args", ""))[:40])
        load_before = os.getloadavg()[0]
        play_latencies, play_answers = [], []
        for _ in range(count):
            time.sleep(gap)
            start = time.time()
            call("behavior/play", Play.Request())
            play_answers.append(time.time() - start)
            play_latencies.append(record.first_after(start, is_start) - start)
            call("behavior/stop", Trigger.Request())
        call("behavior/play", Play.Request())
        goto_latencies, goto_answers = [], []
        for index in range(count):
            time.sleep(gap)
            start = time.time()
            call("behavior/goto", GoTo.Request(label="AB"[index % 2]))
            goto_answers.append(time.time() - start)
            goto_latencies.append(record.first_after(start, is_motion) - start)
        call("behavior/stop", Trigger.Request())
        goal_latencies, cancel_latencies = run_goals(run_client, record, is_motion, count, gap)
        print("goto -> first ALMotion call    %s   (target p99 <= 5 ms)"
              % percentiles(goto_latencies))
        print("play -> first box onStart call %s   (target p99 <= 10 ms)"
              % percentiles(play_latencies))
        print("goal accepted -> ALMotion call %s   (target p99 <= 10 ms)"
              % percentiles(goal_latencies))
        print("cancel -> STOPPED result       %s   (target p99 <= 100 ms)"
              % percentiles(cancel_latencies))
        print("goto answered                  %s" % percentiles(goto_answers))
        print("play answered                  %s" % percentiles(play_answers))
        print("machine: %d CPUs, load average %.2f before, %.2f after; calls %.0f ms apart"
              % (os.cpu_count(), load_before, os.getloadavg()[0], gap * 1e3))
        return 0
    finally:
        executor.shutdown()
        node.destroy_node()
        rclpy.try_shutdown()
        group.stop_all()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
