"""Ending the processes a test started, whatever state they are in."""
from typing import Iterable


def kill_processes(processes: Iterable) -> None:
    """Kill each of ``processes`` (``subprocess.Popen`` or ``psutil.Process``; they run in
    sessions of their own, so each is killed by itself); those already gone are skipped."""
    import psutil
    for process in processes:
        try:
            process.kill()
        except (psutil.NoSuchProcess, ProcessLookupError):
            pass
