"""The ALMemory keys NAOqi keeps for a NAO or a Pepper, as the simulated robot answers them.

A robot's ALMemory holds, from its start, the keys of its devices (``Device/SubDeviceList/
<device>/.../Value``, see NAOqi's "ALMemory key list" of each robot), of its configuration
(``RobotConfig/...``, ``Device/DeviceList/ChestBoard/BodyId``) and the data and events its
modules keep (``PeoplePerception/PeopleList``, ``WordRecognized``, ``FrontTactilTouched``,
``BatteryLowDetected``...); box code reads them with ``getData``/``getListData``.
:class:`RobotKeys` gives the simulated ALMemory those keys:

* *live* keys follow the simulated body when read: a joint's
  ``Position/Sensor/Value`` and ``Position/Actuator/Value`` (ALMotion's angle now: the
  simulated joints follow their commands exactly) and ``Hardness/Actuator/Value`` (its
  stiffness), ``robotIsWakeUp``;
* *start* keys hold the value a robot at rest, upright, on its battery has: touch sensors,
  bumpers and buttons at 0.0, the inertial unit upright, the feet's pressure sensors
  sharing NAO's weight, motor currents at 0.0, the battery's current and temperature, the
  robot's configuration, and the empty values of the modules' data and events.

A value written to ALMemory (by a client, or by a simulated service: ALBattery's charge,
ALBodyTemperature's temperatures, a touch the robot's senses raise) is kept and answered
from then on.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Tuple

from naoqi_qicore.robot.sim.joints import JointTable

DEVICE = "Device/SubDeviceList/"
#: what ``RobotConfig/Body/Type`` says of each robot
BODY_TYPE = {"nao": "NAO", "pepper": "JULIETTE"}
#: the simulated robots' body and head versions (as ``ALMotion.getRobotConfig`` gives them)
BASE_VERSION = {"nao": "6.0", "pepper": "1.8"}
#: NAO's weight (kg) on its feet's pressure sensors, standing
NAO_WEIGHT_KG = 5.4
STANDARD_GRAVITY = 9.81

_TOUCH = {"nao": ["Head/Touch/Front", "Head/Touch/Middle", "Head/Touch/Rear",
                  "LHand/Touch/Back", "LHand/Touch/Left", "LHand/Touch/Right",
                  "RHand/Touch/Back", "RHand/Touch/Left", "RHand/Touch/Right",
                  "LFoot/Bumper/Left", "LFoot/Bumper/Right", "RFoot/Bumper/Left",
                  "RFoot/Bumper/Right", "ChestBoard/Button"],
          "pepper": ["Head/Touch/Front", "Head/Touch/Middle", "Head/Touch/Rear",
                     "LHand/Touch/Back", "RHand/Touch/Back", "ChestBoard/Button",
                     "Platform/FrontLeft/Bumper", "Platform/FrontRight/Bumper",
                     "Platform/Back/Bumper"]}
#: the events of the touch sensors, bumpers and buttons (0.0: not touched)
_TOUCH_EVENTS = {"nao": ["FrontTactilTouched", "MiddleTactilTouched", "RearTactilTouched",
                         "HandLeftBackTouched", "HandLeftLeftTouched", "HandLeftRightTouched",
                         "HandRightBackTouched", "HandRightLeftTouched",
                         "HandRightRightTouched", "LeftBumperPressed", "RightBumperPressed",
                         "ChestButtonPressed"],
                 "pepper": ["FrontTactilTouched", "MiddleTactilTouched", "RearTactilTouched",
                            "HandLeftBackTouched", "HandRightBackTouched",
                            "ChestButtonPressed"]}
#: what NAOqi's modules keep before anything happened
_MODULE_DATA: Dict[str, Any] = {
    "PeoplePerception/PeopleList": [], "PeoplePerception/VisiblePeopleList": [],
    "PeoplePerception/NonVisiblePeopleList": [],
    "WordRecognized": ["", -3.0], "Dialog/Confidence": 0.0, "Dialog/LastInput": "",
    "BatteryLowDetected": False, "BatteryNearlyEmpty": False, "BatteryChargingFlagChanged":
    False, "BatteryPowerPluggedChanged": False, "HotDeviceDetected": [],
    "ALTextToSpeech/TextDone": 1, "ALTextToSpeech/TextStarted": 0,
    "ALTextToSpeech/CurrentSentence": ""}


def _start_keys(robot: str, joints: List[str]) -> Dict[str, Any]:
    """The start keys of ``robot`` (module doc)."""
    keys: Dict[str, Any] = {
        "RobotConfig/Body/Type": BODY_TYPE[robot],
        "RobotConfig/Body/BaseVersion": BASE_VERSION[robot],
        "RobotConfig/Head/BaseVersion": BASE_VERSION[robot],
        "RobotConfig/Head/HeadId": "SIMHEAD%s000001" % robot.upper(),
        "RobotConfig/Head/FullHeadId": "SIMHEAD%s000001" % robot.upper(),
        "Device/DeviceList/ChestBoard/BodyId": "SIMBODY%s000001" % robot.upper(),
        DEVICE + "Battery/Current/Sensor/Value": -0.8,
        DEVICE + "Battery/Temperature/Sensor/Value": 30.0,
        DEVICE + "InertialSensor/AngleX/Sensor/Value": 0.0,
        DEVICE + "InertialSensor/AngleY/Sensor/Value": 0.0,
        DEVICE + "InertialSensor/AngleZ/Sensor/Value": 0.0,
        DEVICE + "InertialSensor/AccelerometerX/Sensor/Value": 0.0,
        DEVICE + "InertialSensor/AccelerometerY/Sensor/Value": 0.0,
        DEVICE + "InertialSensor/AccelerometerZ/Sensor/Value": -STANDARD_GRAVITY,
        DEVICE + "InertialSensor/GyroscopeX/Sensor/Value": 0.0,
        DEVICE + "InertialSensor/GyroscopeY/Sensor/Value": 0.0,
        DEVICE + "InertialSensor/GyroscopeZ/Sensor/Value": 0.0,
    }
    keys.update((DEVICE + sensor + "/Sensor/Value", 0.0) for sensor in _TOUCH[robot])
    keys.update((event, 0.0) for event in _TOUCH_EVENTS[robot])
    keys.update((DEVICE + joint + "/ElectricCurrent/Sensor/Value", 0.0) for joint in joints)
    if robot == "nao":
        for foot in ("LFoot", "RFoot"):
            keys[DEVICE + foot + "/FSR/TotalWeight/Sensor/Value"] = NAO_WEIGHT_KG / 2
            keys.update((DEVICE + "%s/FSR/%s/Sensor/Value" % (foot, corner), NAO_WEIGHT_KG / 8)
                        for corner in ("FrontLeft", "FrontRight", "RearLeft", "RearRight"))
    keys.update(_MODULE_DATA)
    return keys


class RobotKeys:
    """The keys NAOqi keeps for the simulated robot ``sim`` (module doc)."""

    def __init__(self, sim: Any) -> None:
        self._sim = sim
        joints = JointTable(sim.robot).body
        self.start: Dict[str, Any] = _start_keys(sim.robot, joints)
        self._live: Dict[str, Callable[[], Any]] = {"robotIsWakeUp": self._awake}
        for joint in joints:
            self._live[DEVICE + joint + "/Position/Sensor/Value"] = self._angle(joint)
            self._live[DEVICE + joint + "/Position/Actuator/Value"] = self._angle(joint)
            self._live[DEVICE + joint + "/Hardness/Actuator/Value"] = self._stiffness(joint)

    def _motion(self) -> Any:
        return self._sim.service("ALMotion")

    def _angle(self, joint: str) -> Callable[[], float]:
        return lambda: self._motion().getAngles(joint, True)[0]

    def _stiffness(self, joint: str) -> Callable[[], float]:
        return lambda: self._motion().getStiffnesses(joint)[0]

    def _awake(self) -> bool:
        return self._motion().robotIsWakeUp()

    def live(self) -> List[str]:
        """The keys whose value follows the simulated body."""
        return list(self._live)

    def value(self, key: str) -> Tuple[bool, Any]:
        """``(True, value)`` of the live key ``key``; ``(False, None)`` for any other."""
        read = self._live.get(key)
        return (False, None) if read is None else (True, read())
