"""``python OUT/main.py``: a converted behavior played on an in-process simulated robot."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from naoqi_qicore.converter.writer import write_converted

from core_builders import behavior, flow_box, link, script_box, string_parameter

REPO = Path(__file__).resolve().parents[2]

WAITING = """
import os
def onInput_onStart(self):
    self.running = True
    open(os.path.join(self.getParameter("Folder"), "started"), "w").close()
    while self.running:
        time.sleep(0.02)
def onInput_onStop(self):
    self.running = False
    open(os.path.join(self.getParameter("Folder"), "stopped"), "w").close()
def onUnload(self):
    open(os.path.join(self.getParameter("Folder"), "unloaded"), "w").close()
"""


def convert(tmp_path: Path, code: str) -> Path:
    box = script_box("Worker", 1, code, parameters=[string_parameter("Folder", str(tmp_path), 5)])
    root = flow_box("root", -1, [box], [link(0, 2, 1, 2), link(1, 4, 0, 4)])
    out = tmp_path / "converted"
    write_converted(behavior(root), out)
    return out


def run_main(folder: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.Popen([sys.executable, str(folder / "main.py")], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(path: Path, timeout: float = 30.0) -> bool:
    limit = time.monotonic() + timeout
    while time.monotonic() < limit:
        if path.exists():
            return True
        time.sleep(0.05)
    return False


def test_main_exits_0_when_the_root_stops(tmp_path):
    folder = convert(tmp_path, """
def onInput_onStart(self):
    self.onStopped()
""")
    process = run_main(folder)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err


def test_sigint_stops_every_box_and_exits_cleanly(tmp_path):
    folder = convert(tmp_path, WAITING)
    process = run_main(folder)
    try:
        assert wait_for(tmp_path / "started"), process.stderr.read() if process.poll() else ""
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, err
    assert "Traceback" not in err
    assert (tmp_path / "stopped").exists() and (tmp_path / "unloaded").exists()


def test_main_says_why_a_folder_is_not_a_behavior(tmp_path):
    (tmp_path / "main.py").write_text((REPO / "naoqi_qicore" / "converter" / "writer.py")
                                      .read_text().split("MAIN_PY = '''")[1].split("'''")[0])
    process = run_main(tmp_path)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 2 and err.startswith("error:") and "Traceback" not in err
