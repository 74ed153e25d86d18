"""The box script API: ``GeneratedClass`` and what its methods reach.

A box script defines ``class MyClass(GeneratedClass)``; the engine creates the object
with its box already attached, so ``GeneratedClass.__init__(self[, autoBind])`` only
keeps NAOqi's signature.  Each box gets its own subclass of :class:`GeneratedClass`
holding one method per output (``self.onStopped(p=None)``...), which the script may
override.  Also here: :class:`TimelineControl` (what ``getTimeline()`` and
``getParentTimeline()`` return) and :class:`FrameManager`, the behavior's in-process
ALFrameManager (reference §4, §5.3).
"""
from __future__ import annotations

import logging
import os
from typing import Any, Callable, Dict, Iterable, List, Optional, Union

from naoqi_qicore.core.box import BoxContent, BoxNode
from naoqi_qicore.core.events import GotoError
from naoqi_qicore.core.running_behavior import RunningBehavior

Target = Union[str, int]


class TimelineControl:
    """A box's timeline as box scripts drive it (``getTimeline()``)."""

    def __init__(self, content: BoxContent) -> None:
        self._content = content

    def play(self) -> None:
        """Play (or resume) the timeline, loading its states if needed."""
        self._content.start()
        self._content.play()

    def pause(self) -> None:
        """Stop at the current frame; the keyframes' boxes keep running."""
        self._content.pause()

    def stop(self) -> None:
        self._content.pause()

    def goTo(self, target: Target) -> int:  # noqa: N802 (NAOqi names)
        """Jump to a frame number or keyframe name, playing or not as before."""
        return self._content.goto(target, None)

    def gotoAndPlay(self, target: Target) -> int:  # noqa: N802
        return self._content.goto(target, True)

    def gotoAndStop(self, target: Target) -> int:  # noqa: N802
        return self._content.goto(target, False)

    def setFPS(self, fps: float) -> None:  # noqa: N802
        if self._content.timeline is not None:
            self._content.timeline.set_fps(fps)

    def getFPS(self) -> float:  # noqa: N802
        timeline = self._content.timeline
        return timeline.fps if timeline is not None else 0

    def getSize(self) -> int:  # noqa: N802
        timeline = self._content.timeline
        return timeline.size if timeline is not None else 0

    def getFrame(self) -> int:  # noqa: N802
        return self._content.frame


def _control(box: Optional[BoxNode]) -> Optional[TimelineControl]:
    if box is None or box.content is None:
        return None
    return TimelineControl(box.content)


class GeneratedClass:
    """Base class of every box script's class."""

    _box: BoxNode

    def __init__(self, autoBind: bool = True) -> None:  # noqa: N803 (NAOqi name)
        self.resource = bool(self._box.model.resources)

    # -- identity and logging ----------------------------------------------------------------
    @property
    def logger(self) -> logging.Logger:
        return self._box.logger

    @property
    def behaviorId(self) -> str:  # noqa: N802
        return self._box.player.behavior_id

    @property
    def boxName(self) -> str:  # noqa: N802
        return self._box.name

    def getName(self) -> str:  # noqa: N802
        return self._box.name

    def log(self, message: Any) -> None:
        self.logger.info("%s", message)

    def print_debug(self, message: Any) -> None:
        self.logger.debug("%s", message)

    def print_info(self, message: Any) -> None:
        self.logger.info("%s", message)

    def print_warn(self, message: Any) -> None:
        self.logger.warning("%s", message)

    def print_error(self, message: Any) -> None:
        self.logger.error("%s", message)

    def print_fatal(self, message: Any) -> None:
        self.logger.critical("%s", message)

    # -- robot and paths ---------------------------------------------------------------------
    def session(self) -> Any:
        return self._box.player.box_session

    def packageUid(self) -> str:  # noqa: N802
        return self._box.player.package_uid

    def behaviorAbsolutePath(self) -> str:  # noqa: N802
        return self._box.player.behavior_path

    def behaviorRelativePath(self) -> str:  # noqa: N802
        return self._box.player.behavior_relative_path

    def getBehaviorPath(self, behaviorId: Optional[str] = None) -> str:  # noqa: N802,N803
        return self._box.player.behavior_path

    # -- parameters --------------------------------------------------------------------------
    def getParameter(self, name: str) -> Any:  # noqa: N802
        return self._box.get_parameter(name)

    def setParameter(self, name: str, value: Any) -> None:  # noqa: N802
        self._box.set_parameter(name, value)

    def getParametersList(self) -> List[str]:  # noqa: N802
        return list(self._box.values)

    # -- IO ----------------------------------------------------------------------------------
    def stimulateIO(self, name: str, value: Any = None) -> None:  # noqa: N802
        self._box.stimulate(name, value)

    def BIND_PYTHON(self, *args: Any) -> None:  # noqa: N802 (NAOqi binding; nothing to bind)
        """Kept for old scripts: methods are found without binding."""

    # -- timelines ---------------------------------------------------------------------------
    def hasTimeline(self) -> bool:  # noqa: N802
        return self._box.content is not None and self._box.content.timeline is not None

    def getTimeline(self) -> Optional[TimelineControl]:  # noqa: N802
        return _control(self._box)

    def getParentTimeline(self) -> Optional[TimelineControl]:  # noqa: N802
        return _control(self._box.parent)

    getTimelineParent = getParentTimeline

    def playTimeline(self) -> None:  # noqa: N802
        self._timeline_of(self._box).play()

    def stopTimeline(self) -> None:  # noqa: N802
        self._timeline_of(self._box).pause()

    def gotoAndPlay(self, target: Target) -> int:  # noqa: N802
        return self._timeline_of(self._box).gotoAndPlay(target)

    def gotoAndStop(self, target: Target) -> int:  # noqa: N802
        return self._timeline_of(self._box).gotoAndStop(target)

    def exitBehavior(self) -> None:  # noqa: N802
        self._box.player.run_task(self._box.halt)

    def playTimelineParent(self) -> None:  # noqa: N802
        self._timeline_of(self._box.parent).play()

    def stopTimelineParent(self) -> None:  # noqa: N802
        self._timeline_of(self._box.parent).pause()

    def gotoAndPlayParent(self, target: Target) -> int:  # noqa: N802
        return self._timeline_of(self._box.parent).gotoAndPlay(target)

    def gotoAndStopParent(self, target: Target) -> int:  # noqa: N802
        return self._timeline_of(self._box.parent).gotoAndStop(target)

    def exitBehaviorParent(self) -> None:  # noqa: N802
        if self._box.parent is not None:
            self._box.player.run_task(self._box.parent.halt)

    @staticmethod
    def _timeline_of(box: Optional[BoxNode]) -> TimelineControl:
        control = _control(box)
        if control is None:
            raise GotoError("%s has no timeline" % (box.path if box is not None else "root's parent"))
        return control

    # -- resources ---------------------------------------------------------------------------
    def _resource_names(self) -> List[str]:
        return [resource.name for resource in self._box.model.resources]

    def isResourceFree(self, names: Optional[List[str]] = None) -> bool:  # noqa: N802
        return self._box.player.resources.are_free(names or self._resource_names())

    def waitResourceFree(self) -> None:  # noqa: N802
        self.waitResources()

    def waitResources(self) -> bool:  # noqa: N802
        """Take the box's resources (waiting as their timeout says); True when taken."""
        return self._box.player.resources.acquire(
            self._box, [(r.name, r.type) for r in self._box.model.resources],
            max((float(r.timeout or 0) for r in self._box.model.resources), default=0.0))

    def waitResourcesCallback(self, callbackName: str) -> None:  # noqa: N802,N803
        if self.waitResources():
            callback = getattr(self, callbackName, None)
            if callable(callback):
                callback()

    def releaseResource(self) -> None:  # noqa: N802
        self._box.player.resources.release(self._box)


def box_class(outputs: Iterable[str], base: type = GeneratedClass) -> type:
    """The ``GeneratedClass`` of a box with these ``outputs``: ``base`` plus one method per
    output.  Boxes with the same outputs may share it: its methods act on ``self._box``."""
    def output_method(name: str) -> Any:
        def fire(self: GeneratedClass, p: Any = None) -> None:
            self._box.output(name, p)
        fire.__name__ = name
        return fire
    methods: Dict[str, Any] = {name: output_method(name) for name in outputs}
    return type("GeneratedClass", (base,), methods)


class FrameManager:
    """ALFrameManager as the boxes of one behavior reach it (``ALFrameManager`` global,
    ``ALProxy("ALFrameManager")``): ids are the behavior's id or a box name, which
    ``box_named`` finds (the root for the behavior's id)."""

    def __init__(self, behavior: RunningBehavior,
                 box_named: Callable[[str], Optional[BoxNode]]) -> None:
        self._behavior = behavior
        self._box_named = box_named

    def _box(self, ident: str) -> BoxNode:
        box = self._box_named(ident)
        if box is None:
            raise RuntimeError("ALFrameManager: no behavior or box %r" % ident)
        return box

    def _control(self, ident: str) -> TimelineControl:
        return GeneratedClass._timeline_of(self._box(ident))

    def getBehaviorPath(self, ident: str = "") -> str:  # noqa: N802
        return self._behavior.behavior_path

    def getTimelineFps(self, ident: str) -> float:  # noqa: N802
        return self._control(ident).getFPS()

    def setTimelineFps(self, ident: str, fps: float) -> None:  # noqa: N802
        self._control(ident).setFPS(fps)

    def playTimeline(self, ident: str) -> None:  # noqa: N802
        self._control(ident).play()

    def stopTimeline(self, ident: str) -> None:  # noqa: N802
        self._control(ident).pause()

    def gotoAndPlay(self, ident: str, target: Target) -> int:  # noqa: N802
        return self._control(ident).gotoAndPlay(target)

    def gotoAndStop(self, ident: str, target: Target) -> int:  # noqa: N802
        return self._control(ident).gotoAndStop(target)

    def getMotionLength(self, ident: str) -> float:  # noqa: N802
        box = self._box(ident)
        timeline = box.content.timeline if box.content is not None else None
        if timeline is None or not timeline.has_motion:
            return 0.0
        return timeline.end_frame / timeline.fps

    def exitBehavior(self, ident: str) -> None:  # noqa: N802
        box = self._box(ident)
        self._behavior.run_task(box.halt if box.parent is not None else self._behavior.finish)


def package_info(behavior_path: str) -> tuple:
    """``(package uid, behavior path relative to the package)`` from the nearest
    ``manifest.xml`` above ``behavior_path``; without one the behavior's folder is the
    package.  The relative path is "" when the behavior is the package's folder, so that
    the idiom ``behaviorAbsolutePath().replace(behaviorRelativePath(), "")`` still gives
    the package's folder."""
    folder = os.path.abspath(behavior_path)
    probe = folder
    while True:
        manifest = os.path.join(probe, "manifest.xml")
        if os.path.isfile(manifest):
            uid = _manifest_uuid(manifest) or os.path.basename(probe)
            relative = os.path.relpath(folder, probe)
            return uid, "" if relative == "." else relative
        parent = os.path.dirname(probe)
        if parent == probe:
            return os.path.basename(folder), ""
        probe = parent


def _manifest_uuid(path: str) -> Optional[str]:
    from lxml import etree
    try:
        root = etree.parse(path).getroot()
    except (etree.XMLSyntaxError, OSError):
        return None
    return root.get("uuid")
