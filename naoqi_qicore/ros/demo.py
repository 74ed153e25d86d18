"""The demo of ``make demo``: a behavior played on the simulated robot through ROS 2.

1. converts ``examples/wave_hello/behavior.xar`` into ``.demo/converted`` and draws its
   graph into ``.demo/behavior_graph.svg``;
2. starts the simulated robot (recording every call), naoqi_bridge and behavior_runner
   with its live view on (its URL is printed: open it in a browser to watch the run);
3. runs the behavior through the ``behavior/run`` action, goes to a label while it plays
   (``behavior/goto``), printing the action's feedback (every state change) and the focus
   changes as they happen, then how the goal ended (SUCCEEDED only for a behavior that
   finished with no error) and the action's result;
4. plots the joint angles the simulated robot executed (from its call record) into
   ``.demo/joint_angles.png`` and draws the root diagram with the boxes that ran
   highlighted into ``.demo/behavior_diagram.png``, next to the graph.
"""
import argparse
import bisect
import math
import shutil
import sys
import threading
import time
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

import rclpy
from action_msgs.msg import GoalStatus
from rclpy.executors import SingleThreadedExecutor

from naoqi_qicore.action import RunBehavior
from naoqi_qicore.msg import ActivityFocus, BehaviorState
from naoqi_qicore.robot.sim.bezier import BezierCurve
from naoqi_qicore.robot.sim.joints import JointTable
from naoqi_qicore.robot.sim.recorder import read_calls
from naoqi_qicore.robot.sim.services.posture import posture_angles
from naoqi_qicore.ros.focus import focus_details
from naoqi_qicore.ros.launcher import (SIMULATOR_LISTEN, Plan, ProcessGroup, free_tcp_port,
                                       start_simulator)
from naoqi_qicore.ros.live_view import fetch_state, objects_by_path, view_url
from naoqi_qicore.ros.qos import LATCHED
from naoqi_qicore.ros.run_client import BehaviorRunClient, result_lines, state_line
from naoqi_qicore.srv import GoTo
from naoqi_qicore.xar.model import Behavior

#: the demo calls behavior/goto once the behavior has played this far
GOTO_AFTER_FRAME = 45
#: how long the demo waits, after the run's result, for the runner to release the focus (s)
FOCUS_RELEASE_TIMEOUT = 5.0
#: time step of the plotted joint angles (s)
PLOT_STEP = 0.02


_OUTPUT_LOCK = threading.Lock()


def say(text: str) -> None:
    """Print ``text`` as one piece: the ROS callbacks and the main thread print at once."""
    with _OUTPUT_LOCK:
        print(text, flush=True)


class Watcher:
    """Prints the run's feedback (state changes) and behavior/focus changes; remembers the
    latest state (behavior/state until the run starts, then the feedback)."""

    def __init__(self, node, started: float) -> None:
        self._started = started
        self._last_line: Optional[str] = None
        self._running = False
        self.state: Optional[BehaviorState] = None
        self.changed = threading.Condition()
        self._focused = False  # an activity had the focus while the demo watched
        #: set once an activity that had the focus while the demo watched has released it
        self.focus_released = threading.Event()
        node.create_subscription(BehaviorState, "behavior/state", self._on_state, LATCHED)
        node.create_subscription(ActivityFocus, "behavior/focus", self._on_focus, LATCHED)

    def print(self, line: str) -> None:
        say("[%6.2f s] %s" % (time.monotonic() - self._started, line))

    def _on_state(self, state: BehaviorState) -> None:
        if not self._running:
            self._update(state)

    def start_run(self) -> None:
        """From now on the state is the run's feedback."""
        with self.changed:
            self._running = True
            self.state = None

    def on_feedback(self, state: BehaviorState) -> None:
        """A feedback of the run: printed when it changed."""
        line = state_line(state)
        if line != self._last_line:
            self._last_line = line
            self.print(line)
        self._update(state)

    def _update(self, state: BehaviorState) -> None:
        with self.changed:
            self.state = state
            self.changed.notify_all()

    def _on_focus(self, focus: ActivityFocus) -> None:
        details = focus_details(focus)
        if focus.focused_activity or details:  # else no activity had the focus yet
            self.print("focus  %r (%s)" % (focus.focused_activity, "; ".join(details)))
        if focus.focused_activity:
            self._focused = True
        elif self._focused:
            self.focus_released.set()

    def wait_for(self, predicate, timeout: float) -> BehaviorState:
        with self.changed:
            if not self.changed.wait_for(lambda: self.state is not None and predicate(self.state),
                                         timeout):
                raise RuntimeError("timed out waiting for the behavior (last state: %s)"
                                   % self._last_line)
            return self.state


def call(client, request, timeout: float = 30.0):
    """Call a service from the demo node (spun by another thread).  ``client`` is made well
    before the call: a server answering a client it has not discovered yet drops the answer
    (the middleware's "failed to send response"), which a client made just before its call
    meets on a loaded machine."""
    if not client.wait_for_service(timeout_sec=timeout):
        raise RuntimeError("service %s did not appear" % client.srv_name)
    done = threading.Event()
    future = client.call_async(request)
    future.add_done_callback(lambda _: done.set())
    if not done.wait(timeout):
        raise RuntimeError("no answer from %s" % client.srv_name)
    return future.result()


def convert(behavior: Path, output: Path, graph: Path) -> Behavior:
    """Convert the behavior into ``output`` and draw its diagrams into the SVG file
    ``graph`` (the root diagram) and the pages beside it; its model."""
    from naoqi_qicore.converter.api import convert as convert_input
    from naoqi_qicore.converter.graph import graph_files
    from naoqi_qicore.converter.ownership import WRITTEN_LIST
    from naoqi_qicore.ros.behavior_cache import is_converted
    if is_converted(output) and not (output / WRITTEN_LIST).exists():
        # the demo's own folder, converted by a version that did not list what it wrote
        say("  replacing %s (converted by an older naoqi_qicore)" % output)
        shutil.rmtree(output)
    result = convert_input(behavior, output, force=True)
    for warning in result.warnings:
        say("  warning: %s" % warning)
    model = result.models[0]
    for name, content in graph_files(model, graph.stem, graph.suffix).items():
        graph.with_name(name).write_bytes(content)
    return model


def draw_ran(model: Behavior, ran_paths: List[str], output: Path) -> None:
    """Draw the root page of ``model``'s diagram into the PNG file ``output``, the boxes
    whose paths are in ``ran_paths`` highlighted."""
    from naoqi_qicore.converter.graph import GraphvizError, render_pages
    from naoqi_qicore.converter.naming import assign_names
    objects = objects_by_path(model, assign_names(model))
    ran = {name for path in ran_paths for name in objects.get(path, [])}
    try:
        pages = render_pages(model, fmt="png", ran=ran)
    except GraphvizError as error:
        raise RuntimeError("cannot draw %s: %s" % (output, error)) from None
    output.write_bytes(next(iter(pages.values())))


def executed_trajectories(record: Path, robot: str = "nao"
                          ) -> Tuple[float, Dict[str, List[Tuple[float, float]]]]:
    """When the first motion call came (wall clock s) and joint -> (time s from then, angle)
    every :data:`PLOT_STEP` s of what the simulated robot executed, from its call record.

    The recorded ``angleInterpolationBezier`` calls are replayed with the simulator's own
    curve maths and task rules: each call starts when it reached the robot, from where its
    joints were then (StandInit before the first call), and ends the calls still moving
    any of its joints; ``killTasksUsingResources(names)`` ends the calls moving any of
    those joints.  The joints of an ended call stay where they are (unless the call that
    ended it moves them).  Failed calls moved nothing.
    """
    calls = sorted(read_calls(record), key=lambda c: c["time"])
    calls = [c for c in calls if c.get("service") == "ALMotion" and "error" not in c
             and c.get("method") in ("angleInterpolationBezier", "killTasksUsingResources")]
    motions = [c for c in calls if c["method"] == "angleInterpolationBezier"]
    if not motions:
        return 0.0, {}
    origin = motions[0]["time"]
    joints = JointTable(robot)
    pose = posture_angles(robot)["StandInit"][1]
    # joint -> pieces (from time, curve started then or None, angle held when None)
    pieces: Dict[str, List[Tuple[float, Optional[BezierCurve], float]]] = {}
    moving: List[Tuple[float, Set[str]]] = []  # (end time, joints) of the calls still moving

    def angle(joint: str, time_s: float) -> float:
        start, curve, held = pieces[joint][-1] if joint in pieces else (0.0, None, pose[joint])
        return curve.angle_at(time_s - start) if curve is not None else held

    for call in calls:
        at = call["time"]
        names = [joints.coupled.get(j, j) for j in joints.expand(call["args"][0])]
        ended = [task for task in moving if task[0] > at and task[1] & set(names)]
        moving = [task for task in moving if task[0] > at and task not in ended]
        for joint in set().union(*(task_joints for _, task_joints in ended)):
            pieces[joint].append((at, None, angle(joint, at)))
        if call["method"] == "killTasksUsingResources":
            continue
        _, times, keys = call["args"][:3]
        call_end = at
        for joint, joint_times, joint_keys in zip(names, times, keys):
            clamped = [[joints.clamp(joint, key[0]), key[1], key[2]] for key in joint_keys]
            curve = BezierCurve(joint_times, clamped, angle(joint, at))
            pieces.setdefault(joint, []).append((at, curve, 0.0))
            call_end = max(call_end, at + curve.duration)
        moving.append((call_end, set(names)))
    end = max(start + (curve.duration if curve is not None else 0.0)
              for start, curve, _ in (joint_pieces[-1] for joint_pieces in pieces.values()))
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
    model = convert(behavior, out / "converted", graph)
    plan = Plan(behavior=str(behavior), record=str(record), log_level="warn")
    group = ProcessGroup()
    rclpy.init()
    node = rclpy.create_node("naoqi_qicore_demo")
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    try:
        robot, reason = plan.simulated_robot()
        print("demo: simulated %s robot: %s" % ("Pepper" if robot == "pepper" else "NAO",
                                                 reason), flush=True)
        _, url = start_simulator(group.starter("naoqi_sim"),
                                 plan.simulator_command(SIMULATOR_LISTEN, robot))
        view_port = free_tcp_port()  # picked once the simulator holds its own port
        group.start("naoqi_bridge", plan.bridge_command(url))
        group.start("behavior_runner", plan.runner_command(url, view_port))
        say("demo: live view at %s (open it in a browser to watch the run)"
            % view_url(view_port))
        started = time.monotonic()
        watcher = Watcher(node, started)
        runs = BehaviorRunClient(node)  # made before the node spins in another thread
        goto = node.create_client(GoTo, "behavior/goto")  # discovered long before its call
        spinner.start()
        watcher.wait_for(lambda s: s.status == BehaviorState.LOADED, 60)
        say("run: behavior/run goal sent (the loaded behavior)")
        watcher.start_run()
        goal = runs.run(RunBehavior.Goal(), watcher.on_feedback)
        before = watcher.wait_for(lambda s: s.frame >= GOTO_AFTER_FRAME
                                  or s.status != BehaviorState.PLAYING, 30)
        say("goto %s (called at frame %d)" % (goto_label, before.frame))
        goto_time = time.time()
        answer = call(goto, GoTo.Request(label=goto_label))
        say("goto answered: %s" % answer.message)
        result = goal.wait(60)
        if result is None:
            raise RuntimeError("the run did not end within 60 s")
        for line in result_lines(result, goal.status):
            watcher.print(line)
        watcher.focus_released.wait(FOCUS_RELEASE_TIMEOUT)  # the runner's focus release
        succeeded = goal.status == GoalStatus.STATUS_SUCCEEDED
        try:  # the boxes that started during the run, as the live view collected them
            ran_paths = fetch_state(view_port)["ran_boxes"]
        except OSError as error:
            raise RuntimeError("cannot read the live view at %s: %s"
                               % (view_url(view_port), error)) from None
        say("boxes that ran: %s" % ", ".join(ran_paths))
    finally:
        executor.shutdown()
        node.destroy_node()
        rclpy.try_shutdown()
        group.stop_all()
    origin, samples = executed_trajectories(record)
    png = out / "joint_angles.png"
    plot(samples, goto_time - origin, png)
    diagram = out / "behavior_diagram.png"
    draw_ran(model, ran_paths, diagram)
    print("\nfiles:\n  converted behavior  %s\n  behavior graph      %s\n  robot call record   %s\n"
          "  joint angle plot    %s\n  boxes that ran      %s"
          % (out / "converted", graph, record, png, diagram))
    return 0 if succeeded else 1


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
