"""ALTextToSpeech and ALAnimatedSpeech of the simulated robot."""
import os
import sys
import threading
import time
import wave

import pytest

from naoqi_qicore.robot.sim.services import movement, speech
sys.path.insert(0, os.path.dirname(__file__))
from test_sim_services_context import pepper, sim, wait_until  # noqa: F401  (fixtures)


@pytest.fixture(autouse=True)
def fast_speech(monkeypatch):
    monkeypatch.setattr(speech, "SECONDS_PER_CHARACTER", 0.02)


def test_say_takes_time_proportional_to_length_and_raises_events(sim):
    tts = sim.service("ALTextToSpeech")
    started = time.monotonic()
    tts.say("hi").result()
    short = time.monotonic() - started
    started = time.monotonic()
    tts.say("hello there, how are you").result()
    long = time.monotonic() - started
    assert long > 3 * short
    assert sim.memory.values("ALTextToSpeech/CurrentWord")[-5:] == [
        "hello", "there,", "how", "are", "you"]
    assert sim.memory.getData("ALTextToSpeech/TextDone") == 1
    assert sim.memory.values("ALTextToSpeech/TextStarted")[-2:] == [1, 0]
    assert [s for _, s in sim.memory.values("ALTextToSpeech/Status")][-3:] == [
        "enqueued", "started", "done"]


def test_speed_and_pause_tags_change_the_duration():
    plan = speech.speech_plan("ab \\pau=300\\ cd", 100)
    assert [w for w, _ in plan] == ["ab", "", "cd"] and plan[1][1] == pytest.approx(0.3)
    fast = speech.speech_plan("\\rspd=200\\abcd", 100)
    assert fast[0][1] == pytest.approx(speech.speech_plan("abcd", 100)[0][1] / 2)


def test_sentences_are_spoken_one_after_the_other(sim):
    tts = sim.service("ALTextToSpeech")
    first = tts.pCall("say", "one two three")
    assert wait_until(lambda: sim.memory.values("ALTextToSpeech/CurrentWord"))
    second = tts.pCall("say", "four")
    tts.wait(second, 0)
    assert not tts.isRunning(first)
    words = sim.memory.values("ALTextToSpeech/CurrentWord")
    assert words == ["one", "two", "three", "four"]


def test_stop_all_interrupts_speech(sim):
    tts = sim.service("ALTextToSpeech")
    done = threading.Event()
    threading.Thread(target=lambda: (tts.say("a long sentence " * 10).result(), done.set())).start()
    assert wait_until(lambda: sim.memory.data.get("ALTextToSpeech/TextStarted") == 1)
    tts.stopAll()
    assert done.wait(1.0)


def test_language_volume_and_parameters(sim):
    tts = sim.service("ALTextToSpeech")
    assert tts.getLanguage() == "English" and "French" in tts.getAvailableLanguages()
    tts.setLanguage("French")
    assert tts.getLanguage() == "French" and tts.locale() == "fr_FR"
    # every language pack is installed: behaviors written for any robot run
    assert tts.getAvailableLanguages() == tts.getSupportedLanguages()
    tts.setLanguage("Brazilian")
    assert tts.locale() == "pt_BR"
    with pytest.raises(RuntimeError, match="ALTextToSpeech::setLanguage: language 'Klingon'"):
        tts.setLanguage("Klingon")
    with pytest.raises(RuntimeError, match="volume must be in"):
        tts.setVolume(1.5)
    tts.setParameter("speed", 200)
    assert tts.getParameter("speed") == 200.0
    tts.resetSpeed()
    assert tts.getParameter("speed") == 100.0
    with pytest.raises(RuntimeError, match="unknown parameter 'loudness'"):
        tts.setParameter("loudness", 1)
    assert tts.getVoice() in tts.getAvailableVoices()


def test_disabled_notifications_raise_nothing(sim):
    tts = sim.service("ALTextToSpeech")
    tts.disableNotifications()
    tts.say("x").result()
    assert sim.memory.values("ALTextToSpeech/TextDone") == []


def test_say_to_file_writes_a_wav_as_long_as_the_speech(sim):
    sim.service("ALTextToSpeech").sayToFile("hello", "/home/nao/out.wav")
    with wave.open(str(sim.files.local("/home/nao/out.wav").path)) as sound:
        seconds = sound.getnframes() / sound.getframerate()
    assert seconds == pytest.approx(sum(s for _, s in speech.speech_plan("hello", 100)), abs=0.01)


def test_animated_speech_says_the_text_between_instructions_and_stops(sim, monkeypatch):
    monkeypatch.setattr(movement, "ANIMATION_SECONDS", 0.1)
    animated = sim.service("ALAnimatedSpeech")
    animated.say("^start(animations/Stand/Gestures/Test_1) Hi "
                 "^wait(animations/Stand/Gestures/Test_1)").result()
    assert sim.memory.getData("ALTextToSpeech/CurrentSentence") == "Hi"
    assert sim.memory.values("ALAnimatedSpeech/EndOfAnimatedSpeech")
    task = animated.pCall("say", "a very long sentence " * 5)
    assert wait_until(lambda: sim.memory.data.get("ALTextToSpeech/TextStarted") == 1)
    animated.stop(task)
    assert animated.wait(task, 1000) is False


def test_animated_speech_private_stop_all_ends_every_sentence(sim, monkeypatch):
    """``ALAnimatedSpeech._stopAll(blocking)``, which NAOqi's own applications call before
    saying something else, ends the animated sentences, their gestures and what is queued."""
    monkeypatch.setattr(movement, "ANIMATION_SECONDS", 30.0)
    animated = sim.service("ALAnimatedSpeech")
    gesturing = animated.say("^start(animations/Stand/Gestures/Test_1) Hi "
                             "^wait(animations/Stand/Gestures/Test_1)")
    assert wait_until(lambda: sim.memory.data.get("ALTextToSpeech/CurrentSentence") == "Hi")
    tts = sim.service("ALTextToSpeech")
    saying, queued = tts.say("a long sentence " * 20), tts.say("another one")
    assert wait_until(lambda: sim.memory.data.get("ALTextToSpeech/CurrentSentence", ""
                                                  ).startswith("a long sentence"))
    started = time.monotonic()
    animated.stopAll(True)
    assert gesturing.done() and saying.result(1.0) is None and queued.result(1.0) is None
    assert sim.memory.data.get("ALTextToSpeech/CurrentSentence") != "another one"
    assert time.monotonic() - started < 5.0
    assert type(animated).stopAll.__qi_name__ == "_stopAll"


def test_animated_speech_body_language_modes(pepper):
    animated = pepper.service("ALAnimatedSpeech")
    animated.setBodyLanguageModeFromStr("contextual")
    assert animated.getBodyLanguageMode() == 2
    assert animated.getBodyLanguageModeToStr() == "contextual"
    with pytest.raises(RuntimeError, match="unknown mode 'wild'"):
        animated.setBodyLanguageModeFromStr("wild")
    with pytest.raises(RuntimeError, match="unknown bodyLanguageMode"):
        animated.say("x", {"bodyLanguageMode": "wild"})
