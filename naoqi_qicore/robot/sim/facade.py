"""How a plain Python service object is shown to libqi: a recording facade.

:func:`recording_facade` builds, for one service object, an object that libqi registers:

* each public method (no leading underscore, not ``close``, not ``qi.nobind``) becomes a
  method that calls the service's own and records the call in a :class:`CallRecord` when
  it starts, then its result or its error when it ends (the error still reaches the
  client);
* each ``qi.Signal`` / ``qi.Property`` attribute of the service is exposed as itself;
* calls may run concurrently (``qi.multiThreaded``): a blocking call (a motion, a speech)
  does not hold back the service's other methods, as on the real robot;
* a method that returns a ``concurrent.futures.Future`` (a deferred one, see
  ``services.module.deferred``) answers the client when that future is done, holding no
  thread meanwhile; the client cancelling its call cancels the future.  The call's end
  is recorded when the future is done;
* a failed call answers the client a NAOqi-like message (:func:`client_error`), never a
  Python traceback or a path of this machine (libqi would add the traceback to an error
  raised to it): what went wrong inside goes to the simulated robot's own log.
"""
from __future__ import annotations

import inspect
import logging
from concurrent.futures import Future
from typing import Any, Callable, Dict, Optional

import qi

from naoqi_qicore.robot.sim.recorder import CallRecord

_QI_ATTRIBUTES = ("__qi_name__", "__qi_signature__", "__qi_return_signature__")
#: the parameters signature libqi gives a method taking ``*args`` (any arguments): given to
#: the facade's methods beforehand, it spares libqi an ``inspect.signature`` of each at
#: registration (about half of the robot's start-up registering 3,000 methods)
ANY_ARGUMENTS = "m"
POST_METHOD = "pCall"
#: the errors whose message is a service's own answer (its NAOqi-like errors, its argument
#: checks)
ANSWERED_ERRORS = (RuntimeError, TypeError, ValueError)
#: what libqi appends to the message of an error raised to it: the Python traceback
_TRACEBACK_MARK = "\n\nAt:\n"
_LOG = logging.getLogger(__name__)


def client_error(service: str, method: str, error: BaseException) -> str:
    """What a client is told of ``error``, raised by ``service.method``: a service's own
    message (without the traceback of a call it made itself); for a file error, only its
    reason (its paths are this machine's); for anything else, that the simulated robot
    failed, the details, traceback included, going to its log."""
    if isinstance(error, OSError):
        _LOG.warning("%s.%s: %r", service, method, error)
        return "OSError: %s::%s: %s" % (service, method, error.strerror or "file error")
    if isinstance(error, ANSWERED_ERRORS):
        return "%s: %s" % (type(error).__name__, str(error).split(_TRACEBACK_MARK, 1)[0])
    _LOG.error("%s.%s failed", service, method, exc_info=error)
    return ("RuntimeError: %s::%s: the simulated robot failed (%s; its log has the details)"
            % (service, method, type(error).__name__))


def failed_future(message: str) -> Any:
    """A qi future failed with ``message`` as it is (what a client's call raises)."""
    promise = qi.Promise()
    promise.setError(message)
    return promise.future()


def public_methods(service: Any) -> Dict[str, Callable]:
    """The NAOqi methods of ``service``: name -> class attribute."""
    methods = {}
    for name in dir(type(service)):
        if name.startswith("_") or name == "close":
            continue
        member = inspect.getattr_static(type(service), name)
        function = getattr(member, "__func__", member)
        if not inspect.isfunction(function):
            continue
        if getattr(function, "__qi_signature__", None) == "DONOTBIND":
            continue
        methods[name] = function
    return methods


def qi_future(future: "Future[Any]", service: str, method: str) -> Any:
    """A qi future completed as ``future`` (of ``service.method``) is; cancelling it cancels
    ``future``; its error is answered as :func:`client_error` says."""
    promise = qi.Promise(lambda _: future.cancel())

    def settle(done: "Future[Any]") -> None:
        if done.cancelled():
            promise.setCanceled()
        elif done.exception() is not None:
            promise.setError(client_error(service, method, done.exception()))
        else:
            promise.setValue(done.result())
    future.add_done_callback(settle)
    return promise.future()


def _recording_method(service_name: str, method_name: str, target: Callable,
                      record: Optional[CallRecord], template: Callable) -> Callable:
    def call(self: Any, *args: Any) -> Any:
        method, arguments, post = method_name, list(args), False
        if method_name == POST_METHOD and args and isinstance(args[0], str):
            method, arguments, post = args[0], list(args[1:]), True
        index = None if record is None else record.start(service_name, method, arguments,
                                                         post=post)

        def end(result: Any = None, error: Any = None) -> None:
            if record is not None:
                record.end(index, result, None if error is None
                           else "%s: %s" % (type(error).__name__, error))
        try:
            result = target(*args)
        except Exception as error:
            end(error=error)
            return failed_future(client_error(service_name, method, error))
        if not isinstance(result, Future):
            end(result)
            return result

        def ended(done: "Future[Any]") -> None:
            if done.cancelled():
                end(error=RuntimeError("cancelled"))
            else:
                end(done.result() if done.exception() is None else None, done.exception())
        result.add_done_callback(ended)
        return qi_future(result, service_name, method)

    call.__name__ = method_name
    call.__doc__ = template.__doc__
    call.__qi_signature__ = ANY_ARGUMENTS  # type: ignore[attr-defined]
    for attribute in _QI_ATTRIBUTES:
        if getattr(template, attribute, None) is not None:
            setattr(call, attribute, getattr(template, attribute))
    return call


def recording_facade(service_name: str, service: Any,
                     record: Optional[CallRecord] = None) -> Any:
    """An object for ``qi.Session.registerService`` that serves ``service`` and records its
    calls in ``record`` (None: not recorded, for the robot's control services) under the
    names clients call them by (``_stopAll`` for a private method of NAOqi)."""
    attributes: Dict[str, Any] = {}
    for name, function in public_methods(service).items():
        attributes[name] = _recording_method(service_name,
                                             getattr(function, "__qi_name__", None) or name,
                                             getattr(service, name), record, function)
    facade_class = qi.multiThreaded()(type(service_name, (), attributes))
    facade = facade_class()
    for name, value in vars(service).items():
        if not name.startswith("_") and isinstance(value, (qi.Signal, qi.Property)):
            setattr(facade, name, value)
    return facade
