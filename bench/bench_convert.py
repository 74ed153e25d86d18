"""Conversion speed on the whole corpus: in one process, and one process per file.

**One process** (``--mode one-process``): each corpus file is converted by
``naoqi_qicore.converter.api.convert``, what ``xar_convert`` does: read and parse the .xar,
build the model, name the boxes, sweep the states, port the scripts, render every file and
write the folder (temporary folder, then renamed into place).  The conversion time is the
sum of those calls, nothing left out; the result each call returns is released off the
clock.  The corpus is converted ``--runs`` times (default 5), each time by a new Python
process so that no run profits from another's caches; every run is printed, then the best
and the median.  Per run: files/s and MB/s, wall and CPU time, the slowest file, the peak
RSS and the time a fixed pure-Python loop took in that process (how fast the host ran).
Targets: the corpus converted in <= 0.6 s, the largest file <= 0.3 s, peak RSS <= 300 MB.

**One process per file** (``--mode per-file``), the way people use it: ``xar_convert
FILE OUT -q`` started for each file, as from a fresh shell, timed from start to exit;
each file ``--runs`` times (default 3), its median kept.  Timed in two shells: one where
the environment was activated (``. .venv/bin/activate``, as the README says to work: the
ROS 2 wheels' library path is set once there) and one where it was not (the wheels' start-up
hook then starts every interpreter twice).  Printed for each, in wall time and in CPU time
(user and system, of the process and its children: on a busy machine wall time also
counts the waits for a core): the total, the median file, the slowest file, and the time a
bare ``python -c pass`` of the same interpreter takes there (the floor every process pays).

**Against libqicore's 2012 converter**: give a Python 2.7 interpreter and a copy of
libqicore's 2012 ``python/py`` folder (the one holding ``xar_converter.py``: the
converter as of 36a450e, December 2012, which writes into the current folder, or a later
one taking the folder), with
``--py2`` and ``--libqicore-2012`` or the environment variables ``NAOQI_QICORE_PY2`` and
``NAOQI_QICORE_LIBQICORE_2012``.  Nothing is fetched: without them the 2012 columns are
left out.  The 2012 converter then converts the same files the same way, interleaved with
ours (in one process: the runs alternate; per file: each file by ours, then by 2012), and
the ratios are printed: one process >= 5x faster than 2012, one process per file not
slower on the median file, no file slower than 2012's by more than 0.05 s.

The folders are written under ``--output-dir`` (default: a temporary folder in /dev/shm
when it exists, so that the numbers measure the converters rather than the disk).

    .venv/bin/python bench/bench_convert.py [--mode both|one-process|per-file] [--runs N]
        [--corpus DIR] [--output-dir DIR] [--py2 PYTHON2.7 --libqicore-2012 DIR]
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
from typing import Dict, List, Optional, Tuple

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



#: Python 2 code run in one process by the 2012 converter's interpreter: converts every
#: file named on its command line into its own folder (what its ``xar_converter.py``
#: ``main()`` does per file) and prints the JSON of the run.  libqicore's converter wrote
#: into the current folder until 2013 (``visit(root)`` then ``generate_main()``, as at
#: 36a450e); later ones take the folder (``visit(root, folder)``)
_CONVERT_2012 = r"""
import inspect, json, os, resource, sys, time
sys.path.insert(0, sys.argv[1])
import converter.xar_parser as xar_parser
import converter.new_format_generator as nfgenerator
import converter.name_map_builder as nmbuilder
takes_folder = len(inspect.getargspec(nfgenerator.NewFormatGenerator.visit).args) == 3
out, wall, failures, here = sys.argv[2], 0.0, 0, os.getcwd()
for index, path in enumerate(sys.argv[3:]):
    start = time.time()
    try:
        root = xar_parser.generate_tree_from_filename(os.path.abspath(path))
        if not root:
            raise ValueError("not xar_version 3")
        names = nmbuilder.NameMapBuilder()
        names.visit(root)
        generator = nfgenerator.NewFormatGenerator(names.get_name_map())
        destination = os.path.join(out, str(index))
        os.makedirs(destination)
        if takes_folder:
            generator.visit(root, destination)
            generator.generate_entry_point(root, os.path.dirname(path))
        else:
            os.chdir(destination)
            generator.visit(root)
            generator.generate_main()
    except Exception:
        failures += 1
    finally:
        os.chdir(here)
    wall += time.time() - start
print(json.dumps({"wall": wall, "failures": failures,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0}))
"""


class Converter2012:
    """libqicore's 2012 converter: a Python 2.7 interpreter and its ``python/py`` folder."""

    def __init__(self, python: str, folder: Path) -> None:
        self.python, self.folder = python, folder.resolve()
        if not (self.folder / "xar_converter.py").is_file():
            raise SystemExit("%s: no xar_converter.py there (give libqicore's 2012 python/py "
                             "folder)" % folder)

    def one_process(self, files: List[Path], scratch: Path) -> Dict[str, object]:
        """Convert ``files`` in one fresh process of the 2012 converter."""
        out = Path(tempfile.mkdtemp(prefix="bench-2012-", dir=scratch))
        try:
            done = subprocess.run([self.python, "-c", _CONVERT_2012, str(self.folder), str(out)]
                                  + [str(path) for path in files], check=True,
                                  stdout=subprocess.PIPE, text=True, env=_fresh_shell_env())
        finally:
            shutil.rmtree(out, ignore_errors=True)
        return json.loads(done.stdout)

    def command(self, path: Path, out: Path) -> List[str]:
        return [self.python, str(self.folder / "xar_converter.py"), str(path), str(out)]


def _fresh_shell_env() -> Dict[str, str]:
    """The environment of a shell the user just opened: this one, but for the guard the
    ROS 2 wheels' start-up hook sets when it re-executes an interpreter (this bench was
    started through it; a process started from a fresh shell goes through it once more)."""
    env = dict(os.environ)
    env.pop("_ROS_WHEELS_BOOTSTRAP_COMPLETE", None)
    return env


def _our_command(path: Path, out: Path) -> List[str]:
    """``xar_convert PATH OUT -q`` as installed next to this interpreter, else ``-m``."""
    script = Path(sys.executable).parent / "xar_convert"
    head = [str(script)] if script.is_file() else [sys.executable, "-m",
                                                     "naoqi_qicore.converter.cli"]
    return head + ["-q", str(path), str(out)]


def _activated_env() -> Optional[Dict[str, str]]:
    """The environment of a fresh shell in which the user ran ``. .venv/bin/activate``, as the
    README says to work (None when this interpreter is not a virtual environment's)."""
    activate = Path(sys.prefix) / "bin" / "activate"
    if sys.prefix == sys.base_prefix or not activate.is_file():
        return None
    done = subprocess.run(["bash", "-c", '. "$1" >/dev/null && env -0', "bash", str(activate)],
                          stdout=subprocess.PIPE, check=True, env=_fresh_shell_env())
    return dict(entry.split("=", 1) for entry in done.stdout.decode().split("\0")
                if "=" in entry)


def _timed(command: List[str], env: Optional[Dict[str, str]] = None
           ) -> Tuple[float, float, bool]:
    """Seconds ``command`` took from start to exit, its CPU seconds (user and system, its
    own and its children's), and whether it succeeded; started with ``env`` (default: a
    fresh shell's environment)."""
    env = _fresh_shell_env() if env is None else env
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    # the 2012 converter may print a traceback and still exit 0
    return wall, cpu, done.returncode == 0 and b"Traceback" not in done.stderr


def _bare_start(python: str, env: Optional[Dict[str, str]] = None, count: int = 20
                ) -> Tuple[float, float]:
    """Median seconds of wall and of CPU time of ``python -c pass`` started as from a fresh
    shell (or with ``env``)."""
    times = [_timed([python, "-c", "pass"], env) for _ in range(count)]
    return (statistics.median(wall for wall, _, _ in times),
            statistics.median(cpu for _, cpu, _ in times))


def _faster(theirs: float, ours: float) -> str:
    """``2.31x faster`` or ``1.45x slower``: ours against theirs."""
    return ("%.2fx faster" % (theirs / ours) if ours <= theirs
            else "%.2fx slower" % (ours / theirs))


def _one_command(files: List[Path], jobs: int, options: argparse.Namespace,
                 env: Optional[Dict[str, str]]) -> float:
    """Seconds ``xar_convert -q -j JOBS FILES... OUT`` takes from start to exit, started
    with ``env`` (default: a fresh shell's environment)."""
    out = Path(tempfile.mkdtemp(prefix="bench-command-", dir=_scratch_parent(options)))
    try:
        command = _our_command(files[0], out)
        command[-2:-1] = ["-j", str(jobs)] + [str(path) for path in files]
        return _timed(command, env)[0]
    finally:
        shutil.rmtree(out, ignore_errors=True)


def _run_in_child(options: argparse.Namespace) -> Dict[str, object]:
    command = [sys.executable, __file__, "--child", "--corpus", str(options.corpus)]
    if options.output_dir:
        command += ["--output-dir", str(options.output_dir)]
    done = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True)
    return json.loads(done.stdout)


def _scratch_parent(options: argparse.Namespace) -> Optional[Path]:
    shm = Path("/dev/shm")
    return options.output_dir or (shm if shm.is_dir() else None)


def one_process(files: List[Path], options: argparse.Namespace,
                old: Optional[Converter2012]) -> None:
    """The one-process mode: runs of ours (and of 2012, alternating), then the summary."""
    megabytes = sum(path.stat().st_size for path in files) / 1e6
    runs, runs_2012 = [], []
    cores = os.cpu_count() or 1
    commands: Dict[int, List[float]] = {jobs: [] for jobs in sorted({1, cores})}
    activated = _activated_env()
    for number in range(1, max(1, options.runs) + 1):
        for jobs, walls_of_command in commands.items():
            walls_of_command.append(_one_command(files, jobs, options, activated))
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
        if old is not None:
            scratch = Path(tempfile.mkdtemp(prefix="bench-", dir=_scratch_parent(options)))
            try:
                runs_2012.append(old.one_process(files, scratch))
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
            print("       2012 converter: %.3f s wall (%d files refused), peak RSS %.0f MB"
                  % (runs_2012[-1]["wall"], runs_2012[-1]["failures"],
                     runs_2012[-1]["peak_mb"]))
    walls = sorted(run["wall"] for run in runs)
    first = runs[0]
    print("corpus: %d files, %.1f MB (%d refused with an error), %d files written to %s (%s)"
          % (len(files), megabytes, first["failures"], first["written"], first["folder"],
             first["filesystem"]))
    print("one process, conversion (read + parse + model + render + write), %d runs: best "
          "%.3f s, median %.3f s (target <= 0.6 s)"
          % (len(runs), walls[0], statistics.median(walls)))
    print("throughput (median run): %.0f files/s  %.1f MB/s"
          % (len(files) / statistics.median(walls), megabytes / statistics.median(walls)))
    print("slowest file: %.3f s at worst (%s)" % max((run["slowest"], run["slowest_file"])
                                                      for run in runs))
    largest = max(files, key=lambda path: path.stat().st_size)
    print("largest file: %.3f s at worst (%s, %.1f MB)" % (
        max(run["largest"] for run in runs), largest.name, largest.stat().st_size / 1e6))
    print("peak RSS: %.0f MB at most" % max(run["peak_mb"] for run in runs))
    for jobs, walls_of_command in commands.items():
        print("one command (`xar_convert -q -j %d FILES... OUT`, the whole process, interpreter "
              "start included), %d runs: median %.3f s" % (
                  jobs, len(walls_of_command), statistics.median(walls_of_command)))
    if runs_2012:
        median_2012 = statistics.median(run["wall"] for run in runs_2012)
        print("2012 converter, one process, %d runs: median %.3f s (%d files refused): ours "
              "is %s (target >= 5x faster)" % (
                  len(runs_2012), median_2012, runs_2012[0]["failures"],
                  _faster(median_2012, statistics.median(walls))))
        for jobs, walls_of_command in commands.items():
            print("  one command with -j %d: %s than 2012's one process" % (
                jobs, _faster(median_2012, statistics.median(walls_of_command))))


def per_file(files: List[Path], options: argparse.Namespace,
             old: Optional[Converter2012]) -> None:
    """The one-process-per-file mode: each file by a fresh ``xar_convert``, from a shell where
    the environment is activated and from one where it is not (and by 2012), interleaved."""
    shells: List[Tuple[str, Optional[Dict[str, str]]]] = [("not activated", None)]
    activated = _activated_env()
    if activated is not None:
        shells.insert(0, ("activated (. .venv/bin/activate)", activated))
    scratch = Path(tempfile.mkdtemp(prefix="bench-per-file-", dir=_scratch_parent(options)))
    #: shell (or "2012") -> file -> [(wall, CPU) seconds of each run]
    times: Dict[str, Dict[Path, List[Tuple[float, float]]]] = {
        shell: {path: [] for path in files}
        for shell in [name for name, _ in shells] + (["2012"] if old is not None else [])}
    refused: Dict[str, set] = {shell: set() for shell in times}
    try:
        for run in range(max(1, options.runs)):
            for index, path in enumerate(files):
                prefix = "%d-%d-" % (run, index)
                commands = [(shell, _our_command(path, scratch / (prefix + str(number))), env)
                            for number, (shell, env) in enumerate(shells)]
                if old is not None:
                    commands.append(("2012", old.command(path, scratch / (prefix + "2012")), None))
                for shell, command, env in commands:
                    wall, cpu, ok = _timed(command, env)
                    times[shell][path].append((wall, cpu))
                    if not ok:
                        refused[shell].add(path)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    medians = {shell: {path: (statistics.median(wall for wall, _ in runs),
                              statistics.median(cpu for _, cpu in runs))
                       for path, runs in by_file.items()} for shell, by_file in times.items()}
    old_times = medians.get("2012", {})
    print("one process per file (`%s`), as from a fresh shell, median of %d runs per file; "
          "wall time (the host's load counts) and CPU time:"
          % (" ".join(Path(part).name for part in _our_command(Path("FILE"), Path("OUT"))),
             max(1, options.runs)))
    for shell, env in shells:
        mine = medians[shell]
        print("  shell %s: bare interpreter start (python -c pass) %.1f ms wall, %.1f ms CPU"
              % ((shell,) + tuple(value * 1000 for value in _bare_start(sys.executable, env))))
        for kind, at in (("wall", 0), ("CPU", 1)):
            print("    %s: total %.2f s for %d files (%d refused with an error); median file "
                  "%.1f ms; slowest %.1f ms (%s)" % (
                      kind, sum(t[at] for t in mine.values()), len(files),
                      len(refused[shell]), statistics.median(t[at] for t in mine.values()) * 1000,
                      max(t[at] for t in mine.values()) * 1000,
                      max(files, key=lambda path: mine[path][at]).name))
            if old is None:
                continue
            both = [path for path in files if path not in refused[shell] | refused["2012"]]
            if not both:
                print("      against 2012: no file both convert (is --py2 a Python 2.7 "
                      "that runs?)")
                continue
            worst = max(both, key=lambda path: mine[path][at] - old_times[path][at])
            print("      against 2012 on the %d files both convert: %s in total, %s on the "
                  "median file (target: not slower); worst file "
                  "%+.1f ms against 2012 (%s; target <= +50 ms)" % (
                      len(both), _faster(sum(old_times[path][at] for path in both),
                                         sum(mine[path][at] for path in both)),
                      _faster(statistics.median(old_times[path][at] for path in both),
                              statistics.median(mine[path][at] for path in both)),
                      (mine[worst][at] - old_times[worst][at]) * 1000, worst.name))
    if old is None:
        return
    print("2012 converter (`python2 xar_converter.py FILE OUT`), same files, interleaved:")
    print("  bare interpreter start (python2 -c pass): %.1f ms wall, %.1f ms CPU"
          % tuple(value * 1000 for value in _bare_start(old.python)))
    for kind, at in (("wall", 0), ("CPU", 1)):
        print("  %s: total %.2f s (%d files refused with an error); median file %.1f ms; "
              "slowest %.1f ms (%s)" % (
                  kind, sum(t[at] for t in old_times.values()), len(refused["2012"]),
                  statistics.median(t[at] for t in old_times.values()) * 1000,
                  max(t[at] for t in old_times.values()) * 1000,
                  max(files, key=lambda path: old_times[path][at]).name))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpus" / "files")
    parser.add_argument("--output-dir", type=Path, default=None,
                        help="where the converted folders are written (default: tmpfs)")
    parser.add_argument("--mode", choices=("both", "one-process", "per-file"), default="both")
    parser.add_argument("--runs", type=int, default=None,
                        help="runs (default: 5 in one process, 3 per file)")
    parser.add_argument("--py2", default=os.environ.get("NAOQI_QICORE_PY2"),
                        help="a Python 2.7 interpreter, to time the 2012 converter")
    parser.add_argument("--libqicore-2012", type=Path,
                        default=os.environ.get("NAOQI_QICORE_LIBQICORE_2012"),
                        help="libqicore's 2012 python/py folder (holding xar_converter.py)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    files = sorted(options.corpus.glob("*.xar"))
    if options.child:
        print(json.dumps(convert_corpus(files, options.output_dir)))
        return 0
    if not files:
        print("no corpus at %s" % options.corpus)
        return 0
    old = None
    if options.py2 and options.libqicore_2012:
        old = Converter2012(options.py2, Path(options.libqicore_2012))
    elif options.py2 or options.libqicore_2012:
        parser.error("give both --py2 and --libqicore-2012 to time the 2012 converter")
    load = os.getloadavg()
    print("machine: %d cores, load average %.2f %.2f %.2f" % ((os.cpu_count() or 0,) + load))
    runs = options.runs  # given: for both modes
    if options.mode in ("both", "one-process"):
        options.runs = runs or 5
        one_process(files, options, old)
    if options.mode in ("both", "per-file"):
        options.runs = runs or 3
        per_file(files, options, old)
    print("load average after: %.2f %.2f %.2f" % os.getloadavg())
    return 0


if __name__ == "__main__":
    sys.exit(main())
