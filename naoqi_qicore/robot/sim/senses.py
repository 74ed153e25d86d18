"""What the simulated robot perceives: words, faces, people, touches, its tablet, its sonars.

:class:`NaoqiSimPerception` is a service of the simulated robot (registered under that name
and, like ``NaoqiSimRecorder``, not recorded).  Scenarios, the interactive console and
``naoqi_bridge``'s ``robot/sim/*`` topics all go through it.  Each method makes the simulated
NAOqi services raise in ALMemory what the real extractors raise:

``hear(text, confidence=0.75, waitS=0)``
    Someone says ``text``.  ALSpeechRecognition, when subscribed and not paused, raises
    ``SpeechDetected`` and ``WordRecognized`` ``[phrase, confidence]`` (``["", 0.0]`` for a
    phrase out of its vocabulary); ALDialog, when started, takes it as input as a robot's
    ALDialog takes what it heard: ``Dialog/LastInput``, then ``Dialog/Answered`` and the
    answer spoken, or ``Dialog/NotUnderstood``.  When nobody listens the words are lost;
    ``waitS`` gives the robot that long to start listening.
``touch(part)``
    A touch of 0.2 s: for each sensor of ``part`` (see :data:`TOUCH_PARTS`: ``head`` is the
    three head sensors, front to rear; a sensor name such as ``RHand/Touch/Left`` also works)
    ``TouchChanged`` ``[[sensor, True]]`` and the sensor's key (``FrontTactilTouched``,
    ``HandRightBackTouched``, ``LeftBumperPressed``...) ``1.0``, then the same with
    ``False`` / ``0.0``.
``face(name)``, ``showFace(name, alpha, beta)``, ``hideFace()``
    A face (``name``; recognised when ALFaceDetection learned it; ``showFace("")``: a
    stranger) stays in view: ``FaceDetected`` with its real structure while
    ALFaceDetection is subscribed, every :data:`PRESENCE_PERIOD_S`; ``face("")`` or
    ``hideFace()``: the face leaves (``FaceDetected`` ``[]`` once).
``people(count)``
    That many people around: ALPeoplePerception's ``PeoplePerception/JustArrived`` /
    ``JustLeft`` and people lists, ``PeoplePerception/PeopleDetected`` every period while it
    is subscribed; with basic awareness running, ``ALBasicAwareness/StimulusDetected``
    ``"People"``, ``ALBasicAwareness/HumanTracked`` (the person's id) and ``HumanLost``.
``landmark(markIds)``
    NAO marks (ids such as 64, 68...) stay in view: ``LandmarkDetected`` every
    :data:`PRESENCE_PERIOD_S` while ALLandMarkDetection works; ``landmark([])``: they leave
    (``LandmarkDetected`` ``[]`` once).
``sound(azimuth, elevation=0)``
    A noise from that direction (rad): ``ALSoundLocalization/SoundLocated`` and
    ``SoundDetected`` while those extractors work (words heard make them too, from the
    front), and the ``Sound`` stimulus of basic awareness.
``battery(charge, plugged)``
    The battery reaches ``charge`` % (ALBattery's charge, its ALMemory key and events:
    ``BatteryChargeChanged``, ``BatteryPowerPluggedChanged``, ``BatteryLowDetected``...).
``temperature(device, celsius)``
    A joint, or the head processor (``Head``), reaches that temperature (ALBodyTemperature:
    ``Device/SubDeviceList/<device>/Temperature/Sensor/Value`` and ``HotDeviceDetected``
    when hot).
``tabletTouch(x, y)``
    A tap on Pepper's tablet (pixels): ALTabletService's ``onTouchDown``,
    ``onTouchDownRatio`` and ``onTouchUp`` signals.
``tabletEvent(key, value)``
    What a tablet page's JavaScript does with ``ALMemory.raiseEvent(key, value)``.
``sonar(left, right)``
    Obstacles at ``left`` / ``right`` m (5: nothing): ``Device/SubDeviceList/US/...``
    values and ``SonarLeftDetected`` / ``SonarLeftNothingDetected``... while ALSonar is
    subscribed.
``parts()``
    The touch part names of this robot.

Extractors report only while they work, as on a robot: subscribed to by an application, or
by another service working on top of them.  Autonomous Life in its solitary or interactive
state (the simulated robot starts solitary) runs basic awareness, which works on
ALPeoplePerception (itself on ALFaceDetection) and ALSoundLocalization: faces, people and
sounds are then reported with no application subscribing.  While ALBasicAwareness runs,
touches, taps and sounds (words included) also raise ``ALBasicAwareness/StimulusDetected``
(``Touch``, ``TabletTouch``, ``Sound``) when that stimulus is enabled.  Each method returns one line saying what the robot made of it.
Called in-process (Python), the methods take their arguments by position, as over libqi.
"""
from __future__ import annotations

import re
import threading
from typing import Any, Callable, Dict, List, Optional, Tuple

import qi

from naoqi_qicore.robot.sim.services.detection import stamp
from naoqi_qicore.robot.sim.services.module import SimModule

DEFAULT_CONFIDENCE = 0.75
#: how long a touch lasts (s)
TOUCH_HOLD_S = 0.2
#: how often a face or people in view are reported again while their extractor runs (s)
PRESENCE_PERIOD_S = 0.5
#: the most people around the robot at once
MAX_PEOPLE = 100
#: distance (m) of the people ``people(count)`` brings
PERSON_DISTANCE_M = 1.0
#: how often ``hear`` looks for a listener while it waits for one (s)
LISTEN_POLL_S = 0.05

_HEAD = ["Head/Touch/Front", "Head/Touch/Middle", "Head/Touch/Rear"]
_COMMON_PARTS = {"head": _HEAD, "head_front": _HEAD[:1], "head_middle": _HEAD[1:2],
                 "head_rear": _HEAD[2:], "left_hand": ["LHand/Touch/Back"],
                 "right_hand": ["RHand/Touch/Back"]}
#: robot -> touch part -> ALTouch sensors pressed together
TOUCH_PARTS: Dict[str, Dict[str, List[str]]] = {
    "nao": dict(_COMMON_PARTS, left_bumper=["LFoot/Bumper/Left"],
                right_bumper=["RFoot/Bumper/Right"]),
    "pepper": dict(_COMMON_PARTS, left_bumper=["Bumper/FrontLeft"],
                   right_bumper=["Bumper/FrontRight"], back_bumper=["Bumper/Back"]),
}
#: ALMemory key a behavior waiting for a head touch listens to -> the touch parts (one
#: sensor each) that raise it
HEAD_TOUCH_KEYS: Dict[str, List[str]] = {
    "FrontTactilTouched": ["head_front"], "MiddleTactilTouched": ["head_middle"],
    "RearTactilTouched": ["head_rear"], "TouchChanged": ["head_front", "head_middle", "head_rear"]}

_PATTERN_TOKEN = re.compile(r'"[^"]*"|[\[\]{}]|[^\s\[\]{}"]+')
_MAX_CONCEPT_DEPTH = 5


def _pattern_tree(pattern: str) -> List[Any]:
    """A QiChat input written as text, as nested lists: ``("[", items)`` choices, ``("{",
    items)`` optional parts, strings for the other tokens."""
    root: List[Any] = []
    stack = [root]
    for token in _PATTERN_TOKEN.findall(pattern):
        if token in ("[", "{"):
            group: List[Any] = []
            stack[-1].append((token, group))
            stack.append(group)
        elif token in ("]", "}"):
            if len(stack) > 1:
                stack.pop()
        else:
            stack[-1].append(token)
    return root


Concepts = Callable[[str], List[Any]]


def example_input(rule_input: Any, concept: Concepts, depth: int = 0) -> Optional[str]:
    """Words a person could say to match a QiChat rule input: the first alternative of each
    choice ``[...]``, no optional ``{...}`` part, nothing for ``*``, the first value of a
    concept that can be said.  ``rule_input``: the input as text (``"[hi hello] {robot}"``)
    or as the QiChat reader's syntax nodes; ``concept(name)``: a concept's values (texts or
    nodes).  None when no words match it (events ``e:...``, variables)."""
    items = _pattern_tree(rule_input) if isinstance(rule_input, str) else list(rule_input)
    words = _say_all(items, concept, depth)
    return " ".join(words) if words is not None else None


def _say_all(items: List[Any], concept: Concepts, depth: int) -> Optional[List[str]]:
    said: List[str] = []
    for item in items:
        words = _say(item, concept, depth)
        if words is None:
            return None
        said.extend(words)
    return said


def _say_concept(name: str, concept: Concepts, depth: int) -> Optional[List[str]]:
    if depth >= _MAX_CONCEPT_DEPTH:
        return None
    for value in concept(name):
        said = example_input(value if isinstance(value, str) else [value], concept, depth + 1)
        if said:
            return said.split()
    return None


def _say(item: Any, concept: Concepts, depth: int) -> Optional[List[str]]:
    """The words for one element of an input (a token or group of the text form, or a
    syntax node of the QiChat reader), [] when none are needed, None when no words do."""
    if isinstance(item, tuple):  # text form: ("[", alternatives) or ("{", optional part)
        kind, group = item
        if kind == "{":
            return []
        return next((words for words in (_say(alternative, concept, depth)
                                         for alternative in group) if words is not None), None)
    if isinstance(item, str):
        token = item[1:] if item.startswith("_") else item  # _ stores what follows
        if token in ("", "*") or token.startswith("!"):
            return []
        if token.startswith('"'):
            return token.strip('"').split()
        if token.startswith("~"):
            return _say_concept(token[1:], concept, depth)
        if token.startswith(("e:", "in:", "$", "%", "^")):
            return None
        return [token]
    kind = type(item).__name__  # syntax nodes of naoqi_qicore.robot.sim.services.qichat
    if kind == "Word":
        return [item.text] if re.search(r"\w", item.text) else []
    if kind == "Phrase":
        return _say_all(item.items, concept, depth)
    if kind == "Choice":
        if item.optional:
            return []
        return next((words for words in (_say(alternative, concept, depth)
                                         for alternative in item.items) if words is not None),
                    None)
    if kind == "Capture":
        return _say(item.item, concept, depth)
    if kind in ("Star", "Forbidden", "Condition", "Assign", "Tag"):
        return []
    if kind == "ConceptRef":
        return _say_concept(item.name, concept, depth)
    return None  # events, variables, functions: no words say them


class NaoqiSimPerception(SimModule):
    """The simulated robot's senses (see the module)."""

    NAME = "NaoqiSimPerception"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._cond = threading.Condition()
        self._closed = False
        self._face: Optional[Tuple[str, float, float]] = None
        self._marks: List[int] = []
        self._people: Dict[int, float] = {}
        self._tracked: Optional[int] = None
        self._sonar = {"left": 5.0, "right": 5.0}
        self._ticker: Optional[threading.Thread] = None

    # -- helpers --------------------------------------------------------------------------
    def _service(self, name: str) -> Any:
        return self._sim.service(name)

    def _stimulus(self, stimulus: str) -> None:
        """ALBasicAwareness/StimulusDetected while basic awareness runs and reacts to it."""
        awareness = self._service("ALBasicAwareness")
        if awareness.isAwarenessRunning() and awareness.isStimulusDetectionEnabled(stimulus):
            self._raise_event("ALBasicAwareness/StimulusDetected", stimulus)

    def _speech_listeners(self) -> List[str]:
        """The services that would hear words now."""
        listening = []
        if self._service("ALSpeechRecognition")._listening():
            listening.append("ALSpeechRecognition")
        if self._service("ALDialog").getSubscribersInfo():
            listening.append("ALDialog")
        return listening

    def _vocabulary(self) -> List[str]:
        """ALSpeechRecognition's vocabulary (what it can recognise)."""
        return list(self._service("ALSpeechRecognition")._vocabulary)

    def _dialog_inputs(self) -> Tuple[List[str], List[str]]:
        """(inputs matching the sub-rules ALDialog expects now, inputs matching the user
        rules of its activated topics): one per rule, each checked against ALDialog's own
        matching."""
        dialog = self._service("ALDialog")
        topics, expected = dialog._listening_to()

        def inputs(pairs: List[Tuple[Any, Any]]) -> List[str]:
            found: List[str] = []
            for topic, rule in pairs:
                def concept(name: str, topic: Any = topic) -> List[Any]:
                    return topic.concepts.get(name) or dialog._dynamic_concept(name)
                nodes = getattr(rule, "input", None)  # the QiChat reader's syntax, if any
                said = example_input(nodes if nodes else rule.pattern, concept)
                if said == "":  # a pattern matching anything, e.g. (*)
                    said = "yes"
                if said and said not in found and dialog._match(said) is not None:
                    found.append(said)
            return found
        return inputs(expected), inputs([(t, r) for t in topics for r in t.rules])

    def _dialog_understands(self, text: str) -> bool:
        return self._service("ALDialog")._match(text) is not None

    def _head_touches_listened(self) -> List[str]:
        """The head's touch parts (one sensor each) whose touch something waits for (an
        ALMemory subscription), in the order of :data:`HEAD_TOUCH_KEYS`."""
        memory = self._memory()
        return list(dict.fromkeys(part for key, parts in HEAD_TOUCH_KEYS.items()
                                  if memory._listened(key) for part in parts))

    def _sensors(self, part: str) -> List[str]:
        parts = TOUCH_PARTS[self._sim.robot]
        if part in parts:
            return parts[part]
        if "/" in part:
            return [part]
        raise self._error("touch", "no part '%s' on %s (parts: %s; or an ALTouch sensor name "
                                   "such as RHand/Touch/Left)"
                          % (part, {"nao": "NAO", "pepper": "Pepper"}[self._sim.robot],
                             ", ".join(sorted(parts))))

    def _sleep(self, seconds: float) -> bool:
        """Wait ``seconds``; False when the robot shuts down meanwhile."""
        with self._cond:
            if not self._closed:
                self._cond.wait_for(lambda: self._closed, seconds)
            return not self._closed

    # -- speech ---------------------------------------------------------------------------
    def hear(self, text: str, confidence: float = DEFAULT_CONFIDENCE, waitS: float = 0.0) -> str:
        """Someone says ``text`` (see the module)."""
        if not text.strip():
            raise self._error("hear", "there is nothing to hear")
        if not 0.0 <= confidence <= 1.0:
            raise self._error("hear", "confidence must be in [0, 1], got %s" % confidence)
        listeners = self._speech_listeners()
        remaining = max(0.0, waitS)
        while not listeners and remaining > 0 and self._sleep(min(LISTEN_POLL_S, remaining)):
            remaining -= LISTEN_POLL_S
            listeners = self._speech_listeners()
        self._hear_sound(0.0, 0.0)
        if not listeners:
            return "nobody listens (ALSpeechRecognition and ALDialog are not started): " \
                   "%r is lost" % text
        results = []
        if "ALSpeechRecognition" in listeners:
            if self._service("ALSpeechRecognition").simulateRecognition(text, confidence):
                results.append("ALSpeechRecognition recognised %r" % text)
            else:
                results.append("ALSpeechRecognition: %r is not in its vocabulary" % text)
        if "ALDialog" in listeners:
            understood = self._dialog_understands(text)
            self._service("ALDialog").forceInput(text)
            results.append("ALDialog %s %r" % ("answered" if understood else "did not understand",
                                               text))
        return "; ".join(results)

    def _hear_sound(self, azimuth: float, elevation: float) -> List[str]:
        """A sound reaches the robot: its extractors and basic awareness; the extractors
        that reported it."""
        reported = [name for name, report in (
            ("ALSoundLocalization",
             lambda: self._service("ALSoundLocalization").simulateSound(azimuth, elevation)),
            ("ALSoundDetection", lambda: self._service("ALSoundDetection").simulateSound()))
            if report()]
        self._stimulus("Sound")
        return reported

    def sound(self, azimuth: float, elevation: float = 0.0) -> str:
        """A noise from ``azimuth``, ``elevation`` (rad) (see the module)."""
        reported = self._hear_sound(azimuth, elevation)
        return "a sound from %g rad: %s" % (azimuth, ", ".join(reported) if reported else
                                             "nothing listens (ALSoundLocalization and "
                                             "ALSoundDetection are not started)")

    # -- body -----------------------------------------------------------------------------
    def battery(self, charge: int, plugged: bool = False) -> str:
        """The battery reaches ``charge`` %, plugged in or not (see the module)."""
        raised = self._service("ALBattery")._set_battery(charge, plugged)
        return "battery at %d%%%s: %s" % (charge, ", plugged in" if plugged else "",
                                          ", ".join(raised) if raised else "no event")

    def temperature(self, device: str, celsius: float) -> str:
        """``device`` (a joint, or "Head") reaches ``celsius`` (see the module)."""
        return self._service("ALBodyTemperature")._set_temperature(device, celsius)

    # -- touch ----------------------------------------------------------------------------
    def parts(self) -> List[str]:
        """Touch part names of this robot."""
        return sorted(TOUCH_PARTS[self._sim.robot])

    def touch(self, part: str) -> str:
        """Touch ``part`` for 0.2 s (see the module)."""
        sensors = self._sensors(part)
        touch = self._service("ALTouch")
        for sensor in sensors:
            try:
                touch.simulateTouch(sensor, True)
            except RuntimeError as error:
                raise self._error("touch", str(error).split(": ", 1)[-1]) from None
        self._stimulus("Touch")
        self._sleep(TOUCH_HOLD_S)
        for sensor in sensors:
            touch.simulateTouch(sensor, False)
        return "touched %s (%s)" % (part, ", ".join(sensors))

    # -- faces and people -----------------------------------------------------------------
    def face(self, name: str) -> str:
        """A face named ``name`` stays in view; ``""``: the face leaves."""
        return self.showFace(name) if name else self.hideFace()

    def showFace(self, name: str = "", alpha: float = 0.0, beta: float = 0.0) -> str:
        """A face (``name`` "" for a stranger) at camera angles ``alpha``, ``beta`` (rad)
        stays in view until :meth:`hideFace`."""
        with self._cond:
            if self._closed:
                return "the robot is shutting down"
            self._face = (name, alpha, beta)
            self._ensure_ticker()
        detection = self._service("ALFaceDetection")
        who = ("%s's face" % name) if name else "an unknown face"
        if not detection.isProcessing():
            return "%s is in view (ALFaceDetection is not started: reported once it is)" % who
        detection.simulateFace(name, alpha, beta)
        known = name and name in detection.getLearnedFacesList() and \
            detection.isRecognitionEnabled()
        return "%s is in view: FaceDetected (%s)" % (who, "recognised" if known else "not known")

    def hideFace(self) -> str:
        """The face in view leaves: ``FaceDetected`` ``[]`` once."""
        with self._cond:
            had_face, self._face = self._face is not None, None
        if had_face and self._service("ALFaceDetection").isProcessing():
            self._raise_event("FaceDetected", [])
        return "no face in view" + (": FaceDetected []" if had_face else "")

    def landmark(self, markIds: List[int]) -> str:
        """NAO marks ``markIds`` stay in view; ``[]``: they leave (see the module)."""
        with self._cond:
            if self._closed:
                return "the robot is shutting down"
            had_marks, self._marks = bool(self._marks), [int(m) for m in markIds]
            if self._marks:
                self._ensure_ticker()
        detection = self._service("ALLandMarkDetection")
        if not markIds:
            left = had_marks and detection.simulateLandmarks([])
            return "no mark in view" + (": LandmarkDetected []" if left else "")
        if detection.simulateLandmarks(self._marks):
            return "marks %s in view: LandmarkDetected" % self._marks
        return "marks %s in view (ALLandMarkDetection is not started: reported once it is)" \
            % self._marks

    def people(self, count: int) -> str:
        """``count`` people around (see the module)."""
        if not 0 <= count <= MAX_PEOPLE:
            raise self._error("people", "count must be in [0, %d], got %d" % (MAX_PEOPLE, count))
        perception = self._service("ALPeoplePerception")
        arrived, left = [], []
        with self._cond:
            present = len(self._people)
        while present < count:
            person = perception.simulatePersonArrives(PERSON_DISTANCE_M)
            with self._cond:
                self._people[person] = PERSON_DISTANCE_M
                self._ensure_ticker()
            arrived.append(person)
            present += 1
            self._stimulus("People")
            self._track()
        while present > count:
            with self._cond:
                person = max(self._people)
                del self._people[person]
            perception.simulatePersonLeaves(person)
            left.append(person)
            present -= 1
            if person == self._tracked:
                self._tracked = None
                if self._awareness_runs():
                    self._raise_event("ALBasicAwareness/HumanLost", person)
                self._track()
        changes = ["arrived: %s" % arrived] if arrived else []
        changes += ["left: %s" % left] if left else []
        return "%d %s around%s" % (count, "person" if count == 1 else "people",
                                   (" (%s)" % ", ".join(changes)) if changes else "")

    def _awareness_runs(self) -> bool:
        return self._service("ALBasicAwareness").isAwarenessRunning()

    def _track(self) -> None:
        """Basic awareness tracks someone when it tracks nobody yet."""
        with self._cond:
            candidate = min(self._people) if self._people else None
        if self._tracked is None and candidate is not None and self._awareness_runs():
            self._tracked = candidate
            self._raise_event("ALBasicAwareness/HumanTracked", candidate)

    def _ensure_ticker(self) -> None:
        """Start the thread repeating what is in view (called with ``_cond`` held)."""
        if self._ticker is None:
            self._ticker = threading.Thread(target=self._tick, daemon=True,
                                            name="sim-perception-presence")
            self._ticker.start()
        self._cond.notify_all()

    def _tick(self) -> None:
        """Report the face, people and marks in view every period while their extractor runs;
        sleeps while nobody is in view."""
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._closed or self._face is not None
                                    or bool(self._people) or bool(self._marks))
                if not self._closed:
                    self._cond.wait_for(lambda: self._closed, PRESENCE_PERIOD_S)
                if self._closed:
                    return
                face, people, marks = self._face, dict(self._people), list(self._marks)
            try:
                if marks:
                    self._service("ALLandMarkDetection").simulateLandmarks(marks)
                self._report_presence(face, people)
            except RuntimeError as error:  # a service shutting down
                self._sim.log.warning("NaoqiSimPerception: %s", error)

    def _report_presence(self, face: Optional[Tuple[str, float, float]],
                         people: Dict[int, float]) -> None:
        tracker = self._service("ALTracker")
        target = tracker.getActiveTarget()
        if ((target == "Face" and face is not None) or (target == "People" and people)) \
                and not tracker.getTargetPosition(0):
            tracker.simulateTarget([min(people.values(), default=PERSON_DISTANCE_M), 0.0, 0.2])
        if face is not None:
            self._service("ALFaceDetection").simulateFace(*face)  # only while subscribed
        if people and self._service("ALPeoplePerception").getSubscribersInfo():
            zeros = [0.0] * 6
            self._raise_event("PeoplePerception/PeopleDetected", [
                stamp(self._sim.clock()),
                [[person, distance, 0.0, 0.0] for person, distance in sorted(people.items())],
                zeros, zeros, 0])

    # -- tablet ---------------------------------------------------------------------------
    def tabletTouch(self, x: float, y: float) -> str:
        """A tap on Pepper's tablet at (x, y) pixels."""
        if self._sim.robot != "pepper":
            raise self._error("tabletTouch", "NAO has no tablet")
        self._service("ALTabletService").simulateTouch(x, y)
        self._stimulus("TabletTouch")
        return "tablet touched at (%g, %g): onTouchDown, onTouchUp" % (x, y)

    def tabletEvent(self, key: str, value: Any) -> str:
        """What a page's ``ALMemory.raiseEvent(key, value)`` does."""
        if not key:
            raise self._error("tabletEvent", "the event name is empty")
        self._raise_event(key, value)
        return "ALMemory event %s = %r" % (key, value)

    # -- sonar ----------------------------------------------------------------------------
    def sonar(self, left: float, right: float) -> str:
        """Obstacles at ``left`` / ``right`` m (5: nothing)."""
        self._service("ALSonar").simulateObstacle(left, right)
        self._sonar = {"left": left, "right": right}
        started = bool(self._service("ALSonar").getSubscribersInfo())
        return "sonar: left %g m, right %g m%s" % (
            left, right, "" if started else " (ALSonar is not started: nothing is reported)")

    def _sonar_distances(self) -> Dict[str, float]:
        return dict(self._sonar)

    @qi.nobind
    def close(self) -> None:
        """Stop reporting what is in view (the robot shuts down; not a remote method)."""
        super().close()
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            ticker = self._ticker
        if ticker is not None and ticker is not threading.current_thread():
            ticker.join(2.0)
