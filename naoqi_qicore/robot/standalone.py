"""``python OUT/main.py [--url tcp://HOST:9559]``: play a converted behavior until it ends.

Without ``--url`` a simulated robot is started in this process; ``--scenario FILE|generic``
has people around it say and do things (:mod:`naoqi_qicore.robot.sim.scenario`),
``--interactive`` reads them from stdin, ``--record FILE`` writes its call record (JSON
Lines), ``--root DIR`` keeps its files (``/home/nao/...``) in ``DIR`` and ``--allow-eval``
lets its ALPythonBridge evaluate code.  The behavior's project is installed in the robot's
files first (:mod:`naoqi_qicore.robot.robot_apps`) and runs from there.  Before its boxes load,
the behavior waits for the robot given with ``--url`` to offer the services its box code
calls, as long as it is still registering services (at most 10 s).  Once the run ended (and
the robot answered its last motion calls) and the behavior is unloaded, one line on
standard output says how it ended:

    wave_hello: FINISHED in 4.2 s, no errors
    wave_hello: FINISHED in 4.2 s with 2 errors (last: root/Say: onStart: RuntimeError: ...)
    wave_hello: FINISHED in 4.2 s, no errors, 1 warning (last: root/Dance: motion: the robot
    has no joint LAnklePitch: the keys of it in this timeline are left out)
    wave_hello: STOPPED by SIGINT in 1.3 s, no errors

A warning is what the user must know that did not make the run fail (keys of joints the
robot lacks left out, a box that ended because its resources stayed busy, a box's own
warning line): each is also printed on standard error when it happens (as ``warning: ...``,
box code's own lines as logged), and it does not change the exit status.

Exit status, as the ``behavior/run`` action's: 0 only for a run that FINISHED with no
error; 1 for one that finished with errors or failed (ERROR); 128 + the signal's number
(130, 143) after Ctrl-C or SIGTERM, once every loaded box got its onStop and the behavior
is unloaded; 2 for a folder that is not a converted behavior, an invalid scenario or an
unwritable record, 3 when the robot cannot be reached.

A scenario with expectations (:mod:`naoqi_qicore.robot.sim.expectations`) decides the
run: it is told the boxes that start, the keyframes reached and how the run ended; once
every expectation held (its last step done) or one failed, a behavior still running is
stopped.  Lines before the last one say how the expectations went::

    talk.yaml: 3 expectations held
    expectation failed: talk.yaml:9: step 3: expected the robot to say /bye/ within 5 s; it
    said: "Hello", "What is your name?"

and the exit status is 4 when one failed, else 0 when the run ended as the scenario
expected (FINISHED, or stopped at the scenario's end, with no error; or the status its
``ends`` expectation names), else 1.

This module is the composition root of a converted folder: it brings the engine, libqi
and the robot (simulated or not) together, and only when :func:`main` runs.
"""
from __future__ import annotations

import argparse
import functools
import logging
import signal
import sys
import time
from pathlib import Path
from typing import Any, List, Optional, Tuple

from naoqi_qicore.core.events import WHERE_LOG

EXIT_FINISHED = 0
EXIT_FAILED = 1
EXIT_BAD_FOLDER = 2
EXIT_NO_ROBOT = 3
EXIT_EXPECTATION_FAILED = 4
#: exit status after a signal: this plus its number (the shell's convention)
EXIT_SIGNAL_BASE = 128
#: seconds the end of a run waits for its box code and its last motion calls
RUN_CLOSE_TIMEOUT = 5.0
#: seconds the end of a run waits for the scenario to decide its expectations
VERDICT_TIMEOUT = 5.0


def _parser(folder: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="main.py", description="Play the converted behavior in %s." % folder)
    parser.add_argument("--url", default="",
                        help="robot to play on, e.g. tcp://192.168.1.10:9559 (default: a "
                             "simulated robot started here)")
    parser.add_argument("--robot", choices=("auto", "nao", "pepper"), default="auto",
                        help="kind of simulated robot (without --url); auto: the robot the "
                             "behavior was written for")
    parser.add_argument("--scenario", metavar="FILE|generic", default="",
                        help="simulated robot only: what people around it say and do (a YAML "
                             "scenario file), or 'generic': someone answers whatever it asks")
    parser.add_argument("--interactive", action="store_true",
                        help="simulated robot only: type what a person says, or /touch head, "
                             "/face, /tablet X Y, /raise KEY VALUE (/help)")
    parser.add_argument("--record", metavar="FILE", default="",
                        help="simulated robot only: append every call it gets to FILE (JSON "
                             "Lines)")
    parser.add_argument("--root", metavar="DIR", default="",
                        help="simulated robot only: the folder of its files (/home/nao/... "
                             "is DIR/home/nao/...), kept after the run (default: a temporary "
                             "folder, removed)")
    parser.add_argument("--allow-eval", action="store_true",
                        help="simulated robot only: let ALPythonBridge evaluate the Python code "
                             "clients send (off by default: any local process could run code "
                             "with this process's rights)")
    parser.add_argument("--verbose", action="store_true", help="print what the engine does")
    return parser


def main(folder: str, argv: Optional[List[str]] = None) -> int:
    """Play the converted behavior in ``folder``; returns the exit status."""
    parser = _parser(folder)
    options = parser.parse_args(argv)
    if options.url and (options.scenario or options.interactive or options.record
                        or options.allow_eval or options.root):
        parser.error("--scenario, --interactive, --record, --root and --allow-eval need the "
                     "simulated robot (leave out --url)")
    logging.basicConfig(level=logging.INFO if options.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    from naoqi_qicore.converter.loader import load_converted
    from naoqi_qicore.xar.errors import XarError
    try:
        loaded = load_converted(Path(folder))
    except XarError as error:
        print("error: %s" % error, file=sys.stderr)
        return EXIT_BAD_FOLDER
    scenario: Any = None
    if options.scenario:
        from naoqi_qicore.robot.sim.scenario import ScenarioError, load_scenario
        try:
            scenario = load_scenario(options.scenario)
        except ScenarioError as error:
            print("error: %s" % error, file=sys.stderr)
            return EXIT_BAD_FOLDER

    import qi
    from naoqi_qicore.core.player import BehaviorPlayer
    from naoqi_qicore.robot.naoqi_compat import box_environment
    from naoqi_qicore.robot.qi_log import follow_log_level
    follow_log_level(logging.getLogger().getEffectiveLevel())
    from naoqi_qicore.robot.robot_apps import install_on_robot

    simulated: Any = None
    checked: Any = None  # the scenario runner whose expectations decide the run
    url = options.url
    if not url:
        from naoqi_qicore.converter.robot_kind import robot_kind
        from naoqi_qicore.robot.sim import SimulatedRobot
        if options.robot == "auto":
            kind = robot_kind([loaded.behavior], Path(folder))
            options.robot = kind.kind
            print("main.py: simulated %s" % kind, file=sys.stderr)
        if scenario is not None:
            try:
                scenario.check_robot(options.robot)  # e.g. a tablet on NAO
            except ScenarioError as error:
                print("error: %s" % error, file=sys.stderr)
                return EXIT_BAD_FOLDER
        try:
            simulated = SimulatedRobot(robot=options.robot, listen="tcp://127.0.0.1:0",
                                       record=options.record or None,
                                       allow_eval=options.allow_eval,
                                       root=options.root or None).start()
        except OSError as error:
            print("error: cannot write %s: %s" % (error.filename or options.record,
                                                   error.strerror), file=sys.stderr)
            return EXIT_BAD_FOLDER
        url = simulated.url
        if scenario is not None:
            runner = simulated.play_scenario(
                scenario, lambda line: print("scenario: " + line, file=sys.stderr, flush=True))
            checked = runner if scenario.expectations else None
        if options.interactive:
            simulated.interact(sys.stdin, sys.stdout)
    session = qi.Session()
    ending = ""  # the line saying how the run ended, printed once everything is closed
    try:
        try:
            session.connect(url)
        except RuntimeError as error:
            print("error: cannot reach the robot at %s: %s" % (url, error), file=sys.stderr)
            return EXIT_NO_ROBOT
        installed, files, warnings = install_on_robot(session, url, loaded)
        for warning in warnings:
            print("warning: %s" % warning, file=sys.stderr)
        from naoqi_qicore.robot.session import SERVICE_TIMEOUT, wait_for_services
        # a simulated robot started here has registered all its services already
        timeout = 0.0 if simulated is not None else SERVICE_TIMEOUT
        feed = _ScenarioFeed(checked) if checked is not None else None
        player = BehaviorPlayer(
            installed.loaded, session, listener=_reporter(options.verbose, feed),
            environment=functools.partial(box_environment, files=files),
            await_services=lambda names: wait_for_services(session, names, timeout))
        if feed is not None:
            feed.player = player
        status, ending = _play(player, Path(folder).resolve().name, feed, options.verbose)
        return status
    finally:
        if not options.verbose:
            _quiet_libqi()
        session.close()
        if simulated is not None:
            simulated.stop()
        if ending:
            print(ending, flush=True)


def _warn_missing_dependencies(player: Any) -> None:
    """One warning naming the Python packages box code imports and this machine lacks."""
    try:
        warning = player.missing_dependencies().warning()
    except Exception as error:  # telling is a courtesy: never the reason a behavior fails
        logging.getLogger(__name__).debug("cannot tell missing dependencies: %s", error)
        return
    if warning:
        logging.getLogger(__name__).warning("%s", warning)


class _ScenarioFeed:
    """Tells a scenario runner what the behavior does: the engine's events (box starts,
    the root's keyframes, its status) and the run's end."""

    def __init__(self, runner: Any) -> None:
        from naoqi_qicore.robot.sim.observations import RunObserver
        self.runner = runner
        self.observer = RunObserver(runner.observe_behavior)
        self.player: Any = None  # set once made: its root's keyframes are the states

    def event(self, event: Any) -> None:
        root = self.player.root if self.player is not None else None
        self.observer.engine_event(event, root.path if root is not None else "")

    def verdict(self, status: str, errors: int, last_error: str) -> Any:
        """Report the run's end; the scenario's verdict once decided (or at the timeout)."""
        self.observer.ended(status, "%d error%s (last: %s)" % (
            errors, "" if errors == 1 else "s", last_error) if errors else "no errors")
        self.runner.decided.wait(VERDICT_TIMEOUT)
        return self.runner.verdict()


def _reporter(verbose: bool, feed: Optional[_ScenarioFeed] = None) -> Any:
    """The engine listener printing box errors (and with ``verbose`` what happens), and
    telling ``feed`` what the behavior does."""
    def report(event: Any) -> None:
        if feed is not None:
            feed.event(event)
        if event.kind == "error":
            print("box error: %s" % event.detail, file=sys.stderr)
        elif event.kind == "warning" and event.data["warning"].where != WHERE_LOG:
            print("warning: %s" % event.detail, file=sys.stderr)  # box code's lines: logged
        elif verbose and event.kind != "frame":
            print("%s %s %s" % (event.kind, event.box_path, event.detail), file=sys.stderr)
    return report


def _quiet_libqi() -> None:
    """Show libqi's errors only: once a run has ended, the warnings libqi gives as the
    behavior's connections close (a signal link already gone...) say nothing of the run,
    and would come before the lines saying how it ended."""
    import qi
    qi.logging.setLevel(qi.logging.ERROR)


def _play(player: Any, name: str, feed: Optional[_ScenarioFeed] = None,
          verbose: bool = False) -> Tuple[int, str]:
    """Load and play ``player`` until its run ends, a signal stops it or the expectations of
    ``feed``'s scenario are decided; the exit status and the lines saying how it ended
    (libqi's warnings quieted from the unload on, unless ``verbose``)."""
    signals: List[int] = []
    previous = {number: signal.signal(number, lambda signum, frame: signals.append(signum))
                for number in (signal.SIGINT, signal.SIGTERM)}
    decided = feed.runner.decided if feed is not None else None
    started = time.monotonic()
    status, ended, by = "", started, ""
    verdict: Any = None
    try:
        try:
            player.load()
        finally:
            _warn_missing_dependencies(player)
        started = time.monotonic()
        player.play()
        while not signals and not player.wait(0.1):
            if decided is not None and decided.is_set():
                by = "the scenario"
                break
        if signals:
            by = signal.Signals(signals[0]).name
        if by:
            player.stop()
        status, ended = player.status, time.monotonic()
        player.wait_run_closed(RUN_CLOSE_TIMEOUT)  # its box code ended, last motion answered
        if status == "ERROR":
            print("error: %s" % player.last_error, file=sys.stderr)
    except Exception as error:  # a behavior that cannot load: say why, no traceback
        print("error: %s" % error, file=sys.stderr)
        status, ended = "ERROR", time.monotonic()
    finally:
        if feed is not None and not signals:
            verdict = feed.verdict(status, player.error_count, player.last_error)
        if not verbose:
            _quiet_libqi()
        player.unload()
        for number, handler in previous.items():
            signal.signal(number, handler)
    errors = player.error_count  # the unload's too (the root's onUnload)
    lines = verdict.lines() if verdict is not None else []
    warnings = player.warnings
    ending = "\n".join(lines + [_end_line(name, status, by, ended - started, errors,
                                          player.last_error, player.warning_count,
                                          warnings[-1].text() if warnings else "")])
    if signals:
        return EXIT_SIGNAL_BASE + signals[0], ending
    if verdict is not None:
        if not verdict.passed:
            return EXIT_EXPECTATION_FAILED, ending
        return (EXIT_FINISHED if verdict.run_as_expected(status, errors, by == "the scenario")
                else EXIT_FAILED), ending
    return (EXIT_FINISHED if status == "FINISHED" and not errors else EXIT_FAILED), ending


def _end_line(name: str, status: str, by: str, seconds: float, errors: int,
              last_error: str, warnings: int, last_warning: str) -> str:
    """``wave_hello: FINISHED in 4.2 s, no errors`` (see the module doc); ``by``: what
    stopped it (a signal's name, "the scenario"), if anything."""
    how = "%s by %s" % (status, by) if by else status
    if not errors:
        line = "%s: %s in %.1f s, no errors" % (name, how, seconds)
    else:
        line = "%s: %s in %.1f s with %d error%s (last: %s)" % (
            name, how, seconds, errors, "" if errors == 1 else "s", last_error)
    if warnings:
        line += ", %d warning%s (last: %s)" % (warnings, "" if warnings == 1 else "s",
                                               last_warning)
    return line
