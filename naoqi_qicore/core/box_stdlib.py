"""The standard modules whose waits and threads box code gets bound to its behavior.

Box code imports ``time``, ``threading`` and ``thread`` (``_thread``) from here (they
are the behavior's :class:`~naoqi_qicore.core.guard.BoxCodeGuard`'s versions of the real
ones): ``time.sleep`` ends when the behavior stops, threads started by box code run
as code of the box that started them, so that stopping the behavior ends them too, and
box code's waits on its locks, conditions, events, semaphores and threads end when the
behavior stops (:meth:`BoxCodeGuard.blocking`; a lock box code waits for forever in its
onUnload no longer holds the stop).  Everything else is the real module's.
"""
from __future__ import annotations

import _thread
import threading
import time
import types
from typing import Any, Callable, Dict, Optional

from naoqi_qicore.core.guard import BoxCodeGuard


def module_copy(module: types.ModuleType) -> types.ModuleType:
    """A module of its own holding the public names of ``module``."""
    copy = types.ModuleType(module.__name__, module.__doc__)
    copy.__dict__.update((name, value) for name, value in vars(module).items()
                         if not name.startswith("__"))
    return copy


def box_time_module(guard: BoxCodeGuard) -> types.ModuleType:
    """``time`` whose ``sleep`` ends with ``BehaviorStopped`` when the behavior stops."""
    module = module_copy(time)
    module.sleep = guard.sleep  # type: ignore[attr-defined]
    return module


class GuardedLock:
    """A ``Lock`` or ``RLock`` of box code: waiting for it ends when the behavior stops."""

    def __init__(self, guard: BoxCodeGuard, lock: Any) -> None:
        self._guard = guard
        self._lock = lock

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        if not blocking:
            return self._lock.acquire(False)
        return self._guard.blocking(lambda seconds: self._lock.acquire(True, seconds),
                                    timeout)

    __enter__ = acquire

    def release(self) -> None:
        self._lock.release()

    def __exit__(self, *exc_info: Any) -> None:
        self._lock.release()

    def __getattr__(self, name: str) -> Any:  # locked(), an RLock's _is_owned()...
        return getattr(self._lock, name)

    def __repr__(self) -> str:
        return repr(self._lock)


def box_threading_module(guard: BoxCodeGuard) -> types.ModuleType:
    """``threading`` whose ``Thread`` runs as code of the box starting it, whose ``Timer``
    calls its function as such (never once the behavior is stopped), both with Python 2's
    ``isAlive``, and whose waits (locks, conditions, events, semaphores, joins) end when it
    stops."""

    class Thread(threading.Thread):
        __module__ = "threading"
        isAlive = threading.Thread.is_alive  # Python 2's name (gone since Python 3.9)

        def start(self) -> None:
            # bound when started: subclasses overriding run() are bound too
            self.run = guard.bind(self.run)  # type: ignore[method-assign]
            super().start()

        def join(self, timeout: Optional[float] = None) -> None:
            guard.blocking(lambda seconds: not (super(Thread, self).join(seconds)
                                                or self.is_alive()), timeout)

    class Condition(threading.Condition):
        __module__ = "threading"

        def __init__(self, lock: Any = None) -> None:
            super().__init__(lock if lock is not None else RLock())

        def wait(self, timeout: Optional[float] = None) -> bool:
            # a notify cannot come between two slices: the notifier holds the lock
            return guard.blocking(lambda seconds: super(Condition, self).wait(seconds),
                                  timeout)

    class Event(threading.Event):
        __module__ = "threading"

        def wait(self, timeout: Optional[float] = None) -> bool:
            return guard.blocking(lambda seconds: super(Event, self).wait(seconds), timeout)

    class Semaphore(threading.Semaphore):
        __module__ = "threading"

        def acquire(self, blocking: bool = True, timeout: Optional[float] = None) -> bool:
            if not blocking:
                return super().acquire(False)
            return guard.blocking(
                lambda seconds: super(Semaphore, self).acquire(True, seconds), timeout)

        __enter__ = acquire

    class BoundedSemaphore(threading.BoundedSemaphore, Semaphore):
        __module__ = "threading"

    def Lock() -> GuardedLock:  # noqa: N802 (threading's name)
        return GuardedLock(guard, threading.Lock())

    def RLock() -> GuardedLock:  # noqa: N802 (threading's name)
        return GuardedLock(guard, threading.RLock())

    class Timer(threading.Timer):
        __module__ = "threading"
        isAlive = threading.Thread.is_alive

        def start(self) -> None:
            self.function = guard.bind(self.function)
            super().start()

    module = module_copy(threading)
    for name, value in (("Thread", Thread), ("Timer", Timer), ("Condition", Condition),
                        ("Event", Event), ("Semaphore", Semaphore),
                        ("BoundedSemaphore", BoundedSemaphore), ("Lock", Lock),
                        ("RLock", RLock)):
        setattr(module, name, value)
    return module


def box_thread_module(guard: BoxCodeGuard) -> types.ModuleType:
    """``thread`` (Python 2) / ``_thread`` whose ``start_new_thread`` runs the function as
    code of the box calling it."""
    module = module_copy(_thread)

    def allocate_lock() -> GuardedLock:
        return GuardedLock(guard, _thread.allocate_lock())

    def start_new_thread(function: Callable[..., Any], args: tuple,
                         kwargs: Optional[Dict[str, Any]] = None) -> int:
        return _thread.start_new_thread(guard.bind(function), args, kwargs or {})
    module.start_new_thread = start_new_thread  # type: ignore[attr-defined]
    module.start_new = start_new_thread  # type: ignore[attr-defined]
    module.allocate_lock = allocate_lock  # type: ignore[attr-defined]
    module.allocate = allocate_lock  # type: ignore[attr-defined]
    return module


def box_stdlib_modules(guard: BoxCodeGuard) -> Dict[str, types.ModuleType]:
    """Import name -> module, for box code (Python 2's ``thread`` included)."""
    thread = box_thread_module(guard)
    return {"time": box_time_module(guard), "threading": box_threading_module(guard),
            "thread": thread, "_thread": thread}
