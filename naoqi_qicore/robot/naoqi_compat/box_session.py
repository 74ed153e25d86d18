"""The robot session as box scripts see it: ``self.session()``, ``qi.Session()`` in box code.

NAOqi ran box scripts on the robot, inside NAOqi, where every box was a module of its
own.  :class:`BoxSession` wraps a qi session so that what scripts relied on still holds:

* ``service("ALMemory").subscribeToEvent(event, module, method)`` with the name of a box
  (``self.getName()``) or of an ``ALModule`` of the behavior calls that object back in
  this process (:class:`LocalSubscriptions`), instead of asking the robot to call a module
  it does not know;
* ``service("ALFrameManager")`` is the behavior's own frame manager;
* services take the byte strings of Python 2 code (:func:`qi_value`);
* ``connect(url)`` to the robot's own address (``tcp://127.0.0.1:9559``, ``localhost``...)
  reaches the robot the behavior plays on: a script connecting to "itself" meant the robot.

:func:`box_qi_module` is the ``qi`` module of box code: the real one, except that
``qi.Session()`` returns a :class:`BoxSession`.
"""
from __future__ import annotations

import logging
import threading
import types
from typing import Any, Dict, Optional, Tuple
from urllib.parse import urlsplit

from naoqi_qicore.core.environment import BehaviorContext
from naoqi_qicore.core.py2_text import Py2Bytes
from naoqi_qicore.core.script import positional_arity

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

        def deliver(value: Any) -> None:
            arguments = (event, value, "")[:3 if arity is None else arity]
            threading.Thread(target=callback, args=arguments, daemon=True,
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


def qi_value(value: Any) -> Any:
    """``value`` as libqi takes it: the Python 2 byte strings of box code
    (:class:`~naoqi_qicore.core.py2_text.Py2Bytes`, which libqi would try to publish as
    objects) become text, in lists, tuples and dictionaries too."""
    kind = type(value)
    if kind is Py2Bytes:
        return str(value)
    if kind is list or kind is tuple:
        items = [qi_value(item) for item in value]
        return kind(items) if any(a is not b for a, b in zip(items, value)) else value
    if kind is dict:
        pairs = [(qi_value(key), qi_value(item)) for key, item in value.items()]
        changed = any(a is not b or c is not d
                      for (a, c), (b, d) in zip(pairs, value.items()))
        return dict(pairs) if changed else value
    return value


class _BoxCall:
    """A method or signal of a service: called with :func:`qi_value` arguments; its other
    attributes (``connect``, ``value``...) are the real ones."""

    def __init__(self, target: Any) -> None:
        self._target = target

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._target(*(qi_value(arg) for arg in args),
                            **{key: qi_value(item) for key, item in kwargs.items()})

    def __getattr__(self, name: str) -> Any:
        return getattr(self._target, name)


class BoxService:
    """A service of the robot as box code holds it: calls take :func:`qi_value` arguments."""

    def __init__(self, service: Any) -> None:
        self._service = service

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._service, name)
        return _BoxCall(attribute) if callable(attribute) else attribute

    def __repr__(self) -> str:
        return repr(self._service)


class LocalMemory:
    """ALMemory whose (un)subscribeToEvent calls reach local objects."""

    def __init__(self, service: Any, local: LocalSubscriptions) -> None:
        self._service = service
        self._local = local

    def subscribeToEvent(self, event: str, module: str, method: str) -> None:  # noqa: N802
        if not self._local.subscribe(self._service, event, module, method):
            self._service.subscribeToEvent(event, module, method)

    def unsubscribeToEvent(self, event: str, module: str) -> None:  # noqa: N802
        if not self._local.unsubscribe(event, module):
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
                 local: LocalSubscriptions) -> None:
        self._session = session
        self._context = context
        self._local = local

    def service(self, name: str) -> Any:
        if name in LOCAL_SERVICES:
            return self._context.frame_manager
        service = BoxService(self._session.service(name))
        return LocalMemory(service, self._local) if name == "ALMemory" else service

    def connect(self, url: str) -> Any:
        target = robot_url(self._context.session) if is_robot_itself(url) else None
        return self._session.connect(target or url)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)

    def __repr__(self) -> str:
        return "BoxSession(%r)" % (self._session,)


class _BoxQi(types.ModuleType):
    """``qi`` for box code: the real module's names, ``Session`` excepted."""

    _real: types.ModuleType

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def box_qi_module(real_qi: types.ModuleType, context: BehaviorContext,
                  local: LocalSubscriptions) -> types.ModuleType:
    """The ``qi`` module box code of one behavior imports."""
    module = type("qi", (_BoxQi,), {"_real": real_qi})("qi", real_qi.__doc__)

    def session() -> BoxSession:
        """A new qi session (``connect`` to the robot's own address reaches the robot)."""
        return BoxSession(real_qi.Session(), context, local)
    module.Session = session  # type: ignore[attr-defined]
    return module
