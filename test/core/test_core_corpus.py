"""Every behavior of the shared corpus converted, loaded back and played on a simulated robot.

A behavior counts as running when the engine raised nothing and no box failed for a
reason of ours: an error inside the engine or the compatibility modules, a module or a
Python 2 feature that box scripts had on the robot and we do not give them, or a service
of the simulated robot missing, refusing or failing a call.  Failures of the behaviors'
own code (modules the robot did not have either, files of the author's machine or media
not in the corpus, parameters the box does not have, scripts that are not valid Python 2
either, plain bugs) are counted apart.  Each behavior gets a simulated robot of its own.
"""
import collections
import concurrent.futures
import logging
import re
import sys
import tempfile
from pathlib import Path
from typing import Any, List

import pytest

from naoqi_qicore.converter.loader import load_converted
from naoqi_qicore.converter.pyport import port_script
from naoqi_qicore.converter.writer import has_python, write_converted
from naoqi_qicore.core import BehaviorPlayer
from naoqi_qicore.core.py2 import PY2_BUILTINS
from naoqi_qicore.xar.errors import XarError
from naoqi_qicore.xar.parser import parse_xar_file

#: how long a behavior plays at the most (no human input is given)
PLAY_SECONDS = 10.0
#: behaviors played at once (most of them wait for a human most of the time)
WORKERS = 12
TARGET_RATE = 0.90

ENGINE, SIMULATOR, PYTHON2 = "engine", "simulator", "engine: Python 2 semantics"
OURS = (ENGINE, SIMULATOR, PYTHON2)
_OUR_CODE = ("naoqi_qicore/core/", "naoqi_qicore/robot/naoqi_compat/")
#: what box scripts could import on the robot besides Python 2.7's standard library
NAOQI_SDK_MODULES = frozenset(("naoqi", "qi", "almath", "motion", "vision_definitions",
                               "allog", "inaoqi"))
#: Python 2.7 standard library modules that Python 3 removed or renamed
PY2_STDLIB_MODULES = frozenset((
    "thread", "Queue", "urllib2", "cPickle", "StringIO", "cStringIO", "ConfigParser",
    "httplib", "urlparse", "HTMLParser", "cookielib", "SocketServer", "Tkinter", "commands",
    "htmlentitydefs", "xmlrpclib", "__builtin__", "copy_reg", "repr", "BaseHTTPServer",
    "SimpleHTTPServer", "CGIHTTPServer", "Cookie", "UserDict", "UserList", "UserString",
    "mutex", "sets", "md5", "sha", "new", "popen2", "dircache", "mimetools", "rfc822",
    "htmllib", "sgmllib", "exceptions", "dummy_thread", "anydbm", "whichdb", "robotparser",
    "markupbase", "DocXMLRPCServer", "SimpleXMLRPCServer", "urllib"))
#: attributes Python 2 objects had (``dict.iteritems``, ``urllib2.Request.add_data``...)
PY2_ATTRIBUTES = frozenset((
    "iteritems", "iterkeys", "itervalues", "viewitems", "viewkeys", "viewvalues", "has_key",
    "setdefaultencoding", "maxint", "letters", "lowercase", "uppercase", "maketrans",
    "add_data", "get_data", "has_data", "get_type", "get_host", "get_selector", "im_func",
    "im_self", "im_class", "func_name", "func_code", "func_defaults", "getcwdu", "next",
    "decode", "message"))
#: errors of Python 3 semantics where Python 2 had none
_PY2_TYPE_ERRORS = re.compile(
    r"'(range|map|filter|zip|dict_keys|dict_values|dict_items)' object|"
    r"sort\(\) takes no positional|'cmp' is an invalid keyword|a bytes-like object is "
    r"required, not 'str'|can't concat str to bytes|should be bytes|not supported between "
    r"instances of")
#: NameError of a name NAOqi or Python 2 gave box scripts (not a script's own typo)
_GIVEN_NAMES = re.compile(r"NameError: name '(AL\w+|GeneratedClass|qi|naoqi|almath|time|"
                          r"random|os|sys|session|DCM|%s)' is not defined"
                          % "|".join(sorted(PY2_BUILTINS)))
_SIMULATOR_MESSAGES = re.compile(r"'qi\.qi_python\.Object' object has no attribute|"
                                 r"Cannot find service|is neither an LED|does not exist in|"
                                 r"naoqi_qicore/robot/sim/")
_EXCEPTION = re.compile(r"\b(\w*(?:Error|Exception|Exit|Interrupt))\b")


#: client sessions of the behaviors played, kept open for the threads boxes left behind
OPEN_SESSIONS: List[Any] = []


def at_stop(kind: str, stopping: bool) -> str:
    """A failure of the behavior's own code while the test stops it (onStop reaches every
    loaded box, started or not) is told apart; ours stay ours."""
    return kind if kind in OURS or not stopping else kind + " (at stop)"


def robot_has_module(name: str) -> bool:
    """Whether a box could ``import name`` on the robot (NAOqi SDK, Python 2.7 stdlib)."""
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


def failure_class(detail: str, invalid_scripts: frozenset = frozenset()) -> str:
    """ENGINE, SIMULATOR, PYTHON2, or "behavior: <what>" for the behavior's own failures;
    ``invalid_scripts``: paths of the boxes whose script is not valid Python 2 either."""
    lines = [line for line in detail.splitlines() if line.strip()]
    frames = [line for line in lines if line.strip().startswith("File ")]
    last = lines[-1] if lines else detail
    if _SIMULATOR_MESSAGES.search(detail):
        return SIMULATOR
    missing = re.search(r"ModuleNotFoundError: No module named '([\w.]+)'", detail)
    if missing:
        return ENGINE if robot_has_module(missing.group(1)) else "behavior: ModuleNotFoundError"
    if _GIVEN_NAMES.search(last):
        return ENGINE
    attribute = re.search(r"AttributeError: .* has no attribute '(\w+)'", last)
    if (attribute and attribute.group(1) in PY2_ATTRIBUTES) or (
            "TypeError" in last and _PY2_TYPE_ERRORS.search(last)):
        return PYTHON2
    if "SyntaxError" in last or "IndentationError" in last:
        # not valid Python 2 either, or a port that failed (ours)
        box_path = detail.split(":")[0]
        return "behavior: invalid script" if box_path in invalid_scripts else ENGINE
    if "FileNotFoundError" in last:  # the behavior's own files (media, dialogs...) missing
        return "behavior: FileNotFoundError"
    if frames and any(part in frames[-1] for part in _OUR_CODE) \
            and "naoqi_qicore/core/box.py" not in frames[-1]:
        return ENGINE
    if "has no parameter" in last:
        return "behavior: has no parameter"
    kinds = _EXCEPTION.findall(last)
    return "behavior: " + (kinds[-1] if kinds else last[:40])


def robot_of(path: Path) -> str:
    text = path.read_bytes()
    return "pepper" if b"ALTabletService" in text or b"juliette" in text.lower() else "nao"


def box_paths(root):
    """``(path, box)`` of every box, paths as the engine reports them (``root/A/B``)."""
    stack = [(root.name, root)]
    while stack:
        path, box = stack.pop()
        yield path, box
        stack.extend((path + "/" + child.name, child) for child in box.children())


def invalid_scripts(behavior) -> frozenset:
    """Paths of the boxes whose script neither compiles nor ports, and is not Python 2."""
    return frozenset(
        box_path for box_path, box in box_paths(behavior.root)
        if has_python(box.script) and port_script(box.script.content).error is not None
        and not valid_python2(box.script.content))


def play_one(path: Path) -> dict:
    """Parse, convert, load back and play one behavior on a simulated robot of its own,
    for :data:`PLAY_SECONDS` at the most."""
    import qi
    from naoqi_qicore.robot.naoqi_compat import box_environment
    from naoqi_qicore.robot.sim import SimulatedRobot
    errors = []

    def listen(event):
        if event.kind == "error":
            error = event.data["error"]
            errors.append(error.text() + ("\n" + error.traceback if error.traceback else ""))
    try:
        behavior = parse_xar_file(path)
    except XarError as error:
        return {"file": path.name, "status": "not a behavior", "error": str(error), "errors": []}
    outcome = {"file": path.name, "errors": errors, "error": "", "stopping_from": None,
               "invalid_scripts": invalid_scripts(behavior)}
    with tempfile.TemporaryDirectory() as scratch:
        try:
            write_converted(behavior, Path(scratch) / "converted")
            loaded = load_converted(Path(scratch) / "converted")
        except Exception as error:  # the converter's own failure
            outcome["status"] = "engine exception"
            outcome["error"] = "conversion: %s: %s" % (type(error).__name__, error)
            return outcome
        robot = SimulatedRobot(robot=robot_of(path), listen="tcp://127.0.0.1:0").start()
        session = qi.Session()
        session.connect(robot.url)
        player = BehaviorPlayer(loaded, session, listener=listen, environment=box_environment)
        try:
            player.load()
            player.play()
            player.wait(PLAY_SECONDS)
            outcome["status"] = player.status
            outcome["stopping_from"] = len(errors)
            player.stop()
        except Exception as error:  # the engine's own failure
            outcome["status"] = "engine exception"
            outcome["error"] = "%s: %s" % (type(error).__name__, error)
        finally:
            player.unload()
            # what boxes still running report once the robot is gone is not the behavior's
            outcome["errors"] = list(errors)
            # not session.close(): a box stuck past its stop may still call through the
            # session's proxies, and libqi crashes on a proxy of a closed session; once the
            # robot stops, those calls fail with an error instead
            OPEN_SESSIONS.append(session)
            robot.stop()
    return outcome


def test_failure_classes():
    """The classification itself: what is ours, what is the behavior's."""
    assert failure_class("b: the box script does not run: ModuleNotFoundError: "
                         "No module named 'requests'") == "behavior: ModuleNotFoundError"
    assert failure_class("b: ModuleNotFoundError: No module named 'vision_definitions'") \
        == ENGINE
    assert failure_class("b: ModuleNotFoundError: No module named 'cookielib'") == ENGINE
    assert failure_class("b: onStart failed: AttributeError: 'dict' object has no attribute "
                         "'iteritems'") == PYTHON2
    assert failure_class("b: the box script does not run: TypeError: 'range' object does "
                         "not support item assignment") == PYTHON2
    assert failure_class("b: onStart failed: NameError: name 'reload' is not defined") \
        == ENGINE
    assert failure_class("b: onStart failed: NameError: name 'onUnload' is not defined") \
        == "behavior: NameError"
    assert failure_class("b: porting failed: SyntaxError: x (line 3)", frozenset(["b"])) \
        == "behavior: invalid script"
    assert failure_class("b: the box script does not run: SyntaxError: x (line 3)") == ENGINE
    assert valid_python2("print 'a', 0755\nexec 'x = 1'\n")
    assert not valid_python2("x = >F40\n")
    assert failure_class("b: onStop failed: RuntimeError: ALMemory::unsubscribeToEvent: no\n"
                         "  /x/naoqi_qicore/robot/sim/memory.py(206): _unsubscribe") == SIMULATOR
    assert failure_class('b: failed: Traceback (most recent call last):\n  File '
                         '"/x/naoqi_qicore/core/generated.py", line 3, in f\nKeyError: 1') \
        == ENGINE
    assert failure_class("b: onStart failed: FileNotFoundError: [Errno 2] No such file") \
        == "behavior: FileNotFoundError"
    assert failure_class('b: failed: Traceback (most recent call last):\n  File '
                         '"/x/naoqi_qicore/core/dialog_box.py", line 3, in f\n'
                         "FileNotFoundError: [Errno 2] No such file: 'Hello.dlg'") \
        == "behavior: FileNotFoundError"
    assert failure_class("b: onStart failed: Exception: the language is not supported") \
        == "behavior: Exception"


@pytest.mark.slow
def test_corpus_behaviors_run(corpus_dir, capsys):
    pytest.importorskip("qi")
    files = sorted((corpus_dir / "files").glob("*.xar"))
    logging.getLogger("naoqi_qicore.box").setLevel(logging.CRITICAL)
    with concurrent.futures.ThreadPoolExecutor(max_workers=WORKERS) as pool:
        outcomes = list(pool.map(play_one, files))

    classes = collections.Counter()
    running = judged = 0
    failing = []
    for outcome in outcomes:
        if outcome["status"] == "not a behavior":
            continue
        judged += 1
        kinds = [at_stop(failure_class(detail, outcome["invalid_scripts"]),
                         outcome["stopping_from"] is not None
                         and index >= outcome["stopping_from"])
                 for index, detail in enumerate(outcome["errors"])]
        classes.update(kinds)
        ours = [kind for kind in kinds if kind in OURS]
        if outcome["status"] == "engine exception":
            ours.append("engine")
            classes["engine exception"] += 1
        if ours:
            failing.append((outcome["file"], ours, outcome["error"] or next(
                detail.splitlines()[0] for detail, kind in zip(outcome["errors"], kinds)
                if kind in ours)))
        else:
            running += 1
    rate = running / judged
    with capsys.disabled():
        print("\ncorpus: %d/%d behaviors run (%.1f%%)" % (running, judged, 100 * rate))
        statuses = collections.Counter(outcome["status"] for outcome in outcomes
                                       if outcome["status"] != "not a behavior")
        print("  status after at most %.0f s: %s" % (PLAY_SECONDS, ", ".join(
            "%s %d" % item for item in sorted(statuses.items()))))
        for kind, count in classes.most_common():
            print("  %4d box failures: %s" % (count, kind))
        for name, ours, first in failing:
            print("  ours: %s %s %s" % (name, sorted(set(ours)), first[:160]))
    assert rate >= TARGET_RATE
