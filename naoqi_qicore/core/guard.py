"""Stopping a behavior's box code for real: :class:`BoxCodeGuard`.

Box scripts are user code running in threads of the engine (one per input stimulation),
in threads they start themselves, and in libqi's threads when the robot calls them back.
Python cannot kill a thread from outside, so a stopped behavior's code is ended in
layers, each one catching what the previous one lets through:

1. the engine no longer calls box methods, and outputs fired by box code go nowhere
   (``BehaviorPlayer.stopping`` and :attr:`BoxCodeGuard.closed`);
2. box code's ``time.sleep`` and its calls to the robot wait on the guard: closing it
   wakes them up with :class:`BehaviorStopped`; a closed guard refuses any new robot
   call (:meth:`BoxCodeGuard.check`) and any callback into box code
   (:meth:`BoxCodeGuard.bind`);
3. box code runs traced: while a thread runs it (a box method the engine calls through
   :meth:`BoxCodeGuard.run`, or a callback or thread body box code handed to libqi or
   ``threading``, bound with :meth:`BoxCodeGuard.bind`), the thread has a trace function
   that, once the guard is closed, raises :class:`BehaviorStopped` at the next line of box
   code it executes: a busy loop ends within one iteration, and always at a line of box
   code, never inside the engine or a library holding a lock.  Handlers that catch
   everything in box scripts let it through (``script.let_stop_through``);
4. a thread still in box code at the deadline is blocked in C code (a socket read, a
   lock, a foreign future) or loops in a library's code: it is returned as a
   :class:`Straggler` with the line of box code it is at (the trace function keeps it),
   for the engine to report as an error of the run, and its robot calls stay refused.

Threads are known to run box code by the guard's own record of :meth:`BoxCodeGuard.run`,
never by looking at other threads' stacks: ``sys._current_frames()`` and
:mod:`faulthandler`'s dump of all threads both crashed (or deadlocked) Python 3.11 here
while libqi's threads came and went.

:class:`BehaviorStopped` derives from ``BaseException``: box code's ``except Exception``
does not swallow it.
"""
from __future__ import annotations

import linecache
import sys
import threading
import time
from dataclasses import dataclass
from types import FrameType
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

#: how often the threads still running box code are looked for while the guard closes (s)
POLL_SECONDS = 0.01


class BehaviorStopped(BaseException):
    """Raised into the box code of a behavior that is being stopped, and by its sleeps and
    robot calls once it is stopped."""


@dataclass(frozen=True)
class Straggler:
    """A thread that kept running box code past the stop deadline."""

    box_path: str
    thread_name: str
    #: the line of box code it is at, e.g. ``<box root/Server (behavior-1)>:12: s.accept()``
    location: str


def _describe(filename: str, number: int) -> str:
    return "%s:%d: %s" % (filename, number, linecache.getline(filename, number).strip())


def _ascii(text: str) -> str:
    if text.isascii() and "\n" not in text:  # box paths mostly are
        return text
    return text.encode("ascii", "backslashreplace").decode("ascii").replace("\n", " ")


class BoxCodeGuard:
    """What a behavior's box code may still do, and the means to end it (module doc).

    The player compiles every box script with the file name :meth:`script_filename`
    gives (code of that file is that box's), calls box methods through :meth:`run`, opens the guard when a run starts (:meth:`open`) and closes it
    when the run ends (:meth:`close`).  The box environment makes robot calls go through
    :meth:`check` and :meth:`wait`, ``time.sleep`` through :meth:`sleep`, and callbacks
    and threads of box code through :meth:`bind`.
    """

    def __init__(self, name: str = "behavior") -> None:
        self._name = _ascii(name)
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._waiters: Set[threading.Event] = set()
        #: file name of a box script's code -> the box
        self._files: Dict[str, str] = {}
        #: thread id -> the boxes whose code it runs, outermost first
        self._running: Dict[int, List[str]] = {}
        #: thread id -> (file name, line) of the line of box code it executes last
        self._lines: Dict[int, Tuple[str, int]] = {}
        self._refused: Set[str] = set()
        #: (thread id, box, location) of the stragglers returned already
        self._reported: Set[Tuple[int, str, str]] = set()

    # -- box code ---------------------------------------------------------------------------
    def script_filename(self, box_path: str) -> str:
        """The file name ``box_path``'s script is compiled with: tracebacks show it, and the
        trace function follows the frames of such files (``<box root/Say (behavior-1)>``)."""
        filename = "<box %s (%s)>" % (_ascii(box_path), self._name)
        with self._lock:
            self._files[filename] = box_path
        return filename

    def script_filenames(self) -> List[str]:
        with self._lock:
            return list(self._files)

    def is_script(self, filename: str) -> bool:
        """Whether code of ``filename`` is one of the behavior's box scripts."""
        return filename in self._files

    def current_box(self) -> Optional[str]:
        """The box whose code the calling thread runs (None: none): the innermost frame of
        a box script's code on its stack (box scripts share their globals), else the box
        it was started for."""
        files = self._files
        frame: Optional[FrameType] = sys._getframe(1)
        while frame is not None:  # the calling thread's own stack
            box = files.get(frame.f_code.co_filename)
            if box is not None:
                return box
            frame = frame.f_back
        with self._lock:
            boxes = self._running.get(threading.get_ident())
            return boxes[-1] if boxes else None

    def run(self, box_path: str, function: Callable[..., Any], *args: Any,
            **kwargs: Any) -> Any:
        """``function(*args, **kwargs)`` as code of ``box_path``: traced (the guard closing
        ends it at its next line of box code) and counted as running it until it returns;
        its exceptions, ``BehaviorStopped`` included, go to the caller."""
        ident = threading.get_ident()
        with self._lock:
            boxes = self._running.setdefault(ident, [])
            boxes.append(box_path)
            depth = len(boxes) - 1
        previous = sys.gettrace()
        sys.settrace(self._trace_calls)
        try:
            return function(*args, **kwargs)
        finally:
            sys.settrace(previous)
            with self._lock:
                del boxes[depth:]
                if not boxes and self._running.get(ident) is boxes:
                    del self._running[ident]
                    self._lines.pop(ident, None)

    def _trace_calls(self, frame: FrameType, event: str, arg: Any) -> Any:
        """Global trace function of threads running box code: box script frames get
        :meth:`_trace_lines` (other code runs untraced)."""
        if frame.f_code.co_filename not in self._files:
            return None
        if self._closed.is_set():
            raise BehaviorStopped("the behavior is stopped")
        return self._trace_lines

    def _trace_lines(self, frame: FrameType, event: str, arg: Any) -> Any:
        """Local trace function of box script frames: keeps the line the thread is at; a
        closed guard ends them here."""
        if event == "line":
            self._lines[threading.get_ident()] = (frame.f_code.co_filename, frame.f_lineno)
            if self._closed.is_set():
                raise BehaviorStopped("the behavior is stopped")
        return self._trace_lines

    def bind(self, function: Callable[..., Any],
             box_path: Optional[str] = None) -> Callable[..., Any]:
        """``function`` (a callback or thread body handed out by box code) as run by the
        behavior: as code of ``box_path`` (default: the calling box), never once the guard
        is closed (it then returns None), ended like any box code."""
        box = box_path or self.current_box() or "root"

        def run(*args: Any, **kwargs: Any) -> Any:
            if self.closed:
                return None
            try:
                return self.run(box, function, *args, **kwargs)
            except BehaviorStopped:
                return None
        run.__name__ = getattr(function, "__name__", "box_callback")
        run.__doc__ = getattr(function, "__doc__", None)
        return run

    # -- the gate ---------------------------------------------------------------------------
    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def open(self) -> None:
        """Box code may run (a run starts, or the behavior loads or unloads)."""
        with self._lock:
            self._refused.clear()
        self._closed.clear()

    def first_refusal(self, box_path: str) -> bool:
        """True the first time ``box_path`` is refused something since the guard closed."""
        with self._lock:
            if box_path in self._refused:
                return False
            self._refused.add(box_path)
            return True

    def check(self) -> None:
        """Raise :class:`BehaviorStopped` when the guard is closed."""
        if self._closed.is_set():
            raise BehaviorStopped("the behavior is stopped")

    def sleep(self, seconds: float) -> None:
        """``time.sleep`` of box code: ends early with :class:`BehaviorStopped` when the guard
        closes."""
        self.check()
        if seconds < 0:
            raise ValueError("sleep length must be non-negative")
        if self._closed.wait(seconds):
            raise BehaviorStopped("the behavior is stopped")

    def wait(self, done: threading.Event, timeout: Optional[float] = None) -> bool:
        """Wait for ``done`` (set by a robot call's answer...); :class:`BehaviorStopped` when
        the guard closes first.  False on timeout."""
        self.check()
        with self._lock:
            self._waiters.add(done)
        try:
            finished = done.wait(timeout)
        finally:
            with self._lock:
                self._waiters.discard(done)
        if self._closed.is_set():
            raise BehaviorStopped("the behavior is stopped")
        return finished

    # -- ending box code --------------------------------------------------------------------
    def shut(self) -> None:
        """Close the gate: box code ends at its next line, its waits wake up."""
        self._closed.set()
        with self._lock:
            waiters = list(self._waiters)
        for waiter in waiters:
            waiter.set()

    def close(self, deadline: float) -> List[Straggler]:
        """:meth:`shut`, then wait until no thread runs the behavior's box code, until the
        monotonic time ``deadline`` at the latest; returns those still running then."""
        self.shut()
        return self.wait_box_threads(deadline)

    def wait_box_threads(self, deadline: float) -> List[Straggler]:
        """Wait until no thread (other than the caller) runs box code, until ``deadline``;
        the threads still running it then (each one once: a thread still blocked where
        it was at the last close is not returned again)."""
        me = threading.get_ident()
        while True:
            with self._lock:
                running = {thread: boxes[-1] for thread, boxes in self._running.items()
                           if boxes and thread != me}
            if not running:
                return []
            if time.monotonic() >= deadline:
                return self._new_stragglers(running)
            time.sleep(POLL_SECONDS)

    def box_threads(self) -> List[str]:
        """Paths of the boxes whose code some thread (other than the caller) runs now."""
        me = threading.get_ident()
        with self._lock:
            return sorted(boxes[-1] for thread, boxes in self._running.items()
                          if boxes and thread != me)

    def _new_stragglers(self, running: Dict[int, str]) -> List[Straggler]:
        stragglers = []
        names = {thread.ident: thread.name for thread in threading.enumerate()}
        for thread_id, box in running.items():
            line = self._lines.get(thread_id)
            location = _describe(*line) if line is not None else "(box code not started)"
            with self._lock:
                if (thread_id, box, location) in self._reported:
                    continue
                self._reported.add((thread_id, box, location))
            stragglers.append(Straggler(box_path=box,
                                        thread_name=names.get(thread_id, hex(thread_id)),
                                        location=location))
        return stragglers
