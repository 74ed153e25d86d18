"""A long behavior runs to its end on the simulated robot: 46 s of music (a low-bitrate
file, as real projects ship) beside a 46 s timeline, the music's end ending the behavior as
real projects link it.  Real time: marked slow."""
import shutil
import time

import pytest

from core_builders import curve, link, script_box, string_parameter, timeline_box
from naoqi_qicore.converter.loader import prepare
from naoqi_qicore.core import BehaviorPlayer
from naoqi_qicore.xar.model import BehaviorKeyframe, BehaviorLayer, Behavior, Diagram

pytestmark = pytest.mark.long_running(minutes=1)

MUSIC = """
def onInput_onStart(self):
    ALProxy("ALAudioPlayer").playFile(self.getParameter("File"))
    self.onStopped()
"""
SECONDS = 46.0
FPS = 25


def dance(music_file):
    """root: a timeline turning the head for 46 s; at its first frame a box plays the
    music, whose end fires the root's onStopped."""
    music = script_box("Music", 1, MUSIC,
                       parameters=[string_parameter("File", str(music_file), 5)])
    keys = [(frame, 20 if (frame // FPS) % 2 else -20)
            for frame in range(FPS, int(SECONDS * FPS) + 1, FPS)]
    root = timeline_box("root", -1, [BehaviorLayer("music", [
        BehaviorKeyframe("start", 1, Diagram([music], [link(0, 1, 1, 2), link(1, 4, 0, 4)]))])],
        fps=FPS, curves=[curve("HeadYaw", keys)])
    return Behavior(root=root, source="")


def recorded(simulated, method):
    """The simulated robot's ended calls of ``method``, once there are some (a call's end is
    recorded when it has returned, maybe after its caller went on)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        calls = [call for call in simulated.calls()
                 if call["method"] == method and "duration" in call]  # ended
        if calls:
            return calls
        time.sleep(0.05)
    return []


@pytest.mark.slow
def test_a_46_second_behavior_plays_its_music_and_motion_to_the_end(robot, low_bitrate_sound):
    from naoqi_qicore.robot.naoqi_compat import box_environment
    simulated, session = robot
    music = "/home/nao/music.ogg"  # a file of the robot's
    shutil.copyfile(low_bitrate_sound("music.ogg", SECONDS), simulated.files.local(music).path)
    player = BehaviorPlayer(prepare(dance(music)), session, environment=box_environment)
    player.load()
    started = time.monotonic()
    player.play()
    assert player.wait(SECONDS + 15)
    lasted = time.monotonic() - started
    try:
        assert player.status == "FINISHED" and player.errors == []
        assert lasted == pytest.approx(SECONDS, abs=2.0)  # not cut after 11.5 s
        (played,) = recorded(simulated, "playFile")
        assert played["duration"] == pytest.approx(SECONDS, abs=1.0)
        (move,) = recorded(simulated, "angleInterpolationBezier")  # the whole dance
        assert move["args"][0] == ["HeadYaw"]
        assert move["args"][1][0][-1] == pytest.approx(SECONDS, abs=0.1)
        assert move["duration"] == pytest.approx(SECONDS, abs=2.0)
    finally:
        player.unload()
