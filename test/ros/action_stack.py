"""A robot, a bridge and a runner started for the tests of ``behavior/run`` (RunBehavior
action), and the goals a test sends them."""
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import pytest
from diagnostic_msgs.msg import DiagnosticArray
from std_srvs.srv import Trigger

from naoqi_qicore.action import RunBehavior
from naoqi_qicore.msg import BehaviorState, MotionStatus, RobotConnection
from naoqi_qicore.ros.run_client import BehaviorRunClient
from naoqi_qicore.srv import LoadBehavior

#: the activity of the example behavior, whose focus a run takes
ACTIVITY = "naoqi_qicore/wave_hello"
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "wave_hello" / "behavior.xar"
#: the runner's /diagnostics status saying where motion goes
RUNNER_MOTION = "naoqi_qicore: behavior_runner motion"


def wait_future(future: Any, timeout: float, what: str) -> Any:
    done = threading.Event()
    future.add_done_callback(lambda _: done.set())
    if not done.wait(timeout):
        pytest.fail("timed out after %.0f s waiting for %s" % (timeout, what))
    return future.result()


class Goal:
    """A ``behavior/run`` goal sent by the test: its feedback states and its result."""

    def __init__(self, runs: BehaviorRunClient, request: RunBehavior.Goal) -> None:
        self.feedback: List[BehaviorState] = []
        self.handle = runs.send(request, self.feedback.append, timeout=20)
        assert self.handle.accepted
        self._result = self.handle.get_result_async()
        self.result_time: Optional[float] = None
        self._result.add_done_callback(lambda _: setattr(self, "result_time", time.monotonic()))

    def wait_feedback(self, predicate: Callable[[BehaviorState], Any], timeout: float,
                      what: str) -> BehaviorState:
        deadline = time.monotonic() + timeout
        while True:
            found = next((state for state in list(self.feedback) if predicate(state)), None)
            if found is not None:
                return found
            if time.monotonic() > deadline:
                pytest.fail("no feedback with %s within %.1f s (last: %s)" % (
                    what, timeout, self.feedback[-1] if self.feedback else None))
            time.sleep(0.01)

    def cancel(self) -> None:
        wait_future(self.handle.cancel_goal_async(), 10, "the cancel answer")

    def when_done(self, callback: Callable[[], None]) -> None:
        """Call ``callback()`` in the probe's thread once the result arrives."""
        self._result.add_done_callback(lambda _: callback())

    def result(self, timeout: float = 30.0) -> Any:
        """``(goal status, RunBehavior.Result)``."""
        answer = wait_future(self._result, timeout, "the result")
        return answer.status, answer.result


class Stack:
    """The simulated robot, the bridge and the runner (with ``behavior``), and an action
    client."""

    def __init__(self, programs: Callable[..., Any], probe: Any, behavior: Path,
                 tmp_path: Path, robot: str = "nao") -> None:
        self.probe = probe
        self.since = 0.0
        # made first: the runner discovers it while it starts
        self.runs = probe.made(lambda: BehaviorRunClient(probe.node))
        self.robot = programs("sim", "--robot", robot)
        self.bridge = programs("bridge", "-p", "robot_url:=" + self.robot.url)
        self.runner = programs("runner", "-p", "robot_url:=" + self.robot.url,
                               "-p", "behavior:=" + str(behavior),
                               "-p", "cache_dir:=" + str(tmp_path / "cache"))
        self.states: List[BehaviorState] = probe.listen(BehaviorState, "behavior/state")
        connection = probe.listen(RobotConnection, "robot/connection")
        probe.wait_until(lambda: self.states and self.states[-1].status == BehaviorState.LOADED,
                         60, "behavior loaded")
        probe.wait_until(lambda: connection and connection[-1].state
                         == RobotConnection.CONNECTED, 30, "bridge connected")

    def run(self, **fields: Any) -> Goal:
        return Goal(self.runs, RunBehavior.Goal(**fields))

    def calls(self, service: str, method: str) -> List[Dict]:
        """The robot's calls of ``service.method`` since the test began."""
        return [call for call in self.robot.calls(service, method) if call["time"] >= self.since]

    def ready(self, behavior: Path) -> "Stack":
        """As a fresh stack for the next test: no run going, ``behavior`` loaded (a goal
        naming another behavior loaded that one), the robot's calls counted from now."""
        if self.states[-1].status in (BehaviorState.PLAYING, BehaviorState.PAUSED):
            self.probe.call(Trigger, "behavior/stop")
        if not self._idle_with(behavior):
            answer = self.probe.call(LoadBehavior, "behavior/load",
                                     LoadBehavior.Request(path=str(behavior)))
            assert answer.success, answer.message
        self.probe.wait_until(lambda: self._idle_with(behavior), 20, behavior.parent.name
                              + " loaded and idle")
        self.since = time.time()
        return self

    def _idle_with(self, behavior: Path) -> bool:
        last = self.states[-1]
        return last.behavior == behavior.parent.name and last.status in (
            BehaviorState.LOADED, BehaviorState.STOPPED, BehaviorState.FINISHED)

    def focused_activity(self) -> str:
        return self.probe.call(Trigger, "life/focused_activity").message

    def motion_through_bridge(self) -> List[MotionStatus]:
        """Wait until the runner's motion goes through the bridge; returns the (growing)
        list of the bridge's motion/status messages."""
        status_messages = self.probe.listen(MotionStatus, "motion/status", latched=False)
        diagnostics = self.probe.listen(DiagnosticArray, "/diagnostics", latched=False)
        # motion/status is not latched: subscribed before the first segment is sent
        self.probe.wait_until(lambda: self.probe.node.count_publishers("/motion/status") > 0,
                              10, "the bridge's motion/status publisher")
        # the runner sends motion itself until it has heard of a bridge connected to the robot
        self.probe.wait_until(lambda: motion_output(diagnostics) == "naoqi_bridge", 20,
                              "the runner's motion going through naoqi_bridge")
        return status_messages


def motion_output(diagnostics: List[DiagnosticArray]) -> Optional[str]:
    """Where the runner said last on /diagnostics that its motion goes (None: not said)."""
    for array in reversed(list(diagnostics)):
        for status in array.status:
            if status.name == RUNNER_MOTION:
                return next(value.value for value in status.values if value.key == "output")
    return None
