"""Engine numbers: frame tick jitter and drift, load time and memory.

    python bench/bench_engine.py [--seconds 60] [--ordinary] [--corpus ../shared/corpus]

* jitter p50/p99/max (ms) of frame ticks against their absolute deadlines on the real
  monotonic clock, and drift (frames behind or ahead of wall time) after ``--seconds``
  of timeline at 25 and 50 fps (ticking threads ask for real-time scheduling, as in the
  engine, unless ``--ordinary``);
* load time (engine load, and parsing + porting before it) and peak RSS, each in a
  process of its own, of a synthetic behavior of 1000 boxes and of the largest corpus
  behavior.
Targets: p99 jitter <= 1 ms, drift 0 frames, loads <= 0.5 s, RSS <= 150 MB.
"""
import argparse
import gc
import resource
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from naoqi_qicore.converter.loader import prepare  # noqa: E402
from naoqi_qicore.core import BehaviorPlayer, MonotonicClock  # noqa: E402
from naoqi_qicore.core.timeline import Timeline  # noqa: E402
from naoqi_qicore.xar.model import (Behavior, BehaviorKeyframe, BehaviorLayer, Box,  # noqa: E402
                                    Diagram, Link, Port, Script, Timeline as TimelineModel)
from naoqi_qicore.xar.parser import parse_xar_file  # noqa: E402

JITTER_TARGET_MS = 1.0
LOAD_TARGET_S = 0.5
RSS_TARGET_MB = 150


class NoRobot:
    """Services are never reached while loading."""

    def service(self, name):
        raise RuntimeError("no robot in this benchmark")


class NullSink:
    def send(self, segment):
        pass

    def stop(self, segment_id):
        pass

    def wait_all_ended(self, timeout):
        return True


def verdict(met):
    return "target met" if met else "TARGET MISSED"


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def tick_jitter(fps, seconds, realtime):
    """Lateness of every tick against ``t0 + n / fps`` and the drift at the last frame."""
    clock = MonotonicClock(realtime=realtime)
    stamps = []
    done = threading.Event()
    frames = int(seconds * fps)
    timeline = Timeline(clock=clock, fps=fps, end_frame=frames,
                        on_frame=lambda frame: stamps.append((frame, clock.now())),
                        on_end=done.set)
    t0 = clock.now()
    timeline.play()
    done.wait(seconds + 5)
    late_ms = [1000 * (stamp - (t0 + frame / fps)) for frame, stamp in stamps]
    last_frame, last_stamp = stamps[-1]
    drift = round((last_stamp - t0) * fps) - last_frame
    p99 = percentile(late_ms, 0.99)
    print("timeline %2d fps, %4.0f s: jitter p50 %.3f ms, p99 %.3f ms, max %.3f ms; "
          "drift %d frames after %d frames  [%s]"
          % (fps, seconds, statistics.median(late_ms), p99, max(late_ms), drift, last_frame,
             verdict(p99 <= JITTER_TARGET_MS and drift == 0 and last_frame == frames)),
          flush=True)


def synthetic_behavior(count):
    """A root flow diagram of ``count`` script boxes chained onStopped -> onStart."""
    code = ("class MyClass(GeneratedClass):\n    def __init__(self):\n"
            "        GeneratedClass.__init__(self)\n    def onInput_onStart(self):\n"
            "        self.onStopped()\n")
    boxes, links = [], []
    for index in range(1, count + 1):
        boxes.append(Box("Box %d" % index, index, inputs=[
            Port("onLoad", 1, 1, 0, 1), Port("onStart", 1, 1, 2, 2), Port("onStop", 1, 1, 3, 3)],
            outputs=[Port("onStopped", 1, 1, 1, 4)], script=Script(4, code)))
        links.append(Link(index, 2, index - 1 if index > 1 else 0, 4 if index > 1 else 2))
    root = Box("root", -1, inputs=[Port("onStart", 1, 1, 2, 2)],
               outputs=[Port("onStopped", 1, 1, 1, 4)], script=Script(4, ""),
               timeline=TimelineModel(enable=0, layers=[BehaviorLayer("behavior_layer1", [
                   BehaviorKeyframe("keyframe1", 1, Diagram(boxes, links))])]))
    return Behavior(root=root)


def measure_load(label, make_behavior):
    """Parse/prepare then load one behavior in this process; prints one line.

    Run in a process of its own (``--load``), so the peak RSS is this behavior's.
    """
    begin = time.perf_counter()
    loaded = prepare(make_behavior())
    prepared = time.perf_counter()
    gc.collect()
    player = BehaviorPlayer(loaded, NoRobot(), motion=NullSink())
    player.load()
    elapsed = time.perf_counter() - prepared
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    boxes = sum(1 for _ in player.boxes())
    print("load %-32s %4d boxes: %.3f s (parse and port %.3f s), peak RSS %.0f MB  [%s]"
          % (label, boxes, elapsed, prepared - begin, peak,
             verdict(elapsed <= LOAD_TARGET_S and peak <= RSS_TARGET_MB)))
    player.unload()


def realtime_allowed():
    """Whether ticking threads get real-time scheduling here (asked in a thread of its own)."""
    granted = []
    probe = threading.Thread(target=lambda: granted.append(MonotonicClock().enter_thread()))
    probe.start()
    probe.join()
    return granted[0]


def load_in_child(argument):
    """``measure_load`` in a fresh interpreter (its own peak RSS)."""
    result = subprocess.run([sys.executable, __file__, "--load", argument],
                            capture_output=True, text=True)
    print(result.stdout.strip() or result.stderr.strip().splitlines()[-1], flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0,
                        help="length of each timeline run (default 60)")
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--ordinary", action="store_true",
                        help="tick at ordinary priority (no real-time scheduling)")
    parser.add_argument("--load", help=argparse.SUPPRESS)  # "synthetic" or a .xar (child)
    options = parser.parse_args()
    if options.load == "synthetic":
        measure_load("synthetic", lambda: synthetic_behavior(1000))
        return
    if options.load:
        measure_load(Path(options.load).name, lambda: parse_xar_file(Path(options.load)))
        return
    realtime = not options.ordinary and realtime_allowed()
    print("real-time scheduling of ticking threads: %s" % (
        "yes" if realtime else "no (ordinary priority)"), flush=True)
    for fps in (25, 50):
        tick_jitter(fps, options.seconds, realtime)
    load_in_child("synthetic")
    files = sorted(Path(options.corpus, "files").glob("*.xar"))
    if files:
        largest = max(files, key=lambda path: path.stat().st_size)
        load_in_child(str(largest))
    else:
        print("corpus not found at %s: largest behavior skipped" % options.corpus)


if __name__ == "__main__":
    main()
