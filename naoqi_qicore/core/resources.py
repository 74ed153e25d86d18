"""Robot resources (speech, motors, leds...) shared by the boxes of the behaviors of a process.

A box declares resources with a mode (reference §1.8, §4.9):

* ``Lock``: whoever asks while it is held waits up to the asker's timeout;
* ``Stop on demand``: an asker takes it at once, the holder is told to stop;
* ``Pause on demand``: an asker takes it at once, the holder is paused until it is free;
* ``Callback on demand``: an asker waits, the holder is told (its ``onResource``).

:class:`ResourceManager` only decides and keeps owners; what "told to stop/pause" means
is the holder's :class:`ResourceHolder` business (the engine's boxes).
"""
from __future__ import annotations

import threading
import time
from typing import Dict, List, Optional, Sequence, Tuple

try:
    from typing import Protocol
except ImportError:  # pragma: no cover
    Protocol = object  # type: ignore

LOCK = "Lock"
STOP_ON_DEMAND = "Stop on demand"
PAUSE_ON_DEMAND = "Pause on demand"
CALLBACK_ON_DEMAND = "Callback on demand"
MODES = (LOCK, STOP_ON_DEMAND, PAUSE_ON_DEMAND, CALLBACK_ON_DEMAND)


class ResourceHolder(Protocol):
    """A box holding resources."""

    def resource_requested(self, resource: str, mode: str) -> None:
        """Another box asks for ``resource`` that this one holds with ``mode``."""


class ResourceManager:
    """Owners of named resources, in one process."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        #: resource -> (holder, mode)
        self._owners: Dict[str, Tuple[ResourceHolder, str]] = {}

    def owner(self, resource: str) -> Optional[ResourceHolder]:
        with self._condition:
            entry = self._owners.get(resource)
            return entry[0] if entry else None

    def are_free(self, resources: Sequence[str]) -> bool:
        with self._condition:
            return not any(name in self._owners for name in resources)

    def acquire(self, holder: ResourceHolder, wanted: Sequence[Tuple[str, str]],
                timeout: float) -> bool:
        """Take every ``(resource, mode)`` of ``wanted`` for ``holder`` (all or none).

        Holders in a "on demand" mode are told; waits at most ``timeout`` s (0: no wait)
        for the resources to be free.  Returns False when they are not.
        """
        deadline = time.monotonic() + max(0.0, timeout)
        told: List[ResourceHolder] = []
        while True:
            with self._condition:
                blockers = [(name, entry) for name, _ in wanted
                            for entry in [self._owners.get(name)]
                            if entry is not None and entry[0] is not holder]
                if not blockers:
                    for name, mode in wanted:
                        self._owners[name] = (holder, mode)
                    return True
                pending = [(name, entry) for name, entry in blockers
                           if entry[1] != LOCK and entry[0] not in told]
                remaining = deadline - time.monotonic()
                if not pending and remaining <= 0:
                    return False
            for name, (other, mode) in pending:
                told.append(other)
                other.resource_requested(name, mode)
            with self._condition:
                if any(self._owners.get(name, (None,))[0] not in (None, holder)
                       for name, _ in wanted):
                    remaining = deadline - time.monotonic()
                    if remaining > 0:
                        self._condition.wait(remaining)
                    elif not pending:
                        return False

    def release(self, holder: ResourceHolder, resources: Optional[Sequence[str]] = None) -> None:
        """Give back ``resources`` (all of the holder's when None)."""
        with self._condition:
            for name in list(self._owners):
                if self._owners[name][0] is holder and (resources is None or name in resources):
                    del self._owners[name]
            self._condition.notify_all()

    def held_by(self, holder: ResourceHolder) -> List[str]:
        with self._condition:
            return [name for name, entry in self._owners.items() if entry[0] is holder]
