"""Clocks the engine schedules frame ticks against.

A clock has ``now() -> float`` (seconds, monotonic) and ``sleep_until(deadline, wake)``,
which returns when ``now() >= deadline`` (False) or as soon as the ``threading.Event``
``wake`` is set (True).  A clock may also have ``track(thread)``, called for a thread
that is about to start using it, and ``enter_thread()``, called by that thread first.
:class:`MonotonicClock` is the real one; :class:`FakeClock` only moves when a test calls
:meth:`FakeClock.advance`, which also waits until every thread woken by the new time has
done its work and gone back to sleep (or ended).
"""
from __future__ import annotations

import os
import threading
import time
from typing import Callable, Dict, List, Optional

try:
    from typing import Protocol
except ImportError:  # pragma: no cover - Python < 3.8
    Protocol = object  # type: ignore


class Clock(Protocol):
    """What the engine needs from a clock."""

    def now(self) -> float: ...

    def sleep_until(self, deadline: float, wake: threading.Event) -> bool: ...


class MonotonicClock:
    """``time.monotonic`` with sleeps that end early when ``wake`` is set.

    ``realtime``: threads that tick against this clock (:meth:`enter_thread`) ask the OS
    to run them before ordinary threads when they wake up, so that a busy machine does
    not make them late.
    """

    #: the last stretch before a deadline is spun rather than slept (timer slack)
    SPIN_SECONDS = 0.0005
    #: SCHED_FIFO priority of ticking threads (low: above every ordinary thread only)
    REALTIME_PRIORITY = 10

    def __init__(self, realtime: bool = True) -> None:
        self.realtime = realtime

    def now(self) -> float:
        return time.monotonic()

    def enter_thread(self) -> bool:
        """Called by a thread about to tick: with ``realtime``, ask for SCHED_FIFO for the
        calling thread only (threads it starts stay ordinary).  False when not asked or
        refused (no privilege, or no such policy on this OS); the thread then ticks at
        ordinary priority."""
        if not self.realtime or not hasattr(os, "SCHED_FIFO"):
            return False
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO | os.SCHED_RESET_ON_FORK,
                                  os.sched_param(self.REALTIME_PRIORITY))
        except (OSError, AttributeError):  # EPERM without CAP_SYS_NICE/RLIMIT_RTPRIO
            return False
        return True

    def sleep_until(self, deadline: float, wake: threading.Event) -> bool:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return wake.is_set()
            if remaining > self.SPIN_SECONDS:
                if wake.wait(remaining - self.SPIN_SECONDS):
                    return True
            elif wake.is_set():
                return True


class FakeClock:
    """A clock that moves only when told to; for deterministic tests.

    :meth:`advance` moves time forward one pending deadline at a time, and after each
    step waits (at most ``settle_timeout`` real seconds) until the threads it woke are
    asleep again or finished, so that a test sees the effect of every tick.  Work those
    threads hand to other queues (a player's box calls and state changes) is waited for
    too when the queue's ``wait_idle`` is given to :meth:`wait_also_for`.
    """

    #: deadlines this close after the target of an advance are reached by it (float sums)
    EPSILON = 1e-9

    def __init__(self, start: float = 0.0, settle_timeout: float = 5.0) -> None:
        self._now = start
        self._settle_timeout = settle_timeout
        self._condition = threading.Condition()
        #: sleeping threads -> their deadline
        self._sleepers: Dict[threading.Thread, float] = {}
        #: threads woken by an advance that have not slept again yet
        self._woken: Dict[threading.Thread, float] = {}
        #: ``wait_idle(timeout) -> bool`` of queues fed by the clock's threads
        self._idle_waiters: List[Callable[[float], bool]] = []

    def wait_also_for(self, wait_idle: Callable[[float], bool]) -> None:
        """Make every step of :meth:`advance` wait until ``wait_idle(timeout)`` is True."""
        self._idle_waiters.append(wait_idle)

    def now(self) -> float:
        with self._condition:
            return self._now

    def sleep_until(self, deadline: float, wake: threading.Event) -> bool:
        me = threading.current_thread()
        with self._condition:
            self._woken.pop(me, None)
            self._sleepers[me] = deadline
            self._condition.notify_all()
            try:
                while self._now < deadline and not wake.is_set():
                    self._condition.wait(0.002)
                return wake.is_set()
            finally:
                self._sleepers.pop(me, None)
                self._woken[me] = deadline
                self._condition.notify_all()

    def track(self, thread: threading.Thread) -> None:
        """Count ``thread`` (about to start) as busy until it first sleeps or ends."""
        with self._condition:
            self._woken[thread] = self._now

    def next_deadline(self) -> Optional[float]:
        """The earliest deadline a thread sleeps until (None when nobody sleeps)."""
        with self._condition:
            return min(self._sleepers.values(), default=None)

    def advance(self, seconds: float) -> None:
        """Move time forward by ``seconds``, stopping at every deadline on the way."""
        self.settle()
        with self._condition:
            target = self._now + seconds
        while True:
            with self._condition:
                pending = [d for d in self._sleepers.values() if d <= target + self.EPSILON]
                step = min(pending) if pending else target
                self._now = max(self._now, step)
                self._condition.notify_all()
            self.settle()
            if not pending:
                return

    def settle(self) -> None:
        """Wait until threads woken by the last time change are asleep again or ended,
        and the queues given to :meth:`wait_also_for` are idle."""
        limit = time.monotonic() + self._settle_timeout
        while True:
            self._settle_threads(limit)
            if all(wait_idle(max(0.0, limit - time.monotonic()))
                   for wait_idle in self._idle_waiters):
                with self._condition:
                    if self._quiet():
                        return
            elif time.monotonic() > limit:
                raise TimeoutError("a queue fed by the clock's threads did not go idle")

    def _quiet(self) -> bool:
        now = self._now
        busy = any(t.is_alive() or not t.ident for t in self._woken)
        return not busy and not any(d <= now for d in self._sleepers.values())

    def _settle_threads(self, limit: float) -> None:
        with self._condition:
            while not self._quiet():
                if time.monotonic() > limit:
                    busy = [t for t in self._woken if t.is_alive() or not t.ident]
                    waking = [t for t, d in self._sleepers.items() if d <= self._now]
                    raise TimeoutError("threads %s did not go back to sleep"
                                       % ", ".join(t.name for t in busy + waking))
                self._condition.wait(0.001)
            self._woken.clear()
