"""Simulated ALFrameManager (behaviors and their timelines, as box scripts reach them) and
ALChoregraphe (where box errors are reported).

The simulated robot does not run box scripts (the engine does); a behavior here is its
folder and its timeline: playing advances the frame with the clock at the timeline's fps,
labels come from the behavior keyframes, and a behavior finishes at its last frame.
"""
import itertools
import posixpath
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Dict, Optional, Union

from lxml import etree

from naoqi_qicore.robot.sim.services.module import SimModule

DEFAULT_FPS = 25


@dataclass
class TimelineState:
    """A behavior known to ALFrameManager and where its timeline is."""

    path: str
    fps: int = DEFAULT_FPS
    size: int = 0
    labels: Dict[str, int] = field(default_factory=dict)
    has_motion: bool = False
    frame: int = 0
    started_at: Optional[float] = None  # clock time when playing from `frame`
    exited: bool = False

    def current_frame(self, now: float) -> int:
        if self.started_at is None:
            return self.frame
        return min(self.size, self.frame + int((now - self.started_at) * self.fps))

    def finished(self, now: float) -> bool:
        return self.started_at is not None and self.current_frame(now) >= self.size


def _local(element: Any) -> str:
    return etree.QName(element).localname if isinstance(element.tag, str) else ""


def read_timeline(source: BinaryIO, box_path: str, folder: str) -> TimelineState:
    """Timeline facts of the box at ``box_path`` ("" = root, names joined by "/") of the .xar
    read from ``source``, whose behavior's folder is ``folder``."""
    tree = etree.parse(source, etree.XMLParser(huge_tree=True, resolve_entities=False,
                                                 no_network=True, load_dtd=False))
    box = next((e for e in tree.getroot().iter() if _local(e) == "Box"), None)
    if box is None:
        raise ValueError("no Box element")
    for name in [n for n in box_path.split("/") if n]:
        box = next((e for e in box.iter() if _local(e) == "Box" and e.get("name") == name), None)
        if box is None:
            raise ValueError("no box named '%s'" % name)
    timeline = next((e for e in box if _local(e) == "Timeline"), None)
    state = TimelineState(path=folder)
    if timeline is None:
        return state
    state.fps = int(float(timeline.get("fps") or DEFAULT_FPS)) or DEFAULT_FPS
    keys = [int(float(k.get("frame", 0))) for k in timeline.iter() if _local(k) == "Key"]
    state.has_motion = bool(keys)
    state.size = int(float(timeline.get("size") or 0)) or max(keys, default=0)
    for layer in (e for e in timeline if _local(e) == "BehaviorLayer"):
        for keyframe in (e for e in layer if _local(e) == "BehaviorKeyframe"):
            state.labels.setdefault(keyframe.get("name", ""), int(keyframe.get("index", 0)))
    return state


class _BoxReports(SimModule):
    """Where boxes report errors and prints: the robot's log."""

    def onPythonError(self, boxName: str, methodName: str, error: str) -> None:
        """A box reports an error."""
        self._sim.log.error("%s.%s: %s", boxName, methodName, error)

    def onPythonPrint(self, message: str) -> None:
        """A box prints."""
        self._sim.log.info("%s", message)


class ALFrameManager(_BoxReports):
    """Behaviors by id: their folder, and a timeline that plays with the clock."""

    NAME = "ALFrameManager"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._behaviors: Dict[str, TimelineState] = {}
        self._ids = itertools.count(1)

    def _add(self, state: TimelineState) -> str:
        with self._lock:
            behavior_id = str(next(self._ids))
            self._behaviors[behavior_id] = state
        return behavior_id

    def _get(self, method: str, id: str) -> TimelineState:
        with self._lock:
            if id not in self._behaviors:
                raise self._error(method, "no behavior with id '%s'" % id)
            return self._behaviors[id]

    def _frame_of(self, method: str, state: TimelineState, target: Union[int, str]) -> int:
        if isinstance(target, str):
            if target not in state.labels:
                raise self._error(method, "no label '%s' in the timeline (labels: %s)"
                                  % (target, ", ".join(sorted(state.labels)) or "none"))
            return state.labels[target]
        if not 0 <= target <= state.size:
            raise self._error(method, "frame %d is outside the timeline [0, %d]"
                              % (target, state.size))
        return target

    def _pause(self, state: TimelineState) -> None:
        state.frame = state.current_frame(self._sim.clock())
        state.started_at = None

    def newBehavior(self, path: str, xmlContent: str) -> str:
        """Register a behavior folder (its project given as XML, may be ""); returns its id."""
        state = TimelineState(path=path)
        if xmlContent:
            try:
                etree.fromstring(xmlContent.encode("utf-8"))
            except etree.XMLSyntaxError as error:
                raise self._error("newBehavior", "invalid behavior XML: %s" % error)
        return self._add(state)

    def newBehaviorFromFile(self, xmlFilePath: str, behName: str) -> str:
        """Load the box ``behName`` ("" = root) of a .xar file of the robot's files;
        returns its id."""
        place = self._file("newBehaviorFromFile", xmlFilePath)
        if not place.is_file():
            raise self._error("newBehaviorFromFile", "file '%s' does not exist" % xmlFilePath)
        try:
            with place.open_read() as stream:
                state = read_timeline(stream, behName, posixpath.dirname(place.shown))
        except OSError as error:
            raise self._file_failed("newBehaviorFromFile", "read", xmlFilePath, error) from None
        except etree.XMLSyntaxError as error:
            raise self._error("newBehaviorFromFile", "%s: not a behavior file (%s)"
                              % (xmlFilePath, error.msg))
        except ValueError as error:
            raise self._error("newBehaviorFromFile", "%s: %s" % (xmlFilePath, error))
        return self._add(state)

    def getBehaviorPath(self, behaviorId: str) -> str:
        """Folder of the behavior."""
        return self._get("getBehaviorPath", behaviorId).path

    def playBehavior(self, id: str) -> None:
        """Start (or resume) the behavior's timeline."""
        state = self._get("playBehavior", id)
        with self._lock:
            state.exited = False
            if state.started_at is None:
                state.started_at = self._sim.clock()

    def completeBehavior(self, id: str) -> None:
        """Play the behavior and return when it has finished or exited."""
        self.playBehavior(id)
        state = self._get("completeBehavior", id)
        with self._activity() as activity:
            while not state.exited and state.started_at is not None:
                now = self._sim.clock()
                if state.finished(now):
                    break
                remaining = (state.size - state.current_frame(now)) / float(state.fps)
                if not activity.sleep(min(0.05, max(remaining, 0.001))):
                    break

    def exitBehavior(self, id: str) -> None:
        """Stop the behavior."""
        state = self._get("exitBehavior", id)
        with self._lock:
            self._pause(state)
            state.exited = True

    def deleteBehavior(self, id: str) -> None:
        """Stop and forget the behavior."""
        self.exitBehavior(id)
        with self._lock:
            del self._behaviors[id]

    def cleanBehaviors(self) -> None:
        """Stop and forget every behavior."""
        with self._lock:
            ids = list(self._behaviors)
        for behavior_id in ids:
            self.deleteBehavior(behavior_id)

    def playTimeline(self, id: str) -> None:
        """Play the timeline from where it is."""
        self.playBehavior(id)

    def stopTimeline(self, id: str) -> None:
        """Stop the timeline at its current frame."""
        state = self._get("stopTimeline", id)
        with self._lock:
            self._pause(state)

    def gotoAndPlay(self, id: str, frame: Union[int, str]) -> None:
        """Jump to a frame number or label and play."""
        state = self._get("gotoAndPlay", id)
        with self._lock:
            state.frame = self._frame_of("gotoAndPlay", state, frame)
            state.started_at, state.exited = self._sim.clock(), False

    def gotoAndStop(self, id: str, frame: Union[int, str]) -> None:
        """Jump to a frame number or label and stay there."""
        state = self._get("gotoAndStop", id)
        with self._lock:
            state.frame = self._frame_of("gotoAndStop", state, frame)
            state.started_at = None

    def getCurrentFrame(self, id: str) -> int:
        """Frame the timeline is at."""
        return self._get("getCurrentFrame", id).current_frame(self._sim.clock())

    def getTimelineFps(self, id: str) -> int:
        """Frames per second of the timeline."""
        return self._get("getTimelineFps", id).fps

    def setTimelineFps(self, id: str, fps: int) -> None:
        """Change the frames per second (the current frame is kept)."""
        if fps <= 0:
            raise self._error("setTimelineFps", "fps must be positive, got %d" % fps)
        state = self._get("setTimelineFps", id)
        with self._lock:
            playing = state.started_at is not None
            self._pause(state)
            state.fps = fps
            if playing:
                state.started_at = self._sim.clock()

    def getMotionLength(self, id: str) -> float:
        """Seconds of motion in the timeline (0 without motion keys)."""
        state = self._get("getMotionLength", id)
        return state.size / float(state.fps) if state.has_motion else 0.0


class ALChoregraphe(_BoxReports):
    """What box scripts call on Choregraphe: error and print reports."""

    NAME = "ALChoregraphe"
