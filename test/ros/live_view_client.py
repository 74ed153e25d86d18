"""Talking to the live view as its page does: HTTP requests, its event streams and the
runner serving it (the page itself is opened in chromium by ``bench/chromium_page.py``)."""
import http.client
import json
import time
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

import pytest

from naoqi_qicore.ros.live_view import fetch_state

from process_tools import wait_until


# -- HTTP ----------------------------------------------------------------------------------
def request(port: int, method: str, path: str, headers: Optional[Dict[str, str]] = None,
            body: Optional[bytes] = None) -> Tuple[int, Dict[str, str], bytes]:
    """(status, headers, body) of one request to 127.0.0.1:``port`` (Host as a browser
    sends it unless ``headers`` say otherwise)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.putrequest(method, path, skip_host=True)
        sent = {"Host": "127.0.0.1:%d" % port}
        sent.update(headers or {})
        if body is not None:
            sent["Content-Length"] = str(len(body))
        for name, value in sent.items():
            connection.putheader(name, value)
        connection.endheaders(body)
        answer = connection.getresponse()
        return answer.status, dict(answer.getheaders()), answer.read()
    finally:
        connection.close()


def post(port: int, control: str, body: Optional[dict] = None,
         origin: Optional[str] = "same") -> Tuple[int, Dict[str, Any]]:
    """POST a control as the page does (``origin`` "same": this view's own origin)."""
    headers = {"Content-Type": "application/json"}
    if origin is not None:
        headers["Origin"] = "http://127.0.0.1:%d" % port if origin == "same" else origin
    status, _, answer = request(port, "POST", "/control/" + control, headers,
                                json.dumps(body or {}).encode())
    return status, json.loads(answer)


class EventReader:
    """The server-sent events ``event`` of ``path``, read as they come."""

    def __init__(self, port: int, path: str = "/events", event: str = "state") -> None:
        self.event = event
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
        self.connection.request("GET", path)
        self.response = self.connection.getresponse()
        assert self.response.status == 200
        assert self.response.getheader("Content-Type") == "text/event-stream"

    def next(self) -> Dict[str, Any]:
        """The next event's data."""
        event = ""
        while True:
            line = self.response.fp.readline().decode()
            if not line:
                raise AssertionError("the event stream closed")
            if line.startswith("event: "):
                event = line[len("event: "):].strip()
            elif line.startswith("data: ") and event == self.event:
                return json.loads(line[len("data: "):])

    def until(self, predicate, timeout: float = 10.0, what: str = "") -> Dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self.next()
            if predicate(state):
                return state
        pytest.fail("no event with %s within %.0f s" % (what or predicate, timeout))

    def close(self) -> None:
        self.response.close()  # it holds the socket once the connection handed it over
        self.connection.close()


# -- the runner serving it -----------------------------------------------------------------
def start_runner(programs, behavior: Path, tmp_path: Path, port: int, *arguments: str):
    """behavior_runner with the live view on ``port`` (its own simulated robot unless
    ``arguments``, more of its ROS arguments, name one); waits until the view answers with
    the behavior loaded."""
    runner = programs("runner", "-p", "behavior:=" + str(behavior),
                      "-p", "cache_dir:=" + str(tmp_path / "cache"), "-p", "view_port:=%d" % port,
                      *arguments)

    def loaded() -> bool:
        assert runner.alive(), runner.output()
        try:
            return fetch_state(port, 2)["status"] == "LOADED"
        except OSError:
            return False
    wait_until(loaded, 60, "the live view showing the behavior loaded")
    return runner
