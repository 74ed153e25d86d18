"""A short soak of bench/bench_soak.py: play/stop, load and cancel cycles against the real
processes leave no thread and no queued speech behind, and no run has an error (the bench
runs 6,000 cycles and measures memory too)."""
import sys
from pathlib import Path

import pytest

pytest.importorskip("naoqi_qicore.robot.sim.cli", reason="needs the simulated robot")
pytest.importorskip("psutil")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import bench_soak  # noqa: E402

pytestmark = pytest.mark.long_running(minutes=1)

#: cycles before the first measure (the first loads and runs start what stays)
WARMUP = 30
CYCLES = 250
#: ``ALTextToSpeech.say("hello")`` takes 0.36 s on the simulated robot
FRESH_SAY_S = 1.0


@pytest.mark.slow
def test_cycles_leave_no_thread_and_no_queued_speech() -> None:
    soak = bench_soak.Soak()
    try:
        for index in range(WARMUP):
            soak.cycle(index)
        start = soak.usage()
        for index in range(WARMUP, WARMUP + CYCLES):
            soak.cycle(index)
        end = soak.usage()
        fresh_say = soak.fresh_say_seconds(timeout=10.0)
        errors = soak.run_errors()
    finally:
        soak.close()
    assert errors == []  # stopped, cancelled and reloaded at any moment: no run failed
    grown = {name: end[name].threads - start[name].threads for name in bench_soak.PROGRAMS}
    assert all(threads < bench_soak.MAX_GROWTH_THREADS for threads in grown.values()), grown
    assert fresh_say < FRESH_SAY_S, "a fresh say waited %.1f s behind queued speech" % fresh_say
