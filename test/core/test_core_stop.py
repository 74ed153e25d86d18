"""A stop that stops: after stop (or unload), no code of the behavior runs and none of it
calls the robot, whatever the box code does (core.guard, core.box_stdlib, box_calls)."""
import os
import time

import pytest

from naoqi_qicore.core.box import UNLOAD_SECONDS
from naoqi_qicore.core.guard import ENDING_SECONDS
from naoqi_qicore.core.player import STOP_DEADLINE

from core_builders import flow_box, link, script_box

pytestmark = pytest.mark.long_running(minutes=0.5)

#: a stop returns within the deadline plus this much (a loaded machine)
SLACK = 0.6


def one_box(code: str, name: str = "Looping"):
    box = script_box(name, 1, code)
    return flow_box("root", -1, [box], [link(0, 2, 1, 2), link(1, 4, 0, 4)])


def started(harness, box: str = "l1_Looping", what: str = "running") -> None:
    """Load, play and wait until the box's code said ``what``."""
    harness.player.load()
    harness.player.play()
    deadline = time.monotonic() + 10
    while not any(entry[:2] == (box, what) for entry in harness.log):
        assert time.monotonic() < deadline, "the box never said %r: %s" % (what, harness.log)
        time.sleep(0.01)


def timed_stop(harness) -> float:
    began = time.monotonic()
    harness.player.stop()
    return time.monotonic() - began


def counter_frozen(read, period: float = 0.3) -> bool:
    before = read()
    time.sleep(period)
    return read() == before


def stop_errors(harness):
    return [error for error in harness.player.errors if error.where == "stop"]


BUSY = """
def onInput_onStart(self):
    record(self.getName(), "running")
    self.count = 0
    while True:
        self.count += 1
"""

CATCH_ALL = """
def onInput_onStart(self):
    record(self.getName(), "running")
    self.count = 0
    while True:
        try:
            while True:
                self.count += 1
        except:
            self.count += 1
"""


#: blocked in C (a read of a pipe nobody writes to yet: ``self.gate``)
BLOCKED_IN_READ = """
def onInput_onStart(self):
    import os
    self.gate = os.pipe()
    record(self.getName(), "running")
    os.read(self.gate[0], 1)
"""


@pytest.mark.parametrize("code", [BUSY, CATCH_ALL], ids=["busy loop", "bare except"])
def test_stop_ends_a_box_that_never_returns(make_harness, code):
    harness = make_harness(one_box(code))
    started(harness)
    box = harness.player.box_named("l1_Looping").instance
    assert timed_stop(harness) < STOP_DEADLINE + SLACK
    assert harness.player.status == "STOPPED"
    assert counter_frozen(lambda: box.count)
    assert harness.player.guard.box_threads() == []
    assert stop_errors(harness) == []  # it was stopped: nothing left to report


def test_stop_ends_threads_timers_and_callbacks_the_box_started(make_harness):
    harness = make_harness(one_box("""
def onInput_onStart(self):
    import threading, thread
    self.counts = {"thread": 0, "start_new_thread": 0, "timer": 0}
    def spin(name):
        while True:
            self.counts[name] += 1
    threading.Thread(target=spin, args=("thread",)).start()
    thread.start_new_thread(spin, ("start_new_thread",))
    def late():
        self.counts["timer"] += 1
    self.timer_due = time.time() + 2.0
    threading.Timer(2.0, late).start()
    record(self.getName(), "running")
"""), naoqi=True)
    started(harness)
    box = harness.player.box_named("l1_Looping").instance
    began = time.time()
    assert timed_stop(harness) < STOP_DEADLINE + SLACK
    # the timer's time comes after the stop began (2 s after the box started it: a loaded
    # machine with the box's two busy threads took 0.8 s to get there)
    assert began < box.timer_due
    assert counter_frozen(lambda: dict(box.counts), period=0.6)
    time.sleep(max(0.0, box.timer_due + 0.3 - time.time()))
    assert box.counts["timer"] == 0  # its time came after the stop: never called
    assert harness.player.guard.box_threads() == []


def test_stop_ends_qi_callbacks_of_the_box(make_harness, robot):
    simulated, session = robot
    harness = make_harness(one_box("""
def onInput_onStart(self):
    self.count = 0
    self.ticks = 0
    def spin():
        while True:
            self.count += 1
    def tick():
        self.ticks += 1
    qi.runAsync(spin)
    self.task = qi.PeriodicTask()
    self.task.setCallback(tick)
    self.task.setUsPeriod(20000)
    self.task.start(True)
    record(self.getName(), "running")
"""), session=session, naoqi=True)
    started(harness)
    box = harness.player.box_named("l1_Looping").instance
    assert timed_stop(harness) < STOP_DEADLINE + SLACK
    assert counter_frozen(lambda: (box.count, box.ticks))
    assert harness.player.guard.box_threads() == []


def robot_calls(session, method: str):
    return [call for call in session.service("NaoqiSimRecorder").calls(0)
            if call["service"] == "ALTextToSpeech" and call["method"] == method]


def test_a_sleeping_loop_calling_the_robot_makes_no_call_after_the_stop(make_harness, robot):
    simulated, session = robot
    harness = make_harness(one_box("""
def onInput_onStart(self):
    tts = self.session().service("ALTextToSpeech")
    record(self.getName(), "running")
    while True:
        tts.getVolume()
        time.sleep(0.05)
"""), session=session, naoqi=True)
    started(harness)
    time.sleep(0.2)
    assert timed_stop(harness) < 0.5  # the sleep is woken up at once
    stopped_at = time.time()
    time.sleep(0.5)
    assert robot_calls(session, "getVolume")
    # the robot stamps a call when it handles it: the one the box had sent when the stop
    # came may be handled after it (under load), and none may follow (every 50 ms else)
    late = [call for call in robot_calls(session, "getVolume") if call["time"] >= stopped_at]
    assert len(late) <= 1, late
    assert stop_errors(harness) == []


def test_a_robot_call_in_progress_does_not_hold_the_stop(make_harness, robot):
    simulated, session = robot
    harness = make_harness(one_box("""
def onInput_onStart(self):
    record(self.getName(), "running")
    ALProxy("ALTextToSpeech").say("This is a very long sentence that the robot will take "
                                  "many seconds to say, far longer than any stop may take.")
    record(self.getName(), "said")
"""), session=session, naoqi=True)
    started(harness)
    reached(simulated, "ALTextToSpeech", "say")
    assert timed_stop(harness) < 0.5
    assert ("l1_Looping", "said") not in harness.log
    assert harness.player.guard.box_threads() == []


def test_an_onload_that_never_returns_does_not_hold_the_stop(make_harness):
    harness = make_harness(one_box("""
def onLoad(self):
    record(self.getName(), "running")
    while True:
        pass
"""))
    import threading
    harness.player.load()
    player = threading.Thread(target=harness.player.play, daemon=True)
    player.start()  # enters the first state, whose box never leaves onLoad
    deadline = time.monotonic() + 10
    while ("l1_Looping", "running") not in harness.log:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert timed_stop(harness) < STOP_DEADLINE + SLACK
    player.join(2)
    assert not player.is_alive()
    assert harness.player.status == "STOPPED"
    assert harness.player.guard.box_threads() == []


def test_box_code_that_cannot_be_stopped_is_an_error_of_the_run(make_harness):
    harness = make_harness(one_box(BLOCKED_IN_READ))
    started(harness)
    box = harness.player.box_named("l1_Looping").instance
    try:
        assert timed_stop(harness) < STOP_DEADLINE + SLACK
        errors = stop_errors(harness)
        assert len(errors) == 1
        assert errors[0].box_path == "root/Looping"
        assert "still runs" in errors[0].message and "refused" in errors[0].message
        assert "os.read(self.gate[0], 1)" in errors[0].message  # where it is blocked
        assert harness.player.last_error == errors[0].text()
    finally:
        os.write(box.gate[1], b"x")  # let the thread go
        for end in box.gate:
            os.close(end)
    deadline = time.monotonic() + 5
    while harness.player.guard.box_threads():
        assert time.monotonic() < deadline
        time.sleep(0.01)


def test_missing_services_and_methods_are_errors_of_the_run(make_harness, robot):
    simulated, session = robot
    harness = make_harness(one_box("""
def onInput_onStart(self):
    try:
        self.session().service("ALTabletService")
    except RuntimeError:
        pass
    try:
        ALProxy("ALTextToSpeech").sayLouder("hello")
    except AttributeError:
        pass
    record(self.getName(), "running")
"""), session=session, naoqi=True)
    started(harness)
    errors = [(e.box_path, e.where, e.exception_type) for e in harness.player.errors]
    assert errors == [("root/Looping", "robot call", "RuntimeError"),
                      ("root/Looping", "robot call", "AttributeError")]
    first, second = harness.player.errors
    assert "ALTabletService" in first.message
    assert second.message == "ALTextToSpeech has no method sayLouder()"
    assert "onInput_onStart" in first.traceback  # the box code's call stack
    assert harness.player.status == "PLAYING"  # caught by the box: it goes on


def test_an_uncaught_missing_service_is_one_error_of_the_box(make_harness, robot):
    simulated, session = robot
    harness = make_harness(one_box("""
def onInput_onStart(self):
    self.session().service("ALTabletService").showWebview()
"""), session=session, naoqi=True)
    harness.player.load()
    harness.player.play()
    deadline = time.monotonic() + 10
    while not harness.player.errors:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    harness.player.wait_idle(5)
    [error] = harness.player.errors  # the failed call and the box failing: one error
    assert (error.box_path, error.where, error.exception_type) == (
        "root/Looping", "onStart", "RuntimeError")
    assert "ALTabletService" in error.message and "Traceback" in error.traceback


#: a sentence the simulated robot takes about 15 s to say
LONG_SENTENCE = "This is a very long sentence that the robot will take many seconds to say. " * 3


def reached(simulated, service: str, method: str, timeout: float = 10.0) -> None:
    """Wait until the call ``service.method`` reached the robot (its record has it), which
    on a loaded machine may take a while after the box started making it (a stop before
    then cancels it before the robot ever runs it)."""
    deadline = time.monotonic() + timeout
    while not any(call["service"] == service and call["method"] == method
                  for call in simulated.calls()):
        assert time.monotonic() < deadline, "%s.%s never reached the robot" % (service, method)
        time.sleep(0.01)


def ended_call(simulated, service: str, method: str, timeout: float = 1.5):
    """The robot's record of ``service.method`` once the call has returned (a call is
    recorded as it starts, its end added when it returns), waiting ``timeout`` s at most;
    None if it still runs."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        calls = [call for call in simulated.calls() if call["service"] == service
                 and call["method"] == method and "duration" in call]
        if calls:
            return calls[-1]
        time.sleep(0.02)
    return None


@pytest.mark.parametrize("service, call", [
    ("ALTextToSpeech", 'ALProxy("ALTextToSpeech").say(%r)' % LONG_SENTENCE),
    ("ALAnimatedSpeech", 'self.session().service("ALAnimatedSpeech").say(%r)' % LONG_SENTENCE),
    ("ALTextToSpeech", 'ALProxy("ALTextToSpeech").say(%r, _async=True); time.sleep(60)'
     % LONG_SENTENCE),
])
def test_the_stop_ends_the_speech_box_code_started(make_harness, robot, service, call):
    """Box code ended while the robot speaks for it: the speech stops with the behavior
    (the robot's next sentence is not kept waiting)."""
    simulated, session = robot
    harness = make_harness(one_box("""
def onInput_onStart(self):
    record(self.getName(), "running")
    %s
""" % call), session=session, naoqi=True)
    started(harness)
    memory = simulated.service("ALMemory")
    deadline = time.monotonic() + 5
    while memory.getListData(["ALTextToSpeech/TextStarted"]) != [1]:
        assert time.monotonic() < deadline, "the robot never started speaking"
        time.sleep(0.02)
    assert timed_stop(harness) < STOP_DEADLINE + SLACK
    said = ended_call(simulated, service, "say")
    assert said is not None and said["duration"] < 5, "the robot still speaks"
    deadline = time.monotonic() + 2  # raised by the speech worker once the call answered
    while memory.getData("ALTextToSpeech/TextDone") != 1:
        assert time.monotonic() < deadline, "the robot never said it stopped speaking"
        time.sleep(0.02)
    began = time.monotonic()
    session.service("ALTextToSpeech").say("ok")
    assert time.monotonic() - began < 1.0


def test_the_stop_ends_a_posted_say_the_box_left_running(make_harness, robot):
    """A box that posts speech and never stops it (no onUnload): stopping the behavior
    stops the task, as the robot's ALTextToSpeech.stop(id) would."""
    simulated, session = robot
    harness = make_harness(one_box("""
def onInput_onStart(self):
    ALProxy("ALTextToSpeech").post.say(%r)
    record(self.getName(), "running")
    time.sleep(60)
""" % LONG_SENTENCE), session=session, naoqi=True)
    started(harness)
    assert timed_stop(harness) < STOP_DEADLINE + SLACK
    said = ended_call(simulated, "ALTextToSpeech", "stop")
    assert said is not None, "the posted say was not stopped"
    deadline = time.monotonic() + 1.5
    while simulated.service("ALMemory").getData("ALTextToSpeech/TextDone") != 1:
        assert time.monotonic() < deadline, "the robot still speaks"
        time.sleep(0.02)


@pytest.mark.parametrize("service, call", [
    ("ALLeds", 'ALProxy("ALLeds").rasta(60)'),
    ("ALLeds", 'ALProxy("ALLeds").fadeRGB("FaceLeds", 0xFF0000, 60.0)'),
    ("ALAudioPlayer", 'ALProxy("ALAudioPlayer").playSine(440, 50, 0, 60.0)'),
    ("ALMotion", 'ALProxy("ALMotion").angleInterpolation("HeadYaw", 1.0, 60.0, True)'),
])
def test_the_stop_ends_the_animations_sounds_and_moves_box_code_started(make_harness, robot,
                                                                   service, call):
    simulated, session = robot
    method = call.split(").")[1].split("(")[0]
    harness = make_harness(one_box("""
def onInput_onStart(self):
    record(self.getName(), "running")
    %s
""" % call), session=session, naoqi=True)
    started(harness)
    reached(simulated, service, method)
    assert timed_stop(harness) < STOP_DEADLINE + SLACK
    ended = ended_call(simulated, service, method)
    assert ended is not None and ended["duration"] < 5, "%s.%s still runs" % (service, method)


def test_the_stop_stops_a_walk_box_code_started(make_harness, robot):
    simulated, session = robot
    harness = make_harness(one_box("""
def onInput_onStart(self):
    ALProxy("ALMotion").move(0.1, 0.0, 0.0)
    record(self.getName(), "running")
    time.sleep(60)
"""), session=session, naoqi=True)
    started(harness)
    motion = session.service("ALMotion")
    assert motion.moveIsActive()
    assert timed_stop(harness) < STOP_DEADLINE + SLACK
    assert not motion.moveIsActive()


# -- box code blocked in I/O it started, and the stop's own box code -----------------------

def stop_in_thread(harness, timeout: float = 5.0) -> float:
    """The time :meth:`stop` took, run in a thread of its own (a stop that hangs fails the
    test instead of holding it)."""
    import threading
    took = []
    stopper = threading.Thread(target=lambda: took.append(timed_stop(harness)), daemon=True)
    stopper.start()
    stopper.join(timeout)
    assert took, "the stop did not return within %.0f s" % timeout
    return took[0]


def box_threads_end(harness, timeout: float = 2.0) -> None:
    deadline = time.monotonic() + timeout
    while harness.player.guard.box_threads():
        assert time.monotonic() < deadline, harness.player.guard.box_threads()
        time.sleep(0.01)


def test_the_stop_ends_a_server_box_waiting_in_accept(make_harness):
    import socket
    harness = make_harness(one_box("""
def onInput_onStart(self):
    import socket
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    record(self.getName(), "running", server.getsockname()[1])
    connection, address = server.accept()
    record(self.getName(), "accepted")
"""))
    started(harness)
    [port] = [entry[2] for entry in harness.log if entry[1] == "running"]
    assert stop_in_thread(harness) < STOP_DEADLINE + SLACK
    assert harness.player.errors == []  # its accept() failing is the stop's doing
    box_threads_end(harness)
    assert ("l1_Looping", "accepted") not in harness.log
    again = socket.socket()
    try:
        again.bind(("127.0.0.1", port))  # the box's server socket is closed
    finally:
        again.close()


def listening_socket():
    import socket
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    return server


def test_the_stop_ends_a_box_waiting_in_recv_and_closes_its_connection(make_harness):
    server = listening_socket()
    try:
        harness = make_harness(one_box("""
def onInput_onStart(self):
    import socket
    connection = socket.create_connection(("127.0.0.1", %d))
    record(self.getName(), "running")
    while True:
        data = connection.recv(1024)
        record(self.getName(), "received", data)
""" % server.getsockname()[1]))
        started(harness)
        peer, _ = server.accept()
        peer.settimeout(5)
        assert stop_in_thread(harness) < STOP_DEADLINE + SLACK
        assert harness.player.errors == []
        box_threads_end(harness)
        assert peer.recv(16) == b""  # the box's end of the connection is closed
        peer.close()
    finally:
        server.close()


def unanswering_address():
    """A listening socket whose backlog is full, the connections filling it and its
    address: a connect() to it waits (its SYN is dropped) as to a host that never answers."""
    import select
    import socket
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(0)
    fillers = []
    for _ in range(16):
        filler = socket.socket()
        filler.setblocking(False)
        fillers.append(filler)
        filler.connect_ex(server.getsockname())
        if not select.select([], [filler], [], 0.3)[1]:
            return server, fillers
    raise AssertionError("connections to a full backlog were all answered")


def test_the_stop_ends_a_box_waiting_in_connect(make_harness):
    server, fillers = unanswering_address()
    try:
        harness = make_harness(one_box("""
def onInput_onStart(self):
    import socket
    client = socket.socket()
    record(self.getName(), "running")
    client.connect(("127.0.0.1", %d))
    record(self.getName(), "connected")
""" % server.getsockname()[1]))
        started(harness)
        time.sleep(0.1)  # in connect()
        assert stop_in_thread(harness) < STOP_DEADLINE + SLACK
        assert harness.player.errors == []
        box_threads_end(harness)
        assert ("l1_Looping", "connected") not in harness.log
    finally:
        for connection in fillers + [server]:
            connection.close()


@pytest.mark.parametrize("request_code", [
    'import urllib2\n    urllib2.urlopen("http://127.0.0.1:%d/status").read()',
    'import httplib\n    connection = httplib.HTTPConnection("127.0.0.1", %d)\n'
    '    connection.request("GET", "/status")\n    connection.getresponse().read()',
], ids=["urllib2", "httplib"])
def test_the_stop_ends_a_box_waiting_for_an_http_answer(make_harness, request_code):
    server = listening_socket()  # connections are queued, never answered
    try:
        harness = make_harness(one_box("""
def onInput_onStart(self):
    record(self.getName(), "running")
    %s
    record(self.getName(), "answered")
""" % (request_code % server.getsockname()[1])))
        started(harness)
        peer, _ = server.accept()
        peer.settimeout(5)
        assert b"/status" in peer.recv(4096)  # the request was sent: it waits for the answer
        assert stop_in_thread(harness) < STOP_DEADLINE + SLACK
        assert harness.player.errors == []
        box_threads_end(harness)
        assert ("l1_Looping", "answered") not in harness.log
        assert peer.recv(16) == b""
        peer.close()
    finally:
        server.close()


class SlowDialog:
    """ALDialog of a loaded robot: ``deactivateTopic`` answers once ``ended()`` is true
    (the stop's grace is over)."""

    def __init__(self, calls, ended) -> None:
        self._calls = calls
        self._ended = ended

    def deactivateTopic(self, name):  # noqa: N802 (NAOqi name)
        deadline = time.monotonic() + 5
        while not self._ended() and time.monotonic() < deadline:
            time.sleep(0.005)
        self._calls.append(("ALDialog", "deactivateTopic", (name,)))

    def unsubscribe(self, name):
        self._calls.append(("ALDialog", "unsubscribe", (name,)))


def test_an_onunload_calls_a_slow_robot_until_the_stops_deadline(make_harness):
    """A Dialog box's onUnload on a loaded robot: its call answers once the guard has ended
    the other box code (Busy's loop), after the stop's grace; its next call is still
    made."""
    from core_builders import FakeSession
    harness = None

    class SlowRobot(FakeSession):
        def service(self, name):
            if name != "ALDialog":
                return super().service(name)
            return SlowDialog(self.calls,
                              lambda: "root/Busy" not in harness.player.guard.box_threads())

    dialog = script_box("Dialog", 1, """
def onInput_onStart(self):
    self.dialog = ALProxy("ALDialog")
def onUnload(self):
    self.dialog.deactivateTopic("topic")
    self.dialog.unsubscribe("root/Dialog")
""")
    busy = script_box("Busy", 2, BUSY)
    harness = make_harness(flow_box("root", -1, [dialog, busy],
                                    [link(0, 2, 1, 2), link(0, 2, 2, 2)]),
                           session=SlowRobot(), naoqi=True)
    started(harness, "l1_Busy")
    assert stop_in_thread(harness) < STOP_DEADLINE + SLACK
    assert harness.player.errors == []
    assert harness.session.calls[-2:] == [("ALDialog", "deactivateTopic", ("topic",)),
                                          ("ALDialog", "unsubscribe", ("root/Dialog",))]


def test_an_onunload_waiting_on_a_lock_forever_holds_neither_the_stop_nor_the_others(
        make_harness):
    """Choregraphe's boxes take their mutex in onUnload; a box ended while it held it
    leaves it taken.  The other boxes' onUnload methods run all the same."""
    waiting = script_box("Waiting", 1, """
def onInput_onStart(self):
    from threading import Lock
    self.mutex = Lock()
    self.mutex.acquire()
    record(self.getName(), "running")
def onUnload(self):
    self.mutex.acquire()
    record(self.getName(), "took the mutex")
""")
    other = script_box("Other", 2, """
def onUnload(self):
    record(self.getName(), "unloaded")
""")
    harness = make_harness(flow_box("root", -1, [waiting, other],
                                    [link(0, 2, 1, 2), link(1, 4, 0, 4)]))
    started(harness, "l1_Waiting")
    assert stop_in_thread(harness) < STOP_DEADLINE + SLACK
    assert harness.player.errors == []
    box_threads_end(harness)
    assert ("l1_Waiting", "took the mutex") not in harness.log
    assert ("l1_Other", "unloaded") in harness.log


class SlowAnswers:
    """A service of a loaded robot: every method answers ``seconds`` after it is called."""

    def __init__(self, name, calls, seconds: float) -> None:
        self._name = name
        self._calls = calls
        self._seconds = seconds

    def __getattr__(self, method):
        def call(*args):
            time.sleep(self._seconds)
            self._calls.append((self._name, method, args))
        return call


def slow_robot(seconds: float):
    from core_builders import FakeSession

    class SlowRobot(FakeSession):
        def service(self, name):
            if name == "ALMemory":
                return super().service(name)
            return SlowAnswers(name, self.calls, seconds)
    return SlowRobot()


UNSUBSCRIBING = """
def onUnload(self):
    ALProxy("ALDialog").unsubscribe("Dialog")
    ALProxy("ALDialog").unloadTopic("topic")
"""


def stopped_after_unsubscribing(harness) -> None:
    """Play and stop: the stop is bounded and clean, and :data:`UNSUBSCRIBING` made its
    robot calls."""
    from naoqi_qicore.core.player import STOP_LIMIT
    harness.player.load()
    harness.player.play()
    # STOP_DEADLINE + UNLOAD_SECONDS on an idle machine; onUnload threads that get a CPU
    # late each have their time from then, up to the STOP_LIMIT no load stretches
    took = stop_in_thread(harness)
    print("the stop took %.2f s" % took)
    assert took < STOP_LIMIT + SLACK
    assert harness.player.errors == []
    assert harness.session.calls == [("ALDialog", "unsubscribe", ("Dialog",)),
                                     ("ALDialog", "unloadTopic", ("topic",))]


def test_an_onunload_whose_thread_starts_late_still_runs_its_calls(make_harness,
                                                                   monkeypatch):
    """A busy machine gives the onUnload thread a CPU only after the stop's deadline: its
    time counts from when it began to run, so its robot calls are made, not refused."""
    from naoqi_qicore.core.guard import StopCode
    run = StopCode._run

    def late_run(code):
        if code._thread.name.startswith("onUnload "):
            time.sleep(STOP_DEADLINE)  # no CPU for the thread until then
        run(code)
    monkeypatch.setattr(StopCode, "_run", late_run)
    harness = make_harness(one_box(UNSUBSCRIBING, "Dialog"), session=slow_robot(0.1),
                           naoqi=True)
    stopped_after_unsubscribing(harness)


def test_slow_onunload_methods_take_no_time_from_those_unloaded_after_them(make_harness):
    """Each onUnload gets its own time: boxes unloaded after several that wait forever
    still make their slow robot calls."""
    waiting = [script_box("Waiting%d" % number, number, """
def onLoad(self):
    from threading import Lock
    self.mutex = Lock()
    self.mutex.acquire()
def onUnload(self):
    self.mutex.acquire()
""") for number in range(1, 16)]  # (held from the load: a stop may come before onStart)
    last = script_box("Dialog", 16, UNSUBSCRIBING)
    boxes = waiting + [last]
    harness = make_harness(
        flow_box("root", -1, boxes, [link(0, 2, box.id, 2) for box in waiting]),
        session=slow_robot(0.3), naoqi=True)
    stopped_after_unsubscribing(harness)


def test_an_onunload_that_never_returns_is_ended_at_the_end_of_its_time(make_harness):
    """The stop stays bounded: an onUnload busy forever is ended once its time is up."""
    harness = make_harness(one_box("""
def onUnload(self):
    self.count = 0
    while True:
        self.count += 1
"""))
    harness.player.load()
    harness.player.play()
    took = stop_in_thread(harness)
    assert UNLOAD_SECONDS < took < UNLOAD_SECONDS + ENDING_SECONDS + SLACK
    box_threads_end(harness)


def test_a_thread_is_runnable_while_it_computes_not_while_it_is_blocked():
    import sys
    import threading

    from naoqi_qicore.core.guard import _runnable
    if not sys.platform.startswith("linux"):
        pytest.skip("thread states are read in /proc")
    stop, gate = threading.Event(), os.pipe()

    def busy():
        while not stop.is_set():
            pass
    computing = threading.Thread(target=busy, daemon=True)
    blocked = threading.Thread(target=os.read, args=(gate[0], 1), daemon=True)
    computing.start()
    blocked.start()
    try:
        native = {thread.ident: thread.native_id for thread in (computing, blocked)}
        time.sleep(0.1)
        assert _runnable(computing.ident, native)
        assert not _runnable(blocked.ident, native)
        assert not _runnable(12345, native)  # no such thread
    finally:
        stop.set()
        os.write(gate[1], b"x")
        computing.join()
        blocked.join()
        for end in gate:
            os.close(end)


def test_box_code_kept_from_a_cpu_at_the_deadline_gets_until_the_limit(make_harness,
                                                                      monkeypatch):
    """A box thread still running box code at the stop's deadline only because the machine
    gave it no CPU yet is waited for (until the stop's limit), not reported."""
    from naoqi_qicore.core import guard
    from naoqi_qicore.core.player import STOP_LIMIT
    harness = make_harness(one_box(BLOCKED_IN_READ))
    started(harness)
    box = harness.player.box_named("l1_Looping").instance
    monkeypatch.setattr(guard, "_any_runnable", lambda threads: True)
    import threading
    threading.Timer(STOP_DEADLINE + 0.3, os.write, (box.gate[1], b"x")).start()
    try:
        took = stop_in_thread(harness)
        assert STOP_DEADLINE < took < STOP_LIMIT
        assert stop_errors(harness) == []
    finally:
        for end in box.gate:
            os.close(end)
