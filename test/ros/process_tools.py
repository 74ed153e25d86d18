"""Waiting for processes a test started, and ending them whatever state they are in."""
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


def kill_processes(processes: Iterable) -> None:
    """Kill each of ``processes`` (``subprocess.Popen`` or ``psutil.Process``; they run in
    sessions of their own, so each is killed by itself); those already gone are skipped."""
    import psutil
    for process in processes:
        try:
            process.kill()
        except (psutil.NoSuchProcess, ProcessLookupError):
            pass
