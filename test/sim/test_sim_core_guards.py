"""naoqi_sim's loopback guard on the addresses it really binds, and the bounded call record
(issue 13)."""
import math
import os
import socket
import sys
import time
import tracemalloc

import psutil
import pytest

qi = pytest.importorskip("qi")

from naoqi_qicore.robot.sim import cli, listen  # noqa: E402
from naoqi_qicore.robot.sim.listen import loopback_problem  # noqa: E402
from naoqi_qicore.robot.sim.recorder import (DEFAULT_LIMIT, CallRecord,  # noqa: E402
                                             read_calls)

sys.path.insert(0, os.path.dirname(__file__))
from sim_core_support import SimProcess  # noqa: E402

pytestmark = pytest.mark.long_running(minutes=0.7)


# -- E: the loopback guard resolves the host ------------------------------------------------

def _resolving(table):
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        if host not in table:
            return real(host, port, *args, **kwargs)
        if table[host] is None:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(socket.AF_INET6 if ":" in address else socket.AF_INET, socket.SOCK_STREAM, 6,
                 "", (address, 0)) for address in table[host]]
    return getaddrinfo


def test_the_guard_checks_every_address_the_host_resolves_to(monkeypatch):
    monkeypatch.setattr(listen.socket, "getaddrinfo", _resolving({
        "127.0.0.1.nip.io": ["203.0.113.5"],
        "half.example": ["127.0.0.1", "10.0.0.5"],
        "loop.example": ["127.0.0.2", "::1"],
        "nowhere.invalid": None}))
    assert loopback_problem("tcp://127.0.0.1.nip.io:9559") == (
        "'127.0.0.1.nip.io' resolves to 203.0.113.5, not loopback")
    assert loopback_problem("tcp://half.example:9559") == (
        "'half.example' resolves to 10.0.0.5, not loopback")
    assert "cannot resolve the host 'nowhere.invalid'" in loopback_problem(
        "tcp://nowhere.invalid:9559")
    assert loopback_problem("tcp://loop.example:0") is None
    assert loopback_problem("tcp://localhost:9559") is None
    assert loopback_problem("tcp://127.0.0.1:9559") is loopback_problem("tcp://[::1]:0") is None
    assert loopback_problem("tcp://0.0.0.0:0") and loopback_problem("tcp://:9559")
    assert loopback_problem("tcp://[::ffff:10.0.0.1]:0")


def test_the_command_line_refuses_a_name_not_resolving_to_loopback(monkeypatch, capsys):
    monkeypatch.setattr(listen.socket, "getaddrinfo",
                        _resolving({"127.0.0.1.nip.io": ["203.0.113.5"]}))
    assert cli.main(["--listen", "tcp://127.0.0.1.nip.io:9559"]) == 2
    error = capsys.readouterr().err
    assert "refusing to listen on tcp://127.0.0.1.nip.io:9559 ('127.0.0.1.nip.io' resolves " \
           "to 203.0.113.5, not loopback); pass --allow-remote" in error

    class Unlistenable:  # --allow-remote: no check, the robot is started
        def __init__(self, *args, **options):
            assert options["allow_remote"]

        def start(self):
            raise RuntimeError("no such address")

        def stop(self):
            pass
    monkeypatch.setattr(cli, "SimulatedRobot", Unlistenable)
    assert cli.main(["--listen", "tcp://127.0.0.1.nip.io:9559", "--allow-remote"]) == 1
    assert "cannot listen on" in capsys.readouterr().err


def test_the_command_line_refuses_a_name_that_does_not_resolve(monkeypatch, capsys):
    try:
        resolved = {info[4][0] for info in socket.getaddrinfo("127.0.0.1.nip.io", None)}
    except socket.gaierror:
        resolved = None
    if resolved is None:  # offline: the real resolver says no
        assert cli.main(["--listen", "tcp://127.0.0.1.nip.io:9559"]) == 2
        assert "cannot resolve the host '127.0.0.1.nip.io'" in capsys.readouterr().err
    monkeypatch.setattr(listen.socket, "getaddrinfo",
                        _resolving({"127.0.0.1.nip.io": None}))
    assert cli.main(["--listen", "tcp://127.0.0.1.nip.io:9559"]) == 2
    error = capsys.readouterr().err
    assert "cannot resolve the host '127.0.0.1.nip.io'" in error and "--allow-remote" in error


# -- F: the call record keeps the last calls ---------------------------------------------

def test_the_record_keeps_the_last_calls_and_the_file_all(tmp_path):
    assert DEFAULT_LIMIT == 10_000
    path = tmp_path / "calls.jsonl"
    record = CallRecord(path, limit=3)
    for index in range(5):
        record.end(record.start("ALMemory", "getData", ["k%d" % index]), "v%d" % index)
    assert [entry["index"] for entry in record.since(0)] == [2, 3, 4]
    assert [entry["index"] for entry in record.since(3)] == [3, 4]
    assert record.since(9) == []
    assert (record.count(), record.dropped()) == (5, 2)
    record.clear()
    record.end(record.start("ALMemory", "getData", ["k5"]), error="RuntimeError: no k5")
    assert [entry["index"] for entry in record.since(0)] == [5]
    assert (record.count(), record.dropped()) == (6, 2)
    record.close()
    calls = read_calls(path)
    assert [call["args"] for call in calls] == [["k%d" % index] for index in range(6)]
    assert [call.get("result") for call in calls] == ["v0", "v1", "v2", "v3", "v4", None]
    assert calls[5]["error"] == "RuntimeError: no k5"
    with pytest.raises(ValueError):
        CallRecord(limit=0)


def test_a_call_is_recorded_when_it_starts_its_end_added_when_it_ends(tmp_path):
    """A call that lasts is in the record (memory and file) from its start, its end added
    when it ends, even once newer calls pushed it out of memory; listeners get whole calls."""
    path = tmp_path / "calls.jsonl"
    record = CallRecord(path, limit=2)
    ended = []
    record.add_listener(ended.append)
    motion = record.start("ALMotion", "angleInterpolationBezier", [["HeadYaw"]])
    said = record.start("ALTextToSpeech", "say", ["hi"], own=True)
    running = record.since(0)
    assert [entry["method"] for entry in running] == ["angleInterpolationBezier", "say"]
    assert not any("end" in entry or "duration" in entry for entry in running)
    assert running[1]["own"] is True and "own" not in running[0]
    assert [call["index"] for call in read_calls(path)] == [0, 1]  # the file has them too
    time.sleep(0.02)
    record.end(said)
    assert ended[-1]["method"] == "say" and ended[-1]["duration"] >= 0.02
    assert record.since(1)[0]["end"] >= record.since(1)[0]["time"]
    record.end(record.start("ALMemory", "getData", ["k"]), 1)  # pushes the motion out
    record.end(motion, error="RuntimeError: killed")
    assert ended[-1] == {"index": 0, "end": ended[-1]["end"],
                         "duration": ended[-1]["duration"], "error": "RuntimeError: killed"}
    record.close()
    calls = read_calls(path)
    assert calls[0]["error"] == "RuntimeError: killed" and calls[0]["args"] == [["HeadYaw"]]
    assert [call["index"] for call in calls] == [0, 1, 2]
    with pytest.raises(ValueError, match="call 0 of the record is not running"):
        record.end(motion)


def test_the_record_keeps_motion_calls_compressed():
    """A ring full of motion calls (lists of numbers) holds their compressed JSON, a small
    part of what the same values take as Python objects."""
    names = ["Joint%d" % joint for joint in range(10)]
    times = [[0.04 * (key + 1) for key in range(5)] for _ in names]
    keys = [[[(joint * 7 + key) / 13.0, [3, -0.0133, 0.0], [3, 0.0133, 0.0]]
             for key in range(5)] for joint in range(10)]
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        record = CallRecord(limit=1000)
        for _ in range(1500):
            record.end(record.start("ALMotion", "angleInterpolationBezier",
                                    [names, times, keys]))
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert kept < 3 << 20, "1000 motion calls kept in %d kB" % (kept >> 10)
    assert record.since(1499)[0]["args"] == [names, times, keys]


def _joint_readings(record, count):
    """What naoqi_bridge's ``joint_states`` asks 50 times a second: the angles, the motor
    currents and the torso's position, the angles moving a little between readings."""
    joints = ["Joint%d" % joint for joint in range(26)]
    currents = ["Device/SubDeviceList/%s/ElectricCurrent/Sensor/Value" % j for j in joints]
    for reading in range(count):
        angles = [math.sin(reading / 50.0 + joint) for joint in range(26)]
        record.end(record.start("ALMotion", "getAngles", ["Body", True]), angles)
        record.end(record.start("ALMemory", "getListData", [currents]), [None] * 26)
        record.end(record.start("ALMotion", "getPosition", ["Torso", 1, True]),
                   [0.01 * reading, 0.0, 0.33, 0.0, 0.0, 0.0])


def test_a_record_full_of_repeated_readings_stays_small():
    """The default ring full of the joint readings a bridge makes (150 calls/s fill it in
    about a minute) takes about a megabyte: alike calls are compressed together."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        record = CallRecord()
        _joint_readings(record, 4000)
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert record.dropped() == 2000 and len(record.since(0)) == DEFAULT_LIMIT
    assert kept < 3 << 19, "%d calls kept in %d kB" % (DEFAULT_LIMIT, kept >> 10)
    last = record.since(11_999)
    assert [entry["method"] for entry in last] == ["getPosition"]
    assert last[0]["result"] == [39.99, 0.0, 0.33, 0.0, 0.0, 0.0]


def test_calls_ending_late_are_completed_in_their_compressed_block():
    """A call that ends after many newer calls (a motion while readings go on) gets its end
    in the entry kept; so do calls ending in any order."""
    record = CallRecord(limit=500)
    motion = record.start("ALMotion", "angleInterpolationBezier", [["HeadYaw"], [[1.0]], [[0.3]]])
    said = record.start("ALTextToSpeech", "say", ["hello"])
    _joint_readings(record, 100)
    record.end(said, True)
    record.end(motion, error="RuntimeError: killed")
    kept = record.since(0)
    assert [entry["index"] for entry in kept] == list(range(302))
    assert kept[0]["error"] == "RuntimeError: killed" and kept[1]["result"] is True
    assert all("end" in entry for entry in kept)
    _joint_readings(record, 100)
    assert [entry["index"] for entry in record.since(0)] == list(range(102, 602))
    assert [entry["index"] for entry in record.since(600)] == [600, 601]
    assert record.since(700) == [] and record.since(64) == record.since(102)


def _cycles(memory, motion, count, start=0):
    """play / goto / stop-like cycles: ten calls each."""
    for index in range(start, start + count):
        memory.insertData("issue13/index", index)
        memory.getData("issue13/index")
        motion.setAngles("HeadYaw", 0.1 if index % 2 else -0.1, 0.5)
        motion.getAngles(["HeadYaw"], True)
        motion.moveToward(0.1, 0.0, 0.0)
        motion.moveIsActive()
        motion.stopMove()
        motion.getRobotPosition(False)
        memory.raiseEvent("issue13/event", index)
        motion.killTasksUsingResources(["HeadYaw"])


@pytest.mark.slow
def test_the_simulator_memory_stays_flat_over_many_calls(tmp_path):
    record = tmp_path / "calls.jsonl"
    sim = SimProcess("nao", record=record, extra=["--record-limit", "1000"])
    session = qi.Session()
    try:
        session.connect(sim.wait_ready())
        memory, motion = session.service("ALMemory"), session.service("ALMotion")
        recorder = session.service("NaoqiSimRecorder")
        process = psutil.Process(sim.process.pid)
        _cycles(memory, motion, 300)  # warm-up: the ring is full, libqi's caches too
        before = process.memory_info().rss
        started = time.monotonic()
        _cycles(memory, motion, 2000, start=300)
        grown = process.memory_info().rss - before
        assert recorder.count() == 23_000
        assert recorder.dropped() == 22_000
        kept = recorder.calls(0)
        assert len(kept) == 1000 and kept[-1]["index"] == 22_999
        assert [entry["index"] for entry in recorder.calls(22_998)] == [22_998, 22_999]
        assert grown < 5 << 20, "grew %d kB in %.1f s" % (grown >> 10,
                                                           time.monotonic() - started)
    finally:
        session.close()
        code = sim.interrupt()
    assert code == 0, sim.stderr
    calls = read_calls(record)
    assert len(calls) == 23_000 and all("duration" in call for call in calls)
