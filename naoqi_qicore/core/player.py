"""``BehaviorPlayer``: loads a converted behavior and plays it on a robot.

Loading builds every box (NAOqi: all boxes are constructed when a behavior loads) and
calls the root's ``onLoad``; playing stimulates the root's onStart in a thread of its own;
the behavior FINISHES when a Stopped output of the root fires (or the root's timeline
ends), fails (ERROR) when a method of the root fails, and :meth:`~BehaviorPlayer.stop`
unloads the root's content (the onUnload method of every loaded box runs, no onStop).
Status changes and what happens inside go to the listener as :class:`EngineEvent`.

A run lasts from :meth:`~BehaviorPlayer.play` to STOPPED, FINISHED or ERROR.  Its failures
are kept as :class:`~naoqi_qicore.core.events.BoxError` (:attr:`BehaviorPlayer.errors`),
what the user must know of it that did not fail it as
:class:`~naoqi_qicore.core.events.RunWarning` (:attr:`BehaviorPlayer.warnings`); both
start with what loading the behavior (and the time until its first play) said.
When it ends, no code of the behavior runs any more: box code gets :data:`STOP_GRACE`
seconds to return by itself, then the :class:`~naoqi_qicore.core.guard.BoxCodeGuard` ends
it, and what still runs :data:`STOP_DEADLINE` seconds after the end is an error of the run
(the onUnload methods of a stop each get ``box.UNLOAD_SECONDS`` from when they began to
run; a busy machine gets until :data:`STOP_LIMIT` to let the threads it kept from a CPU
end).
A run that ended by itself is closed once the robot answered its last motion calls (at
most :data:`MOTION_ANSWER_WAIT` seconds later): a timeline's last segment ends with it.

A robot that is starting registers its services one after the other: given
``await_services``, loading waits for the services the box code calls
(:mod:`~naoqi_qicore.core.robot_services`) before it builds the boxes, and each one the
robot still does not offer is an error of every run of that load.
"""
from __future__ import annotations

import gc
import itertools
import logging
import os
import random
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Set, Tuple, Union

from naoqi_qicore.core.box import BoxNode, DiagramNode
from naoqi_qicore.core.box_paths import (box_path_builtins, box_path_modules,
                                         box_tempfile_module)
from naoqi_qicore.core.box_stdlib import box_stdlib_modules
from naoqi_qicore.core.clock import Clock, MonotonicClock
from naoqi_qicore.core.dependencies import MissingDependencies, missing_dependencies
from naoqi_qicore.core.dialog_box import DialogBox, is_dialog_box
from naoqi_qicore.core.environment import (BehaviorContext, BoxEnvironmentFactory,
                                           bare_environment)
from naoqi_qicore.core.events import (WHERE_ROBOT_SERVICE, WHERE_SCRIPT, WHERE_STOP,
                                      BehaviorLoadError, BoxError, EngineEvent, GotoError,
                                      Listener, RunWarning)
from naoqi_qicore.core.generated import FrameManager, GeneratedClass, box_class, package_info
from naoqi_qicore.core.guard import ENDING_SECONDS, BehaviorStopped, BoxCodeGuard, Straggler
from naoqi_qicore.core.motion import ALMotionSink, MotionSink, RobotJointFilter
from naoqi_qicore.core.project_modules import (ProjectModules, install_project_modules,
                                               package_folder)
from naoqi_qicore.core.py2 import PY2_SYS
from naoqi_qicore.core.resources import ResourceManager
from naoqi_qicore.core.robot_services import ENGINE_SERVICES, ServiceNames, service_names
from naoqi_qicore.core.script import (ScriptNamespace, box_builtins, forget_box_scripts,
                                      script_key)
from naoqi_qicore.core.statemachine import TransitionQueue
from naoqi_qicore.core.tasks import TaskRunner
from naoqi_qicore.xar.elements import collector_paused
from naoqi_qicore.xar.model import Box, InputNature

_LOG = logging.getLogger(__name__)
#: seconds box code gets to return by itself when a run ends; then the guard ends it (the
#: onUnload methods of a stop excepted: each one has ``box.UNLOAD_SECONDS`` from its start)
STOP_GRACE = 0.5
#: seconds after the end of a run from which no box code runs (what does is an error),
#: unless onUnload methods still had time then: they are ended :data:`ENDING_SECONDS`
#: before their time is up, what still runs once it is up is an error
STOP_DEADLINE = 0.9
#: seconds after the end of a run from which no box code runs, whatever the machine's load:
#: a stop never lasts longer
STOP_LIMIT = 3.0
#: seconds a run that ended by itself waits for the robot to answer its last motion calls
MOTION_ANSWER_WAIT = 2.0
#: errors kept for one run (the oldest are dropped beyond; ``error_count`` counts them all)
MAX_RUN_ERRORS = 1000
#: warnings kept for one run (the oldest are dropped beyond; ``warning_count`` counts them)
MAX_RUN_WARNINGS = 1000
#: waits (bounded) until the robot offers the named services; returns those it does not
ServiceWaiter = Callable[[List[str]], List[str]]
_behavior_ids = itertools.count(1)
#: attribute of an exception that caused an error of a run: that error
_RECORDED_AS = "_naoqi_qicore_recorded_as"


class BehaviorPlayer:
    """Plays one behavior (a ``converter.loader.LoadedBehavior``) on ``session``'s robot.

    ``clock`` schedules timeline frames (default: monotonic time); ``motion`` receives
    motion segments (default: ALMotion on ``session``); ``listener`` receives
    :class:`EngineEvent`; ``environment`` provides box scripts with ``naoqi``/``almath``
    and friends (default: nothing beyond the engine's own names); ``resources`` is shared
    between the players of one process that compete for the robot (default: own one);
    ``await_services`` waits for the robot's services before the boxes load (default: no
    wait).
    """

    def __init__(self, loaded: Any, session: Any, *, clock: Optional[Clock] = None,
                 motion: Optional[MotionSink] = None, listener: Optional[Listener] = None,
                 environment: Optional[BoxEnvironmentFactory] = None,
                 resources: Optional[ResourceManager] = None,
                 await_services: Optional[ServiceWaiter] = None) -> None:
        self.loaded = loaded
        self.session = session
        self.clock: Clock = clock or MonotonicClock()
        #: where timelines send their motion: the joints the robot lacks left out
        self.motion: MotionSink = RobotJointFilter(
            motion if motion is not None else ALMotionSink(session), session)
        self.resources = resources or ResourceManager()
        self._listener = listener
        self._environment = environment or bare_environment
        self._await_services = await_services
        self._robot_services: Optional[Dict[str, List[str]]] = None
        self._close_environment: Optional[Callable[[], None]] = None
        self._stop_robot_work: Optional[Callable[[], None]] = None
        self.behavior_id = "behavior-%d" % next(_behavior_ids)
        own_folder = _behavior_folder(loaded)
        self.behavior_path = own_folder or os.getcwd()
        #: the project's folder (its modules are imported as box code's, see
        #: ``project_modules``); None when the behavior has no folder of its own
        self.project_folder: Optional[str] = (package_folder(own_folder)
                                              if own_folder is not None else None)
        self._project_modules: Optional[ProjectModules] = None
        #: modules the box environment gives box code (set by :meth:`load`)
        self._provided_modules: List[str] = []
        self.package_uid, self.behavior_relative_path = package_info(self.behavior_path)
        self.frame_manager = FrameManager(self, self.box_named)
        #: the session box scripts get from ``self.session()`` (set by :meth:`load`)
        self.box_session: Any = session
        self.lock = threading.RLock()
        self._status_changed = threading.Condition(self.lock)
        self._status = "IDLE"
        self._last_error = ""
        self.guard = BoxCodeGuard(self.behavior_id, self._box_path_of)
        self._errors_lock = threading.Lock()
        self._load_errors: List[BoxError] = []
        self._errors: List[BoxError] = []
        self._error_count = 0
        self._load_warnings: List[RunWarning] = []
        self._warnings: List[RunWarning] = []
        #: (box path, where, message) of the run's warnings: each is said once a run
        self._warned: Set[Tuple[str, str, str]] = set()
        self._warning_count = 0
        self._closer: Optional[threading.Thread] = None
        self.stopping = False
        self.root: Optional[BoxNode] = None
        self._by_name: Dict[str, BoxNode] = {}
        #: (base, output names) -> the GeneratedClass the boxes of the load share
        self._box_classes: Dict[Tuple[type, Tuple[str, ...]], type] = {}
        #: script text -> its key, for the texts several boxes run (they share its code)
        self._shared_scripts: Dict[str, str] = {}
        self._paused: List[Any] = []
        self.transitions = TransitionQueue("transitions " + self.behavior_id, self._change_failed)
        self._runner = TaskRunner("box " + self.behavior_id)

    # -- read-only state -------------------------------------------------------------------
    @property
    def status(self) -> str:
        return self._status

    @property
    def last_error(self) -> str:
        """One line about the newest error of the run ("" when none)."""
        return self._last_error

    @property
    def errors(self) -> List[BoxError]:
        """The errors of the current (or last) run, oldest first (at most
        :data:`MAX_RUN_ERRORS`, the newest)."""
        with self._errors_lock:
            return list(self._errors)

    @property
    def error_count(self) -> int:
        """How many errors the current (or last) run had."""
        return self._error_count

    @property
    def warnings(self) -> List[RunWarning]:
        """The warnings of the current (or last) run, oldest first, each said once (at most
        :data:`MAX_RUN_WARNINGS`, the newest)."""
        with self._errors_lock:
            return list(self._warnings)

    @property
    def warning_count(self) -> int:
        """How many warnings the current (or last) run had."""
        return self._warning_count

    @property
    def frame(self) -> int:
        content = self.root.content if self.root is not None else None
        return content.frame if content is not None else 0

    @property
    def last_frame(self) -> int:
        """The frame of the root timeline shown last: where the last run ended once it
        has (a stopped or finished timeline is back at its start for the next play)."""
        content = self.root.content if self.root is not None else None
        if content is not None and content.timeline is not None:
            return content.timeline.last_frame
        return self.frame

    @property
    def fps(self) -> float:
        content = self.root.content if self.root is not None else None
        return content.timeline.fps if content is not None and content.timeline else 0.0

    @property
    def frame_count(self) -> int:
        """Frames of the root timeline (its end frame, else its editor size, else the end
        of its last state)."""
        content = self.root.content if self.root is not None else None
        if content is None:
            return 0
        if content.timeline is not None and content.timeline.end_frame >= 1:
            return content.timeline.end_frame
        size = self.root.model.timeline.size if self.root.model.timeline else None
        return size or (content.states[-1].end if content.states else 0)

    @property
    def labels(self) -> Dict[str, int]:
        content = self.root.content if self.root is not None else None
        return dict(content.labels) if content is not None else {}

    @property
    def state_names(self) -> List[str]:
        """Keyframe names of the root timeline's current state."""
        content = self.root.content if self.root is not None else None
        return content.current_labels() if content is not None else []

    @property
    def active_boxes(self) -> List[str]:
        return [box.path for box in self.boxes() if box.active]

    def boxes(self) -> Iterator[BoxNode]:
        """Every box, parents before children."""
        stack = [self.root] if self.root is not None else []
        while stack:
            box = stack.pop()
            yield box
            stack.extend(reversed(box.children()))

    def box_named(self, name: str) -> Optional[BoxNode]:
        """The box of an object name (``l1_Say``), or the root for the behavior's id."""
        if name == self.behavior_id:
            return self.root
        return self._by_name.get(name)

    def _box_object(self, name: str) -> Any:
        box = self.box_named(name)
        return box.instance if box is not None else None

    # -- control ---------------------------------------------------------------------------
    def load(self) -> None:
        """Build every box and load the root; reloads when already loaded.

        Raises :class:`BehaviorLoadError` when the root box cannot be built.
        """
        if self._status != "IDLE":
            self.unload()
        self.transitions = TransitionQueue("transitions " + self.behavior_id, self._change_failed)
        self._runner = TaskRunner("box " + self.behavior_id)
        self._last_error = ""
        self._load_errors, self._load_warnings = [], []
        self._reset_run()
        self.guard = BoxCodeGuard(self.behavior_id, self._box_path_of)
        context = BehaviorContext(self.session, self.frame_manager, self.behavior_id,
                                  self.behavior_path, self._box_object, self.guard,
                                  self.record_error, self.record_warning)
        environment = self._environment(context)
        self._close_environment = environment.close
        self._stop_robot_work = environment.stop
        self.box_session = environment.session if environment.session is not None \
            else self.session
        stdlib = box_stdlib_modules(self.guard)
        # box code names the robot's files (/home/nao/...) in its own file calls too
        paths = environment.paths
        stdlib.update(box_path_modules(paths) if paths is not None else {})
        if environment.temporary_folder is not None:
            stdlib["tempfile"] = box_tempfile_module(environment.temporary_folder)
        self._builtins = box_builtins(dict(environment.modules, **stdlib),
                                      box_path_builtins(paths))
        self._provided_modules = sorted(set(environment.modules) | set(stdlib))
        if self.project_folder is not None or paths is not None:
            # box code imports the project's modules (Python 2 ones ported) while loaded,
            # and finds the robot folders it puts on sys.path where they are mapped
            roots = ({self.project_folder, self.behavior_path}
                     if self.project_folder is not None else set())
            self._project_modules = install_project_modules(roots, self._builtins,
                                                            environment.modules, paths)
        # NAOqi ran box scripts where these were already imported; scripts rely on it
        names = {"ALFrameManager": self.frame_manager, "time": stdlib["time"],
                 "random": random, "os": stdlib.get("os", os), "sys": PY2_SYS}
        names.update(environment.names)
        self._scripts = ScriptNamespace(self._builtins, names)
        self._by_name = {}
        self._box_classes = {}
        with collector_paused():  # thousands of long-lived objects: collections only cost
            built: List[BoxNode] = []  # parents before children, as boxes() gives them
            self.root = self._build(self.loaded.behavior.root, None, None, built)
            sources = [self._script_source(box) for box in built]
            self._shared_scripts = _scripts_of_several_boxes(sources)
            self._wait_for_robot_services()
            for box, source in zip(built, sources):
                self._instantiate(box, source)
        if self.root.broken:
            self._close_project_modules()
            self._set_status("ERROR", self._last_error)
            raise BehaviorLoadError(self._last_error)
        with self.lock:
            self.root.load()
        self._set_status("LOADED")

    def play(self) -> None:
        """Start the behavior (root onStart); resumes when paused; no-op when playing.

        When the root's script has no method for its onStart input (the usual root, a
        container), the root starts in the calling thread: its first state is entered and
        the onLoad methods of that state's boxes run before play returns (the inputs they
        stimulate run in threads of their own).  A root with such a method starts in a box
        thread, like any input.
        """
        with self.lock:
            if self._status == "PLAYING":
                return
            if self._status == "PAUSED":
                self.resume()
                return
            if self._status not in ("LOADED", "STOPPED", "FINISHED"):
                raise RuntimeError("cannot play a behavior whose status is %s (load it first)"
                                   % self._status)
        self.wait_run_closed()
        with self.lock:
            if self._status not in ("LOADED", "STOPPED", "FINISHED"):
                raise RuntimeError("cannot play a behavior whose status is %s" % self._status)
            if self._status == "LOADED":  # what loading said, and what came until now
                self._load_errors, self._load_warnings = self.errors, self.warnings
            self._reset_run(self._load_errors, self._load_warnings)
            self.guard.open()
            self._set_status("PLAYING")
        if self._root_start_runs_user_code():
            self.run_task(self._start_root)
        else:
            self._start_root()

    def stop(self) -> None:
        """Stop the run as NAOqi stops a behavior: the root's content is unloaded (the
        ``onUnload`` method of every loaded box runs; no box's ``onInput_onStop`` does, no
        input or output goes anywhere any more), then no code of the behavior runs any
        more.  Box code gets :data:`STOP_GRACE` s to return by itself, then the guard ends
        it and closes the sockets it opened; each ``onUnload`` method runs, its robot calls
        allowed, for ``box.UNLOAD_SECONDS`` from its start; what still runs after
        :data:`STOP_DEADLINE` s (or once the onUnload methods' time is up) is an error of
        the run.  Returns within :data:`STOP_LIMIT` s, mostly within
        :data:`STOP_DEADLINE` s."""
        started = time.monotonic()
        deadline = started + STOP_DEADLINE
        if not self.lock.acquire(timeout=STOP_GRACE):
            # box code holds the engine (an onLoad that does not return): end it first
            self._end_box_code(deadline, started)
            if not self.lock.acquire(timeout=max(0.0, deadline - time.monotonic())):
                self._report_wedged(started)
                return
        try:
            if self._status not in ("PLAYING", "PAUSED"):
                return
            self.stopping = True
        finally:
            self.lock.release()
        try:
            if self.root is not None:
                self._unload_boxes(self.root.halt, started)
            else:
                self._end_box_code(deadline, started)
        finally:
            self.stopping = False
        self._paused = []
        self._set_status("STOPPED")

    def _unload_boxes(self, unload: Callable[[], None], started: float) -> None:
        """Run ``unload`` (it unloads boxes: their ``onUnload`` methods run in threads of
        their own, see ``BoxNode.unload``) in a thread of its own, and end the behavior's
        box code of a run that ended at the monotonic time ``started``: the rest of it
        :data:`STOP_GRACE` s later, each ``onUnload`` method :data:`ENDING_SECONDS`
        before its time is up; what still runs :data:`STOP_DEADLINE` s after ``started``
        or once their time is up is an error of the run."""
        grace, limit = started + STOP_GRACE, started + STOP_LIMIT
        watchdog = threading.Timer(max(0.0, grace - time.monotonic()), self.guard.shut,
                                   kwargs={"keep_stop_code": True})
        watchdog.daemon = True
        watchdog.start()
        try:
            unloading = self.guard.start_stop_code(unload, "unload " + self.behavior_id)
            self.guard.wait_stop_code(limit - ENDING_SECONDS)
        finally:
            watchdog.cancel()
        self._end_box_code(max(started + STOP_DEADLINE, time.monotonic() + ENDING_SECONDS),
                           started)
        unloading.join(limit)  # raises what the engine's unloading raised

    def _end_box_code(self, deadline: float, started: float) -> None:
        """Close the guard: end every thread running the behavior's box code and the work
        it left running on the robot (the box environment's ``stop``); threads still
        running box code at ``deadline`` (those only waiting for a CPU then: at the
        :data:`STOP_LIMIT` after ``started``, when the run ended) are errors of the run."""
        self._shut_box_code()
        for straggler in self.guard.close(deadline, started + STOP_LIMIT):
            self._report_straggler(straggler, time.monotonic() - started)

    def _shut_box_code(self) -> None:
        """Shut the guard, then stop the work box code left running on the robot."""
        self.guard.shut()
        if self._stop_robot_work is not None:
            try:
                self._stop_robot_work()
            except Exception as error:  # the robot may be gone: the stop goes on
                self.warn("stopping what box code left running on the robot: %s" % error)

    def _report_straggler(self, straggler: Straggler, seconds: float) -> None:
        self.record_error(BoxError(
            straggler.box_path, WHERE_STOP,
            "box code still runs %.1f s after the behavior stopped, blocked at %s (thread %s); "
            "its robot calls are refused" % (seconds, straggler.location,
                                             straggler.thread_name)))

    def _report_wedged(self, started: float) -> None:
        """The engine's lock stays held by box code that cannot be stopped."""
        self._shut_box_code()
        for straggler in self.guard.close(time.monotonic()):
            self._report_straggler(straggler, time.monotonic() - started)
        self.record_error(BoxError("root", WHERE_STOP, "the behavior cannot be stopped: box "
                                   "code blocked in the engine; unload it"))

    def pause(self) -> None:
        """Pause every playing timeline (boxes keep running, as in NAOqi)."""
        with self.lock:
            if self._status != "PLAYING":
                return
            self._paused = [box.content for box in self.boxes() if box.content is not None
                            and box.content.timeline is not None and box.content.timeline.playing]
            self._set_status("PAUSED")
        for content in self._paused:
            content.pause()

    def resume(self) -> None:
        """Play again the timelines :meth:`pause` paused."""
        with self.lock:
            if self._status != "PAUSED":
                return
            paused, self._paused = self._paused, []
            self._set_status("PLAYING")
        for content in paused:
            content.play()

    def goto(self, target: Union[str, int], play: bool = True) -> int:
        """Go to a keyframe name or frame of the root timeline; returns the frame reached.

        ``play``: gotoAndPlay (starting the behavior if needed), else gotoAndStop.
        Raises :class:`GotoError` for an unknown label or a bad frame.
        """
        content = self.root.content if self.root is not None else None
        if content is None:
            raise GotoError("the behavior has no timeline to go to %r in" % (target,))
        with self.lock:
            if self._status in ("PLAYING", "PAUSED"):
                frame = content.goto(target, play)
                self._paused = [] if play else self._paused
                self._set_status("PLAYING" if play else "PAUSED")
                return frame
            if self._status == "IDLE":
                raise GotoError("load the behavior before going to %r" % (target,))
            frame = content.frame_of(target)
            if content.timeline is not None:
                content.timeline.goto(frame)
            if content.machine is not None:
                content.machine.set_initial_state(content.state_at(frame))
        if play:
            self.play()
        return frame

    def rewind(self) -> None:
        """Put a behavior that is not playing back at the start of its root timeline (where
        a goto made while it was stopped had left it): the next play is a fresh run."""
        content = self.root.content if self.root is not None else None
        with self.lock:
            if (content is None or content.timeline is None
                    or self._status in ("PLAYING", "PAUSED")):
                return
            content.timeline.goto(content.timeline.start_frame)

    def unload(self) -> None:
        """Stop, unload the root (its ``onUnload`` and those of the boxes still loaded run
        as at a stop), end the engine's threads and the box code still running; status
        IDLE."""
        self.stop()
        self.wait_run_closed()
        started = time.monotonic()
        with self.lock:
            self.stopping = True
        try:
            if self.root is not None:
                self.guard.open()  # the onUnload methods may still run
                root = self.root

                def unload_root() -> None:
                    with self.lock:
                        root.unload()
                self._unload_boxes(unload_root, started)
            else:
                self._end_box_code(started + STOP_DEADLINE, started)
        finally:
            self.stopping = False
        forget_box_scripts(self.guard.script_filenames())
        self._close_project_modules()
        self.transitions.close()
        self._runner.close()
        if self._close_environment is not None:
            close, self._close_environment = self._close_environment, None
            close()
        self._stop_robot_work = None
        self._set_status("IDLE")
        # The boxes, their classes and scripts' code are cycles that the loads' collector
        # pause (xar.elements.collector_paused) moved to the oldest generation, which Python
        # collects only now and then: without a collection here, every load of a process
        # that loads behavior after behavior would keep the one before.
        gc.collect()

    def _close_project_modules(self) -> None:
        """Forget the project modules imported for the behavior; remove the import hook."""
        if self._project_modules is not None:
            modules, self._project_modules = self._project_modules, None
            modules.close()

    def missing_dependencies(self) -> MissingDependencies:
        """The modules box code imports that this machine lacks (not installed, not given
        by the box environment, not in the project), with what to install: see
        :func:`~naoqi_qicore.core.dependencies.missing_dependencies`.  Meant to be called
        once loaded (the box environment's modules are known then)."""
        scripts = list(self.loaded.code.values())
        port_errors = getattr(self.loaded, "port_errors", {}) or {}
        if port_errors:  # commented out in the code: their imports are in the originals
            for box in self.boxes():
                if box.name in port_errors and box.model.script is not None:
                    scripts.append(box.model.script.content)
        return missing_dependencies(scripts, provided=self._provided_modules,
                                    project_folder=self.project_folder)

    def robot_services(self) -> Dict[str, List[str]]:
        """The robot services box code calls (literal names in the box scripts, see
        :mod:`~naoqi_qicore.core.robot_services`; a dialog box calls ALDialog), each with
        the paths of the boxes calling it; services the behavior serves itself left out.
        Meant to be called once the boxes are built."""
        if self._robot_services is None and self.root is not None:
            read: Dict[str, ServiceNames] = {}  # library boxes repeat the same scripts
            calls: Dict[str, List[str]] = {}
            registered: Set[str] = set(ENGINE_SERVICES)
            for box in self.boxes():
                source = self._script_source(box)
                names = read.get(source)
                if names is None:
                    names = read[source] = service_names(source)
                registered |= names.registered
                called = set(names.called) | ({"ALDialog"} if is_dialog_box(box.model)
                                              else set())
                for name in sorted(called):
                    calls.setdefault(name, []).append(box.path)
            self._robot_services = {name: paths for name, paths in calls.items()
                                    if name not in registered}
        return dict(self._robot_services or {})

    def _wait_for_robot_services(self) -> None:
        """Wait (as ``await_services`` allows) until the robot offers the services box code
        calls; each one it does not offer is an error of the run (boxes built)."""
        if self._await_services is None:
            return
        services = self.robot_services()
        if not services:
            return
        for name in self._await_services(sorted(services)):
            paths = services[name]
            self.record_error(BoxError(paths[0], WHERE_ROBOT_SERVICE,
                                       "the robot does not offer %s (called by %s)"
                                       % (name, ", ".join(paths))))

    def wait_run_closed(self, timeout: Optional[float] = None) -> bool:
        """Wait until the box code of the run that ended (FINISHED or ERROR) is ended too
        (at most :data:`STOP_DEADLINE` s after the end) and the robot answered its last
        motion calls (at most :data:`MOTION_ANSWER_WAIT` s more); False on timeout."""
        closer = self._closer
        if closer is None or closer is threading.current_thread():
            return True
        closer.join(timeout)
        return not closer.is_alive()

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Wait until the behavior is no longer playing or paused; False on timeout."""
        with self._status_changed:
            return self._status_changed.wait_for(
                lambda: self._status not in ("PLAYING", "PAUSED"), timeout)

    def wait_idle(self, timeout: Optional[float] = None) -> bool:
        """Wait until no box call or state change is pending (for tests and tools)."""
        limit = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if limit is None else max(0.0, limit - time.monotonic())
            if not (self._runner.wait_idle(left) and self.transitions.wait_idle(left)):
                return False
            if self._runner.busy == 0:
                return True

    # -- engine internals used by boxes ----------------------------------------------------
    def run_task(self, task: Callable[[], None]) -> None:
        self._runner.submit(task)

    def emit(self, kind: str, box_path: str, detail: str = "", **data: Any) -> None:
        if self._listener is None:
            return
        try:
            self._listener(EngineEvent(kind, box_path, detail, data))
        except Exception:  # a listener must not break the behavior
            _LOG.exception("engine listener failed on %s event", kind)

    def warn(self, message: str) -> None:
        _LOG.warning("%s", message)

    def root_stopped(self, why: str) -> None:
        """A Stopped output of the root fired: the behavior is over."""
        with self.lock:
            if self._status not in ("PLAYING", "PAUSED"):
                return
            self._close_after_run()
            self._set_status("FINISHED", why)

    def root_failed(self, error: BoxError) -> None:
        """A method of the root failed: the run ends with ERROR."""
        with self.lock:
            if self._status not in ("PLAYING", "PAUSED", "LOADED"):
                return
            if self._status != "LOADED":
                self._close_after_run()
            self._set_status("ERROR", error.text())

    def record_error(self, error: BoxError, cause: Optional[BaseException] = None) -> None:
        """Add ``error`` to the run's errors and tell the listener ("error" event).

        ``cause``: the exception; when a failure recorded earlier had the same one (a
        failed robot call that then ended the box method), ``error`` replaces it.  The
        exception itself carries the error recorded for it (an ``id`` is reused once the
        exception is gone: a new failure would replace an old one).
        """
        with self._errors_lock:
            earlier = getattr(cause, _RECORDED_AS, None) if cause is not None else None
            if earlier is not None and earlier in self._errors:
                self._errors[self._errors.index(earlier)] = error
            else:
                self._errors.append(error)
                self._error_count += 1
                del self._errors[:-MAX_RUN_ERRORS]
            if cause is not None:
                try:
                    setattr(cause, _RECORDED_AS, error)
                except (AttributeError, TypeError):  # an exception type without attributes
                    pass
            self._last_error = error.text()
        _LOG.debug("%s%s", error.text(), "\n" + error.traceback if error.traceback else "")
        self.emit("error", error.box_path, error.text(), error=error)

    def record_warning(self, warning: RunWarning) -> None:
        """Add ``warning`` to the run's warnings and tell the listener ("warning" event),
        unless the run has said the same (box, where, message) already."""
        key = (warning.box_path, warning.where, warning.message)
        with self._errors_lock:
            if key in self._warned:
                return
            self._warned.add(key)
            self._warnings.append(warning)
            self._warning_count += 1
            del self._warnings[:-MAX_RUN_WARNINGS]
        _LOG.debug("warning: %s", warning.text())
        self.emit("warning", warning.box_path, warning.text(), warning=warning)

    def _reset_run(self, errors: Optional[List[BoxError]] = None,
                   warnings: Optional[List[RunWarning]] = None) -> None:
        """A new run: its errors and warnings are ``errors`` and ``warnings``."""
        with self._errors_lock:
            self._errors = list(errors or [])
            self._error_count = len(self._errors)
            self._last_error = self._errors[-1].text() if self._errors else ""
            self._warnings = list(warnings or [])
            self._warning_count = len(self._warnings)
            self._warned = {(w.box_path, w.where, w.message) for w in self._warnings}

    def _close_after_run(self) -> None:
        """The run ended by itself (FINISHED, ERROR): in a thread of its own, give its box
        code :data:`STOP_GRACE` s to return, then end what is left, then wait (at most
        :data:`MOTION_ANSWER_WAIT` s) for the robot to answer its motion calls (lock
        held)."""
        def close() -> None:
            ended = time.monotonic()
            while self.guard.box_threads() and time.monotonic() < ended + STOP_GRACE:
                time.sleep(0.01)
            self._end_box_code(time.monotonic() + STOP_DEADLINE - STOP_GRACE, ended)
            self.motion.wait_all_ended(MOTION_ANSWER_WAIT)

        self._closer = threading.Thread(target=close, daemon=True,
                                        name="end of run " + self.behavior_id)
        self._closer.start()

    def finish(self) -> None:
        """End the behavior from inside (ALFrameManager.exitBehavior)."""
        if self.root is not None:
            self.root.halt()
        self.root_stopped("exitBehavior")

    def memory_subscribe(self, key: str, callback: Callable[[Any], None]) -> Any:
        """Call ``callback(value)`` on every new value of ALMemory ``key``; a handle or None."""
        try:
            subscriber = self.session.service("ALMemory").subscriber(key)
            link = subscriber.signal.connect(callback)
        except Exception as error:  # no ALMemory: the input never fires, the rest runs
            self.warn("ALMemory subscriber(%r): %s" % (key, error))
            return None
        return subscriber, link

    def memory_unsubscribe(self, handle: Any) -> None:
        subscriber, link = handle
        try:
            subscriber.signal.disconnect(link)
        except Exception as error:  # the robot may be gone
            self.warn("ALMemory unsubscribe: %s" % error)

    # -- internals -------------------------------------------------------------------------
    def _set_status(self, status: str, detail: str = "") -> None:
        with self._status_changed:
            if status == self._status:
                return
            self._status = status
            self._status_changed.notify_all()
        self.emit("status", self.root.path if self.root is not None else "root", status,
                  reason=detail)

    def _change_failed(self, error: BaseException) -> None:
        if isinstance(error, BehaviorStopped):
            return  # box code ended by the guard while it entered a state
        self.record_error(BoxError("root", "state change", str(error), type(error).__name__,
                                   self.guard.format_exception(error)))

    def _build(self, model: Box, parent: Optional[BoxNode], diagram: Optional[DiagramNode],
               built: List[BoxNode]) -> BoxNode:
        """The box of ``model`` with the boxes it holds, each appended to ``built``."""
        name = self.loaded.names.get(id(model)) or model.name
        box = BoxNode(self, model, name, parent, diagram)
        built.append(box)
        self._by_name.setdefault(name, box)
        if box.content is not None:
            for child_diagram in box.content.diagrams.values():
                for child in child_diagram.model.boxes:
                    child_diagram.boxes[child.id] = self._build(child, box, child_diagram,
                                                                built)
        return box

    def _script_source(self, box: BoxNode) -> str:
        """The Python code of ``box``'s script (as converted; "" when it has none)."""
        source = self.loaded.code.get(box.name)
        if source is None:
            script = box.model.script
            source = script.content if script is not None else ""
        return source

    def _box_path_of(self, instance: Any) -> Optional[str]:
        """The path of the box whose object ``instance`` is (None: not one of this
        behavior's box objects)."""
        if not isinstance(instance, GeneratedClass):
            return None
        box = vars(instance).get("_box")
        return box.path if isinstance(box, BoxNode) and box.player is self else None

    def _instantiate(self, box: BoxNode, source: str) -> None:
        kind = (DialogBox if is_dialog_box(box.model) else GeneratedClass, tuple(box.outputs))
        base = self._box_classes.get(kind)
        if base is None:
            kind_base, outputs = kind
            base = self._box_classes[kind] = box_class(outputs, kind_base)
        key = self._shared_scripts.get(source)
        filename = (self.guard.script_filename(box.path) if key is None
                    else self.guard.shared_script_filename(key, box.path))
        try:
            cls = self._scripts.box_class(source, filename, box.name, base)
            instance = cls.__new__(cls)
            instance._box = box
            cls.__init__(instance)
        except (Exception, SystemExit) as error:
            box.broken = True
            port_error = getattr(self.loaded, "port_errors", {}).get(box.name)
            if isinstance(error, SyntaxError) and port_error:
                message = "the box script does not compile and porting it to Python 3 " \
                          "failed: %s" % port_error
            else:
                line = ""
                if isinstance(error, SyntaxError) and error.lineno:
                    line = " (line %d)" % error.lineno
                message = "the box script does not run: %s%s" % (error, line)
            self.record_error(BoxError(box.path, WHERE_SCRIPT, message, type(error).__name__,
                                       self.guard.format_exception(error, box.path)))
            return
        box.instance = instance

    def _root_on_start(self) -> Optional[Any]:
        """The root's onStart input (None when it has none)."""
        if self.root is None:
            return None
        return next((port for port in self.root.model.inputs
                     if port.nature == InputNature.ON_START), None)

    def _root_start_runs_user_code(self) -> bool:
        """Whether starting the root calls a method of its script (which may block)."""
        on_start = self._root_on_start()
        return (on_start is not None and self.root is not None
                and getattr(self.root.instance, "onInput_" + on_start.name, None) is not None)

    def _start_root(self) -> None:
        root = self.root
        if root is None:
            return
        on_start = self._root_on_start()
        if on_start is not None:
            root.receive(on_start, None)
        elif root.content is not None:
            root.active = True
            root.content.start()
            root.content.play()
        else:
            self.root_stopped("nothing to play")


def _scripts_of_several_boxes(sources: List[str]) -> Dict[str, str]:
    """Script text -> a key telling it apart, for the texts several boxes run (``sources``:
    the text of each box): those boxes share one compiled code (see ``core.guard``)."""
    return {source: script_key(source) for source, count in Counter(sources).items()
            if count > 1 and source.strip()}


def _in_converted_project(folder: Path) -> bool:
    """True when ``folder`` is a behavior of a converted project (which holds the
    project's files around it)."""
    from naoqi_qicore.converter.project import MAX_PROJECT_DEPTH, PROJECT_INDEX
    return any((parent / PROJECT_INDEX).is_file()
               for parent in [folder, *folder.parents][:MAX_PROJECT_DEPTH + 1])


def _behavior_folder(loaded: Any) -> Optional[str]:
    """Folder of the behavior's own files: the converted folder of a converted project
    (the project's files were copied around it), else where its .xar was, else the
    converted folder (None for a behavior made in memory)."""
    converted = getattr(loaded, "folder", None)
    if converted is not None and _in_converted_project(Path(converted).resolve()):
        return str(Path(converted).resolve())
    source = str(getattr(loaded.behavior, "source", "") or "").split("!")[0]
    if source:
        folder = os.path.dirname(os.path.abspath(source))
        if os.path.isdir(folder):
            return folder
    if getattr(loaded, "folder", None) is not None:
        return str(Path(loaded.folder).resolve())
    return None
