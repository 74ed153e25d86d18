"""The scenario a simulated robot plays, reached over libqi (its ``NaoqiSimScenario``).

The simulated robot sees what a behavior makes it do (speech, joints, the tablet), not the
behavior's boxes and keyframes, which live in ``behavior_runner``.  :class:`ScenarioFeed`
is how the runner tells a scenario with expectations
(:mod:`naoqi_qicore.robot.sim.expectations`) what its run does: the engine's events, in
their order, and how the run ended.  :class:`ScenarioVerdict` is how ``run_behavior``
reads the verdict of those expectations.
"""
import logging
import queue
import threading
from typing import Any, Callable, Optional, Tuple

from naoqi_qicore.core.events import EngineEvent
from naoqi_qicore.robot.sim.expectations import Verdict
from naoqi_qicore.robot.sim.observations import RunObserver

SERVICE = "NaoqiSimScenario"
#: how often the verdict is asked for until it is decided (s)
POLL_S = 0.2
_LOG = logging.getLogger(__name__)


def scenario_service(session: Any) -> Optional[Any]:
    """The robot's ``NaoqiSimScenario``, None on a robot that has none (a real one)."""
    try:
        return session.service(SERVICE)
    except RuntimeError:
        return None


class ScenarioFeed:
    """Tells ``scenario`` (a ``NaoqiSimScenario``) about one run, in order, from a thread of
    its own (engine threads and the runner never wait for the robot)."""

    def __init__(self, scenario: Any) -> None:
        self._scenario = scenario
        self._told: "queue.Queue[Optional[Tuple[str, str, str]]]" = queue.Queue()
        self._observer = RunObserver(lambda kind, name, detail: self._told.put(
            (kind, name, detail)))
        self._thread = threading.Thread(target=self._tell, daemon=True, name="scenario feed")
        self._thread.start()

    @classmethod
    def for_run(cls, scenario: Optional[Any]) -> Optional["ScenarioFeed"]:
        """A feed for a new run when ``scenario`` has expectations, else None."""
        if scenario is None:
            return None
        try:
            if not scenario.expectations():
                return None
        except RuntimeError as error:  # the robot is going away
            _LOG.debug("no scenario to tell: %s", error)
            return None
        return cls(scenario)

    def engine_event(self, event: EngineEvent, root: str) -> None:
        """An event of the engine playing the run's behavior (root box path ``root``)."""
        self._observer.engine_event(event, root)

    def ended(self, status: str, detail: str) -> None:
        """The run ended with ``status`` (FINISHED, STOPPED, ERROR); ``detail``: how."""
        self._observer.ended(status, detail)

    def _tell(self) -> None:
        while True:
            told = self._told.get()
            if told is None:
                return
            try:
                self._scenario.observeBehavior(*told)
            except RuntimeError as error:  # the simulated robot stopped
                _LOG.debug("cannot tell the scenario: %s", error)
                return

    def close(self) -> None:
        """Stop telling, once what was told is told (at most a few seconds)."""
        self._told.put(None)
        self._thread.join(5)


class ScenarioVerdict:
    """The verdict of the expectations of the scenario the simulated robot at ``url``
    plays, asked for again and again from a thread of its own; ``on_decided()`` is called
    once it is decided."""

    def __init__(self, url: str, on_decided: Callable[[], None]) -> None:
        import qi

        from naoqi_qicore.robot.qi_log import follow_log_level
        follow_log_level(logging.WARNING)
        self._session = qi.Session()
        self._session.connect(url)
        self._scenario = self._session.service(SERVICE)
        self._on_decided = on_decided
        self.decided = threading.Event()
        self._closing = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True, name="scenario verdict")
        self._thread.start()

    def _poll(self) -> None:
        while not self._closing.wait(POLL_S):
            try:
                decided = self._scenario.verdict()["decided"]
            except RuntimeError:  # the simulated robot stopped
                return
            if decided:
                self.decided.set()
                self._on_decided()
                return

    def verdict(self, timeout: float) -> Verdict:
        """The verdict, once decided or after ``timeout`` s."""
        self.decided.wait(timeout)
        try:
            return Verdict.from_dict(self._scenario.verdict())
        except RuntimeError as error:
            return Verdict(origin="the scenario", expectations=0,
                           failure="the simulated robot did not say: %s" % error)

    def close(self) -> None:
        self._closing.set()
        self._thread.join(5)
        self._session.close()
