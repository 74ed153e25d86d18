"""What scenarios see of the simulated robot and of the behavior it runs.

:class:`RobotWatch` turns the simulated robot's ALMemory writes and recorded calls (the
clients' and its own) into :class:`Observation` s: a sentence starts and ends
(ALTextToSpeech's notifications), an ALMemory key is written or raised, a call ends, the
tablet shows a URL.  The
behavior's boxes and states live in the program that runs it, not in the robot: that
program reports them (``started``, ``box``, ``state``, ``ended`` observations) from the
engine's events (:class:`RunObserver`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional

from naoqi_qicore.core.events import EngineEvent

#: observations of the robot
SAYING, SAID, EVENT, CALL, TABLET = "saying", "said", "event", "call", "tablet"
#: observations of the behavior, reported by the program that runs it
STARTED, BOX, STATE, ENDED = "started", "box", "state", "ended"
BEHAVIOR_KINDS = (STARTED, BOX, STATE, ENDED)

_SPEECH_TAG = re.compile(r"\\\w+(?:=[^\\]*)?\\")
#: ALTabletService methods that show something: the URL is their first argument
_TABLET_SHOWS_ARGUMENT = ("showImage", "showImageNoCache", "playVideo")
#: ... that show the web view's page when it is visible
_TABLET_SHOWS_PAGE = ("showWebview", "loadUrl", "loadApplication", "reloadPage")


@dataclass
class Observation:
    """Something the robot or its behavior did: ``kind`` "saying" (a sentence starts, its
    text in ``name``), "said" (it ended), "event" (an ALMemory key written or raised, with
    its value), "call" (a call ended, a client's or the robot's own: ``SERVICE.METHOD`` and
    its arguments), "tablet" (the tablet shows a URL; ``value`` why it shows another page
    instead, such as the robot's web server's "404 Not Found", None when it shows the
    URL's); "started" (the behavior started playing), "box" (a box started: its path),
    "state" (a keyframe of the behavior's timeline became current: its name), "ended" (the
    run ended: its status, and ``value`` a short text)."""

    kind: str
    name: str
    value: Any = None


class RobotWatch:
    """Turns ALMemory writes and recorded calls into :class:`Observation` s for ``observe``
    (called from the robot's threads: it must return quickly).  ``tablet``: the simulated
    ALTabletService, whose page is read after each call that shows one."""

    def __init__(self, memory: Any, record: Any, observe: Callable[[Observation], None],
                 tablet: Optional[Any] = None) -> None:
        self._memory = memory
        self._record = record
        self._observe = observe
        self._tablet = tablet
        self._sentence = ""
        memory._watch(self._on_memory)
        if record is not None:
            record.add_listener(self._on_call)

    def _on_memory(self, key: str, value: Any) -> None:
        if key == "ALTextToSpeech/CurrentSentence":  # without speech tags such as \pau=500\
            self._sentence = " ".join(_SPEECH_TAG.sub(" ", str(value)).split())
            self._observe(Observation(SAYING, self._sentence))
        elif key == "ALTextToSpeech/TextDone" and value == 1 and self._sentence:
            sentence, self._sentence = self._sentence, ""
            self._observe(Observation(SAID, sentence))
        self._observe(Observation(EVENT, key, value))

    def _on_call(self, entry: Dict[str, Any]) -> None:
        seen = [Observation(CALL, "%s.%s" % (entry["service"], entry["method"]),
                            entry.get("args"))]
        if entry["service"] == "ALTabletService" and "error" not in entry \
                and entry.get("result") is not False:
            shown = self._tablet_shows(entry["method"], entry.get("args") or [])
            if shown is not None:
                seen.append(shown)
        # seen after the robot's events that came before the call (the sentence it said
        # before a page was shown), as they happened
        self._memory._after_notifications(lambda: [self._observe(each) for each in seen])

    def _tablet_shows(self, method: str, args: Any) -> Optional[Observation]:
        """What a successful tablet call put on the screen (None for nothing)."""
        if method in _TABLET_SHOWS_ARGUMENT and args and isinstance(args[0], str):
            return Observation(TABLET, args[0])
        tablet = self._tablet
        if method in _TABLET_SHOWS_PAGE and tablet is not None and tablet.isWebviewVisible():
            return Observation(TABLET, tablet.getCurrentUrl(), tablet.getPageError() or None)
        return None

    def close(self) -> None:
        self._memory._unwatch(self._on_memory)
        if self._record is not None:
            self._record.remove_listener(self._on_call)


class RunObserver:
    """What a program running a behavior sees of its run, as scenario observations for
    ``observe(kind, name, detail)``: the first PLAYING status is ``started``, each box
    start is a ``box``, each keyframe of the root timeline that begins is a ``state``, the
    run's end is ``ended``."""

    def __init__(self, observe: Callable[[str, str, str], None]) -> None:
        self._observe = observe
        self._started = False

    def engine_event(self, event: EngineEvent, root: str) -> None:
        """An event of the engine playing the behavior whose root box is ``root``."""
        if event.kind == "status":
            if event.detail == "PLAYING" and not self._started:
                self._started = True
                self._observe(STARTED, "", "")
        elif event.kind == "box_started":
            self._observe(BOX, event.box_path, "")
        elif event.kind == "state_entered" and event.box_path == root:
            for label in event.data.get("labels", ()):
                self._observe(STATE, label, "")

    def ended(self, status: str, detail: str = "") -> None:
        """The run ended with ``status`` (FINISHED, STOPPED or ERROR); ``detail`` says how."""
        self._observe(ENDED, status, detail)
