"""Box code calling methods of NAOqi's API that the simulated robot does not emulate: one
that returns nothing returns, as on the robot, and the box carries on (the call recorded,
its effect said to be not simulated once); one that returns a value answers a clear error."""
import logging

from core_builders import flow_box, link, script_box
from naoqi_qicore.robot.sim.services.api import EFFECT_NOT_SIMULATED, NOT_SIMULATED

RECORDING_BOX = '''
def onInput_onStart(self):
    recorder = ALProxy("ALVideoRecorder")
    recorder.startRecording("/home/nao/recordings/cameras", "clip")
    recorder.startRecording("/home/nao/recordings/cameras", "clip", True)
    record("recording")
    try:
        recorder.stopRecording()
    except RuntimeError as error:
        record("not simulated" if "is part of NAOqi's API but is not simulated" in str(error)
               else str(error))
    self.onStopped()
'''


def test_a_box_calling_a_method_without_effect_carries_on(make_harness, robot, caplog):
    caplog.set_level(logging.WARNING, logger="naoqi_sim")
    simulated, session = robot
    box = script_box("Record", 1, RECORDING_BOX)
    harness = make_harness(flow_box("root", -1, [box], [link(0, 2, 1, 2), link(1, 4, 0, 4)]),
                           session=session, naoqi=True)
    harness.player.load()
    harness.player.play()
    harness.settle()
    assert harness.log == [("recording",), ("not simulated",)]
    assert harness.player.status == "FINISHED" and harness.player.errors == []
    calls = [(call["method"], call.get("result"), "error" in call) for call in simulated.calls()
             if call["service"] == "ALVideoRecorder"]
    assert calls == [("startRecording", None, False), ("startRecording", None, False),
                     ("stopRecording", None, True)]
    told = [record.getMessage() for record in caplog.records
            if record.getMessage() == EFFECT_NOT_SIMULATED % ("ALVideoRecorder",
                                                              "startRecording")]
    assert len(told) == 1  # once per method, however often it is called
    errors = [call["error"] for call in simulated.calls() if "error" in call]
    assert errors and NOT_SIMULATED % ("ALVideoRecorder", "stopRecording") in errors[0]
