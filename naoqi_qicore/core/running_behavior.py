"""What the boxes of a behavior may ask of the behavior that runs them.

:class:`RunningBehavior` is the interface between the boxes
(:mod:`~naoqi_qicore.core.box`, :mod:`~naoqi_qicore.core.generated`) and the
:class:`~naoqi_qicore.core.player.BehaviorPlayer` that builds and plays them: the player
depends on the boxes, the boxes only on this interface.
"""
from __future__ import annotations

import threading
from typing import Any, Callable, Optional, Protocol

from naoqi_qicore.core.clock import Clock
from naoqi_qicore.core.events import BoxError, RunWarning
from naoqi_qicore.core.guard import BoxCodeGuard
from naoqi_qicore.core.motion import MotionSink
from naoqi_qicore.core.resources import ResourceManager
from naoqi_qicore.core.statemachine import TransitionQueue


class RunningBehavior(Protocol):
    """The behavior a box belongs to, as its box sees it."""

    #: the behavior's id (``self.behaviorId`` of box code)
    behavior_id: str
    #: the folder of the behavior's files, its package's id and the folder relative to it
    behavior_path: str
    package_uid: str
    behavior_relative_path: str
    #: the session box code gets from ``self.session()``
    box_session: Any
    #: schedules timeline frames
    clock: Clock
    #: where timelines send their motion
    motion: MotionSink
    #: the robot's resources, shared with the other behaviors of the process
    resources: ResourceManager
    #: the engine's lock: box structure (loads, starts, states) changes under it
    lock: threading.RLock
    #: the worker applying the state changes of every state machine of the behavior
    transitions: TransitionQueue
    #: runs box code and ends it when the behavior stops
    guard: BoxCodeGuard
    #: True while the behavior stops: outputs and inputs go nowhere
    stopping: bool

    def run_task(self, task: Callable[[], None]) -> None:
        """Run ``task`` in a box thread."""

    def emit(self, kind: str, box_path: str, detail: str = "", **data: Any) -> None:
        """Tell the behavior's listener what happened (an ``EngineEvent``)."""

    def warn(self, message: str) -> None:
        """A problem of the engine's own (logged), not the run's."""

    def record_error(self, error: BoxError, cause: Optional[BaseException] = None) -> None:
        """An error of the run."""

    def record_warning(self, warning: RunWarning) -> None:
        """A warning of the run: something the user must know that did not fail it."""

    def root_failed(self, error: BoxError) -> None:
        """A method of the root box failed: the run ends with ERROR."""

    def root_stopped(self, why: str) -> None:
        """The root box ended (a Stopped output, its timeline's end): the run FINISHED."""

    def finish(self) -> None:
        """End the behavior from inside (``exitBehavior``)."""

    def memory_subscribe(self, key: str, callback: Callable[[Any], None]) -> Any:
        """Call ``callback(value)`` on every new value of ALMemory ``key``; a handle or
        None."""

    def memory_unsubscribe(self, handle: Any) -> None:
        """Undo :meth:`memory_subscribe`."""
