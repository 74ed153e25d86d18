"""The simulated robot: every simulated service in a standalone libqi service directory.

Clients reach it with their own ``qi.Session().connect(robot.url)`` exactly as a real NAO or
Pepper.  It has files of its own (:mod:`naoqi_qicore.robot.robot_files`): NAOqi's layout
under a root folder, by default a fresh private temporary folder removed when the robot
stops.  Besides the NAOqi services it registers six services of its own (not recorded):

* ``NaoqiSimRecorder``: ``calls(sinceIndex=0) -> [entry]``, ``count()``, ``clear()``,
  ``dropped()`` (the call record, see :mod:`naoqi_qicore.robot.sim.recorder`);
* ``NaoqiSimActivities``: activities ALAutonomousLife knows (see
  :mod:`naoqi_qicore.robot.sim.control`);
* ``NaoqiSimPerception``: what the robot hears, sees and feels (see
  :mod:`naoqi_qicore.robot.sim.senses`);
* ``NaoqiSimScenario``: the scenario played, told about the run by a program in another
  process, and the verdict of its expectations (see :mod:`naoqi_qicore.robot.sim.control`);
* ``NaoqiSimFiles``: where its files are (see :mod:`naoqi_qicore.robot.sim.control`);
* ``NaoqiSimApps``: the applications installed in its files and the failures of their
  services (see :mod:`naoqi_qicore.robot.sim.control`);
* ``NaoqiSimTasks``: the calls clients posted that failed (see
  :mod:`naoqi_qicore.robot.sim.control`).

Its services stay registered under their names: one a client unregisters is registered
again (:mod:`naoqi_qicore.robot.sim.registry`).

:meth:`SimulatedRobot.play_scenario` plays a scenario (:mod:`naoqi_qicore.robot.sim.scenario`)
against it and :meth:`SimulatedRobot.interact` lets a person at the keyboard talk to it
(:mod:`naoqi_qicore.robot.sim.interactive`); both stop with the robot.
"""
from __future__ import annotations

import logging
import secrets
import shutil
import tempfile
import threading
import time
import weakref
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, TextIO, Union
from urllib.parse import urlsplit

import qi

from naoqi_qicore.robot.robot_files import SIM_TOKEN_FILE, RobotFiles
from naoqi_qicore.robot.sim.context import ROBOTS, SimContext
from naoqi_qicore.robot.sim.control import (NaoqiSimActivities, NaoqiSimApps, NaoqiSimFiles,
                                            NaoqiSimRecorder, NaoqiSimScenario,
                                            NaoqiSimTasks)
from naoqi_qicore.robot.sim.facade import recording_facade
from naoqi_qicore.robot.sim.listen import (ListenRefused, endpoints_problem,
                                          libqi_listen_url, listen_url_problem,
                                          loopback_problem)
from naoqi_qicore.robot.sim.recorder import DEFAULT_LIMIT, CallRecord
from naoqi_qicore.robot.sim.registry import OwnServices
from naoqi_qicore.robot.sim.senses import NaoqiSimPerception

DEFAULT_URL = "tcp://127.0.0.1:9559"
#: where the service directory listens while the services register (a free loopback port)
PRIVATE_URL = "tcp://127.0.0.1:0"
#: how long stop() waits for libqi to let go of the registered objects
RELEASE_TIMEOUT_S = 5.0
_LOG = logging.getLogger("naoqi_sim")


def core_service_classes() -> Dict[str, type]:
    """ALMemory, ALMotion and ALAutonomousLife."""
    from naoqi_qicore.robot.sim.autonomous_life import ALAutonomousLife
    from naoqi_qicore.robot.sim.memory import ALMemory
    from naoqi_qicore.robot.sim.motion import ALMotion
    return {cls.NAME: cls for cls in (ALMemory, ALMotion, ALAutonomousLife)}


def other_service_classes(robot: str) -> Dict[str, type]:
    """The services of ``naoqi_qicore.robot.sim.services`` this robot has (none if absent)."""
    try:
        from naoqi_qicore.robot.sim.services import SERVICE_CLASSES
    except ModuleNotFoundError as error:
        if error.name != "naoqi_qicore.robot.sim.services":
            raise
        return {}
    return {name: cls for name, cls in SERVICE_CLASSES.items()
            if robot in getattr(cls, "ROBOTS", ROBOTS)}


class SimulatedRobot:
    """A simulated NAO or Pepper listening on ``listen`` (port 0: a free port).

    ``record``: a JSON Lines file that receives every call as it starts and ends (see
    :mod:`naoqi_qicore.robot.sim.recorder`);
    ``record_limit``: how many calls are kept in memory (:meth:`calls`).
    ``allow_remote``: listen beyond loopback (else :meth:`start` refuses a URL, or what
    libqi bound for it, that is not loopback: :class:`ListenRefused`);
    ``allow_eval``: ALPythonBridge evaluates the code clients send (off: it refuses, since
    any local process could run code with this process's rights);
    ``root``: the folder of the robot's files (kept; by default a private temporary folder
    made at :meth:`start` and removed at :meth:`stop`).
    Use as a context manager, or call :meth:`start` then :meth:`stop`.
    """

    def __init__(self, robot: str = "nao", listen: str = DEFAULT_URL,
                 record: Optional[Union[str, Path]] = None,
                 record_limit: int = DEFAULT_LIMIT, *, allow_remote: bool = False,
                 allow_eval: bool = False, root: Optional[Union[str, Path]] = None) -> None:
        if robot not in ROBOTS:
            raise ValueError("robot must be one of %s, got %r" % (", ".join(ROBOTS), robot))
        self.robot = robot
        self.listen = listen
        self.allow_remote = allow_remote
        self.allow_eval = allow_eval
        self.root = Path(root) if root is not None else None
        self._temporary_root: Optional[Path] = None
        self._services: Optional[OwnServices] = None
        self.record_path = Path(record) if record else None
        self.record_limit = record_limit
        self._session: Optional[Any] = None
        self._context: Optional[SimContext] = None
        self._record: Optional[CallRecord] = None
        self._url = ""
        self._registered: List[weakref.ref] = []
        self._perception: Optional[NaoqiSimPerception] = None
        self._attached: List[Callable[[], None]] = []  # stopped first when the robot stops
        self._scenario: Optional[Any] = None  # the ScenarioRunner playing, if any
        self._lock = threading.Lock()

    # -- life cycle -------------------------------------------------------------------------
    def start(self) -> "SimulatedRobot":
        """Build the services, listen and register them; returns self.

        :class:`ListenRefused` for a listen URL it does not take, or (without
        ``allow_remote``) one that is not loopback or for which libqi bound a non-loopback
        address; ``RuntimeError`` when libqi cannot listen."""
        problem = listen_url_problem(self.listen)
        if problem is not None:
            raise ListenRefused(self.listen, problem)
        problem = None if self.allow_remote else loopback_problem(self.listen)
        if problem is not None:
            raise ListenRefused(self.listen, problem, remote=True)
        try:
            listen = libqi_listen_url(self.listen)
        except ValueError as error:
            raise ListenRefused(self.listen, str(error)) from None
        with self._lock:
            if self._session is not None:
                raise RuntimeError("the simulated robot is already started")
            core = core_service_classes()
            classes = {name: cls for name, cls in other_service_classes(self.robot).items()
                       if name not in core}
            classes.update(core)
            self._record = CallRecord(self.record_path, self.record_limit)
            self._context = SimContext(self.robot, classes, _LOG)
            self._context.allow_eval = self.allow_eval
            self._context.record = self._record
            token = secrets.token_hex(16)
            try:
                self._context.files = self._files(token)
            except OSError:
                self._close()
                raise
            self._session = qi.Session()
            try:
                self._serve(list(core), token, listen)
            except Exception:
                self._close()
                raise
        _LOG.info("simulated %s listening on %s", self.robot, self._url)
        return self

    def _files(self, token: str) -> RobotFiles:
        """The robot's files, in ``root`` or a new private temporary folder, its
        :data:`~naoqi_qicore.robot.robot_files.SIM_TOKEN_FILE` holding ``token``."""
        if self.root is None:
            self._temporary_root = Path(tempfile.mkdtemp(prefix="naoqi_sim_root_"))
        files = RobotFiles(self.root if self.root is not None else self._temporary_root)
        files.tree.write_bytes(SIM_TOKEN_FILE, token.encode("utf-8"))
        return files

    @property
    def files(self) -> RobotFiles:
        """The robot's files (see :mod:`naoqi_qicore.robot.robot_files`)."""
        return self._started().files

    def _serve(self, first: List[str], token: str, listen: str) -> None:
        """Build every service (``first`` first), register them, then listen on ``listen``
        (the canonical URL): a client finds every service as soon as it can connect (the
        services register in a service directory listening on a loopback port of its own
        until then)."""
        assert self._session is not None and self._context is not None
        self._session.listenStandalone(PRIVATE_URL)
        private = set(self._session.endpoints())
        self._register(first, token)
        self._session.listen(listen)
        endpoints = list(self._session.endpoints())
        problem = None if self.allow_remote else endpoints_problem(endpoints)
        if problem is not None:  # checked on what libqi bound, before anything else
            raise ListenRefused(self.listen, "libqi listens on %s: %s" % (
                ", ".join(endpoint for endpoint in endpoints if endpoint not in private)
                or "nothing", problem), remote=True)
        self._context.endpoints = endpoints  # ALPythonBridge evaluates only on loopback
        self._url = self._listening_url(
            [endpoint for endpoint in endpoints if endpoint not in private], listen)

    def _register(self, first: List[str], token: str) -> None:
        """Build every service (``first`` first) and register it in the service directory.
        Only the session and weak references hold the services once this returns: the
        traceback of a start refused afterwards keeps none of them, so that its stop does
        not wait for libqi to let them go."""
        assert self._session is not None and self._context is not None
        assert self._record is not None
        self._context.remote = self._session.service
        served = {name: recording_facade(name, service, self._record)
                  for name, service in self._context.build_all(order=first).items()}
        self._perception = NaoqiSimPerception(self._context)
        for control in (NaoqiSimRecorder(self._context, self._record),
                        NaoqiSimActivities(self._context),
                        NaoqiSimScenario(self._context, lambda: self._scenario),
                        self._perception, NaoqiSimFiles(self._context, token),
                        NaoqiSimApps(self._context), NaoqiSimTasks(self._context)):
            served[control.NAME] = recording_facade(control.NAME, control)  # not recorded
        self._services = OwnServices(self._session, _LOG)
        for name, served_object in served.items():
            self._services.register(name, served_object)
            self._registered.append(weakref.ref(served_object))
        self._services.watch()

    @staticmethod
    def _listening_url(endpoints: List[str], listen: str) -> str:
        """The endpoint matching the scheme and host of ``listen`` (real port)."""
        wanted = urlsplit(listen)
        for endpoint in endpoints:
            parts = urlsplit(endpoint)
            if parts.scheme == wanted.scheme and parts.hostname == wanted.hostname:
                return endpoint
        return endpoints[0]

    def stop(self) -> None:
        """Stop every task and service, close the service directory and the record."""
        with self._lock:
            if self._session is not None:
                self._close()

    def _close(self) -> None:
        """Close what :meth:`start` opened (only this object may hold the session, so that
        dropping it lets libqi release the registered objects)."""
        assert self._context is not None and self._record is not None
        attached, self._attached = self._attached, []
        while attached:  # scenarios and consoles, newest first, before the services
            attached.pop()()
        if self._perception is not None:
            self._perception.close()
            self._perception = None
        if self._services is not None:
            self._services.close()
            self._services = None
        self._context.remote = None
        self._context.close()
        if self._session is not None:
            self._session.close()
        self._session = None
        # libqi lets go of the registered objects from its own threads once the session is
        # gone: wait for it, so that no libqi thread runs this robot's Python code afterwards
        deadline = time.monotonic() + RELEASE_TIMEOUT_S
        while any(ref() is not None for ref in self._registered) and time.monotonic() < deadline:
            time.sleep(0.005)
        self._registered = []
        self._record.close()
        self._context = self._record = None
        if self._temporary_root is not None:
            shutil.rmtree(self._temporary_root, ignore_errors=True)
            self._temporary_root = None

    def __enter__(self) -> "SimulatedRobot":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # -- access -----------------------------------------------------------------------------
    def _started(self) -> SimContext:
        if self._context is None:
            raise RuntimeError("the simulated robot is not started")
        return self._context

    @property
    def url(self) -> str:
        """The URL clients connect to (with the real port)."""
        self._started()
        return self._url

    @property
    def context(self) -> SimContext:
        """What the services share (tasks, clock, other services)."""
        return self._started()

    def service(self, name: str) -> Any:
        """The in-process Python object of service ``name``."""
        return self._started().service(name)

    def services(self) -> List[str]:
        """Names of the simulated NAOqi services."""
        return self._started().names()

    def calls(self, since_index: int = 0) -> List[Dict[str, Any]]:
        """The recorded calls kept in memory, the last ``record_limit``: the clients' and the
        robot's own, running ones included (entries as in
        :mod:`naoqi_qicore.robot.sim.recorder`); :meth:`dropped_calls` says how many older
        ones were let go."""
        self._started()
        assert self._record is not None
        return self._record.since(since_index)

    def dropped_calls(self) -> int:
        """How many of the oldest calls are no longer kept in memory (``record_limit``)."""
        assert self._record is not None, "the simulated robot is not started"
        return self._record.dropped()

    @property
    def perception(self) -> NaoqiSimPerception:
        """The robot's senses: ``hear``, ``touch``, ``face``... (see
        :mod:`naoqi_qicore.robot.sim.senses`)."""
        self._started()
        assert self._perception is not None
        return self._perception

    def play_scenario(self, scenario: Any, report: Optional[Callable[[str], None]] = None
                      ) -> Any:
        """Start playing ``scenario`` (a :class:`~naoqi_qicore.robot.sim.scenario.Scenario`);
        ``report`` receives a line per thing done.  Returns the
        :class:`~naoqi_qicore.robot.sim.scenario.ScenarioRunner` (it stops with the robot)."""
        from naoqi_qicore.robot.sim.scenario import ScenarioRunner
        scenario.check_robot(self.robot)
        with self._lock:
            self._started()
            assert self._record is not None
            runner = ScenarioRunner(self.perception, self.service("ALMemory"), self._record,
                                    scenario, report, service=self._context.service)
            self._attached.append(runner.stop)
            self._scenario = runner
        return runner.start()

    def interact(self, lines: TextIO, output: TextIO) -> Any:
        """Let a person talk to the robot: each line of ``lines`` is a perception, answers
        go to ``output`` (see :mod:`naoqi_qicore.robot.sim.interactive`).  Returns the
        console, reading in a background thread (it stops with the robot)."""
        from naoqi_qicore.robot.sim.interactive import Console
        with self._lock:
            console = Console(self.perception, self.service("ALMemory"), lines, output)
            self._attached.append(console.stop)
        return console.start()

    def withdraw_service(self, name: str) -> None:
        """Unregister the service ``name`` for good: a robot without it (a real robot has
        no ``NaoqiSimPerception``)."""
        with self._lock:
            self._started()
            assert self._services is not None
            self._services.withdraw(name)

    def register_activity(self, name: str, nature: str = "interactive",
                          duration_s: float = 0.0) -> None:
        """Install an activity for ALAutonomousLife (duration 0: runs until stopped)."""
        self.service("ALAutonomousLife")._register_activity(name, nature, duration_s)
