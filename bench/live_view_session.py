"""A behavior playing under ``run_behavior --view`` (simulated robot, naoqi_bridge,
behavior_runner) and its live view open in headless chromium: what the live view's
benchmark and the docs' screenshots start from.

    with LiveViewSession(behavior, scenario=None, robot="auto") as session:
        session.play()
        session.page.wait_for("...")      # a ChromiumPage on the view, 1400 x 900 px
"""
import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from chromium_page import ChromiumPage, poll  # noqa: E402
from naoqi_qicore.ros.launcher import free_tcp_port, python_program  # noqa: E402
from naoqi_qicore.ros.live_view import fetch_state  # noqa: E402


class LiveViewSession:
    """``run_behavior BEHAVIOR --view PORT`` (with ``--scenario`` and ``--robot`` when
    given) in a private ROS domain, and chromium on its live view once the behavior is
    loaded; both stopped when the block ends."""

    def __init__(self, behavior: Path, scenario: Optional[Path] = None, robot: str = "auto",
                 width: int = 1400, height: int = 900) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="live-view-"))
        self.port = free_tcp_port()
        arguments: List[str] = [str(behavior), "--view", str(self.port), "--robot", robot]
        if scenario is not None:
            arguments += ["--scenario", str(scenario)]
        env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONUNBUFFERED="1",
                   XDG_CACHE_HOME=str(self.folder / "cache"),
                   ROS_AUTOMATIC_DISCOVERY_RANGE="LOCALHOST")
        env.setdefault("ROS_DOMAIN_ID", str(150 + os.getpid() % 50))
        self.log = self.folder / "run_behavior.log"
        with open(self.log, "w") as log:
            self.process = subprocess.Popen(
                python_program("naoqi_qicore.ros.launcher", *arguments), stdout=log,
                stderr=subprocess.STDOUT, env=env, cwd=str(REPO), start_new_session=True)
        self.page: Any = None
        self.size = (width, height)

    def __enter__(self) -> "LiveViewSession":
        try:
            poll(lambda: self._status() == "LOADED", 120, "the behavior loaded in the view")
            self.page = ChromiumPage(self.folder / "chromium-profile")
            self.page.set_size(*self.size)
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _status(self) -> str:
        if self.process.poll() is not None:
            raise RuntimeError("run_behavior ended:\n" + self.log.read_text()[-3000:])
        try:
            return fetch_state(self.port, 2)["status"]
        except OSError:
            return ""

    @property
    def url(self) -> str:
        return "http://127.0.0.1:%d/" % self.port

    def state(self) -> Dict[str, Any]:
        """The runner's state as the view streams it."""
        return fetch_state(self.port)

    def control(self, name: str, label: str = "") -> Dict[str, Any]:
        """Press a control of the page (play, pause, resume, stop, goto)."""
        body = json.dumps({"label": label} if label else {}).encode()
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)
        try:
            connection.request("POST", "/control/" + name, body, {
                "Content-Type": "application/json", "Origin": self.url.rstrip("/")})
            return json.loads(connection.getresponse().read())
        finally:
            connection.close()

    def open(self) -> None:
        """Open the view in the page and wait for the 3D robot to be drawn."""
        self.page.send("Page.navigate", url=self.url)
        self.page.wait_for("window.liveView && window.liveView.robot.scene && "
                           "window.liveView.robot.frames > 3", 60, "the 3D robot drawn")

    def close(self) -> None:
        if self.page is not None:
            self.page.close()
            self.page = None
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGINT)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        shutil.rmtree(self.folder, ignore_errors=True)
