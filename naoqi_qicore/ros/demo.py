"""The demo of ``make demo``: a behavior played on the simulated robot through ROS 2.

1. converts ``examples/wave_hello/behavior.xar`` (with its SVG graph) into ``.demo/``;
2. starts the simulated robot (recording every call), naoqi_bridge and behavior_runner;
3. plays the behavior, goes to a label while it plays, lets it finish, printing every
   state and focus change as it happens;
4. plots the joint angles the simulated robot executed (from its call record) to a PNG.
"""
import argparse
import json
import sys
import threading
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import rclpy
from rclpy.executors import SingleThreadedExecutor

from naoqi_qicore.msg import ActivityFocus, BehaviorState
from naoqi_qicore.ros.launcher import Plan, ProcessGroup, free_tcp_port, wait_for_port
from naoqi_qicore.ros.qos import LATCHED
from naoqi_qicore.srv import GoTo, Play

STATUS_NAMES = {getattr(BehaviorState, name): name for name in
                ("IDLE", "LOADED", "PLAYING", "PAUSED", "STOPPED", "FINISHED", "ERROR")}


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
        print("[%6.2f s] %s" % (time.monotonic() - self._started, line), flush=True)

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


def convert(behavior: Path, output: Path) -> Path:
    """Convert the behavior with its graph, as ``xar_convert --graph`` does; the SVG written."""
    from naoqi_qicore.converter.api import convert as convert_input
    result = convert_input(behavior, output, force=True, graph=".svg")
    for warning in result.warnings:
        print("  warning: %s" % warning, flush=True)
    graphs = sorted(output.rglob("*.svg"))
    if not graphs:
        raise RuntimeError("the conversion wrote no graph in %s" % output)
    return graphs[0]


def executed_trajectories(record: Path) -> Tuple[float, Dict[str, List[Tuple[float, float]]]]:
    """When the first motion call came (wall clock s) and joint -> (time s from then, angle)
    samples of what the robot executed, from its call record.

    Each angleInterpolationBezier call runs from the time it arrived; a later call moving
    the same joint, or ``ALMotion.stop`` of its task id, cuts it off.
    """
    calls = [json.loads(line) for line in record.read_text().splitlines() if line.strip()]
    motions = [c for c in calls if c.get("service") == "ALMotion"
               and c.get("method") == "angleInterpolationBezier" and "error" not in c]
    if not motions:
        return 0.0, {}
    origin = min(c["time"] for c in motions)
    stopped = {c["args"][0]: c["time"] for c in calls if c.get("service") == "ALMotion"
               and c.get("method") == "stop" and c.get("args")}
    samples: Dict[str, List[Tuple[float, float]]] = {}
    for index, motion in enumerate(motions):
        names, times, keys = motion["args"][:3]
        start = motion["time"]
        stop = stopped.get(motion.get("result"), float("inf")) if motion.get("post") else \
            float("inf")
        for name, joint_times, joint_keys in zip(names, times, keys):
            later = [c["time"] for c in motions[index + 1:] if name in c["args"][0]]
            end = min([stop] + later)
            samples.setdefault(name, []).extend(
                (start + t - origin, angle) for t, angle in _bezier_samples(joint_times, joint_keys)
                if start + t <= end)
    return origin, samples


def _bezier_samples(times: List[float], keys: List[list], steps: int = 12
                    ) -> List[Tuple[float, float]]:
    """Points along the Bezier curve through the keys (the first key is reached from t=0)."""
    points = [(float(times[0]), float(keys[0][0]))]
    for j in range(1, len(times)):
        t0, a0, t1, a1 = times[j - 1], keys[j - 1][0], times[j], keys[j][0]
        c1 = (t0 + keys[j - 1][2][1], a0 + keys[j - 1][2][2])
        c2 = (t1 + keys[j][1][1], a1 + keys[j][1][2])
        for step in range(1, steps + 1):
            u = step / steps
            w = ((1 - u) ** 3, 3 * u * (1 - u) ** 2, 3 * u * u * (1 - u), u ** 3)
            points.append((w[0] * t0 + w[1] * c1[0] + w[2] * c2[0] + w[3] * t1,
                           w[0] * a0 + w[1] * c1[1] + w[2] * c2[1] + w[3] * a1))
    return points


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
    print("converting %s" % behavior, flush=True)
    graph = convert(behavior, out / "converted")
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
        print("play: %s" % answer.message, flush=True)
        if not answer.success:
            return 1
        watcher.wait_for(lambda s: s.frame >= 45 or s.status != BehaviorState.PLAYING, 30)
        goto_time = time.time()
        answer = call(node, GoTo, "behavior/goto", GoTo.Request(label=goto_label))
        print("goto %s: %s" % (goto_label, answer.message), flush=True)
        final = watcher.wait_for(lambda s: s.status in (BehaviorState.FINISHED,
                                                        BehaviorState.ERROR), 60)
        time.sleep(0.5)  # let the last focus change arrive
        print("final: %s" % STATUS_NAMES.get(final.status), flush=True)
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
