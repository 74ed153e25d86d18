"""Simulated ALServiceManager: the services installed applications declare, run as NAOqi
runs them.

An application's ``manifest.xml`` declares services (``<service name="Main"
execStart="scripts/main.py" autorun="false"/>``); NAOqi knows each as ``<package
id>.<name>`` (the bare name is accepted too, as NAOqi accepts it).  Starting one
(``startService``, or the installation of its application when it says ``autorun="true"``)
starts its ``execStart`` as a process of its own, in the application's folder, connected
to the robot: a Python script (``main.py``, ``/usr/bin/python2 scripts/main.py``, a
``python3nao`` launcher and its script...) runs in
:mod:`naoqi_qicore.robot.app_service_host` (Python 2 ported, only installed code and the
application's own folder importable).  What it prints goes to the robot's log under the
service's name (standard output at INFO, standard error at WARNING).

``serviceStarted(name)`` fires once its process runs, ``serviceStopped(name, reason)`` once
it has ended: :data:`STOPPED_ON_REQUEST` (``stopService``, ``restartService``, the robot
stopping: its whole process group is ended), :data:`EXITED` (it ended by itself, exit
status 0) or :data:`CRASHED`.  A crashed autorun service is started again, unless it
crashed 5 times within 10 s (as NAOqi does).

A service that cannot start (its program is not in the application, or is no Python
script) and one that crashes is a *failure*: the robot's log tells it, with the service's
traceback, and the robot's ``NaoqiSimApps`` service tells it to the program running the
behavior (:mod:`naoqi_qicore.robot.sim.control`), where it is an error of the run.
"""
from __future__ import annotations

import itertools
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Deque, Dict, List, Optional, Tuple

import qi

from naoqi_qicore.converter.writer import ENTRY_POINT, MAIN_PY
from naoqi_qicore.robot.robot_apps import INSTALL_STAMP, AppService, app_services
from naoqi_qicore.robot.robot_files import APPS
from naoqi_qicore.robot.sim.services.module import SimModule

#: ``serviceStopped`` reasons: stopped by stopService, restartService or the robot's end
STOPPED_ON_REQUEST = 0
#: ... it ended by itself (exit status 0)
EXITED = 1
#: ... it crashed (another exit status, or a signal the robot did not send)
CRASHED = 2
#: the program that runs a service's Python script
HOST_MODULE = "naoqi_qicore.robot.app_service_host"
#: seconds a stopped service gets to end after SIGTERM, before SIGKILL
STOP_GRACE_S = 2.0
#: an autorun service that crashed this many times within RESTART_WINDOW_S is not
#: started again
MAX_CRASHES, RESTART_WINDOW_S = 5, 10.0
#: how long the installation of an application waits for each of its autorun services to
#: register a service (or end): services it registers are there for the boxes that follow
AUTORUN_READY_S = 5.0
#: lines of a service's standard error kept to tell its crash
STDERR_LINES = 200
_PYTHON = re.compile(r"python(\d(\.\d+)?)?$")
#: launchers of other applications that run the Python script they are given
_PYTHON_LAUNCHERS = ("runpy3.sh", "runpy2.sh")


class ServiceStartError(ValueError):
    """A declared service whose ``execStart`` the simulated robot cannot run."""


def python_command(service: AppService, app_folder: Path) -> Tuple[Path, List[str]]:
    """The Python script (in ``app_folder``) and the arguments ``service``'s execStart
    runs; :class:`ServiceStartError` saying why when it names no Python script of the
    application."""
    try:
        words = shlex.split(service.exec_start)
    except ValueError as error:
        raise ServiceStartError("execStart %r is no command line: %s"
                                % (service.exec_start, error)) from None
    program = os.path.basename(words[0])
    if _PYTHON.match(program) or program in _PYTHON_LAUNCHERS:
        arguments = [word for word in words[1:] if not word.startswith("-")][:1]
        if not arguments:
            raise ServiceStartError("execStart %r runs %s without a script"
                                    % (service.exec_start, program))
        script = arguments[0]
        rest = words[words.index(script) + 1:]
    else:
        script, rest = words[0], words[1:]
    local = _app_file(service, app_folder, script)
    if not local.name.endswith(".py") and not _python_shebang(local):
        raise ServiceStartError("execStart %r runs %s, which is no Python script: the "
                                "simulated robot runs Python services only"
                                % (service.exec_start, script))
    return local, rest


def _app_file(service: AppService, app_folder: Path, script: str) -> Path:
    """The application's file ``script`` (relative to its folder, or the robot's absolute
    path of a file in it)."""
    robot_folder = "%s/%s" % (APPS, service.package_id)
    if script.startswith(robot_folder + "/"):
        script = script[len(robot_folder) + 1:]
    folder = app_folder.resolve()
    local = (folder / script).resolve()
    if script.startswith("/") or folder not in local.parents:
        raise ServiceStartError("execStart %r names %s, which is not in the application's "
                                "folder %s/" % (service.exec_start, script, robot_folder))
    missing = "execStart %r names %s, which the application does not have (no file %s/%s)" \
        % (service.exec_start, script, robot_folder, script)
    if not local.is_file():
        raise ServiceStartError(missing)
    if local.name == ENTRY_POINT and local.read_bytes() == MAIN_PY.encode("utf-8"):
        raise ServiceStartError(missing + ": the %s there is the converted behavior's entry "
                                "point" % ENTRY_POINT)
    return local


def _python_shebang(path: Path) -> bool:
    try:
        with open(path, "rb") as stream:
            first = stream.readline(200)
    except OSError:
        return False
    return first.startswith(b"#!") and b"python" in first


def _kill_group(group: int, number: int = signal.SIGKILL) -> None:
    """Send signal ``number`` to the process group ``group`` (by default: end it)."""
    try:
        os.killpg(group, number)
    except (ProcessLookupError, PermissionError):
        pass


def _traceback(lines: List[str]) -> str:
    """The last Python traceback in a service's standard error (its last lines if none)."""
    starts = [index for index, line in enumerate(lines)
              if line.startswith("Traceback (most recent call last)")]
    return "\n".join(lines[starts[-1]:] if starts else lines[-20:])


@dataclass
class _Running:
    """A service's process and what it printed."""

    service: AppService
    process: "subprocess.Popen[bytes]"
    autorun: bool
    stderr: Deque[str] = field(default_factory=lambda: deque(maxlen=STDERR_LINES))
    stop_requested: bool = False
    readers: List[threading.Thread] = field(default_factory=list)
    #: set once its end is told: no longer running, ``serviceStopped`` sent
    told: threading.Event = field(default_factory=threading.Event)


class ALServiceManager(SimModule):
    """Services of installed applications, started and stopped by name (module doc).

    Signals: ``serviceStarted(name)`` and ``serviceStopped(name, reason)``.
    """

    NAME = "ALServiceManager"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._running: Dict[str, _Running] = {}
        self._starts: Dict[str, int] = {}
        self._crashes: Dict[str, List[float]] = {}
        #: the install stamp of each application whose autorun services were started
        self._installed: Dict[str, str] = {}
        self._failures: Dict[str, List[Dict[str, Any]]] = {}
        self._failure_ids = itertools.count(1)
        self._failure_watchers: List[Callable[[Dict[str, Any]], None]] = []
        self._closed = False
        self.serviceStarted = qi.Signal("(s)")
        self.serviceStopped = qi.Signal("(si)")

    # -- the declared services ---------------------------------------------------------------
    def _declared(self) -> List[AppService]:
        """Every service of every installed application."""
        apps = self._sim.files.apps
        declared: List[AppService] = []
        for entry in sorted(apps.iterdir()) if apps.is_dir() else []:
            if entry.name.startswith(".") or not entry.is_dir() or entry.is_symlink():
                continue
            declared += app_services(entry.name, entry)
        return declared

    def _find(self, method: str, name: str) -> AppService:
        """The service ``name`` (``<package id>.<name>``, or a bare name); a NAOqi-style
        error when no installed application declares it."""
        declared = self._declared()
        found = [service for service in declared if service.full_name == name] or [
            service for service in declared if service.name == name]
        if not found:
            raise self._error(method, "no service named '%s' in the installed applications"
                              % name)
        return found[0]

    # -- failures ---------------------------------------------------------------------------
    def _fail(self, service: AppService, message: str, traceback: str = "") -> None:
        """Tell a failure of ``service``: the robot's log, then those watching failures."""
        failure = {"id": next(self._failure_ids), "package": service.package_id,
                   "service": service.full_name, "message": message,
                   "traceback": traceback}
        with self._lock:
            self._failures.setdefault(service.package_id, []).append(failure)
            watchers = list(self._failure_watchers)
        self._sim.log.error("service %s: %s%s", service.full_name, message,
                            "\n" + traceback if traceback else "")
        for watcher in watchers:
            watcher(failure)

    def _package_failures(self, package: str) -> List[Dict[str, Any]]:
        """The failures of ``package``'s services since it was last installed."""
        with self._lock:
            return list(self._failures.get(package, []))

    def _watch_failures(self, watcher: Callable[[Dict[str, Any]], None]) -> None:
        """Call ``watcher(failure)`` on every new failure (a dict: id, package, service,
        message, traceback)."""
        with self._lock:
            self._failure_watchers.append(watcher)

    # -- processes --------------------------------------------------------------------------
    def _robot_url(self) -> str:
        """A URL of the robot for its services (a loopback one when it has one)."""
        endpoints = list(self._sim.endpoints)
        loopback = [url for url in endpoints if url.startswith("tcp://127.0.0.1:")]
        if not (loopback or endpoints):
            raise RuntimeError("the robot does not listen yet")
        return (loopback or endpoints)[0]

    def _spawn(self, method: str, service: AppService, autorun: bool) -> bool:
        """Start ``service``'s process; False (and a failure) when it cannot start.  The
        process starts in the application's folder as opened from the robot files' handle
        (a link leading out of them is refused), and finds it from there, not by a path
        looked up again."""
        app_folder = self._sim.files.apps / service.package_id
        try:
            script, arguments = python_command(service, app_folder)
            with self._sim.files.apps_folder() as apps:
                app = apps.folder(service.package_id)
        except (ServiceStartError, OSError) as error:
            self._fail(service, str(error))
            return False
        command = [sys.executable, "-I", "-B", "-u", "-m", HOST_MODULE,
                   "--app", ".", "--root", str(self._sim.files.root),
                   "--qi-url", self._robot_url(),
                   str(script.relative_to(app_folder.resolve()))] + arguments
        with app, self._lock:
            if self._closed:
                raise self._error(method, "the robot is shutting down")
            if service.full_name in self._running:
                return False
            process = subprocess.Popen(command, cwd="/proc/self/fd/%d" % app.fileno(),
                                       pass_fds=(app.fileno(),), stdin=subprocess.DEVNULL,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       start_new_session=True)
            running = _Running(service, process, autorun)
            self._running[service.full_name] = running
            self._starts[service.full_name] = self._starts.get(service.full_name, 0) + 1
        log = self._sim.log.getChild(service.full_name)
        running.readers = [
            threading.Thread(target=self._read, args=(process.stdout, log.info, None),
                             daemon=True, name="%s stdout" % service.full_name),
            threading.Thread(target=self._read, args=(process.stderr, log.warning,
                                                      running.stderr),
                             daemon=True, name="%s stderr" % service.full_name)]
        for reader in running.readers:
            reader.start()
        threading.Thread(target=self._watch, args=(running,), daemon=True,
                         name="%s process" % service.full_name).start()
        self.serviceStarted(service.full_name)
        return True

    @staticmethod
    def _read(stream: Any, log: Callable[..., None], kept: Optional[Deque[str]]) -> None:
        """Log each line a service prints (and keep those of its standard error)."""
        for raw in iter(stream.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\n")
            log("%s", line)
            if kept is not None:
                kept.append(line)
        stream.close()

    def _watch(self, running: _Running) -> None:
        """Wait for a service's process to end, end what it left running in its process
        group; tell how it ended."""
        try:
            restart = self._tell_end(running)
        finally:
            running.told.set()
        if restart:
            self._spawn("autorun", running.service, autorun=True)

    def _tell_end(self, running: _Running) -> bool:
        """Once a service's process has ended: forget it, tell how it ended; whether it is
        an autorun service to start again."""
        status = running.process.wait()
        _kill_group(running.process.pid)
        for reader in running.readers:  # what it printed last, before its end is told
            reader.join(STOP_GRACE_S)
        name = running.service.full_name
        with self._lock:
            if self._running.get(name) is running:
                del self._running[name]
            requested, closed = running.stop_requested, self._closed
        if requested:
            reason = STOPPED_ON_REQUEST
        elif status == 0:
            reason = EXITED
        else:
            reason = CRASHED
            how = "exit status %d" % status if status > 0 else "signal %d" % -status
            self._fail(running.service, "crashed (%s)" % how, _traceback(list(running.stderr)))
        self.serviceStopped(name, reason)
        return reason == CRASHED and running.autorun and not closed \
            and self._may_restart(name)

    def _may_restart(self, name: str) -> bool:
        """An autorun service crashed: whether it may start again (not 5 crashes in 10 s)."""
        now = time.monotonic()
        with self._lock:
            crashes = [when for when in self._crashes.get(name, [])
                       if now - when < RESTART_WINDOW_S] + [now]
            self._crashes[name] = crashes
        return len(crashes) < MAX_CRASHES

    def _end(self, running: _Running) -> None:
        """End a service's whole process group: SIGTERM, then SIGKILL after
        :data:`STOP_GRACE_S`; returns once it has ended and its end is told (it is no
        longer running, ``serviceStopped`` is sent)."""
        running.stop_requested = True
        _kill_group(running.process.pid, signal.SIGTERM)
        try:
            running.process.wait(STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            pass
        _kill_group(running.process.pid)  # it, if still there, and what it left behind
        running.process.wait()
        running.told.wait()

    # -- applications -----------------------------------------------------------------------
    def _app_installed(self, package: str) -> None:
        """Application ``package`` was installed (again): its failures are forgotten, its
        services restarted when its files changed, and its autorun services started; returns
        once each registered a service on the robot, ended, or after
        :data:`AUTORUN_READY_S`."""
        try:
            stamp = (self._sim.files.apps / package / INSTALL_STAMP).read_text(
                encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            stamp = ""
        with self._lock:
            self._failures.pop(package, None)
            changed = self._installed.get(package) not in (None, stamp)
            self._installed[package] = stamp
            stale = [running for running in self._running.values()
                     if running.service.package_id == package] if changed else []
        for running in stale:
            self._stop(running.service.full_name)
        started = [service for service in app_services(package, self._sim.files.apps / package)
                   if service.autorun and self._spawn("autorun", service, autorun=True)]
        deadline = time.monotonic() + AUTORUN_READY_S
        for service in started:
            self._await_registration(service.full_name, deadline)

    def _await_registration(self, name: str, deadline: float) -> None:
        """Wait until the process of service ``name`` registered a service on the robot or
        ended, at most until ``deadline``."""
        directory = self._sim.service("ServiceDirectory") if self._sim.remote else None
        while time.monotonic() < deadline:
            with self._lock:
                running = self._running.get(name)
            if running is None or running.process.poll() is not None or directory is None:
                return
            if any(info["processId"] == running.process.pid for info in directory.services()):
                return
            time.sleep(0.05)

    # -- NAOqi's methods --------------------------------------------------------------------
    def startService(self, name: str) -> bool:
        """Start a service of an installed application; False when it runs already or
        cannot start (why is told as a failure)."""
        service = self._find("startService", name)
        if self.isServiceRunning(service.full_name):
            return False
        return self._spawn("startService", service, autorun=False)

    def _stop(self, name: str) -> bool:
        with self._lock:
            running = self._running.get(name)
        if running is None:
            return False
        self._end(running)
        return True

    def stopService(self, name: str) -> bool:
        """Stop a service (its whole process group); False when it was not running."""
        return self._stop(self._find("stopService", name).full_name)

    def restartService(self, name: str) -> bool:
        """Stop a service if it runs, then start it."""
        service = self._find("restartService", name)
        self._stop(service.full_name)
        return self._spawn("restartService", service, autorun=False)

    def isServiceRunning(self, name: str) -> bool:
        """True while the service's process runs."""
        with self._lock:
            if name in self._running:
                return True
        full_name = self._find("isServiceRunning", name).full_name
        with self._lock:
            return full_name in self._running

    def _info(self, service: AppService) -> Dict[str, Any]:
        with self._lock:
            running = self._running.get(service.full_name)
            return {"name": service.full_name, "execStart": service.exec_start,
                    "autorun": service.autorun, "running": running is not None,
                    "pid": running.process.pid if running is not None else 0,
                    "starts": self._starts.get(service.full_name, 0)}

    def services(self) -> List[Dict[str, Any]]:
        """``{"name", "execStart", "autorun", "running", "pid", "starts"}`` of every service
        of the installed applications."""
        return [self._info(service) for service in self._declared()]

    def service(self, name: str) -> Dict[str, Any]:
        """What :meth:`services` tells of one service."""
        return self._info(self._find("service", name))

    def close(self) -> None:
        """The robot stops: every service's process group is ended."""
        super().close()
        with self._lock:
            self._closed = True
            running = list(self._running.values())
        for entry in running:
            self._end(entry)

