"""A small in-process context for the simulated services, and tests of their shared base."""
import logging
import math
import shutil
import tempfile
import threading
import time
from typing import Any, Callable, Dict, List, Tuple

import pytest

from naoqi_qicore.robot.robot_files import RobotFiles
from naoqi_qicore.robot.sim.context import TaskManager
from naoqi_qicore.robot.sim.services import SERVICE_CLASSES, services_for
from naoqi_qicore.robot.sim.services.module import SimModule


class FakeMemory:
    """ALMemory as the services use it: data, events and their history."""

    def __init__(self) -> None:
        self.data: Dict[str, Any] = {}
        self.events: List[Tuple[str, Any]] = []
        self._lock = threading.Lock()
        self._watchers: List[Callable[[str, Any], None]] = []

    def _watch(self, watcher: Callable[[str, Any], None]) -> None:
        self._watchers.append(watcher)

    def insertData(self, key: str, value: Any) -> None:
        with self._lock:
            self.data[key] = value

    def raiseEvent(self, key: str, value: Any) -> None:
        with self._lock:
            self.data[key] = value
            self.events.append((key, value))
        for watcher in list(self._watchers):
            watcher(key, value)

    def getData(self, key: str) -> Any:
        with self._lock:
            if key not in self.data:
                raise RuntimeError("ALMemory::getData: no data for key '%s'" % key)
            return self.data[key]

    def values(self, key: str) -> List[Any]:
        with self._lock:
            return [v for k, v in self.events if k == key]


class FakeMotion:
    """ALMotion as the services use it: joints reached at a speed, walks, odometry."""

    def __init__(self) -> None:
        self.angles: Dict[str, float] = {}
        self.position = [0.0, 0.0, 0.0]
        self.killed = threading.Event()

    def angleInterpolationWithSpeed(self, names: List[str], angles: List[float],
                                    speed: float) -> None:
        self.killed.clear()
        if self.killed.wait(0.05 / speed):
            return
        self.angles.update(zip(names, angles))

    def getAngles(self, names: List[str], useSensors: bool) -> List[float]:
        return [self.angles.get(n, 0.0) for n in names]

    def killTasksUsingResources(self, names: List[str]) -> None:
        self.killed.set()

    def setStiffnesses(self, names: Any, stiffnesses: Any) -> None:
        pass

    def moveTo(self, x: float, y: float, theta: float) -> None:
        self.killed.clear()
        if self.killed.wait(0.05):
            return
        px, py, ptheta = self.position
        self.position = [px + x * math.cos(ptheta) - y * math.sin(ptheta),
                         py + x * math.sin(ptheta) + y * math.cos(ptheta), ptheta + theta]

    def stopMove(self) -> None:
        self.killed.set()

    def getRobotPosition(self, useSensors: bool) -> List[float]:
        return list(self.position)


class FakeSim:
    """What ``cls(sim)`` receives: robot, service(), names(), tasks, clock(), log, files and
    the call record (none)."""

    def __init__(self, robot: str = "nao") -> None:
        self.robot = robot
        self.tasks = TaskManager(logging.getLogger("sim"))
        self.log = logging.getLogger("sim")
        self.memory = FakeMemory()
        self.motion = FakeMotion()
        self._services: Dict[str, Any] = {"ALMemory": self.memory, "ALMotion": self.motion}
        self.allow_eval = False
        self.endpoints: List[str] = []
        self.files = RobotFiles(tempfile.mkdtemp(prefix="fake_robot_"))
        self.record = None

    @staticmethod
    def clock() -> float:
        return time.monotonic()

    def names(self) -> List[str]:
        return sorted(set(services_for(self.robot)) | set(self._services))

    def service(self, name: str) -> Any:
        if name not in self._services:
            classes = services_for(self.robot)
            if name not in classes:
                raise RuntimeError("Cannot find service '%s'" % name)
            self._services[name] = classes[name](self)
        return self._services[name]

    def close(self) -> None:
        for service in self._services.values():
            if isinstance(service, SimModule):
                service.close()
        shutil.rmtree(self.files.root, ignore_errors=True)


@pytest.fixture
def sim():
    context = FakeSim("nao")
    yield context
    context.close()


@pytest.fixture
def pepper():
    context = FakeSim("pepper")
    yield context
    context.close()


def wait_until(predicate: Callable[[], bool], timeout: float = 2.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.005)
    return predicate()


# -- the shared base -------------------------------------------------------------------------
def test_wrong_argument_count_and_type_name_the_method(sim):
    tts = sim.service("ALTextToSpeech")
    with pytest.raises(TypeError, match=r"ALTextToSpeech::say: takes 1 to 2"):
        tts.say()
    with pytest.raises(TypeError, match=r"ALTextToSpeech::say: argument 1 \(stringToSay\) "
                                        r"must be a string, got int"):
        tts.say(42)
    with pytest.raises(TypeError, match=r"ALTextToSpeech::setVolume"):
        tts.setVolume("loud")


def test_numbers_are_converted_like_libqi(sim):
    tts = sim.service("ALTextToSpeech")
    tts.setVolume(1)
    assert tts.getVolume() == 1.0 and isinstance(tts.getVolume(), float)


def test_post_wait_stop_and_is_running(sim):
    tts = sim.service("ALTextToSpeech")
    task = tts.pCall("say", "a rather long sentence to say slowly")
    assert tts.isRunning(task)
    # stopped while it is said ("stopped"), not while it waits its turn in the queue ("thrown")
    deadline = time.monotonic() + 5
    while not any(list(v) == [task, "started"]
                  for v in sim.memory.values("ALTextToSpeech/Status")):
        assert time.monotonic() < deadline, "the sentence never started"
        time.sleep(0.005)
    assert tts.wait(task, 20) is True  # timed out: still speaking
    started = time.monotonic()
    tts.stop(task)
    assert tts.wait(task, 0) is False
    assert time.monotonic() - started < 0.5
    assert not tts.isRunning(task)
    assert sim.memory.values("ALTextToSpeech/Status")[-1][1] == "stopped"


def test_a_stop_of_every_call_right_after_pcall_ends_the_posted_call(sim):
    """A posted call runs from pCall on, not from when its thread starts: a stopAll coming
    first ends it (a stream would play forever otherwise)."""
    player = sim.service("ALAudioPlayer")
    for _ in range(20):
        task = player.pCall("playWebStream", "http://radio.example/stream", 1.0, 0.0)
        player.stopAll()
        assert player.wait(task, 5000) is False
    assert player.getLoadedFilesIds() == []


def test_pcall_of_unknown_method_fails(sim):
    with pytest.raises(RuntimeError, match="ALLeds::pCall: method 'explode' does not exist"):
        sim.service("ALLeds").pCall("explode")


def test_generic_methods(sim):
    leds = sim.service("ALLeds")
    assert leds.ping() is True
    assert "fadeRGB" in leds.getMethodList() and "_resolve" not in leds.getMethodList()
    assert isinstance(leds.version(), str)


def test_every_service_class_is_named_and_constructible(sim, pepper):
    for name, cls in SERVICE_CLASSES.items():
        assert cls.NAME == name
        for context in (sim, pepper):
            if context.robot in cls.ROBOTS:
                assert isinstance(context.service(name), SimModule)
