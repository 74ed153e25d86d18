"""Conversion speed on the whole corpus, each run in one fresh process (caches cold).

Each corpus file is converted by ``naoqi_qicore.converter.api.convert``, what
``xar_convert`` does: read and parse the .xar, build the model, name the boxes, sweep the
states, port the scripts, render every file and write the folder (temporary folder, then
renamed into place).  The conversion time is the sum of those calls, nothing left out.
The clock runs for each ``convert()`` call; the result it returns (the models read, kept
for the caller) is released after the clock stops.

The corpus is converted ``--runs`` times (default 5), each time by a new Python process,
so that no run profits from another's caches; shared machines are noisy, so every run is
printed, then the best and the median.  Per run: files/s and MB/s, the conversion time
(wall and CPU), the slowest file, the peak RSS and the time a fixed pure-Python loop took
in that process (how fast the host ran at that moment).  Targets: the corpus converted
in <= 1 s, the largest file <= 0.3 s, peak RSS <= 300 MB.

The folders are written under ``--output-dir`` (default: a temporary folder in
/dev/shm when it exists, so that the numbers measure the converter rather than the disk;
give a folder on disk to include its file creation cost, printed on its own line).

    .venv/bin/python bench/bench_convert.py [--runs N] [--corpus DIR] [--output-dir DIR]
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from naoqi_qicore.converter.api import convert  # noqa: E402
from naoqi_qicore.xar.errors import XarError  # noqa: E402


def _filesystem(path: Path) -> str:
    """The type of the file system holding ``path`` (from /proc/mounts), or "?"."""
    best, kind = "", "?"
    try:
        with open("/proc/mounts", encoding="utf-8") as mounts:
            for line in mounts:
                fields = line.split()
                mount = fields[1] if len(fields) > 2 else ""
                if str(path).startswith(mount) and len(mount) > len(best):
                    best, kind = mount, fields[2]
    except OSError:
        pass
    return kind


def _file_creation_time(folder: Path, count: int) -> float:
    """Seconds to create ``count`` empty files in ``folder`` (the file system's own cost)."""
    scratch = Path(tempfile.mkdtemp(prefix="bench-create-", dir=folder))
    start = time.perf_counter()
    for index in range(count):
        os.close(os.open(scratch / str(index), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    elapsed = time.perf_counter() - start
    shutil.rmtree(scratch, ignore_errors=True)
    return elapsed


def _host_speed() -> float:
    """Seconds this process takes for a fixed pure-Python loop: on a shared machine, how
    fast the host ran the interpreter at the time of the run."""
    start, total = time.perf_counter(), 0
    for number in range(1_000_000):
        total += number
    return time.perf_counter() - start


def convert_corpus(files: List[Path], output_dir: Optional[Path]) -> Dict[str, object]:
    """Convert every file of ``files`` once, in this process; the numbers of the run."""
    shm = Path("/dev/shm")
    parent = output_dir or (shm if shm.is_dir() else None)
    scratch = Path(tempfile.mkdtemp(prefix="bench-convert-", dir=parent))
    wall = cpu = 0.0
    slowest = (0.0, "")
    largest = max(files, key=lambda path: path.stat().st_size)
    largest_time = 0.0
    failures = written = 0
    try:
        for index, path in enumerate(files):
            start, start_cpu = time.perf_counter(), time.process_time()
            try:
                result = convert(path, scratch / str(index))
            except XarError:
                failures += 1
                result = None
            elapsed = time.perf_counter() - start
            wall += elapsed
            cpu += time.process_time() - start_cpu
            slowest = max(slowest, (elapsed, path.name))
            largest_time = elapsed if path == largest else largest_time
            if result is not None:
                written += sum(report.files for report in result.behaviors)
            result = None  # the caller's object (models included), released off the clock
        creation = _file_creation_time(scratch, written) if output_dir else None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return {"host_loop": _host_speed(), "wall": wall, "cpu": cpu, "slowest": slowest[0],
            "slowest_file": slowest[1], "largest": largest_time,
            "largest_file": largest.name, "failures": failures, "written": written,
            "folder": str(scratch.parent), "filesystem": _filesystem(scratch), "creation": creation,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def _run_in_child(options: argparse.Namespace) -> Dict[str, object]:
    command = [sys.executable, __file__, "--child", "--corpus", str(options.corpus)]
    if options.output_dir:
        command += ["--output-dir", str(options.output_dir)]
    done = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True)
    return json.loads(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpus" / "files")
    parser.add_argument("--output-dir", type=Path, default=None,
                        help="where the converted folders are written (default: tmpfs)")
    parser.add_argument("--runs", type=int, default=5, help="fresh processes, one run each")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    files = sorted(options.corpus.glob("*.xar"))
    if options.child:
        print(json.dumps(convert_corpus(files, options.output_dir)))
        return 0
    if not files:
        print("no corpus at %s" % options.corpus)
        return 0
    megabytes = sum(path.stat().st_size for path in files) / 1e6
    runs = []
    for number in range(1, max(1, options.runs) + 1):
        run = _run_in_child(options)
        runs.append(run)
        print("run %d: conversion %.3f s wall, %.3f s CPU; %.0f files/s, %.1f MB/s; slowest file "
              "%.3f s (%s); peak RSS %.0f MB; host loop %.0f ms" % (
                  number, run["wall"], run["cpu"], len(files) / run["wall"],
                  megabytes / run["wall"], run["slowest"], run["slowest_file"], run["peak_mb"],
                  run["host_loop"] * 1000))
        if run["creation"] is not None:
            print("       of which the file system's own cost (creating %d empty files "
                  "there): %.3f s" % (run["written"], run["creation"]))
    walls = sorted(run["wall"] for run in runs)
    first = runs[0]
    print("corpus: %d files, %.1f MB (%d refused with an error), %d files written to %s (%s)"
          % (len(files), megabytes, first["failures"], first["written"], first["folder"],
             first["filesystem"]))
    print("conversion (read + parse + model + render + write), %d runs: best %.3f s, "
          "median %.3f s" % (len(runs), walls[0], statistics.median(walls)))
    print("throughput (median run): %.0f files/s  %.1f MB/s"
          % (len(files) / statistics.median(walls), megabytes / statistics.median(walls)))
    print("slowest file: %.3f s at worst (%s)" % max((run["slowest"], run["slowest_file"])
                                                      for run in runs))
    largest = max(files, key=lambda path: path.stat().st_size)
    print("largest file: %.3f s at worst (%s, %.1f MB)" % (
        max(run["largest"] for run in runs), largest.name, largest.stat().st_size / 1e6))
    print("peak RSS: %.0f MB at most" % max(run["peak_mb"] for run in runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
