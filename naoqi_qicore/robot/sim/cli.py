"""``naoqi_sim``: run a simulated NAO or Pepper until SIGINT/SIGTERM.

Prints ``naoqi_sim: listening on <URL>`` once clients can connect (the URL has the real
port when ``--listen`` asks for port 0), then serves until interrupted and exits 0.
``--ready-fd FD`` also writes that URL, one line, to the inherited descriptor FD and closes
it: how the program that started it learns its port, and that its own simulator (not another
program on that port) is ready.

``--scenario FILE|generic`` plays a scenario (:mod:`naoqi_qicore.robot.sim.scenario`: what
people around the robot say and do), reporting each step on stderr; ``--interactive`` reads
what a person says and does from stdin (:mod:`naoqi_qicore.robot.sim.interactive`).  An
invalid scenario exits 2 before the robot starts.
"""
from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from typing import List, Optional

from naoqi_qicore.robot.console import say
from naoqi_qicore.robot.sim.context import ROBOTS
from naoqi_qicore.file_root import OutsideRootError
from naoqi_qicore.robot.sim.listen import ListenRefused
from naoqi_qicore.robot.sim.recorder import DEFAULT_LIMIT
from naoqi_qicore.robot.sim.robot import DEFAULT_URL, SimulatedRobot

READY_PREFIX = "naoqi_sim: listening on "


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError("expected a positive number, got %r" % text)
    return value


def _tell_ready(descriptor: int, url: str) -> None:
    """Write ``url`` (one line) to ``descriptor`` and close it; a reader gone is no error."""
    try:
        os.write(descriptor, (url + "\n").encode("utf-8"))
    except OSError:
        pass
    finally:
        try:
            os.close(descriptor)
        except OSError:
            pass


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="naoqi_sim", description="Simulated NAOqi robot (NAO or Pepper) on libqi.")
    parser.add_argument("--listen", default=DEFAULT_URL,
                        help="URL to listen on (default %(default)s; port 0: a free port)")
    parser.add_argument("--robot", choices=ROBOTS, default="nao", help="robot model")
    parser.add_argument("--record", metavar="FILE",
                        help="append every call to FILE as it starts and ends, the "
                             "clients' and the robot's own (JSON Lines)")
    parser.add_argument("--record-limit", type=_positive, default=DEFAULT_LIMIT, metavar="N",
                        help="keep the last N calls in memory for NaoqiSimRecorder "
                             "(default %(default)s; --record files get them all)")
    parser.add_argument("--scenario", metavar="FILE|generic",
                        help="play a scenario: a YAML file of what people say and do, or "
                             "'generic' (someone answers whatever the robot asks)")
    parser.add_argument("--interactive", action="store_true",
                        help="read what a person says (plain lines) and does (/touch head, "
                             "/face, /tablet X Y, /raise KEY VALUE, /help) from stdin")
    parser.add_argument("--root", metavar="DIR",
                        help="the folder of the robot's files (/home/nao/... is "
                             "DIR/home/nao/...), kept when it stops (default: a private "
                             "temporary folder, removed)")
    parser.add_argument("--allow-remote", action="store_true",
                        help="allow listening on a non-loopback address")
    parser.add_argument("--allow-eval", action="store_true",
                        help="let ALPythonBridge evaluate the Python code clients send (off "
                             "by default: any local process could run code with this "
                             "process's rights); only while listening on loopback")
    parser.add_argument("--ready-fd", type=int, metavar="FD",
                        help="once clients can connect, write the URL they connect to (one "
                             "line) to the inherited file descriptor FD and close it")
    parser.add_argument("--verbose", action="store_true", help="log libqi and service details")
    parser.add_argument("--ignore-sigint", action="store_true",
                        help="stop on SIGTERM only: a launcher that sends SIGINT to every "
                             "program (ros2 launch, Ctrl-C) stops the robot after the nodes "
                             "that use it")
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point of ``naoqi_sim`` and ``python -m naoqi_qicore.robot.sim``."""
    args = _parser().parse_args(argv)
    scenario = None
    if args.scenario:
        from naoqi_qicore.robot.sim.scenario import ScenarioError, load_scenario
        try:
            scenario = load_scenario(args.scenario, args.robot)
        except ScenarioError as error:
            say("naoqi_sim: %s" % error, sys.stderr)
            return 2
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="naoqi_sim: %(levelname)s: %(message)s", stream=sys.stderr)
    import qi
    qi.logging.setLevel(qi.logging.INFO if args.verbose else qi.logging.ERROR)

    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set())
                for sig in (signal.SIGINT, signal.SIGTERM)}
    if args.ignore_sigint:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    robot = SimulatedRobot(args.robot, args.listen, args.record, args.record_limit,
                           allow_remote=args.allow_remote, allow_eval=args.allow_eval,
                           root=args.root)
    try:
        try:
            robot.start()
        except ListenRefused as error:
            say("naoqi_sim: refusing to listen on %s (%s)%s" % (
                error.url, error.problem, "; pass --allow-remote to expose the simulated "
                "robot on the network" if error.remote else ""), sys.stderr)
            return 2
        except OutsideRootError as error:  # a folder of the robot's layout
            say("naoqi_sim: refusing the robot's files in %s: %s: %s" % (
                robot.root, error.filename, error.strerror), sys.stderr)
            return 2
        except OSError as error:
            say("naoqi_sim: cannot write %s: %s" % (error.filename or args.record,
                                                    error.strerror), sys.stderr)
            return 1
        except RuntimeError as error:
            say("naoqi_sim: cannot listen on %s: %s" % (args.listen, error), sys.stderr)
            return 1
        say(READY_PREFIX + robot.url)
        if args.ready_fd is not None:
            _tell_ready(args.ready_fd, robot.url)
        if scenario is not None:
            robot.play_scenario(scenario, lambda line: say("naoqi_sim: " + line, sys.stderr))
        if args.interactive:
            robot.interact(sys.stdin, sys.stdout)
        while not stop.wait(0.5):
            pass
    finally:
        robot.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0
