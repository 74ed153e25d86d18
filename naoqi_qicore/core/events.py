"""What the engine reports to its listener, and its error types."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict

#: the kinds of :class:`EngineEvent`
EVENT_KINDS = ("status", "frame", "state_entered", "box_loaded", "box_unloaded",
               "box_started", "output_fired", "error", "motion")

#: the values of ``BehaviorPlayer.status``
STATUSES = ("IDLE", "LOADED", "PLAYING", "PAUSED", "STOPPED", "FINISHED", "ERROR")


@dataclass(frozen=True)
class EngineEvent:
    """One thing that happened in a behavior.

    ``box_path`` is the path of the box concerned ("root/Say"; "root" for the behavior),
    ``detail`` a short text (status name, frame number, state name, output name, error
    message with traceback...); ``data`` carries structured values when there are any
    (e.g. ``{"frame": 12}``, ``{"segment_id": 3}``).
    """

    kind: str
    box_path: str
    detail: str = ""
    data: Dict[str, Any] = field(default_factory=dict)


Listener = Callable[[EngineEvent], None]


class GotoError(ValueError):
    """A goto to a label or frame that the timeline does not have."""


class BehaviorLoadError(RuntimeError):
    """A behavior that cannot be loaded (bad structure, box script that does not compile)."""
