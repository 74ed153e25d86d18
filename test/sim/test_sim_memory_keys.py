"""The ALMemory keys NAOqi keeps for a NAO or a Pepper, answered by the simulated robot from
its start, the joints' following the simulated body."""
import html
import re
import time

import pytest

qi = pytest.importorskip("qi")

from naoqi_qicore.converter.robot_kind import robot_kind  # noqa: E402
from naoqi_qicore.robot.sim import SimulatedRobot  # noqa: E402
from naoqi_qicore.xar.parser import parse_xar_file  # noqa: E402

DEVICE = "Device/SubDeviceList/"

#: keys of NAOqi's key lists and of its modules' data, as box code reads them
KEPT = {
    "nao": [DEVICE + "HeadYaw/Position/Sensor/Value", DEVICE + "LKneePitch/Position/Actuator/"
            "Value", DEVICE + "RHand/Hardness/Actuator/Value", DEVICE + "LAnklePitch/"
            "ElectricCurrent/Sensor/Value", DEVICE + "LFoot/FSR/TotalWeight/Sensor/Value",
            DEVICE + "LFoot/Bumper/Left/Sensor/Value", DEVICE + "ChestBoard/Button/Sensor/Value"],
    "pepper": [DEVICE + "HipPitch/Position/Sensor/Value", DEVICE + "KneePitch/Position/"
               "Actuator/Value", DEVICE + "Platform/Back/Bumper/Sensor/Value"],
}
BOTH = [DEVICE + "Head/Touch/Front/Sensor/Value", DEVICE + "Battery/Charge/Sensor/Value",
        DEVICE + "Battery/Current/Sensor/Value", DEVICE + "HeadPitch/Temperature/Sensor/Value",
        DEVICE + "InertialSensor/AngleX/Sensor/Value",
        DEVICE + "InertialSensor/AccelerometerZ/Sensor/Value", "RobotConfig/Body/Type",
        "RobotConfig/Body/BaseVersion", "RobotConfig/Head/FullHeadId",
        "Device/DeviceList/ChestBoard/BodyId", "robotIsWakeUp", "FrontTactilTouched",
        "BatteryLowDetected", "WordRecognized", "PeoplePerception/PeopleList",
        "ALTextToSpeech/TextDone"]


@pytest.fixture(params=["nao", "pepper"])
def robot(request):
    with SimulatedRobot(robot=request.param, listen="tcp://127.0.0.1:0") as simulated:
        session = qi.Session()
        session.connect(simulated.url)
        yield request.param, session
        session.close()


def test_the_keys_naoqi_keeps_answer_from_the_start(robot):
    kind, session = robot
    memory = session.service("ALMemory")
    keys = KEPT[kind] + BOTH
    values = memory.getListData(keys)
    assert [key for key, value in zip(keys, values) if value is None] == []
    for key in keys:
        memory.getData(key)
    assert memory.getData("RobotConfig/Body/Type") == {"nao": "NAO", "pepper": "JULIETTE"}[kind]
    assert memory.getData(DEVICE + "InertialSensor/AccelerometerZ/Sensor/Value") < -9.0
    assert not memory.getData("BatteryLowDetected")
    assert memory.getData("PeoplePerception/PeopleList") == []
    assert memory.getData("WordRecognized")[0] == ""
    # they are listed, the joints' too
    joint = memory.getDataList(DEVICE + "HeadYaw/")
    assert {DEVICE + "HeadYaw/Position/Sensor/Value", DEVICE + "HeadYaw/Position/Actuator/Value",
            DEVICE + "HeadYaw/Hardness/Actuator/Value"} <= set(joint)
    assert set(keys) <= set(memory.getDataListName())


def test_the_joints_keys_follow_the_simulated_body(robot):
    _, session = robot
    memory, motion = session.service("ALMemory"), session.service("ALMotion")
    sensor = DEVICE + "HeadYaw/Position/Sensor/Value"
    motion.wakeUp()
    assert memory.getData(sensor) == pytest.approx(motion.getAngles("HeadYaw", True)[0])
    task = motion.pCall("angleInterpolation", "HeadYaw", 0.8, 0.6, True)
    time.sleep(0.3)
    halfway = memory.getData(sensor)
    assert 0.0 < halfway < 0.8
    motion.wait(task, 0)
    assert memory.getListData([sensor, DEVICE + "HeadYaw/Position/Actuator/Value"]) == [
        pytest.approx(0.8), pytest.approx(0.8)]
    assert memory.getTimestamp(sensor)[0] == pytest.approx(0.8)
    motion.setStiffnesses("HeadYaw", 0.3)
    assert memory.getData(DEVICE + "HeadYaw/Hardness/Actuator/Value") == pytest.approx(0.3)
    motion.rest()
    assert memory.getData("robotIsWakeUp") is False
    # a value written to ALMemory is the one answered
    memory.insertData(DEVICE + "Head/Touch/Front/Sensor/Value", 1.0)
    assert memory.getData(DEVICE + "Head/Touch/Front/Sensor/Value") == 1.0


#: the namespaces of NAOqi's keys (the others a behavior reads are its application's own)
_NAOQI_KEYS = re.compile(r"^(Device/|RobotConfig/|PeoplePerception/|ALTextToSpeech/|"
                         r"Dialog/Confidence$|WordRecognized$|Battery\w+$|\w+Touched$|"
                         r"robotIsWakeUp$)")
_READ = re.compile(r"""getData\(\s*["']([^"']+)["']|getListData\(\s*\[([^\]]*)\]""")


def test_the_keys_corpus_boxes_read_answer(corpus_dir):
    """Every NAOqi key a corpus box script reads by name answers on the robot the behavior
    was written for."""
    read = {"nao": set(), "pepper": set()}
    for path in sorted((corpus_dir / "files").glob("*.xar")):
        text = html.unescape(path.read_text(encoding="utf-8", errors="replace"))
        keys = set()
        for key, listed in _READ.findall(text):
            keys |= {key} if key else set(re.findall(r"""["']([^"']+)["']""", listed))
        keys = {key for key in keys if _NAOQI_KEYS.match(key) and not key.endswith("/")}
        if keys:
            read[robot_kind([parse_xar_file(path)], path.parent).kind] |= keys
    assert read["nao"] | read["pepper"]
    for kind, keys in read.items():
        with SimulatedRobot(robot=kind, listen="tcp://127.0.0.1:0") as simulated:
            memory = simulated.service("ALMemory")
            assert [key for key in sorted(keys)
                    if memory.getListData([key])[0] is None] == [], kind
