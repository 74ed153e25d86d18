"""Calls box code posts (``post``, ``pCall``) that fail on the simulated robot are warnings
of the run naming the box and the call (naoqi_compat.posted_calls, NaoqiSimTasks)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from app_service_projects import AppRun, service_project  # noqa: E402
from test_sim_services_context import wait_until  # noqa: E402
from naoqi_qicore.core.events import WHERE_POSTED_CALL  # noqa: E402

#: a Play Sound File box whose file the project does not have, then a sentence said with
#: ``pCall``: both posted, waited for
POSTS = '''
def onInput_onStart(self):
    player = ALProxy("ALAudioPlayer")
    player.wait(player.post.playFile("/home/nao/sounds/missing.wav"), 0)
    speech = ALProxy("ALTextToSpeech")
    speech.wait(speech.pCall("say", "hello"), 0)
    self.onStopped()
'''


@pytest.fixture
def app_run(tmp_path):
    made = []

    def make(box_code):
        made.append(AppRun(service_project(tmp_path, box_code, {}), tmp_path / "out"))
        return made[-1]
    yield make
    for each in made:
        each.close()


def test_a_posted_call_that_fails_on_the_robot_is_a_warning_naming_box_and_call(app_run):
    run = app_run(POSTS)
    player = run.play()
    assert player.status == "FINISHED"
    assert run.said() == ["hello"]
    assert wait_until(lambda: player.warnings, timeout=10.0)
    [warning] = player.warnings
    assert (warning.box_path, warning.where) == ("root/Script", WHERE_POSTED_CALL)
    assert warning.message.startswith(
        "the call ALAudioPlayer.playFile it posted failed on the robot: ")
    assert "missing.wav" in warning.message
    assert player.errors == []
