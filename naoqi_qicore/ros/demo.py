"""The demo of ``make demo``: a behavior played on the simulated robot through ROS 2.

1. converts ``examples/wave_hello/behavior.xar`` into ``.demo/converted`` and draws its
   graph into ``.demo/behavior_graph.svg``;
2. starts the simulated robot (recording every call), naoqi_bridge and behavior_runner;
3. plays the behavior, goes to a label while it plays, lets it finish, printing every
   state and focus change as it happens;
4. plots the joint angles the simulated robot executed (from its call record) into
   ``.demo/joint_angles.png``, next to the graph.
"""
import argparse
import bisect
import json
import math
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import rclpy
from rclpy.executors import SingleThreadedExecutor

from naoqi_qicore.msg import ActivityFocus, BehaviorState
from naoqi_qicore.robot.sim.bezier import BezierCurve
from naoqi_qicore.robot.sim.joints import JointTable
from naoqi_qicore.robot.sim.services.posture import posture_angles
from naoqi_qicore.ros.launcher import Plan, ProcessGroup, free_tcp_port, wait_for_port
from naoqi_qicore.ros.qos import LATCHED
from naoqi_qicore.srv import GoTo, Play

#: the demo calls behavior/goto once the behavior has played this far
GOTO_AFTER_FRAME = 45
#: time step of the plotted joint angles (s)
PLOT_STEP = 0.02
STATUS_NAMES = {getattr(BehaviorState, name): name for name in
                ("IDLE", "LOADED", "PLAYING", "PAUSED", "STOPPED", "FINISHED", "ERROR")}


_OUTPUT_LOCK = threading.Lock()


def say(text: str) -> None:
    """Print ``text`` as one piece: the ROS callbacks and the main thread print at once."""
    with _OUTPUT_LOCK:
        print(text, flush=True)


class Watcher:
    """Prints behavior/state and behavior/focus changes; remembers the latest state."""

    def __init__(self, node, started: float) -> None:
        self._started = started
        self._last_line: Optional[str] = None
        self.state: Optional[BehaviorState] = None
        self.changed = threading.Condition()
        node.create_subscription(BehaviorState, "behavior/state", self._on_state, LATCHED)
        node.create_subscription(ActivityFocus, "behavior/focus", self._on_focus, LATCHED)

    def _print(self, line: str) -> None:
        say("[%6.2f s] %s" % (time.monotonic() - self._started, line))

    def _on_state(self, state: BehaviorState) -> None:
        line = "state  %-8s frame %3d  states %s  boxes %s%s" % (
            STATUS_NAMES.get(state.status, state.status), state.frame, list(state.states),
            list(state.active_boxes), "  error: " + state.last_error if state.last_error else "")
        if line != self._last_line:
            self._last_line = line
            self._print(line)
        with self.changed:
            self.state = state
            self.changed.notify_all()

    def _on_focus(self, focus: ActivityFocus) -> None:
        self._print("focus  %r (previous %r, started: %s, previous stopped: %s, stack %s)" % (
            focus.focused_activity, focus.previous_activity, focus.start_reason or "-",
            focus.stop_reason or "-", list(focus.focus_stack)))

    def wait_for(self, predicate, timeout: float) -> BehaviorState:
        with self.changed:
            if not self.changed.wait_for(lambda: self.state is not None and predicate(self.state),
                                         timeout):
                raise RuntimeError("timed out waiting for the behavior (last state: %s)"
                                   % self._last_line)
            return self.state


def call(node, service_type, name: str, request, timeout: float = 30.0):
    """Call a service from the demo node (spun by another thread)."""
    client = node.create_client(service_type, name)
    if not client.wait_for_service(timeout_sec=timeout):
        raise RuntimeError("service %s did not appear" % name)
    done = threading.Event()
    future = client.call_async(request)
    future.add_done_callback(lambda _: done.set())
    if not done.wait(timeout):
        raise RuntimeError("no answer from %s" % name)
    return future.result()


def convert(behavior: Path, output: Path, graph: Path) -> None:
    """Convert the behavior into ``output`` and draw its graph into the SVG file ``graph``."""
    from naoqi_qicore.converter.api import convert as convert_input
    from naoqi_qicore.converter.graph import render_graph
    result = convert_input(behavior, output, force=True)
    for warning in result.warnings:
        say("  warning: %s" % warning)
    graph.write_text(render_graph(result.models[0], ".svg"), encoding="utf-8")


def executed_trajectories(record: Path, robot: str = "nao"
                          ) -> Tuple[float, Dict[str, List[Tuple[float, float]]]]:
    """When the first motion call came (wall clock s) and joint -> (time s from then, angle)
    every :data:`PLOT_STEP` s of what the simulated robot executed, from its call record.

    The recorded ``angleInterpolationBezier`` calls are replayed with the simulator's own
    curve maths: each starts when it reached the robot, from where the joint was then
    (StandInit before the first call); a later call moving the joint takes over, and
    ``ALMotion.stop`` of a call's task holds its joints where they are.
    """
    calls = sorted((json.loads(line) for line in record.read_text().splitlines()
                    if line.strip()), key=lambda c: c["time"])
    calls = [c for c in calls if c.get("service") == "ALMotion" and "error" not in c
             and c.get("method") in ("angleInterpolationBezier", "stop")]
    motions = [c for c in calls if c["method"] == "angleInterpolationBezier"]
    if not motions:
        return 0.0, {}
    origin = motions[0]["time"]
    joints = JointTable(robot)
    pose = posture_angles(robot)["StandInit"][1]
    # joint -> pieces (from time, curve started then or None, angle held when None)
    pieces: Dict[str, List[Tuple[float, Optional[BezierCurve], float]]] = {}
    tasks: Dict[str, Any] = {}  # joint -> task id of the call moving it

    def angle(joint: str, time_s: float) -> float:
        start, curve, held = pieces[joint][-1] if joint in pieces else (0.0, None, pose[joint])
        return curve.angle_at(time_s - start) if curve is not None else held

    end = origin
    for call in calls:
        at = call["time"]
        if call["method"] == "stop":
            for joint in [j for j, task in tasks.items() if task == call["args"][0]]:
                pieces[joint].append((at, None, angle(joint, at)))
                del tasks[joint]
            continue
        names, times, keys = call["args"][:3]
        for joint, joint_times, joint_keys in zip(joints.expand(names), times, keys):
            joint = joints.coupled.get(joint, joint)
            clamped = [[joints.clamp(joint, key[0]), key[1], key[2]] for key in joint_keys]
            curve = BezierCurve(joint_times, clamped, angle(joint, at))
            pieces.setdefault(joint, []).append((at, curve, 0.0))
            tasks[joint] = call.get("result") if call.get("post") else None
            end = max(end, at + curve.duration)
    steps = math.ceil((end - origin) / PLOT_STEP - 1e-9)  # the last sample at the end
    samples: Dict[str, List[Tuple[float, float]]] = {}
    for joint, joint_pieces in pieces.items():
        starts = [start for start, _, _ in joint_pieces]
        points = samples[joint] = []
        for step in range(steps + 1):
            at = origin + step * PLOT_STEP
            index = bisect.bisect_right(starts, at) - 1
            start, curve, held = joint_pieces[index] if index >= 0 else (at, None, pose[joint])
            points.append((at - origin, curve.angle_at(at - start) if curve is not None
                           else held))
    return origin, samples


def plot(samples: Dict[str, List[Tuple[float, float]]], goto_time: float,
         output: Path) -> None:
    """Plot the executed joint angles, with a line where behavior/goto was called."""
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, axes = pyplot.subplots(figsize=(10, 5))
    for name in sorted(samples):
        points = sorted(samples[name])
        axes.plot([t for t, _ in points], [a for _, a in points], label=name)
    axes.axvline(goto_time, color="grey", linestyle="--", label="behavior/goto")
    axes.set_xlabel("time since the first motion call (s)")
    axes.set_ylabel("angle (rad) / hand opening")
    axes.set_title("Joint angles executed by the simulated robot")
    axes.legend(loc="upper right", fontsize="small")
    axes.grid(True, alpha=0.3)
    figure.tight_layout()
    figure.savefig(output, dpi=110)
    pyplot.close(figure)


def run_demo(behavior: Path, out: Path, goto_label: str) -> int:
    out.mkdir(parents=True, exist_ok=True)
    record = out / "robot-calls.jsonl"
    if record.exists():
        record.unlink()
    say("converting %s" % behavior)
    graph = out / "behavior_graph.svg"
    convert(behavior, out / "converted", graph)
    port = free_tcp_port()
    url = "tcp://127.0.0.1:%d" % port
    plan = Plan(behavior=str(behavior), robot_url=url, record=str(record), log_level="warn")
    group = ProcessGroup()
    rclpy.init()
    node = rclpy.create_node("naoqi_qicore_demo")
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    try:
        simulator = group.start("naoqi_sim", plan.simulator_command(url))
        wait_for_port("127.0.0.1", port, 30.0, simulator)
        group.start("naoqi_bridge", plan.bridge_command(url))
        group.start("behavior_runner", plan.runner_command(url))
        started = time.monotonic()
        watcher = Watcher(node, started)
        spinner.start()
        watcher.wait_for(lambda s: s.status == BehaviorState.LOADED, 60)
        answer = call(node, Play, "behavior/play", Play.Request())
        say("play: %s" % answer.message)
        if not answer.success:
            return 1
        watcher.wait_for(lambda s: s.status == BehaviorState.PLAYING, 10)
        before = watcher.wait_for(lambda s: s.frame >= GOTO_AFTER_FRAME
                                  or s.status != BehaviorState.PLAYING, 30)
        goto_time = time.time()
        answer = call(node, GoTo, "behavior/goto", GoTo.Request(label=goto_label))
        say("goto %s (called at frame %d): %s" % (goto_label, before.frame, answer.message))
        final = watcher.wait_for(lambda s: s.status in (BehaviorState.FINISHED,
                                                        BehaviorState.ERROR), 60)
        time.sleep(0.5)  # let the last focus change arrive
        say("final: %s" % STATUS_NAMES.get(final.status))
    finally:
        executor.shutdown()
        node.destroy_node()
        rclpy.try_shutdown()
        group.stop_all()
    origin, samples = executed_trajectories(record)
    png = out / "joint_angles.png"
    plot(samples, goto_time - origin, png)
    print("\nfiles:\n  converted behavior  %s\n  behavior graph      %s\n  robot call record   %s\n"
          "  joint angle plot    %s" % (out / "converted", graph, record, png))
    return 0 if final.status == BehaviorState.FINISHED else 1


def main(argv: Optional[List[str]] = None) -> int:
    """Console entry point of the demo."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--behavior", type=Path,
                        default=Path("examples") / "wave_hello" / "behavior.xar")
    parser.add_argument("--out", type=Path, default=Path(".demo"))
    parser.add_argument("--goto", default="Wave", help="label to go to while playing")
    arguments = parser.parse_args(argv)
    try:
        return run_demo(arguments.behavior.resolve(), arguments.out.resolve(), arguments.goto)
    except RuntimeError as error:
        print("demo: %s" % error, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
