#!/usr/bin/env python3
"""The corpus report: every corpus behavior, with its project, run on the simulated robot
it was written for, and what happened.

    .venv/bin/python bench/corpus_report.py [--seconds 10] [--workers 8] [--scenario generic]
                                            [--corpus ../shared/corpus] [--only SUBSTRING]
                                            [--every N]

Per behavior: converted or not (and why), robot kind, boxes started and timeline states
entered, the behavior's robot calls by service (not what the robot did of its own accord),
how the run ended (and when), box errors with their class and the rule that classed them
(first that holds, in this order):

* ``ours``: anything naoqi_qicore or the simulated robot could have handled: ``stop`` (box
  code still ran after the stop), ``simulator`` (the simulated robot lacks or refuses
  it), ``robot-module`` (a module the robot had), ``given-name`` (a name NAOqi or Python 2
  gave box scripts), ``python2`` (Python 2 semantics), ``tabs``, ``port`` (a script valid
  in Python 2 we failed to port), ``robot-path`` (a missing file under a robot path the
  simulated robot does not map, /opt/aldebaran/..., /home/nao/... outside the
  applications' folder), ``shipped-file`` (a missing file the project ships, in the
  robot's applications' folder, where the project is installed, or elsewhere),
  ``our-code`` (raised inside naoqi_qicore), ``engine`` (the engine's own exception);
* ``environment``: what the author's robot or network had and this machine has not:
  ``package`` (a Python package not installed), ``unshipped-file`` (a file the author did
  not ship, a service program included), ``network`` (a network peer);
* ``behavior``: the behavior's own bug, which would fail on a robot too: ``letter-case``
  (a file named with another letter case than the project's: the robot's file system
  tells case apart too), ``not-python2`` (not valid Python 2 either), ``behavior`` (any
  other exception, by its type).

A run that did not reach its end (FINISHED) within ``--seconds`` says why, by the rules of
:func:`why_not_ended`: an error, waits for a stimulus the scenario does not give
(speech, a touch, an ALMemory event, a polled value), loops forever by design, still
working, or waits in its own code; ``engine`` when the engine itself failed.

A project whose ``manifest.xml`` declares services (``<service name=.. execStart=..>``) is a
service app: the report says how many of its services the simulated robot ran (started at
least once), and how many of those that did not run are started on request only
(``autorun="false"``) and were never asked to start: the behavior does not start them (another
behavior of the application, or its user, does); then it counts the service apps whose
services ran.

Then the totals, and the targets: behaviors with no error of ours (98%), behaviors that
make progress (90%: it ended, a box beyond the first two started, a second timeline state
entered, or a robot call after the first second of play), and those that reached their
end.  ``test/core/test_core_corpus.py`` asserts the same counts on a sample.  Each behavior
runs in its own simulated robot; several run at once.
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures
import functools
import logging
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Collection, Dict, List, NamedTuple, Optional, Tuple

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"

BEHAVIOR, ENVIRONMENT, OURS = "behavior", "environment", "ours"
#: behaviors run at once (each mostly waits: one process's CPU serves many)
WORKERS = 6
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
#: where a failure of a service of the behavior's application is (BoxError.where)
APP_SERVICE = "app service"
#: how the simulated robot says a service's program is not in its application
_MISSING_PROGRAM = re.compile(r"which the application does not have \(no file (\S+)\)")
_EXCEPTION = re.compile(r"\b(\w*(?:Error|Exception|Exit|Interrupt))\b")


def robot_has_module(name: str) -> bool:
    """Whether a box could ``import name`` on the robot (NAOqi SDK, Python 2.7 stdlib)."""
    from naoqi_qicore.core.dependencies import ENGINE_MODULES, NAOQI_SDK_MODULES
    from naoqi_qicore.core.distributions import GONE_PY2_MODULES
    top = name.partition(".")[0]
    return (top in NAOQI_SDK_MODULES or top in GONE_PY2_MODULES or top in ENGINE_MODULES
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


class Classified(NamedTuple):
    """The class of a box error, the rule that put it there and why."""

    kind: str
    rule: str
    reason: str


#: where NAOqi keeps its own files (a missing file there is a path the simulated robot does
#: not map)
ROBOT_PATHS = ("/home/nao/", "/opt/aldebaran/", "/data/", "/var/persistent/", "/media/",
               "/usr/share/naoqi/", "/usr/lib/python2.7/")
#: the robot's applications' folders, wherever a script looks for them: the simulated robot
#: installs the project there (a missing file is one the project does or does not ship)
ROBOT_APP_FOLDERS = ("/.lastUploadedChoregrapheBehavior", "/PackageManager/apps/",
                     "/usr/local/var/www/apps/")
_MISSING_FILE = re.compile(r"No such file or directory: '([^']+)'")


def classify(detail: str, where: str = "", invalid_script: bool = False,
             shipped: Collection[str] = ()) -> Classified:
    """The class of one box error (see the rules in the module doc): its text and
    traceback, where it happened, whether the box's script is not valid Python 2 either,
    and the names of the files its project ships."""
    lines = [line for line in detail.splitlines() if line.strip()]
    frames = [line for line in lines if line.strip().startswith("File ")]
    last = lines[-1] if lines else detail
    from naoqi_qicore.core.letter_case import LETTER_CASE_DIFFERS
    if where == "stop":
        return Classified(OURS, "stop", "box code still ran after the stop")
    program = _MISSING_PROGRAM.search(detail) if where == APP_SERVICE else None
    if program is not None:
        if program.group(1).rpartition("/")[2] in shipped:
            return Classified(OURS, "shipped-file",
                              "a file the project ships, not where box code looks")
        return Classified(ENVIRONMENT, "unshipped-file", "a file the author did not ship")
    if _SIMULATOR_MESSAGES.search(detail):
        return Classified(OURS, "simulator", "the simulated robot lacks or refuses it")
    if "FileNotFoundError" in last and last.endswith(LETTER_CASE_DIFFERS):
        return Classified(BEHAVIOR, "letter-case",
                          "a file named with another letter case than the project's")
    missing = re.search(r"ModuleNotFoundError: No module named '([\w.]+)'", detail)
    if missing:
        if robot_has_module(missing.group(1)):
            return Classified(OURS, "robot-module",
                              "a module the robot had: %s" % missing.group(1))
        return Classified(ENVIRONMENT, "package",
                          "Python package not installed: %s" % missing.group(1))
    if _GIVEN_NAMES.search(last):
        return Classified(OURS, "given-name", "a name NAOqi or Python 2 gave box scripts")
    attribute = re.search(r"AttributeError: .* has no attribute '(\w+)'", last)
    if (attribute and attribute.group(1) in PY2_ATTRIBUTES) or (
            "TypeError" in last and _PY2_TYPE_ERRORS.search(last)):
        return Classified(OURS, "python2", "Python 2 semantics")
    if "TabError" in last:
        return Classified(OURS, "tabs", "tabs Python 2 accepted")
    if "SyntaxError" in last or "IndentationError" in last:
        if invalid_script:
            return Classified(BEHAVIOR, "not-python2", "not valid Python 2 either")
        return Classified(OURS, "port", "a script we failed to port")
    if "FileNotFoundError" in last or "No such file" in last:
        path = _MISSING_FILE.search(last)
        name = path.group(1) if path else ""
        in_app = any(part in name for part in ROBOT_APP_FOLDERS)
        if name.startswith(ROBOT_PATHS) and not in_app:
            return Classified(OURS, "robot-path",
                              "a robot path the simulated robot does not map")
        if name and name.rstrip("/").rpartition("/")[2] in shipped:
            return Classified(OURS, "shipped-file",
                              "a file the project ships, not where box code looks")
        return Classified(ENVIRONMENT, "unshipped-file", "a file the author did not ship")
    if _NETWORK.search(detail):
        return Classified(ENVIRONMENT, "network", "a network peer of the author's")
    if frames and any(part in frames[-1] for part in _OUR_CODE) \
            and "naoqi_qicore/core/box.py" not in frames[-1]:
        return Classified(OURS, "our-code", "raised inside naoqi_qicore")
    kinds = _EXCEPTION.findall(last)
    return Classified(BEHAVIOR, "behavior", kinds[-1] if kinds else last[:40])


#: how a run that did not reach its end is classed (the first rule of WHY_NOT that holds)
WAITS, LOOPS, LONG, STUCK, ERROR = ("waits for a stimulus", "loops forever by design",
                                    "still working", "waits in its own code", "error")
#: a run is idle when the behavior did nothing for this share of the run (at most IDLE_S)
IDLE_SHARE, IDLE_S = 0.25, 5.0
#: a box started this many times, or a root keyframe entered twice, is a loop
LOOP_STARTS = 3
#: robot methods that only read: a run calling only them waits for what they read
_READS = re.compile(r"^(get|is|has|ping|version|are|was)[A-Z_]|^(getData|getListData)$")


@dataclass
class Trace:
    """What a behavior did during its run, with times (``time.time()``)."""

    box_starts: "collections.Counter[str]" = field(default_factory=collections.Counter)
    keyframes: "collections.Counter[str]" = field(default_factory=collections.Counter)
    states_entered: int = 0
    last_engine: float = 0.0  # the engine's last box start, state or frame
    ended_at: Optional[float] = None  # FINISHED or ERROR
    #: at the end of a run still playing: what the robot has listeners for
    speech: List[str] = field(default_factory=list)
    keys: List[str] = field(default_factory=list)
    active_boxes: List[str] = field(default_factory=list)


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
    #: (class, rule, reason, box error text) of each box error
    errors: List[Tuple[str, str, str, str]] = field(default_factory=list)
    #: seconds from play to its end (FINISHED or ERROR), None when it did not end
    ended_after: Optional[float] = None
    #: why it did not reach its end: (class, rule, reason); empty when it did
    why_not: Tuple[str, str, str] = ("", "", "")
    #: the services its application declares, and how many of them the robot ran
    app_services: int = 0
    services_ran: int = 0
    #: services that did not run, started on request only and never asked to
    services_not_asked: int = 0

    @property
    def ours(self) -> List[Tuple[str, str, str, str]]:
        return [error for error in self.errors if error[0] == OURS] + (
            [(OURS, "engine", "engine exception", self.error)]
            if self.converted and self.error else [])

    @property
    def ended(self) -> bool:
        """It reached its end: the root box stopped (FINISHED)."""
        return self.status == "FINISHED"

    @property
    def progress(self) -> bool:
        return (self.ended or self.boxes_started > 2 or self.states_entered > 1
                or self.calls_after_startup > 0)


def why_not_ended(status: str, trace: Trace, calls: List[Dict[str, Any]], errors: int,
                  played: float, stopped: float) -> Tuple[str, str, str]:
    """Why a run played from ``played`` to ``stopped`` (``time.time()``) did not reach its
    end: ``(class, rule, reason)``, ``("", "", "")`` when it did.  The rules, in order:

    * ``error``: the root box failed (ERROR);
    * ``stuck-after-error``: idle at the end (nothing done for the last quarter of the run,
      at most 5 s), after a box error;
    * ``waits-speech``, ``waits-touch``, ``waits-event``: idle, while ALSpeechRecognition
      or ALDialog listen, a head touch or an ALMemory key is waited for;
    * ``polls``: only reads of the robot in the last stretch (a loop polling a value);
    * ``loops``: still active, with a box started 3 times or more, or a keyframe of the
      root timeline entered again;
    * ``long``: still active, nothing repeated (longer than the run);
    * ``own-code``: idle, nothing waited for on the robot (box code blocked or sleeping).
    """
    if status == "FINISHED":
        return ("", "", "")
    if status == "ERROR":
        return (ERROR, "error", "the root box failed")
    idle_after = stopped - min(IDLE_S, IDLE_SHARE * (stopped - played))
    recent = [call for call in calls if call.get("end", stopped) >= idle_after]  # or running
    idle = not recent and trace.last_engine < idle_after
    if idle and errors:
        return (ERROR, "stuck-after-error", "idle after %d box error%s"
                % (errors, "" if errors == 1 else "s"))
    if idle and trace.speech:
        return (WAITS, "waits-speech", "speech the scenario does not give (%s listens)"
                % " and ".join(trace.speech))
    touch = [key for key in trace.keys if "Tactil" in key or "Touch" in key
             or "Bumper" in key or "Hand" in key]
    if idle and touch:
        return (WAITS, "waits-touch", "a touch: %s" % ", ".join(touch[:3]))
    if idle and trace.keys:
        return (WAITS, "waits-event", "ALMemory %s" % ", ".join(trace.keys[:4]))
    if recent and all(_READS.search(call["method"]) for call in recent):
        polled = collections.Counter("%s.%s" % (call["service"], call["method"])
                                     for call in recent)
        return (WAITS, "polls", "polls %s" % ", ".join(name for name, _ in
                                                       polled.most_common(2)))
    if not idle:
        box, starts = (trace.box_starts.most_common(1) or [("", 0)])[0]
        keyframe, entries = (trace.keyframes.most_common(1) or [("", 0)])[0]
        if starts >= LOOP_STARTS:
            return (LOOPS, "loops", "box %s started %d times" % (box, starts))
        if entries >= 2:
            return (LOOPS, "loops", "keyframe %s entered %d times" % (keyframe, entries))
        return (LONG, "long", "still active after %.0f s" % (stopped - played))
    return (STUCK, "own-code", "boxes running: %s" % ", ".join(trace.active_boxes[-3:]))


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


def _shipped_files(folder: Path) -> frozenset:
    """The names of the files of a project (the folder of its behavior and those above it
    up to its .pml or manifest.xml)."""
    top = folder
    for parent in [folder, *folder.parents]:
        if any(parent.glob("*.pml")) or (parent / "manifest.xml").is_file():
            top = parent
            break
    return frozenset(path.name for path in top.rglob("*") if path.is_file())


def convert_one(path: Path, output: Path) -> Tuple[Any, Any]:
    """Convert behavior ``path`` with its project into ``output`` and load it: the loaded
    behavior and the robot kind it was written for.  XarError when it does not convert."""
    from naoqi_qicore.converter.api import convert_in_project
    from naoqi_qicore.converter.loader import load_converted
    from naoqi_qicore.converter.robot_kind import robot_kind

    result = convert_in_project(path, output)
    loaded = load_converted(result.behaviors[0].output)
    return loaded, robot_kind([loaded.behavior], loaded.folder)


def run_one(name: str, path: Path, seconds: float, scenario: Optional[str]) -> Outcome:
    """Convert ``path`` with its project, load it and play it for ``seconds`` (or until it
    ends) on a simulated robot of its kind."""
    import qi
    from naoqi_qicore.core import BehaviorPlayer
    from naoqi_qicore.robot.naoqi_compat import box_environment
    from naoqi_qicore.robot.robot_apps import install_on_robot
    from naoqi_qicore.robot.sim import SimulatedRobot
    from naoqi_qicore.robot.sim.recorder import read_calls
    from naoqi_qicore.xar.errors import XarError

    outcome = Outcome(name)
    trace = Trace()
    raw_errors = []

    def listen(event: Any) -> None:
        if event.kind in ("box_started", "state_entered", "frame"):
            trace.last_engine = time.time()
        if event.kind == "box_started":
            trace.box_starts[event.box_path] += 1
        elif event.kind == "state_entered":
            trace.states_entered += 1
            if "/" not in event.box_path:  # the root's
                trace.keyframes.update(event.data.get("labels", ()))
        elif event.kind == "status" and event.detail in ("FINISHED", "ERROR"):
            trace.ended_at = time.time()
        elif event.kind == "error":
            raw_errors.append(event.data["error"])

    with tempfile.TemporaryDirectory() as scratch:
        try:
            loaded, kind = convert_one(path, Path(scratch) / "converted")
        except XarError as error:
            outcome.error = str(error)
            return outcome
        outcome.converted = True
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
        # installed where the robot keeps applications, and run from there
        installed, files, _ = install_on_robot(session, robot.url, loaded)
        player = BehaviorPlayer(installed.loaded, session, listener=listen,
                                environment=functools.partial(box_environment, files=files))
        play_started = stopped = time.time()
        try:
            player.load()
            play_started = time.time()
            player.play()
            player.wait(seconds)
            outcome.status = player.status
            stopped = time.time()
            if outcome.status == "PLAYING":
                trace.speech = robot.perception._speech_listeners()
                trace.keys = robot.service("ALMemory")._listened_keys()
                trace.active_boxes = player.active_boxes
            player.stop()
            services = [info for info in robot.service("ALServiceManager").services()
                        if info["name"].startswith(installed.package_id + ".")]
            outcome.app_services = len(services)
            outcome.services_ran = sum(info["starts"] > 0 for info in services)
            outcome.services_not_asked = sum(info["starts"] == 0 and not info["autorun"]
                                             for info in services)
        except Exception as error:  # the engine's own failure
            outcome.error = "%s: %s" % (type(error).__name__, error)
        finally:
            player.unload()
            # what boxes report once the robot is gone is this bench's doing, not theirs
            errors = list(raw_errors)
            robot.stop()
            # not session.close(): a box stuck past its stop may still call through it
            _OPEN_SESSIONS.append(session)
        calls = read_calls(record)
        shipped = _shipped_files(Path(path).parent)
    for call in calls:
        if call.get("own"):  # what the robot did of its own accord is not the behavior's call
            continue
        outcome.calls[call["service"]] = outcome.calls.get(call["service"], 0) + 1
        if call["time"] > play_started + 1.0:
            outcome.calls_after_startup += 1
    outcome.boxes_started, outcome.states_entered = len(trace.box_starts), trace.states_entered
    if trace.ended_at is not None and outcome.status in ("FINISHED", "ERROR"):
        outcome.ended_after = trace.ended_at - play_started
    for error in errors:
        detail = error.text() + ("\n" + error.traceback if error.traceback else "")
        found = classify(detail, error.where, error.box_path in invalid, shipped)
        outcome.errors.append((found.kind, found.rule, found.reason, error.text()))
    if outcome.converted and outcome.error:
        outcome.why_not = (ERROR, "engine", "the engine's own exception")
    elif outcome.converted:
        outcome.why_not = why_not_ended(outcome.status, trace,
                                        [call for call in calls if call["time"] >= play_started],
                                        len(errors), play_started, stopped)
    return outcome


_OPEN_SESSIONS: List[Any] = []


@dataclass
class Report:
    """The outcomes, their totals, and what running them cost."""

    outcomes: List[Outcome]
    wall_seconds: float = 0.0
    cpu_seconds: float = 0.0

    @property
    def converted(self) -> List[Outcome]:
        return [outcome for outcome in self.outcomes if outcome.converted]

    def totals(self) -> Dict[str, Any]:
        converted = self.converted
        classes: "collections.Counter[str]" = collections.Counter()
        not_ended: "collections.Counter[str]" = collections.Counter()
        for outcome in converted:
            classes.update("%s [%s]: %s" % (kind, rule, reason)
                           for kind, rule, reason, _ in outcome.errors)
            if outcome.why_not[0]:
                not_ended["%s [%s]" % outcome.why_not[:2]] += 1
        return {
            "behaviors": len(self.outcomes),
            "converted": len(converted),
            "no error of ours": sum(not outcome.ours for outcome in converted),
            "progress": sum(outcome.progress for outcome in converted),
            "ended": sum(outcome.ended for outcome in converted),
            "service apps": sum(outcome.app_services > 0 for outcome in converted),
            "service ran": sum(outcome.services_ran > 0 for outcome in converted),
            "service not asked": sum(outcome.app_services > 0 and outcome.services_ran == 0
                                     and outcome.services_not_asked > 0
                                     for outcome in converted),
            "not ended": dict(not_ended.most_common()),
            "robots": dict(collections.Counter(outcome.robot for outcome in converted)),
            "error classes": dict(classes.most_common()),
        }


def run_corpus(corpus: Path, seconds: float, workers: int, scenario: Optional[str],
               only: str = "", every: int = 1) -> Report:
    """Every corpus behavior (whose id holds ``only``; with ``every`` N, one in N of them in
    id order, a sample across the corpus), ``workers`` at a time (they mostly wait: for
    the robot, for their timelines, for people)."""
    behaviors = [(name, path) for name, path in corpus_behaviors(corpus)
                 if only in name][::every]
    wall, cpu = time.monotonic(), time.process_time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        outcomes = list(pool.map(lambda item: run_one(item[0], item[1], seconds, scenario),
                                 behaviors))
    return Report(outcomes, time.monotonic() - wall, time.process_time() - cpu)


def print_report(report: Report, seconds: float, out: Any = None) -> None:
    """The per-behavior lines, then the totals (on ``out``, default standard output)."""
    out = out if out is not None else sys.stdout
    for outcome in report.outcomes:
        if not outcome.converted:
            print("%-40s not converted: %s" % (outcome.name, outcome.error[:100]), file=out)
            continue
        calls = ", ".join("%s %d" % item for item in sorted(outcome.calls.items(),
                                                           key=lambda item: -item[1])[:4])
        ended = "ended %.1f s" % outcome.ended_after if outcome.ended_after is not None \
            else "running"
        print("%-40s %-6s %-8s %-12s boxes %3d states %2d calls %4d (%s)%s" % (
            outcome.name, outcome.robot, outcome.status or "-", ended, outcome.boxes_started,
            outcome.states_entered, sum(outcome.calls.values()), calls,
            "" if outcome.progress else " no progress"), file=out)
        if outcome.why_not[0]:
            print("    not ended: %s [%s]: %s" % outcome.why_not, file=out)
        if outcome.app_services:
            print("    app services: %d declared, %d ran%s" % (
                outcome.app_services, outcome.services_ran,
                ", %d started on request only and not asked to by this behavior"
                % outcome.services_not_asked if outcome.services_not_asked else ""), file=out)
        for kind, rule, reason, text in outcome.errors:
            print("    %s [%s] (%s): %s" % (kind, rule, reason, text.splitlines()[0][:110]),
                  file=out)
        if outcome.error:
            print("    ours [engine] (engine exception): %s" % outcome.error[:110], file=out)
    totals = report.totals()
    count = max(totals["converted"], 1)
    print("\n%d behaviors, %d converted, run %.0f s each at most (%.0f s wall, %.0f s CPU)" % (
        totals["behaviors"], totals["converted"], seconds, report.wall_seconds,
        report.cpu_seconds), file=out)
    print("no error of ours: %d (%.1f%%, target 98%%)" % (
        totals["no error of ours"], 100.0 * totals["no error of ours"] / count), file=out)
    print("progress:         %d (%.1f%%, target 90%%)" % (
        totals["progress"], 100.0 * totals["progress"] / count), file=out)
    print("reached its end:  %d (%.1f%%) in %.0f s" % (
        totals["ended"], 100.0 * totals["ended"] / count, seconds), file=out)
    print("service apps:     %d, their services ran in %d, were not asked to start in %d" % (
        totals["service apps"], totals["service ran"], totals["service not asked"]), file=out)
    print("did not, why:", file=out)
    for name, number in totals["not ended"].items():
        print("  %4d %s" % (number, name), file=out)
    print("robots:           %s" % ", ".join("%s %d" % item for item in
                                             sorted(totals["robots"].items())), file=out)
    print("box errors by class [rule]:", file=out)
    for name, number in totals["error classes"].items():
        print("  %4d %s" % (number, name), file=out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--seconds", type=float, default=10.0,
                        help="longest run of a behavior (one that ends sooner stops sooner)")
    parser.add_argument("--workers", type=int, default=WORKERS)
    parser.add_argument("--scenario", default=None,
                        help="scenario for every simulated robot (e.g. generic)")
    parser.add_argument("--only", default="", help="only behaviors whose id holds this")
    parser.add_argument("--every", type=int, default=1,
                        help="a sample: one behavior in this many, in id order")
    options = parser.parse_args()
    # the runs' own log lines: what the report says of each run is what counts
    logging.getLogger("naoqi_qicore").setLevel(logging.CRITICAL)
    import qi
    qi.logging.setLevel(qi.logging.ERROR)
    if not (options.corpus / "files").is_dir():
        print("no corpus at %s" % options.corpus, file=sys.stderr)
        return 2
    sys.path.insert(0, str(REPO))
    report = run_corpus(options.corpus, options.seconds, options.workers, options.scenario,
                        options.only, max(options.every, 1))
    print_report(report, options.seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
