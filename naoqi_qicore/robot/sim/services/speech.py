"""Simulated speech: ALTextToSpeech and ALAnimatedSpeech.

Speaking takes time proportional to the text (``SECONDS_PER_CHARACTER`` at speed 100, plus
``\\pau=ms\\`` pauses), one sentence at a time in call order, and raises the ALMemory events
of the real engine (TextStarted, CurrentSentence, CurrentWord, CurrentBookMark for a
``\\mrk=N\\`` bookmark reached, Status, TextDone).

Sentences wait in a queue that one thread speaks: ``say`` returns a future completed once
its sentence is spoken, stopped or thrown (:func:`~.module.deferred`), so that sentences
waiting their turn hold no thread of the robot.  ``stopAll`` stops the sentence being
spoken and throws the queued ones; ``stop(id)`` of a posted ``say`` and the cancellation
of a client's call end their own sentence.

ALAnimatedSpeech does the instructions of an annotated text where they stand (``^start``,
``^run``, ``^wait``, ``^stop``, ``^stopAndPlay`` of an animation, the same by tag,
``^mode``): :class:`AnnotatedSpeech` says the text between them as sentences of
ALTextToSpeech, an instruction that does not wait done when the speech reaches it (a
bookmark), one that waits (``^run``, ``^wait``) between sentences; the animations it
started and did not wait for stop when its text is said, before its ``say`` ends.
ALDialog says its answers the same way (their variables, rule functions and ``%script``
blocks are steps too).  The animations are recorded as the robot's own calls of
ALAnimationPlayer (``run``, ``runTag``).
"""
import concurrent.futures
import itertools
import re
import threading
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Callable, Deque, Dict, List, Optional, Sequence, Tuple, Union

from naoqi_qicore.robot.sim.own_calls import OwnCall, call_own
from naoqi_qicore.robot.sim.services.module import (Activity, SimModule, check_range,
                                                    current_activity, deferred, running_as,
                                                    settle)
from naoqi_qicore.robot.sim.services.qichat import Step
from naoqi_qicore.robot.sim.services.sound import write_silence

SECONDS_PER_CHARACTER = 0.06

LANGUAGES = {
    "Arabic": "ar_SA", "Brazilian": "pt_BR", "Chinese": "zh_CN", "Czech": "cs_CZ",
    "Danish": "da_DK", "Dutch": "nl_NL", "English": "en_US", "Finnish": "fi_FI",
    "French": "fr_FR", "German": "de_DE", "Greek": "el_GR", "Italian": "it_IT",
    "Japanese": "ja_JP", "Korean": "ko_KR", "MandarinTaiwan": "zh_TW", "Norwegian": "nb_NO",
    "Polish": "pl_PL", "Portuguese": "pt_PT", "Russian": "ru_RU", "Spanish": "es_ES",
    "Swedish": "sv_SE", "Turkish": "tr_TR", "CantoneseHongKong": "zh_HK",
    "EnglishAustralia": "en_AU", "EnglishGB": "en_GB", "EnglishIndian": "en_IN",
    "FrenchCanadian": "fr_CA", "SpanishMexico": "es_MX",
}
#: the simulated robot has every language pack installed, so that a behavior plays whatever
#: language its author's robot had (a real robot has those its owner installed)
INSTALLED_LANGUAGES = sorted(LANGUAGES)

# name -> (default, minimum, maximum)
TTS_PARAMETERS: Dict[str, Tuple[float, float, float]] = {
    "speed": (100.0, 50.0, 400.0),
    "defaultVoiceSpeed": (100.0, 50.0, 400.0),
    "pitchShift": (1.0, 0.0, 4.0),
    "doubleVoice": (0.0, 0.0, 4.0),
    "doubleVoiceLevel": (0.0, 0.0, 4.0),
    "doubleVoiceTimeShift": (0.0, 0.0, 0.5),
}

_TAG = re.compile(r"\\(\w+)(?:=([^\\]*))?\\")
_INSTRUCTION = re.compile(r"\^(\w+)(?:\(([^)]*)\))?")
#: ALAnimatedSpeech's instructions that wait (the speech stops meanwhile)
WAITING_INSTRUCTIONS = frozenset({"run", "runTag", "wait", "waitTag"})
#: ... and the others: done when the speech reaches them
INSTRUCTIONS = WAITING_INSTRUCTIONS | {"start", "startTag", "stop", "stopTag", "stopAndPlay",
                                       "mode"}
#: ALAnimatedSpeech's sound instructions, which the simulated robot does not play
SOUND_INSTRUCTIONS = frozenset({"startSound", "runSound", "waitSound", "stopSound"})


def speech_plan(text: str, speed: float) -> List[Tuple[Union[str, int], float]]:
    """[(word or "", seconds)] for ``text``; "" entries are pauses from ``\\pau=ms\\`` tags,
    ``(N, 0.0)`` the bookmark ``\\mrk=N\\``."""
    plan: List[Tuple[Union[str, int], float]] = []
    position = 0
    for match in itertools.chain(_TAG.finditer(text), [None]):
        chunk = text[position:match.start() if match else len(text)]
        for word in chunk.split():
            plan.append((word, (len(word) + 1) * SECONDS_PER_CHARACTER * 100.0 / speed))
        if match is None:
            break
        position = match.end()
        tag, value = match.group(1).lower(), match.group(2)
        if tag == "pau" and value and value.strip().isdigit():
            plan.append(("", int(value) / 1000.0))
        elif tag == "mrk" and value and value.strip().isdigit():
            plan.append((int(value), 0.0))
        elif tag == "rspd" and value and value.strip().isdigit():
            speed = min(400.0, max(50.0, float(value)))
    return plan


def annotated_steps(text: str) -> List[Step]:
    """The steps of an annotated text, in order: ("say", text) and (instruction, argument)
    (``^start(animations/Stand/Gestures/Hey_1)`` is ("start", "animations/...")); ALDialog's
    answers have steps of their own (:data:`~naoqi_qicore.robot.sim.services.qichat.Step`)."""
    steps: List[Step] = []
    position = 0
    for match in itertools.chain(_INSTRUCTION.finditer(text), [None]):
        words = " ".join(text[position:match.start() if match else len(text)].split())
        if words:
            steps.append(("say", words))
        if match is None:
            return steps
        steps.append((match.group(1), (match.group(2) or "").strip()))
        position = match.end()
    return steps


@dataclass(eq=False)
class Sentence:
    """A sentence to say: its task id, its text, the activity that may interrupt it, the
    future its ``say`` returned, and what to call with N when a ``\\mrk=N\\`` is reached."""

    task: int
    text: str
    activity: Activity
    done: "Future[None]" = field(default_factory=Future)
    bookmark: Optional[Callable[[int], None]] = None


class ALTextToSpeech(SimModule):
    """Text to speech: timed, queued, interruptible speech with ALMemory notifications."""

    NAME = "ALTextToSpeech"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._language = "English"
        self._volume = 0.8
        self._parameters = {name: spec[0] for name, spec in TTS_PARAMETERS.items()}
        self._notifications = True
        self._voice = self._default_voice("English")
        self._turn = threading.Condition()
        self._queue: Deque[Sentence] = deque()  # waiting their turn, in call order
        self._speaking: Optional[Sentence] = None
        self._speaker: Optional[threading.Thread] = None
        self._closed = False
        self._ids = itertools.count(1)
        self._dictionary: Dict[str, Dict[str, str]] = {}

    @staticmethod
    def _default_voice(language: str) -> str:
        return "nao" + LANGUAGES[language][:2] + LANGUAGES[language][-1].lower()

    def _notify(self, key: str, value: Any) -> None:
        if self._notifications:
            self._raise_event("ALTextToSpeech/" + key, value)

    def _check_language(self, method: str, language: str) -> str:
        if language not in INSTALLED_LANGUAGES:
            raise self._error(method, "language '%s' is not installed (installed: %s)"
                              % (language, ", ".join(INSTALLED_LANGUAGES)))
        return language

    @deferred
    def say(self, stringToSay: str, language: Optional[str] = None) -> "Future[None]":
        """Say ``stringToSay`` (in ``language`` for this sentence only); done when spoken."""
        if language is not None:
            self._check_language("say", language)
        return self._say(stringToSay, language)

    def _say(self, text: str, language: Optional[str] = None,
             bookmark: Optional[Callable[[int], None]] = None) -> "Future[None]":
        """Queue ``text``; ``bookmark(N)`` is called (in the speech's thread) when the speech
        reaches ``\\mrk=N\\``.  The future is done when it is spoken, stopped or thrown."""
        for word, replacement in self._dictionary.get(language or self._language, {}).items():
            text = text.replace(word, replacement)
        sentence = Sentence(next(self._ids), text, current_activity() or Activity(),
                            bookmark=bookmark)
        self._notify("Status", [sentence.task, "enqueued"])
        with self._turn:
            if self._closed:
                raise self._error("say", "the robot is shutting down")
            self._queue.append(sentence)
            if self._speaker is None:
                self._speaker = threading.Thread(target=self._speak_queue, daemon=True,
                                                 name="sim-speech")
                self._speaker.start()
            self._turn.notify_all()

        def throw() -> None:
            self._throw(sentence)

        def ended(done: "Future[None]") -> None:
            if done.cancelled():  # the client cancelled its call
                sentence.activity.interrupt()
            sentence.activity.forget(throw)
        sentence.activity.when_interrupted(throw)
        sentence.done.add_done_callback(ended)
        return sentence.done

    def _throw(self, sentence: Sentence) -> None:
        """``sentence``'s activity was interrupted: drop it if it still waits its turn."""
        with self._turn:
            if sentence not in self._queue:
                return  # being spoken (the speaker stops it) or over
            self._queue.remove(sentence)
        self._notify("Status", [sentence.task, "thrown"])
        settle(sentence.done)

    def _speak_queue(self) -> None:
        """The speaker thread: say the queued sentences one after the other."""
        while True:
            with self._turn:
                while not self._queue and not self._closed:
                    self._turn.wait()
                if not self._queue:
                    return
                sentence = self._speaking = self._queue.popleft()
            try:
                if not sentence.activity.interrupted:
                    self._speak(sentence)
                else:
                    self._notify("Status", [sentence.task, "thrown"])
            except Exception as error:  # a notification failed: the sentence ends anyway
                self._sim.log.warning("ALTextToSpeech: %s", error)
            finally:
                with self._turn:
                    self._speaking = None
                settle(sentence.done)

    def _speak(self, sentence: Sentence) -> None:
        task, text, activity = sentence.task, sentence.text, sentence.activity
        self._notify("TextDone", 0)
        self._notify("TextStarted", 1)
        self._notify("CurrentSentence", text)
        self._notify("Status", [task, "started"])
        completed = True
        position = 0
        for word, seconds in speech_plan(text, self._parameters["speed"]):
            if isinstance(word, int):
                self._notify("CurrentBookMark", word)
                if sentence.bookmark is not None:
                    sentence.bookmark(word)
            elif word:
                position = text.find(word, position)
                self._notify("PositionOfCurrentWord", position)
                self._notify("CurrentWord", word)
            if not activity.sleep(seconds):
                completed = False
                break
        self._notify("Status", [task, "done" if completed else "stopped"])
        self._notify("TextStarted", 0)
        self._notify("TextDone", 1)

    def sayToFile(self, stringToSay: str, fileName: str) -> None:
        """Write a silent WAV file as long as saying ``stringToSay`` would take, in the
        robot's files."""
        place = self._file("sayToFile", fileName)
        seconds = sum(s for _, s in speech_plan(stringToSay, self._parameters["speed"]))
        try:
            with place.replace() as stream:
                write_silence(stream, seconds)
        except OSError as error:
            raise self._file_failed("sayToFile", "write", fileName, error) from None

    @deferred
    def sayToFileAndPlay(self, stringToSay: str) -> "Future[None]":
        """Say ``stringToSay`` (the file is not kept)."""
        return self.say(stringToSay)

    def stopAll(self) -> None:
        """Stop the current sentence and drop the queued ones."""
        with self._turn:
            sentences = list(self._queue) + [s for s in [self._speaking] if s is not None]
        for sentence in sentences:
            sentence.activity.interrupt()
        self._interrupt_all()

    def close(self) -> None:
        """Throw every sentence and end the speaker thread (the robot shuts down)."""
        with self._turn:
            self._closed = True
            self._turn.notify_all()
            speaker = self._speaker
        self.stopAll()
        super().close()
        if speaker is not None:
            speaker.join(5.0)

    def setLanguage(self, language: str) -> None:
        """Set the current language (must be installed)."""
        self._language = self._check_language("setLanguage", language)
        self._voice = self._default_voice(language)

    def getLanguage(self) -> str:
        """The current language, e.g. "English"."""
        return self._language

    def getAvailableLanguages(self) -> List[str]:
        """Installed languages."""
        return list(INSTALLED_LANGUAGES)

    def getSupportedLanguages(self) -> List[str]:
        """Every language the engine knows."""
        return sorted(LANGUAGES)

    def locale(self) -> str:
        """Locale of the current language, e.g. "en_US"."""
        return LANGUAGES[self._language]

    def getAvailableVoices(self) -> List[str]:
        """One voice per installed language."""
        return [self._default_voice(language) for language in INSTALLED_LANGUAGES]

    def setVoice(self, pVoiceID: str) -> None:
        """Select a voice (and its language)."""
        for language in INSTALLED_LANGUAGES:
            if self._default_voice(language) == pVoiceID:
                self._voice, self._language = pVoiceID, language
                return
        raise self._error("setVoice", "voice '%s' is not available" % pVoiceID)

    def getVoice(self) -> str:
        """The current voice."""
        return self._voice

    def setLanguageDefaultVoice(self, Language: str, Voice: str) -> None:
        """Accept the default voice of an installed language."""
        self._check_language("setLanguageDefaultVoice", Language)
        if Voice != self._default_voice(Language):
            raise self._error("setLanguageDefaultVoice", "voice '%s' is not available" % Voice)

    def setParameter(self, pEffectName: str, pEffectValue: float) -> None:
        """Set a voice parameter (speed, pitchShift, doubleVoice...) within its range."""
        if pEffectName not in TTS_PARAMETERS:
            raise self._error("setParameter", "unknown parameter '%s' (known: %s)"
                              % (pEffectName, ", ".join(sorted(TTS_PARAMETERS))))
        _, low, high = TTS_PARAMETERS[pEffectName]
        self._parameters[pEffectName] = check_range(self, "setParameter", pEffectName,
                                                    pEffectValue, low, high)

    def getParameter(self, pParameterName: str) -> float:
        """Value of a voice parameter."""
        if pParameterName not in self._parameters:
            raise self._error("getParameter", "unknown parameter '%s'" % pParameterName)
        return self._parameters[pParameterName]

    def resetSpeed(self) -> None:
        """Back to the default speed."""
        self._parameters["speed"] = self._parameters["defaultVoiceSpeed"]

    def setVolume(self, volume: float) -> None:
        """Set the speech volume in [0, 1]."""
        self._volume = check_range(self, "setVolume", "volume", volume, 0.0, 1.0)

    def getVolume(self) -> float:
        """The speech volume in [0, 1]."""
        return self._volume

    def enableNotifications(self) -> None:
        """Raise the ALTextToSpeech/* memory events (the default)."""
        self._notifications = True

    def disableNotifications(self) -> None:
        """Stop raising the ALTextToSpeech/* memory events."""
        self._notifications = False

    def addToDictionary(self, word: str, pronunciation: str, language: str = "") -> bool:
        """Say ``pronunciation`` wherever ``word`` appears."""
        self._dictionary.setdefault(language or self._language, {})[word] = pronunciation
        return True

    def deleteFromDictionary(self, word: str, language: str = "") -> bool:
        """Forget a pronunciation; False if it was unknown."""
        return self._dictionary.get(language or self._language, {}).pop(word, None) is not None


BODY_LANGUAGE_MODES = ["disabled", "random", "contextual"]
#: says a step of an annotated speech, or does it (what it returns is then said: a sentence)
StepDoer = Callable[[Step], Optional[str]]


class AnnotatedSpeech:
    """One annotated speech being said (an ALAnimatedSpeech.say, an ALDialog answer) in
    ``activity``: interrupting it stops the speech, the steps left and its animations.
    ``own``: its sentences are the robot's own (an answer of its dialog), recorded as such.

    :meth:`perform` says "say" steps that follow one another as one sentence of
    ALTextToSpeech; a step standing between the words of a sentence is done when the speech
    reaches it (a ``\\mrk=N\\`` bookmark: in the speech's thread), unless it waits: a step
    that waits (``waits(step)``) is done between sentences, and a step after the last words
    of a sentence once they are said.  :meth:`instruct` does one of ALAnimatedSpeech's
    instructions, :meth:`finish` stops the animations started and not waited for."""

    def __init__(self, sim: Any, activity: Activity, own: bool = False) -> None:
        self._sim = sim
        self._activity = activity
        self._own = own
        self._lock = threading.Lock()
        #: the animations started (^start...): ("animation" or "tag", name), their activity,
        #: done when they end
        self._animations: List[Tuple[Tuple[str, str], Activity, "Future[None]"]] = []

    @property
    def stopped(self) -> bool:
        """Whether the speech was interrupted."""
        return self._activity.interrupted

    def perform(self, steps: Sequence[Step], waits: Callable[[Step], bool],
                do: StepDoer) -> None:
        """Say and do ``steps`` in order (see the class), until the speech is interrupted."""
        sentence: List[Union[str, int]] = []  # its words, and bookmarks: indexes in marks
        marks: List[Step] = []
        after: List[Step] = []  # steps after the last words of the sentence so far

        def say_sentence() -> None:
            nonlocal sentence, marks, after
            if sentence:
                self._say(sentence, marks, do)
            for step in after:
                if self.stopped:
                    break
                do(step)
            sentence, marks, after = [], [], []

        for step in steps:
            if self.stopped:
                return
            if step[0] == "say":
                for held in after:
                    sentence.append(len(marks))
                    marks.append(held)
                after = []
                sentence.append(step[1])
            elif sentence and not waits(step):
                after.append(step)
            else:
                say_sentence()
                said = None if self.stopped else do(step)
                if said:
                    sentence.append(said)
        say_sentence()

    def _say(self, sentence: List[Union[str, int]], marks: List[Step], do: StepDoer) -> None:
        """Say ``sentence``, doing ``marks[N]`` when the speech reaches bookmark N."""
        text = " ".join(part if isinstance(part, str) else "\\mrk=%d\\" % part
                        for part in sentence)

        def reached(number: int) -> None:
            try:
                do(marks[number])
            except Exception as error:  # a step's failure does not end the sentence
                self._sim.log.warning("ALAnimatedSpeech: %s", error)
        said = " ".join(part for part in sentence if isinstance(part, str))
        own = OwnCall(self._sim, "ALTextToSpeech", "say", [said]) if self._own else None
        with running_as(self._activity):
            spoken = self._sim.service("ALTextToSpeech")._say(text, bookmark=reached)
        try:
            spoken.result()
        finally:
            if own is not None:
                own.done()

    def instruct(self, name: str, argument: str) -> None:
        """Do ALAnimatedSpeech's instruction ``^name(argument)`` (see the module)."""
        key = ("tag" if name.endswith("Tag") else "animation", argument)
        if name in ("run", "runTag"):
            with running_as(self._activity):
                self._animate(name, argument)
        elif name in ("start", "startTag"):
            self._start(name, argument, key)
        elif name == "stopAndPlay":
            self._stop()
            self._start(name, argument, key)
        elif name in ("wait", "waitTag"):
            started = self._started(key)
            if not started:
                self._sim.log.warning("ALAnimatedSpeech: ^%s(%s): not started", name, argument)
            for _, _, done in started:
                done.result()  # ends early when the speech is interrupted
        elif name in ("stop", "stopTag"):
            self._stop(key)
        elif name in SOUND_INSTRUCTIONS:
            self._sim.log.warning("ALAnimatedSpeech: ^%s(%s): the simulated robot plays no "
                                  "sound of an animated speech", name, argument)
        elif name != "mode":  # ^mode: the simulated robot makes no gestures of its own
            self._sim.log.warning("ALAnimatedSpeech: unknown instruction ^%s", name)

    def _animate(self, name: str, argument: str) -> None:
        """Play the animation (or one tagged) ``argument`` to its end, as the robot's own."""
        method = "runTag" if name.endswith("Tag") else "run"
        try:
            call_own(self._sim, "ALAnimationPlayer", method, argument)
        except (RuntimeError, TypeError) as error:
            self._sim.log.warning("ALAnimatedSpeech: ^%s(%s): %s", name, argument, error)

    def _start(self, name: str, argument: str, key: Tuple[str, str]) -> None:
        """Start the animation ``argument`` in the background."""
        activity = Activity()
        done: "Future[None]" = Future()
        self._activity.when_interrupted(activity.interrupt)

        def play() -> None:
            try:
                with running_as(activity):
                    self._animate(name, argument)
            finally:
                self._activity.forget(activity.interrupt)
                settle(done)
        with self._lock:
            self._animations.append((key, activity, done))
        self._sim.tasks.start(play)

    def _started(self, key: Optional[Tuple[str, str]] = None
                 ) -> List[Tuple[Tuple[str, str], Activity, "Future[None]"]]:
        """The animations started as ``key`` (None: all of them)."""
        with self._lock:
            return [started for started in self._animations
                    if key is None or started[0] == key]

    def _stop(self, key: Optional[Tuple[str, str]] = None) -> None:
        """Stop the animations started as ``key`` (None: every one)."""
        for _, activity, _ in self._started(key):
            activity.interrupt()

    def finish(self) -> None:
        """The text is said: the animations started and not waited for stop (returns once
        they have)."""
        self._stop()
        for _, _, done in self._started():
            done.result()


class ALAnimatedSpeech(SimModule):
    """Speech with gestures: says an annotated text, doing its instructions where they
    stand (see the module)."""

    NAME = "ALAnimatedSpeech"
    #: how long ``_stopAll(True)`` waits for the sentences it stopped to end (s)
    STOP_WAIT_S = 5.0

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._mode = 1
        self._saying: Dict["Future[None]", Activity] = {}  # sentence being said -> its activity

    @deferred
    def say(self, text: str, configuration: Optional[Dict[str, Any]] = None
            ) -> "Future[None]":
        """Say ``text``; ``configuration`` may set "bodyLanguageMode"; done when spoken."""
        mode = (configuration or {}).get("bodyLanguageMode", BODY_LANGUAGE_MODES[self._mode])
        if mode not in BODY_LANGUAGE_MODES:
            raise self._error("say", "unknown bodyLanguageMode '%s'" % mode)
        activity = current_activity() or Activity()
        steps = annotated_steps(text)
        done: "Future[None]" = Future()

        def end(_: Any = None) -> None:
            with self._lock:
                self._saying.pop(done, None)
            self._raise_event("ALAnimatedSpeech/EndOfAnimatedSpeech", text)
            settle(done)
        with self._lock:
            self._saying[done] = activity
        if all(step[0] == "say" for step in steps):  # no instruction: no thread needed
            with running_as(activity):  # stopping a posted call stops its sentence
                spoken = self._sim.service("ALTextToSpeech")._say(
                    " ".join(step[1] for step in steps))
            spoken.add_done_callback(end)
        else:
            speech = AnnotatedSpeech(self._sim, activity)

            def perform() -> None:
                try:
                    speech.perform(steps, lambda step: step[0] in WAITING_INSTRUCTIONS,
                                   lambda step: speech.instruct(*step))
                finally:
                    speech.finish()
                    end()
            self._sim.tasks.start(perform)
        done.add_done_callback(lambda _: activity.interrupt() if done.cancelled() else None)
        return done

    def stopAll(self, blocking: bool) -> None:
        """``_stopAll``, the private method NAOqi's own applications call before making
        the robot say something else: stop every sentence said or waiting to be said and
        the animated sentences' gestures (``blocking``: return once they ended)."""
        with self._lock:
            saying = list(self._saying.items())
        for _, activity in saying:
            activity.interrupt()
        self._sim.service("ALTextToSpeech").stopAll()
        if blocking:
            concurrent.futures.wait([done for done, _ in saying], timeout=self.STOP_WAIT_S)

    stopAll.__qi_name__ = "_stopAll"  # type: ignore[attr-defined]

    def setBodyLanguageMode(self, bodyLanguageMode: int) -> None:
        """0 disabled, 1 random, 2 contextual."""
        if bodyLanguageMode not in range(len(BODY_LANGUAGE_MODES)):
            raise self._error("setBodyLanguageMode", "mode must be 0, 1 or 2")
        self._mode = bodyLanguageMode

    def setBodyLanguageModeFromStr(self, stringBodyLanguageMode: str) -> None:
        """"disabled", "random" or "contextual"."""
        if stringBodyLanguageMode not in BODY_LANGUAGE_MODES:
            raise self._error("setBodyLanguageModeFromStr", "unknown mode '%s'"
                              % stringBodyLanguageMode)
        self._mode = BODY_LANGUAGE_MODES.index(stringBodyLanguageMode)

    def getBodyLanguageMode(self) -> int:
        """The body language mode as an int."""
        return self._mode

    def getBodyLanguageModeToStr(self) -> str:
        """The body language mode as a string."""
        return BODY_LANGUAGE_MODES[self._mode]

    def setBodyLanguageEnabled(self, enable: bool) -> None:
        """Deprecated: random body language on or off."""
        self._mode = 1 if enable else 0

    def isBodyLanguageEnabled(self) -> bool:
        """Deprecated: body language not disabled."""
        return self._mode != 0
