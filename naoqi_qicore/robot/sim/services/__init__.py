"""Simulated NAOqi services other than the robot's core (ALMemory, ALMotion, ALAutonomousLife).

``SERVICE_CLASSES`` maps each NAOqi service name to its class; a class is built as ``cls(sim)``
and lists in ``ROBOTS`` the robots that have the service (``services_for`` filters by robot:
ALTabletService is Pepper's only).  Every class offers the methods of NAOqi's API reference
(:mod:`naoqi_qicore.robot.sim.services.api`); the services without a class of their own are
built from that reference alone (``TABLE_SERVICES``).
"""
from typing import Dict, Tuple

from naoqi_qicore.robot.sim.services.audio import ALAudioDevice, ALAudioPlayer, ALAudioRecorder
from naoqi_qicore.robot.sim.services.awareness import (ALAutonomousBlinking, ALAutonomousMoves,
                                                       ALBasicAwareness)
from naoqi_qicore.robot.sim.services.behaviors import ALBehaviorManager
from naoqi_qicore.robot.sim.services.body import ALBattery, ALBodyTemperature
from naoqi_qicore.robot.sim.services.camera import ALPhotoCapture, ALVideoDevice
from naoqi_qicore.robot.sim.services.dcm import DCM
from naoqi_qicore.robot.sim.services.detection import (ALLandMarkDetection, ALSoundDetection,
                                                       ALSoundLocalization)
from naoqi_qicore.robot.sim.services.dialog import ALDialog, ALSpeechRecognition
from naoqi_qicore.robot.sim.services.frames import ALChoregraphe, ALFrameManager
from naoqi_qicore.robot.sim.services.knowledge import ALKnowledge
from naoqi_qicore.robot.sim.services.leds import ALLeds
from naoqi_qicore.robot.sim.services.movement import (ALAnimationPlayer, ALBackgroundMovement,
                                                      ALListeningMovement, ALSpeakingMovement)
from naoqi_qicore.robot.sim.services.navigation import ALNavigation, ALVisualCompass
from naoqi_qicore.robot.sim.services.packages import PackageManager
from naoqi_qicore.robot.sim.services.perception import (ALFaceCharacteristics, ALFaceDetection,
                                                        ALMood, ALPeoplePerception, ALSonar,
                                                        ALTouch)
from naoqi_qicore.robot.sim.services.posture import ALRobotPosture
from naoqi_qicore.robot.sim.services.pythonbridge import ALPythonBridge
from naoqi_qicore.robot.sim.services.speech import ALAnimatedSpeech, ALTextToSpeech
from naoqi_qicore.robot.sim.services.service_manager import ALServiceManager
from naoqi_qicore.robot.sim.services.system import (ALAppsAnalytics, ALNotificationManager,
                                                    ALPreferenceManager, ALSystem)
from naoqi_qicore.robot.sim.services.table_service import table_service
from naoqi_qicore.robot.sim.services.tablet import ALTabletService
from naoqi_qicore.robot.sim.services.tracker import ALTracker

BOTH: Tuple[str, ...] = ("nao", "pepper")
#: services built from NAOqi's API reference alone -> the robots that have them
TABLE_SERVICES: Dict[str, Tuple[str, ...]] = {
    "ALAudioSourceLocalization": BOTH, "ALBacklightingDetection": BOTH,
    "ALBarcodeReader": BOTH, "ALChestButton": BOTH, "ALCloseObjectDetection": ("pepper",),
    "ALColorBlobDetection": BOTH, "ALConnectionManager": BOTH, "ALDarknessDetection": BOTH,
    "ALDiagnosis": BOTH, "ALEngagementZones": BOTH, "ALExpressionWatcher": BOTH,
    "ALFsr": ("nao",), "ALGazeAnalysis": BOTH, "ALLaser": ("nao",), "ALLauncher": BOTH,
    "ALLocalization": BOTH, "ALLogger": BOTH, "ALMotionRecorder": BOTH,
    "ALMovementDetection": BOTH, "ALPreferences": BOTH, "ALRecharge": ("pepper",),
    "ALRedBallDetection": BOTH, "ALResourceManager": BOTH, "ALSegmentation3D": ("pepper",),
    "ALSittingPeopleDetection": ("pepper",), "ALStore": BOTH, "ALTactileGesture": BOTH,
    "ALUserInfo": BOTH, "ALUserSession": BOTH, "ALVideoRecorder": BOTH,
    "ALVisionRecognition": BOTH, "ALVisualSpaceHistory": BOTH,
    "ALVoiceEmotionAnalysis": BOTH, "ALWavingDetection": BOTH, "ALWorldRepresentation": BOTH,
}

SERVICE_CLASSES: Dict[str, type] = {cls.NAME: cls for cls in (
    ALAnimatedSpeech, ALAnimationPlayer, ALAppsAnalytics, ALAudioDevice, ALAudioPlayer,
    ALAudioRecorder, ALAutonomousBlinking, ALAutonomousMoves, ALBackgroundMovement,
    ALBasicAwareness, ALBattery, ALBehaviorManager, ALBodyTemperature, ALChoregraphe, ALDialog,
    ALFaceCharacteristics, ALFaceDetection, ALFrameManager, ALKnowledge, ALLandMarkDetection,
    ALLeds, ALListeningMovement, ALMood, ALNavigation, ALNotificationManager,
    ALPeoplePerception, ALPhotoCapture, ALPreferenceManager, ALPythonBridge, ALRobotPosture,
    ALServiceManager, ALSonar, ALSoundDetection, ALSoundLocalization, ALSpeakingMovement,
    ALSpeechRecognition, ALSystem, ALTabletService, ALTextToSpeech, ALTouch, ALTracker,
    ALVideoDevice, ALVisualCompass, DCM, PackageManager,
)}
SERVICE_CLASSES.update((name, table_service(name, robots))
                       for name, robots in TABLE_SERVICES.items())


def services_for(robot: str) -> Dict[str, type]:
    """The services a ``robot`` ("nao" or "pepper") has."""
    return {name: cls for name, cls in SERVICE_CLASSES.items() if robot in cls.ROBOTS}
