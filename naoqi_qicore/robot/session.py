"""libqi connection to a robot (real or simulated) that survives the robot going away.

* :class:`RobotAddress` turns the usual parameters (``robot_url`` or ``nao_ip``,
  ``nao_port``, ``user``, ``password``) into a qi URL.  With a password the connection
  is ``tcps://IP:9503`` with credentials, as NAOqi 2.9 requires.
* :class:`RobotSession` owns one ``qi.Session``: it connects from a background thread
  with exponential back-off, notices the ``disconnected`` signal, reconnects the same
  session and calls its observers so that they fetch their services again and re-bind
  their signals and ALMemory subscribers (old proxies do not survive a reconnection).
  It warns when the connection is lost, and when an attempt fails: once per reason (again
  when it changes, or after the robot was reached), saying what to check
  (:func:`connection_hints`).  A robot that is starting (the simulated robot a launch
  starts beside the nodes, a robot booting) refuses connections for a while: within
  ``start_timeout`` s of :meth:`RobotSession.start`, refusals are only told once as
  information, and requests may :meth:`RobotSession.wait_started` for the robot.
* :func:`wait_for_services` waits for a robot that is starting to offer some services.
* :func:`bound_thread_pool` bounds libqi's thread pool of a process that calls the robot
  steadily (naoqi_bridge's joint readings).

Observers run in the session's own thread, never in a libqi callback thread.
"""
from __future__ import annotations

import enum
import logging
import os
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple
from urllib.parse import unquote, urlsplit

import qi

NAOQI_PORT = 9559
NAOQI_SECURE_PORT = 9503
#: seconds after a connection during which the services of a robot that is starting are
#: waited for
SERVICE_TIMEOUT = 10.0
#: a robot that registered no service for this long (s) is taken as started
SERVICES_SETTLED = 3.0
#: how often a service listed but not answering yet is tried again (s)
BINDING_POLL = 0.02

_LOG = logging.getLogger(__name__)


_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)[^/@\s]*@")
#: environment variable holding the robot's password (how it reaches a child process)
PASSWORD_ENV = "NAOQI_PASSWORD"


def strip_credentials(text: str) -> str:
    """``text`` with the ``user:password@`` of every URL in it removed."""
    return _USERINFO.sub(r"\g<scheme>", text)


def url_password(url: str) -> Tuple[str, str]:
    """``url`` without the password of its ``user:password@`` (the user is kept), and that
    password (unquoted; "" when there is none)."""
    found = _USERINFO.match(url)
    if found is None:
        return url, ""
    userinfo = url[found.end("scheme"):found.end() - 1]
    user, colon, password = userinfo.partition(":")
    if not colon:
        return url, ""
    kept = found.group("scheme") + (user + "@" if user else "")
    return kept + url[found.end():], unquote(password)


@dataclass(frozen=True)
class RobotAddress:
    """Where a robot listens, and the credentials it asks for (NAOqi 2.9)."""

    url: str
    user: str = ""
    password: str = field(default="", repr=False)

    @classmethod
    def from_parameters(cls, robot_url: str = "", nao_ip: str = "", nao_port: int = NAOQI_PORT,
                        user: str = "", password: str = "") -> "RobotAddress":
        """The address from node parameters: ``robot_url`` wins over ``nao_ip``/``nao_port``.

        With a password and no explicit URL the scheme is ``tcps`` and the default NAOqi
        port 9559 becomes 9503 (NAOqi 2.9).  Raises ``ValueError`` when neither
        ``robot_url`` nor ``nao_ip`` is given, or when the URL is malformed.
        """
        if robot_url:
            url = robot_url if "://" in robot_url else "tcp://" + robot_url
            parts = urlsplit(url)
            shown = strip_credentials(url)  # error messages never show a password
            if parts.scheme not in ("tcp", "tcps") or not parts.hostname:
                raise ValueError("robot_url %r is not a tcp:// or tcps:// URL with a host"
                                 % shown)
            try:
                port = parts.port
            except ValueError:
                raise ValueError("robot_url %r has an invalid port" % shown) from None
            # user:password@ in the URL: credentials of their own, never part of self.url
            if parts.username and not user:
                user = unquote(parts.username)
            if parts.password and not password:
                password = unquote(parts.password)
            host = parts.hostname if ":" not in parts.hostname else "[%s]" % parts.hostname
            if port is None:
                port = NAOQI_SECURE_PORT if parts.scheme == "tcps" else NAOQI_PORT
            return cls("%s://%s:%d" % (parts.scheme, host, port), user, password)
        if not nao_ip:
            raise ValueError("no robot given: set robot_url or nao_ip")
        if not 0 < int(nao_port) < 65536:
            raise ValueError("nao_port %r is not a TCP port" % nao_port)
        if password:
            port = NAOQI_SECURE_PORT if int(nao_port) == NAOQI_PORT else int(nao_port)
            return cls("tcps://%s:%d" % (nao_ip, port), user or "nao", password)
        return cls("tcp://%s:%d" % (nao_ip, int(nao_port)), user, password)


def connection_hints(address: RobotAddress) -> str:
    """What to check when ``address`` cannot be reached: the scheme (and why it is
    ``tcps``), the port, the host, the credentials."""
    parts = urlsplit(address.url)
    hints = []
    if parts.scheme == "tcps":
        why = "because a password was given" if address.password else "as robot_url says"
        hints.append("tcps (TLS, NAOqi 2.9) is used %s: a robot with an older NAOqi, or a "
                     "simulated robot, speaks tcp on port %d (give no password, or a "
                     "tcp:// robot_url)" % (why, NAOQI_PORT))
    hints.append("that NAOqi listens on port %s of %s (%d for tcp, %d for tcps)"
                 % (parts.port, parts.hostname, NAOQI_PORT, NAOQI_SECURE_PORT))
    hints.append("that %s is the robot's address and can be reached from here"
                 % parts.hostname)
    if address.password:
        hints.append("the user name (%s) and password" % (address.user or "nao"))
    return "Check " + "; ".join(hints) + "."


class _Authenticator:
    """Answers libqi's authentication handshake with a user and a password."""

    def __init__(self, user: str, password: str) -> None:
        self._user = user
        self._password = password

    def initialAuthData(self) -> Dict[str, str]:  # noqa: N802 (libqi's name)
        return {"user": self._user, "token": self._password}


class _AuthenticatorFactory:
    """What ``qi.Session.setClientAuthenticatorFactory`` takes."""

    def __init__(self, user: str, password: str) -> None:
        self._user = user
        self._password = password

    def newAuthenticator(self) -> _Authenticator:  # noqa: N802 (libqi's name)
        return _Authenticator(self._user, self._password)


class ConnectionState(enum.IntEnum):
    """State of a :class:`RobotSession` (values match ``RobotConnection.msg``)."""

    DISCONNECTED = 0
    CONNECTING = 1
    CONNECTED = 2


def robot_may_be_starting(error: str) -> bool:
    """Whether a failed connection attempt is what a robot that is starting answers: the
    connection refused (nothing listens on its port yet), rather than a wrong address,
    scheme or credentials."""
    return "connection refused" in error.lower()


def _answering(session: Any, names: Sequence[str]) -> List[str]:
    """The services of ``names`` whose object answers (its proxy can be had).

    libqi lists a service once it is registered, and binds its object to the robot's
    connections a moment later: a call in between gets "The call request could not be
    handled"."""
    answering = []
    for name in names:
        try:
            session.service(name)
        except RuntimeError:
            continue
        answering.append(name)
    return answering


def wait_for_services(session: Any, names: Sequence[str], timeout: float,
                      settled: float = SERVICES_SETTLED) -> List[str]:
    """Wait until the robot of ``session`` offers every service of ``names``, each listed
    and answering: at most ``timeout`` s, and no longer than ``settled`` s without the
    robot registering a service (a robot that is starting registers them one after the
    other; one that registers none any more has started: what it lacks then, it does not
    have).  The names it still does not offer (all of them when the connection is gone)."""
    changed = threading.Condition()
    registrations = [0, time.monotonic()]  # how many seen, when the last one came

    def registered(*service: Any) -> None:
        with changed:
            registrations[0] += 1
            registrations[1] = time.monotonic()
            changed.notify_all()
    link = session.serviceRegistered.connect(registered)
    answering: Set[str] = set()
    try:
        deadline = time.monotonic() + timeout
        while True:
            with changed:
                seen = registrations[0]
            try:
                offered = {str(info["name"]) for info in session.services()}
            except RuntimeError:  # the connection is gone
                return list(names)
            listed = [name for name in names if name in offered and name not in answering]
            answering.update(_answering(session, listed))
            missing = [name for name in names if name not in answering]
            bound_soon = any(name in offered for name in missing)
            with changed:
                now = time.monotonic()
                until = min(deadline, registrations[1] + settled)
                if not missing or now >= until:
                    return missing
                if registrations[0] == seen:
                    # a service listed but not answering yet is bound without a signal
                    changed.wait(min(BINDING_POLL, until - now) if bound_soon else until - now)
    finally:
        try:
            session.serviceRegistered.disconnect(link)
        except RuntimeError:  # the session is closed
            pass


#: libqi's environment variable bounding its thread pool, read when the process's first
#: session starts libqi's event loop
MAX_THREADS_ENV = "QI_EVENTLOOP_MAX_THREADS"


def bound_thread_pool(max_threads: int) -> None:
    """Keep libqi's thread pool of this process to at most ``max_threads`` threads (unless
    :data:`MAX_THREADS_ENV` is set already); call it before the first ``qi.Session``.

    libqi adds a thread each time its pool stays busy for half a second (callbacks waiting
    for Python's lock on a loaded machine), and ends a thread once it ran no task for 5 s.
    A process calling the robot all the time (joint readings: 150 calls a second) gives
    every thread a task more often than that, so the threads a burst added never end: a
    long-running node keeps a bound instead.
    """
    if max_threads < 1:
        raise ValueError("libqi needs at least one thread, got %r" % max_threads)
    os.environ.setdefault(MAX_THREADS_ENV, str(max_threads))


ConnectedCallback = Callable[[qi.Session], None]
StateCallback = Callable[[ConnectionState, str], None]


class RobotSession:
    """A ``qi.Session`` that connects with back-off and reconnects after a disconnection.

    ``on_connected(session)`` callbacks run after every (re)connection: fetch services and
    connect signals there.  ``warn(message)`` (default: this module's logger) is told
    when the robot cannot be reached, once per reason, with what to check.  A robot (or simulator) that has just started registers its
    services one after the other: the callbacks run once ``required_services`` are all
    registered, or after ``service_timeout`` s without them, or once it registered none for
    :data:`SERVICES_SETTLED` s (then a warning is logged and the callbacks see the robot as
    it is); :meth:`wait_for_services` waits the same way for more of them, within the same
    ``service_timeout`` s after each connection.  ``on_state(state,
    message)`` callbacks run on every change of :attr:`state`; ``message`` tells why the
    connection is down.
    """

    def __init__(self, address: RobotAddress, *, first_retry_delay: float = 0.05,
                 max_retry_delay: float = 2.0, connect_timeout: float = 5.0,
                 required_services: Sequence[str] = (),
                 service_timeout: float = SERVICE_TIMEOUT,
                 start_timeout: float = 0.0,
                 warn: Callable[[str], None] = _LOG.warning,
                 inform: Callable[[str], None] = _LOG.info) -> None:
        self.address = address
        self._warn = warn
        self._inform = inform
        #: the failure last warned about, "" once connected
        self._warned = ""
        self._start_timeout = start_timeout
        #: monotonic time of start(), None before
        self._started_at: Optional[float] = None
        #: the robot cannot be taken for one that is starting any more: connected once,
        #: or an attempt failed otherwise than refused
        self._start_over = False
        self._told_waiting = False
        self.required_services = tuple(required_services)
        self._service_timeout = service_timeout
        self.session = qi.Session()
        if address.password:
            self.session.setClientAuthenticatorFactory(
                _AuthenticatorFactory(address.user or "nao", address.password))
        self._first_retry_delay = first_retry_delay
        self._max_retry_delay = max_retry_delay
        self._connect_timeout_ms = int(connect_timeout * 1000)
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._state = ConnectionState.DISCONNECTED
        self._message = "not connected yet"
        self._lost = False
        self._disconnect_reason = ""
        self._closing = False
        self._services: Dict[str, Any] = {}
        #: monotonic time of the last connection
        self._connected_at = 0.0
        self._on_connected: List[ConnectedCallback] = []
        self._on_state: List[StateCallback] = []
        self._thread: Optional[threading.Thread] = None
        self.session.disconnected.connect(self._on_disconnected_signal)

    @property
    def url(self) -> str:
        """The robot URL (credentials are never part of it)."""
        return self.address.url

    @property
    def state(self) -> ConnectionState:
        return self._state

    @property
    def message(self) -> str:
        """Why the connection is down ("" when connected)."""
        return self._message

    @property
    def connected(self) -> bool:
        return self._state == ConnectionState.CONNECTED

    def add_connected_callback(self, callback: ConnectedCallback) -> None:
        """Call ``callback(session)`` after every connection; add callbacks before :meth:`start`."""
        with self._lock:
            self._on_connected.append(callback)

    def add_state_callback(self, callback: StateCallback) -> None:
        """Call ``callback(state, message)`` on every state change."""
        with self._lock:
            self._on_state.append(callback)

    def start(self) -> "RobotSession":
        """Start connecting (and reconnecting) in the background; returns self."""
        with self._lock:
            if self._thread is None:
                self._started_at = time.monotonic()
                self._thread = threading.Thread(target=self._run, daemon=True,
                                                name="robot-session " + self.url)
                self._thread.start()
        return self

    def wait_connected(self, timeout: Optional[float] = None) -> bool:
        """Block until connected (and observers ran) or ``timeout`` s; True if connected."""
        with self._wake:
            return self._wake.wait_for(
                lambda: self._state == ConnectionState.CONNECTED or self._closing, timeout
            ) and self._state == ConnectionState.CONNECTED

    def _starting(self) -> bool:
        """Whether the robot may still be starting: within ``start_timeout`` s of
        :meth:`start`, never connected, and every attempt refused so far."""
        return (self._started_at is not None and not self._start_over
                and time.monotonic() < self._started_at + self._start_timeout)

    def wait_started(self) -> bool:
        """Wait for the connection while the robot may still be starting (at most until
        ``start_timeout`` s after :meth:`start`); True when connected.  A request that needs
        the robot calls it first, so that it fails only once the robot is late."""
        with self._wake:
            if self._started_at is None:
                return False
            self._wake.wait_for(lambda: self._state == ConnectionState.CONNECTED
                                or self._closing or not self._starting(),
                                max(0.0, self._started_at + self._start_timeout
                                    - time.monotonic()))
            return self._state == ConnectionState.CONNECTED

    def service(self, name: str) -> Any:
        """A proxy to service ``name``, cached until the next disconnection."""
        proxy = self._services.get(name)
        if proxy is None:
            if not self.connected:
                raise RuntimeError("robot %s not connected: %s" % (self.url, self._message))
            proxy = self.session.service(name)
            self._services[name] = proxy
        return proxy

    def wait_for_services(self, names: Sequence[str]) -> List[str]:
        """Wait until the robot offers the services ``names``, at most until
        ``service_timeout`` s after the connection; the names it still does not offer (a
        warning says which)."""
        left = self._service_timeout - (time.monotonic() - self._connected_at)
        missing = wait_for_services(self.session, names, max(0.0, left))
        if missing:
            _LOG.warning("robot %s does not offer %s (%.0f s after connecting)", self.url,
                         ", ".join(missing), time.monotonic() - self._connected_at)
        return missing

    def close(self) -> None:
        """Disconnect and stop reconnecting."""
        with self._wake:
            self._closing = True
            self._wake.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=self._connect_timeout_ms / 1000 + 2)
        self._services.clear()
        try:
            self.session.close()
        except RuntimeError:
            pass

    # -- internals -------------------------------------------------------------------------
    def _on_disconnected_signal(self, reason: Any) -> None:
        with self._wake:
            self._lost = True
            self._disconnect_reason = str(reason or "disconnected")
            self._wake.notify_all()

    def _set_state(self, state: ConnectionState, message: str) -> None:
        message = strip_credentials(message)
        with self._wake:
            changed = (state, message) != (self._state, self._message)
            self._state, self._message = state, message
            callbacks = list(self._on_state)
            self._wake.notify_all()
        if changed:
            for callback in callbacks:
                self._call(callback, state, message)

    @staticmethod
    def _call(callback: Callable, *args: Any) -> None:
        try:
            callback(*args)
        except Exception:  # an observer's failure must not stop reconnections
            _LOG.exception("robot session observer %r failed", callback)

    def _connect_once(self) -> Optional[str]:
        """Try to connect; None on success, else the error text."""
        try:
            future = self.session.connect(self.url, _async=True)
            future.value(self._connect_timeout_ms)
        except RuntimeError as error:
            return str(error) or type(error).__name__
        if not self.session.isConnected():
            return "connection to %s timed out" % self.url
        return None

    def _warn_failure(self, error: str) -> None:
        """Warn about a failed attempt, unless the last warning gave the same reason, or the
        robot may still be starting (then it is told once as information)."""
        if not robot_may_be_starting(error):
            with self._wake:
                self._start_over = True
                self._wake.notify_all()
        if self._starting():
            if not self._told_waiting:
                self._told_waiting = True
                self._inform("waiting for the robot at %s to accept connections (%s); a "
                             "warning follows if it does not within %g s"
                             % (self.url, error, self._start_timeout))
            return
        if error == self._warned:
            return
        self._warned = error
        waited = ""
        if self._told_waiting and not self._start_over:
            waited = " (waited %g s for it to start)" % self._start_timeout
        self._warn("cannot connect to the robot at %s%s: %s; retrying every %g s at most. %s"
                   % (self.url, waited, error, self._max_retry_delay,
                      connection_hints(self.address)))

    def _run(self) -> None:
        delay = self._first_retry_delay
        # CONNECTING until the first connection, DISCONNECTED while retrying after a loss.
        retrying = ConnectionState.CONNECTING
        lost = ""  # why the last connection ended, kept in the message while retrying
        while not self._closing:
            self._set_state(retrying, self._message)
            with self._lock:
                self._lost = False
            error = self._connect_once()
            if error is not None:
                self._warn_failure(strip_credentials(error))
                self._set_state(retrying, "%s; retrying: %s" % (lost, error) if lost else error)
                with self._wake:
                    self._wake.wait_for(lambda: self._closing, delay)
                delay = min(delay * 2, self._max_retry_delay)
                continue
            delay = self._first_retry_delay
            self._services.clear()
            self._connected_at = time.monotonic()
            self.wait_for_services(self.required_services)
            with self._lock:
                callbacks = list(self._on_connected)
            for callback in callbacks:
                self._call(callback, self.session)
            if self._lost or not self.session.isConnected():
                continue  # lost during re-binding: start over
            self._warned = ""
            self._start_over = True
            self._set_state(ConnectionState.CONNECTED, "")
            with self._wake:
                self._wake.wait_for(lambda: self._lost or self._closing)
                reason = self._disconnect_reason
            self._services.clear()
            if not self._closing:
                retrying = ConnectionState.DISCONNECTED
                lost = "robot %s lost: %s" % (self.url, reason)
                self._warn(lost + "; reconnecting")
                # libqi may fail the first attempt with the lost connection's own end
                # ("disconnected"): the user was just told that, the next attempt says why
                # the robot cannot be reached (e.g. connection refused)
                self._warned = reason
                self._set_state(retrying, lost)
        self._set_state(ConnectionState.DISCONNECTED, "closed")
