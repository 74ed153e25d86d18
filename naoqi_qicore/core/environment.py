"""What box scripts find in their namespace besides the engine's own API.

The engine does not know NAOqi's Python SDK: whoever creates a player may give it a
:data:`BoxEnvironmentFactory` (the robot layer provides one with ``naoqi``/``almath``
compatibility modules and ``ALProxy``) that receives the behavior's
:class:`BehaviorContext` and returns a :class:`ScriptEnvironment`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable, Dict, Optional

from naoqi_qicore.core.guard import BoxCodeGuard


@dataclass
class BehaviorContext:
    """What the environment of one behavior may use."""

    #: the qi session (or any object with ``service(name)``) given to the player
    session: Any
    #: the behavior's in-process ALFrameManager (``getBehaviorPath``, ``getTimelineFps``...)
    frame_manager: Any
    #: the behavior's identifier (what box scripts see as ``self.behaviorId``)
    behavior_id: str
    #: folder of the behavior's files (sounds, images...)
    behavior_path: str
    #: the script object of the box of that name (``self.getName()``), or None: NAOqi
    #: boxes are modules that ALMemory.subscribeToEvent(event, box name, method) calls back
    box_object: Callable[[str], Optional[Any]] = lambda name: None
    #: what box code may still do (its robot calls go through it) and which box runs
    guard: BoxCodeGuard = field(default_factory=BoxCodeGuard)
    #: records an error of the run: ``record_error(box_error, cause=exception)``
    record_error: Callable[..., None] = lambda error, cause=None: None
    #: records a warning of the run: ``record_warning(run_warning)``
    record_warning: Callable[[Any], None] = lambda warning: None


@dataclass
class ScriptEnvironment:
    """Modules box code can import, names put in every box's module globals and the
    session box scripts get."""

    #: importable module name -> module (wins over ``sys.modules`` inside box code)
    modules: Dict[str, ModuleType] = field(default_factory=dict)
    #: global name -> value
    names: Dict[str, Any] = field(default_factory=dict)
    #: what ``self.session()`` returns to box scripts (None: the player's session)
    session: Optional[Any] = None
    #: called once the behavior is unloaded (ends what the environment started for it)
    close: Optional[Callable[[], None]] = None
    #: called each time a run ends, once box code can no longer call the robot: stops the
    #: work box code started there and left running (speech, sounds, LED animations...)
    stop: Optional[Callable[[], None]] = None
    #: maps the paths box code opens itself (the robot's, e.g. ``/home/nao/...``) to files
    #: of this machine, see :mod:`naoqi_qicore.core.box_paths` (None: as they are)
    paths: Optional[Callable[[str], str]] = None
    #: the robot's temporary folder as this machine has it: where box code's ``tempfile``
    #: makes files (None: this machine's)
    temporary_folder: Optional[str] = None


BoxEnvironmentFactory = Callable[[BehaviorContext], ScriptEnvironment]


def bare_environment(context: BehaviorContext) -> ScriptEnvironment:
    """No NAOqi SDK: box code only gets the engine's names."""
    return ScriptEnvironment()
