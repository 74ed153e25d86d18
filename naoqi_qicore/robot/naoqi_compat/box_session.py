"""The robot session as box scripts see it: ``self.session()``, ``qi.Session()`` in box code.

NAOqi ran box scripts on the robot, inside NAOqi, where every box was a module of its
own.  :class:`BoxSession` wraps a qi session so that what scripts relied on still holds:

* ``service("ALMemory").subscribeToEvent(event, module, method)`` with the name of a box
  (``self.getName()``) or of an ``ALModule`` of the behavior calls that object back in
  this process (:class:`LocalSubscriptions`), instead of asking the robot to call a module
  it does not know;
* ``service("ALFrameManager")`` is the behavior's own frame manager;
* services are :class:`~naoqi_qicore.robot.naoqi_compat.box_calls.BoxService`: calls
  bound to the behavior (a stopped behavior's code cannot call the robot any more, a
  missing method is an error of the run...); a service the robot does not have is an
  error of the run too, even when the box catches it;
* ``connect(url)`` to the robot's own address (``tcp://127.0.0.1:9559``, ``localhost``...)
  reaches the robot the behavior plays on: a script connecting to "itself" meant the robot.

:func:`box_qi_module` is the ``qi`` module of box code: the real one, except that
``qi.Session()`` returns a :class:`BoxSession` and that callbacks given to
``qi.runAsync`` and ``qi.PeriodicTask`` run as code of the box (ended with the behavior).
"""
from __future__ import annotations

import logging
import threading
import types
from typing import Any, Dict, List, Optional, Tuple
from urllib.parse import urlsplit

from naoqi_qicore.core.environment import BehaviorContext
from naoqi_qicore.core.script import positional_arity
from naoqi_qicore.robot.naoqi_compat.box_calls import (BoxService, box_value, check_running,
                                                       report_robot_call)
from naoqi_qicore.robot.naoqi_compat.robot_work import RobotWork

_LOG = logging.getLogger(__name__)

LOCAL_SERVICES = ("ALFrameManager",)
NAOQI_PORT = 9559
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "0.0.0.0")


#: events raised by NAOqi extractors -> the extractor: on NAOqi, subscribing to one with
#: ``ALMemory.subscribeToEvent`` started the extractor (the standard Speech Reco. and
#: Choice boxes only subscribe to ``WordRecognized``)
EXTRACTOR_EVENTS = {
    "WordRecognized": "ALSpeechRecognition", "WordRecognizedAndGrammar": "ALSpeechRecognition",
    "SpeechDetected": "ALSpeechRecognition", "FaceDetected": "ALFaceDetection",
    "LandmarkDetected": "ALLandMarkDetection", "BarcodeReader/BarcodeDetected": "ALBarcodeReader",
    "SoundDetected": "ALSoundDetection", "ALSoundLocalization/SoundLocated": "ALSoundLocalization",
    "PictureDetected": "ALVisionRecognition", "redBallDetected": "ALRedBallDetection",
    "MovementDetection/MovementDetected": "ALMovementDetection",
    "DarknessDetection/DarknessDetected": "ALDarknessDetection",
    "SonarLeftDetected": "ALSonar", "SonarRightDetected": "ALSonar",
    "SonarLeftNothingDetected": "ALSonar", "SonarRightNothingDetected": "ALSonar",
}


class LocalSubscriptions:
    """ALMemory events delivered to objects of this process (boxes, ``ALModule`` objects):
    NAOqi called ``module.method(event, value, message)`` on them; here a memory
    subscriber calls it, each time in a thread of its own.  The extractor raising the event
    (:data:`EXTRACTOR_EVENTS`) works for ``module`` while it has such a subscription, as
    on NAOqi; :meth:`close` ends them all when the behavior is unloaded."""

    def __init__(self, context: BehaviorContext) -> None:
        self._context = context
        self._lock = threading.Lock()
        self.modules: Dict[str, Any] = {}
        self._links: Dict[Tuple[str, str], Tuple[Any, int]] = {}
        #: (extractor, module) -> number of its events the module is subscribed to
        self._extractors: Dict[Tuple[str, str], int] = {}

    def _extractor(self, event: str, module: str, start: bool) -> None:
        """Start (first event) or stop (last event) the extractor of ``event`` for
        ``module``; a robot without it only loses that."""
        name = EXTRACTOR_EVENTS.get(event)
        if name is None:
            return
        with self._lock:
            count = self._extractors.get((name, module), 0) + (1 if start else -1)
            if count > 0:
                self._extractors[(name, module)] = count
            else:
                self._extractors.pop((name, module), None)
        if count != (1 if start else 0):
            return
        try:
            service = self._context.session.service(name)
            (service.subscribe if start else service.unsubscribe)(module)
        except Exception as error:  # not on this robot, or its session is gone
            _LOG.debug("%s %s for %s: %s", name, "start" if start else "stop", module, error)

    def close(self) -> None:
        """End every subscription (the behavior is unloaded)."""
        with self._lock:
            keys = list(self._links)
        for event, module in keys:
            self.unsubscribe(event, module)

    def target(self, module: str) -> Optional[Any]:
        with self._lock:
            local = self.modules.get(module)
        return local if local is not None else self._context.box_object(module)

    def subscribe(self, memory: Any, event: str, module: str, method: str) -> bool:
        """Subscribe locally; False when ``module`` is not an object of this process."""
        target = self.target(module)
        if target is None:
            return False
        callback = getattr(target, method)
        arity = positional_arity(callback)
        box = getattr(getattr(target, "_box", None), "path", None)
        call = self._context.guard.bind(callback, box)

        def deliver(value: Any) -> None:
            if self._context.guard.closed:
                return  # a stopped behavior hears nothing
            arguments = (event, value, "")[:3 if arity is None else arity]
            threading.Thread(target=call, args=arguments, daemon=True,
                             name="%s.%s" % (module, method)).start()
        self.unsubscribe(event, module)
        subscriber = memory.subscriber(event)
        link = subscriber.signal.connect(deliver)
        with self._lock:
            self._links[(event, module)] = (subscriber, link)
        self._extractor(event, module, start=True)
        return True

    def unsubscribe(self, event: str, module: str) -> bool:
        with self._lock:
            entry = self._links.pop((event, module), None)
        if entry is None:
            return False
        self._extractor(event, module, start=False)
        subscriber, link = entry
        try:
            subscriber.signal.disconnect(link)
        except Exception as error:  # its session is gone
            _LOG.debug("%s of %s: %s", event, module, error)
        return True


class LocalMemory:
    """ALMemory whose (un)subscribeToEvent calls reach local objects.

    The subscriptions of a local object live in this process, never on the robot: its
    ``unsubscribeToEvent`` of an event it is no longer subscribed to (a box's onUnload
    called again after its onStop called it) has nothing to end, and succeeds."""

    def __init__(self, service: Any, local: LocalSubscriptions) -> None:
        self._service = service
        self._local = local

    def subscribeToEvent(self, event: str, module: str, method: str) -> None:  # noqa: N802
        if not self._local.subscribe(self._service, event, module, method):
            self._service.subscribeToEvent(event, module, method)

    def unsubscribeToEvent(self, event: str, module: str) -> None:  # noqa: N802
        if not self._local.unsubscribe(event, module) and self._local.target(module) is None:
            self._service.unsubscribeToEvent(event, module)

    def __getattr__(self, method: str) -> Any:
        return getattr(self._service, method)


def robot_url(session: Any) -> Optional[str]:
    """The URL ``session`` is connected to, when it can tell."""
    try:
        url = session.url()
    except Exception:  # not a qi session, or not connected
        return None
    return str(url) if url else None


def is_robot_itself(url: str) -> bool:
    """True for the robot's own NAOqi address as scripts running on it wrote it."""
    parts = urlsplit(url if "://" in url else "tcp://" + url)
    try:
        port = parts.port
    except ValueError:
        return False
    return parts.hostname in LOOPBACK_HOSTS and port in (None, NAOQI_PORT)


class BoxSession:
    """A qi session of box code (see the module doc); anything else goes to ``session``."""

    def __init__(self, session: Any, context: BehaviorContext,
                 local: LocalSubscriptions, work: RobotWork) -> None:
        self._session = session
        self._context = context
        self._local = local
        self._work = work

    def service(self, name: str) -> Any:
        if name in LOCAL_SERVICES:
            return self._context.frame_manager
        check_running(self._context, "service(%r)" % name)
        try:
            remote = self._session.service(name)
        except RuntimeError as error:
            if "find service" in str(error):
                report_robot_call(self._context, str(error), error)
            raise
        service = BoxService(remote, name, self._context, self._work)
        return LocalMemory(service, self._local) if name == "ALMemory" else service

    def connect(self, url: str) -> Any:
        target = robot_url(self._context.session) if is_robot_itself(url) else None
        return self._session.connect(target or url)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)

    def __repr__(self) -> str:
        return "BoxSession(%r)" % (self._session,)


class _BoxQi(types.ModuleType):
    """``qi`` for box code: the real module's names, ``Session``, ``runAsync`` and
    ``PeriodicTask`` excepted."""

    _real: types.ModuleType

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


class PeriodicTasks:
    """The ``qi.PeriodicTask`` objects of one behavior's box code: their callbacks run as
    code of the box that set them; :meth:`stop_all` stops them (the behavior unloads)."""

    def __init__(self, real_qi: types.ModuleType, context: BehaviorContext) -> None:
        self._real = real_qi
        self._context = context
        self._lock = threading.Lock()
        self._tasks: List[Any] = []

    def new(self) -> Any:
        """A ``qi.PeriodicTask`` for box code."""
        tasks, guard = self, self._context.guard

        class PeriodicTask:
            """qi.PeriodicTask whose callback is bound to the box setting it."""

            def __init__(self) -> None:
                self._task = tasks._real.PeriodicTask()
                with tasks._lock:
                    tasks._tasks.append(self._task)

            def setCallback(self, callback: Any) -> None:  # noqa: N802 (libqi's name)
                self._task.setCallback(guard.bind(callback))

            def __getattr__(self, name: str) -> Any:
                return getattr(self._task, name)
        return PeriodicTask

    def stop_all(self) -> None:
        with self._lock:
            tasks, self._tasks = self._tasks, []
        for task in tasks:
            try:
                task.asyncStop()
            except Exception as error:  # never started, or already stopped
                _LOG.debug("PeriodicTask.asyncStop: %s", error)


def box_qi_module(real_qi: types.ModuleType, context: BehaviorContext,
                  local: LocalSubscriptions, periodic: PeriodicTasks,
                  work: RobotWork) -> types.ModuleType:
    """The ``qi`` module box code of one behavior imports."""
    module = type("qi", (_BoxQi,), {"_real": real_qi})("qi", real_qi.__doc__)

    def session() -> BoxSession:
        """A new qi session (``connect`` to the robot's own address reaches the robot)."""
        return BoxSession(real_qi.Session(), context, local, work)

    def run_async(callback: Any, *args: Any, **kwargs: Any) -> Any:
        """``qi.runAsync`` (Python 2's ``qi.async``) running ``callback`` as box code."""
        check_running(context, "qi.runAsync")
        future = real_qi.runAsync(context.guard.bind(callback), *args, **kwargs)
        return box_value(future, "qi.runAsync", context, work)
    module.Session = session  # type: ignore[attr-defined]
    module.runAsync = run_async  # type: ignore[attr-defined]
    module.PeriodicTask = periodic.new()  # type: ignore[attr-defined]
    return module
