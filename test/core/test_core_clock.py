"""Clocks: the real one's sleeps and the scheduling of the threads that tick against it."""
import os
import threading

import pytest

from naoqi_qicore.core import FakeClock, MonotonicClock
from naoqi_qicore.core.timeline import Timeline


class EnteringClock(FakeClock):
    """A fake clock recording which threads said they tick against it."""

    def __init__(self):
        super().__init__()
        self.entered = []

    def enter_thread(self):
        self.entered.append(threading.current_thread().name)
        return True


def test_the_ticking_thread_enters_its_clock():
    clock = EnteringClock()
    ended = threading.Event()
    timeline = Timeline(clock=clock, fps=25, end_frame=3, on_end=ended.set, name="ticks")
    timeline.play()
    clock.advance(0.2)
    assert ended.is_set()
    assert clock.entered == ["ticks"]


def test_monotonic_sleep_ends_at_the_deadline_or_when_woken():
    clock = MonotonicClock()
    wake = threading.Event()
    deadline = clock.now() + 0.02
    assert clock.sleep_until(deadline, wake) is False
    assert clock.now() >= deadline
    wake.set()
    assert clock.sleep_until(clock.now() + 10, wake) is True


@pytest.mark.skipif(not hasattr(os, "SCHED_FIFO"), reason="no real-time policy on this OS")
def test_realtime_is_for_the_ticking_thread_only():
    policies = {}

    def child():
        policies["child"] = os.sched_getscheduler(0)

    def ticking():
        policies["granted"] = MonotonicClock().enter_thread()
        policies["ticking"] = os.sched_getscheduler(0) & ~os.SCHED_RESET_ON_FORK
        started = threading.Thread(target=child)
        started.start()
        started.join()
    thread = threading.Thread(target=ticking)
    thread.start()
    thread.join()
    assert os.sched_getscheduler(0) == os.SCHED_OTHER
    assert MonotonicClock(realtime=False).enter_thread() is False
    if not policies["granted"]:
        pytest.skip("the OS refuses real-time scheduling to this user")
    assert policies["ticking"] == os.SCHED_FIFO
    assert policies["child"] == os.SCHED_OTHER
