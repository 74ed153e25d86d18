"""Headless chromium with one page, driven over the DevTools protocol (websocket-client):
what the live view's tests, its benchmark and the docs' screenshots open the page with.

    page = ChromiumPage(profile_folder)      # ChromiumMissing when there is no chromium
    page.set_size(1400, 900)
    page.send("Page.navigate", url="http://127.0.0.1:8765/")
    page.wait_for("document.getElementById('status').textContent === 'PLAYING'")
    png = page.screenshot()
    page.close()
"""
import base64
import http.client
import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

#: the browsers tried, in this order
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")
#: no connection of its own to the network (updates, sync...): only the page's
QUIET = ("--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-quic", "--no-first-run")


class ChromiumMissing(RuntimeError):
    """No chromium is installed (``.setup/test-tools.sh`` installs Debian's)."""


def find_chromium() -> str:
    """The chromium program; ChromiumMissing when there is none."""
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    raise ChromiumMissing("no chromium found (.setup/test-tools.sh installs it: "
                          "apt-get install chromium)")


def poll(predicate: Callable[[], Any], timeout: float, what: str) -> Any:
    """``predicate``'s value once true; TimeoutError after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError("timed out after %.0f s waiting for %s" % (timeout, what))
        time.sleep(0.02)


class ChromiumPage:
    """Headless chromium with one page, its profile in the folder ``profile`` (its log
    beside it), stopped by :meth:`close`."""

    def __init__(self, profile: Path) -> None:
        import websocket
        self.log = profile.parent / "chromium.log"
        with open(self.log, "w") as log:
            self.process = subprocess.Popen(
                [find_chromium(), "--headless=new", "--no-sandbox", "--disable-gpu", *QUIET,
                 "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
                 "--user-data-dir=" + str(profile), "--window-size=1200,1000", "about:blank"],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self._next_id = 0
        self.socket: Any = None
        try:
            active_port = profile / "DevToolsActivePort"
            poll(lambda: active_port.is_file() and active_port.read_text().strip(), 30,
                 "chromium's DevTools port")
            port = int(active_port.read_text().splitlines()[0])
            targets = poll(lambda: [t for t in self._targets(port) if t["type"] == "page"],
                           10, "a chromium page")
            self.socket = websocket.create_connection(targets[0]["webSocketDebuggerUrl"],
                                                      timeout=20, suppress_origin=True)
        except BaseException:
            self.close()
            raise

    @staticmethod
    def _targets(port: int) -> List[dict]:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        try:
            connection.request("GET", "/json/list")
            answer = connection.getresponse()
            return json.loads(answer.read()) if answer.status == 200 else []
        except OSError:
            return []
        finally:
            connection.close()

    def send(self, method: str, **params: Any) -> dict:
        """Call a DevTools method and return its result (events in between are skipped)."""
        self._next_id += 1
        self.socket.send(json.dumps({"id": self._next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise RuntimeError("%s: %s" % (method, message["error"]))
                return message["result"]

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (promises awaited)."""
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True,
                           awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError("%s: %s" % (expression, result["exceptionDetails"]))
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 10.0, what: str = "") -> Any:
        """The value of a JavaScript expression once it is true (an expression throwing,
        as on a page still loading, is not true yet); TimeoutError after ``timeout`` s,
        saying the last error."""
        failures: List[str] = []

        def value() -> Any:
            try:
                return self.evaluate(expression)
            except RuntimeError as error:
                failures[:] = [str(error)]
                return None
        try:
            return poll(value, timeout, what or expression)
        except TimeoutError as error:
            raise TimeoutError("%s%s" % (error, "; last: " + failures[0] if failures else "")
                               ) from None

    def click(self, selector: str) -> None:
        """Click the middle of the element as a user does (mouse pressed and released)."""
        box = self.evaluate("(() => { const r = document.querySelector(%s)"
                            ".getBoundingClientRect(); return [r.x + r.width / 2, "
                            "r.y + r.height / 2]; })()" % json.dumps(selector))
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1],
                      button="left", clickCount=1)

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
        """Stop chromium and whatever it started."""
        import psutil
        if self.socket is not None:
            self.socket.close()
        try:
            processes = [self.process] + psutil.Process(self.process.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            processes = [self.process]
        for process in processes:
            try:
                process.kill()
            except (psutil.NoSuchProcess, ProcessLookupError):
                pass
        self.process.wait(10)
