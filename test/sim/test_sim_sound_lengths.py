"""The simulated robot plays a sound file as long as the file is: its length is read from
the file (a music file at a low bitrate is not cut short by a guess from its size)."""
import os
import shutil
import sys

import pytest

from naoqi_qicore.robot.sim.services.sound import ASSUMED_BITRATE, sound_length, write_silence

sys.path.insert(0, os.path.dirname(__file__))
from test_sim_services_context import sim  # noqa: F401,E402  (fixture)


@pytest.mark.parametrize("name", ["music.ogg", "music.mp3"])
def test_the_length_of_a_low_bitrate_file_is_read_from_it(low_bitrate_sound, name):
    path = low_bitrate_sound(name, 46.0)
    guessed = os.path.getsize(path) * 8.0 / ASSUMED_BITRATE
    assert guessed < 12  # what a size-based guess gives: the music would stop there
    assert sound_length(str(path)) == pytest.approx(46.0, abs=0.1)


def test_wav_and_unreadable_files(tmp_path):
    wav = tmp_path / "beep.wav"
    write_silence(str(wav), 1.5, rate=8000)
    assert sound_length(str(wav)) == pytest.approx(1.5)
    broken = tmp_path / "broken.ogg"
    broken.write_bytes(b"not a sound" * 1600)  # a length cannot be read: guessed from its size
    assert sound_length(str(broken)) == pytest.approx(17600 * 8.0 / ASSUMED_BITRATE)


def test_the_audio_player_tells_and_plays_the_files_length(sim, low_bitrate_sound):  # noqa: F811
    player = sim.service("ALAudioPlayer")
    shutil.copyfile(low_bitrate_sound("song.ogg", 46.0), sim.files.local("/home/nao/song.ogg").path)
    file_id = player.loadFile("/home/nao/song.ogg")  # a file of the robot's
    assert player.getFileLength(file_id) == pytest.approx(46.0, abs=0.1)
    player.goTo(file_id, 45.5)  # the head can go where the music still plays
    assert player.getCurrentPosition(file_id) == pytest.approx(45.5)
