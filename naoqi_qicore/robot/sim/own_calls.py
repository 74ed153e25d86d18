"""What the simulated robot does of its own accord, in its call record.

A client's calls are recorded by the facade libqi serves them through
(:mod:`naoqi_qicore.robot.sim.facade`); what the robot does by itself (the sentences,
animations and variables of ALDialog's answers, the services a topic calls, the animations
of an animated speech) goes through no facade, so it is recorded here, as the calls it
amounts to, marked ``"own": true`` (see :mod:`naoqi_qicore.robot.sim.recorder`):

* :class:`OwnCall`: one such call, in the record from its start, its end added by
  :meth:`OwnCall.done`;
* :func:`call_own`: calls a service of the robot in its own process as the robot itself
  does, recorded from its start to its end (a call answering with a future is waited for);
* :class:`OwnService`: a service of the robot whose every call is recorded as the robot's
  own (what a topic's ``%script`` reaches by the service's name).

The context's ``record`` is the robot's :class:`~naoqi_qicore.robot.sim.recorder.CallRecord`
(None: nothing is recorded).
"""
from __future__ import annotations

from concurrent.futures import Future
from typing import Any, Callable, Optional, Sequence


class OwnCall:
    """``service.method(*args)`` the robot makes of its own accord, recorded when it starts."""

    def __init__(self, sim: Any, service: str, method: str, args: Sequence[Any]) -> None:
        self._record = sim.record
        self._index: Optional[int] = None
        if self._record is not None:
            self._index = self._record.start(service, method, list(args), own=True)

    def done(self, result: Any = None, error: Optional[BaseException] = None) -> None:
        """Record its end: its ``result``, or its ``error`` (once; later calls do nothing)."""
        index, self._index = self._index, None
        if index is not None:
            self._record.end(index, result, None if error is None
                             else "%s: %s" % (type(error).__name__, error))


def call_own(sim: Any, service: str, method: str, *args: Any) -> Any:
    """``service.method(*args)`` called in the robot's process as the robot's own, recorded;
    its result (a future's once it is done), or its error raised."""
    own = OwnCall(sim, service, method, args)
    try:
        result = getattr(sim.service(service), method)(*args)
        if isinstance(result, Future):
            result = result.result()
    except BaseException as error:
        own.done(error=error)
        raise
    own.done(result)
    return result


class OwnService:
    """A service of the robot as a topic's code sees it: ``OwnService(sim,
    "ALMemory").getData("x")`` calls the service in the robot's process, recorded as the
    robot's own."""

    def __init__(self, sim: Any, name: str) -> None:
        self._sim = sim
        self._name = name

    def __getattr__(self, method: str) -> Callable[..., Any]:
        if method.startswith("_") or not callable(getattr(self._sim.service(self._name),
                                                          method, None)):
            raise AttributeError("%s has no method '%s'" % (self._name, method))
        return lambda *args: call_own(self._sim, self._name, method, *args)

    def __repr__(self) -> str:
        return "<service %s>" % self._name
