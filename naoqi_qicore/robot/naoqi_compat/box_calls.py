"""How box code calls the robot: services, methods, signals and futures of libqi, bound to
the behavior that makes the calls.

What box code gets from ``self.session().service(name)`` (or ``ALProxy``) is a
:class:`BoxService`.  Through it:

* arguments are what libqi takes (:func:`qi_value`: Python 2 byte strings become text);
* a call waits for the robot's answer on the behavior's guard
  (:class:`~naoqi_qicore.core.guard.BoxCodeGuard`): stopping the behavior wakes the box
  thread up with ``BehaviorStopped`` instead of leaving it in the call;
* once the behavior is stopped, calls are refused (``BehaviorStopped``; the first refused
  call of each box is an error of the run: code that still ran after the stop);
* a method the robot does not have is an error of the run (:func:`report_robot_call`),
  even when the box catches it;
* callbacks given to signals (``service.someSignal.connect(f)``,
  ``memory.subscriber(key).signal.connect(f)``) and to futures run as code of the box,
  never once the behavior is stopped (``BoxCodeGuard.bind``);
* objects and futures the robot returns are wrapped the same way
  (:class:`BoxService`, :class:`BoxFuture`);
* every call is told to the behavior's
  :class:`~naoqi_qicore.robot.naoqi_compat.robot_work.RobotWork`, which stops the work it
  leaves running on the robot when the run ends.
"""
from __future__ import annotations

import sys
import threading
import traceback
from typing import Any

from naoqi_qicore.core.environment import BehaviorContext
from naoqi_qicore.core.events import WHERE_ROBOT_CALL, WHERE_STOP, BoxError
from naoqi_qicore.core.guard import BehaviorStopped
from naoqi_qicore.core.py2_text import Py2Bytes
from naoqi_qicore.robot.naoqi_compat.robot_work import RobotWork

#: ``qi.FutureTimeout.Infinite`` (waits with no limit), as box code passes it
_INFINITE = -1


def qi_value(value: Any) -> Any:
    """``value`` as libqi takes it: the Python 2 byte strings of box code
    (:class:`~naoqi_qicore.core.py2_text.Py2Bytes`, which libqi would try to publish as
    objects) become text, in lists, tuples and dictionaries too."""
    kind = type(value)
    if kind is Py2Bytes:
        return str(value)
    if kind is list or kind is tuple:
        items = [qi_value(item) for item in value]
        return kind(items) if any(a is not b for a, b in zip(items, value)) else value
    if kind is dict:
        pairs = [(qi_value(key), qi_value(item)) for key, item in value.items()]
        changed = any(a is not b or c is not d
                      for (a, c), (b, d) in zip(pairs, value.items()))
        return dict(pairs) if changed else value
    return value


def calling_box(context: BehaviorContext) -> str:
    """The box whose code makes the current call ("root" when it cannot be told)."""
    return context.guard.current_box() or "root"


def report_robot_call(context: BehaviorContext, message: str, cause: BaseException) -> None:
    """A call of box code that the robot cannot serve: an error of the run (with the box
    code's call stack)."""
    stack = list(traceback.walk_stack(sys._getframe(2)))[::-1]  # from the outermost
    frames = traceback.StackSummary.extract(stack)
    first = next((index for index, frame in enumerate(frames)
                  if context.guard.is_script(frame.filename)), 0)
    context.guard.name_frames(frames, [frame for frame, _ in stack])
    text = "Call stack (most recent call last):\n%s%s: %s\n" % (
        "".join(traceback.format_list(frames[first:])), type(cause).__name__, message)
    context.record_error(BoxError(calling_box(context), WHERE_ROBOT_CALL, message,
                                  type(cause).__name__, text), cause=cause)


def check_running(context: BehaviorContext, what: str) -> None:
    """Refuse a robot call of box code once its behavior is stopped (``BehaviorStopped``);
    the first refused call of each box is an error of the run."""
    guard = context.guard
    if not guard.closed:
        return
    box = calling_box(context)
    if guard.first_refusal(box):
        context.record_error(BoxError(box, WHERE_STOP, "box code still ran after the "
                                      "behavior stopped: its call %s was refused" % what))
    raise BehaviorStopped("the behavior is stopped: %s refused" % what)


def box_value(value: Any, what: str, context: BehaviorContext, work: RobotWork) -> Any:
    """What the robot returned, as box code gets it (qi objects and futures wrapped)."""
    kind = type(value).__name__
    if kind == "Object":
        return BoxService(value, what, context, work)
    if kind == "Future":
        return BoxFuture(value, context, work)
    return value


def _is_remote_method(attribute: Any) -> bool:
    """A method of a qi object (which can be called with ``_async=True``)."""
    return type(attribute).__name__ == "instancemethod"


class BoxFuture:
    """A qi future held by box code: waiting for it ends when the behavior stops, and its
    callbacks run as code of the box."""

    def __init__(self, future: Any, context: BehaviorContext, work: RobotWork) -> None:
        self._future = future
        self._context = context
        self._work = work

    def _await(self) -> None:
        done = threading.Event()
        self._future.addCallback(lambda _: done.set())
        self._context.guard.wait(done)

    def value(self, timeout: int = _INFINITE) -> Any:
        if timeout is None or timeout < 0:
            self._await()
            return self._future.value()
        return self._future.value(timeout)

    def wait(self, timeout: int = _INFINITE) -> Any:
        if timeout is None or timeout < 0:
            self._await()
            return self._future.wait(0)
        return self._future.wait(timeout)

    def _chain(self, method: str, callback: Any) -> Any:
        bound = self._context.guard.bind(callback)
        return box_value(getattr(self._future, method)(bound), "future", self._context,
                         self._work)

    def addCallback(self, callback: Any) -> Any:  # noqa: N802 (libqi's name)
        return self._chain("addCallback", callback)

    def then(self, callback: Any) -> Any:
        return self._chain("then", callback)

    def andThen(self, callback: Any) -> Any:  # noqa: N802 (libqi's name)
        return self._chain("andThen", callback)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._future, name)

    def __repr__(self) -> str:
        return repr(self._future)


class _BoxCall:
    """A method, signal or property ``name`` of ``service``: called with :func:`qi_value`
    arguments, refused once the behavior is stopped, told to the behavior's robot work; a
    method's answer is awaited on the behavior's guard.  ``connect`` binds its callback to
    the box; other attributes are the real ones."""

    def __init__(self, target: Any, service: str, name: str, context: BehaviorContext,
                 work: RobotWork) -> None:
        self._target = target
        self._service = service
        self._name = name
        self._what = "%s.%s" % (service, name)
        self._context = context
        self._work = work

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        check_running(self._context, self._what)
        args = tuple(qi_value(arg) for arg in args)
        kwargs = {key: qi_value(item) for key, item in kwargs.items()}
        if not _is_remote_method(self._target):
            return box_value(self._target(*args, **kwargs), self._what, self._context,
                             self._work)
        asked_async = kwargs.pop("_async", False)
        future = self._target(*args, _async=True, **kwargs)
        self._work.started(self._service, self._name, args, future)
        if asked_async:
            return box_value(future, self._what, self._context, self._work)
        answered = threading.Event()
        future.addCallback(lambda _: answered.set())
        self._context.guard.wait(answered)
        if future.hasError():
            raise RuntimeError(future.error())
        return box_value(future.value(), self._what, self._context, self._work)

    def connect(self, callback: Any, *args: Any, **kwargs: Any) -> Any:
        """Connect ``callback`` (run as the connecting box's code) to the signal."""
        check_running(self._context, self._what + ".connect")
        return self._target.connect(self._context.guard.bind(callback), *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._target, name)


class BoxService:
    """A service (or any qi object of the robot) as box code holds it (calls:
    :class:`_BoxCall`); a method it does not have is an error of the run."""

    def __init__(self, service: Any, name: str, context: BehaviorContext,
                 work: RobotWork) -> None:
        self._service = service
        self._name = name
        self._context = context
        self._work = work

    def __getattr__(self, name: str) -> Any:
        try:
            attribute = getattr(self._service, name)
        except AttributeError as error:
            if not name.startswith("_"):
                report_robot_call(self._context, "%s has no method %s()" % (self._name, name),
                                  error)
            raise
        if not callable(attribute) and not hasattr(attribute, "connect"):
            return attribute
        return _BoxCall(attribute, self._name, name, self._context, self._work)

    def __repr__(self) -> str:
        return repr(self._service)
