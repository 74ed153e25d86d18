"""What every simulated service receives when it is built as ``cls(sim)``.

:class:`SimContext` gives a service the robot's name, its sibling services (built on first
use, so construction order does not matter), a :class:`TaskManager` for post-style calls, a
monotonic clock, a logger, the robot's files and its call record.  Nothing here imports
``qi``: services stay plain Python.
"""
from __future__ import annotations

import itertools
import logging
import threading
import time
from concurrent import futures
from concurrent.futures import Future
from typing import Any, Callable, Dict, Iterable, List, Optional

ROBOTS = ("nao", "pepper")


class _Task:
    """One background call: a function run in a thread of its own, or work a service
    completes without one (a future); ``what`` names the call (``ALAudioPlayer.playFile``)."""

    def __init__(self, task_id: int, owner: Any, what: str,
                 fn: Optional[Callable[..., Any]] = None, args: tuple = (),
                 future: "Optional[Future[Any]]" = None) -> None:
        self.task_id = task_id
        self.owner = owner
        self.what = what
        self.fn = fn
        self.args = args
        self.future = future
        self.stop_requested = threading.Event()
        self.thread: Optional[threading.Thread] = None

    def in_this_thread(self) -> bool:
        return self.thread is threading.current_thread()

    def join(self, timeout: Optional[float]) -> bool:
        """Wait for the end (``timeout`` s, None: forever); True once it has ended."""
        if self.future is not None:
            futures.wait([self.future], timeout)
            return self.future.done()
        assert self.thread is not None
        self.thread.join(timeout)
        return not self.thread.is_alive()


class TaskManager:
    """Background calls known by int ids, as NAOqi's ``post`` / ``wait`` / ``stop`` / ``isRunning``.

    A task is a function run in its own thread (:meth:`start`), or a future a service
    completes without a thread (:meth:`follow`).  ``stop`` is cooperative: it sets the
    task's stop flag, which the function reads through :meth:`stop_requested` or
    :meth:`sleep` (services may also interrupt their own waits).  Finished tasks are
    forgotten, so ``wait`` on an unknown id returns at once and ``is_running`` is False.
    A task that fails has no caller left to receive its error: it is logged and given to
    the watchers (:meth:`watch_failures`).
    """

    STOP_GRACE_S = 2.0

    def __init__(self, log: Optional[logging.Logger] = None) -> None:
        self._ids = itertools.count(1)
        self._running: Dict[int, _Task] = {}
        self._lock = threading.Lock()
        self._current = threading.local()
        self._closed = False
        self._log = log or logging.getLogger(__name__)
        self._failure_watchers: List[Callable[[Dict[str, Any]], None]] = []

    def watch_failures(self, watcher: Callable[[Dict[str, Any]], None]) -> None:
        """Call ``watcher(failure)`` for each task that fails from now on: a dict with
        ``id`` (the task's), ``call`` (what it called) and ``message``."""
        with self._lock:
            self._failure_watchers.append(watcher)

    def _failed(self, task: _Task, error: BaseException) -> None:
        self._log.warning("task %d (%s) failed: %s", task.task_id, task.what, error)
        failure = {"id": task.task_id, "call": task.what, "message": str(error)}
        with self._lock:
            watchers = list(self._failure_watchers)
        for watcher in watchers:
            try:
                watcher(failure)
            except Exception as problem:  # a watcher's trouble is not the task's
                self._log.warning("telling the failure of task %d: %s", task.task_id, problem)

    def _add(self, task_id: int, **task: Any) -> _Task:
        """Register a new task (lock held)."""
        if self._closed:
            raise RuntimeError("the simulated robot is shutting down")
        self._running[task_id] = _Task(task_id, **task)
        return self._running[task_id]

    def start(self, fn: Callable[..., Any], *args: Any, owner: Any = None,
              what: str = "") -> int:
        """Run ``fn(*args)`` in the background; returns its task id (> 0).  ``owner``: the
        service that posted it (:meth:`owned_by`); ``what``: the call it makes (default:
        ``fn``'s name)."""
        with self._lock:
            task = self._add(next(self._ids), owner=owner, what=what or fn.__name__, fn=fn,
                             args=args)
            task.thread = threading.Thread(target=self._run, args=(task,), daemon=True,
                                           name="sim-task-%d" % task.task_id)
        task.thread.start()
        return task.task_id

    def follow(self, future: "Future[Any]", owner: Any = None, what: str = "work") -> int:
        """A task id for ``future`` (work a service does without a thread of its own): it
        runs until the future is done; ``what``: the call it makes."""
        with self._lock:
            task = self._add(next(self._ids), owner=owner, what=what, future=future)

        def forget(_: "Future[Any]") -> None:
            with self._lock:
                self._running.pop(task.task_id, None)
            error = None if future.cancelled() else future.exception()
            if error is not None:
                self._failed(task, error)
        future.add_done_callback(forget)
        return task.task_id

    def _run(self, task: _Task) -> None:
        self._current.task = task
        assert task.fn is not None
        try:
            task.fn(*task.args)
        except Exception as error:  # a posted call has no caller left to receive its error
            self._failed(task, error)
        finally:
            with self._lock:
                self._running.pop(task.task_id, None)

    def _task(self, task_id: int) -> Optional[_Task]:
        with self._lock:
            return self._running.get(task_id)

    def owned_by(self, task_id: int, owner: Any) -> bool:
        """True while ``task_id`` runs and was posted by ``owner``."""
        task = self._task(task_id)
        return task is not None and task.owner is owner

    def wait(self, task_id: int, timeout_ms: int = 0) -> bool:
        """Wait for ``task_id`` to end (``timeout_ms`` 0 = forever); True when it has ended."""
        task = self._task(task_id)
        if task is None:
            return True
        if task.in_this_thread():
            return False
        return task.join(timeout_ms / 1000.0 if timeout_ms > 0 else None)

    def stop(self, task_id: int, join: bool = True) -> None:
        """Ask ``task_id`` to stop and (if ``join``) wait a little for it to end; unknown
        ids are ignored."""
        task = self._task(task_id)
        if task is None:
            return
        task.stop_requested.set()
        if join and not task.in_this_thread():
            task.join(self.STOP_GRACE_S)

    def is_running(self, task_id: int) -> bool:
        """True while ``task_id`` runs."""
        return self._task(task_id) is not None

    def running(self) -> List[int]:
        """Ids of the tasks running now."""
        with self._lock:
            return sorted(self._running)

    def stop_requested(self) -> bool:
        """In a task's thread: True once ``stop`` was called for it (False outside tasks)."""
        task = getattr(self._current, "task", None)
        return task is not None and task.stop_requested.is_set()

    def sleep(self, seconds: float) -> bool:
        """Sleep in the current task; False when the task was stopped meanwhile."""
        task = getattr(self._current, "task", None)
        if task is None:
            time.sleep(max(0.0, seconds))
            return True
        return not task.stop_requested.wait(max(0.0, seconds))

    def close(self, timeout_s: float = STOP_GRACE_S) -> List[int]:
        """Refuse new tasks, stop every running one and join them; returns ids still alive."""
        with self._lock:
            self._closed = True
            tasks = list(self._running.values())
        for task in tasks:
            task.stop_requested.set()
        deadline = time.monotonic() + timeout_s
        alive = []
        for task in tasks:
            if not task.in_this_thread() and not task.join(
                    max(0.0, deadline - time.monotonic())):
                alive.append(task.task_id)
        return alive


class SimContext:
    """The simulated robot as one service sees it.

    ``classes`` maps service names to classes; each is built as ``cls(self)`` the first time
    :meth:`service` asks for it (or by :meth:`build_all`).  ``remote``, when set, finds the
    services that are not simulated ones, e.g. a module a client registered in the robot's
    service directory (the robot sets it to its qi session's ``service``).
    """

    def __init__(self, robot: str, classes: Dict[str, type],
                 log: Optional[logging.Logger] = None) -> None:
        if robot not in ROBOTS:
            raise ValueError("robot must be one of %s, got %r" % (", ".join(ROBOTS), robot))
        self.robot = robot
        self.log = log or logging.getLogger("naoqi_sim")
        self.tasks = TaskManager(self.log)
        self._classes = dict(classes)
        self._instances: Dict[str, Any] = {}
        self._lock = threading.RLock()
        self.remote: Optional[Callable[[str], Any]] = None
        #: whether ALPythonBridge evaluates the code clients send
        self.allow_eval = False
        #: the URLs the robot really listens on (libqi's endpoints)
        self.endpoints: List[str] = []
        #: the robot's files (:class:`~naoqi_qicore.robot.robot_files.RobotFiles`), set by
        #: the robot before its services are built
        self.files: Any = None
        #: the robot's call record (:class:`~naoqi_qicore.robot.sim.recorder.CallRecord`),
        #: where services record what the robot does of its own accord
        #: (:mod:`~naoqi_qicore.robot.sim.own_calls`); None: nothing is recorded
        self.record: Any = None

    @staticmethod
    def clock() -> float:
        """Monotonic time in seconds."""
        return time.monotonic()

    def service(self, name: str) -> Any:
        """The in-process object of service ``name``, else what ``remote`` finds for it
        (RuntimeError as libqi's when unknown)."""
        with self._lock:
            instance = self._instances.get(name)
            cls = self._classes.get(name)
            if instance is None and cls is not None:
                instance = cls(self)
                self._instances[name] = instance
        if instance is not None:
            return instance
        if self.remote is not None:
            return self.remote(name)
        raise RuntimeError("Cannot find service '%s' in index" % name)

    def names(self) -> List[str]:
        """Names of every service this robot has."""
        return sorted(self._classes)

    def build_all(self, order: Iterable[str] = ()) -> Dict[str, Any]:
        """Build every service (those in ``order`` first); returns name -> object."""
        for name in list(order) + self.names():
            self.service(name)
        with self._lock:
            return dict(self._instances)

    def close(self) -> None:
        """Stop every task, then call each service's ``close()`` (built ones, newest first)."""
        with self._lock:
            instances = list(self._instances.items())
        for name, instance in reversed(instances):
            closer = getattr(instance, "close", None)
            if callable(closer):
                try:
                    closer()
                except Exception as error:
                    self.log.warning("closing %s failed: %s", name, error)
        stuck = self.tasks.close()
        if stuck:
            self.log.warning("tasks %s did not stop in time", stuck)
