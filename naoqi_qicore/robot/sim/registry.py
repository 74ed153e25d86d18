"""The simulated robot's services stay its own in its libqi service directory.

libqi's service directory (``ServiceDirectory``, service #1 of a ``listenStandalone``
session, libqi 4.0 under qi 3.1.5) lets any client call ``unregisterService(id)`` on any
service: it checks neither which connection registered the service nor anything else, and
the Python binding offers no hook on the serving side (no service directory of one's own:
``listenStandalone`` always creates libqi's at #1; no server-side authentication or call
filter: only ``setClientAuthenticatorFactory``, for the client side).  So the call itself
cannot be refused.  Instead :class:`OwnServices` watches the directory: when one of the
robot's services is unregistered by anyone but the robot, the robot registers it again at
once under the same name (a new id), and a service that a client registered under one of
the robot's names meanwhile is removed first.  A client's own services (the modules boxes
register) are left alone.  Each repair is logged as a warning.
"""
from __future__ import annotations

import logging
import queue
import threading
from typing import Any, Dict, Optional

#: how many times a name is fought for before giving up until the next change
REPAIR_ATTEMPTS = 20


class OwnServices:
    """Registers the robot's service objects in ``session`` (a standalone one) and, from
    :meth:`watch` to :meth:`close`, keeps them registered under their names."""

    def __init__(self, session: Any, log: logging.Logger) -> None:
        self._session = session
        self._log = log
        self._lock = threading.Lock()
        self._objects: Dict[str, Any] = {}
        self._ids: Dict[str, int] = {}
        self._closed = False
        self._repairs: "queue.Queue[Optional[str]]" = queue.Queue()
        self._links: list = []
        self._worker: Optional[threading.Thread] = None

    def register(self, name: str, service: Any) -> None:
        """Register ``service`` as ``name`` (before :meth:`watch`)."""
        service_id = self._session.registerService(name, service)
        with self._lock:
            self._objects[name] = service
            self._ids[name] = service_id

    def withdraw(self, name: str) -> None:
        """Unregister the robot's service ``name`` for good (it is not registered again)."""
        with self._lock:
            self._objects.pop(name, None)
            service_id = self._ids.pop(name, None)
        if service_id is not None:
            self._session.unregisterService(service_id)

    def watch(self) -> None:
        """From now on, register again what a client unregisters."""
        self._worker = threading.Thread(target=self._repair_loop, daemon=True,
                                        name="naoqi_sim services")
        self._worker.start()
        self._links = [self._session.serviceUnregistered.connect(self._unregistered),
                       self._session.serviceRegistered.connect(self._registered)]

    def _unregistered(self, service_id: int, name: str) -> None:
        with self._lock:
            if self._closed or self._ids.get(name) != service_id:
                return
            del self._ids[name]
        self._log.warning("a client unregistered %s (#%d): registering it again", name,
                          service_id)
        self._repairs.put(name)

    def _registered(self, service_id: int, name: str) -> None:
        with self._lock:
            if self._closed or name not in self._objects or self._ids.get(name) == service_id:
                return
        self._repairs.put(name)

    def _repair_loop(self) -> None:
        while True:
            name = self._repairs.get()
            if name is None:
                return
            self._repair(name)

    def _repair(self, name: str) -> None:
        """Make ``name`` the robot's service again (a client's one under that name goes)."""
        directory = self._session.service("ServiceDirectory")
        for _ in range(REPAIR_ATTEMPTS):
            with self._lock:
                if self._closed:
                    return
                service = self._objects[name]
                current = self._ids.get(name)
            holders = [info["serviceId"] for info in self._session.services()
                       if info["name"] == name and info["serviceId"] != current]
            if current is not None and not holders:
                return
            for holder in holders:
                self._log.warning("a client registered %s (#%d), a service of the robot: "
                                  "removing it", name, holder)
                try:
                    directory.unregisterService(holder)
                except RuntimeError:
                    pass  # gone meanwhile
            if current is None:
                try:
                    service_id = self._session.registerService(name, service)
                except RuntimeError:
                    continue  # a client took the name again: once more
                with self._lock:
                    self._ids[name] = service_id
        self._log.warning("%s: still contested after %d attempts", name, REPAIR_ATTEMPTS)

    def close(self) -> None:
        """Stop watching (before the session closes and unregisters everything)."""
        with self._lock:
            self._closed = True
        for link, signal in zip(self._links, (self._session.serviceUnregistered,
                                              self._session.serviceRegistered)):
            try:
                signal.disconnect(link)
            except RuntimeError:
                pass
        self._repairs.put(None)
        if self._worker is not None:
            self._worker.join(5)
