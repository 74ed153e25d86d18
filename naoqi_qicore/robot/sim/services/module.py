"""What every simulated NAOqi module shares.

* Argument checking: each public method of a :class:`SimModule` subclass is wrapped so that
  a wrong argument count or type raises a NAOqi-like ``TypeError`` naming the method, and so
  that libqi sees a variadic signature (optional arguments work over the wire).
* The generic ``ALModule`` methods: ``pCall`` (what ``proxy.post.x(...)`` uses) returning a
  task id, ``wait``, ``stop``, ``isRunning``, ``ping``, ``version``, ``getMethodList``.
* Interruptible waits: a blocking call runs inside an :class:`Activity` that ``stop(id)`` or
  a service's own stop method can interrupt.
* Work without a thread: a method marked :func:`deferred` returns a
  ``concurrent.futures.Future`` that the service completes when the work is done (a
  sentence spoken by the one speech thread); clients get a qi future (see ``facade``),
  and ``pCall`` of such a method holds no thread while the work waits its turn.
* Files: a path a client gives names a file of the robot's own files
  (:meth:`SimModule._file`, see :mod:`naoqi_qicore.robot.robot_files`), never another one:
  services get a place below the root's handle, not a path.
* Signals that go with events: the qi signals of :attr:`SimModule.EVENT_SIGNALS` fire with
  the value of their ALMemory event each time the robot raises it.
"""
import inspect
import math
import threading
import typing
from concurrent.futures import Future, InvalidStateError
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, List, Optional, Set, Tuple

import qi

from naoqi_qicore.file_root import RootedPath
from naoqi_qicore.robot.robot_files import HOME, RobotPathError
from naoqi_qicore.robot.sim.services.api import missing_methods

_current = threading.local()


class Activity:
    """One running call that another call may interrupt."""

    def __init__(self) -> None:
        self._interrupted = threading.Event()
        self._lock = threading.Lock()
        self._callbacks: List[Callable[[], None]] = []

    def interrupt(self) -> None:
        """Ask the call to end as soon as possible."""
        with self._lock:
            self._interrupted.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    def when_interrupted(self, callback: Callable[[], None]) -> None:
        """Call ``callback()`` once the activity is interrupted (now if it is already)."""
        with self._lock:
            if not self._interrupted.is_set():
                self._callbacks.append(callback)
                return
        callback()

    def forget(self, callback: Callable[[], None]) -> None:
        """Do not call ``callback`` (given to :meth:`when_interrupted`) any more."""
        with self._lock:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

    @property
    def interrupted(self) -> bool:
        return self._interrupted.is_set()

    def sleep(self, seconds: float) -> bool:
        """Wait ``seconds`` (may be infinite); False when interrupted before the end."""
        return not self._interrupted.wait(None if math.isinf(seconds) else max(0.0, seconds))


def current_activity() -> Optional[Activity]:
    """The activity of the call this thread runs, if any (see :func:`running_as`)."""
    return getattr(_current, "activity", None)


def deferred(method: Callable) -> Callable:
    """Mark a service method that returns a ``concurrent.futures.Future`` of its result
    instead of waiting for it."""
    method.__deferred__ = True  # type: ignore[attr-defined]
    return method


def is_deferred(method: Callable) -> bool:
    """Whether ``method`` (a service method, checked or not) is :func:`deferred`."""
    function = getattr(method, "__func__", method)
    return getattr(getattr(function, "__checked__", function), "__deferred__", False)


def settle(future: "Future[Any]", result: Any = None) -> None:
    """Complete ``future`` with ``result`` unless it is done already (cancelled)."""
    try:
        future.set_result(result)
    except InvalidStateError:
        pass


@contextmanager
def running_as(activity: Activity) -> Iterator[Activity]:
    """Make ``activity`` this thread's current one: blocking calls made meanwhile share it."""
    outer = getattr(_current, "activity", None)
    _current.activity = activity
    try:
        yield activity
    finally:
        _current.activity = outer


_TYPE_WORDS = {str: "a string", float: "a float", int: "an int", bool: "a bool",
               list: "a list", dict: "a dict", type(None): "nothing", Any: "any value"}


def _describe(annotation: Any) -> str:
    origin = typing.get_origin(annotation)
    if origin is typing.Union:
        return " or ".join(_describe(a) for a in typing.get_args(annotation))
    if origin in (list, List):
        return "a list"
    if origin in (dict, Dict):
        return "a dict"
    return _TYPE_WORDS.get(annotation, getattr(annotation, "__name__", str(annotation)))


def _coerce(annotation: Any, value: Any) -> Tuple[bool, Any]:
    """(accepted, converted value) for one argument, with libqi's lenient numeric rules."""
    if annotation in (inspect.Parameter.empty, Any):
        return True, value
    origin = typing.get_origin(annotation)
    if origin is typing.Union:
        for option in typing.get_args(annotation):
            ok, converted = _coerce(option, value)
            if ok:
                return True, converted
        return False, value
    if annotation is type(None):
        return value is None, value
    if origin in (list, List):
        if not isinstance(value, (list, tuple)):
            return False, value
        (item_type,) = typing.get_args(annotation) or (Any,)
        items = [_coerce(item_type, item) for item in value]
        return all(ok for ok, _ in items), [item for _, item in items]
    if origin in (dict, Dict):
        return isinstance(value, dict), value
    if annotation is float:
        ok = isinstance(value, (int, float))
        return ok, float(value) if ok else value
    if annotation is int:
        ok = isinstance(value, (int, float))
        return ok, int(value) if ok else value
    if annotation is bool:
        ok = isinstance(value, (bool, int, float))
        return ok, bool(value) if ok else value
    if annotation is str:
        return isinstance(value, str), value
    return isinstance(value, annotation), value


@dataclass(frozen=True)
class _CallShape:
    """What the calls of a method are checked against: its positional parameters (self
    left out), their type hints, how many are required, whether it takes ``*args``."""

    positional: List[inspect.Parameter]
    hints: Dict[str, Any]
    required: int
    variadic: bool

    @classmethod
    def of(cls, func: Callable) -> "_CallShape":
        params = list(inspect.signature(func).parameters.values())[1:]
        positional = [p for p in params
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        return cls(positional, typing.get_type_hints(func),
                   sum(1 for p in positional if p.default is p.empty),
                   any(p.kind == p.VAR_POSITIONAL for p in params))


def checked_method(func: Callable) -> Callable:
    """Wrap ``func`` so calls are checked against its signature and type hints (read at its
    first call: a robot has thousands of methods, most never called)."""
    name = func.__name__
    shapes: List[_CallShape] = []

    def call(self, *args: Any) -> Any:
        if not shapes:
            shapes.append(_CallShape.of(func))
        shape = shapes[0]
        positional, hints, required = shape.positional, shape.hints, shape.required
        variadic = shape.variadic
        service = type(self).NAME
        if len(args) < required or (not variadic and len(args) > len(positional)):
            expected = (str(required) if required == len(positional) and not variadic
                        else "%d to %s" % (required, "any" if variadic else len(positional)))
            raise TypeError("%s::%s: takes %s argument(s) (%s), %d given" % (
                service, name, expected, ", ".join(p.name for p in positional), len(args)))
        converted = list(args)
        for index, (param, value) in enumerate(zip(positional, args)):
            ok, converted[index] = _coerce(hints.get(param.name, param.annotation), value)
            if not ok:
                raise TypeError("%s::%s: argument %d (%s) must be %s, got %s %r" % (
                    service, name, index + 1, param.name,
                    _describe(hints.get(param.name)), type(value).__name__, value))
        return func(self, *converted)

    # No __wrapped__: libqi reads the wrapper's own (*args) signature, so optional
    # arguments can be left out by remote callers.
    call.__name__ = name
    call.__qualname__ = func.__qualname__
    call.__doc__ = func.__doc__
    call.__checked__ = func
    for attr in ("__qi_name__", "__qi_signature__", "__qi_return_signature__"):
        if hasattr(func, attr):  # a return type given with qi.bind (e.g. raw buffers)
            setattr(call, attr, getattr(func, attr))
    return call


def _wrap_public_methods(cls: type) -> None:
    for attr, value in list(vars(cls).items()):
        if attr.startswith("_") or not inspect.isfunction(value) or hasattr(value, "__checked__"):
            continue
        setattr(cls, attr, checked_method(value))


class SimModule:
    """Base of a simulated NAOqi module; subclasses set ``NAME`` (and ``ROBOTS`` if limited)."""

    NAME = "SimModule"
    ROBOTS: Tuple[str, ...] = ("nao", "pepper")
    VERSION = "2.8.6.23"
    #: the qi signals NAOqi documents for the module that go with an ALMemory event of its:
    #: signal name -> (qi signature, event); each fires with the event's value whenever the
    #: robot's ALMemory raises the event
    EVENT_SIGNALS: Dict[str, Tuple[str, str]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _wrap_public_methods(cls)
        for name, function in missing_methods(cls).items():
            setattr(cls, name, checked_method(function))

    def __init__(self, sim: Any) -> None:
        self._sim = sim
        self._lock = threading.RLock()
        self._activities: Set[Activity] = set()
        self._posted: Dict[int, Activity] = {}  # running posted tasks
        self._event_signals: Dict[str, List[qi.Signal]] = {}
        for signal_name, (signature, event) in self.EVENT_SIGNALS.items():
            signal = qi.Signal(signature)
            setattr(self, signal_name, signal)
            self._event_signals.setdefault(event, []).append(signal)
        if self._event_signals:
            self._memory()._watch(self._event_raised)

    def _event_raised(self, key: str, value: Any) -> None:
        """Fire the :attr:`EVENT_SIGNALS` that go with the ALMemory event ``key``."""
        for signal in self._event_signals.get(key, ()):
            signal(value)

    # -- shared by the subclasses ---------------------------------------------------------
    def _error(self, method: str, message: str) -> RuntimeError:
        """A NAOqi-style error for ``method``."""
        return RuntimeError("%s::%s: %s" % (self.NAME, method, message))

    def _file(self, method: str, path: str, base: str = HOME) -> RootedPath:
        """The place of the robot's files (reached from their root's handle) that the
        robot's ``path`` (relative: from ``base``) names; a NAOqi-style error naming
        ``path`` when it is outside the robot's files."""
        try:
            return self._sim.files.local(path, base)
        except RobotPathError as error:
            raise self._error(method, str(error)) from None

    def _file_failed(self, method: str, doing: str, path: str, error: OSError) -> RuntimeError:
        """A NAOqi-style error: the file the robot's ``path`` names could not be ``doing``
        (``read``, ``written``) because of ``error`` (its reason, never a path of this
        machine)."""
        return self._error(method, "cannot %s '%s': %s" % (doing, path, error.strerror
                                                           or type(error).__name__))

    def _memory(self) -> Any:
        return self._sim.service("ALMemory")

    def _raise_event(self, key: str, value: Any) -> None:
        """Raise an ALMemory event (it also stores the value)."""
        self._memory().raiseEvent(key, value)

    @contextmanager
    def _activity(self, activity: Optional[Activity] = None) -> Iterator[Activity]:
        """Run a blocking call as an interruptible activity of this module.

        Nested calls in the same thread share the activity, so stopping the outer call
        (e.g. ALAnimatedSpeech.say) also stops what it waits on (ALTextToSpeech.say).
        """
        activity = activity or getattr(_current, "activity", None) or Activity()
        with self._lock:
            self._activities.add(activity)
        try:
            with running_as(activity):
                yield activity
        finally:
            with self._lock:
                self._activities.discard(activity)

    def _interrupt_all(self) -> int:
        """Interrupt every running activity of this module; returns how many."""
        with self._lock:
            running = list(self._activities)
        for activity in running:
            activity.interrupt()
        return len(running)

    def _method(self, name: str) -> Callable:
        if name.startswith("_") or not callable(getattr(type(self), name, None)):
            raise self._error("pCall", "method '%s' does not exist" % name)
        return getattr(self, name)

    # -- generic ALModule methods ------------------------------------------------------------
    def pCall(self, *args: Any) -> int:
        """Start ``args[0]`` with the remaining arguments in the background; returns its task id."""
        if not args or not isinstance(args[0], str):
            raise TypeError("%s::pCall: first argument must be a method name" % self.NAME)
        method = self._method(args[0])
        activity, what = Activity(), "%s.%s" % (self.NAME, args[0])
        if is_deferred(method):
            return self._post_deferred(method, args[1:], activity, what)

        def run() -> Any:
            try:
                with self._activity(activity):
                    return method(*args[1:])
            finally:
                with self._lock:
                    for task_id in [t for t, a in self._posted.items() if a is activity]:
                        del self._posted[task_id]

        with self._lock:  # running from now on: a stopAll before its thread starts ends it
            self._activities.add(activity)
            try:
                task_id = self._sim.tasks.start(run, owner=self, what=what)
            except BaseException:
                self._activities.discard(activity)
                raise
            self._posted[task_id] = activity
        return task_id

    def _post_deferred(self, method: Callable, args: Tuple[Any, ...], activity: Activity,
                       what: str) -> int:
        """``pCall`` of a :func:`deferred` method (the call ``what``): started here, followed
        without a thread."""
        with running_as(activity):
            future = method(*args)
        with self._lock:
            task_id = self._sim.tasks.follow(future, owner=self, what=what)
            if not future.done():
                self._posted[task_id] = activity

        def forget(_: Future) -> None:
            with self._lock:
                self._posted.pop(task_id, None)
        future.add_done_callback(forget)
        return task_id

    def _posted_here(self, id: int) -> bool:
        """Whether ``id`` is a task this module posted that still runs."""
        return self._sim.tasks.owned_by(id, self)

    def wait(self, id: int, timeoutPeriod: int = 0) -> bool:
        """Wait for a posted task (timeout in ms, 0 = forever); True if the timeout expired."""
        return self._posted_here(id) and not self._sim.tasks.wait(id, timeoutPeriod)

    def stop(self, id: int) -> None:
        """Stop a task started with ``post`` / ``pCall`` (unknown ids are ignored)."""
        with self._lock:
            activity = self._posted.get(id)
        if activity is not None:
            activity.interrupt()
        if self._posted_here(id):
            self._sim.tasks.stop(id)

    def isRunning(self, id: int) -> bool:
        """True while the posted task ``id`` runs."""
        return self._posted_here(id) and self._sim.tasks.is_running(id)

    def ping(self) -> bool:
        """Always True."""
        return True

    def version(self) -> str:
        """Version of the module."""
        return self.VERSION

    def getMethodList(self) -> List[str]:
        """Names of the module's NAOqi methods."""
        return sorted(name for name in dir(type(self)) if not name.startswith("_")
                      and name != "close" and callable(getattr(type(self), name)))

    def getMethodHelp(self, methodName: str) -> List[Any]:
        """``[name, description, [[argument, type], ...], ["return", type]]`` of a method."""
        if methodName not in self.getMethodList():
            raise self._error("getMethodHelp", "method '%s' does not exist" % methodName)
        function = getattr(getattr(type(self), methodName), "__checked__", None) or \
            getattr(type(self), methodName)
        signature = inspect.signature(function)
        hints = typing.get_type_hints(function)
        arguments = [[name, _describe(hints.get(name, Any))]
                     for name in list(signature.parameters)[1:]]
        return [methodName, (function.__doc__ or "").strip(), arguments,
                ["return", _describe(hints.get("return", Any))]]

    def getModuleHelp(self) -> List[Any]:
        """``[module name, description, [method names]]``."""
        return [self.NAME, (type(self).__doc__ or "").strip(), self.getMethodList()]

    def getUsage(self, name: str) -> str:
        """One line: ``name(argument, ...)`` with the description of method ``name``."""
        help = self.getMethodHelp(name)
        return "%s(%s): %s" % (name, ", ".join(a for a, _ in help[2]), help[1])

    def close(self) -> None:
        """Interrupt everything still running (called when the robot shuts down)."""
        self._interrupt_all()
        with self._lock:
            posted = list(self._posted.values())
        for activity in posted:
            activity.interrupt()


_wrap_public_methods(SimModule)


def check_range(module: SimModule, method: str, name: str, value: float,
                low: float, high: float) -> float:
    """``value`` if ``low <= value <= high``, else a NAOqi-style error."""
    if not low <= value <= high:
        raise module._error(method, "%s must be in [%s, %s], got %s" % (name, low, high, value))
    return value


def check_choice(module: SimModule, method: str, value: str, choices: List[str]) -> str:
    """``value`` if it is one of ``choices``, else a NAOqi-style error."""
    if value not in choices:
        raise module._error(method, "'%s' is not one of %s" % (value, ", ".join(choices)))
    return value
