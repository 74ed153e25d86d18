"""Waiting for processes a test started, and ending them whatever state they are in; the
``run_behavior --autoplay`` of the tests."""
import signal
import subprocess
import sys
import threading
import time
from typing import Any, Callable, Iterable

import pytest


def wait_until(predicate: Callable[[], Any], timeout: float = 10.0, what: str = "") -> Any:
    """Poll ``predicate`` until it returns something true; fail the test after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail("timed out after %.0f s waiting for %s" % (timeout, what or predicate))
        time.sleep(0.02)


#: a module planted in a working folder: it notes the process that imports it, then stands
#: in for the standard library module of its name
PLANTED_MODULE = """
import os, sys
with open(%r, "a") as marker:
    marker.write("%%d %%s\\n" %% (os.getpid(), " ".join(sys.argv)))
sys.path[:] = [entry for entry in sys.path if entry not in ("", os.getcwd())]
del sys.modules[__name__]
globals().update(vars(__import__(__name__)))
"""


def plant_modules(folder, marker, names=("secrets", "argparse")) -> None:
    """Put modules named as standard library ones (``secrets.py``...) in ``folder``: each
    process importing one of them from there writes its pid and command into ``marker``."""
    for name in names:
        (folder / (name + ".py")).write_text(PLANTED_MODULE % str(marker))


def kill_processes(processes: Iterable) -> None:
    """Kill each of ``processes`` (``subprocess.Popen`` or ``psutil.Process``; they run in
    sessions of their own, so each is killed by itself); those already gone are skipped."""
    import psutil
    for process in processes:
        try:
            process.kill()
        except (psutil.NoSuchProcess, ProcessLookupError):
            pass


class AutoplayLauncher:
    """``run_behavior BEHAVIOR --autoplay`` with its output collected line by line."""

    def __init__(self, behavior, repo_root, *extra: str) -> None:
        """``repo_root``: the folder it is started in."""
        from naoqi_qicore.ros.launcher import python_program
        self.process = subprocess.Popen(
            python_program("naoqi_qicore.ros.launcher", str(behavior), "--autoplay",
                           "--log-level", "warn", *extra),
            cwd=str(repo_root), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: list = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, text: str, timeout: float = 90) -> str:
        """The first output line containing ``text``; fails if the launcher exits first."""
        deadline = time.monotonic() + timeout
        while True:
            found = next((line for line in self.lines if text in line), None)
            if found is not None:
                return found
            assert time.monotonic() < deadline, "\n".join(self.lines)
            assert self.process.poll() is None, "\n".join(self.lines)
            time.sleep(0.1)

    def interrupt(self) -> int:
        """Ctrl-C; the launcher's exit code."""
        self.process.send_signal(signal.SIGINT)
        return self.exit_code()

    def exit_code(self, timeout: float = 30) -> int:
        """The launcher's exit code, once it has exited (within ``timeout`` s)."""
        code = self.process.wait(timeout)
        self._reader.join(5)
        return code

    def close(self, others=()) -> None:
        """Kill the launcher and its programs (the test's own list, and those still there)."""
        import psutil
        try:
            others = [*others, *psutil.Process(self.process.pid).children(recursive=True)]
        except psutil.NoSuchProcess:
            pass
        kill_processes([self.process, *others])
        self.process.wait()
        self._reader.join(5)
        sys.stdout.write("\n".join(self.lines))
