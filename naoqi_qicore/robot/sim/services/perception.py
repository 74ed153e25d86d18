"""Simulated perception: ALPeoplePerception, ALFaceDetection, ALFaceCharacteristics, ALMood,
ALSonar and ALTouch.

There are no sensors: the ``simulate*`` methods (simulation only) stand for people arriving,
faces, obstacles and touches, and raise the ALMemory events of the real services.  As on a
robot, extractors work on top of each other: ALFaceCharacteristics starts ALPeoplePerception,
which starts ALFaceDetection while its face detection is enabled (the default).
"""
import itertools
from typing import Any, Dict, List, Optional, Set

from naoqi_qicore.robot.sim.services.extractor import Extractor
from naoqi_qicore.robot.sim.services.module import SimModule, check_range

PEOPLE = "PeoplePerception/"


class ALPeoplePerception(Extractor):
    """People around the robot, by id, with their distance."""

    NAME = "ALPeoplePerception"
    OUTPUTS = (PEOPLE + "PeopleList", PEOPLE + "VisiblePeopleList")
    EVENTS = (PEOPLE + "JustArrived", PEOPLE + "JustLeft", PEOPLE + "PeopleDetected")
    # the "Signal list" of NAOqi 2.5+'s ALPeoplePerception API: the person's id
    EVENT_SIGNALS = {"justArrived": ("(i)", PEOPLE + "JustArrived"),
                     "justLeft": ("(i)", PEOPLE + "JustLeft")}

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._people: Dict[int, float] = {}
        self._ids = itertools.count(1)
        self._range = 3.0
        self._fast_mode = False
        self._face_detection = True
        self._faces_started = False  # subscribed to ALFaceDetection

    def _started(self) -> None:
        self._follow_faces()

    def _stopped(self) -> None:
        self._follow_faces()

    def _follow_faces(self) -> None:
        """Work on ALFaceDetection while running with face detection enabled."""
        with self._lock:
            wanted = bool(self._subscribers) and self._face_detection
            changed, self._faces_started = wanted != self._faces_started, wanted
        if changed:
            faces = self._sim.service("ALFaceDetection")
            (faces.subscribe if wanted else faces.unsubscribe)(self.NAME)

    def setFaceDetectionEnabled(self, enable: bool) -> None:
        """Use face detection to find people (on by default)."""
        with self._lock:
            self._face_detection = enable
        self._follow_faces()

    def isFaceDetectionEnabled(self) -> bool:
        """Whether face detection is used."""
        with self._lock:
            return self._face_detection

    def _publish(self) -> None:
        people = sorted(self._people)
        self._memory().insertData(PEOPLE + "PeopleList", people)
        self._memory().insertData(PEOPLE + "VisiblePeopleList", people)

    def simulatePersonArrives(self, distance: float) -> int:
        """Simulation only: someone appears at ``distance`` m; returns their id."""
        if not 0 < distance <= self._range:
            raise self._error("simulatePersonArrives", "distance must be in (0, %s] m" % self._range)
        with self._lock:
            person = next(self._ids)
            self._people[person] = distance
        self._memory().insertData(PEOPLE + "Person/%d/Distance" % person, distance)
        self._publish()
        self._raise_event(PEOPLE + "JustArrived", person)
        return person

    def simulatePersonLeaves(self, id: int) -> None:
        """Simulation only: person ``id`` goes away."""
        with self._lock:
            if self._people.pop(id, None) is None:
                raise self._error("simulatePersonLeaves", "no person %d" % id)
        self._publish()
        self._raise_event(PEOPLE + "JustLeft", id)

    def isPersonVisible(self, id: int) -> bool:
        """Whether person ``id`` is around (simulation query)."""
        with self._lock:
            return id in self._people

    def resetPopulation(self) -> None:
        """Forget everyone."""
        with self._lock:
            gone = sorted(self._people)
            self._people.clear()
        self._publish()
        for person in gone:
            self._raise_event(PEOPLE + "JustLeft", person)

    def setMaximumDetectionRange(self, range: float) -> None:
        """People farther than ``range`` m are ignored."""
        self._range = check_range(self, "setMaximumDetectionRange", "range", range, 0.1, 10.0)

    def getMaximumDetectionRange(self) -> float:
        """Detection range in m."""
        return self._range

    def setFastModeEnabled(self, enable: bool) -> None:
        """Faster, coarser detection."""
        self._fast_mode = enable

    def isFastModeEnabled(self) -> bool:
        """Whether fast mode is on."""
        return self._fast_mode


#: the recognition short-term memory is cleared after this long without a face (s)
FORGET_AFTER_S = 4.0
#: a face seen this long without being recognised is reported as unknown (s)
UNKNOWN_AFTER_S = 8.0
#: time-filtered recognition statuses: one face recognised, several, a face not recognised
ONE_RECOGNISED, SEVERAL_RECOGNISED, NOT_RECOGNISED = 2, 3, 4


class ALFaceDetection(Extractor):
    """Face detection and a database of learned faces.

    ``FaceDetected``'s last element is the time-filtered recognition the Face Reco. box
    reads: a name is given once (``[2, [name]]``) then kept in a short-term memory while
    faces are seen, forgotten after :data:`FORGET_AFTER_S` without a face; a face seen for
    :data:`UNKNOWN_AFTER_S` without being recognised gives ``[4]`` once; otherwise ``[]``.
    """

    NAME = "ALFaceDetection"
    OUTPUTS = ("FaceDetected",)
    EVENTS = ("FaceDetected",)

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._faces: List[str] = []
        self._recognition = True
        self._tracking = False
        self._threshold = 0.4
        self._recalled: Set[str] = set()  # names given since faces are in view
        self._last_seen = float("-inf")
        self._unknown_since: Optional[float] = None
        self._unknown_told = False

    def learnFace(self, name: str) -> bool:
        """Learn the face in front of the robot under ``name``."""
        if not name:
            raise self._error("learnFace", "the name is empty")
        with self._lock:
            if name in self._faces:
                return False
            self._faces.append(name)
        return True

    def reLearnFace(self, name: str) -> bool:
        """Learn ``name`` again."""
        self.forgetPerson(name)
        return self.learnFace(name)

    def forgetPerson(self, name: str) -> bool:
        """Remove ``name`` from the database."""
        with self._lock:
            if name not in self._faces:
                return False
            self._faces.remove(name)
        return True

    def clearDatabase(self) -> bool:
        """Forget every face."""
        with self._lock:
            self._faces.clear()
        return True

    def getLearnedFacesList(self) -> List[str]:
        """Names of the learned faces."""
        with self._lock:
            return list(self._faces)

    def setRecognitionEnabled(self, enable: bool) -> None:
        """Recognise learned faces or only detect."""
        self._recognition = enable

    def isRecognitionEnabled(self) -> bool:
        """Whether faces are recognised."""
        return self._recognition

    def enableRecognition(self, enable: bool) -> None:
        """Same as setRecognitionEnabled."""
        self.setRecognitionEnabled(enable)

    def enableTracking(self, enable: bool) -> None:
        """Same as setTrackingEnabled."""
        self.setTrackingEnabled(enable)

    def setRecognitionConfidenceThreshold(self, confThreshold: float) -> None:
        """Score (0..1) a face must reach to be recognised."""
        self._threshold = check_range(self, "setRecognitionConfidenceThreshold",
                                      "confThreshold", confThreshold, 0.0, 1.0)

    def getRecognitionConfidenceThreshold(self) -> float:
        """Score a face must reach to be recognised."""
        return self._threshold

    def setTrackingEnabled(self, enable: bool) -> None:
        """Follow the detected face with the head."""
        self._tracking = enable

    def isTrackingEnabled(self) -> bool:
        """Whether faces are followed."""
        return self._tracking

    def simulateFace(self, name: str, alpha: float, beta: float) -> None:
        """Simulation only: a face (learned ``name`` or "") seen at camera angles (rad);
        reported while the extractor works."""
        if not self._producing():
            return
        with self._lock:
            known = self._recognition and name in self._faces
            face_id = self._faces.index(name) + 1 if known else 0
            time = self._sim.clock()
            filtered = self._time_filtered(name if known else "", time)
        shape = [0, alpha, beta, 0.1, 0.1]
        extra = [face_id, 0.8 if known else 0.0, name if known else "", [], [], [], [], [], []]
        self._raise_event("FaceDetected", [[int(time), int(time % 1 * 1e6)],
                                           [[shape, extra], filtered],
                                           [0.0] * 6, [0.0] * 6, 0])

    def _time_filtered(self, name: str, now: float) -> List[Any]:
        """The time-filtered recognition of a face ``name`` ("" when not recognised) seen
        at ``now`` (see the class; lock held)."""
        if now - self._last_seen > FORGET_AFTER_S:
            self._recalled.clear()
            self._unknown_since, self._unknown_told = None, False
        self._last_seen = now
        if name:
            self._unknown_since, self._unknown_told = None, False
            if name in self._recalled:
                return []
            self._recalled.add(name)
            return [ONE_RECOGNISED, [name]]
        if self._unknown_since is None:
            self._unknown_since = now
        if not self._unknown_told and now - self._unknown_since >= UNKNOWN_AFTER_S:
            self._unknown_told = True
            return [NOT_RECOGNISED]
        return []


class ALFaceCharacteristics(Extractor):
    """Age, gender and smile estimates of perceived people (it works on top of
    ALPeoplePerception)."""

    NAME = "ALFaceCharacteristics"
    EVENTS = ("FaceCharacteristics/PersonSmiling",)

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._smiling_threshold = 0.7

    def _started(self) -> None:
        self._sim.service("ALPeoplePerception").subscribe(self.NAME)

    def _stopped(self) -> None:
        self._sim.service("ALPeoplePerception").unsubscribe(self.NAME)

    def analyzeFaceCharacteristics(self, peopleId: int) -> bool:
        """Estimate the characteristics of a visible person; False if not visible."""
        if not self._sim.service("ALPeoplePerception").isPersonVisible(peopleId):
            return False
        prefix = PEOPLE + "Person/%d/" % peopleId
        self._memory().insertData(prefix + "AgeProperties", [30.0, 0.5])
        self._memory().insertData(prefix + "GenderProperties", [0.5, 0.5])
        self._memory().insertData(prefix + "SmileProperties", [0.0, 0.5])
        self._memory().insertData(prefix + "ExpressionProperties", [1.0, 0.0, 0.0, 0.0, 0.0])
        return True

    def setSmilingThreshold(self, threshold: float) -> None:
        """Smile degree above which a person is smiling."""
        self._smiling_threshold = check_range(self, "setSmilingThreshold", "threshold",
                                              threshold, 0.0, 1.0)

    def getSmilingThreshold(self) -> float:
        """Smile degree above which a person is smiling."""
        return self._smiling_threshold


MOOD_REACTIONS = ("positive", "negative", "none")


class ALMood(Extractor):
    """The focused person's emotional state and reactions."""

    NAME = "ALMood"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._valence = 0.0
        self._attention = 0.5
        self._reaction = "none"

    def simulateReaction(self, reaction: str, valence: float) -> None:
        """Simulation only: the person reacts ("positive", "negative", "none")."""
        if reaction not in MOOD_REACTIONS:
            raise self._error("simulateReaction", "reaction must be one of %s"
                              % ", ".join(MOOD_REACTIONS))
        self._reaction = reaction
        self._valence = check_range(self, "simulateReaction", "valence", valence, -1.0, 1.0)

    def getEmotionalReaction(self) -> str:
        """Reaction since the last call ("positive", "negative" or "none")."""
        reaction, self._reaction = self._reaction, "none"
        return reaction

    def currentPersonState(self) -> Dict[str, Any]:
        """{"valence", "attention", "smile"...: {"value", "confidence"}} of the focused person."""
        def measure(value: float) -> Dict[str, float]:
            return {"value": value, "confidence": 0.5}

        return {"valence": measure(self._valence), "attention": measure(self._attention),
                "bodyLanguageState": {"ease": measure(0.5)}, "smile": measure(0.0),
                "expressions": {"calm": measure(1.0), "anger": measure(0.0),
                                "joy": measure(max(0.0, self._valence)),
                                "sorrow": measure(max(0.0, -self._valence)),
                                "laughter": measure(0.0), "excitement": measure(0.0),
                                "surprise": measure(0.0)}}


SONAR_DEVICE = "Device/SubDeviceList/US/%s/Sensor/Value"
SONAR_NEAR = 0.5
FREE_SPACE = 5.0


class ALSonar(Extractor):
    """Ultrasound distances (left and right) published in ALMemory while subscribed."""

    NAME = "ALSonar"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._distances = {"Left": FREE_SPACE, "Right": FREE_SPACE}

    def _started(self) -> None:
        for side, distance in self._distances.items():
            self._memory().insertData(SONAR_DEVICE % side, distance)

    def simulateObstacle(self, left: float, right: float) -> None:
        """Simulation only: obstacles at ``left`` / ``right`` m (5 = nothing)."""
        for side, distance in (("Left", left), ("Right", right)):
            self._distances[side] = check_range(self, "simulateObstacle", side, distance,
                                                0.2, FREE_SPACE)
            if self._subscribers:
                self._memory().insertData(SONAR_DEVICE % side, distance)
                event = "Detected" if distance < SONAR_NEAR else "NothingDetected"
                self._raise_event("Sonar%s%s" % (side, event), distance)


# sensor -> legacy ALMemory key raised with 1.0 / 0.0
_NAO_SENSORS = {
    "Head/Touch/Front": "FrontTactilTouched", "Head/Touch/Middle": "MiddleTactilTouched",
    "Head/Touch/Rear": "RearTactilTouched", "LHand/Touch/Back": "HandLeftBackTouched",
    "LHand/Touch/Left": "HandLeftLeftTouched", "LHand/Touch/Right": "HandLeftRightTouched",
    "RHand/Touch/Back": "HandRightBackTouched", "RHand/Touch/Left": "HandRightLeftTouched",
    "RHand/Touch/Right": "HandRightRightTouched", "LFoot/Bumper/Left": "LeftBumperPressed",
    "LFoot/Bumper/Right": "LeftBumperPressed", "RFoot/Bumper/Left": "RightBumperPressed",
    "RFoot/Bumper/Right": "RightBumperPressed",
}
_PEPPER_SENSORS = {
    "Head/Touch/Front": "FrontTactilTouched", "Head/Touch/Middle": "MiddleTactilTouched",
    "Head/Touch/Rear": "RearTactilTouched", "LHand/Touch/Back": "HandLeftBackTouched",
    "RHand/Touch/Back": "HandRightBackTouched", "Bumper/FrontLeft": "FrontLeftBumperPressed",
    "Bumper/FrontRight": "FrontRightBumperPressed", "Bumper/Back": "BackBumperPressed",
}


class ALTouch(SimModule):
    """Touch sensors and bumpers, their status and events."""

    NAME = "ALTouch"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._sensors = _NAO_SENSORS if sim.robot == "nao" else _PEPPER_SENSORS
        self._touched = {name: False for name in self._sensors}

    def getSensorList(self) -> List[str]:
        """Names of the touch sensors and bumpers."""
        return sorted(self._sensors)

    def getStatus(self) -> List[List[Any]]:
        """[[sensor, touched, []]] for every sensor."""
        return [[name, self._touched[name], []] for name in sorted(self._sensors)]

    def simulateTouch(self, sensor: str, touched: bool) -> None:
        """Simulation only: ``sensor`` is pressed (True) or released (False)."""
        key: Optional[str] = self._sensors.get(sensor)
        if key is None:
            raise self._error("simulateTouch", "no sensor '%s' (sensors: %s)"
                              % (sensor, ", ".join(sorted(self._sensors))))
        self._touched[sensor] = touched
        self._raise_event("TouchChanged", [[sensor, touched]])
        self._raise_event(key, 1.0 if touched else 0.0)
