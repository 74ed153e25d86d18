"""An HTTP server on 127.0.0.1 in which nothing piles up, for the pages nodes serve.

- At most ``max_connections`` connections are served at once, each by a thread of its
  own (long-lived event streams included, at most ``max_streams`` of them); one more is
  answered ``503`` and closed at once, without a thread.
- A client has ``request_timeout`` seconds to send its whole request (line, headers and
  body) and for each write of the answer; a connection still sending its request after
  that is closed.  The listen backlog is :data:`LISTEN_BACKLOG`.
- Every bad request is answered 4xx: an unknown path 404, a known path with another method
  405 (with ``Allow``), a body without length 411 or too long 413, a request line too long
  414, too many or too long headers 431, a malformed request, length or JSON body 400.
- A client leaving (broken pipe, connection reset, time-out) ends its connection without
  a word in the log; any other error is reported with its traceback.
- Requests whose ``Host`` is not the server's own address (``127.0.0.1:<port>`` or
  ``localhost:<port>``) are refused (403): a web page elsewhere cannot reach the server
  through a DNS name rebound to 127.0.0.1; so are requests other than GET and HEAD without
  this same origin in ``Origin`` (another site open in a browser cannot post to it).

What a server answers is a table of :class:`Route` (method, path, handler method) of a
:class:`RoutedHandler` subclass; an event stream is an :class:`EventStream` served by
:meth:`RoutedHandler.serve_events`.
"""
import json
import re
import select
import socket
import sys
import threading
import time
import traceback
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, Iterable, Optional, Tuple

#: connections served at once (event streams included)
MAX_CONNECTIONS = 64
#: event streams served at once (each also holds one of the connections)
MAX_STREAMS = 32
#: seconds for a client to send its request, and for each write of an answer
REQUEST_TIMEOUT = 10.0
#: connections the system keeps waiting for the server to accept them
LISTEN_BACKLOG = 128
#: largest request line (bytes)
MAX_REQUEST_LINE = 8192
#: largest request body (bytes)
MAX_BODY = 4096
#: bytes of a body too long read and dropped before answering 413, so that closing the
#: connection does not reset it before the client reads the answer
MAX_DISCARDED = 64 * 1024
#: seconds a body too long may pause while it is read and dropped
DISCARD_WAIT = 0.2
#: seconds between checks that the client of an idle event stream is still there
CLIENT_CHECK = 0.5
#: seconds between comments keeping an idle event stream open through proxies
KEEPALIVE = 10.0
#: the answer to a connection beyond ``max_connections``
BUSY_ANSWER = (b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
               b"Content-Length: 5\r\nRetry-After: 1\r\nConnection: close\r\n\r\nbusy\n")
#: a client leaving or stalling: the end of its connection, nothing to report
CLIENT_GONE = (ConnectionError, TimeoutError)

#: (name, value) of HTTP headers
Headers = Iterable[Tuple[str, str]]


class HttpError(Exception):
    """Raised by a handler: answer ``status`` with ``message`` (and ``headers``)."""

    def __init__(self, status: HTTPStatus, message: str, headers: Headers = ()) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = tuple(headers)


class Route:
    """A request served: ``method`` ("GET", which serves HEAD too, or "POST"...), ``path``
    (a regular expression the whole URL path must match; its groups are the arguments of
    the handler) and ``handler`` (the name of the handler's method)."""

    __slots__ = ("method", "pattern", "handler")

    def __init__(self, method: str, path: str, handler: str) -> None:
        self.method = method
        self.pattern = re.compile(path)
        self.handler = handler


class EventStream:
    """The newest event and its number; readers wait for a newer one (a slow reader skips
    to the newest: each event must be the whole state)."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._number = 0
        self._data = b""
        self.closed = False

    def push(self, data: bytes) -> None:
        """Make ``data`` the newest event."""
        with self._changed:
            self._number += 1
            self._data = data
            self._changed.notify_all()

    def newest(self) -> Tuple[int, bytes]:
        """(number, data) of the newest event."""
        with self._changed:
            return self._number, self._data

    def wait_newer(self, seen: int, timeout: float) -> Optional[Tuple[int, bytes]]:
        """The newest event once it is newer than ``seen``; None after ``timeout`` s or
        when the stream closes."""
        with self._changed:
            self._changed.wait_for(lambda: self._number > seen or self.closed, timeout)
            if self.closed or self._number <= seen:
                return None
            return self._number, self._data

    def close(self) -> None:
        """End the stream (its readers return)."""
        with self._changed:
            self.closed = True
            self._changed.notify_all()


class LoopbackHTTPServer(ThreadingHTTPServer):
    """Serves ``handler`` (a :class:`RoutedHandler` subclass) on ``127.0.0.1:port`` (0: a
    free port) within the bounds of the module doc, in a thread of its own from
    :meth:`start` to :meth:`close`.  ``log`` takes a line per request, ``report_error`` a
    handler's unexpected error with its traceback (default: standard error).  ``OSError``
    when the port cannot be had."""

    daemon_threads = True
    block_on_close = False  # close() ends the connections itself
    request_queue_size = LISTEN_BACKLOG

    def __init__(self, port: int, handler: type, name: str,
                 log: Callable[[str], None] = lambda line: None,
                 report_error: Optional[Callable[[str], None]] = None,
                 max_connections: int = MAX_CONNECTIONS, max_streams: int = MAX_STREAMS,
                 request_timeout: float = REQUEST_TIMEOUT) -> None:
        self.name = name
        self.log = log
        self.report_error = report_error or (lambda text: print(text, file=sys.stderr))
        self.max_connections = max_connections
        self.request_timeout = request_timeout
        #: one slot per event stream served at once
        self.stream_slots = threading.BoundedSemaphore(max_streams)
        #: connections being served -> when they must have sent their request (None: sent)
        self._connections: Dict[socket.socket, Optional[float]] = {}
        self._connections_lock = threading.Lock()
        self._thread: Optional[threading.Thread] = None
        super().__init__(("127.0.0.1", port), handler)
        self.port = self.server_address[1]
        #: Host headers accepted: this address and port, by number or as localhost
        self.hosts = ("127.0.0.1:%d" % self.port, "localhost:%d" % self.port)

    def start(self) -> None:
        """Serve in a daemon thread."""
        self._thread = threading.Thread(target=self.serve_forever, args=(0.2,), daemon=True,
                                        name=self.name)
        self._thread.start()

    def close(self) -> None:
        """Stop serving and close every connection (close the event streams first)."""
        if self._thread is not None:
            self.shutdown()
        with self._connections_lock:
            for connection in self._connections:
                _end(connection)
        self.server_close()
        if self._thread is not None:
            self._thread.join(5)

    @property
    def connection_count(self) -> int:
        """Connections being served now."""
        with self._connections_lock:
            return len(self._connections)

    # -- bounds ---------------------------------------------------------------------------
    def process_request(self, request: Any, client_address: Any) -> None:
        with self._connections_lock:
            busy = len(self._connections) >= self.max_connections
            if not busy:
                self._connections[request] = time.monotonic() + self.request_timeout
        if busy:
            try:
                request.send(BUSY_ANSWER, socket.MSG_DONTWAIT)
            except OSError:
                pass
            super().shutdown_request(request)
            return
        super().process_request(request, client_address)

    def request_read(self, connection: socket.socket) -> None:
        """``connection`` has sent its whole request: its time limit is lifted."""
        with self._connections_lock:
            if connection in self._connections:
                self._connections[connection] = None

    def service_actions(self) -> None:
        """Close the connections still sending their request after the time limit (the
        thread reading it sees the end of the request and ends)."""
        now = time.monotonic()
        with self._connections_lock:
            late = [connection for connection, deadline in self._connections.items()
                    if deadline is not None and now > deadline]
            for connection in late:
                _end(connection)
                self._connections[connection] = None

    def shutdown_request(self, request: Any) -> None:
        with self._connections_lock:  # not closed while service_actions ends it
            self._connections.pop(request, None)
            super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, CLIENT_GONE):
            return
        self.report_error("%s: error serving %s: %s" % (self.name, client_address[0],
                                                         traceback.format_exc().rstrip()))


def _end(connection: socket.socket) -> None:
    """Shut ``connection`` down both ways (a thread blocked on it returns)."""
    try:
        connection.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


class RoutedHandler(BaseHTTPRequestHandler):
    """One connection to a :class:`LoopbackHTTPServer`: one request, answered by the
    method its :attr:`routes` name, called with the groups of the path's match.  A handler
    answers with :meth:`answer`, :meth:`answer_json` or :meth:`serve_events`, or raises
    :class:`HttpError`; the request's body (at most :attr:`max_body` bytes) is
    :attr:`body`, read before the handler is called."""

    #: what the server answers (subclasses list their own)
    routes: Tuple[Route, ...] = ()
    #: headers sent with every answer
    answer_headers: Tuple[Tuple[str, str], ...] = ()
    #: largest body accepted (bytes)
    max_body = MAX_BODY
    server: LoopbackHTTPServer
    body = b""

    def setup(self) -> None:
        self.timeout = self.server.request_timeout
        super().setup()

    def log_message(self, format: str, *args: Any) -> None:
        line = format % args
        self.server.log("%s: %s %s" % (self.server.name, self.address_string(),
                                       line if len(line) <= 300 else line[:300] + "..."))

    def handle_one_request(self) -> None:
        """Read the request line and headers, then answer as :attr:`routes` say."""
        self.close_connection = True
        self.command = ""
        self.raw_requestline = self.rfile.readline(MAX_REQUEST_LINE + 1)
        if not self.raw_requestline:
            return
        if len(self.raw_requestline) > MAX_REQUEST_LINE:
            self.requestline, self.request_version = "", "HTTP/1.0"
            self.send_error(HTTPStatus.REQUEST_URI_TOO_LONG)
            return
        if not self.parse_request():  # it answered the error (400, 431, 505)
            return
        try:
            route, arguments = self._route()
            self.body = self._read_body()
            self.server.request_read(self.connection)
            getattr(self, route.handler)(*arguments)
        except HttpError as error:
            self.fail(error.status, error.message, error.headers)

    def _route(self) -> Tuple[Route, Tuple[str, ...]]:
        if self.headers.get("Host", "") not in self.server.hosts:
            raise HttpError(HTTPStatus.FORBIDDEN, "unknown host")
        path = self.path.split("?", 1)[0]
        method = "GET" if self.command == "HEAD" else self.command
        allowed = []
        for route in self.routes:
            match = route.pattern.fullmatch(path)
            if match is None:
                continue
            if route.method != method:
                allowed.append(route.method)
                continue
            if method != "GET" and self.headers.get("Origin") != "http://" + self.headers["Host"]:
                raise HttpError(HTTPStatus.FORBIDDEN, "%s takes same-origin requests only"
                                % method)
            return route, match.groups()
        if allowed:
            methods = sorted(set(allowed) | ({"HEAD"} if "GET" in allowed else set()))
            raise HttpError(HTTPStatus.METHOD_NOT_ALLOWED, "%s takes %s only"
                            % (_shown(path), ", ".join(methods)), [("Allow", ", ".join(methods))])
        raise HttpError(HTTPStatus.NOT_FOUND, "no such page: %s" % _shown(path))

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding") is not None:
            raise HttpError(HTTPStatus.LENGTH_REQUIRED, "send the body with a Content-Length")
        text = self.headers.get("Content-Length")
        if text is None:
            return b""
        if not re.fullmatch(r"[0-9]{1,18}", text.strip()):
            raise HttpError(HTTPStatus.BAD_REQUEST, "bad Content-Length")
        length = int(text)
        if length > self.max_body:
            self._discard(min(length, MAX_DISCARDED))
            raise HttpError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                            "the body is larger than %d bytes" % self.max_body)
        body = self.rfile.read(length)
        if len(body) < length:
            raise ConnectionAbortedError("the client left while sending its request")
        return body

    def _discard(self, length: int) -> None:
        """Read and drop up to ``length`` bytes the client is sending (what it sends more
        slowly than :data:`DISCARD_WAIT` s apart is left)."""
        self.connection.settimeout(DISCARD_WAIT)
        try:
            while length > 0:
                chunk = self.rfile.read1(min(length, 65536))
                if not chunk:
                    return
                length -= len(chunk)
        except TimeoutError:
            pass
        finally:
            self.connection.settimeout(self.server.request_timeout)

    def json_body(self) -> Any:
        """The request's body as JSON; HttpError 400 when it is not."""
        try:
            return json.loads(self.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as error:
            reason = "too deeply nested" if isinstance(error, RecursionError) else str(error)
            raise HttpError(HTTPStatus.BAD_REQUEST, "the body is not JSON: %s" % reason) from None

    # -- answers ---------------------------------------------------------------------------
    def answer(self, status: HTTPStatus, body: bytes, content_type: str,
               headers: Headers = ()) -> None:
        """Answer ``body`` (not sent to a HEAD request)."""
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in tuple(self.answer_headers) + tuple(headers):
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def answer_json(self, status: HTTPStatus, value: Any, headers: Headers = ()) -> None:
        """Answer ``value`` as JSON."""
        self.answer(status, json.dumps(value).encode("utf-8"), "application/json", headers)

    def error_value(self, message: str) -> Any:
        """The JSON answering an error (subclasses may shape it as their answers)."""
        return {"error": message}

    def fail(self, status: HTTPStatus, message: str, headers: Headers = ()) -> None:
        """Answer the error ``status`` with ``message``."""
        self.answer_json(status, self.error_value(message), headers)

    def send_error(self, code: int, message: Optional[str] = None,
                   explain: Optional[str] = None) -> None:
        """The errors of reading the request, answered as the others (with a status line
        even to what reads as an HTTP/0.9 request)."""
        status = HTTPStatus(code)
        self.close_connection = True
        if self.request_version == "HTTP/0.9":
            self.request_version = "HTTP/1.0"
        self.fail(status, message or status.phrase)

    def serve_events(self, stream: EventStream, event: str) -> None:
        """Server-sent events named ``event``: the newest of ``stream``, then each newer
        one, until the client leaves or the stream closes (503 when the server serves as
        many streams as it may)."""
        slots = self.server.stream_slots
        if not slots.acquire(blocking=False):
            raise HttpError(HTTPStatus.SERVICE_UNAVAILABLE, "too many event streams",
                            [("Retry-After", "1")])
        try:
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", "text/event-stream")
            for name, value in self.answer_headers:
                self.send_header(name, value)
            self.end_headers()
            if self.command == "HEAD":
                return
            seen, data = stream.newest()
            self.wfile.write(b"retry: 1000\n\n")
            prefix = b"event: " + event.encode("ascii") + b"\ndata: "
            self.wfile.write(prefix + data + b"\n\n")
            quiet_since = time.monotonic()
            while True:
                newer = stream.wait_newer(seen, CLIENT_CHECK)
                if stream.closed:
                    return
                if newer is not None:
                    seen, data = newer
                    self.wfile.write(prefix + data + b"\n\n")
                    quiet_since = time.monotonic()
                elif self._client_left():
                    return
                elif time.monotonic() - quiet_since >= KEEPALIVE:
                    self.wfile.write(b": keep-alive\n\n")
                    quiet_since = time.monotonic()
        finally:
            slots.release()

    def _client_left(self) -> bool:
        """True when the client closed its side (what it sends after its request, which
        it should not, is left unread)."""
        poller = select.poll()
        poller.register(self.connection, select.POLLIN)
        if not poller.poll(0):
            return False
        try:
            return self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True


def _shown(path: str) -> str:
    """``path`` as an answer quotes it (at most 200 characters)."""
    return path if len(path) <= 200 else path[:200] + "..."
