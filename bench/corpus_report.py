#!/usr/bin/env python3
"""The corpus report: every corpus behavior, with its project, run on the simulated robot
it was written for, and what happened.

    .venv/bin/python bench/corpus_report.py [--seconds 10] [--workers 8] [--scenario generic]
                                            [--corpus ../shared/corpus] [--only SUBSTRING]

Per behavior: converted or not (and why), robot kind, boxes started and timeline states
entered, robot calls by service, how the run ended, box errors with their class:

* ``behavior``: the behavior's own bug, which would fail on a robot too;
* ``environment``: what the author's robot or network had and this machine has not (a file
  the author did not ship, a Python package not installed, a network peer);
* ``ours``: anything naoqi_qicore or the simulated robot could have handled.

Then the totals, and the targets: behaviors with no error of ours, behaviors that make
progress (a box beyond the first two started, a second timeline state entered, or a
robot call after the first second of play).  ``test/core/test_core_corpus.py`` asserts the same
counts.  Each behavior runs in its own simulated robot; several run at once.
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import logging
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"

BEHAVIOR, ENVIRONMENT, OURS = "behavior", "environment", "ours"
#: attributes Python 2 objects had (``dict.iteritems``, ``urllib2.Request.add_data``...)
PY2_ATTRIBUTES = frozenset((
    "iteritems", "iterkeys", "itervalues", "viewitems", "viewkeys", "viewvalues", "has_key",
    "setdefaultencoding", "maxint", "letters", "lowercase", "uppercase", "maketrans",
    "add_data", "get_data", "has_data", "get_type", "get_host", "get_selector", "im_func",
    "im_self", "im_class", "func_name", "func_code", "func_defaults", "getcwdu", "next",
    "decode", "message"))
_PY2_TYPE_ERRORS = re.compile(
    r"'(range|map|filter|zip|dict_keys|dict_values|dict_items)' object|"
    r"sort\(\) takes no positional|'cmp' is an invalid keyword|a bytes-like object is "
    r"required, not 'str'|can't concat str to bytes|should be bytes|not supported between "
    r"instances of")
_PY2_BUILTINS = ("unicode", "basestring", "long", "xrange", "raw_input", "unichr", "reduce",
                 "reload", "execfile", "file", "cmp", "buffer", "apply", "intern", "coerce")
_GIVEN_NAMES = re.compile(r"NameError: name '(AL\w+|GeneratedClass|qi|naoqi|almath|time|"
                          r"random|os|sys|session|DCM|%s)' is not defined"
                          % "|".join(_PY2_BUILTINS))
_SIMULATOR_MESSAGES = re.compile(r"'qi\.qi_python\.Object' object has no attribute|"
                                 r"Cannot find service|is neither an LED|does not exist in|"
                                 r"has no method|naoqi_qicore/robot/sim/|"
                                 r"is part of NAOqi's API but is not simulated")
_NETWORK = re.compile(r"URLError|ConnectionRefused|ConnectionError|gaierror|timed out|"
                      r"Network is unreachable|Name or service not known|"
                      r"Temporary failure in name resolution|SSLError|HTTPError")
_OUR_CODE = ("naoqi_qicore/core/", "naoqi_qicore/robot/naoqi_compat/")
_EXCEPTION = re.compile(r"\b(\w*(?:Error|Exception|Exit|Interrupt))\b")


def robot_has_module(name: str) -> bool:
    """Whether a box could ``import name`` on the robot (NAOqi SDK, Python 2.7 stdlib)."""
    from naoqi_qicore.core.dependencies import NAOQI_SDK_MODULES, PY2_STDLIB_MODULES
    top = name.partition(".")[0]
    return (top in NAOQI_SDK_MODULES or top in PY2_STDLIB_MODULES
            or top in sys.stdlib_module_names)


def valid_python2(source: str) -> bool:
    """Whether ``source`` parses with Python 2's grammar (print and exec statements...)."""
    from fissix import pygram, pytree
    from fissix.pgen2 import driver, parse, tokenize
    parser = driver.Driver(pygram.python_grammar, convert=pytree.convert)
    try:
        parser.parse_string(source if source.endswith("\n") else source + "\n")
    except (parse.ParseError, tokenize.TokenError, IndentationError, SyntaxError):
        return False
    return True


def classify(detail: str, where: str = "", invalid_script: bool = False) -> Tuple[str, str]:
    """``(class, reason)`` of one box error: its text and traceback, where it happened,
    and whether the box's script is not valid Python 2 either."""
    lines = [line for line in detail.splitlines() if line.strip()]
    frames = [line for line in lines if line.strip().startswith("File ")]
    last = lines[-1] if lines else detail
    if where == "stop":
        return OURS, "box code still ran after the stop"
    if _SIMULATOR_MESSAGES.search(detail):
        return OURS, "the simulated robot lacks or refuses it"
    missing = re.search(r"ModuleNotFoundError: No module named '([\w.]+)'", detail)
    if missing:
        if robot_has_module(missing.group(1)):
            return OURS, "a module the robot had: %s" % missing.group(1)
        return ENVIRONMENT, "Python package not installed: %s" % missing.group(1)
    if _GIVEN_NAMES.search(last):
        return OURS, "a name NAOqi or Python 2 gave box scripts"
    attribute = re.search(r"AttributeError: .* has no attribute '(\w+)'", last)
    if (attribute and attribute.group(1) in PY2_ATTRIBUTES) or (
            "TypeError" in last and _PY2_TYPE_ERRORS.search(last)):
        return OURS, "Python 2 semantics"
    if "TabError" in last:
        return OURS, "tabs Python 2 accepted"
    if "SyntaxError" in last or "IndentationError" in last:
        if invalid_script:
            return BEHAVIOR, "not valid Python 2 either"
        return OURS, "a script we failed to port"
    if "FileNotFoundError" in last or "No such file" in last:
        return ENVIRONMENT, "a file the author did not ship"
    if _NETWORK.search(detail):
        return ENVIRONMENT, "a network peer of the author's"
    if frames and any(part in frames[-1] for part in _OUR_CODE) \
            and "naoqi_qicore/core/box.py" not in frames[-1]:
        return OURS, "raised inside naoqi_qicore"
    kinds = _EXCEPTION.findall(last)
    return BEHAVIOR, kinds[-1] if kinds else last[:40]


@dataclass
class Outcome:
    """What one behavior did."""

    name: str
    converted: bool = False
    error: str = ""
    robot: str = ""
    robot_reason: str = ""
    status: str = ""
    boxes_started: int = 0
    states_entered: int = 0
    calls: Dict[str, int] = field(default_factory=dict)
    calls_after_startup: int = 0
    #: (class, reason, box error text) of each box error
    errors: List[Tuple[str, str, str]] = field(default_factory=list)

    @property
    def ours(self) -> List[Tuple[str, str, str]]:
        return [error for error in self.errors if error[0] == OURS] + (
            [(OURS, "engine exception", self.error)] if self.converted and self.error else [])

    @property
    def progress(self) -> bool:
        return (self.boxes_started > 2 or self.states_entered > 1
                or self.calls_after_startup > 0)


def corpus_behaviors(corpus: Path) -> List[Tuple[str, Path]]:
    """``(id, behavior file)``: in its project where the corpus has one, else alone."""
    projects = corpus / "projects" / "projects.tsv"
    found: Dict[str, Path] = {path.stem: path for path in sorted((corpus / "files").glob("*.xar"))}
    if projects.is_file():
        for line in projects.read_text(encoding="utf-8").splitlines()[1:]:
            row = line.split("\t")
            if len(row) > 5 and (corpus / "projects" / row[0] / row[5]).is_file():
                found[row[0]] = corpus / "projects" / row[0] / row[5]
    return sorted(found.items())


def _invalid_scripts(behavior: Any) -> frozenset:
    from naoqi_qicore.converter.pyport import port_script
    from naoqi_qicore.converter.writer import has_python
    paths = []
    stack = [(behavior.root.name, behavior.root)]
    while stack:
        path, box = stack.pop()
        if has_python(box.script) and port_script(box.script.content).error is not None \
                and not valid_python2(box.script.content):
            paths.append(path)
        stack.extend((path + "/" + child.name, child) for child in box.children())
    return frozenset(paths)


def run_one(name: str, path: Path, seconds: float, scenario: Optional[str]) -> Outcome:
    """Convert ``path`` with its project, load it and play it for ``seconds`` on a
    simulated robot of its kind."""
    import qi
    from naoqi_qicore.converter.api import convert_in_project
    from naoqi_qicore.converter.loader import load_converted
    from naoqi_qicore.converter.robot_kind import robot_kind
    from naoqi_qicore.core import BehaviorPlayer
    from naoqi_qicore.robot.naoqi_compat import box_environment
    from naoqi_qicore.robot.sim import SimulatedRobot
    from naoqi_qicore.xar.errors import XarError

    outcome = Outcome(name)
    started_boxes, states, raw_errors = set(), [], []

    def listen(event: Any) -> None:
        if event.kind == "box_started":
            started_boxes.add(event.box_path)
        elif event.kind == "state_entered":
            states.append(event.box_path)
        elif event.kind == "error":
            raw_errors.append(event.data["error"])

    with tempfile.TemporaryDirectory() as scratch:
        try:
            result = convert_in_project(path, Path(scratch) / "converted")
            loaded = load_converted(result.behaviors[0].output)
        except XarError as error:
            outcome.error = str(error)
            return outcome
        outcome.converted = True
        kind = robot_kind([loaded.behavior], loaded.folder)
        outcome.robot, outcome.robot_reason = kind.kind, kind.reason
        invalid = _invalid_scripts(loaded.behavior)
        record = Path(scratch) / "calls.jsonl"
        robot = SimulatedRobot(robot=kind.kind, listen="tcp://127.0.0.1:0",
                               record=record).start()
        if scenario:
            from naoqi_qicore.robot.sim.scenario import load_scenario
            robot.play_scenario(load_scenario(scenario, kind.kind))
        session = qi.Session()
        session.connect(robot.url)
        player = BehaviorPlayer(loaded, session, listener=listen, environment=box_environment)
        play_started = time.time()
        try:
            player.load()
            play_started = time.time()
            player.play()
            player.wait(seconds)
            outcome.status = player.status
            player.stop()
        except Exception as error:  # the engine's own failure
            outcome.error = "%s: %s" % (type(error).__name__, error)
        finally:
            player.unload()
            # what boxes report once the robot is gone is this bench's doing, not theirs
            errors = list(raw_errors)
            robot.stop()
            # not session.close(): a box stuck past its stop may still call through it
            _OPEN_SESSIONS.append(session)
        for line in record.read_text(encoding="utf-8").splitlines():
            call = json.loads(line)
            outcome.calls[call["service"]] = outcome.calls.get(call["service"], 0) + 1
            if call["time"] > play_started + 1.0:
                outcome.calls_after_startup += 1
    outcome.boxes_started, outcome.states_entered = len(started_boxes), len(states)
    for error in errors:
        detail = error.text() + ("\n" + error.traceback if error.traceback else "")
        kind_, reason = classify(detail, error.where, error.box_path in invalid)
        outcome.errors.append((kind_, reason, error.text()))
    return outcome


_OPEN_SESSIONS: List[Any] = []


@dataclass
class Report:
    """The outcomes and their totals."""

    outcomes: List[Outcome]

    @property
    def converted(self) -> List[Outcome]:
        return [outcome for outcome in self.outcomes if outcome.converted]

    def totals(self) -> Dict[str, Any]:
        converted = self.converted
        classes = collections.Counter()
        for outcome in converted:
            classes.update("%s: %s" % (kind, reason) for kind, reason, _ in outcome.errors)
        return {
            "behaviors": len(self.outcomes),
            "converted": len(converted),
            "no error of ours": sum(not outcome.ours for outcome in converted),
            "progress": sum(outcome.progress for outcome in converted),
            "finished": sum(outcome.status == "FINISHED" for outcome in converted),
            "robots": dict(collections.Counter(outcome.robot for outcome in converted)),
            "error classes": dict(classes.most_common()),
        }


def run_corpus(corpus: Path, seconds: float, workers: int, scenario: Optional[str],
               only: str = "") -> Report:
    """Every corpus behavior (whose id holds ``only``), ``workers`` at a time."""
    logging.getLogger("naoqi_qicore").setLevel(logging.CRITICAL)
    import qi
    qi.logging.setLevel(qi.logging.ERROR)
    behaviors = [(name, path) for name, path in corpus_behaviors(corpus) if only in name]
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        outcomes = list(pool.map(lambda item: run_one(item[0], item[1], seconds, scenario),
                                 behaviors))
    return Report(outcomes)


def print_report(report: Report, seconds: float, out: Any = None) -> None:
    """The per-behavior lines, then the totals (on ``out``, default standard output)."""
    out = out if out is not None else sys.stdout
    for outcome in report.outcomes:
        if not outcome.converted:
            print("%-40s not converted: %s" % (outcome.name, outcome.error[:100]), file=out)
            continue
        calls = ", ".join("%s %d" % item for item in sorted(outcome.calls.items(),
                                                           key=lambda item: -item[1])[:4])
        print("%-40s %-6s %-8s boxes %3d states %2d calls %4d (%s)%s" % (
            outcome.name, outcome.robot, outcome.status or "-", outcome.boxes_started,
            outcome.states_entered, sum(outcome.calls.values()), calls,
            "" if outcome.progress else " no progress"), file=out)
        for kind, reason, text in outcome.errors:
            print("    %s (%s): %s" % (kind, reason, text.splitlines()[0][:110]), file=out)
        if outcome.error:
            print("    ours (engine exception): %s" % outcome.error[:110], file=out)
    totals = report.totals()
    count = max(totals["converted"], 1)
    print("\n%d behaviors, %d converted, run %.0f s each" % (
        totals["behaviors"], totals["converted"], seconds), file=out)
    print("no error of ours: %d (%.1f%%, target 95%%)" % (
        totals["no error of ours"], 100.0 * totals["no error of ours"] / count), file=out)
    print("progress:         %d (%.1f%%, target 80%%)" % (
        totals["progress"], 100.0 * totals["progress"] / count), file=out)
    print("finished:         %d" % totals["finished"], file=out)
    print("robots:           %s" % ", ".join("%s %d" % item for item in
                                             sorted(totals["robots"].items())), file=out)
    print("box errors by class:", file=out)
    for name, number in totals["error classes"].items():
        print("  %4d %s" % (number, name), file=out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--workers", type=int, default=6)
    parser.add_argument("--scenario", default=None,
                        help="scenario for every simulated robot (e.g. generic)")
    parser.add_argument("--only", default="", help="only behaviors whose id holds this")
    options = parser.parse_args()
    if not (options.corpus / "files").is_dir():
        print("no corpus at %s" % options.corpus, file=sys.stderr)
        return 2
    sys.path.insert(0, str(REPO))
    report = run_corpus(options.corpus, options.seconds, options.workers, options.scenario,
                        options.only)
    print_report(report, options.seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
