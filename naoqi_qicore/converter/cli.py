"""``xar_convert IN... OUT``: convert behaviors into the file-per-object format.

Several inputs are converted by ``-j`` worker processes (default: the usable cores), each
converting whole inputs; reports are printed in input order and the folders written do not
depend on the number of jobs.  ``xar_convert --to-xar ...`` runs
:mod:`naoqi_qicore.converter.to_xar` instead.

Exit status: 0 all converted, 1 some failed, 2 usage error, 128 + the signal number when
interrupted by SIGINT or SIGTERM (the folders being written are removed first, workers
stopped).  Every error is printed as one line (``file:line: <element>: message``), never a
traceback.
"""
from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from naoqi_qicore.converter.interrupts import (STOP_SIGNALS, Interrupted, raise_interrupted,
                                               stop_signals_raise)
from naoqi_qicore.converter.writer import (OutputError, OutputExistsError, output_folder_name,
                                           remove_leftovers)
from naoqi_qicore.xar.errors import XarError

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
#: how long a stopped worker gets to remove its staging folder before it is killed
_STOP_GRACE_SECONDS = 10.0

#: one input and the folder it is converted into
Job = Tuple[Path, Path]
#: an input's report (as printed by ``--json``) and the ``--graph FILE`` files to write
Outcome = Tuple[Dict[str, Any], List[Tuple[str, bytes]]]


def usable_cores() -> int:
    """The number of cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _job_count(text: str) -> int:
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number of jobs" % text) from None
    if count < 1:
        raise argparse.ArgumentTypeError("needs at least 1 job, not %d" % count)
    return count


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's help, as wide as the terminal as ``shutil.get_terminal_size`` tells it
    (``COLUMNS``, else the standard output's terminal, else 80 columns) without importing
    shutil and the compression modules it brings: argparse makes a formatter for every
    argument added, so each conversion would."""

    def __init__(self, prog: str) -> None:
        try:
            columns = int(os.environ.get("COLUMNS", ""))
        except ValueError:
            columns = 0
        if columns <= 0:
            try:
                columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
            except (AttributeError, ValueError, OSError):
                columns = 0
        super().__init__(prog, width=(columns or 80) - 2)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="xar_convert", formatter_class=_HelpFormatter,
        description="Convert Choregraphe behaviors (.xar, .pml, .crg, .cbl, .pkg or a folder "
                    "holding behavior.xar) into naoqi_qicore's file-per-object format. One "
                    "input is written into OUT; several each into OUT/<input name>/. "
                    "'xar_convert --to-xar ...' converts back (see 'xar_convert --to-xar -h').")
    parser.add_argument("paths", nargs="+", metavar="IN... OUT", help="inputs, then the output")
    parser.add_argument("-f", "--force", action="store_true",
                        help="replace existing output folders that xar_convert wrote and "
                             "that hold nothing else (any other folder is never replaced)")
    parser.add_argument("-j", "--jobs", type=_job_count, default=usable_cores(), metavar="N",
                        help="convert up to N inputs at once, each in a worker process "
                             "(default: the usable cores, %(default)s here)")
    parser.add_argument("--json", action="store_true", help="print a JSON report on stdout")
    parser.add_argument("-q", "--quiet", action="store_true", help="print errors only")
    parser.add_argument("--graph", nargs="?", const="", metavar="FILE.svg|FILE.png|FILE.dot",
                        help="draw the behavior's diagrams as Choregraphe shows them (boxes, "
                             "ports, links, timeline states; needs Graphviz's dot), one page "
                             "per diagram: the root diagram into FILE and each box's own "
                             "diagram or timeline into FILE_<box object name> beside it "
                             "(FILE_<n>... for the n-th input when there are several); "
                             "without FILE, graph.svg and graph_<box object name>.svg inside "
                             "each converted folder")
    return parser


def _destinations(inputs: List[Path], output: Path) -> List[Path]:
    """Where each input goes: ``output`` itself for one input, else ``output/<its name>``
    (OutputError for an input whose path names no folder of its own, as ``proj/sub/..``)."""
    if len(inputs) == 1:
        return [output]
    used: Dict[str, int] = {}
    destinations = []
    for path in inputs:
        name = output_folder_name(path)
        count = used.get(name.casefold(), 0)
        used[name.casefold()] = count + 1
        destinations.append(output / (name if count == 0 else "%s_%d" % (name, count)))
    return destinations


def _convert_one(source: Path, destination: Path, options: argparse.Namespace) -> Outcome:
    """Convert ``source`` into ``destination``: its report and, with ``--graph FILE``, the
    graph of each of its behaviors (written by :class:`_Reports`, in input order)."""
    from naoqi_qicore.converter.api import convert

    inner_graph = ".svg" if options.graph == "" else None
    result = convert(source, destination, force=options.force, graph=inner_graph)
    entry = {"input": str(source), "output": str(destination), "ok": True, "error": None,
             "behaviors": [{"output": str(report.output), "objects": report.objects,
                            "files": report.files, "ported": report.ported,
                            "failed": report.failed, "warnings": report.warnings}
                           for report in result.behaviors],
             "warnings": result.warnings}
    graphs: List[Tuple[str, bytes]] = []
    if options.graph:
        from naoqi_qicore.converter.graph import graph_files  # only with --graph
        graph = Path(options.graph)
        stem = options.graph_stems[str(destination)]
        for index, behavior in enumerate(result.models):
            name = stem if len(result.models) == 1 else "%s_%d" % (stem, index)
            graphs.extend((str(graph.with_name(file_name)), content) for file_name, content
                          in graph_files(behavior, name, graph.suffix.lower()).items())
    return entry, graphs


def _failed(source: Path, destination: Path, message: str) -> Dict[str, Any]:
    return {"input": str(source), "output": str(destination), "ok": False, "error": message}


def _error_message(error: Exception, source: Path) -> str:
    if isinstance(error, OSError):
        return "%s: %s" % (error.filename or source, error.strerror or error)
    if isinstance(error, OutputExistsError):
        return "%s (use --force to replace it)" % error
    return str(error)


def _conversion(source: Path, destination: Path, options: argparse.Namespace) -> Outcome:
    """:func:`_convert_one`, its errors turned into a failed report."""
    try:
        return _convert_one(source, destination, options)
    except (XarError, OutputError, OSError) as error:
        return _failed(source, destination, _error_message(error, source)), []
    except Exception as error:  # a bug must not show the user a traceback either
        return _failed(source, destination, "%s: internal error: %s: %s"
                       % (source, type(error).__name__, error)), []


class _Reports:
    """Each input's report, printed in input order as soon as the reports of the inputs
    before it are in (the ``--graph FILE`` files are written in that order too, so their
    numbers do not depend on which worker finished first), and the progress bar."""

    def __init__(self, jobs: List[Job], options: argparse.Namespace) -> None:
        self.jobs = jobs
        self.options = options
        #: the reports of the inputs done so far, in input order
        self.entries: List[Dict[str, Any]] = []
        self._arrived: Dict[int, Outcome] = {}
        self._bar: Any = None

    @property
    def verbose(self) -> bool:
        """Whether more than errors is printed."""
        return not (self.options.quiet or self.options.json)

    def show_progress(self) -> None:
        """Show a progress bar on stderr when there are several inputs and stderr is a
        terminal (in a log, a bar drawn again and again is noise)."""
        if len(self.jobs) > 1 and self.verbose and sys.stderr.isatty():
            from tqdm import tqdm
            self._bar = tqdm(total=len(self.jobs), desc="converting", unit="input",
                             file=sys.stderr)

    def add(self, index: int, outcome: Outcome) -> None:
        """The outcome of converting input ``index``."""
        self._arrived[index] = outcome
        if self._bar is not None:
            self._bar.update(1)
        while len(self.entries) in self._arrived:
            entry, graphs = self._arrived.pop(len(self.entries))
            if graphs:
                entry = self._write_graphs(entry, graphs)
            self.entries.append(entry)
            self._print(entry)

    @staticmethod
    def _write_graphs(entry: Dict[str, Any], graphs: List[Tuple[str, bytes]]) -> Dict[str, Any]:
        for target, content in graphs:
            try:
                Path(target).write_bytes(content)
            except OSError as error:
                source = Path(entry["input"])
                return _failed(source, Path(entry["output"]), _error_message(error, source))
            entry.setdefault("graphs", []).append(target)
        return entry

    def _print(self, entry: Dict[str, Any]) -> None:
        if not entry["ok"]:
            self._write(entry["error"], sys.stderr)
        elif self.verbose:
            for warning in entry["warnings"]:
                self._write("warning: " + warning, sys.stderr)
            boxes = sum(behavior["objects"] for behavior in entry["behaviors"])
            ported = sum(len(behavior["ported"]) for behavior in entry["behaviors"])
            self._write("%s -> %s (%s, %s ported)" % (entry["input"], entry["output"],
                                                       _count(boxes, "box"),
                                                       _count(ported, "script")), sys.stdout)

    def _write(self, line: str, stream: Any) -> None:
        if self._bar is not None:  # above the bar, which is drawn again below
            self._bar.write(line, file=stream)
        else:
            print(line, file=stream)

    def close(self) -> None:
        """Remove the progress bar from the screen's last line (it stays above)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def summary(self, seconds: float, workers: int) -> str:
        """``converted 118 of 120 inputs (2 failed) in 3.2 s with 2 jobs``."""
        failed = sum(not entry["ok"] for entry in self.entries)
        return "converted %d of %s%s in %.1f s with %s" % (
            len(self.entries) - failed, _count(len(self.entries), "input"),
            " (%d failed)" % failed if failed else "", seconds, _count(workers, "job"))


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run ``xar_convert`` with ``argv`` (default: the command line); returns the exit status."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["--to-xar"]:
        from naoqi_qicore.converter.to_xar import main as to_xar_main
        return to_xar_main(arguments[1:])
    parser = _parser()
    try:
        options = parser.parse_args(arguments)
    except SystemExit as exit_request:
        return EXIT_OK if exit_request.code == 0 else EXIT_USAGE
    if len(options.paths) < 2:
        parser.print_usage(sys.stderr)
        print("xar_convert: give at least one input and the output folder", file=sys.stderr)
        return EXIT_USAGE
    if options.graph:
        from naoqi_qicore.converter.graph import GRAPH_FORMATS  # only with --graph
        if Path(options.graph).suffix.lower() not in GRAPH_FORMATS:
            print("xar_convert: %s: graph files must end with %s"
                  % (options.graph, " or ".join(GRAPH_FORMATS)), file=sys.stderr)
            return EXIT_USAGE
    inputs = [Path(path) for path in options.paths[:-1]]
    try:
        jobs = list(zip(inputs, _destinations(inputs, Path(options.paths[-1]))))
    except OutputError as error:
        print("xar_convert: %s" % error, file=sys.stderr)
        return EXIT_USAGE
    options.graph_stems = {}  # --graph FILE: the stem of each input's files
    if options.graph:
        stem = Path(options.graph).stem
        options.graph_stems = {str(destination): stem if len(jobs) == 1
                               else "%s_%d" % (stem, index)
                               for index, (_, destination) in enumerate(jobs)}
    workers = min(options.jobs, len(jobs))
    reports = _Reports(jobs, options)
    started = time.monotonic()
    try:
        with stop_signals_raise():
            if workers > 1:
                _convert_in_workers(jobs, options, workers, reports)
            else:
                _convert_here(jobs, options, reports)
    except Interrupted as interruption:
        reports.close()
        print("xar_convert: interrupted (%s), nothing left of the folder being written"
              % signal.Signals(interruption.signum).name, file=sys.stderr)
        return 128 + interruption.signum
    finally:
        reports.close()
    if options.json:
        import json  # only for --json

        json.dump(reports.entries, sys.stdout, indent=2, sort_keys=True)
        sys.stdout.write("\n")
    elif len(jobs) > 1 and not options.quiet:
        print(reports.summary(time.monotonic() - started, workers), file=sys.stderr)
    return EXIT_OK if all(entry["ok"] for entry in reports.entries) else EXIT_FAILED


def _convert_here(jobs: List[Job], options: argparse.Namespace, reports: _Reports) -> None:
    """Convert ``jobs`` one after the other in this process."""
    reports.show_progress()
    for index, (source, destination) in enumerate(jobs):
        try:
            outcome = _conversion(source, destination, options)
        except Interrupted:  # a signal landing as the staging folder was made leaves it
            remove_leftovers(destination)
            raise
        reports.add(index, outcome)


def _work(connection: Any, jobs: List[Job], options: argparse.Namespace,
          inherited: List[Any]) -> None:
    """A worker process: converts the input of each index it receives and sends back
    ``(index, outcome)``; returns at ``None``, when the parent is gone, or on SIGINT or
    SIGTERM (after removing the staging folder of the input it was converting)."""
    for sig in STOP_SIGNALS:
        signal.signal(sig, raise_interrupted)
    for other in inherited:  # the parent's ends: without them, the parent's exit ends recv()
        other.close()
    try:
        while True:
            index = connection.recv()
            if index is None:
                return
            source, destination = jobs[index]
            connection.send((index, _conversion(source, destination, options)))
    except (Interrupted, EOFError, OSError):
        return


class _Worker:
    """A worker process and the pipe to it; ``index`` is the input it is converting."""

    def __init__(self, context: Any, jobs: List[Job], options: argparse.Namespace,
                 others: List["_Worker"]) -> None:
        """``others``: the workers already running, whose pipe ends a forked process
        inherits (and closes)."""
        self.connection, child_end = context.Pipe()
        inherited = []
        if context.get_start_method() == "fork":
            inherited = [self.connection] + [other.connection for other in others]
        self.process = context.Process(target=_work, daemon=True, name="xar_convert worker",
                                       args=(child_end, jobs, options, inherited))
        self.index: Optional[int] = None
        self._child_end = child_end

    def start(self) -> None:
        """Start the process (the parent keeps only its own end of the pipe)."""
        self.process.start()
        self._child_end.close()

    def give(self, index: Optional[int]) -> None:
        """Have it convert input ``index``; ``None``: no more inputs, it stops."""
        self.index = index
        try:
            self.connection.send(index)
        except OSError:  # it died meanwhile: its sentinel tells the parent
            pass

    def stop(self) -> None:
        """SIGTERM (the worker removes its staging folder), then SIGKILL if it lingers."""
        if self.process.pid is None:
            return
        if self.process.is_alive():
            self.process.terminate()
        self.process.join(_STOP_GRACE_SECONDS)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()

    def death(self) -> str:
        """How the process ended, once it has."""
        self.process.join()
        code = self.process.exitcode
        if code is not None and code < 0:
            return "was killed by %s" % signal.Signals(-code).name
        return "exited with status %s" % code


def _convert_in_workers(jobs: List[Job], options: argparse.Namespace, count: int,
                        reports: _Reports) -> None:
    """Convert ``jobs`` in ``count`` worker processes, giving each worker the next input
    when it is done.  A worker that dies takes only its input with it: that input is
    reported failed, whatever it left beside its destination is removed, and a new worker
    takes its place.  On SIGINT or SIGTERM (:class:`Interrupted`), the workers are stopped
    and what they were writing is removed."""
    import importlib
    import multiprocessing
    from multiprocessing.connection import wait

    importlib.import_module("naoqi_qicore.converter.api")  # once here, not in each worker
    context = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else None)
    waiting = iter(range(len(jobs)))
    workers: List[_Worker] = []

    def new_worker() -> _Worker:
        worker = _Worker(context, jobs, options, workers)
        workers.append(worker)
        worker.start()
        return worker

    try:
        for _ in range(count):
            new_worker()
        reports.show_progress()
        for worker in workers:
            worker.give(next(waiting, None))
        while True:
            busy = {worker.connection: worker for worker in workers if worker.index is not None}
            if not busy:
                break
            ended = {worker.process.sentinel: worker for worker in busy.values()}
            for ready in wait(list(busy) + list(ended)):
                worker = busy.get(ready) or ended[ready]
                if worker.index is None:  # its pipe and its sentinel both were ready
                    continue
                index = worker.index
                following = next(waiting, None)
                try:
                    if not worker.connection.poll():
                        raise EOFError
                    _, outcome = worker.connection.recv()
                except (EOFError, OSError):  # the worker died converting this input
                    source, destination = jobs[index]
                    outcome = (_failed(source, destination, "%s: internal error: the process "
                                       "converting it %s" % (source, worker.death())), [])
                    worker.index = None
                    workers.remove(worker)
                    worker.connection.close()
                    remove_leftovers(destination)
                    if following is not None:
                        new_worker().give(following)
                else:
                    worker.give(following)
                reports.add(index, outcome)
        for worker in workers:
            worker.process.join()
    finally:
        for worker in workers:
            worker.stop()
            worker.connection.close()
            if worker.index is not None:  # stopped: a signal landing as its staging
                remove_leftovers(jobs[worker.index][1])  # folder was made leaves it


def _count(number: int, noun: str) -> str:
    """``number noun``, the noun in the plural unless there is one."""
    return "%d %s" % (number, noun if number == 1 else noun + ("es" if noun.endswith("x") else "s"))


def console_main() -> None:
    """The ``xar_convert`` command: :func:`main`, then the process ends at once.

    Everything the conversion wrote is closed and the workers are gone by then; what
    is left is freeing the behaviors read, module by module, which a process about to
    end need not do (on a large behavior, longer than converting it).
    """
    status = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


if __name__ == "__main__":
    console_main()
