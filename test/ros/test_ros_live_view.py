"""The live view of behavior_runner: its HTTP server in-process (fake controls), then the
real runner serving it on loopback, and its page in a real headless browser (chromium,
driven over the DevTools protocol)."""
import http.client
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest

from naoqi_qicore.converter.naming import assign_names
from naoqi_qicore.msg import ActivityFocus, BehaviorError, BehaviorState
from naoqi_qicore.ros.launcher import free_tcp_port, python_program
from naoqi_qicore.ros.live_view import LiveView, fetch_state, objects_by_path
from naoqi_qicore.xar.parser import parse_xar_bytes, parse_xar_file

from live_view_client import EventReader, post, request, start_runner
from process_tools import kill_processes, wait_until

pytestmark = pytest.mark.long_running(minutes=1)

REPO = Path(__file__).resolve().parents[2]
LABELS = [{"label": "Hello", "frame": 1}, {"label": "Wave", "frame": 30},
          {"label": "Skip", "frame": 70}, {"label": "Bow", "frame": 90}]


# -- in-process: the server with fake controls --------------------------------------------
class Answer:
    def __init__(self, success: bool, message: str) -> None:
        self.success, self.message = success, message


@pytest.fixture
def wave_hello_model(example_behavior):
    return parse_xar_file(example_behavior)


def controls_recording(calls: List[Tuple[str, str]]) -> Dict[str, Any]:
    """Controls of a LiveView that record their calls."""
    def control(name: str):
        return lambda label: calls.append((name, label)) or Answer(True, "did " + name)
    return {name: control(name) for name in ("play", "pause", "resume", "stop", "goto")}


@pytest.fixture
def view(wave_hello_model) -> Iterator[Tuple[LiveView, List[Tuple[str, str]]]]:
    """A LiveView on a free port whose controls record their calls."""
    calls: List[Tuple[str, str]] = []
    live = LiveView(0, controls_recording(calls))
    live.show_behavior("wave_hello", wave_hello_model)
    yield live, calls
    live.close()


def test_box_paths_name_every_box_and_shared_paths_name_them_all(example_behavior) -> None:
    model = parse_xar_file(example_behavior)
    objects = objects_by_path(model, assign_names(model))
    assert objects == {"root": ["l0_root"], "root/Say Hello": ["l1_Say_Hello"],
                       "root/Mark Wave": ["l1_Mark_Wave"], "root/Skip To Bow": ["l1_Skip_To_Bow"],
                       "root/Mark Bow": ["l1_Mark_Bow"], "root/Say Goodbye": ["l1_Say_Goodbye"]}
    twice = example_behavior.read_bytes().replace(b'name="Mark Bow"', b'name="Mark Wave"')
    model = parse_xar_bytes(twice)
    assert objects_by_path(model, assign_names(model))["root/Mark Wave"] == [
        "l1_Mark_Wave", "l1_Mark_Wave_1"]


def test_the_page_and_its_files_are_served_with_a_strict_policy(view) -> None:
    live, _ = view
    status, headers, body = request(live.port, "GET", "/")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert b'id="stop"' in body and b'src="/live_view.js"' in body
    assert "default-src 'self'" in headers["Content-Security-Policy"]
    assert headers["X-Frame-Options"] == "DENY"
    for path, kind in (("/live_view.js", "text/javascript"), ("/live_view.css", "text/css")):
        status, headers, body = request(live.port, "GET", path)
        assert status == 200 and headers["Content-Type"].startswith(kind) and body
    assert request(live.port, "GET", "/etc/passwd")[0] == 404
    assert live.url == "http://127.0.0.1:%d/" % live.port


@pytest.mark.parametrize("host", ["evil.example:80", "127.0.0.1:1", "", "127.0.0.2:{port}"])
def test_a_foreign_host_is_refused(view, host: str) -> None:
    live, calls = view
    host = host.format(port=live.port)
    assert request(live.port, "GET", "/", {"Host": host})[0] == 403
    assert request(live.port, "GET", "/events", {"Host": host})[0] == 403
    status, _, _ = request(live.port, "POST", "/control/play",
                           {"Host": host, "Origin": "http://" + host}, b"{}")
    assert status == 403 and calls == []
    assert request(live.port, "GET", "/", {"Host": "localhost:%d" % live.port})[0] == 200


def test_controls_need_a_same_origin_request(view) -> None:
    live, calls = view
    assert post(live.port, "stop", origin=None)[0] == 403
    assert post(live.port, "stop", origin="http://evil.example")[0] == 403
    assert post(live.port, "stop", origin="http://127.0.0.1:%d" % (live.port + 1))[0] == 403
    assert calls == []
    assert post(live.port, "stop") == (200, {"success": True, "message": "did stop"})
    assert post(live.port, "goto", {"label": "Wave"}) == (200, {"success": True,
                                                                 "message": "did goto"})
    assert calls == [("stop", ""), ("goto", "Wave")]


@pytest.mark.parametrize("body", [b"", b"not json", b'{"label": ""}', b'{"label": 3}',
                                  b'["Wave"]', b"{}"])
def test_goto_without_a_label_is_refused(view, body: bytes) -> None:
    live, calls = view
    status, _, answer = request(live.port, "POST", "/control/goto",
                                {"Origin": "http://127.0.0.1:%d" % live.port}, body)
    assert status == 400 and json.loads(answer)["success"] is False
    assert post(live.port, "rewind")[0] == 404
    assert calls == []


def test_the_stream_sends_the_current_state_then_each_change(view) -> None:
    live, _ = view
    events = EventReader(live.port)
    try:
        first = events.next()
        assert first["behavior"] == "" and first["focus"]["focused_activity"] == ""
        assert first["diagram"] == 1
        state = BehaviorState(behavior="wave_hello", status=BehaviorState.PLAYING, frame=12,
                              fps=25.0, states=["Hello"], active_boxes=["root/Say Hello"],
                              error_count=1, last_error="boom")
        state.errors = [BehaviorError(box_path="root/Say Hello", where="onStart",
                                      exception_type="RuntimeError", message="boom",
                                      traceback="Traceback: /secret/path")]
        live.engine_event("status", "root", "PLAYING")
        live.engine_event("box_started", "root/Say Hello", "onStart")
        live.show_state(state, None)
        event = events.next()
        assert event["status"] == "PLAYING" and event["frame"] == 12
        assert event["labels"] == ["Hello"] and event["active_boxes"] == ["root/Say Hello"]
        assert event["ran_objects"] == ["l1_Say_Hello"]
        assert event["errors"] == [{"box_path": "root/Say Hello", "objects": ["l1_Say_Hello"],
                                    "where": "onStart", "exception_type": "RuntimeError",
                                    "message": "boom"}]
        assert "/secret/path" not in json.dumps(event)  # no traceback
        live.show_focus(ActivityFocus(focused_activity="naoqi_qicore/wave_hello",
                                      previous_activity="other",
                                      start_reason="unknown-api-caller",
                                      changed_by="/behavior_runner", change_call="switchFocus",
                                      focus_stack=["other"]))
        event = events.next()
        assert event["focus"]["focused_activity"] == "naoqi_qicore/wave_hello"
        assert event["focus"]["focus_stack"] == ["other"] and event["status"] == "PLAYING"
        assert event["focus"]["details"] == [  # the page shows these beside the activity
            "previous other", "started by /behavior_runner (switchFocus)", "stack other"]
        assert fetch_state(live.port)["focus"] == event["focus"]  # a new stream: the newest
    finally:
        events.close()


def test_boxes_that_ran_are_kept_until_the_next_run(view) -> None:
    live, _ = view
    state = BehaviorState(behavior="wave_hello", status=BehaviorState.PLAYING)
    for kind, path, detail in (("status", "root", "PLAYING"), ("box_started", "root/Say Hello", ""),
                               ("status", "root", "PAUSED"), ("status", "root", "PLAYING"),
                               ("box_started", "root/Mark Wave", "")):
        live.engine_event(kind, path, detail)
    live.show_state(state, None)
    assert fetch_state(live.port)["ran_boxes"] == ["root/Mark Wave", "root/Say Hello"]
    live.engine_event("status", "root", "STOPPED")
    live.engine_event("status", "root", "PLAYING")  # a new run
    live.show_state(state, None)
    assert fetch_state(live.port)["ran_objects"] == []


def test_the_diagram_pages_carry_the_box_ids(view) -> None:
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed (.setup/test-tools.sh installs it)")
    live, _ = view
    status, _, body = request(live.port, "GET", "/pages")
    assert status == 200
    assert json.loads(body) == {
        "behavior": "wave_hello", "diagram": 1,
        "pages": [{"name": "root", "object": "l0_root", "title": "root", "path": "root",
                   "parent": -1, "timeline": {"plays": True, "fps": 25.0, "frame_count": 120, "states": 4,
                                "labels": LABELS}}],
        "boxes": {name: [0, -1] for name in ("l1_Say_Hello", "l1_Mark_Wave", "l1_Skip_To_Bow",
                                              "l1_Mark_Bow", "l1_Say_Goodbye")}}
    status, headers, svg = request(live.port, "GET", "/pages/0.svg")
    assert status == 200 and headers["Content-Type"] == "image/svg+xml"
    assert b'id="box-l1_Say_Hello"' in svg and b'id="state-l0_root-1"' in svg
    assert request(live.port, "GET", "/pages/1.svg")[0] == 404


# -- bounds, bad requests, clients that leave ---------------------------------------------
@pytest.fixture
def bounded_view(wave_hello_model) -> Iterator[LiveView]:
    """A LiveView with small bounds: 8 connections, 3 event streams, 1 s per request."""
    live = LiveView(0, controls_recording([]), max_connections=8, max_streams=3,
                    request_timeout=1.0)
    live.show_behavior("wave_hello", wave_hello_model)
    yield live
    live.close()


def half_open(port: int, count: int) -> List[socket.socket]:
    """``count`` connections that send half a request and wait."""
    connections = []
    for _ in range(count):
        connection = socket.create_connection(("127.0.0.1", port), timeout=10)
        connection.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port)
        connections.append(connection)
    return connections


def closed_by_server(connection: socket.socket) -> bool:
    """True once the server closed ``connection`` (what it answered is read and dropped)."""
    connection.setblocking(False)
    try:
        while True:
            if connection.recv(4096) == b"":
                return True
    except BlockingIOError:
        return False
    except ConnectionError:
        return True


def raw_answer(port: int, data: bytes) -> bytes:
    """What the server answers to the bytes ``data`` (until it closes)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(data)
        answer = b""
        while True:
            chunk = connection.recv(65536)
            if not chunk:
                return answer
            answer += chunk


def test_half_open_connections_are_bounded_and_dropped_after_the_time_limit(bounded_view):
    """1,500 half-sent requests held a thread each, for ever: now at most 8 connections
    are served at once, the others answered 503 at once, and each is closed once it has
    taken the time limit (1 s here) without sending its whole request."""
    import threading
    live = bounded_view
    threads = threading.active_count()
    waiting = half_open(live.port, 100)
    try:
        wait_until(lambda: sum(closed_by_server(c) for c in waiting) >= 92, 10,
                   "the connections beyond the 8 first answered and closed")
        assert threading.active_count() <= threads + 8
        assert live.server.connection_count <= 8
        assert raw_answer(live.port, b"GET / HTTP/1.0\r\n\r\n").startswith(
            b"HTTP/1.0 503 Service Unavailable\r\n")
        started = time.monotonic()
        wait_until(lambda: all(closed_by_server(c) for c in waiting), 10,
                   "the half-open connections closed by the server")
        assert time.monotonic() - started < 5
        wait_until(lambda: threading.active_count() <= threads, 5, "their threads ended")
        assert live.server.connection_count == 0
        assert request(live.port, "GET", "/")[0] == 200
    finally:
        for connection in waiting:
            connection.close()


def test_a_request_sent_slowly_is_dropped_at_the_time_limit(bounded_view):
    """The time limit (1 s here) is for the whole request, not for each byte of it."""
    live = bounded_view
    with socket.create_connection(("127.0.0.1", live.port), timeout=10) as connection:
        started = time.monotonic()
        connection.sendall(b"GET / HTTP/1.1\r\n")
        while not closed_by_server(connection) and time.monotonic() - started < 8:
            try:
                connection.sendall(b"X-Slow: 1\r\n")
            except OSError:
                break
            time.sleep(0.2)
        assert time.monotonic() - started < 4


def test_a_client_leaving_leaves_nothing_in_the_log(wave_hello_model, capfd):
    """Clients that close or reset their connection before, while or after the answer is
    written (a browser leaving a page, a cancelled request) are no errors: no traceback
    on standard error, no line about them in the log."""
    import threading
    lines: List[str] = []
    live = LiveView(0, controls_recording([]), lines.append)
    live.show_behavior("wave_hello", wave_hello_model)
    threads = threading.active_count()
    try:
        get = b"GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % live.port
        post = b"POST /control/goto HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nOrigin: " \
            b"http://127.0.0.1:%d\r\nContent-Length: 100\r\n\r\n{\"la" % (live.port, live.port)
        for index in range(120):
            connection = socket.create_connection(("127.0.0.1", live.port), timeout=10)
            connection.sendall((get, post, b"GET /events HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                                b"\r\n" % live.port)[index % 3])
            if index % 3 == 2:
                connection.recv(10)  # the stream started
            if index % 2:  # reset rather than closed
                connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                      struct.pack("ii", 1, 0))
            connection.close()
        wait_until(lambda: threading.active_count() <= threads, 10,
                   "every connection's thread ended")
    finally:
        live.close()
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Error" not in err, err[-3000:]
    assert [line for line in lines if "Error" in line or "error" in line
            or "Traceback" in line] == []


@pytest.mark.parametrize("method, path, headers, body, status", [
    ("GET", "/pages/%s.svg" % ("9" * 5000), {}, None, 404),
    ("GET", "/pages/-1.svg", {}, None, 404),
    ("POST", "/control/goto", {}, b"[" * 4000, 400),
    ("POST", "/control/goto", {}, b'[{"a":' * 600, 400),
    ("POST", "/control/goto", {}, b"{\"label\": \"Wave\"" + b" " * 5000 + b"}", 413),
    ("POST", "/control/goto", {"Content-Length": "10" + "0" * 5000}, None, 400),
    ("POST", "/control/goto", {"Content-Length": "-1"}, None, 400),
    ("POST", "/control/goto", {"Content-Length": "abc"}, None, 400),
    ("POST", "/control/goto", {"Content-Length": "1000000000"}, None, 413),
    ("POST", "/control/goto", {"Transfer-Encoding": "chunked"}, None, 411),
    ("POST", "/control/goto", {}, b"\xff\xfe", 400),
    ("POST", "/control/" + "x" * 5000, {}, b"{}", 404),
    ("PUT", "/", {}, b"x", 405),
    ("DELETE", "/control/stop", {}, None, 405),
    ("OPTIONS", "/events", {}, None, 405),
    ("BREW", "/pages", {}, None, 405),
    ("POST", "/", {}, b"{}", 405),
    ("GET", "/control/stop", {}, None, 405),
    ("PATCH", "/nowhere", {}, None, 404),
])
def test_bad_requests_are_answered_4xx(view, capfd, method, path, headers, body,
                                       status) -> None:
    """A 5,000-digit page number and a 4,000-level JSON body dropped the connection with a
    traceback; bad methods were answered 501."""
    live, calls = view
    sent = dict(headers, Origin="http://127.0.0.1:%d" % live.port)
    connection = http.client.HTTPConnection("127.0.0.1", live.port, timeout=10)
    try:
        connection.putrequest(method, path, skip_host=True)
        sent.setdefault("Host", "127.0.0.1:%d" % live.port)
        if body is not None and "Content-Length" not in headers:
            sent["Content-Length"] = str(len(body))
        for name, value in sent.items():
            connection.putheader(name, value)
        connection.endheaders(body)
        answer = connection.getresponse()
        content = answer.read()
    finally:
        connection.close()
    assert answer.status == status, content
    value = json.loads(content)
    assert value == ({"error": value.get("error")} if method == "GET"
                     else {"success": False, "message": value.get("message")})
    if status == 405:
        assert "GET" in answer.getheader("Allow") or "POST" in answer.getheader("Allow")
    assert calls == []
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.parametrize("data, status", [
    (b"GET /%s HTTP/1.1\r\n\r\n" % (b"x" * 70000), b"414"),
    (b"GET / HTTP/1.1\r\n" + b"X-A: b\r\n" * 200 + b"\r\n", b"431"),
    (b"GET / HTTP/1.1\r\nX-A: " + b"b" * 70000 + b"\r\n\r\n", b"431"),
    (b"NONSENSE\r\n\r\n", b"400"),
    (b"GET / HTTP/9\r\n\r\n", b"400"),
])
def test_malformed_requests_are_answered_4xx(view, capfd, data: bytes, status: bytes) -> None:
    live, _ = view
    answer = raw_answer(live.port, data)
    assert answer.split(b" ", 2)[1] == status, answer[:200]
    assert "Traceback" not in capfd.readouterr().err


def test_head_is_get_without_the_body(view) -> None:
    live, _ = view
    status, headers, body = request(live.port, "HEAD", "/")
    assert status == 200 and int(headers["Content-Length"]) > 0 and body == b""


def test_event_streams_are_bounded_and_a_page_reconnecting_leaks_nothing(bounded_view):
    """Each stream holds a connection until its client leaves: at most 3 streams here,
    the fourth answered 503 while pages and controls are still served, and a stream whose
    client left frees its place within a second, however often a page reconnects."""
    import threading
    live = bounded_view
    threads = threading.active_count()
    streams = [EventReader(live.port) for _ in range(3)]
    try:
        for stream in streams:
            assert stream.next()["diagram"] == 1
        assert request(live.port, "GET", "/events")[0] == 503
        assert request(live.port, "GET", "/")[0] == 200
        assert post(live.port, "stop")[0] == 200
    finally:
        for stream in streams:
            stream.close()
    for _ in range(12):  # a page reloaded again and again
        reconnected = wait_until(lambda: _stream_accepted(live.port), 5,
                                 "a place for the stream")
        assert reconnected.next()["diagram"] == 1
        reconnected.close()
    wait_until(lambda: live.server.connection_count == 0, 5, "every stream ended")
    wait_until(lambda: threading.active_count() <= threads, 5, "their threads ended")


def _stream_accepted(port: int) -> Optional[EventReader]:
    """A new event stream, or None when it is refused."""
    try:
        return EventReader(port)
    except AssertionError:
        return None


def test_a_port_in_use_is_an_error(view) -> None:
    live, _ = view
    with pytest.raises(OSError):
        LiveView(live.port, {name: print for name in ("play", "pause", "resume", "stop",
                                                       "goto")})


# -- the runner serving it ----------------------------------------------------------------
@pytest.mark.slow
def test_runner_streams_its_state_and_obeys_the_page(programs, probe, example_behavior,
                                                     tmp_path) -> None:
    from naoqi_qicore.srv import Play
    port = free_tcp_port()
    runner = start_runner(programs, example_behavior, tmp_path, port)
    output = runner.output()
    # the view holds its port before the runner's own robot takes any free one
    assert 0 <= output.index("live view at http://127.0.0.1:%d/" % port) < output.index(
        "no robot given: simulated robot at")
    states = probe.listen(BehaviorState, "behavior/state")
    status, _, page = request(port, "GET", "/")
    assert status == 200 and b"<title>Live view" in page
    events = EventReader(port)
    try:
        first = events.next()
        assert first["behavior"] == "wave_hello" and first["status"] == "LOADED"
        assert first["timeline"] == {"frame_count": 120, "fps": 25.0, "labels": LABELS}
        assert probe.call(Play, "behavior/play").success
        running = events.until(lambda s: "l1_Say_Hello" in s["active_objects"], 10,
                               "Say Hello running")
        assert running["status"] == "PLAYING" and "root/Say Hello" in running["active_boxes"]
        assert [(item["owner"], item["index"]) for item in running["current_states"]] == [
            ("l0_root", 0)]
        assert 0 <= running["current_states"][0]["frame"] < 30
        assert running["focus"]["focused_activity"] == "naoqi_qicore/wave_hello"
        assert "started by /behavior_runner (switchFocus)" in running["focus"]["details"]
        assert post(port, "goto", {"label": "Nowhere"})[1]["success"] is False
        answer = post(port, "stop")[1]
        assert answer == {"success": True, "message": "stopped wave_hello"}
        wait_until(lambda: states and states[-1].status == BehaviorState.STOPPED, 10,
                   "STOPPED on behavior/state")
        events.until(lambda s: s["status"] == "STOPPED", 10, "STOPPED on the stream")
    finally:
        events.close()


@pytest.mark.slow
def test_runner_refuses_a_port_in_use(programs, example_behavior, tmp_path) -> None:
    import socket
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        runner = programs("runner", "-p", "behavior:=" + str(example_behavior),
                          "-p", "view_port:=%d" % port)
        runner.process.wait(60)
    assert runner.process.returncode == 2
    assert "error: view_port %d: cannot serve the live view on 127.0.0.1: Address already " \
        "in use" % port in runner.output()
    assert "simulated robot at" not in runner.output()  # refused before starting one


@pytest.mark.slow
def test_runner_view_holds_few_threads_and_logs_no_client_leaving(programs, example_behavior,
                                                                  tmp_path) -> None:
    """1,500 half-sent requests held 1,526 threads of the runner, and each client leaving
    wrote a traceback into its log: now the runner serves at most MAX_CONNECTIONS at once,
    drops the half-sent ones after REQUEST_TIMEOUT, and a client leaving is not logged."""
    import psutil
    from naoqi_qicore.ros.loopback_http import MAX_CONNECTIONS, REQUEST_TIMEOUT
    port = free_tcp_port()
    runner = start_runner(programs, example_behavior, tmp_path, port)
    threads = psutil.Process(runner.process.pid).num_threads()
    waiting = half_open(port, 400)
    try:
        wait_until(lambda: sum(closed_by_server(c) for c in waiting) >= 400 - MAX_CONNECTIONS,
                   20, "the connections beyond the bound answered and closed")
        held = psutil.Process(runner.process.pid).num_threads()
        assert held <= threads + MAX_CONNECTIONS + 4, (threads, held)
        for index in range(60):  # clients leaving, politely or not
            connection = socket.create_connection(("127.0.0.1", port), timeout=10)
            if index % 2:
                connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            connection.close()
        started = time.monotonic()
        wait_until(lambda: all(closed_by_server(c) for c in waiting), REQUEST_TIMEOUT + 20,
                   "the half-open connections closed by the runner")
        print("half-open connections closed %.1f s after the bound's were answered; threads: "
              "%d at start, %d while held" % (time.monotonic() - started, threads, held))
    finally:
        for connection in waiting:
            connection.close()
    for index in range(90):
        connection = socket.create_connection(("127.0.0.1", port), timeout=10)
        connection.sendall((b"GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % port,
                            b"GET /events HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % port,
                            b"GET /pages/%s.svg HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n"
                            % (b"9" * 5000, port))[index % 3])
        if index % 2:
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        connection.close()
    assert request(port, "GET", "/pages/%s.svg" % ("9" * 5000))[0] == 404
    assert post(port, "goto", None)[0] == 400
    wait_until(lambda: psutil.Process(runner.process.pid).num_threads() <= threads + 4, 10,
               "the runner's threads back to what they were")
    assert fetch_state(port)["status"] == "LOADED"
    log = runner.output()
    for word in ("Traceback", "BrokenPipe", "ConnectionReset", "Exception occurred"):
        assert word not in log, log[-3000:]


@pytest.mark.slow
def test_run_behavior_view_prints_the_url(example_behavior, tmp_path) -> None:
    import psutil
    log = tmp_path / "run_behavior.log"
    with open(log, "w") as output:
        launcher = subprocess.Popen(
            python_program("naoqi_qicore.ros.launcher", str(example_behavior), "--view", "0"),
            stdout=output, stderr=subprocess.STDOUT, cwd=str(REPO), start_new_session=True,
            env=dict(os.environ, PYTHONPATH=str(REPO), PYTHONUNBUFFERED="1"))
    try:
        line = wait_until(lambda: [line for line in log.read_text().splitlines()
                                   if line.startswith("run_behavior: live view at ")], 60,
                          "the live view's URL")[0]
        port = int(line.rsplit(":", 1)[1].strip("/"))
        wait_until(lambda: _status(port) == "LOADED", 60, "the behavior loaded in the view")
    finally:
        children = psutil.Process(launcher.pid).children(recursive=True)
        launcher.send_signal(2)
        try:
            launcher.wait(30)
        finally:
            kill_processes([launcher] + children)
    sys.stdout.write(log.read_text()[-3000:])


def _status(port: int) -> str:
    try:
        return fetch_state(port, 2)["status"]
    except OSError:
        return ""


@pytest.mark.slow
def test_in_a_browser_a_running_box_lights_up_and_stop_stops(programs, probe, browser,
                                                             example_behavior,
                                                             tmp_path) -> None:
    from naoqi_qicore.srv import Play
    port = free_tcp_port()
    start_runner(programs, example_behavior, tmp_path, port)
    states = probe.listen(BehaviorState, "behavior/state")
    browser.send("Page.navigate", url="http://127.0.0.1:%d/" % port)
    wait_until(lambda: browser.evaluate(
        "!!document.getElementById('box-l1_Say_Hello') && "
        "document.getElementById('status').textContent === 'LOADED'"), 20,
        "the page showing the diagram and the LOADED status")
    assert browser.evaluate("document.getElementById('behavior').textContent") == "wave_hello"
    assert browser.evaluate("[...document.querySelectorAll('#goto-label option')]"
                            ".map(o => o.value)") == ["Hello", "Wave", "Skip", "Bow"]
    assert browser.evaluate("document.getElementById('breadcrumb').textContent") == "wave_hello"
    assert browser.evaluate("document.getElementById('timeline-rate').textContent") == \
        "at 25 fps"

    # what the diagram showed when Say Hello first lit up: it speaks for a second or two,
    # which a page polled under load can miss entirely
    browser.evaluate("""
        window.sayHelloLit = null;
        new MutationObserver(() => {
          const has = (id, name) => {
            const node = document.getElementById(id);
            return !!node && node.classList.contains(name);
          };
          if (window.sayHelloLit === null && has('box-l1_Say_Hello', 'active')) {
            window.sayHelloLit = {rootState: has('state-l0_root-0', 'current'),
                                  goodbye: has('box-l1_Say_Goodbye', 'active')};
          }
        }).observe(document.getElementById('diagram'),
                   {subtree: true, childList: true, attributes: true,
                    attributeFilter: ['class']});
        true""")
    assert probe.call(Play, "behavior/play").success
    box_is = "document.getElementById('box-l1_Say_Hello').classList.contains(%s)"
    lit = wait_until(lambda: browser.evaluate("window.sayHelloLit"), 10,
                     "Say Hello carrying the class active in the page")
    assert lit == {"rootState": True, "goodbye": False}
    wait_until(lambda: not browser.evaluate("document.getElementById('stop').disabled"), 5,
               "the stop button enabled")
    browser.click("#stop")
    wait_until(lambda: states and states[-1].status == BehaviorState.STOPPED, 10,
               "STOPPED on behavior/state after the click")
    wait_until(lambda: browser.evaluate("document.getElementById('status').textContent")
               == "STOPPED", 10, "the page showing STOPPED")
    wait_until(lambda: browser.evaluate("document.getElementById('answer').textContent")
               == "stopped wave_hello", 5, "the stop's answer on the page")
    assert browser.evaluate(box_is % "'ran'")  # it ran during this run
