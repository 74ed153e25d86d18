"""ALAudioPlayer, ALAudioDevice and ALAudioRecorder of the simulated robot."""
import os
import sys
import time
import wave

import pytest

from naoqi_qicore.robot.sim.services.sound import write_silence
sys.path.insert(0, os.path.dirname(__file__))
from test_sim_services_context import sim, wait_until  # noqa: F401  (fixtures)


@pytest.fixture
def sound(sim):
    """A sound of the robot's files: its robot path."""
    write_silence(str(sim.files.local("/home/nao/beep.wav").path), 0.3)
    return "/home/nao/beep.wav"


def test_missing_file_is_an_error(sim):
    with pytest.raises(RuntimeError, match="ALAudioPlayer::playFile: file '/home/nao/nope.wav' "
                                           "does not"):
        sim.service("ALAudioPlayer").playFile("/home/nao/nope.wav")
    # a file of this machine outside the robot's files: refused, whether it exists or not
    # (Python's own file: this checkout may lie under /tmp, which is the robot's /tmp)
    for outside in (os.__file__, "/etc/no-such-file", "/home/nao/../../etc/passwd"):
        for method in ("loadFile", "playFile"):
            with pytest.raises(RuntimeError) as refused:
                getattr(sim.service("ALAudioPlayer"), method)(outside)
            assert str(refused.value) == ("ALAudioPlayer::%s: '%s' is outside the robot's "
                                          "files (/home/nao/..., /tmp/...)" % (method, outside))


def test_play_file_lasts_the_file_length(sim, sound):
    player = sim.service("ALAudioPlayer")
    started = time.monotonic()
    player.playFile(sound)
    assert 0.29 <= time.monotonic() - started < 3.0  # the length, whatever the machine's load
    assert player.getLoadedFilesIds() == []


def test_loaded_file_position_pause_resume_and_stop(sim, sound):
    player = sim.service("ALAudioPlayer")
    file_id = player.loadFile(sound)
    assert player.getFileLength(file_id) == pytest.approx(0.3)
    task = player.pCall("play", file_id)
    assert wait_until(lambda: player.getCurrentPosition(file_id) > 0.05)
    player.pause(file_id)
    assert player.wait(task, 1000) is False
    paused_at = player.getCurrentPosition(file_id)
    time.sleep(0.05)
    assert player.getCurrentPosition(file_id) == paused_at > 0
    task = player.pCall("play", file_id)
    assert wait_until(lambda: player.getCurrentPosition(file_id) > paused_at)
    player.stop(file_id)
    assert player.wait(task, 1000) is False
    assert player.getCurrentPosition(file_id) == 0.0
    player.goTo(file_id, 0.2)
    assert player.getCurrentPosition(file_id) == pytest.approx(0.2)
    with pytest.raises(RuntimeError, match="position must be in"):
        player.goTo(file_id, 5.0)
    player.unloadFile(file_id)
    with pytest.raises(RuntimeError, match="no file loaded with id"):
        player.getFileLength(file_id)


def test_posted_loop_runs_until_stopped(sim, sound):
    player = sim.service("ALAudioPlayer")
    task = player.pCall("playFileInLoop", sound, 0.5, 0.0)
    time.sleep(0.4)
    assert player.isRunning(task)
    player.stop(task)
    assert player.wait(task, 1000) is False


def test_play_file_from_position_and_stop_all(sim):
    player = sim.service("ALAudioPlayer")
    write_silence(str(sim.files.local("/home/nao/long.wav").path), 20.0, rate=1000)
    started = time.monotonic()
    player.playFileFromPosition("/home/nao/long.wav", 19.9)
    # the last tenth of a second, not the 20 seconds (a loaded machine may add a few)
    assert 0.09 <= time.monotonic() - started < 10.0
    task = player.pCall("playWebStream", "http://radio.example/stream", 1.0, 0.0)
    assert wait_until(lambda: player.getLoadedFilesNames() == ["http://radio.example/stream"])
    player.stopAll()
    assert player.wait(task, 1000) is False
    with pytest.raises(RuntimeError, match="not an http"):
        player.playWebStream("ftp://x", 1.0, 0.0)


def test_audio_device_volume_energy_and_recording(sim, tmp_path):
    device = sim.service("ALAudioDevice")
    device.setOutputVolume(70)
    assert device.getOutputVolume() == 70
    with pytest.raises(RuntimeError, match="volume must be in"):
        device.setOutputVolume(120)
    device.muteAudioOut(True)
    assert device.isAudioOutMuted()
    assert device.getFrontMicEnergy() == 0.0
    device.enableEnergyComputation()
    assert device.getFrontMicEnergy() > 0.0
    target = "/home/nao/recordings/microphones/rec.wav"
    device.startMicrophonesRecording(target)
    with pytest.raises(RuntimeError, match="already recording to '/home/nao/recordings/"):
        device.startMicrophonesRecording(target)
    time.sleep(0.05)
    device.stopMicrophonesRecording()
    with wave.open(str(sim.files.local(target).path)) as recorded:
        assert recorded.getnchannels() == 4 and recorded.getframerate() == 48000
        assert recorded.getnframes() > 0


def test_audio_recorder_checks_its_arguments(sim, tmp_path):
    recorder = sim.service("ALAudioRecorder")
    with pytest.raises(RuntimeError, match="type must be"):
        recorder.startMicrophonesRecording("/home/nao/a.mp3", "mp3", 16000, [0, 0, 1, 0])
    with pytest.raises(RuntimeError, match="cannot record to '/home/nao/nope/a.wav': its "
                                           "folder does not exist"):
        recorder.startMicrophonesRecording("/home/nao/nope/a.wav", "wav", 16000, [0, 0, 1, 0])
    with pytest.raises(RuntimeError, match=r"'/etc/owned\.wav' is outside the robot's files"):
        recorder.startMicrophonesRecording("/etc/owned.wav", "wav", 16000, [0, 0, 1, 0])
    assert not (tmp_path / "owned.wav").exists()
    recorder.startMicrophonesRecording("a.wav", "wav", 16000, [0, 0, 1, 0])  # in /home/nao
    recorder.stopMicrophonesRecording()
    with wave.open(str(sim.files.local("/home/nao/a.wav").path)) as recorded:
        assert recorded.getnchannels() == 1
