"""Talking to the live view as its page does: HTTP requests, its event streams, the runner
serving it, and a real headless browser (chromium, driven over the DevTools protocol)."""
import base64
import http.client
import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

from naoqi_qicore.ros.live_view import fetch_state

from process_tools import kill_processes, wait_until


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


# -- in a real browser ----------------------------------------------------------------------
def find_chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no chromium found (.setup/test-tools.sh installs it: apt-get install chromium)")


class Browser:
    """Headless chromium with one page, driven over the DevTools protocol."""

    def __init__(self, profile: Path) -> None:
        websocket = pytest.importorskip("websocket", reason="needs websocket-client "
                                        "(.setup/requirements.txt)")
        self.log = profile.parent / "chromium.log"
        with open(self.log, "w") as log:
            self.process = subprocess.Popen(
                [find_chromium(), "--headless=new", "--no-sandbox", "--disable-gpu",
                 "--no-first-run", "--remote-debugging-address=127.0.0.1",
                 "--remote-debugging-port=0", "--user-data-dir=" + str(profile),
                 "--window-size=1200,1000", "about:blank"],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self._next_id = 0
        try:
            active_port = profile / "DevToolsActivePort"
            wait_until(lambda: active_port.is_file() and active_port.read_text().strip(), 30,
                       "chromium's DevTools port")
            port = int(active_port.read_text().splitlines()[0])
            targets = wait_until(lambda: [t for t in self._targets(port) if t["type"] == "page"],
                                 10, "a chromium page")
            self.socket = websocket.create_connection(targets[0]["webSocketDebuggerUrl"],
                                                      timeout=20, suppress_origin=True)
        except BaseException:
            self.close()
            raise

    @staticmethod
    def _targets(port: int) -> List[dict]:
        try:
            status, _, body = request(port, "GET", "/json/list")
        except OSError:
            return []
        return json.loads(body) if status == 200 else []

    def send(self, method: str, **params: Any) -> dict:
        """Call a DevTools method and return its result (events in between are skipped)."""
        self._next_id += 1
        self.socket.send(json.dumps({"id": self._next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise AssertionError("%s: %s" % (method, message["error"]))
                return message["result"]

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page."""
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise AssertionError("%s: %s" % (expression, result["exceptionDetails"]))
        return result["result"].get("value")

    def click(self, selector: str) -> None:
        """Click the middle of the element as a user does (mouse pressed and released)."""
        box = self.evaluate("(() => { const r = document.querySelector(%s)"
                            ".getBoundingClientRect(); return [r.x + r.width / 2, "
                            "r.y + r.height / 2]; })()" % json.dumps(selector))
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1],
                      button="left", clickCount=1)

    def wait_for(self, expression: str, timeout: float = 10.0, what: str = "") -> Any:
        """The value of a JavaScript expression once it is true (fails the test after
        ``timeout`` s)."""
        return wait_until(lambda: self.evaluate(expression), timeout, what or expression)

    def set_size(self, width: int, height: int) -> None:
        """The size of the page's window (CSS px, one device pixel each)."""
        self.send("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    def screenshot(self, clip: Optional[Dict[str, float]] = None) -> bytes:
        """A PNG of the page (or of ``clip``: x, y, width, height in CSS px)."""
        params: Dict[str, Any] = {"format": "png"}
        if clip is not None:
            params["clip"] = dict(clip, scale=1)
        return base64.b64decode(self.send("Page.captureScreenshot", **params)["data"])

    def close(self) -> None:
        import psutil
        socket = getattr(self, "socket", None)
        if socket is not None:
            socket.close()
        try:
            children = psutil.Process(self.process.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            children = []
        kill_processes([self.process] + children)
        self.process.wait(10)
