"""Engine numbers: frame tick jitter and drift, load time and memory.

    python bench/bench_engine.py [--seconds 60] [--corpus ../shared/corpus]

* jitter p50/p99/max (ms) of frame ticks against their absolute deadlines, and drift
  (frames behind or ahead of wall time) after ``--seconds`` of timeline at 25 and 50 fps;
* load time and process RSS for the largest corpus behavior (by boxes) and for a
  synthetic behavior of 1000 boxes.
Targets: p99 jitter <= 1 ms, drift 0 frames, loads <= 0.5 s, RSS <= 150 MB.
"""
import argparse
import gc
import statistics
import sys
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from naoqi_qicore.converter.loader import prepare  # noqa: E402
from naoqi_qicore.core import BehaviorPlayer, MonotonicClock  # noqa: E402
from naoqi_qicore.core.timeline import Timeline  # noqa: E402
from naoqi_qicore.xar.model import (Behavior, BehaviorKeyframe, BehaviorLayer, Box,  # noqa: E402
                                    Diagram, Link, Port, Script, Timeline as TimelineModel)
from naoqi_qicore.xar.parser import parse_xar_file  # noqa: E402


class NoRobot:
    """Services are never reached while loading."""

    def service(self, name):
        raise RuntimeError("no robot in this benchmark")


class NullSink:
    def send(self, segment):
        pass

    def stop(self, segment_id):
        pass


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def tick_jitter(fps, seconds):
    """Lateness of every tick against ``t0 + n / fps`` and the drift at the last frame."""
    clock = MonotonicClock()
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
    print("timeline %2d fps, %4.0f s: jitter p50 %.3f ms, p99 %.3f ms, max %.3f ms; "
          "drift %d frames after %d frames" % (fps, seconds, statistics.median(late_ms),
                                              percentile(late_ms, 0.99), max(late_ms), drift,
                                              last_frame))


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


def measure_load(label, behavior):
    loaded = prepare(behavior)
    gc.collect()
    player = BehaviorPlayer(loaded, NoRobot(), motion=NullSink())
    begin = time.perf_counter()
    player.load()
    elapsed = time.perf_counter() - begin
    rss = psutil.Process().memory_info().rss / 2 ** 20
    boxes = sum(1 for _ in player.boxes())
    print("load %-40s %4d boxes: %.3f s, RSS %.0f MB" % (label, boxes, elapsed, rss))
    player.unload()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpus"))
    options = parser.parse_args()
    for fps in (25, 50):
        tick_jitter(fps, options.seconds)
    measure_load("synthetic", synthetic_behavior(1000))
    files = sorted(Path(options.corpus, "files").glob("*.xar"))
    if files:
        largest = max(files, key=lambda path: path.read_bytes().count(b"<Box "))
        measure_load(largest.name, parse_xar_file(largest))
    else:
        print("corpus not found at %s: largest behavior skipped" % options.corpus)


if __name__ == "__main__":
    main()
