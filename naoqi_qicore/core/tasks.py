"""Runs box calls in threads of their own, reusing idle threads.

Each stimulation of a box input runs in its own thread (as in NAOqi, where a box that
blocks in ``onInput_onStart`` does not hold back the boxes started in parallel), so the
pool grows as needed; idle threads end after :data:`IDLE_SECONDS`.
"""
from __future__ import annotations

import collections
import threading
from typing import Callable, Deque, List, Optional

from naoqi_qicore.core.guard import BehaviorStopped

IDLE_SECONDS = 5.0


class TaskRunner:
    """Starts tasks at once, each in a free worker thread (a new one when none is free)."""

    def __init__(self, name: str = "box") -> None:
        self._name = name
        self._condition = threading.Condition()
        self._queue: Deque[Callable[[], None]] = collections.deque()
        self._idle = 0
        self._running = 0
        self._workers: List[threading.Thread] = []
        self._closed = False
        self._counter = 0

    def submit(self, task: Callable[[], None]) -> None:
        """Run ``task()`` in a worker thread as soon as possible (dropped once closed)."""
        with self._condition:
            if self._closed:
                return
            self._queue.append(task)
            self._running += 1
            if self._idle >= len(self._queue):
                self._condition.notify()
                return
            self._counter += 1
            worker = threading.Thread(target=self._work, daemon=True,
                                      name="%s-%d" % (self._name, self._counter))
            self._workers.append(worker)
        worker.start()

    @property
    def busy(self) -> int:
        """Tasks queued or running."""
        with self._condition:
            return self._running

    def wait_idle(self, timeout: Optional[float] = None) -> bool:
        """Wait until no task is queued or running (False on timeout)."""
        with self._condition:
            return self._condition.wait_for(lambda: self._running == 0, timeout)

    def close(self) -> None:
        """Drop queued tasks; idle workers end, running ones end after their task."""
        with self._condition:
            self._closed = True
            self._running -= len(self._queue)
            self._queue.clear()
            self._condition.notify_all()

    def _work(self) -> None:
        me = threading.current_thread()
        while True:
            with self._condition:
                self._idle += 1
                try:
                    if not self._condition.wait_for(lambda: self._queue or self._closed,
                                                    IDLE_SECONDS) or not self._queue:
                        self._workers.remove(me)
                        return
                finally:
                    self._idle -= 1
                task = self._queue.popleft()
            try:
                task()
            except BehaviorStopped:
                pass  # box code ended by its behavior's guard
            finally:
                with self._condition:
                    self._running -= 1
                    self._condition.notify_all()
