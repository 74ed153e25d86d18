"""What box scripts use of NAOqi's Python SDK module ``naoqi``, over a qi session.

:func:`naoqi_module` builds one ``naoqi`` module per behavior, bound to its session:

* ``ALProxy(name[, ip, port])`` (or ``ALProxy(name, True)``): the service ``name`` of the
  behavior's robot (the address arguments of old scripts are ignored: boxes run against
  the robot the behavior plays on); ``ALProxy("ALFrameManager")`` is the behavior's own
  frame manager.  ``proxy.post.method(args)`` starts the call in the background on the
  robot and returns its task id (NAOqi's ``pCall``); ``proxy.wait(id, timeout_ms)``,
  ``proxy.stop(id)`` and ``proxy.isRunning(id)`` are the module's own methods.
* ``ALModule(name)``: an object registered as service ``name`` on the session;
  ``ALMemory.subscribeToEvent(event, name, method)`` through ``ALProxy("ALMemory")`` with
  the name of such an object or of a box (``self.getName()``) calls it back in this
  process (NAOqi boxes were modules).
* ``ALBroker(...)``: accepted and inert (the session is the broker).
* ``ALBehavior``: the engine's box base class (``GeneratedClass``).
"""
from __future__ import annotations

import logging
import threading
import types
from typing import Any, Callable, Dict, Optional, Tuple

from naoqi_qicore.core.environment import BehaviorContext
from naoqi_qicore.core.generated import GeneratedClass
from naoqi_qicore.core.script import positional_arity

_LOG = logging.getLogger(__name__)
LOCAL_SERVICES = ("ALFrameManager",)


class _Post:
    """``proxy.post``: every method call starts in the background and returns a task id."""

    def __init__(self, service: Any) -> None:
        self._service = service

    def __getattr__(self, method: str) -> Callable[..., int]:
        def start(*args: Any) -> int:
            return int(self._service.pCall(method, *args))
        start.__name__ = method
        return start


class LocalSubscriptions:
    """ALMemory events delivered to objects of this process (boxes, ``ALModule`` objects):
    NAOqi called ``module.method(event, value, message)`` on them; here a memory
    subscriber calls it, each time in a thread of its own."""

    def __init__(self, context: BehaviorContext) -> None:
        self._context = context
        self._lock = threading.Lock()
        self.modules: Dict[str, Any] = {}
        self._links: Dict[Tuple[str, str], Tuple[Any, int]] = {}

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
        return True

    def unsubscribe(self, event: str, module: str) -> bool:
        with self._lock:
            entry = self._links.pop((event, module), None)
        if entry is None:
            return False
        subscriber, link = entry
        subscriber.signal.disconnect(link)
        return True


class _Memory:
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


class BaseProxy:
    """A NAOqi module of the robot as old scripts reach it."""

    _context: BehaviorContext
    _local: LocalSubscriptions

    def __init__(self, name: str, *address: Any) -> None:
        self._name = name
        if name in LOCAL_SERVICES:
            self._service = self._context.frame_manager
        elif name == "ALMemory":
            self._service = _Memory(self._context.session.service(name), self._local)
        else:
            self._service = self._context.session.service(name)
        self.post = _Post(self._service)

    def __getattr__(self, method: str) -> Any:
        if method.startswith("__"):
            raise AttributeError(method)
        return getattr(self._service, method)

    def __repr__(self) -> str:
        return "ALProxy(%r)" % self._name

    @staticmethod
    def initProxies() -> None:  # noqa: N802 (NAOqi name)
        """Old SDK start-up call; proxies are made on demand."""


class LazyProxy:
    """A global proxy of NAOqi's ``ALProxy.initProxies()`` (``ALMemory``, ``ALLeds``...),
    connected on first use so that a robot without the module only fails where it is used."""

    def __init__(self, proxy_class: type, name: str) -> None:
        self._proxy_class = proxy_class
        self._name = name
        self._proxy: Any = None

    def __getattr__(self, method: str) -> Any:
        if method.startswith("__"):
            raise AttributeError(method)
        if self._proxy is None:
            self._proxy = self._proxy_class(self._name)
        return getattr(self._proxy, method)


#: the globals NAOqi's ``ALProxy.initProxies()`` defined for box scripts
GLOBAL_PROXIES = ("ALMemory", "ALMotion", "ALLeds", "ALLogger", "ALSensors")


class BaseModule:
    """A Python object the robot can call back, registered under its name."""

    _context: BehaviorContext
    _local: LocalSubscriptions

    def __init__(self, name: str) -> None:
        self._module_name = name
        self._service_id = None
        self._local.modules[name] = self
        try:
            self._service_id = self._context.session.registerService(name, self)
        except Exception as error:  # already registered or no service directory
            _LOG.warning("ALModule(%r) could not be registered: %s", name, error)

    def getName(self) -> str:  # noqa: N802
        return self._module_name

    def exit(self) -> None:
        if self._service_id is not None:
            try:
                self._context.session.unregisterService(self._service_id)
            except Exception as error:  # the session may be closed
                _LOG.warning("ALModule(%r).exit: %s", self._module_name, error)
            self._service_id = None


class ALBroker:
    """Old scripts create a broker to reach the robot; the session already does."""

    def __init__(self, *args: Any) -> None:
        self.args = args

    def shutdown(self) -> None:
        """Nothing to shut down."""

    def getGlobalModuleList(self) -> list:  # noqa: N802
        return []


def global_proxies(proxy_class: type) -> Dict[str, LazyProxy]:
    """``ALMemory``, ``ALMotion``, ``ALLeds``... as old box scripts find them."""
    return {name: LazyProxy(proxy_class, name) for name in GLOBAL_PROXIES}


def naoqi_module(context: BehaviorContext) -> types.ModuleType:
    """A ``naoqi`` module bound to one behavior's session."""
    module = types.ModuleType("naoqi", __doc__)
    shared = {"_context": context, "_local": LocalSubscriptions(context)}
    bound: Dict[str, Any] = {
        "ALProxy": type("ALProxy", (BaseProxy,), shared),
        "ALModule": type("ALModule", (BaseModule,), shared),
        "ALBroker": ALBroker,
        "ALBehavior": GeneratedClass,
    }
    module.__dict__.update(bound)
    module.__all__ = sorted(bound)  # type: ignore[attr-defined]
    return module
