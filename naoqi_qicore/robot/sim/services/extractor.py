"""Extractors: NAOqi modules that work while at least one module subscribes to them.

A subscriber is a client's module name, or another simulated service working on top of this
one (ALBasicAwareness on ALPeoplePerception, ALPeoplePerception on ALFaceDetection...), as
on a robot.  An extractor produces while it has subscribers and is not paused
(:meth:`Extractor._producing`).
"""
from typing import Any, Dict, List, Tuple

from naoqi_qicore.robot.sim.services.module import SimModule

DEFAULT_PERIOD_MS = 30
DEFAULT_PRECISION = 1.0


class Extractor(SimModule):
    """subscribe/unsubscribe and the other methods of every extractor; subclasses react to
    start and stop, and name the ALMemory keys they write (``OUTPUTS``) and the events they
    raise (``EVENTS``)."""

    OUTPUTS: Tuple[str, ...] = ()
    EVENTS: Tuple[str, ...] = ()

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._subscribers: Dict[str, List[Any]] = {}
        self._paused = False

    def _started(self) -> None:
        """The first subscriber arrived."""

    def _stopped(self) -> None:
        """The last subscriber left."""

    def _producing(self) -> bool:
        """Whether the extractor works now: subscribed to and not paused."""
        with self._lock:
            return bool(self._subscribers) and not self._paused

    def subscribe(self, name: str, period: int = DEFAULT_PERIOD_MS,
                  precision: float = DEFAULT_PRECISION) -> None:
        """Start working for ``name`` (period in ms, precision in [0, 1])."""
        with self._lock:
            first = not self._subscribers
            self._subscribers[name] = [name, period, precision]
        if first:
            self._started()

    def unsubscribe(self, name: str) -> None:
        """Stop working for ``name``."""
        with self._lock:
            if name not in self._subscribers:
                raise self._error("unsubscribe", "module '%s' is not subscribed" % name)
            del self._subscribers[name]
            last = not self._subscribers
        if last:
            self._stopped()

    def _subscriber(self, method: str, name: str) -> List[Any]:
        info = self._subscribers.get(name)
        if info is None:
            raise self._error(method, "module '%s' is not subscribed" % name)
        return info

    def updatePeriod(self, name: str, period: int) -> None:
        """Change the period (ms) ``name`` asked for."""
        with self._lock:
            self._subscriber("updatePeriod", name)[1] = period

    def updatePrecision(self, name: str, precision: float) -> None:
        """Change the precision ``name`` asked for."""
        with self._lock:
            self._subscriber("updatePrecision", name)[2] = precision

    def getSubscribersInfo(self) -> List[List[Any]]:
        """[[name, period, precision]] of the subscribers."""
        with self._lock:
            return [list(info) for info in self._subscribers.values()]

    def getCurrentPeriod(self) -> int:
        """Shortest period asked for, in ms."""
        with self._lock:
            return min((p for _, p, _ in self._subscribers.values()), default=DEFAULT_PERIOD_MS)

    def getCurrentPrecision(self) -> float:
        """Highest precision asked for."""
        with self._lock:
            return max((p for _, _, p in self._subscribers.values()), default=DEFAULT_PRECISION)

    def getMyPeriod(self, name: str) -> int:
        """The period ``name`` asked for (ms)."""
        with self._lock:
            return self._subscriber("getMyPeriod", name)[1]

    def getMyPrecision(self, name: str) -> float:
        """The precision ``name`` asked for."""
        with self._lock:
            return self._subscriber("getMyPrecision", name)[2]

    def getOutputNames(self) -> List[str]:
        """The ALMemory keys the extractor writes."""
        return list(self.OUTPUTS)

    def getEventList(self) -> List[str]:
        """The ALMemory events the extractor raises."""
        return list(self.EVENTS)

    def getMemoryKeyList(self) -> List[str]:
        """Every ALMemory key the extractor writes or raises."""
        return sorted(set(self.OUTPUTS) | set(self.EVENTS))

    def pause(self, paused: bool) -> None:
        """Pause (True) or resume (False) the extractor, keeping its subscribers."""
        with self._lock:
            self._paused = paused

    def isPaused(self) -> bool:
        """Whether the extractor is paused."""
        with self._lock:
            return self._paused

    def isProcessing(self) -> bool:
        """Whether the extractor works now (subscribed to and not paused)."""
        return self._producing()
