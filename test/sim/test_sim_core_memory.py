"""ALMemory of the simulated robot across processes: data, events, subscribers, callbacks."""
import os
import sys
import threading

import pytest

qi = pytest.importorskip("qi")

sys.path.insert(0, os.path.dirname(__file__))
from sim_core_support import run_client, sim_session, wait_until  # noqa: E402


@pytest.fixture(scope="module")
def robot():
    with sim_session("pepper") as (sim, session):
        yield sim.url, session


def test_data_round_trip_and_errors(robot):
    _, session = robot
    memory = session.service("ALMemory")
    memory.insertData("Test/Number", 42)
    memory.insertListData([["Test/Text", "hello"], ["Test/List", [1, 2.5, "x"]]])
    assert memory.getData("Test/Number") == 42
    assert memory.getListData(["Test/Text", "Test/List"]) == ["hello", [1, 2.5, "x"]]
    assert memory.getDataList("Test/") == ["Test/List", "Test/Number", "Test/Text"]
    value, seconds, micros = memory.getTimestamp("Test/Number")
    assert value == 42 and seconds > 0 and 0 <= micros < 10 ** 6
    with pytest.raises(RuntimeError, match="ALMemory::getData: Data not found for key "
                                           "'Test/Missing'"):
        memory.getData("Test/Missing")
    memory.removeData("Test/Number")
    with pytest.raises(RuntimeError, match="Data not found"):
        memory.getData("Test/Number")
    with pytest.raises(RuntimeError, match="expected \\[key, value\\] pairs"):
        memory.insertListData([["only a key"]])
    with pytest.raises(RuntimeError, match="takes 1 to 2"):
        memory.getData()
    with pytest.raises(AttributeError):
        memory.getEverything()


def test_events_are_listed(robot):
    _, session = robot
    memory = session.service("ALMemory")
    memory.declareEvent("Test/Declared")
    memory.raiseEvent("Test/Raised", 1)
    memory.raiseMicroEvent("Test/Micro", 2)
    events = memory.getEventList()
    assert {"Test/Declared", "Test/Raised"} <= set(events)
    assert "Test/Micro" in memory.getMicroEventList()
    assert memory.getData("Test/Micro") == 2
    # the robot's own events are there from the start
    assert memory.getData("AutonomousLife/State") == "solitary"


def test_subscriber_signal_fires_for_raises_and_inserts_from_another_process(robot):
    """NAOqi's ALMemory keeps data and events in one map and notifies a key's subscribers of
    every write of it, an insertData as a raiseEvent (its API waits for data writes too:
    getDataOnChange "blocks the caller until the value of a key changes"); a behavior
    waiting on a key another box inserts must react in the simulated robot as well."""
    url, session = robot
    memory = session.service("ALMemory")
    received = []
    subscriber = memory.subscriber("Test/Crossing")
    subscriber.signal.connect(received.append)
    run_client(url, "memory = session.service('ALMemory')\n"
                    "memory.raiseEvent('Test/Crossing', 'raised')\n"
                    "memory.insertData('Test/Crossing', {'inserted': 1})\n"
                    "memory.raiseEvent('Test/Other', 'not for us')")
    assert wait_until(lambda: len(received) == 2)
    # libqi runs signal callbacks on its thread pool: two values can arrive in either order
    assert sorted(received, key=repr) == sorted(["raised", {"inserted": 1}], key=repr)


def test_subscriber_in_another_process_sees_our_events(robot):
    url, session = robot
    memory = session.service("ALMemory")
    ready = threading.Event()
    ready_subscriber = memory.subscriber("Test/ListenerReady")
    ready_subscriber.signal.connect(lambda _: ready.set())
    listener = threading.Thread(target=run_client, args=(url, (
        "import threading\n"
        "memory = session.service('ALMemory')\n"
        "got = threading.Event()\n"
        "sub = memory.subscriber('Test/ToListener')\n"
        "sub.signal.connect(lambda v: (print('got', v, flush=True), got.set()))\n"
        "memory.raiseEvent('Test/ListenerReady', 1)\n"
        "assert got.wait(10)\n")))
    listener.start()
    assert ready.wait(20)
    memory.raiseEvent("Test/ToListener", 7)
    listener.join(30)
    assert not listener.is_alive()


class Module:
    """A client's module, registered in the robot's service directory."""

    def __init__(self):
        self.calls = []

    def onEvent(self, key, value, message):
        self.calls.append((key, value, message))


def test_subscribe_to_event_calls_a_registered_module(robot):
    _, session = robot
    module = Module()
    service_id = session.registerService("TestSubscriberModule", module)
    try:
        memory = session.service("ALMemory")
        memory.subscribeToEvent("Test/Callback", "TestSubscriberModule", "onEvent")
        memory.subscribeToMicroEvent("Test/MicroCallback", "TestSubscriberModule", "hello",
                                     "onEvent")
        assert memory.getSubscribers("Test/Callback") == ["TestSubscriberModule"]
        memory.raiseEvent("Test/Callback", 1)
        memory.raiseMicroEvent("Test/MicroCallback", 2)
        assert wait_until(lambda: len(module.calls) == 2)
        assert module.calls == [("Test/Callback", 1, ""), ("Test/MicroCallback", 2, "hello")]
        memory.unsubscribeToEvent("Test/Callback", "TestSubscriberModule")
        memory.unsubscribeToMicroEvent("Test/MicroCallback", "TestSubscriberModule")
        memory.raiseEvent("Test/Callback", 3)
        memory.raiseEvent("Test/Sync", 0)  # notifications are ordered: this one comes after
        sync = memory.subscriber("Test/Sync")
        seen = []
        sync.signal.connect(seen.append)
        memory.raiseEvent("Test/Sync", 1)
        # the dispatcher may still hold Test/Sync 0 when the subscriber is made: it gets both
        assert wait_until(lambda: 1 in seen)
        assert len(module.calls) == 2
        with pytest.raises(RuntimeError, match="is not subscribed"):
            memory.unsubscribeToEvent("Test/Callback", "TestSubscriberModule")
    finally:
        session.unregisterService(service_id)
