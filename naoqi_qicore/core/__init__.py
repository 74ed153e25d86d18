"""The engine: plays converted Choregraphe behaviors (pure Python; the robot is injected)."""
from naoqi_qicore.core.clock import Clock, FakeClock, MonotonicClock
from naoqi_qicore.core.environment import BehaviorContext, BoxEnvironmentFactory, ScriptEnvironment
from naoqi_qicore.core.events import BehaviorLoadError, EngineEvent, GotoError
from naoqi_qicore.core.motion import ALMotionSink, MotionSegment, MotionSink
from naoqi_qicore.core.player import BehaviorPlayer

__all__ = ["ALMotionSink", "BehaviorContext", "BehaviorLoadError", "BehaviorPlayer",
           "BoxEnvironmentFactory", "Clock", "EngineEvent", "FakeClock", "GotoError",
           "MonotonicClock", "MotionSegment", "MotionSink", "ScriptEnvironment"]
