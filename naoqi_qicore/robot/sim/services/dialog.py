"""Simulated ALSpeechRecognition and ALDialog.

There is no microphone: recognition happens through ``ALSpeechRecognition.simulateRecognition``
(a simulation-only method) and ``ALDialog.forceInput``; both raise the ALMemory events of
the real services (WordRecognized, Dialog/LastInput, Dialog/Answered...).
"""
import os
from typing import Any, Dict, List, Optional, Tuple

from naoqi_qicore.core.dialog_box import QICHAT_LANGUAGES
from naoqi_qicore.robot.sim.services.extractor import Extractor
from naoqi_qicore.robot.sim.services.module import check_range
from naoqi_qicore.robot.sim.services.qichat import (Rule, Topic, TopicError, answer_for,
                                                    parse_topic, render_answer)
from naoqi_qicore.robot.sim.services.speech import INSTALLED_LANGUAGES

#: the name NAOqi gives the private topic loader of the Choice box
PRIVATE_LOAD = "_addDialogFromTopicBox"


class ALSpeechRecognition(Extractor):
    """Vocabulary, language, subscriptions and pause; words arrive via simulateRecognition."""

    NAME = "ALSpeechRecognition"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._language = "English"
        self._vocabulary: List[str] = []
        self._word_spotting = False
        self._contexts: List[List[str]] = []
        self._paused = False
        self._parameters: Dict[str, float] = {"Sensitivity": 0.5, "NbHypotheses": 1.0}
        self._expressions = {"audio": True, "visual": True}

    def _listening(self) -> bool:
        return bool(self._subscribers) and not self._paused

    def _status(self, status: str) -> None:
        self._raise_event("ALSpeechRecognition/Status", status)

    def _check_editable(self, method: str) -> None:
        if self._listening():
            raise self._error(method, "the speech recognition engine is running; "
                                      "call pause(True) before changing it")

    def setLanguage(self, language: str) -> None:
        """Recognition language (an installed one)."""
        self._check_editable("setLanguage")
        if language not in INSTALLED_LANGUAGES:
            raise self._error("setLanguage", "language '%s' is not installed" % language)
        self._language = language

    def getLanguage(self) -> str:
        """Recognition language."""
        return self._language

    def getAvailableLanguages(self) -> List[str]:
        """Installed recognition languages."""
        return list(INSTALLED_LANGUAGES)

    def setVocabulary(self, vocabulary: List[str], enableWordSpotting: bool) -> None:
        """Phrases to recognise; with word spotting they may be part of longer utterances."""
        self._check_editable("setVocabulary")
        if not vocabulary:
            raise self._error("setVocabulary", "the vocabulary is empty")
        self._vocabulary = [phrase.strip() for phrase in vocabulary]
        self._word_spotting = enableWordSpotting

    def setWordListAsVocabulary(self, vocabulary: List[str]) -> None:
        """Deprecated: setVocabulary without word spotting."""
        self.setVocabulary(vocabulary, False)

    def pushContexts(self) -> None:
        """Save the vocabulary."""
        self._contexts.append(list(self._vocabulary))

    def popContexts(self) -> None:
        """Restore the last saved vocabulary."""
        if self._contexts:
            self._vocabulary = self._contexts.pop()

    def removeAllContext(self) -> None:
        """Forget the vocabulary."""
        self._check_editable("removeAllContext")
        self._vocabulary = []

    def _started(self) -> None:
        self._status("ListenOn")

    def _stopped(self) -> None:
        self._status("Idle")

    def pause(self, isPaused: bool) -> None:
        """Pause or resume recognition (needed to change it while subscribed)."""
        self._paused = isPaused
        if self._subscribers:
            self._status("ListenOff" if isPaused else "ListenOn")

    def setAudioExpression(self, setOrNot: bool) -> None:
        """Beep when listening starts and stops."""
        self._expressions["audio"] = setOrNot

    def setVisualExpression(self, setOrNot: bool) -> None:
        """Eye LEDs show the recognition state."""
        self._expressions["visual"] = setOrNot

    def getAudioExpression(self) -> bool:
        """Whether listening is signalled by a beep."""
        return self._expressions["audio"]

    def getVisualExpression(self) -> bool:
        """Whether the eyes show the recognition state."""
        return self._expressions["visual"]

    def setParameter(self, parameter: str, value: float) -> None:
        """Set "Sensitivity" (0-1) or "NbHypotheses"."""
        if parameter not in self._parameters:
            raise self._error("setParameter", "unknown parameter '%s'" % parameter)
        if parameter == "Sensitivity":
            check_range(self, "setParameter", parameter, value, 0.0, 1.0)
        self._parameters[parameter] = value

    def getParameter(self, parameter: str) -> float:
        """Value of a parameter."""
        if parameter not in self._parameters:
            raise self._error("getParameter", "unknown parameter '%s'" % parameter)
        return self._parameters[parameter]

    def simulateRecognition(self, phrase: str, confidence: float) -> bool:
        """Simulation only: the robot hears ``phrase``; True if it was recognised."""
        if not self._listening():
            return False
        self._status("SpeechDetected")
        self._raise_event("SpeechDetected", 1)
        heard = phrase.strip()
        found: Optional[str] = next((w for w in self._vocabulary if w.lower() == heard.lower()),
                                    None)
        if found is None and self._word_spotting:
            found = next((w for w in self._vocabulary if w.lower() in heard.lower()), None)
        self._status("EndOfProcess")
        if found is None:
            self._raise_event("WordRecognized", ["", 0.0])
        else:
            words = ("<...> %s <...>" % found) if self._word_spotting else found
            self._raise_event("WordRecognized", [words, confidence])
        self._raise_event("SpeechDetected", 0)
        self._status("ListenOn")
        return found is not None


class ALDialog(Extractor):
    """QiChat topics: load, activate, match forced inputs and say the answers."""

    NAME = "ALDialog"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._language = "English"
        self._topics: Dict[str, Topic] = {}
        self._active: List[str] = []
        self._concepts: Dict[str, List[str]] = {}
        self._threshold = 0.5
        self._focus = ""
        #: (topic, sub-rule) pairs active for the next input (those of the last matched rule)
        self._expected: List[Tuple[Topic, Rule]] = []

    def _topic(self, method: str, name: str) -> Topic:
        if name not in self._topics:
            raise self._error(method, "topic '%s' is not loaded" % name)
        return self._topics[name]

    def _add_topic(self, method: str, text: str, origin: str) -> str:
        try:
            topic = parse_topic(text)
        except TopicError as error:
            raise self._error(method, "%s: %s" % (origin, error))
        topic.language = QICHAT_LANGUAGES.get(topic.language, topic.language)
        if topic.language not in INSTALLED_LANGUAGES:
            raise self._error(method, "%s: language '%s' is not installed" % (origin,
                                                                              topic.language))
        with self._lock:
            self._topics[topic.name] = topic
        return topic.name

    def _load_topic_file(self, method: str, path: str) -> str:
        if not os.path.isfile(path):
            raise self._error(method, "file '%s' does not exist" % path)
        with open(path, encoding="utf-8") as source:
            return self._add_topic(method, source.read(), path)

    def loadTopic(self, topicFilePath: str) -> str:
        """Load a .top file; returns the topic name."""
        return self._load_topic_file("loadTopic", topicFilePath)

    def addDialogFromTopicBox(self, topicFilePath: str, behaviorPath: str) -> str:
        """``_addDialogFromTopicBox``, the private method Choregraphe's Choice box calls with
        a topic file it wrote and its behavior's folder: loads the topic (a relative path
        is taken from that folder) and returns its name, as :meth:`loadTopic`."""
        return self._load_topic_file(PRIVATE_LOAD, os.path.join(behaviorPath, topicFilePath))

    addDialogFromTopicBox.__qi_name__ = PRIVATE_LOAD  # type: ignore[attr-defined]

    def loadTopicContent(self, topicContent: str) -> str:
        """Load a topic from its text; returns the topic name."""
        return self._add_topic("loadTopicContent", topicContent, "<content>")

    def unloadTopic(self, topicName: str) -> None:
        """Forget a deactivated topic."""
        self._topic("unloadTopic", topicName)
        if topicName in self._active:
            raise self._error("unloadTopic", "topic '%s' is still activated" % topicName)
        with self._lock:
            del self._topics[topicName]

    def activateTopic(self, topicName: str) -> None:
        """Let a loaded topic answer."""
        self._topic("activateTopic", topicName)
        with self._lock:
            if topicName not in self._active:
                self._active.append(topicName)
        self._focus = self._focus or topicName

    def deactivateTopic(self, topicName: str) -> None:
        """Stop a topic answering."""
        self._topic("deactivateTopic", topicName)
        with self._lock:
            if topicName in self._active:
                self._active.remove(topicName)
        if self._focus == topicName:
            self._focus = self._active[0] if self._active else ""

    def getLoadedTopics(self, language: str) -> List[str]:
        """Topics loaded for ``language``."""
        return sorted(n for n, t in self._topics.items() if t.language == language)

    def getAllLoadedTopics(self) -> List[str]:
        """Every loaded topic."""
        return sorted(self._topics)

    def getActivatedTopics(self) -> List[str]:
        """Activated topics."""
        return list(self._active)

    def setFocus(self, topicName: str) -> None:
        """Make an activated topic answer first."""
        if topicName not in self._active:
            raise self._error("setFocus", "topic '%s' is not activated" % topicName)
        self._focus = topicName

    def getFocus(self) -> str:
        """The topic answering first."""
        return self._focus

    def _started(self) -> None:
        self._raise_event("Dialog/IsStarted", 1)

    def _stopped(self) -> None:
        self._raise_event("Dialog/IsStarted", 0)

    def stopDialog(self) -> None:
        """Stop the dialog engine whoever subscribed."""
        for name in [info[0] for info in self.getSubscribersInfo()]:
            self.unsubscribe(name)

    def closeSession(self) -> None:
        """End the conversation with the current user (focus goes back to the first topic)."""
        self._focus = self._active[0] if self._active else ""

    def setLanguage(self, language: str) -> None:
        """Dialog language (an installed one)."""
        if language not in INSTALLED_LANGUAGES:
            raise self._error("setLanguage", "language '%s' is not installed" % language)
        self._language = language

    def getLanguage(self) -> str:
        """Dialog language."""
        return self._language

    def setConcept(self, conceptName: str, language: str, content: List[str]) -> None:
        """Set a dynamic concept's values."""
        self._concepts[conceptName] = list(content)

    def addToConcept(self, conceptName: str, language: str, content: List[str]) -> None:
        """Add values to a dynamic concept."""
        self._concepts.setdefault(conceptName, []).extend(content)

    def getConcept(self, conceptName: str, language: str) -> List[str]:
        """Values of a dynamic concept."""
        return list(self._concepts.get(conceptName, []))

    def setASRConfidenceThreshold(self, threshold: float) -> None:
        """Confidence below which inputs are ignored."""
        self._threshold = check_range(self, "setASRConfidenceThreshold", "threshold",
                                      threshold, 0.0, 1.0)

    def getASRConfidenceThreshold(self) -> float:
        """Confidence below which inputs are ignored."""
        return self._threshold

    def _say(self, text: str) -> None:
        self._sim.service("ALTextToSpeech").say(text)

    def forceInput(self, input: str) -> None:
        """Act as if the user said ``input``: answer from the activated topics."""
        self._raise_event("Dialog/LastInput", input)
        if not self._subscribers:
            return
        ordered = sorted(self._active, key=lambda n: n != self._focus)
        topics = [self._topics[n] for n in ordered if self._topics[n].language == self._language]
        expected = [(topic, rule) for topic, rule in self._expected if topic.name in ordered]
        match = answer_for(topics, input, lambda name: self._concepts.get(name, []), expected)
        if match is None:
            self._raise_event("Dialog/NotUnderstood", input)
            return
        self._focus = match[0]
        self._expected = [(self._topics[match[0]], sub) for sub in match[1].subrules]
        text, assignments = render_answer(match[1].answer)
        for variable, value in assignments.items():
            self._memory().insertData(variable, value)
        self._raise_event("Dialog/Answered", text)
        if text:
            self._say(text)

    def forceOutput(self) -> None:
        """Say the next proposal of the focused topic."""
        topic = self._topics.get(self._focus)
        if topic is None or not topic.proposals:
            raise self._error("forceOutput", "no proposal to make")
        proposal = topic.proposals.pop(0)
        self._expected = [(topic, sub) for sub in proposal.subrules]
        text, _ = render_answer(proposal.answer)
        self._raise_event("Dialog/Answered", text)
        self._say(text)
