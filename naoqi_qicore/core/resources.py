"""Robot resources (speech, motors, leds...) shared by the boxes of the behaviors of a process.

A box declares resources with a mode (reference §1.8, §4.9):

* ``Lock``: whoever asks while it is held waits up to the asker's timeout;
* ``Stop on demand``: an asker takes it at once, the holder is told to stop;
* ``Pause on demand``: an asker takes it at once, the holder is paused until it is free;
* ``Callback on demand``: an asker waits, the holder is told (its ``onResource``).

Holders form a tree, the boxes': as NAOqi's ALResourceManager (``waitForResourcesTree``:
"parent and children are not in conflict"), a box inside the box holding a resource may
take it too (Choregraphe's Stand Up box holds "All motors" while its Goto Posture box
moves), and only holders outside that line of boxes are asked or waited for.

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

    #: the holder this one is inside (None for a behavior's root)
    parent: Optional["ResourceHolder"]

    def resource_requested(self, resource: str, mode: str) -> None:
        """Another box asks for ``resource`` that this one holds with ``mode``."""


def _inside(holder: ResourceHolder, other: ResourceHolder) -> bool:
    """Whether ``holder`` is ``other`` or a box inside it."""
    node: Optional[ResourceHolder] = holder
    while node is not None:
        if node is other:
            return True
        node = node.parent
    return False


def _related(holder: ResourceHolder, other: ResourceHolder) -> bool:
    """Whether the two are on one line of boxes (one inside the other): no conflict."""
    return _inside(holder, other) or _inside(other, holder)


class ResourceManager:
    """Owners of named resources, in one process."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        #: resource -> its holders, outermost first, with their mode (one line of boxes)
        self._owners: Dict[str, List[Tuple[ResourceHolder, str]]] = {}

    def owner(self, resource: str) -> Optional[ResourceHolder]:
        """The outermost holder of ``resource`` (None when it is free)."""
        with self._condition:
            holders = self._owners.get(resource)
            return holders[0][0] if holders else None

    def are_free(self, resources: Sequence[str]) -> bool:
        with self._condition:
            return not any(self._owners.get(name) for name in resources)

    def _blockers(self, holder: ResourceHolder, wanted: Sequence[Tuple[str, str]]
                  ) -> List[Tuple[str, ResourceHolder, str]]:
        """``(resource, holder, mode)`` of the holders in ``holder``'s way (lock held)."""
        return [(name, other, mode) for name, _ in wanted
                for other, mode in self._owners.get(name, ())
                if not _related(holder, other)]

    def acquire(self, holder: ResourceHolder, wanted: Sequence[Tuple[str, str]],
                timeout: float) -> bool:
        """Take every ``(resource, mode)`` of ``wanted`` for ``holder`` (all or none).

        Holders in the way in a "on demand" mode are told; waits at most ``timeout`` s
        (0: no wait) for them to let the resources go.  Returns False when they did not.
        """
        deadline = time.monotonic() + max(0.0, timeout)
        told: List[ResourceHolder] = []
        while True:
            with self._condition:
                blockers = self._blockers(holder, wanted)
                if not blockers:
                    for name, mode in wanted:
                        holders = self._owners.setdefault(name, [])
                        if all(other is not holder for other, _ in holders):
                            holders.append((holder, mode))
                    return True
                pending = [(name, other, mode) for name, other, mode in blockers
                           if mode != LOCK and other not in told]
                if not pending and deadline - time.monotonic() <= 0:
                    return False
            for name, other, mode in pending:
                told.append(other)
                other.resource_requested(name, mode)
            with self._condition:
                if self._blockers(holder, wanted):
                    remaining = deadline - time.monotonic()
                    if remaining > 0:
                        self._condition.wait(remaining)
                    elif not pending:
                        return False

    def holders_in_the_way(self, holder: ResourceHolder,
                           resources: Sequence[str]) -> List[ResourceHolder]:
        """Who holds some of ``resources`` and is not on ``holder``'s line of boxes."""
        with self._condition:
            found: List[ResourceHolder] = []
            for _, other, _ in self._blockers(holder, [(name, LOCK) for name in resources]):
                if other not in found:
                    found.append(other)
            return found

    def release(self, holder: ResourceHolder, resources: Optional[Sequence[str]] = None) -> None:
        """Give back ``resources`` (all of the holder's when None)."""
        with self._condition:
            for name in list(self._owners):
                if resources is None or name in resources:
                    holders = [entry for entry in self._owners[name] if entry[0] is not holder]
                    if holders:
                        self._owners[name] = holders
                    else:
                        del self._owners[name]
            self._condition.notify_all()

    def held_by(self, holder: ResourceHolder) -> List[str]:
        with self._condition:
            return [name for name, holders in self._owners.items()
                    if any(other is holder for other, _ in holders)]
