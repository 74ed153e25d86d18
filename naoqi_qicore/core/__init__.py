"""The engine: plays converted Choregraphe behaviors (pure Python; the robot is injected).

The names below are imported on first use (PEP 562): a program that needs one module of the
engine (naoqi_bridge its motion sink) does not load the player, boxes and script support.
"""
import importlib
from typing import Any, List

#: public name -> the module of the engine that defines it
_EXPORTS = {
    "Clock": "clock", "FakeClock": "clock", "MonotonicClock": "clock",
    "BehaviorContext": "environment", "BoxEnvironmentFactory": "environment",
    "ScriptEnvironment": "environment",
    "BehaviorLoadError": "events", "EngineEvent": "events", "GotoError": "events",
    "ALMotionSink": "motion", "MotionSegment": "motion", "MotionSink": "motion",
    "BehaviorPlayer": "player",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError("module %r has no attribute %r" % (__name__, name))
    value = getattr(importlib.import_module("%s.%s" % (__name__, module)), name)
    globals()[name] = value
    return value


def __dir__() -> List[str]:
    return sorted(set(globals()) | set(__all__))
