"""What box scripts use of NAOqi's Python SDK module ``naoqi``, over a qi session.

:func:`naoqi_module` builds one ``naoqi`` module per behavior, bound to its session:

* ``ALProxy(name[, ip, port])`` (or ``ALProxy(name, True)``): the service ``name`` of the
  behavior's robot (the address arguments of old scripts are ignored: boxes run against
  the robot the behavior plays on); ``ALProxy("ALFrameManager")`` is the behavior's own
  frame manager.  ``proxy.post.method(args)`` starts the call in the background on the
  robot and returns its task id (NAOqi's ``pCall``); ``proxy.wait(id, timeout_ms)``,
  ``proxy.stop(id)`` and ``proxy.isRunning(id)`` are the module's own methods.
* ``ALModule(name)``: an object registered as service ``name`` on the session;
  ``ALMemory.subscribeToEvent(event, name, method)`` with the name of such an object or
  of a box (``self.getName()``) calls it back in this process (NAOqi boxes were modules;
  see :mod:`~naoqi_qicore.robot.naoqi_compat.box_session`).
* ``ALBroker(...)``: accepted and inert (the session is the broker).
* ``ALBehavior``: the engine's box base class (``GeneratedClass``).
"""
from __future__ import annotations

import logging
import types
from typing import Any, Callable, Dict

from naoqi_qicore.core.environment import BehaviorContext
from naoqi_qicore.core.generated import GeneratedClass
from naoqi_qicore.robot.naoqi_compat.box_session import BoxSession, LocalSubscriptions

_LOG = logging.getLogger(__name__)


class _Post:
    """``proxy.post``: every method call starts in the background and returns a task id."""

    def __init__(self, service: Any) -> None:
        self._service = service

    def __getattr__(self, method: str) -> Callable[..., int]:
        def start(*args: Any) -> int:
            return int(self._service.pCall(method, *args))
        start.__name__ = method
        return start


class BaseProxy:
    """A NAOqi module of the robot as old scripts reach it."""

    _session: BoxSession

    def __init__(self, name: str, *address: Any) -> None:
        self._name = name
        self._service = self._session.service(name)
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


def naoqi_module(context: BehaviorContext, session: BoxSession,
                 local: LocalSubscriptions) -> types.ModuleType:
    """A ``naoqi`` module bound to one behavior's session (as box code sees it)."""
    module = types.ModuleType("naoqi", __doc__)
    bound: Dict[str, Any] = {
        "ALProxy": type("ALProxy", (BaseProxy,), {"_session": session}),
        "ALModule": type("ALModule", (BaseModule,), {"_context": context, "_local": local}),
        "ALBroker": ALBroker,
        "ALBehavior": GeneratedClass,
    }
    module.__dict__.update(bound)
    module.__all__ = sorted(bound)  # type: ignore[attr-defined]
    return module
