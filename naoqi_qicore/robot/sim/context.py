"""What every simulated service receives when it is built as ``cls(sim)``.

:class:`SimContext` gives a service the robot's name, its sibling services (built on first
use, so construction order does not matter), a :class:`TaskManager` for post-style calls, a
monotonic clock and a logger.  Nothing here imports ``qi``: services stay plain Python.
"""
from __future__ import annotations

import itertools
import logging
import threading
import time
from typing import Any, Callable, Dict, Iterable, List, Optional

ROBOTS = ("nao", "pepper")


class _Task:
    """One running background call."""

    def __init__(self, task_id: int, fn: Callable[..., Any], args: tuple) -> None:
        self.task_id = task_id
        self.fn = fn
        self.args = args
        self.stop_requested = threading.Event()
        self.thread: Optional[threading.Thread] = None


class TaskManager:
    """Background calls known by int ids, as NAOqi's ``post`` / ``wait`` / ``stop`` / ``isRunning``.

    A task is a function run in its own thread.  ``stop`` is cooperative: it sets the task's
    stop flag, which the function reads through :meth:`stop_requested` or :meth:`sleep`
    (services may also interrupt their own waits).  Finished tasks are forgotten, so
    ``wait`` on an unknown id returns at once and ``is_running`` is False.
    """

    STOP_GRACE_S = 2.0

    def __init__(self, log: Optional[logging.Logger] = None) -> None:
        self._ids = itertools.count(1)
        self._running: Dict[int, _Task] = {}
        self._lock = threading.Lock()
        self._current = threading.local()
        self._closed = False
        self._log = log or logging.getLogger(__name__)

    def start(self, fn: Callable[..., Any], *args: Any) -> int:
        """Run ``fn(*args)`` in the background; returns its task id (> 0)."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the simulated robot is shutting down")
            task = _Task(next(self._ids), fn, args)
            task.thread = threading.Thread(target=self._run, args=(task,), daemon=True,
                                           name="sim-task-%d" % task.task_id)
            self._running[task.task_id] = task
        task.thread.start()
        return task.task_id

    def _run(self, task: _Task) -> None:
        self._current.task = task
        try:
            task.fn(*task.args)
        except Exception as error:  # a posted call has no caller left to receive its error
            self._log.warning("task %d (%s) failed: %s", task.task_id,
                              getattr(task.fn, "__name__", task.fn), error)
        finally:
            with self._lock:
                self._running.pop(task.task_id, None)

    def wait(self, task_id: int, timeout_ms: int = 0) -> bool:
        """Wait for ``task_id`` to end (``timeout_ms`` 0 = forever); True when it has ended."""
        with self._lock:
            task = self._running.get(task_id)
        if task is None or task.thread is None:
            return True
        if task.thread is threading.current_thread():
            return False
        task.thread.join(timeout_ms / 1000.0 if timeout_ms > 0 else None)
        return not task.thread.is_alive()

    def stop(self, task_id: int, join: bool = True) -> None:
        """Ask ``task_id`` to stop and (if ``join``) wait a little for it to end; unknown
        ids are ignored."""
        with self._lock:
            task = self._running.get(task_id)
        if task is None:
            return
        task.stop_requested.set()
        if join and task.thread is not None and task.thread is not threading.current_thread():
            task.thread.join(self.STOP_GRACE_S)

    def is_running(self, task_id: int) -> bool:
        """True while ``task_id`` runs."""
        with self._lock:
            return task_id in self._running

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
        for task in tasks:
            if task.thread is not None and task.thread is not threading.current_thread():
                task.thread.join(max(0.0, deadline - time.monotonic()))
        return [t.task_id for t in tasks if t.thread is not None and t.thread.is_alive()]


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
