"""Simulated ALSpeechRecognition and ALDialog.

There is no microphone: recognition happens through ``ALSpeechRecognition.simulateRecognition``
(a simulation-only method) and ``ALDialog.forceInput``; both raise the ALMemory events of
the real services (WordRecognized, Dialog/LastInput, Dialog/Answered...).  ALDialog reads
topics with :mod:`~naoqi_qicore.robot.sim.services.qichat` (a topic it cannot read fails to
load with ``file:line: message``) from the robot's files only (``loadTopic`` and
``include:``), and quotes nothing of a file that is not a topic.
"""
import ast
import posixpath
import random
import re
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Set, Tuple

from naoqi_qicore.converter.pyport import port_script
from naoqi_qicore.core.dialog_box import QICHAT_LANGUAGES
from naoqi_qicore.file_root import RootedPath
from naoqi_qicore.robot.robot_files import HOME, RobotPathError
from naoqi_qicore.robot.sim.own_calls import OwnService, call_own
from naoqi_qicore.robot.sim.services.extractor import Extractor
from naoqi_qicore.robot.sim.services.module import Activity, check_range, current_activity
from naoqi_qicore.robot.sim.services.qichat import (IncludeReader, Output, Rule, Step, Topic,
                                                    TopicError, Undefined, candidates,
                                                    match_event, match_input, matches,
                                                    parse_topic, render_output,
                                                    split_arguments, topic_concept)
from naoqi_qicore.robot.sim.services.qichat_lexicon import builtin_lexicon
from naoqi_qicore.robot.sim.services.speech import (INSTALLED_LANGUAGES, INSTRUCTIONS,
                                                    SOUND_INSTRUCTIONS, WAITING_INSTRUCTIONS,
                                                    AnnotatedSpeech)

#: the name NAOqi gives the private topic loader of the Choice box
PRIVATE_LOAD = "_addDialogFromTopicBox"
#: ``_fire`` without an event value (``e:onStart``)
_NO_VALUE = object()
#: the largest topic file read
MAX_TOPIC_BYTES = 8 << 20
#: how a topic file starts: blank lines and comments, then its ``topic:`` line
_TOPIC_START = re.compile(r"\ufeff?(?:[ \t]*(?:#[^\n]*)?\r?\n)*[ \t]*topic[ \t]*:")


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
    """QiChat topics: load, activate, match forced inputs and say the answers.

    The engine (see :mod:`~naoqi_qicore.robot.sim.services.qichat`): an input is matched
    against the sub-rules the last answer opened, then against the rules of the activated
    topics of the dialog language (the focused topic first; ``^private`` rules only there).
    An answer's parts are done where they stand in it, as the robot's speech reaches them
    (:class:`~naoqi_qicore.robot.sim.services.speech.AnnotatedSpeech`): its text is said, its
    variables set (ALMemory keys), ALAnimatedSpeech's instructions done (``^start``,
    ``^run``, ``^wait``, ``^stop``, ``^stopAndPlay`` of an animation...), and its rule
    functions: ``^goto``/``^gotoReactivate``/``^gotoRandom``/``^nextProposal``/
    ``^sameProposal``/``^previousProposal``/``^topicTag`` say a proposal (each proposal
    once, unless reactivated), ``^clear`` removes a variable, ``^activate``/``^deactivate`` a
    tag's proposals, ``^call`` calls a service and answers its result with the rule's
    ``c1:`` rules, ``^pCall`` calls one in the background, ``^addToConcept(~name, words)``
    and ``^removeFromConcept(~name, words)`` change a dynamic concept; a ``%script`` block
    runs its Python 2 code (ported) in ALPythonBridge's interpreter, the robot's services
    reachable by their names, and what it prints is said (only when evaluating Python code
    is allowed, as for ALPythonBridge: else a warning says so and the answer goes on).
    What waits (``^run``, ``^wait``, ``^call``, a jump, a ``%script``) is done between
    sentences; what stands after an answer's last words, once they are said.  The
    sentences, variables, animations and calls of an answer are recorded as the robot's
    own (:mod:`~naoqi_qicore.robot.sim.own_calls`).  Rules with events in their input
    (``u:(e:Key)``, ``u1:([~yes e:Key])``) answer ``Key``'s ALMemory events while the
    dialog runs; ``e:onStart`` rules answer when the dialog starts or their topic is
    activated while it runs.  Assignments in an input (``u:(_[tea coffee] $drink=$1)``)
    are made when it matches, before the answer is said.
    """

    NAME = "ALDialog"
    #: rule functions that say a proposal: a chain of them stops after this many
    MAX_JUMPS = 16

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
        #: proposals said (and not reactivated since), by id, per topic
        self._used: Dict[str, Set[int]] = {}
        #: topic -> the tags switched off (deactivateTag, ^deactivate): their rules do not answer
        self._off_tags: Dict[str, Set[str]] = {}
        #: the last proposal said, per topic
        self._last_proposal: Dict[str, Rule] = {}
        #: ALMemory events the dialog subscribed to for its event rules
        self._events: Set[str] = set()
        self._rng = random.Random()

    def _topic(self, method: str, name: str) -> Topic:
        if name not in self._topics:
            raise self._error(method, "topic '%s' is not loaded" % name)
        return self._topics[name]

    def _includes(self, origin: Optional[str]) -> IncludeReader:
        """Reads a topic's ``include:`` files from the robot's files (beside ``origin``, the
        including topic's robot path), else the robot's own lexicon; nothing else."""
        def read(path: str, line: int) -> Tuple[str, str]:
            if path.startswith("/") or origin:
                try:
                    local = self._sim.files.local(path, posixpath.dirname(origin or HOME))
                    robot = self._sim.files.robot_path(path, posixpath.dirname(origin or HOME))
                except RobotPathError as error:
                    raise TopicError("include: %s" % error, line) from None
                if local.is_file():
                    text = self._topic_text(local, robot, MAX_TOPIC_BYTES)
                    if text is None:
                        raise TopicError("include: '%s' is not a QiChat topic" % path, line)
                    return text, robot
            lexicon = builtin_lexicon(posixpath.basename(path))
            if lexicon is not None:
                return lexicon, "<robot lexicon %s>" % posixpath.basename(path)
            raise TopicError("include: file '%s' does not exist" % path, line)
        return read

    def _add_topic(self, method: str, text: str, origin: Optional[str]) -> str:
        try:
            topic = parse_topic(text, origin, self._includes(origin))
        except TopicError as error:
            raise self._error(method, str(error) if origin else "<content>: %s" % error)
        for warning in topic.warnings:
            self._sim.log.warning("ALDialog: %s", warning)
        code = topic.language
        topic.language = QICHAT_LANGUAGES.get(code, code)
        if topic.language not in INSTALLED_LANGUAGES:
            where = TopicError("language '%s' is not installed" % code,
                               topic.language_line or None, origin or "<content>")
            raise self._error(method, str(where))
        with self._lock:
            self._topics[topic.name] = topic
            self._used[topic.name] = set()
            self._off_tags[topic.name] = set()
            self._last_proposal.pop(topic.name, None)
        return topic.name

    @staticmethod
    def _topic_text(local: RootedPath, robot: str, limit: int) -> Optional[str]:
        """The text of the topic file ``local`` (``robot``: its robot path, for errors);
        None when it is not a topic (larger than ``limit``, or not starting with
        ``topic:``), so that nothing of it is quoted.  TopicError when not UTF-8, or when it
        cannot be read (a hard link, a link leading out of the robot's files)."""
        try:
            with local.open_read() as stream:
                data = stream.read(limit + 1)
        except OSError as error:
            raise TopicError("cannot be read: %s" % (error.strerror or type(error).__name__),
                             None, robot) from None
        if len(data) > limit:
            return None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise TopicError("not UTF-8 text (%s)" % error.reason, None, robot) from None
        return text if _TOPIC_START.match(text) else None

    def _load_topic_file(self, method: str, path: str, base: str = HOME) -> str:
        """Load the topic file ``path`` of the robot's files (relative: from ``base``).
        Errors name the file but quote nothing of a file that is not a topic."""
        local = self._file(method, path, base)
        if not local.is_file():
            raise self._error(method, "file '%s' does not exist" % path)
        robot = self._sim.files.robot_path(path, base)
        try:
            text = self._topic_text(local, robot, MAX_TOPIC_BYTES)
        except TopicError as error:
            raise self._error(method, str(error)) from None
        if text is None:
            raise self._error(method, "'%s' is not a QiChat topic (it does not start with "
                                      "'topic: ~name()', or is over %d MB)"
                              % (path, MAX_TOPIC_BYTES >> 20))
        return self._add_topic(method, text, robot)

    def loadTopic(self, topicFilePath: str) -> str:
        """Load a .top file of the robot's files; returns the topic name."""
        return self._load_topic_file("loadTopic", topicFilePath)

    def addDialogFromTopicBox(self, topicFilePath: str, behaviorPath: str) -> str:
        """``_addDialogFromTopicBox``, the private method Choregraphe's Choice box calls with
        a topic file it wrote and its behavior's folder: loads the topic (a relative path
        is taken from that folder) and returns its name, as :meth:`loadTopic`."""
        return self._load_topic_file(PRIVATE_LOAD, topicFilePath, behaviorPath)

    addDialogFromTopicBox.__qi_name__ = PRIVATE_LOAD  # type: ignore[attr-defined]

    def loadTopicContent(self, topicContent: str) -> str:
        """Load a topic from its text; returns the topic name."""
        return self._add_topic("loadTopicContent", topicContent, None)

    def unloadTopic(self, topicName: str) -> None:
        """Forget a deactivated topic."""
        self._topic("unloadTopic", topicName)
        if topicName in self._active:
            raise self._error("unloadTopic", "topic '%s' is still activated" % topicName)
        with self._lock:
            del self._topics[topicName]
            self._used.pop(topicName, None)
            self._off_tags.pop(topicName, None)
            self._last_proposal.pop(topicName, None)

    def activateTopic(self, topicName: str) -> None:
        """Let a loaded topic answer (its ``e:onStart`` rules answer if the dialog runs)."""
        topic = self._topic("activateTopic", topicName)
        with self._lock:
            added = topicName not in self._active
            if added:
                self._active.append(topicName)
            self._focus = self._focus or topicName
            running = bool(self._subscribers)
        if added and running:
            self._follow_events()
            self._start_rules([topic])

    def deactivateTopic(self, topicName: str) -> None:
        """Stop a topic answering."""
        self._topic("deactivateTopic", topicName)
        with self._lock:
            if topicName in self._active:
                self._active.remove(topicName)
            if self._focus == topicName:
                self._focus = self._active[0] if self._active else ""
            self._expected = [(t, r) for t, r in self._expected if t.name != topicName]
            running = bool(self._subscribers)
        if running:
            self._follow_events()

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
        self._follow_events()
        topics, _ = self._listening_to()
        self._start_rules(topics)

    def _stopped(self) -> None:
        self._follow_events()
        self._raise_event("Dialog/IsStarted", 0)

    def stopDialog(self) -> None:
        """Stop the dialog engine whoever subscribed."""
        for name in [info[0] for info in self.getSubscribersInfo()]:
            self.unsubscribe(name)

    def closeSession(self) -> None:
        """End the conversation with the current user (focus goes back to the first topic)."""
        with self._lock:
            self._focus = self._active[0] if self._active else ""
            self._expected = []

    def setLanguage(self, language: str) -> None:
        """Dialog language (an installed one)."""
        if language not in INSTALLED_LANGUAGES:
            raise self._error("setLanguage", "language '%s' is not installed" % language)
        self._language = language

    def getLanguage(self) -> str:
        """Dialog language."""
        return self._language

    def getLanguageListNUToLong(self) -> Dict[str, str]:
        """QiChat language code (``enu``) -> NAOqi language name (``English``)."""
        return dict(QICHAT_LANGUAGES)

    def getLanguageListLongToNU(self) -> Dict[str, str]:
        """NAOqi language name (``English``) -> QiChat language code (``enu``)."""
        return {name: code for code, name in QICHAT_LANGUAGES.items()}

    def convertNUToLong(self, Language: str) -> str:  # noqa: N803 (NAOqi's name)
        """The NAOqi name of the QiChat language code ``Language`` (``frf`` -> ``French``)."""
        name = QICHAT_LANGUAGES.get(Language)
        if name is None:
            raise self._error("convertNUToLong", "unknown language code '%s'" % Language)
        return name

    def convertLongToNU(self, Language: str) -> str:  # noqa: N803 (NAOqi's name)
        """The QiChat code of the NAOqi language name ``Language`` (``French`` -> ``frf``)."""
        code = self.getLanguageListLongToNU().get(Language)
        if code is None:
            raise self._error("convertLongToNU", "unknown language '%s'" % Language)
        return code

    def setConcept(self, conceptName: str, language: str, content: List[str],
                   store: bool = False) -> None:
        """Set a dynamic concept's values (``store``: keep them across restarts)."""
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

    # -- matching ---------------------------------------------------------------------------
    def _listening_to(self) -> Tuple[List[Topic], List[Tuple[Topic, Rule]]]:
        """(activated topics of the current language, focused one first; the sub-rules
        expected now): what the next input is matched against."""
        with self._lock:
            ordered = sorted(self._active, key=lambda n: n != self._focus)
            topics = [self._topics[n] for n in ordered
                      if self._topics[n].language == self._language]
            expected = [(topic, rule) for topic, rule in self._expected if topic.name in ordered]
        return topics, expected

    def _dynamic_concept(self, name: str) -> List[str]:
        return self._concepts.get(name, [])

    def _variable(self, name: str) -> Optional[str]:
        """A QiChat variable: the ALMemory value of ``name`` as text, None when unset."""
        try:
            return _variable_text(self._memory().getData(name))
        except RuntimeError:
            return None

    def _switch_tag(self, topic: Topic, tag: str, on: bool) -> None:
        """Switch the rules of ``topic`` tagged ``tag`` on or off: an off rule does not
        answer, an off proposal is not proposed (on again: it may be once more)."""
        with self._lock:
            off = self._off_tags.setdefault(topic.name, set())
            used = self._used.setdefault(topic.name, set())
            (off.discard if on else off.add)(tag)
            for proposal in topic.proposals:
                if tag in proposal.tags:
                    (used.discard if on else used.add)(id(proposal))

    def _answers(self, topic: Topic, rule: Rule) -> bool:
        """Whether ``rule`` may answer: none of its tags is switched off."""
        with self._lock:
            off = self._off_tags.get(topic.name, set())
            return not any(tag in off for tag in rule.tags)

    def _matches(self, input: str, topics: List[Topic], expected: List[Tuple[Topic, Rule]]
                 ) -> Iterator[Tuple[Topic, Rule, Any]]:
        """(topic, rule, match) of the rules of ``topics`` (with the ``expected`` answers
        of :meth:`_listening_to`) that may answer ``input`` now, in order."""
        for topic, rule, found in matches(topics, input, self._dynamic_concept, expected,
                                          self._variable):
            if self._answers(topic, rule):
                yield topic, rule, found

    def _match(self, input: str) -> Optional[Tuple[str, Rule]]:
        """(topic name, rule) that would answer ``input`` now, or None."""
        for topic, rule, _ in self._matches(input, *self._listening_to()):
            return topic.name, rule
        return None

    def forceInput(self, input: str) -> None:
        """Act as if the user said ``input``: answer from the activated topics."""
        self._raise_event("Dialog/LastInput", input)
        if not self._subscribers:
            return
        topics, expected = self._listening_to()
        for topic, rule, found in self._matches(input, topics, expected):
            answer = self._render(topics, topic, rule, found.stored, found.assignments)
            if answer is not None:
                self._answer(topic, rule, answer, found.stored, found.assignments)
                return
        self._raise_event("Dialog/NotUnderstood", input)

    def activateTag(self, tagName: str, topicName: str) -> None:
        """Let the rules of a loaded topic tagged ``tagName`` answer again (``^activate``)."""
        self._switch_tag(self._topic("activateTag", topicName), tagName, True)

    def deactivateTag(self, tagName: str, topicName: str) -> None:
        """Keep the rules of a loaded topic tagged ``tagName`` from answering
        (``^deactivate``)."""
        self._switch_tag(self._topic("deactivateTag", topicName), tagName, False)

    def gotoTag(self, tagName: str, topicName: str) -> None:
        """Say the proposal of a loaded topic tagged ``tagName``, said before or not (as
        ``^gotoReactivate``); the topic gets the focus."""
        topic = self._topic("gotoTag", topicName)
        with self._lock:
            tagged = next((p for p in topic.proposals if tagName in p.tags), None)
            if tagged is not None:
                self._used.setdefault(topic.name, set()).discard(id(tagged))
        if tagged is None:
            raise self._error("gotoTag", "topic '%s' has no proposal tagged '%s'"
                              % (topicName, tagName))
        self._propose(topic, tagged, 0)

    def forceOutput(self) -> None:
        """Say the next proposal of the focused topic."""
        with self._lock:
            topic = self._topics.get(self._focus)
            proposal = None if topic is None else next(
                (p for p in topic.proposals if id(p) not in self._used[topic.name]), None)
        if topic is None or proposal is None:
            raise self._error("forceOutput", "no proposal to make")
        self._propose(topic, proposal, 0)

    # -- answering --------------------------------------------------------------------------
    def _render(self, topics: List[Topic], topic: Topic, rule: Rule, stored: List[str],
                assignments: Sequence[Tuple[str, str]] = (),
                seen: Optional[Callable[[str], Optional[str]]] = None) -> Optional[Output]:
        """The rule's output (seeing the values its input assigned, and the variables as
        ``seen`` gives them, else as ALMemory holds them), or None when it needs a value
        nobody set."""
        assigned = dict(assignments)
        outside = seen or self._variable

        def variable(name: str) -> Optional[str]:
            return assigned[name] if name in assigned else outside(name)
        try:
            return render_output(rule.output, topic, stored,
                                 topic_concept(topics, self._dynamic_concept, topic),
                                 variable, self._rng)
        except Undefined as missing:
            self._sim.log.info("ALDialog: %s line %d cannot answer: %s undefined",
                               topic.name, rule.line, missing)
            return None

    def _answer(self, topic: Topic, rule: Rule, answer: Output, stored: List[str],
                assignments: Sequence[Tuple[str, str]] = (), jumps: int = 0) -> None:
        """Say a rule's rendered output and do its parts where they stand (see the class)."""
        with self._lock:
            self._focus = topic.name
            if rule.subrules or "stayInScope" not in [a for a, _ in answer.actions]:
                self._expected = [(topic, sub) for sub in rule.subrules]
            if rule.kind == "proposal":
                self._used.setdefault(topic.name, set()).add(id(rule))
                self._last_proposal[topic.name] = rule
        for name, value in assignments:  # the input's, made when it matched
            self._set(name, value)
        self._raise_event("Dialog/Answered", answer.text)
        speech = AnnotatedSpeech(self._sim, current_activity() or Activity(), own=True)
        try:
            speech.perform(answer.steps, _waits,
                           lambda step: self._step(speech, topic, rule, step, jumps))
        finally:
            speech.finish()

    def _step(self, speech: AnnotatedSpeech, topic: Topic, rule: Rule, step: Step,
              jumps: int) -> Optional[str]:
        """Do a step of an answer other than its text; what a ``%script`` printed."""
        if step[0] == "set":
            self._set(step[1], step[2])
        elif step[0] == "script":
            return self._script(topic, rule, step[1])
        elif step[1] in INSTRUCTIONS or step[1] in SOUND_INSTRUCTIONS:
            speech.instruct(step[1], step[2])
        else:
            self._act(topic, rule, step[1], step[2], jumps)
        return None

    def _set(self, name: str, value: str) -> None:
        """Set the QiChat variable ``name``, as the robot's own."""
        call_own(self._sim, "ALMemory", "insertData", name, value)

    def _script(self, topic: Topic, rule: Rule, code: str) -> str:
        """Run a ``%script`` block (its Python 2 ported); what it printed ("" when it could
        not run: a warning says why)."""
        ported = port_script(code)
        where = "ALDialog: %s line %d: %%script" % (topic.name, rule.line)
        if ported.error is not None:
            self._sim.log.warning("%s cannot run: %s", where, ported.error)
            return ""
        names = {name: OwnService(self._sim, name) for name in self._sim.names()}
        try:
            printed = self._sim.service("ALPythonBridge")._run_script(ported.code, names)
        except RuntimeError as error:
            self._sim.log.warning("%s not run: %s", where, str(error).split(": ", 1)[-1])
            return ""
        return " ".join(printed.split())

    def _propose(self, topic: Topic, proposal: Rule, jumps: int) -> None:
        """Say a proposal (its sub-rules are expected next)."""
        topics, _ = self._listening_to()
        answer = self._render(topics or [topic], topic, proposal, [])
        if answer is None:
            with self._lock:
                self._used.setdefault(topic.name, set()).add(id(proposal))
            return
        self._answer(topic, proposal, answer, [], (), jumps)

    def _proposal(self, topic: Topic, function: str, args: str, rule: Rule) -> Optional[Rule]:
        """The proposal a ``^goto``-like function leads to, or None."""
        with self._lock:
            used = self._used.setdefault(topic.name, set())
            last = self._last_proposal.get(topic.name)
        fresh = [p for p in topic.proposals if id(p) not in used]
        tag = args.strip()
        if function in ("goto", "gotoReactivate", "enableThenGoto", "topicTag", "gotoRandom"):
            tagged = [p for p in topic.proposals if tag in p.tags]
            if function == "gotoRandom":
                tagged = [p for p in tagged if id(p) not in used]
                return self._rng.choice(tagged) if tagged else None
            if function == "goto" or function == "topicTag":
                tagged = [p for p in tagged if id(p) not in used]
            return tagged[0] if tagged else None
        if function == "sameProposal":
            return last
        reference = last.line if last is not None else rule.line
        if function == "nextProposal":
            return next((p for p in fresh if p.line > reference), None)
        if function == "previousProposal":
            before = [p for p in topic.proposals if p.line < reference]
            return before[-1] if before else None
        return None

    def _act(self, topic: Topic, rule: Rule, name: str, args: str, jumps: int) -> None:
        """Do one rule function of an answer."""
        if name in JUMPS:
            if jumps >= self.MAX_JUMPS:
                self._sim.log.warning("ALDialog: %s line %d: more than %d jumps in a row",
                                      topic.name, rule.line, self.MAX_JUMPS)
                return
            target = topic
            if name == "topicTag":
                parts = split_arguments(args)
                target = self._topics.get(parts[0].lstrip("~")) if parts else None
                args = parts[1] if len(parts) > 1 else ""
                if target is None or target.name not in self._active:
                    return
            if name in ("gotoReactivate", "enableThenGoto"):
                with self._lock:
                    for proposal in target.proposals:
                        if args.strip() in proposal.tags:
                            self._used.setdefault(target.name, set()).discard(id(proposal))
            proposal = self._proposal(target, name, args, rule)
            if proposal is not None:
                self._propose(target, proposal, jumps + 1)
        elif name == "clear":
            for variable in split_arguments(args):
                try:
                    call_own(self._sim, "ALMemory", "removeData", variable.lstrip("$"))
                except RuntimeError:
                    pass  # already unset
        elif name in ("activate", "deactivate"):
            self._switch_tag(topic, args.strip(), name == "activate")
        elif name in ("addToConcept", "removeFromConcept"):
            parts = split_arguments(args)
            if len(parts) == 2 and parts[0].startswith("~"):
                values = self._concepts.setdefault(parts[0][1:], [])
                if name == "addToConcept" and parts[1] not in values:
                    values.append(parts[1])
                elif name == "removeFromConcept" and parts[1] in values:
                    values.remove(parts[1])
        elif name == "call":
            result = self._call(topic, rule, args)
            if result is not _FAILED:
                self._callback(topic, rule, result, jumps)
        elif name == "pCall":
            self._sim.tasks.start(self._call, topic, rule, args)

    def _call(self, topic: Topic, rule: Rule, call: str) -> Any:
        """``Service.method(arguments)`` of a ``^call``/``^pCall``: its result, or _FAILED."""
        found = re.fullmatch(r"\s*([\w.-]+)\.(\w+)\s*\((.*)\)\s*", call, re.DOTALL)
        if found is None:
            self._sim.log.warning("ALDialog: %s line %d: cannot call '%s' (expected "
                                  "Service.method(arguments))", topic.name, rule.line, call)
            return _FAILED
        values = [_argument(text) for text in split_arguments(found.group(3))]
        try:
            return call_own(self._sim, found.group(1), found.group(2), *values)
        except Exception as error:  # the called service's failure, as NAOqi logs it
            self._sim.log.warning("ALDialog: %s line %d: %s.%s failed: %s", topic.name,
                                  rule.line, found.group(1), found.group(2), error)
            return _FAILED

    def _callback(self, topic: Topic, rule: Rule, result: Any, jumps: int) -> None:
        """Answer a ``^call`` result with the first of the rule's ``c1:`` rules matching it."""
        heard = " ".join(str(v) for v in result) if isinstance(result, (list, tuple)) \
            else str(result)
        topics, _ = self._listening_to()
        for callback in rule.callbacks:
            found = match_input(callback, heard, topic_concept(topics or [topic],
                                                               self._dynamic_concept, topic),
                                self._variable)
            if found is None:
                continue
            answer = self._render(topics or [topic], topic, callback, found.stored,
                                  found.assignments)
            if answer is not None:
                self._answer(topic, callback, answer, found.stored, found.assignments,
                             jumps + 1)
                return

    # -- events ---------------------------------------------------------------------------
    def _event_rules(self, topics: Sequence[Topic]) -> Dict[str, List[Tuple[Topic, Rule]]]:
        """ALMemory event -> the event rules of ``topics`` answering it."""
        found: Dict[str, List[Tuple[Topic, Rule]]] = {}
        for topic in topics:
            for rule in topic.all_rules():
                if rule.kind == "u":
                    for event in rule.events:
                        found.setdefault(event, []).append((topic, rule))
        return found

    def _follow_events(self) -> None:
        """Subscribe to the ALMemory events of the activated topics' event rules while the
        dialog runs; unsubscribe from the others."""
        with self._lock:
            running = bool(self._subscribers)
            topics, _ = self._listening_to()
            wanted = {e for e in self._event_rules(topics) if e not in LOCAL_EVENTS
                      and not e.startswith("in:")} if running else set()
            memory = self._memory()
            for event in sorted(wanted - self._events):
                memory.subscribeToEvent(event, self.NAME, "_on_event")
            for event in sorted(self._events - wanted):
                try:
                    memory.unsubscribeToEvent(event, self.NAME)
                except RuntimeError:
                    pass  # someone else ended it
            self._events = wanted

    def _on_event(self, key: str, value: Any, message: str = "") -> None:
        """ALMemory callback of an event an event rule answers (from the memory thread:
        the answer is said from a task)."""
        if self._subscribers:
            self._sim.tasks.start(self._fire, key, None, value)

    def _start_rules(self, topics: Sequence[Topic]) -> None:
        """Answer the ``e:onStart`` rules of ``topics`` (from a task)."""
        if any(event in LOCAL_EVENTS for topic in topics for rule in topic.rules
               for event in rule.events):
            self._sim.tasks.start(self._fire, "onStart", [t.name for t in topics])

    def _fire(self, event: str, only: Optional[List[str]] = None,
              value: Any = _NO_VALUE) -> None:
        """Answer ``event`` with the first rule (expected sub-rules first) whose input it
        matches (conditions holding) and whose output can be said; ``only``: answer it in
        each of these topics (``e:onStart``: every topic starting).  ``value``: what the
        ALMemory event carried, which its rules see as ``$event`` (the key may hold a later
        value by the time they are answered)."""
        seen = self._variable
        if value is not _NO_VALUE:
            carried = _variable_text(value)

            def seen(name: str) -> Optional[str]:
                return carried if name == event else self._variable(name)
        topics, expected = self._listening_to()
        if only is None:
            groups = [candidates(topics, expected)]
        else:
            groups = [[(t, r) for r in t.rules] for t in topics if t.name in only]
        for group in groups:
            for topic, rule in group:
                if not self._answers(topic, rule):
                    continue
                found = match_event(rule, event, topic_concept(topics or [topic],
                                                               self._dynamic_concept, topic),
                                    seen)
                if found is None:
                    continue
                answer = self._render(topics, topic, rule, found.stored, found.assignments,
                                      seen)
                if answer is not None:
                    self._answer(topic, rule, answer, found.stored, found.assignments)
                    break


#: events the dialog raises itself rather than ALMemory
LOCAL_EVENTS = ("onStart",)
#: rule functions that say a proposal
JUMPS = ("goto", "gotoReactivate", "gotoRandom", "enableThenGoto", "nextProposal",
         "sameProposal", "previousProposal", "topicTag")
_FAILED = object()


def _waits(step: Step) -> bool:
    """Whether an answer's step waits (done between its sentences, not as they are said):
    a ``%script``, ``^call``, a jump, ``^run`` or ``^wait``."""
    return step[0] == "script" or step[0] == "do" and (
        step[1] in WAITING_INSTRUCTIONS or step[1] in JUMPS or step[1] == "call")


def _variable_text(value: Any) -> Optional[str]:
    """An ALMemory value as a QiChat variable's text (None: unset)."""
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


def _argument(text: str) -> Any:
    """A ``^call`` argument: a Python literal (string, number, list...), else its text."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text
