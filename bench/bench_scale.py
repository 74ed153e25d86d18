"""How conversion and engine load grow with the size of a behavior.

    .venv/bin/python bench/bench_scale.py [--sizes 1000 5000 10000 20000] [--runs 3]
                                          [--work-dir DIR] [--keep] [--profile ROWS]

For each size N a synthetic behavior of N boxes is written as a ``.xar``
(:func:`synthetic_behavior`: nested flow diagrams a few levels deep, boxes chained by
their ports, a handful of distinct Python 2 scripts repeated as real behaviors repeat
library boxes, parameters, and one container in three a timeline box with two
keyframes and motion curves, so that motion keys grow with N too).  Then, each in a
process of its own (so that every peak RSS is that step's alone, measured with
``wait4``):

* conversion: ``python -m naoqi_qicore.converter.cli IN.xar OUT -q``, wall and CPU time
  (user + system, from ``wait4``) of the whole child process (interpreter start
  included) and its peak RSS;
* engine load (``--runs`` times, the run of least CPU time kept, the median CPU time of
  all runs given with the target): what the runner does before play, timed inside the
  child once its modules are imported, in wall and CPU time (``time.process_time``):
  ``load_converted(OUT)``, then
  ``BehaviorPlayer(...).load()`` (every box built, every script run, the root loaded),
  then ``missing_dependencies()``; the child's peak RSS.

CPU time is what the target is about: on a machine other work keeps busy, wall time
also counts the time this process waited for a core.  It prints one row per size with
the load average at its end (with ``--profile ROWS``, followed by the ``ROWS`` functions
of most own time in one more engine load of that size run under :mod:`cProfile`, which
the figures do not count), the growth ratios between sizes four times apart (ideal
4.0 for linear work), and the targets: conversion peak RSS <= 200 MB, engine load of
20,000 boxes <= 1 s of CPU.
"""
import argparse
import cProfile
import io
import json
import math
import os
import pstats
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from naoqi_qicore.xar.model import (ActuatorCurve, ActuatorList, Behavior,  # noqa: E402
                                    BehaviorKeyframe, BehaviorLayer, Box, Diagram, Key, Link,
                                    Parameter, Port, Script, Timeline)
from naoqi_qicore.xar.writer import write_xar  # noqa: E402

CONVERT_RSS_TARGET_MB = 200
LOAD_TARGET_S = 1.0
LOAD_TARGET_BOXES = 20000
DEFAULT_SIZES = (1000, 5000, 10000, 20000)

#: boxes of a diagram that are leaves (script boxes) when the diagram holds containers
LEAVES_PER_DIAGRAM = 8
#: containers at most in one diagram
CONTAINERS_PER_DIAGRAM = 6
#: a diagram of at most this many boxes holds leaves only
SMALL_DIAGRAM = 12
#: one container in this many is a timeline box with motion curves
TIMELINE_EVERY = 3
MOTION_JOINTS = ("HeadYaw", "HeadPitch", "LShoulderPitch", "LElbowRoll", "RShoulderPitch",
                 "RElbowRoll")
KEYS_PER_CURVE = 10

#: the script of the root and of the boxes holding a diagram
_CONTAINER_SCRIPT = """class MyClass(GeneratedClass):
    def __init__(self):
        GeneratedClass.__init__(self, False)

    def onLoad(self):
        pass

    def onUnload(self):
        pass

    def onInput_onStart(self):
        pass

    def onInput_onStop(self):
        self.onUnload()
        self.onStopped()
"""

#: (box name, script, parameters) of the leaf boxes, used in turn
_LEAVES: Tuple[Tuple[str, str, Tuple[Tuple[str, int, str], ...]], ...] = (
    ("Say", """import time

class MyClass(GeneratedClass):
    def __init__(self):
        GeneratedClass.__init__(self)
        self.tts = None
        self.ids = []

    def onLoad(self):
        self.tts = ALProxy('ALTextToSpeech')
        self.ids = []

    def onUnload(self):
        for id in self.ids:
            try:
                self.tts.stop(id)
            except:
                pass
        self.ids = []

    def onInput_onStart(self):
        sentence = "\\\\RSPD=" + str(self.getParameter("Speed (%)")) + "\\\\ "
        sentence += str(self.getParameter("Text"))
        id = self.tts.post.say(sentence)
        self.ids.append(id)
        self.tts.wait(id, 0)
        self.ids.remove(id)
        print "said %s" % sentence
        self.onStopped()

    def onInput_onStop(self):
        self.onUnload()
        self.onStopped()
""", (("Text", 3, "Hello"), ("Speed (%)", 1, "100"))),
    ("Wait", """class MyClass(GeneratedClass):
    def __init__(self):
        GeneratedClass.__init__(self, False)
        self.timer = None

    def onLoad(self):
        self.timer = None

    def onUnload(self):
        self.cancelTimer()

    def cancelTimer(self):
        if self.timer:
            self.timer.stop()
        self.timer = None

    def onTimer(self):
        self.timerOutput()

    def startTimer(self):
        import qi
        self.timer = qi.PeriodicTask()
        self.timer.setCallback(self.onTimer)
        self.timer.setUsPeriod(int(self.getParameter("Timeout (s)") * 1000 * 1000))
        self.timer.start(False)

    def onInput_onStart(self):
        self.cancelTimer()
        self.startTimer()

    def onInput_onStop(self):
        if self.timer and self.timer.isRunning():
            self.onStopped()
        self.onUnload()
""", (("Timeout (s)", 2, "1"),)),
    ("Set Memory", """class MyClass(GeneratedClass):
    def __init__(self):
        GeneratedClass.__init__(self)

    def onLoad(self):
        self.memory = ALProxy("ALMemory")

    def onUnload(self):
        pass

    def onInput_onStart(self, p=None):
        key = self.getParameter("Key")
        self.memory.insertData(key, p if p is not None else 0)
        self.onStopped()

    def onInput_onStop(self):
        self.onUnload()
""", (("Key", 3, "myKey"),)),
    ("Counter", """class MyClass(GeneratedClass):
    def __init__(self):
        GeneratedClass.__init__(self)
        self.count = 0

    def onLoad(self):
        self.count = 0

    def onUnload(self):
        pass

    def onInput_onStart(self):
        self.count += 1
        if self.count >= self.getParameter("Limit"):
            self.count = 0
            self.onStopped()

    def onInput_onStop(self):
        self.onUnload()
""", (("Limit", 1, "3"),)),
    ("Log", """class MyClass(GeneratedClass):
    def __init__(self):
        GeneratedClass.__init__(self)

    def onLoad(self):
        pass

    def onUnload(self):
        pass

    def onInput_onStart(self, p=None):
        self.logger.info(u"box says: %s" % unicode(p))
        self.onStopped(p)

    def onInput_onStop(self):
        self.onUnload()
""", ()),
)

_ON_LOAD, _ON_START, _ON_STOP, _ON_STOPPED = 1, 2, 3, 4


def _ports() -> Dict[str, List[Port]]:
    """The ports of every box, with the ``inner`` and ``tooltip`` Choregraphe writes."""
    return {"inputs": [Port("onLoad", 1, 1, 0, _ON_LOAD, 1, "Signal sent when diagram is loaded."),
                       Port("onStart", 1, 1, 2, _ON_START, 0, "Box behavior starts when a signal "
                            "is received on this input."),
                       Port("onStop", 1, 1, 3, _ON_STOP, 0, "Box behavior stops when a signal is "
                            "received on this input.")],
            "outputs": [Port("onStopped", 1, 1, 1, _ON_STOPPED, 0, "Signal sent when box "
                             "behavior is finished.")]}


class _Builder:
    """Builds the boxes of a synthetic behavior, counting them."""

    def __init__(self) -> None:
        self.boxes = 0
        self.containers = 0

    def leaf(self, box_id: int) -> Box:
        name, code, parameters = _LEAVES[self.boxes % len(_LEAVES)]
        self.boxes += 1
        return Box(name, box_id, **_ports(), script=Script(4, code), parameters=[
            Parameter(label, kind, value, value, _ON_STOPPED + 1 + index)
            for index, (label, kind, value) in enumerate(parameters)])

    def container(self, box_id: int, budget: int) -> Box:
        """A box holding ``budget`` boxes: a flow diagram, or a timeline with motion and
        two keyframes (one container in :data:`TIMELINE_EVERY`)."""
        self.boxes += 1
        self.containers += 1
        script = Script(4, _CONTAINER_SCRIPT)
        if self.containers % TIMELINE_EVERY:
            timeline = Timeline(enable=0, layers=[BehaviorLayer("behavior_layer1", [
                BehaviorKeyframe("keyframe1", 1, self.diagram(budget))])])
            return Box("Group", box_id, **_ports(), script=script, timeline=timeline)
        first = budget // 2
        timeline = Timeline(enable=1, fps=25, start_frame=1, end_frame=60, size=60,
                            layers=[BehaviorLayer("behavior_layer1", [
                                BehaviorKeyframe("start", 1, self.diagram(first)),
                                BehaviorKeyframe("middle", 30, self.diagram(budget - first))])],
                            actuator_list=_motion())
        return Box("Animation", box_id, **_ports(), script=script, timeline=timeline)

    def diagram(self, budget: int) -> Diagram:
        """A diagram of ``budget`` boxes in all (nested ones included), chained from the
        owner's onStart to its onStopped."""
        if budget <= SMALL_DIAGRAM:
            boxes = [self.leaf(index + 1) for index in range(budget)]
        else:
            containers = min(CONTAINERS_PER_DIAGRAM,
                             math.ceil((budget - LEAVES_PER_DIAGRAM) / (SMALL_DIAGRAM + 1)))
            inner = budget - LEAVES_PER_DIAGRAM - containers
            boxes = [self.leaf(index + 1) for index in range(LEAVES_PER_DIAGRAM)]
            for index in range(containers):
                share = inner // containers + (1 if index < inner % containers else 0)
                boxes.append(self.container(LEAVES_PER_DIAGRAM + index + 1, share))
        links = [Link(0, _ON_STOPPED, boxes[-1].id, _ON_STOPPED)] if boxes else []
        previous = (0, _ON_START)
        for box in boxes:
            links.append(Link(box.id, _ON_START, *previous))
            links.append(Link(box.id, _ON_STOP, 0, _ON_STOP))
            previous = (box.id, _ON_STOPPED)
        return Diagram(boxes, links)


def _motion() -> ActuatorList:
    return ActuatorList(model="nao", curves=[
        ActuatorCurve(joint, "value", unit=0, keys=[
            Key(1 + 6 * index, float((index * 7 + offset * 3) % 40 - 20))
            for index in range(KEYS_PER_CURVE)])
        for offset, joint in enumerate(MOTION_JOINTS)])


def synthetic_behavior(count: int) -> Behavior:
    """A behavior of ``count`` boxes in all, the root included (module doc)."""
    builder = _Builder()
    builder.boxes = 1
    diagram = builder.diagram(count - 1)
    root = Box("root", -1, **_ports(), script=Script(4, _CONTAINER_SCRIPT),
               timeline=Timeline(enable=0, layers=[BehaviorLayer("behavior_layer1", [
                   BehaviorKeyframe("keyframe1", 1, diagram)])]))
    return Behavior(root=root, xar_version="3")


def measure_load(folder: Path, profile: Optional[cProfile.Profile] = None) -> Dict[str, float]:
    """Engine load of the converted ``folder`` in this process (module doc): seconds of
    wall time of each step, and of CPU time (``<step>_cpu``); ``profile`` profiles the
    steps measured."""
    from naoqi_qicore.converter.loader import load_converted
    from naoqi_qicore.core import BehaviorPlayer

    class NoRobot:
        """Services are never reached while loading."""

        def service(self, name: str) -> None:
            raise RuntimeError("no robot in this benchmark")

    class NullSink:
        def send(self, segment: object) -> None:
            pass

        def stop(self, segment_id: int) -> None:
            pass

        def wait_all_ended(self, timeout: float) -> bool:
            return True

    if profile is not None:
        profile.enable()
    clocks = [(time.perf_counter(), time.process_time())]
    loaded = load_converted(folder)
    clocks.append((time.perf_counter(), time.process_time()))
    player = BehaviorPlayer(loaded, NoRobot(), motion=NullSink())
    player.load()
    clocks.append((time.perf_counter(), time.process_time()))
    player.missing_dependencies()
    clocks.append((time.perf_counter(), time.process_time()))
    if profile is not None:
        profile.disable()
    boxes = sum(1 for _ in player.boxes())
    errors = len(player.errors)
    player.unload()
    numbers: Dict[str, float] = {"boxes": boxes, "errors": errors}
    for step, (start, end) in zip(("read", "engine", "dependencies", "load"),
                                  ((0, 1), (1, 2), (2, 3), (0, 3))):
        numbers[step] = clocks[end][0] - clocks[start][0]
        numbers[step + "_cpu"] = clocks[end][1] - clocks[start][1]
    return numbers


def profile_load(folder: Path, rows: int) -> str:
    """The ``rows`` functions of most own time in an engine load of ``folder`` run under
    :mod:`cProfile` (which slows the calls it counts: compare shares, not seconds), timed
    in wall time (a CPU-time clock is a system call per function call here, which would
    drown the figures; on a busy machine the waits for a core are counted)."""
    profile = cProfile.Profile()
    before = resource.getrusage(resource.RUSAGE_SELF)
    measure_load(folder, profile)  # its unload included: rusage has no step of its own
    after = resource.getrusage(resource.RUSAGE_SELF)
    text = io.StringIO()
    stats = pstats.Stats(profile, stream=text)
    stats.strip_dirs().sort_stats("tottime").print_stats(rows)
    lines = text.getvalue().strip().splitlines()
    header = next(index for index, line in enumerate(lines) if line.lstrip().startswith("ncalls"))
    return "\n".join([
        "profile of one more load (%.3f s under cProfile; load and unload: %.3f s of system "
        "time, %d page faults): the %d functions of most own time"
        % (stats.total_tt, after.ru_stime - before.ru_stime, after.ru_minflt - before.ru_minflt,
           rows)] + lines[header:])


def _run_child(command: Sequence[str]) -> Tuple[float, float, float, str]:
    """Run ``command``; (wall seconds, CPU seconds, peak RSS in MB, stdout).  Raises on
    failure."""
    with tempfile.TemporaryFile() as output, tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        child = subprocess.Popen(list(command), stdout=output, stderr=errors)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        output.seek(0)
        errors.seek(0)
        if child.returncode != 0:
            raise RuntimeError("%s failed (%d): %s" % (" ".join(command), child.returncode,
                                                        errors.read().decode(errors="replace")))
        return (wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024,
                output.read().decode())


def _measure_size(count: int, work: Path, runs: int, profile_rows: int
                  ) -> Tuple[Dict[str, float], str]:
    xar = work / ("synthetic_%d.xar" % count)
    converted = work / ("synthetic_%d" % count)
    # written by a child: a child's peak RSS counts the pages it shared with this process
    # before it started its program, so this process stays small
    _run_child([sys.executable, __file__, "--write", str(count), str(xar)])
    shutil.rmtree(converted, ignore_errors=True)
    convert_wall, convert_cpu, convert_rss, _ = _run_child(
        [sys.executable, "-m", "naoqi_qicore.converter.cli", str(xar), str(converted), "-q"])
    best: Dict[str, float] = {}
    loads: List[float] = []
    for _ in range(runs):
        _, _, load_rss, output = _run_child([sys.executable, __file__, "--load", str(converted)])
        numbers = json.loads(output)
        loads.append(numbers["load_cpu"])
        if not best or numbers["load_cpu"] < best["load_cpu"]:
            best = dict(numbers, rss=load_rss)
    profile = ""
    if profile_rows:
        profile = _run_child([sys.executable, __file__, "--load", str(converted),
                              "--profile", str(profile_rows)])[3]
    return {"xar_mb": xar.stat().st_size / 1e6, "convert": convert_wall,
            "convert_cpu": convert_cpu, "convert_rss": convert_rss,
            "load_cpu_median": statistics.median(loads),
            **{"load_" + key: value for key, value in best.items()}}, profile


def _pair(row: Dict[str, float], key: str) -> str:
    """``CPU / wall`` seconds of the step ``key`` of ``row``."""
    return "%.3f / %.3f" % (row[key + "_cpu"], row[key])


def _ratio(rows: Dict[int, Dict[str, float]], key: str) -> str:
    sizes = sorted(rows)
    pairs = [(small, large) for small in sizes for large in sizes if large == 4 * small]
    if not pairs:
        return "n/a"
    small, large = pairs[-1]
    return "x%.2f (%d -> %d)" % (rows[large][key] / max(rows[small][key], 1e-9), small, large)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES))
    parser.add_argument("--runs", type=int, default=3, help="engine loads per size (best kept)")
    parser.add_argument("--work-dir", help="where the .xar and converted folders go "
                                           "(default: a temporary folder, removed)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument("--profile", type=int, default=0, metavar="ROWS",
                        help="after each size, the ROWS functions of most own time in one "
                             "more load run under cProfile")
    parser.add_argument("--load", help=argparse.SUPPRESS)  # child: a converted folder
    parser.add_argument("--write", nargs=2, help=argparse.SUPPRESS)  # child: N, .xar file
    options = parser.parse_args()
    if options.load:
        print(profile_load(Path(options.load), options.profile) if options.profile
              else json.dumps(measure_load(Path(options.load))))
        return 0
    if options.write:
        write_xar(synthetic_behavior(int(options.write[0])), options.write[1])
        return 0
    if any(size < 2 for size in options.sizes) or options.runs < 1 or options.profile < 0:
        parser.error("sizes must be >= 2, --runs >= 1 and --profile >= 0")
    work = Path(options.work_dir) if options.work_dir else Path(tempfile.mkdtemp(
        prefix="bench-scale-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None))
    work.mkdir(parents=True, exist_ok=True)
    print("load average %.2f %.2f %.2f on %d CPUs; work dir %s"
          % (*os.getloadavg(), os.cpu_count() or 0, work), flush=True)
    rows: Dict[int, Dict[str, float]] = {}
    print("%7s %7s | %-13s %8s | %-13s %7s %-13s %-13s %-13s %8s | %6s | %s" % (
        "boxes", ".xar MB", "convert s", "conv RSS", "load s", "us/box", "read s",
        "engine s", "deps s", "load RSS", "errors", "load average"), flush=True)
    print("%7s %7s | %-13s %8s | %-13s %7s %-13s %-13s %-13s %8s | %6s |" % (
        "", "", "cpu / wall", "", "cpu / wall", "cpu", *["cpu / wall"] * 3, "", ""),
        flush=True)
    try:
        for count in options.sizes:
            row, profile = _measure_size(count, work, options.runs, options.profile)
            rows[count] = row
            print("%7d %7.1f | %-13s %7.0fM | %-13s %7.1f %-13s %-13s %-13s %7.0fM | %6d | %.2f"
                  % (row["load_boxes"], row["xar_mb"], _pair(row, "convert"), row["convert_rss"],
                     _pair(row, "load_load"), row["load_load_cpu"] / row["load_boxes"] * 1e6,
                     _pair(row, "load_read"), _pair(row, "load_engine"),
                     _pair(row, "load_dependencies"), row["load_rss"], row["load_errors"],
                     os.getloadavg()[0]), flush=True)
            if profile:
                print(profile, flush=True)
    finally:
        if not options.work_dir and not options.keep:
            shutil.rmtree(work, ignore_errors=True)
    print("growth in CPU time (ideal x4.00): convert %s, load %s, read %s, engine %s; "
          "convert RSS %s" % (_ratio(rows, "convert_cpu"), _ratio(rows, "load_load_cpu"),
                              _ratio(rows, "load_read_cpu"), _ratio(rows, "load_engine_cpu"),
                              _ratio(rows, "convert_rss")))
    worst_rss = max(row["convert_rss"] for row in rows.values())
    print("target convert peak RSS <= %d MB: %.0f MB  [%s]" % (
        CONVERT_RSS_TARGET_MB, worst_rss,
        "target met" if worst_rss <= CONVERT_RSS_TARGET_MB else "TARGET MISSED"))
    if LOAD_TARGET_BOXES in rows:
        row = rows[LOAD_TARGET_BOXES]
        load = row["load_load_cpu"]
        print("target load of %d boxes <= %.1f s of CPU: %.3f s CPU (%.3f s wall; median of "
              "the %d loads %.3f s CPU)  [%s]" % (
                  LOAD_TARGET_BOXES, LOAD_TARGET_S, load, row["load_load"], options.runs,
                  row["load_cpu_median"], "target met" if load <= LOAD_TARGET_S
                  else "TARGET MISSED"))
    print("load average now %.2f %.2f %.2f" % os.getloadavg())
    return 0


if __name__ == "__main__":
    sys.exit(main())
