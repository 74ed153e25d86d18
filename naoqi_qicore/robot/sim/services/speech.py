"""Simulated speech: ALTextToSpeech and ALAnimatedSpeech.

Speaking takes time proportional to the text (``SECONDS_PER_CHARACTER`` at speed 100, plus
``\\pau=ms\\`` pauses), one sentence at a time in call order, and raises the ALMemory events
of the real engine (TextStarted, CurrentSentence, CurrentWord, Status, TextDone).

Sentences wait in a queue that one thread speaks: ``say`` returns a future completed once
its sentence is spoken, stopped or thrown (:func:`~.module.deferred`), so that sentences
waiting their turn hold no thread of the robot.  ``stopAll`` stops the sentence being
spoken and throws the queued ones; ``stop(id)`` of a posted ``say`` and the cancellation
of a client's call end their own sentence.
"""
import itertools
import re
import threading
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Deque, Dict, List, Optional, Tuple

from naoqi_qicore.robot.sim.services.module import (Activity, SimModule, check_range,
                                                    current_activity, deferred, running_as,
                                                    settle)
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
_ANIMATION_TAG = re.compile(r"\^\w+\([^)]*\)|\^\w+")


def speech_plan(text: str, speed: float) -> List[Tuple[str, float]]:
    """[(word or "", seconds)] for ``text``; "" entries are pauses from ``\\pau=ms\\`` tags."""
    plan: List[Tuple[str, float]] = []
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
        elif tag == "rspd" and value and value.strip().isdigit():
            speed = min(400.0, max(50.0, float(value)))
    return plan


def strip_animation_tags(text: str) -> str:
    """``text`` without the ^start(...)/^run(...)/^mode(...) annotations of animated speech."""
    return " ".join(_ANIMATION_TAG.sub(" ", text).split())


@dataclass(eq=False)
class Sentence:
    """A sentence to say: its task id, its text, the activity that may interrupt it, and
    the future its ``say`` returned."""

    task: int
    text: str
    activity: Activity
    done: "Future[None]" = field(default_factory=Future)


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
        text = stringToSay
        for word, replacement in self._dictionary.get(language or self._language, {}).items():
            text = text.replace(word, replacement)
        sentence = Sentence(next(self._ids), text, current_activity() or Activity())
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
                    self._speak(sentence.task, sentence.text, sentence.activity)
                else:
                    self._notify("Status", [sentence.task, "thrown"])
            except Exception as error:  # a notification failed: the sentence ends anyway
                self._sim.log.warning("ALTextToSpeech: %s", error)
            finally:
                with self._turn:
                    self._speaking = None
                settle(sentence.done)

    def _speak(self, task: int, text: str, activity: Activity) -> None:
        self._notify("TextDone", 0)
        self._notify("TextStarted", 1)
        self._notify("CurrentSentence", text)
        self._notify("Status", [task, "started"])
        completed = True
        position = 0
        for word, seconds in speech_plan(text, self._parameters["speed"]):
            if word:
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


class ALAnimatedSpeech(SimModule):
    """Speech with gestures: strips the animation annotations and speaks through ALTextToSpeech."""

    NAME = "ALAnimatedSpeech"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._mode = 1

    @deferred
    def say(self, text: str, configuration: Optional[Dict[str, Any]] = None
            ) -> "Future[None]":
        """Say ``text``; ``configuration`` may set "bodyLanguageMode"; done when spoken."""
        mode = (configuration or {}).get("bodyLanguageMode", BODY_LANGUAGE_MODES[self._mode])
        if mode not in BODY_LANGUAGE_MODES:
            raise self._error("say", "unknown bodyLanguageMode '%s'" % mode)
        activity = current_activity() or Activity()
        with running_as(activity):  # stopping a posted call stops its sentence
            spoken = self._sim.service("ALTextToSpeech").say(strip_animation_tags(text))
        done: "Future[None]" = Future()

        def end(_: "Future[None]") -> None:
            self._raise_event("ALAnimatedSpeech/EndOfAnimatedSpeech", text)
            settle(done)
        spoken.add_done_callback(end)
        done.add_done_callback(lambda _: activity.interrupt() if done.cancelled() else None)
        return done

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
