"""What the engine reports to its listener: events, the errors and warnings of a run, error
types."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict

#: the kinds of :class:`EngineEvent`
EVENT_KINDS = ("status", "frame", "state_entered", "box_loaded", "box_unloaded",
               "box_started", "output_fired", "error", "warning", "motion")

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

#: ``BoxError.where`` of a failure outside a box method
WHERE_SCRIPT = "script"
WHERE_ROBOT_CALL = "robot call"
WHERE_ROBOT_SERVICE = "robot service"
WHERE_MOTION = "motion"
WHERE_STOP = "stop"
#: a service of the behavior's application (its ``manifest.xml``'s) that failed on the robot
WHERE_APP_SERVICE = "app service"


@dataclass(frozen=True)
class BoxError:
    """One failure of a run (an "error" :class:`EngineEvent` carries it as ``data["error"]``).

    ``where`` is the box method's input or life-cycle name ("onLoad", "onStart", "text"...)
    or one of ``WHERE_SCRIPT`` (the script does not load), ``WHERE_ROBOT_CALL`` (box code
    called a service or method the robot does not have), ``WHERE_ROBOT_SERVICE`` (the
    robot did not offer a service the box's code calls when the behavior loaded),
    ``WHERE_MOTION`` (the robot rejected or interrupted a motion segment of the box's
    timeline), ``WHERE_STOP`` (box code that could not be stopped) and
    ``WHERE_APP_SERVICE`` (a service of the behavior's application could not start or
    crashed on the robot).
    """

    box_path: str
    where: str
    message: str
    exception_type: str = ""
    traceback: str = ""
    #: wall-clock time (``time.time()``)
    time: float = field(default_factory=time.time)

    def text(self) -> str:
        """One line: ``root/Say: onStart: RuntimeError: BOOM``."""
        kind = self.exception_type + ": " if self.exception_type else ""
        return "%s: %s: %s%s" % (self.box_path, self.where, kind, self.message)


#: ``RunWarning.where`` of a line a box's code logged at WARNING or above (``self.logger``)
WHERE_LOG = "log"
#: ``RunWarning.where`` of a box that ended because its resources stayed busy
WHERE_RESOURCES = "resources"
#: ``RunWarning.where`` of a call box code posted (``post``, ``pCall``) that failed on the
#: robot (no caller was left to receive its error)
WHERE_POSTED_CALL = "posted call"


@dataclass(frozen=True)
class RunWarning:
    """Something of a run the user must know that did not make it fail: part of what the
    behavior says was not done (a "warning" :class:`EngineEvent` carries it as
    ``data["warning"]``).

    ``where`` is ``WHERE_MOTION`` (keys of joints the robot lacks left out of the box's
    timeline), ``WHERE_RESOURCES`` (the box ended without running: its resources stayed
    busy), ``WHERE_POSTED_CALL`` (a call box code posted failed on the robot) or
    ``WHERE_LOG`` (box code logged a warning or an error: its message is the line, after
    the level's name when above WARNING).
    """

    box_path: str
    where: str
    message: str
    #: wall-clock time (``time.time()``)
    time: float = field(default_factory=time.time)

    def text(self) -> str:
        """One line: ``root/Dance: motion: the robot has no joint LAnklePitch...``."""
        return "%s: %s: %s" % (self.box_path, self.where, self.message)


class GotoError(ValueError):
    """A goto to a label or frame that the timeline does not have."""


class BehaviorLoadError(RuntimeError):
    """A behavior that cannot be loaded (bad structure, box script that does not compile)."""
