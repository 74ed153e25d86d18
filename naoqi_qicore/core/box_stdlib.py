"""The standard modules whose waits and threads box code gets bound to its behavior.

Box code imports ``time``, ``threading`` and ``thread`` (``_thread``) from here (they
are the behavior's :class:`~naoqi_qicore.core.guard.BoxCodeGuard`'s versions of the real
ones): ``time.sleep`` ends when the behavior stops, and threads started by box code run
as code of the box that started them, so that stopping the behavior ends them too.
Everything else is the real module's.
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


def box_threading_module(guard: BoxCodeGuard) -> types.ModuleType:
    """``threading`` whose ``Thread`` runs as code of the box starting it, and whose
    ``Timer`` calls its function as such (never once the behavior is stopped); both have
    Python 2's ``isAlive``."""

    class Thread(threading.Thread):
        __module__ = "threading"
        isAlive = threading.Thread.is_alive  # Python 2's name (gone since Python 3.9)

        def start(self) -> None:
            # bound when started: subclasses overriding run() are bound too
            self.run = guard.bind(self.run)  # type: ignore[method-assign]
            super().start()

    class Timer(threading.Timer):
        __module__ = "threading"
        isAlive = threading.Thread.is_alive

        def start(self) -> None:
            self.function = guard.bind(self.function)
            super().start()

    module = module_copy(threading)
    module.Thread = Thread  # type: ignore[attr-defined]
    module.Timer = Timer  # type: ignore[attr-defined]
    return module


def box_thread_module(guard: BoxCodeGuard) -> types.ModuleType:
    """``thread`` (Python 2) / ``_thread`` whose ``start_new_thread`` runs the function as
    code of the box calling it."""
    module = module_copy(_thread)

    def start_new_thread(function: Callable[..., Any], args: tuple,
                         kwargs: Optional[Dict[str, Any]] = None) -> int:
        return _thread.start_new_thread(guard.bind(function), args, kwargs or {})
    module.start_new_thread = start_new_thread  # type: ignore[attr-defined]
    module.start_new = start_new_thread  # type: ignore[attr-defined]
    return module


def box_stdlib_modules(guard: BoxCodeGuard) -> Dict[str, types.ModuleType]:
    """Import name -> module, for box code (Python 2's ``thread`` included)."""
    thread = box_thread_module(guard)
    return {"time": box_time_module(guard), "threading": box_threading_module(guard),
            "thread": thread, "_thread": thread}
