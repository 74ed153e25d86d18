"""Every behavior of the shared corpus, prepared, loaded and played on the simulated robot.

A behavior counts as running when the engine raised nothing and no box failed for a
reason of ours: an error inside the engine or the compatibility modules, or a service
of the simulated robot missing or refusing a call.  Failures of the behaviors' own code
(third-party modules not installed, files of the author's machine, parameters the box
does not have, scripts that are not valid Python 2 either) are counted apart.
"""
import collections
import concurrent.futures
import logging
import re
from pathlib import Path

import pytest

from naoqi_qicore.converter.loader import prepare
from naoqi_qicore.core import BehaviorPlayer
from naoqi_qicore.xar.errors import XarError
from naoqi_qicore.xar.parser import parse_xar_file

PLAY_SECONDS = 1.5
#: behaviors played at once (the simulated robots share this process's libqi threads)
WORKERS = 6
TARGET_RATE = 0.90

_OURS = ("naoqi_qicore/core/", "naoqi_qicore/robot/naoqi_compat/", "naoqi_qicore/robot/sim/")
#: NameError of a name NAOqi defined for box scripts (not a script's own typo)
_NAOQI_NAME = re.compile(r"NameError: name '(AL\w+|GeneratedClass|qi|naoqi|almath|time|random|"
                         r"os|sys|session|DCM)' is not defined")
_SIMULATOR_MESSAGES = re.compile(r"'qi\.qi_python\.Object' object has no attribute|"
                                 r"Cannot find service|is neither an LED|does not exist in")


def failure_class(detail: str) -> str:
    """"engine", "simulator", or the behavior's own kind of failure."""
    lines = [line for line in detail.splitlines() if line.strip()]
    frames = [line for line in lines if line.strip().startswith("File ")]
    last = lines[-1] if lines else detail
    if _SIMULATOR_MESSAGES.search(detail):
        return "simulator"
    if "ModuleNotFoundError" in last:  # modules the author installed on the robot
        return "behavior: ModuleNotFoundError"
    name_error = _NAOQI_NAME.search(last)
    if name_error:
        return "engine"  # a name NAOqi gave box scripts that we do not
    if frames and any(part in frames[-1] for part in _OURS) and "naoqi_qicore/core/box.py" \
            not in frames[-1]:
        return "engine"
    for kind in ("ModuleNotFoundError", "FileNotFoundError", "SyntaxError", "IndentationError",
                 "has no parameter", "OSError", "IOError", "ConnectionError", "URLError"):
        if kind in detail:
            return "behavior: " + kind
    return "behavior: " + last.split(":")[0][:40]


def robot_of(path: Path) -> str:
    text = path.read_bytes()
    return "pepper" if b"ALTabletService" in text or b"juliette" in text.lower() else "nao"


def play_one(path: Path, session) -> dict:
    errors = []

    def listen(event):
        if event.kind == "error":
            errors.append(event.detail)
    try:
        behavior = parse_xar_file(path)
    except XarError as error:
        return {"file": path.name, "status": "not a behavior", "error": str(error), "errors": []}
    from naoqi_qicore.robot.naoqi_compat import box_environment
    player = BehaviorPlayer(prepare(behavior), session, listener=listen,
                            environment=box_environment)
    outcome = {"file": path.name, "errors": errors, "error": ""}
    try:
        player.load()
        player.play()
        player.wait(PLAY_SECONDS)
        outcome["status"] = player.status
        player.stop()
    except Exception as error:  # the engine's own failure
        outcome["status"] = "engine exception"
        outcome["error"] = "%s: %s" % (type(error).__name__, error)
    finally:
        player.unload()
    return outcome


@pytest.mark.slow
def test_corpus_behaviors_run(corpus_dir, capsys):
    qi = pytest.importorskip("qi")
    from naoqi_qicore.robot.sim import SimulatedRobot
    files = sorted((corpus_dir / "files").glob("*.xar"))
    logging.getLogger("naoqi_qicore.box").setLevel(logging.CRITICAL)
    robots, sessions = {}, {}
    try:
        for kind in ("nao", "pepper"):
            robots[kind] = SimulatedRobot(robot=kind, listen="tcp://127.0.0.1:0").start()
            sessions[kind] = qi.Session()
            sessions[kind].connect(robots[kind].url)
        with concurrent.futures.ThreadPoolExecutor(max_workers=WORKERS) as pool:
            outcomes = list(pool.map(lambda path: play_one(path, sessions[robot_of(path)]),
                                     files))
    finally:
        for session in sessions.values():
            session.close()
        for robot in robots.values():
            robot.stop()

    classes = collections.Counter()
    running = judged = 0
    failing = []
    for outcome in outcomes:
        if outcome["status"] == "not a behavior":
            continue
        judged += 1
        kinds = [failure_class(detail) for detail in outcome["errors"]]
        classes.update(kinds)
        ours = [kind for kind in kinds if kind in ("engine", "simulator")]
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
        for kind, count in classes.most_common():
            print("  %4d box failures: %s" % (count, kind))
        for name, ours, first in failing:
            print("  ours: %s %s %s" % (name, sorted(set(ours)), first[:160]))
    assert rate >= TARGET_RATE
