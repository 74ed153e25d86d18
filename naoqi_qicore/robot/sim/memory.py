"""Simulated ALMemory: data, events, micro events and their subscribers.

It holds from the start the keys NAOqi keeps for the robot (its devices, configuration and
modules' data, see :mod:`naoqi_qicore.robot.sim.memory_keys`); the joints' keys follow the
simulated body.

Every ``insertData``/``raiseEvent``/``raiseMicroEvent`` of a key stores its value and then
notifies, in order, from one dispatcher thread:

* the ``signal`` of every object ``subscriber(key)`` returned (local or remote clients);
* every ``subscribeToEvent``/``subscribeToMicroEvent`` subscription, by calling
  ``callback(key, value, message)`` on the named module (a simulated service or a service a
  client registered in the robot's service directory);
* the simulator's own in-process watchers (``_watch``: scenarios observing the robot, the
  services' signals that go with an event).
"""
from __future__ import annotations

import queue
import threading
import time
from typing import Any, Callable, Dict, List, Tuple, Union

import qi

from naoqi_qicore.robot.sim.memory_keys import RobotKeys
from naoqi_qicore.robot.sim.services.module import SimModule


class MemorySubscriber:
    """What ``ALMemory.subscriber(key)`` returns: ``signal`` fires with each new value.

    ``on_unused(self)`` is called when the last connection to ``signal`` goes away.
    """

    def __init__(self, key: str, on_unused: Callable[["MemorySubscriber"], None]) -> None:
        self.key = key
        self.signal = qi.Signal("(m)", lambda connected: None if connected else on_unused(self))


_Subscription = Tuple[str, str, str]  # module name, callback method name, message


class ALMemory(SimModule):
    """Keys with values, events with subscribers."""

    NAME = "ALMemory"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._robot_keys = RobotKeys(sim)
        self._data: Dict[str, Any] = dict(self._robot_keys.start)
        started = time.time()
        self._stamps: Dict[str, float] = dict.fromkeys(self._data, started)
        self._events: Dict[str, None] = {}  # declared or raised events, in order
        self._micro_events: Dict[str, None] = {}
        self._subscribers: Dict[str, List[MemorySubscriber]] = {}
        self._subscriptions: Dict[str, Dict[str, _Subscription]] = {}  # key -> module -> sub
        #: stored values to notify, in order, and in-process calls ordered after them
        self._notifications: "queue.Queue[Union[None, Tuple[str, Any], Callable[[], None]]]" \
            = queue.Queue()
        #: in-process observers of every stored value (the simulated robot's own tools)
        self._watchers: List[Callable[[str, Any], None]] = []
        self._dispatcher = threading.Thread(target=self._dispatch, name="sim-memory-events",
                                            daemon=True)
        self._dispatcher.start()

    # -- notification ---------------------------------------------------------------------
    def _store(self, key: str, value: Any) -> None:
        with self._lock:
            self._data[key] = value
            self._stamps[key] = time.time()
        self._notifications.put((key, value))

    def _dispatch(self) -> None:
        while True:
            item = self._notifications.get()
            if item is None:
                return
            if callable(item):
                try:
                    item()
                except Exception as error:
                    self._sim.log.warning("ALMemory: %s failed: %s", item, error)
                continue
            key, value = item
            with self._lock:
                signals = [s.signal for s in self._subscribers.get(key, ())]
                subscriptions = list(self._subscriptions.get(key, {}).values())
            for signal in signals:
                signal(value)
            for module, callback, message in subscriptions:
                try:
                    getattr(self._sim.service(module), callback)(key, value, message)
                except Exception as error:  # the subscriber's fault: keep serving the others
                    self._sim.log.warning("ALMemory: %s.%s(%r) failed: %s",
                                          module, callback, key, error)
            with self._lock:
                watchers = list(self._watchers)
            for watcher in watchers:
                try:
                    watcher(key, value)
                except Exception as error:
                    self._sim.log.warning("ALMemory: watcher of %r failed: %s", key, error)

    def _after_notifications(self, call: Callable[[], None]) -> None:
        """Call ``call()`` from the dispatcher thread once the watchers saw every value
        stored so far.  Not a NAOqi method: what another process says happened after the
        robot's events (a sentence it said) reaches the scenarios after them."""
        self._notifications.put(call)

    def _watch(self, watcher: Callable[[str, Any], None]) -> None:
        """Call ``watcher(key, value)`` after the subscribers of every stored value, from
        the dispatcher thread (it must return quickly).  Not a NAOqi method: the simulated
        robot's scenarios observe the robot this way."""
        with self._lock:
            self._watchers.append(watcher)

    def _unwatch(self, watcher: Callable[[str, Any], None]) -> None:
        """Stop calling ``watcher``."""
        with self._lock:
            if watcher in self._watchers:
                self._watchers.remove(watcher)

    def _listened(self, key: str) -> bool:
        """True when a client or module waits for ``key`` (a ``subscriber(key)`` object or
        a ``subscribeToEvent`` subscription)."""
        with self._lock:
            return bool(self._subscribers.get(key)) or bool(self._subscriptions.get(key))

    def _listened_keys(self) -> List[str]:
        """The keys a client or module waits for (see :meth:`_listened`)."""
        with self._lock:
            return sorted(key for key in set(self._subscribers) | set(self._subscriptions)
                          if self._subscribers.get(key) or self._subscriptions.get(key))

    # -- data -------------------------------------------------------------------------------
    def _value(self, key: str) -> Tuple[bool, Any]:
        """``(True, value)`` of ``key`` (stored, else a live key of the robot's body, read
        without the lock held: it asks ALMotion); ``(False, None)`` when it has none."""
        with self._lock:
            if key in self._data:
                return True, self._data[key]
        return self._robot_keys.value(key)

    def getData(self, key: str, deprecatedParameter: int = 0) -> Any:
        """The value of ``key``; an error when no value was ever stored."""
        found, value = self._value(key)
        if not found:
            raise self._error("getData", "Data not found for key '%s'" % key)
        return value

    def getListData(self, keyList: List[str]) -> List[Any]:
        """The values of ``keyList`` (None for keys without value)."""
        return [self._value(key)[1] for key in keyList]

    def getTimestamp(self, key: str) -> List[Any]:
        """``[value, seconds, microseconds]`` of the last time ``key`` was written (a live
        key: now)."""
        value = self.getData(key)
        with self._lock:
            stamp = self._stamps.get(key, time.time())
        return [value, int(stamp), int((stamp % 1.0) * 1e6)]

    def insertData(self, key: str, value: Any) -> None:
        """Store ``value`` under ``key`` (its subscribers are notified)."""
        self._store(key, value)

    def insertListData(self, list: List[List[Any]]) -> None:  # noqa: A002 (NAOqi's name)
        """Store each ``[key, value]`` pair."""
        for pair in list:
            if len(pair) != 2 or not isinstance(pair[0], str):
                raise self._error("insertListData", "expected [key, value] pairs, got %r"
                                  % (pair,))
        for key, value in list:
            self._store(key, value)

    def removeData(self, key: str) -> None:
        """Forget the value of ``key``."""
        with self._lock:
            self._data.pop(key, None)
            self._stamps.pop(key, None)

    def getDataList(self, filter: str) -> List[str]:  # noqa: A002 (NAOqi's name)
        """Keys containing ``filter``."""
        with self._lock:
            return sorted(key for key in set(self._data) | set(self._events)
                          | set(self._robot_keys.live()) if filter in key)

    def getDataListName(self) -> List[str]:
        """Every key."""
        return self.getDataList("")

    # -- events -----------------------------------------------------------------------------
    def declareEvent(self, eventName: str, extractorName: str = "") -> None:
        """Make ``eventName`` known (it appears in getEventList)."""
        with self._lock:
            self._events.setdefault(eventName, None)

    def raiseEvent(self, name: str, value: Any) -> None:
        """Store ``value`` under ``name`` and notify its subscribers."""
        with self._lock:
            self._events.setdefault(name, None)
        self._store(name, value)

    def raiseMicroEvent(self, name: str, value: Any) -> None:
        """Same as raiseEvent, for a micro event."""
        with self._lock:
            self._micro_events.setdefault(name, None)
        self._store(name, value)

    def removeEvent(self, name: str) -> None:
        """Forget the event ``name`` and its subscriptions."""
        with self._lock:
            self._events.pop(name, None)
            self._subscriptions.pop(name, None)

    def removeMicroEvent(self, name: str) -> None:
        """Forget the micro event ``name`` and its subscriptions."""
        with self._lock:
            self._micro_events.pop(name, None)
            self._subscriptions.pop(name, None)

    def getEventList(self) -> List[str]:
        """Events declared or raised so far."""
        with self._lock:
            return list(self._events)

    def getMicroEventList(self) -> List[str]:
        """Micro events raised so far."""
        with self._lock:
            return list(self._micro_events)

    # -- subscribers ------------------------------------------------------------------------
    @qi.bind(returnType=qi.Object)
    def subscriber(self, eventName: str) -> MemorySubscriber:
        """An object whose ``signal`` fires with every new value of ``eventName``."""
        subscriber = MemorySubscriber(eventName, self._forget_subscriber)
        with self._lock:
            self._subscribers.setdefault(eventName, []).append(subscriber)
        return subscriber

    def _forget_subscriber(self, subscriber: MemorySubscriber) -> None:
        with self._lock:
            subscribers = self._subscribers.get(subscriber.key, [])
            if subscriber in subscribers:
                subscribers.remove(subscriber)

    def _subscribe(self, method: str, name: str, module: str, message: str,
                   callback: str) -> None:
        if not module or not callback:
            raise self._error(method, "a module name and a callback method name are needed")
        with self._lock:
            self._subscriptions.setdefault(name, {})[module] = (module, callback, message)

    def subscribeToEvent(self, name: str, callbackModule: str, callbackMethod: str) -> None:
        """Call ``callbackModule.callbackMethod(name, value, "")`` on each new value."""
        self.declareEvent(name)
        self._subscribe("subscribeToEvent", name, callbackModule, "", callbackMethod)

    def subscribeToMicroEvent(self, name: str, callbackModule: str, callbackMessage: str,
                              callbackMethod: str) -> None:
        """Call ``callbackModule.callbackMethod(name, value, callbackMessage)`` on each value."""
        with self._lock:
            self._micro_events.setdefault(name, None)
        self._subscribe("subscribeToMicroEvent", name, callbackModule, callbackMessage,
                        callbackMethod)

    def _unsubscribe(self, method: str, name: str, module: str) -> None:
        with self._lock:
            if module not in self._subscriptions.get(name, {}):
                raise self._error(method, "module '%s' is not subscribed to '%s'"
                                  % (module, name))
            del self._subscriptions[name][module]

    def unsubscribeToEvent(self, name: str, callbackModule: str) -> None:
        """End a subscribeToEvent subscription."""
        self._unsubscribe("unsubscribeToEvent", name, callbackModule)

    def unsubscribeToMicroEvent(self, name: str, callbackModule: str) -> None:
        """End a subscribeToMicroEvent subscription."""
        self._unsubscribe("unsubscribeToMicroEvent", name, callbackModule)

    def getSubscribers(self, name: str) -> List[str]:
        """Modules subscribed to ``name`` with subscribeToEvent/subscribeToMicroEvent."""
        with self._lock:
            return sorted(self._subscriptions.get(name, {}))

    def close(self) -> None:
        """Stop the dispatcher thread after the notifications already queued."""
        super().close()
        self._notifications.put(None)
        if self._dispatcher is not threading.current_thread():
            self._dispatcher.join(2.0)
