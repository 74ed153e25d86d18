"""Extractors: NAOqi modules that work while at least one module subscribes to them."""
from typing import Any, Dict, List

from naoqi_qicore.robot.sim.services.module import SimModule

DEFAULT_PERIOD_MS = 30


class Extractor(SimModule):
    """subscribe/unsubscribe/getSubscribersInfo; subclasses react to start and stop."""

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._subscribers: Dict[str, List[Any]] = {}

    def _started(self) -> None:
        """The first subscriber arrived."""

    def _stopped(self) -> None:
        """The last subscriber left."""

    def subscribe(self, name: str, period: int = DEFAULT_PERIOD_MS,
                  precision: float = 1.0) -> None:
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

    def getSubscribersInfo(self) -> List[List[Any]]:
        """[[name, period, precision]] of the subscribers."""
        with self._lock:
            return [list(info) for info in self._subscribers.values()]

    def getCurrentPeriod(self) -> int:
        """Shortest period asked for, in ms."""
        with self._lock:
            return min((p for _, p, _ in self._subscribers.values()), default=DEFAULT_PERIOD_MS)
