"""What a person near the robot notices, read from the robot's own session while someone
watches (the live view's page): a real robot and the simulated one alike, no bridge needed.

:class:`RobotWatch` reads, while at least one watcher is there (:meth:`RobotWatch.watched`):

* the joint angles, ``ALMotion.getAngles("Body", True)`` at :data:`JOINT_RATE` Hz, in a
  thread of its own (NAOqi's names, from ``ALMotion.getBodyNames("Body")``, which also tell
  NAO from Pepper);
* at :data:`FACTS_RATE` Hz in another thread: the eye and chest LED colours
  (``ALLeds.getIntensity`` of the red, green and blue groups of each eye and of the chest),
  the posture (``ALRobotPosture.getPostureFamily``), whether the robot is awake
  (``ALMotion.robotIsWakeUp``) and moving (``ALMotion.moveIsActive``), where its base is
  (``ALMotion.getRobotPosition``) and Pepper's tablet (``ALTabletService.getCurrentUrl``,
  and where the robot tells them, the web view's visibility and the image shown);

and, from the connection on, ALMemory events: what it says (``ALTextToSpeech/
CurrentSentence``, ``TextStarted``, ``TextDone``), what it heard (``WordRecognized``,
``Dialog/LastInput``) and where it is touched (``TouchChanged``).

Each change is handed to ``on_change`` as a whole :meth:`RobotWatch.snapshot` (plain JSON
values); a service the robot lacks or a call that fails leaves its part empty (said once
to ``report``), the rest goes on.
"""
import contextlib
import threading
import time
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from naoqi_qicore.ros.joint_states import robot_kind
from naoqi_qicore.ros.robot_speech import HEARD_KEYS, SPEECH_KEY, heard_text

#: joint angle readings a second while watched (a page on a busy machine misses a few:
#: it still gets more than 20)
JOINT_RATE = 30.0
#: readings a second of the LEDs, posture, motion and tablet while watched
FACTS_RATE = 4.0
#: seconds between two tries while the robot does not answer
RETRY_S = 0.5
#: the LED groups read for each colour: (part, index or None, group prefix)
LED_GROUPS: Tuple[Tuple[str, Optional[int], str], ...] = (
    ("eyes", 0, "LeftFaceLeds"), ("eyes", 1, "RightFaceLeds"), ("chest", None, "ChestLeds"))
COLORS = ("Red", "Green", "Blue")
#: the ALMemory events of speech besides the sentence itself
SPEAKING_KEYS = ("ALTextToSpeech/TextStarted", "ALTextToSpeech/TextDone")
TOUCH_KEY = "TouchChanged"
#: a sentence coming at most this long (s) before TextStarted is the one starting
SENTENCE_AHEAD_S = 0.5


def intensity(value: Any) -> float:
    """An ``ALLeds.getIntensity`` answer as one intensity: a number, or the mean of the
    numbers of a list (a group answered LED by LED)."""
    if isinstance(value, (int, float)):
        return float(value)
    numbers: List[float] = []
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, (list, tuple)):
            pending.extend(item)
        elif isinstance(item, (int, float)) and not isinstance(item, bool):
            numbers.append(float(item))
    return sum(numbers) / len(numbers) if numbers else 0.0


def hex_color(red: float, green: float, blue: float) -> str:
    """``#rrggbb`` of three intensities (0 to 1)."""
    return "#%02x%02x%02x" % tuple(int(round(max(0.0, min(1.0, c)) * 255))
                                   for c in (red, green, blue))


def touched_parts(value: Any) -> Tuple[List[str], List[str]]:
    """The sensors a ``TouchChanged`` value (``[[sensor, touched], ...]``) says touched and
    released."""
    touched: List[str] = []
    released: List[str] = []
    for item in value if isinstance(value, (list, tuple)) else []:
        if isinstance(item, (list, tuple)) and len(item) >= 2:
            (touched if item[1] else released).append(str(item[0]))
    return touched, released


class RobotWatch:
    """Reads what a person near the robot notices (see the module) and hands each change
    to ``on_change``."""

    def __init__(self, on_change: Callable[[Dict[str, Any]], None],
                 report: Callable[[str], None] = lambda line: None,
                 rate: float = JOINT_RATE, facts_rate: float = FACTS_RATE) -> None:
        self._on_change = on_change
        self._report = report
        self._periods = (1.0 / rate, 1.0 / facts_rate)
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._session: Any = None
        self._services: Dict[str, Any] = {}
        self._names: List[str] = []
        self._subscribers: List[Any] = []  # kept alive: a dropped subscriber unsubscribes
        self._watchers = 0
        self._closed = False
        self._reported: set = set()
        #: when the last sentence came (it may come just before its TextStarted)
        self._sentence_at = 0.0
        self._state: Dict[str, Any] = self._empty()
        self._threads = [threading.Thread(target=self._poll, args=(read, period), daemon=True,
                                          name="robot watch " + name)
                         for read, period, name in ((self._read_joints, self._periods[0],
                                                     "joints"),
                                                    (self._read_facts, self._periods[1],
                                                     "facts"))]
        for thread in self._threads:
            thread.start()

    @staticmethod
    def _empty() -> Dict[str, Any]:
        return {"connected": False, "robot": "", "sequence": 0, "joints": {},
                "speech": {"text": "", "speaking": False, "at": 0.0},
                "heard": {"text": "", "at": 0.0},
                "touched": {"parts": [], "last": [], "at": 0.0},
                "leds": {"eyes": [None, None], "chest": None},
                "posture": "", "awake": None, "moving": False, "position": None,
                "tablet": None}

    # -- the connection ----------------------------------------------------------------------
    def bind(self, session: Any) -> None:
        """After a connection: learn the robot's joints, follow its events, read it while
        watched."""
        services: Dict[str, Any] = {}
        for name in ("ALMotion", "ALMemory", "ALLeds", "ALRobotPosture", "ALTabletService"):
            try:
                services[name] = session.service(name)
            except RuntimeError:
                continue  # a robot without it (NAO has no tablet)
        motion = services.get("ALMotion")
        names = [str(name) for name in motion.getBodyNames("Body")] if motion else []
        try:
            robot = robot_kind(names)
        except ValueError as error:
            robot = ""
            self._say_once("robot", "live view: %s" % error)
        subscribers = self._subscribe(services.get("ALMemory"))
        with self._lock:
            self._session = session
            self._services = services
            self._names = names
            self._subscribers = subscribers
            self._state = dict(self._empty(), connected=True, robot=robot)
            self._reported.clear()
            self._wake.notify_all()
        self._publish()

    def forget(self) -> None:
        """The connection is gone: nothing is read until the next :meth:`bind`."""
        with self._lock:
            self._session = None
            self._services = {}
            self._subscribers = []
            self._state = dict(self._state, connected=False)
        self._publish()

    def close(self) -> None:
        """Stop reading (the threads end)."""
        with self._lock:
            self._closed = True
            self._subscribers = []
            self._wake.notify_all()
        for thread in self._threads:
            thread.join(5)

    @contextlib.contextmanager
    def watched(self) -> Iterator[None]:
        """While in this block, someone watches: the robot is read."""
        with self._lock:
            self._watchers += 1
            self._wake.notify_all()
        try:
            yield
        finally:
            with self._lock:
                self._watchers -= 1

    def snapshot(self) -> Dict[str, Any]:
        """What is known now (a copy)."""
        with self._lock:
            return dict(self._state)

    # -- events ------------------------------------------------------------------------------
    def _subscribe(self, memory: Any) -> List[Any]:
        if memory is None:
            return []
        handlers: List[Tuple[str, Callable[[Any], None]]] = [
            (SPEECH_KEY, self._sentence), (TOUCH_KEY, self._touch)]
        handlers += [(key, self._speaking(key)) for key in SPEAKING_KEYS]
        handlers += [(key, self._heard) for key in HEARD_KEYS]
        subscribers = []
        for key, handler in handlers:
            try:
                subscriber = memory.subscriber(key)
            except RuntimeError as error:
                self._say_once(key, "live view: cannot follow %s: %s" % (key, error))
                continue
            subscriber.signal.connect(handler)
            subscribers.append(subscriber)
        return subscribers

    def _sentence(self, value: Any) -> None:
        self._sentence_at = time.time()
        self._update(speech={"text": str(value or ""), "speaking": bool(value),
                             "at": self._sentence_at})

    def _speaking(self, key: str) -> Callable[[Any], None]:
        """``TextStarted`` 1: a new sentence begins (its text comes with
        ``CurrentSentence``); ``TextStarted`` 0 or ``TextDone`` 1: it is said."""
        started = key.endswith("TextStarted")

        def changed(value: Any) -> None:
            if not started and not value:
                return  # TextDone 0: a sentence begins, TextStarted says it
            speaking = bool(value) if started else False
            with self._lock:
                speech = dict(self._state["speech"])
            if speech["speaking"] != speaking:
                now = time.time()
                if speaking and now - self._sentence_at > SENTENCE_AHEAD_S:
                    speech["text"] = ""  # the last sentence is not this one
                speech.update(speaking=speaking, at=now)
                self._update(speech=speech)
        return changed

    def _heard(self, value: Any) -> None:
        text = heard_text(value)
        if text:
            self._update(heard={"text": text, "at": time.time()})

    def _touch(self, value: Any) -> None:
        touched, released = touched_parts(value)
        with self._lock:
            parts = [part for part in self._state["touched"]["parts"] if part not in released]
            last = self._state["touched"]
        parts += [part for part in touched if part not in parts]
        self._update(touched={"parts": parts, "last": touched or last["last"],
                              "at": time.time() if touched else last["at"]})

    def _update(self, **parts: Any) -> None:
        with self._lock:
            if all(self._state.get(name) == value for name, value in parts.items()):
                return
            self._state = dict(self._state, **parts)
        self._publish()

    def _publish(self) -> None:
        with self._lock:
            self._state = dict(self._state, sequence=self._state["sequence"] + 1)
            snapshot = dict(self._state)
        self._on_change(snapshot)

    def _say_once(self, what: str, line: str) -> None:
        if what not in self._reported:
            self._reported.add(what)
            self._report(line)

    # -- readings ----------------------------------------------------------------------------
    def _poll(self, read: Callable[[Dict[str, Any]], Dict[str, Any]], period: float) -> None:
        """Call ``read`` every ``period`` s while watched and connected (``RETRY_S`` apart
        while the robot does not answer)."""
        deadline = time.monotonic()
        while True:
            with self._lock:
                self._wake.wait_for(lambda: self._closed or (
                    self._watchers > 0 and self._session is not None))
                if self._closed:
                    return
                services = self._services
            try:
                parts = read(services)
            except Exception as error:  # the robot went away or refused: tried again
                self._say_once("poll", "live view: cannot read the robot: %s: %s"
                               % (type(error).__name__, error))
                time.sleep(RETRY_S)
                deadline = time.monotonic()
                continue
            if parts:
                self._update(**parts)
            # a late reading is caught up by the next one (the rate holds on average), but
            # not a long stall
            deadline = max(deadline + period, time.monotonic() - period)
            time.sleep(max(0.0, deadline - time.monotonic()))

    def _read_joints(self, services: Dict[str, Any]) -> Dict[str, Any]:
        motion = services.get("ALMotion")
        if motion is None:
            return {}
        angles = motion.getAngles("Body", True)
        with self._lock:
            names = self._names
        return {"joints": {name: round(float(angle), 4) for name, angle in zip(names, angles)}}

    def _read_facts(self, services: Dict[str, Any]) -> Dict[str, Any]:
        parts: Dict[str, Any] = {}
        leds = services.get("ALLeds")
        if leds is not None:
            parts["leds"] = self._led_colors(leds)
        motion = services.get("ALMotion")
        if motion is not None:
            parts["awake"] = bool(motion.robotIsWakeUp())
            parts["moving"] = bool(motion.moveIsActive())
            parts["position"] = [round(float(value), 4)
                                 for value in motion.getRobotPosition(False)]
        posture = services.get("ALRobotPosture")
        if posture is not None:
            parts["posture"] = str(posture.getPostureFamily())
        tablet = services.get("ALTabletService")
        if tablet is not None:
            parts["tablet"] = self._tablet(tablet)
        return parts

    def _led_colors(self, leds: Any) -> Dict[str, Any]:
        colors: Dict[str, Any] = {"eyes": [None, None], "chest": None}
        for part, index, group in LED_GROUPS:
            try:
                color = hex_color(*(intensity(leds.getIntensity(group + color))
                                    for color in COLORS))
            except RuntimeError as error:  # a robot without those LEDs
                self._say_once(group, "live view: no %s: %s" % (group, error))
                continue
            if index is None:
                colors[part] = color
            else:
                colors[part][index] = color
        return colors

    def _tablet(self, tablet: Any) -> Dict[str, Any]:
        """The page and the image on Pepper's tablet (what the robot tells of them: a
        method it lacks leaves its part empty)."""
        def ask(method: str, default: Any) -> Any:
            return getattr(tablet, method)() if hasattr(tablet, method) else default
        return {"url": str(ask("getCurrentUrl", "")),
                "webview": bool(ask("isWebviewVisible", True)),
                "image": str(ask("getShownImage", ""))}
