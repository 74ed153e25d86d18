"""Builders of the engine tests: behaviors made by hand, an in-memory robot, a harness."""
import threading
from typing import Any, Dict, List, Optional

from naoqi_qicore.converter.loader import prepare
from naoqi_qicore.core import BehaviorPlayer, FakeClock
from naoqi_qicore.xar.model import (ActuatorCurve, ActuatorList, BehaviorKeyframe, BehaviorLayer,
                                    Behavior, Box, Diagram, Key, Link, Parameter, Port, Script,
                                    Timeline)

BANG = 1


def inputs(*extra: Port) -> List[Port]:
    """onLoad (1), onStart (2), onStop (3) and ``extra``."""
    return [Port("onLoad", BANG, 1, 0, 1, inner=1), Port("onStart", BANG, 1, 2, 2),
            Port("onStop", BANG, 1, 3, 3)] + list(extra)


def stopped(port_id: int = 4, name: str = "onStopped") -> Port:
    return Port(name, BANG, 1, 1, port_id)


def script_box(name: str, box_id: int, code: str = "", *, extra_inputs=(), outputs=None,
               parameters=(), resources=()) -> Box:
    """A box running ``code`` (a ``MyClass`` body is wrapped when it does not define one)."""
    if code and "class MyClass" not in code:
        body = "\n".join("    " + line for line in code.strip("\n").splitlines())
        code = "class MyClass(GeneratedClass):\n" + body + "\n"
    return Box(name, box_id, inputs=inputs(*extra_inputs),
               outputs=list(outputs) if outputs is not None else [stopped()],
               parameters=list(parameters), resources=list(resources),
               script=Script(4, code))


def flow_box(name: str, box_id: int, boxes: List[Box], links: List[Link], **kwargs) -> Box:
    """A box whose content is a plain flow diagram."""
    box = script_box(name, box_id, **kwargs)
    box.timeline = Timeline(enable=0, layers=[BehaviorLayer("behavior_layer1", [
        BehaviorKeyframe("keyframe1", 1, Diagram(boxes, links))])])
    return box


def timeline_box(name: str, box_id: int, layers: List[BehaviorLayer], *, fps: int = 25,
                 end_frame: int = -1, curves: Optional[List[ActuatorCurve]] = None,
                 **kwargs) -> Box:
    box = script_box(name, box_id, **kwargs)
    box.timeline = Timeline(enable=1, fps=fps, start_frame=0, end_frame=end_frame, layers=layers,
                            actuator_list=ActuatorList("Nao", curves or []))
    return box


def link(source_owner: int, source_port: int, dest_owner: int, dest_port: int) -> Link:
    return Link(inputowner=dest_owner, indexofinput=dest_port, outputowner=source_owner,
                indexofoutput=source_port)


def string_parameter(name: str, value: str, pid: int, inherits: int = 0) -> Parameter:
    return Parameter(name, 3, value, value, pid, inherits_from_parent=inherits)


def behavior(root: Box) -> Behavior:
    root.name, root.id = "root", -1
    return Behavior(root=root, source="")


RECORD = """
def onLoad(self):
    record(self.getName(), "onLoad")
def onUnload(self):
    record(self.getName(), "onUnload")
def onInput_onStart(self):
    record(self.getName(), "onStart")
    self.onStopped()
def onInput_onStop(self):
    record(self.getName(), "onStop")
"""


class MemorySignal:
    def __init__(self) -> None:
        self.callbacks: Dict[int, Any] = {}
        self._next = 0

    def connect(self, callback) -> int:
        self._next += 1
        self.callbacks[self._next] = callback
        return self._next

    def disconnect(self, link_id: int) -> None:
        self.callbacks.pop(link_id, None)


class FakeMemory:
    def __init__(self) -> None:
        self.signals: Dict[str, MemorySignal] = {}

    def subscriber(self, key: str):
        signal = self.signals.setdefault(key, MemorySignal())
        return type("Subscriber", (), {"signal": signal})()

    def raiseEvent(self, key: str, value: Any) -> None:  # noqa: N802
        for callback in list(self.signals.get(key, MemorySignal()).callbacks.values()):
            callback(value)


class RecordingService:
    def __init__(self, name: str, calls: List) -> None:
        self._name = name
        self._calls = calls

    def __getattr__(self, method: str):
        def call(*args):
            self._calls.append((self._name, method, args))
            return len(self._calls)
        return call


class FakeSession:
    """An in-memory robot: ALMemory with subscribers, every other service records calls."""

    def __init__(self) -> None:
        self.calls: List = []
        self.memory = FakeMemory()

    def service(self, name: str):
        if name == "ALMemory":
            return self.memory
        return RecordingService(name, self.calls)


class RecordingSink:
    def __init__(self) -> None:
        self.sent: List = []
        self.stopped: List[int] = []

    def send(self, segment) -> None:
        self.sent.append(segment)

    def stop(self, segment_id: int, spare=()) -> None:
        self.stopped.append(segment_id)

    def wait_all_ended(self, timeout: float) -> bool:
        return True


class Harness:
    """A player on a fake robot with a fake clock, recording events and box calls."""

    def __init__(self, root: Box, *, session: Any = None, naoqi: bool = False,
                 **kwargs: Any) -> None:
        """``session``: the robot (default: a :class:`FakeSession`); ``naoqi``: box scripts
        get the ``naoqi``/``almath``/``qi`` environment of the robot layer."""
        self.clock = FakeClock()
        self.session = session if session is not None else FakeSession()
        self._naoqi = naoqi
        self.sink = RecordingSink()
        self.events: List = []
        self.log: List = []
        self._lock = threading.Lock()
        loaded = prepare(behavior(root))
        self.player = BehaviorPlayer(loaded, self.session, clock=self.clock, motion=self.sink,
                                     listener=self.events.append,
                                     environment=self._environment, **kwargs)
        self.clock.wait_also_for(self.player.wait_idle)

    def _environment(self, context):
        from naoqi_qicore.core.environment import ScriptEnvironment
        from naoqi_qicore.robot.naoqi_compat import box_environment

        def record(*entry):
            with self._lock:
                self.log.append(entry)
        environment = box_environment(context) if self._naoqi else ScriptEnvironment()
        environment.names["record"] = record
        return environment

    def settle(self) -> None:
        assert self.player.wait_idle(10)
        self.clock.settle()
        assert self.player.wait_idle(10)

    def advance(self, seconds: float) -> None:
        self.settle()
        self.clock.advance(seconds)
        self.settle()

    def kinds(self, kind: str) -> List:
        return [event for event in self.events if event.kind == kind]


def curve(actuator: str, keys, unit: Optional[int] = 0) -> ActuatorCurve:
    return ActuatorCurve(actuator, unit=unit, keys=[Key(frame, value) for frame, value in keys])
