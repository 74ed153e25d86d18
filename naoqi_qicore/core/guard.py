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
4. what box code waits on in C ends too: the sockets it opened during the run (itself or
   through a library it called: ``urllib``, ``http.client``, ``requests``...) are shut
   down and closed when the guard closes, so that a thread blocked in their ``accept``,
   ``recv`` or ``connect`` gets an error and meets ``BehaviorStopped`` at its next line;
   its locks, conditions, events and joins (``box_stdlib``) wait in slices of
   :data:`WAIT_SLICE_SECONDS` through :meth:`BoxCodeGuard.blocking`;
5. a thread still in box code at the deadline is blocked in other C code (a foreign
   future, a C extension) or loops in a library's code: it is returned as a
   :class:`Straggler` with the line of box code it is at (the trace function keeps it),
   for the engine to report as an error of the run, and its robot calls stay refused.
   A thread that is only waiting for a CPU then (runnable: a busy machine) is given until
   the stop's limit to get one and end.

The stop's own box code (the onUnload methods of the boxes it unloads, started with
:meth:`BoxCodeGuard.start_stop_code`) outlives the grace the rest of box code gets: a
:meth:`BoxCodeGuard.shut` that keeps it leaves it running with its robot calls allowed and
its sockets open; each one has its own time, counted from when its thread began to run
(a busy machine starting it late, or another box's slow onUnload, takes none of it);
the final shut (:meth:`BoxCodeGuard.close`) ends it like any box code.

Box code is known by the file name its code is compiled with: a box's own
(:meth:`BoxCodeGuard.script_filename`), or one that the boxes running the same script text
share (:meth:`BoxCodeGuard.shared_script_filename`: behaviors repeat library boxes, and a
copy of the code for each box cost the load as much as running it).  A frame of shared
code runs the box of its ``self`` when that is a box's object (the box's methods), else
the box whose code called it (:meth:`BoxCodeGuard.frame_box`); tracebacks name it so
(:meth:`BoxCodeGuard.format_exception`).

Threads are known to run box code by the guard's own record of :meth:`BoxCodeGuard.run`,
never by looking at other threads' stacks: ``sys._current_frames()`` and
:mod:`faulthandler`'s dump of all threads both crashed (or deadlocked) Python 3.11 here
while libqi's threads came and went.

:class:`BehaviorStopped` derives from ``BaseException``: box code's ``except Exception``
does not swallow it.
"""
from __future__ import annotations

import linecache
import socket
import sys
import threading
import time
import traceback
import weakref
from dataclasses import dataclass
from types import FrameType
from typing import Any, Callable, Dict, Iterable, List, Optional, Set, Tuple

#: how often the threads still running box code are looked for while the guard closes (s)
POLL_SECONDS = 0.01
#: how long box code's waits on its locks, events... last between two looks at the guard (s)
WAIT_SLICE_SECONDS = 0.05
#: how long box code gets to end once the guard has closed: its next line, a wait of it
#: waking up: a few :data:`WAIT_SLICE_SECONDS` (s); the stop's own box code runs until
#: that long before the stop's deadline
ENDING_SECONDS = 0.15


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


def _describe(filename: str, number: int, lines_of: str) -> str:
    """``filename:number: the line`` (the line as kept for the file ``lines_of``)."""
    return "%s:%d: %s" % (filename, number, linecache.getline(lines_of, number).strip())


#: what :meth:`BoxCodeGuard.format_exception` formats from when given no traceback
_OWN_TRACEBACK = object()
#: thread id -> the guard whose box code it runs (where the sockets it opens belong)
_box_threads: Dict[int, "BoxCodeGuard"] = {}
_audit_installed = False
_audit_lock = threading.Lock()


def _audit(event: str, args: Tuple[Any, ...]) -> None:
    """Audit hook of the process: a socket made while a thread runs box code (by the box
    code or a library it called) belongs to that code's behavior."""
    if event == "socket.__new__":
        guard = _box_threads.get(threading.get_ident())
        if guard is not None:
            guard.opened(args[0])


def _install_audit() -> None:
    """Install :func:`_audit` (once per process), before a thread first runs box code
    through a guard: until then no socket can belong to box code, and the hook, called
    for every audited event of the process (each ``exec``, ``id()``, file opened...),
    would only slow the loading of boxes down."""
    global _audit_installed
    with _audit_lock:
        if not _audit_installed:
            sys.addaudithook(_audit)  # cannot be removed: installed once per process
            _audit_installed = True


def _end_socket(connection: socket.socket) -> None:
    """Shut ``connection`` down (waking up a thread blocked in its accept, recv or
    connect) and close its descriptor, even while ``makefile`` objects still hold it."""
    try:
        connection.shutdown(socket.SHUT_RDWR)
    except OSError:  # not connected, or closed already
        pass
    try:
        super(socket.socket, connection).close()
    except OSError:
        pass


def _runnable(thread_id: int, native_ids: Dict[Optional[int], Optional[int]]) -> bool:
    """Whether the thread ``thread_id`` (``threading.get_ident()``) is runnable, waiting for
    a CPU or on one, rather than blocked (Linux: its state in ``/proc``; False when it
    cannot be told)."""
    native = native_ids.get(thread_id)
    if native is None:
        return False
    try:
        with open("/proc/self/task/%d/stat" % native, "rb") as stat:
            fields = stat.read().rpartition(b")")[2].split()
    except OSError:
        return False
    return bool(fields) and fields[0] == b"R"


def _any_runnable(threads: Dict[int, str]) -> bool:
    """Whether one of ``threads`` (thread ids) is runnable (:func:`_runnable`)."""
    native_ids = {thread.ident: thread.native_id for thread in threading.enumerate()}
    return any(_runnable(thread, native_ids) for thread in threads)


def _ascii(text: str) -> str:
    if text.isascii() and "\n" not in text:  # box paths mostly are
        return text
    return text.encode("ascii", "backslashreplace").decode("ascii").replace("\n", " ")


class BoxCodeGuard:
    """What a behavior's box code may still do, and the means to end it (module doc).

    The player compiles every box script with the file name :meth:`script_filename` (code
    of that file is that box's) or :meth:`shared_script_filename` gives, calls box methods
    through :meth:`run`, opens the guard when a run starts (:meth:`open`) and closes it
    when the run ends (:meth:`close`).  ``box_of`` gives the box path of an object of box
    code, None when it is not a box's object: it tells which box a frame of shared code
    runs.  The box environment makes robot calls go through
    :meth:`check` and :meth:`wait`, ``time.sleep`` through :meth:`sleep`, and callbacks
    and threads of box code through :meth:`bind`.
    """

    def __init__(self, name: str = "behavior",
                 box_of: Optional[Callable[[Any], Optional[str]]] = None) -> None:
        self._name = _ascii(name)
        self._box_of = box_of
        self._lock = threading.Lock()
        #: set when box code must end (the stop's own box code excepted, see :attr:`_final`)
        self._closed = threading.Event()
        #: set when every box code must end, the stop's own included
        self._final = threading.Event()
        #: threads running the stop's own box code (:meth:`start_stop_code`)
        self._stop_threads: Set[int] = set()
        self._stop_code: Set["StopCode"] = set()
        #: events box code waits on -> whether the waiting thread runs the stop's own code
        self._waiters: Dict[threading.Event, bool] = {}
        #: sockets box code opened and did not close -> whether the stop's own code did
        self._sockets: "weakref.WeakKeyDictionary[socket.socket, bool]" = \
            weakref.WeakKeyDictionary()
        #: file name of a box script's code -> the box (None: code several boxes share)
        self._files: Dict[str, Optional[str]] = {}
        #: file name of code several boxes share -> those boxes
        self._sharing: Dict[str, Set[str]] = {}
        #: key of a script text several boxes share -> the file name of its code
        self._shared_files: Dict[str, str] = {}
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
        filename = self._box_file(box_path)
        with self._lock:
            self._files[filename] = box_path
        return filename

    def shared_script_filename(self, key: str, box_path: str) -> str:
        """The file name of the code ``box_path`` shares with the other boxes running the
        same script text (``key`` tells that text apart: a hash of it), e.g.
        ``<box script 1a2b3c4d5e (behavior-1)>``; :meth:`frame_box` tells which box a frame
        of it runs."""
        with self._lock:
            filename = self._shared_files.get(key)
            if filename is None:
                filename = self._shared_files[key] = "<box script %s (%s)>" % (_ascii(key),
                                                                                self._name)
                self._files[filename] = None
                self._sharing[filename] = set()
            self._sharing[filename].add(box_path)
        return filename

    def _box_file(self, box_path: str) -> str:
        return "<box %s (%s)>" % (_ascii(box_path), self._name)

    def frame_box(self, frame: FrameType) -> Optional[str]:
        """The box whose code ``frame`` runs: its code's box, or for code several boxes
        share, the box of its ``self`` when that is one of them (a method of the box's
        object); None when it cannot be told from the frame (code of no box, a function
        of shared code called without a box's object)."""
        filename = frame.f_code.co_filename
        box = self._files.get(filename)
        if box is not None or self._box_of is None:
            return box
        sharing = self._sharing.get(filename)
        code = frame.f_code
        if sharing is None or ("self" not in code.co_varnames
                               and "self" not in code.co_freevars):
            return None
        owner = self._box_of(frame.f_locals.get("self"))
        return owner if owner in sharing else None

    def format_exception(self, error: BaseException, box_path: Optional[str] = None,
                         trace: Any = _OWN_TRACEBACK) -> str:
        """``traceback.format_exception`` of ``error`` (from ``trace``, default its own
        traceback), the frames of shared box code named by the box they run
        (:meth:`frame_box`), else by ``box_path`` (the box whose code failed) when it shares
        that code."""
        if trace is _OWN_TRACEBACK:
            trace = error.__traceback__
        report = traceback.TracebackException(type(error), error, trace)
        seen: Set[int] = set()
        pending = [(report, error, trace)]
        while pending:
            part, exception, tb = pending.pop()
            if id(exception) in seen:
                continue
            seen.add(id(exception))
            self.name_frames(part.stack, _traceback_frames(tb), box_path)
            for chained in ("__cause__", "__context__"):
                following = getattr(exception, chained)
                if following is not None and getattr(part, chained) is not None:
                    pending.append((getattr(part, chained), following,
                                    following.__traceback__))
        return "".join(report.format())

    def name_frames(self, stack: traceback.StackSummary, frames: Iterable[FrameType],
                    box_path: Optional[str] = None) -> None:
        """Name each frame summary of ``stack`` (of ``frames``, in the same order) that runs
        shared box code by the box it runs (see :meth:`format_exception`)."""
        for summary, frame in zip(stack, frames):
            sharing = self._sharing.get(summary.filename)
            if sharing is None:
                continue
            box = self.frame_box(frame)
            if box is None and box_path in sharing:
                box = box_path
            if box is not None:
                summary.line  # noqa: B018 (read under the file name its lines are kept at)
                summary.filename = self._box_file(box)

    def script_filenames(self) -> List[str]:
        with self._lock:
            return list(self._files)

    def is_script(self, filename: str) -> bool:
        """Whether code of ``filename`` is one of the behavior's box scripts."""
        return filename in self._files

    def current_box(self) -> Optional[str]:
        """The box whose code the calling thread runs (None: none): that of the innermost
        frame of box code on its stack whose box is known (:meth:`frame_box`; box scripts
        share their globals), else the box it was started for."""
        files = self._files
        frame: Optional[FrameType] = sys._getframe(1)
        while frame is not None:  # the calling thread's own stack
            if frame.f_code.co_filename in files:
                box = self.frame_box(frame)
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
        if not _audit_installed:
            _install_audit()
        owner = _box_threads.get(ident)
        _box_threads[ident] = self
        previous = sys.gettrace()
        sys.settrace(self._trace_calls)
        try:
            return function(*args, **kwargs)
        finally:
            sys.settrace(previous)
            if owner is None:
                _box_threads.pop(ident, None)
            else:
                _box_threads[ident] = owner
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
        if self._closed.is_set() and self._ends_caller():
            raise BehaviorStopped("the behavior is stopped")
        return self._trace_lines

    def _trace_lines(self, frame: FrameType, event: str, arg: Any) -> Any:
        """Local trace function of box script frames: keeps the line the thread is at; a
        closed guard ends them here."""
        if event == "line":
            self._lines[threading.get_ident()] = (frame.f_code.co_filename, frame.f_lineno)
            if self._closed.is_set() and self._ends_caller():
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
            except Exception:
                if self.closed:  # what the stop did to it: a socket closed under it...
                    return None
                raise
        run.__name__ = getattr(function, "__name__", "box_callback")
        run.__doc__ = getattr(function, "__doc__", None)
        return run

    # -- the gate ---------------------------------------------------------------------------
    @property
    def closed(self) -> bool:
        """Whether the calling thread's box code must end (the stop's own box code is ended
        only by the final shut)."""
        return self._closed.is_set() and self._ends_caller()

    def _ends_caller(self) -> bool:
        return self._final.is_set() or threading.get_ident() not in self._stop_threads

    def open(self) -> None:
        """Box code may run (a run starts, or the behavior loads or unloads)."""
        with self._lock:
            self._refused.clear()
        self._final.clear()
        self._closed.clear()

    def opened(self, connection: socket.socket) -> None:
        """Box code of the calling thread opened ``connection``: the guard closing shuts it
        down and closes it (the stop's own code's at the final shut only)."""
        of_stop = threading.get_ident() in self._stop_threads
        with self._lock:
            self._sockets[connection] = of_stop

    def first_refusal(self, box_path: str) -> bool:
        """True the first time ``box_path`` is refused something since the guard closed."""
        with self._lock:
            if box_path in self._refused:
                return False
            self._refused.add(box_path)
            return True

    def check(self) -> None:
        """Raise :class:`BehaviorStopped` when the guard is closed (for the caller)."""
        if self.closed:
            raise BehaviorStopped("the behavior is stopped")

    def sleep(self, seconds: float) -> None:
        """``time.sleep`` of box code: ends early with :class:`BehaviorStopped` when the guard
        closes."""
        self.check()
        if seconds < 0:
            raise ValueError("sleep length must be non-negative")
        ending = self._final if threading.get_ident() in self._stop_threads else self._closed
        if ending.wait(seconds):
            raise BehaviorStopped("the behavior is stopped")

    def wait(self, done: threading.Event, timeout: Optional[float] = None) -> bool:
        """Wait for ``done`` (set by a robot call's answer...); :class:`BehaviorStopped` when
        the guard closes first.  False on timeout."""
        self.check()
        with self._lock:
            self._waiters[done] = threading.get_ident() in self._stop_threads
        try:
            finished = done.wait(timeout)
        finally:
            with self._lock:
                self._waiters.pop(done, None)
        self.check()
        return finished

    def blocking(self, attempt: Callable[[float], bool], timeout: Optional[float]) -> bool:
        """A wait of box code in C made interruptible: ``attempt(seconds)`` (waits at most
        that long; True when what it waits for came) again and again,
        :data:`WAIT_SLICE_SECONDS` at a time, until it succeeds (True), ``timeout`` passes (False; None or a negative
        one: no limit) or the guard closes (:class:`BehaviorStopped`)."""
        self.check()
        end = None if timeout is None or timeout < 0 else time.monotonic() + timeout
        while True:
            left = (WAIT_SLICE_SECONDS if end is None
                    else min(WAIT_SLICE_SECONDS, end - time.monotonic()))
            if attempt(max(0.0, left)):
                return True
            self.check()
            if end is not None and time.monotonic() >= end:
                return False

    # -- ending box code --------------------------------------------------------------------
    def start_stop_code(self, function: Callable[[], Any], name: str,
                        seconds: Optional[float] = None) -> "StopCode":
        """Run ``function`` (it calls the stop's own box methods: onUnload) in a thread of
        its own whose box code a :meth:`shut` keeping it leaves running, its robot calls
        allowed, until the final shut; :meth:`wait_stop_code` waits for it ``seconds``
        from when its thread began to run (None: until its limit)."""
        return StopCode(self, function, name, seconds)

    def wait_stop_code(self, limit: float) -> None:
        """Wait until the stop's own box code has returned or used its time (what it
        starts meanwhile included), until the monotonic time ``limit`` at the latest."""
        while True:
            with self._lock:
                running = list(self._stop_code)
            waited = [code for code in running if code.deadline(limit) > time.monotonic()]
            if not waited:
                return
            for code in waited:
                code.wait(code.deadline(limit))

    def _stop_code_runs(self, code: "StopCode", running: bool) -> None:
        """``code`` (the calling thread's) starts (``running``) or has ended."""
        with self._lock:
            if running:
                self._stop_code.add(code)
                self._stop_threads.add(threading.get_ident())
            else:
                self._stop_code.discard(code)
                self._stop_threads.discard(threading.get_ident())

    def shut(self, keep_stop_code: bool = False) -> None:
        """Close the gate: box code ends at its next line, its waits wake up; the sockets it
        opened are shut down and closed.  ``keep_stop_code``: the stop's own box code
        (:meth:`start_stop_code`) and its sockets go on."""
        if not keep_stop_code:
            self._final.set()
        self._closed.set()
        with self._lock:
            waiters = [event for event, of_stop in self._waiters.items()
                       if not keep_stop_code or not of_stop]
            sockets = [connection for connection, of_stop in list(self._sockets.items())
                       if not keep_stop_code or not of_stop]
            for connection in sockets:
                del self._sockets[connection]
        for waiter in waiters:
            waiter.set()
        for connection in sockets:
            _end_socket(connection)

    def close(self, deadline: float, limit: Optional[float] = None) -> List[Straggler]:
        """:meth:`shut` (all of box code), then wait until no thread runs the behavior's box
        code, until the monotonic time ``deadline`` (``limit`` for threads only waiting
        for a CPU then, see :meth:`wait_box_threads`); returns those still running."""
        self.shut()
        return self.wait_box_threads(deadline, limit)

    def wait_box_threads(self, deadline: float,
                         limit: Optional[float] = None) -> List[Straggler]:
        """Wait until no thread (other than the caller) runs box code, until ``deadline``,
        and while one of those left only waits for a CPU (a busy machine has not let it
        end yet), until ``limit`` (default: ``deadline``); the threads still running it
        then (each one once: a thread still blocked where it was at the last close is not
        returned again)."""
        me = threading.get_ident()
        limit = deadline if limit is None else max(limit, deadline)
        while True:
            with self._lock:
                running = {thread: boxes[-1] for thread, boxes in self._running.items()
                           if boxes and thread != me}
            if not running:
                return []
            now = time.monotonic()
            if now >= limit or (now >= deadline and not _any_runnable(running)):
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
            location = "(no line of the box's script run yet)"
            if line is not None:
                filename, number = line
                if box in self._sharing.get(filename, ()):  # shared code the box runs
                    filename = self._box_file(box)
                location = _describe(filename, number, line[0])
            with self._lock:
                if (thread_id, box, location) in self._reported:
                    continue
                self._reported.add((thread_id, box, location))
            stragglers.append(Straggler(box_path=box,
                                        thread_name=names.get(thread_id, hex(thread_id)),
                                        location=location))
        return stragglers


def _traceback_frames(trace: Any) -> List[FrameType]:
    frames = []
    while trace is not None:
        frames.append(trace.tb_frame)
        trace = trace.tb_next
    return frames


class StopCode:
    """The stop's own box code running in a thread of its own (see
    :meth:`BoxCodeGuard.start_stop_code`)."""

    def __init__(self, guard: BoxCodeGuard, function: Callable[[], Any], name: str,
                 seconds: Optional[float]) -> None:
        self._guard = guard
        self._function = function
        self._seconds = seconds
        #: the monotonic time its thread began to run
        self._began = 0.0
        self._error: Optional[BaseException] = None
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name=name)
        self._thread.start()
        self._started.wait()  # counted as the stop's own code before anyone waits for it

    def _run(self) -> None:
        self._began = time.monotonic()
        self._guard._stop_code_runs(self, True)
        self._started.set()
        try:
            self._function()
        except BaseException as error:  # given to the thread that joins it
            self._error = error
        finally:
            self._guard._stop_code_runs(self, False)

    def deadline(self, limit: float) -> float:
        """Until when the stop waits for it: its time from when its thread began to run,
        ``limit`` at the latest."""
        if self._seconds is None:
            return limit
        return min(limit, self._began + self._seconds)

    def wait(self, deadline: float) -> None:
        """Wait for it to return, until the monotonic time ``deadline`` at the latest."""
        self._thread.join(max(0.0, deadline - time.monotonic()))

    def join(self, deadline: float) -> bool:
        """:meth:`wait`; True when it returned (its exception, if any, is raised here)."""
        self.wait(deadline)
        if self._thread.is_alive():
            return False
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        return True
