"""``xar_convert IN... OUT``: convert behaviors into the file-per-object format.

Exit status: 0 all converted, 1 some failed, 2 usage error, 128 + the signal number when
interrupted by SIGINT or SIGTERM (the folder being written is removed first).  Every error
is printed as one line (``file:line: <element>: message``), never a traceback.
"""
from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from naoqi_qicore.converter.writer import OutputError, OutputExistsError
from naoqi_qicore.xar.errors import XarError

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived: unwinds the conversion (its staging folder is removed)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _interrupt(signum: int, _frame: object) -> None:
    for sig in _STOP_SIGNALS:  # let the clean-up finish: later signals are ignored
        signal.signal(sig, signal.SIG_IGN)
    raise Interrupted(signum)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="xar_convert",
        description="Convert Choregraphe behaviors (.xar, .pml, .crg, .cbl, .pkg or a folder "
                    "holding behavior.xar) into naoqi_qicore's file-per-object format. One "
                    "input is written into OUT; several each into OUT/<input name>/.")
    parser.add_argument("paths", nargs="+", metavar="IN... OUT", help="inputs, then the output")
    parser.add_argument("-f", "--force", action="store_true",
                        help="replace existing output folders")
    parser.add_argument("--json", action="store_true", help="print a JSON report on stdout")
    parser.add_argument("-q", "--quiet", action="store_true", help="print errors only")
    parser.add_argument("--graph", nargs="?", const="", metavar="FILE.svg|FILE.dot",
                        help="draw boxes, links and states: into FILE, or graph.svg inside "
                             "each converted folder when FILE is left out")
    return parser


def _input_name(path: Path) -> str:
    """``dance`` for dance.xar or dance/behavior.xar or the folder dance/."""
    resolved = Path(str(path).rstrip("/\\"))
    if resolved.stem == "behavior" and resolved.parent.name:
        return resolved.parent.name
    return resolved.stem or "behavior"


def _destinations(inputs: List[Path], output: Path) -> List[Path]:
    if len(inputs) == 1:
        return [output]
    used: Dict[str, int] = {}
    destinations = []
    for path in inputs:
        name = _input_name(path)
        count = used.get(name.casefold(), 0)
        used[name.casefold()] = count + 1
        destinations.append(output / (name if count == 0 else "%s_%d" % (name, count)))
    return destinations


def _graph_file(graph: str, index: int, total: int) -> Path:
    path = Path(graph)
    return path if total == 1 else path.with_name("%s_%d%s" % (path.stem, index, path.suffix))


def _convert_one(source: Path, destination: Path, options: argparse.Namespace) -> dict:
    from naoqi_qicore.converter.api import convert

    inner_graph = ".svg" if options.graph == "" else None
    result = convert(source, destination, force=options.force, graph=inner_graph)
    entry = {"input": str(source), "output": str(destination), "ok": True, "error": None,
             "behaviors": [{"output": str(report.output), "objects": report.objects,
                            "files": report.files, "ported": report.ported,
                            "failed": report.failed, "warnings": report.warnings}
                           for report in result.behaviors],
             "warnings": result.warnings}
    if options.graph:
        from naoqi_qicore.converter.graph import GRAPH_FORMATS, render_graph  # networkx
        suffix = Path(options.graph).suffix.lower()
        if suffix not in GRAPH_FORMATS:
            raise OutputError("%s: graph files must end with %s"
                              % (options.graph, " or ".join(GRAPH_FORMATS)))
        for index, behavior in enumerate(result.models):
            target = _graph_file(options.graph, options.graph_count,
                                 len(result.models) * options.inputs)
            options.graph_count += 1
            target.write_text(render_graph(behavior, suffix), encoding="utf-8")
            entry.setdefault("graphs", []).append(str(target))
    return entry


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run ``xar_convert`` with ``argv`` (default: the command line); returns the exit status."""
    parser = _parser()
    try:
        options = parser.parse_args(argv)
    except SystemExit as exit_request:
        return EXIT_OK if exit_request.code == 0 else EXIT_USAGE
    if len(options.paths) < 2:
        parser.print_usage(sys.stderr)
        print("xar_convert: give at least one input and the output folder", file=sys.stderr)
        return EXIT_USAGE
    inputs = [Path(path) for path in options.paths[:-1]]
    output = Path(options.paths[-1])
    options.inputs, options.graph_count = len(inputs), 0
    jobs = list(zip(inputs, _destinations(inputs, output)))
    if len(jobs) > 1 and not (options.quiet or options.json):
        from tqdm import tqdm
        jobs = tqdm(jobs, desc="converting", unit="behavior", file=sys.stderr)
    previous = {}
    if threading.current_thread() is threading.main_thread():
        previous = {sig: signal.signal(sig, _interrupt) for sig in _STOP_SIGNALS}
    try:
        entries = _convert_all(jobs, options)
    except Interrupted as interruption:
        print("xar_convert: interrupted (%s), nothing left of the folder being written"
              % signal.Signals(interruption.signum).name, file=sys.stderr)
        return 128 + interruption.signum
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if options.json:
        json.dump(entries, sys.stdout, indent=2, sort_keys=True)
        sys.stdout.write("\n")
    return EXIT_OK if all(entry["ok"] for entry in entries) else EXIT_FAILED


def _convert_all(jobs, options: argparse.Namespace) -> List[dict]:
    entries = []
    for source, destination in jobs:
        try:
            entry = _convert_one(source, destination, options)
        except (XarError, OutputError, OSError) as error:
            message = str(error) if not isinstance(error, OSError) else "%s: %s" % (
                error.filename or source, error.strerror or error)
            if isinstance(error, OutputExistsError):
                message += " (use --force to replace it)"
            entry = {"input": str(source), "output": str(destination), "ok": False,
                     "error": message}
        except Exception as error:  # a bug must not show the user a traceback either
            entry = {"input": str(source), "output": str(destination), "ok": False,
                     "error": "%s: internal error: %s: %s" % (source, type(error).__name__, error)}
        entries.append(entry)
        if not entry["ok"]:
            print(entry["error"], file=sys.stderr)
        elif not (options.quiet or options.json):
            for warning in entry["warnings"]:
                print("warning: " + warning, file=sys.stderr)
            boxes = sum(b["objects"] for b in entry["behaviors"])
            ported = sum(len(b["ported"]) for b in entry["behaviors"])
            print("%s -> %s (%s, %s ported)" % (source, destination, _count(boxes, "box"),
                                                 _count(ported, "script")))
    return entries


def _count(number: int, noun: str) -> str:
    """``number noun``, the noun in the plural unless there is one."""
    return "%d %s" % (number, noun if number == 1 else noun + ("es" if noun.endswith("x") else "s"))


if __name__ == "__main__":
    sys.exit(main())
