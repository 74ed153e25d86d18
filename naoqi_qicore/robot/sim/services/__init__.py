"""Simulated NAOqi services other than the robot's core (ALMemory, ALMotion, ALAutonomousLife).

``SERVICE_CLASSES`` maps each NAOqi service name to its class; a class is built as ``cls(sim)``
and lists in ``ROBOTS`` the robots that have the service (``services_for`` filters by robot:
ALTabletService is Pepper's only).
"""
from typing import Dict

from naoqi_qicore.robot.sim.services.audio import ALAudioDevice, ALAudioPlayer, ALAudioRecorder
from naoqi_qicore.robot.sim.services.awareness import (ALAutonomousBlinking, ALAutonomousMoves,
                                                       ALBasicAwareness)
from naoqi_qicore.robot.sim.services.behaviors import ALBehaviorManager
from naoqi_qicore.robot.sim.services.camera import ALPhotoCapture, ALVideoDevice
from naoqi_qicore.robot.sim.services.dcm import DCM
from naoqi_qicore.robot.sim.services.dialog import ALDialog, ALSpeechRecognition
from naoqi_qicore.robot.sim.services.frames import ALChoregraphe, ALFrameManager
from naoqi_qicore.robot.sim.services.knowledge import ALKnowledge
from naoqi_qicore.robot.sim.services.leds import ALLeds
from naoqi_qicore.robot.sim.services.navigation import ALNavigation, ALVisualCompass
from naoqi_qicore.robot.sim.services.perception import (ALFaceCharacteristics, ALFaceDetection,
                                                        ALMood, ALPeoplePerception, ALSonar,
                                                        ALTouch)
from naoqi_qicore.robot.sim.services.posture import ALRobotPosture
from naoqi_qicore.robot.sim.services.pythonbridge import ALPythonBridge
from naoqi_qicore.robot.sim.services.speech import ALAnimatedSpeech, ALTextToSpeech
from naoqi_qicore.robot.sim.services.system import (ALAppsAnalytics, ALPreferenceManager,
                                                    ALServiceManager, ALSystem)
from naoqi_qicore.robot.sim.services.tablet import ALTabletService
from naoqi_qicore.robot.sim.services.tracker import ALTracker

SERVICE_CLASSES: Dict[str, type] = {cls.NAME: cls for cls in (
    ALAnimatedSpeech, ALAppsAnalytics, ALAudioDevice, ALAudioPlayer, ALAudioRecorder,
    ALAutonomousBlinking, ALAutonomousMoves, ALBasicAwareness, ALBehaviorManager, ALChoregraphe,
    ALDialog, ALFaceCharacteristics, ALFaceDetection, ALFrameManager, ALKnowledge, ALLeds,
    ALMood, ALNavigation, ALPeoplePerception, ALPhotoCapture, ALPreferenceManager,
    ALPythonBridge, ALRobotPosture, ALServiceManager, ALSonar, ALSpeechRecognition, ALSystem,
    ALTabletService, ALTextToSpeech, ALTouch, ALTracker, ALVideoDevice, ALVisualCompass, DCM,
)}


def services_for(robot: str) -> Dict[str, type]:
    """The services a ``robot`` ("nao" or "pepper") has."""
    return {name: cls for name, cls in SERVICE_CLASSES.items() if robot in cls.ROBOTS}
