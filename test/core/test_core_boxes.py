"""Boxes: links across nesting levels and through the parent, parameters, failures,
ALMemory inputs, the onLoad rule, resources, stop, the script API."""
import sys
import threading
import time

from naoqi_qicore.xar.model import BehaviorKeyframe, BehaviorLayer, Diagram, Parameter, Port, Resource

from core_builders import (BANG, RECORD, curve, flow_box, link, script_box, stopped,
                           string_parameter, timeline_box)


def names(harness, what):
    return [name for name, kind, *rest in harness.log if kind == what]


def play(harness):
    harness.player.load()
    harness.player.play()
    harness.settle()


def nested_root():
    """root > Outer (flow) > A -> B; Outer's onStopped ends the root."""
    first = script_box("A", 1, RECORD)
    second = script_box("B", 2, RECORD)
    outer = flow_box("Outer", 1, [first, second],
                     [link(0, 2, 1, 2), link(1, 4, 2, 2), link(2, 4, 0, 4)])
    return flow_box("root", -1, [outer], [link(0, 2, 1, 2), link(1, 4, 0, 4)])


def test_links_across_nesting_levels_and_through_the_parent(make_harness):
    harness = make_harness(nested_root())
    play(harness)
    assert harness.player.status == "FINISHED"
    assert names(harness, "onStart") == ["l2_A", "l2_B"]
    # Outer's Stopped output ended it: its diagram was unloaded (NAOqi)
    assert set(names(harness, "onUnload")) == {"l2_A", "l2_B"}
    fired = [(e.box_path, e.detail) for e in harness.kinds("output_fired")]
    assert fired == [("root/Outer/A", "onStopped"), ("root/Outer/B", "onStopped"),
                     ("root/Outer", "onStopped"), ("root", "onStopped")]
    assert harness.player.active_boxes == []


def test_payloads_go_down_and_up_through_two_parents(make_harness):
    """Sender -> Outer.text -> Middle.text -> Echo -> Middle.result -> Outer.result ->
    Receiver: inputs of a parent feed its children (owner 0 as source), outputs of a
    parent are fired by its children (owner 0 as destination)."""
    echo = script_box("Echo", 1, """
def onInput_text(self, p):
    self.result(p.upper())
""", extra_inputs=[Port("text", 3, 1, 1, 5)], outputs=[stopped(4), Port("result", 3, 1, 2, 6)])

    def relay(name, child):
        return flow_box(name, 1, [child], [link(0, 2, 1, 2), link(0, 5, 1, 5), link(1, 6, 0, 6)],
                        extra_inputs=[Port("text", 3, 1, 1, 5)],
                        outputs=[stopped(4), Port("result", 3, 1, 2, 6)])
    sender = script_box("Sender", 2, """
def onInput_onStart(self):
    self.text("hello")
""", outputs=[stopped(4), Port("text", 3, 1, 2, 5)])
    receiver = script_box("Receiver", 3, """
def onInput_heard(self, p):
    record(self.getName(), "heard", p)
    self.onStopped()
""", extra_inputs=[Port("heard", 3, 1, 1, 5)])
    root = flow_box("root", -1, [relay("Outer", relay("Middle", echo)), sender, receiver],
                    [link(0, 2, 1, 2), link(0, 7, 2, 2), link(2, 5, 1, 5), link(1, 6, 3, 5),
                     link(3, 4, 0, 4)], extra_inputs=[Port("go", 1, 1, 1, 7)])
    harness = make_harness(root)
    play(harness)  # Outer and Middle started: their diagrams are loaded
    harness.player.root.stimulate("go")
    harness.settle()
    assert ("l1_Receiver", "heard", "HELLO") in harness.log
    assert harness.player.status == "FINISHED"
    fired = [(e.box_path, e.detail) for e in harness.kinds("output_fired")]
    assert ("root/Outer/Middle/Echo", "result") in fired
    assert ("root/Outer/Middle", "result") in fired and ("root/Outer", "result") in fired


def test_inner_boxes_load_when_their_parent_starts(make_harness):
    harness = make_harness(nested_root())
    harness.player.load()
    assert names(harness, "onLoad") == []
    harness.player.play()
    harness.settle()
    assert names(harness, "onLoad") == ["l2_A", "l2_B"]


THREAD_RECORD = """
def onLoad(self):
    record(self.getName(), "onLoad", __import__("threading").current_thread().name)
def onInput_onStart(self):
    record(self.getName(), "onStart", __import__("threading").current_thread().name)
"""


def test_a_container_root_starts_in_the_thread_calling_play(make_harness):
    """No onStart method on the root: its first state is entered and its boxes' onLoad
    run before play returns, in the caller's thread; the input onLoad stimulates runs in a
    box thread."""
    child = script_box("Child", 1, THREAD_RECORD)
    harness = make_harness(flow_box("root", -1, [child], [link(0, 1, 1, 2)]))
    harness.player.load()
    harness.player.play()
    caller = threading.current_thread().name
    assert ("l1_Child", "onLoad", caller) in harness.log
    harness.settle()
    started = [entry for entry in harness.log if entry[1] == "onStart"]
    assert len(started) == 1 and started[0][2] != caller


def test_a_root_with_an_onstart_method_starts_in_a_box_thread(make_harness):
    root = flow_box("root", -1, [], [], code=THREAD_RECORD)
    harness = make_harness(root)
    harness.player.load()
    harness.player.play()
    harness.settle()
    started = [entry for entry in harness.log if entry[1] == "onStart"]
    assert len(started) == 1 and started[0][2] != threading.current_thread().name


def test_parameters_are_typed_and_inherit_from_ancestors(make_harness):
    reader = script_box("Reader", 1, """
def onInput_onStart(self):
    record(self.getName(), "values", self.getParameter("Speed"), self.getParameter("Loud"),
           self.getParameter("Own"), self.getParameter("Near"), self.getParameter("Alone"),
           sorted(self.getParametersList()))
    self.onStopped()
""", parameters=[Parameter("Speed", 1, "1", "1", 5, inherits_from_parent=1),
                 Parameter("Loud", 0, "1", "0", 6, inherits_from_parent=1),
                 Parameter("Own", 2, "2.5", "2.5", 7, inherits_from_parent=0),
                 Parameter("Near", 1, "3", "3", 8, inherits_from_parent=1),
                 Parameter("Alone", 1, "7", "7", 9, inherits_from_parent=1)])
    middle = flow_box("Middle", 1, [reader], [link(0, 2, 1, 2), link(1, 4, 0, 4)],
                      parameters=[Parameter("Own", 2, "9.0", "9.0", 5),
                                  string_parameter("Near", "from middle", 6)])
    root = flow_box("root", -1, [middle], [link(0, 2, 1, 2), link(1, 4, 0, 4)],
                    parameters=[Parameter("Speed", 1, "42", "0", 5),
                                Parameter("Loud", 0, "0", "0", 6),
                                Parameter("Near", 1, "100", "100", 7)])
    harness = make_harness(root)
    play(harness)
    values = [entry for entry in harness.log if entry[1] == "values"]
    # Speed and Loud come from root (Middle has none), Own is the box's own (it does not
    # inherit), Near from the nearest ancestor having it, in that ancestor's type; no
    # ancestor has Alone: the box's own value
    assert values == [("l2_Reader", "values", 42, False, 2.5, "from middle", 7,
                       ["Alone", "Loud", "Near", "Own", "Speed"])]


def test_a_link_to_a_parameter_sets_it(make_harness):
    sender = script_box("Sender", 1, """
def onInput_onStart(self):
    self.text("hello")
""", outputs=[Port("text", 3, 1, 2, 4)])
    reader = script_box("Reader", 2, """
def onInput_onGo(self):
    record(self.getName(), "read", self.getParameter("Text"))
    self.onStopped()
""", extra_inputs=[Port("onGo", 1, 1, 1, 6)], outputs=[stopped(4)],
        parameters=[string_parameter("Text", "initial", 5)])
    root = flow_box("root", -1, [sender, reader],
                    [link(0, 2, 1, 2), link(1, 4, 2, 5), link(1, 4, 2, 6), link(2, 4, 0, 4)])
    harness = make_harness(root)
    play(harness)
    assert ("l1_Reader", "read", "hello") in harness.log


def test_a_failing_box_is_reported_and_stopped_without_its_output(make_harness):
    failing = script_box("Failing", 1, """
def onInput_onStart(self):
    raise ValueError("no luck")
""")
    after = script_box("After", 2, RECORD)
    other = script_box("Other", 3, """
def onInput_onStart(self):
    record(self.getName(), "onStart")
""")
    root = flow_box("root", -1, [failing, after, other],
                    [link(0, 2, 1, 2), link(1, 4, 2, 2), link(0, 2, 3, 2)])
    harness = make_harness(root)
    play(harness)
    errors = harness.kinds("error")
    assert len(errors) == 1 and errors[0].box_path == "root/Failing"
    assert errors[0].detail == "root/Failing: onStart: ValueError: no luck"
    error = errors[0].data["error"]
    assert (error.box_path, error.where, error.exception_type, error.message) == (
        "root/Failing", "onStart", "ValueError", "no luck")
    assert error.traceback.startswith("Traceback")
    assert "line 3, in onInput_onStart" in error.traceback  # the script's line
    assert "call_user" not in error.traceback  # box code only
    assert names(harness, "onStart") == ["l1_Other"]  # After never started
    assert harness.player.status == "PLAYING"  # the behavior goes on
    assert harness.player.errors == [error]  # an error of the run, visible while it plays
    assert harness.player.last_error == error.text()
    assert "root/Failing" not in harness.player.active_boxes


def test_a_failing_root_fails_the_behavior(make_harness):
    root = flow_box("root", -1, [], [], code="""
def onInput_onStart(self):
    {}["missing"]
""")
    harness = make_harness(root)
    play(harness)
    assert harness.player.status == "ERROR"
    assert harness.player.last_error == "root: onStart: KeyError: 'missing'"
    assert [error.where for error in harness.player.errors] == ["onStart"]


def test_on_error_output_hears_exceptions(make_harness):
    box = script_box("Guarded", 1, """
def onInput_onStart(self):
    raise RuntimeError("bad input")
""", outputs=[stopped(4), Port("onError", 3, 1, 2, 5)])
    root = flow_box("root", -1, [box], [link(0, 2, 1, 2), link(1, 5, 0, 4)],
                    outputs=[stopped(4)])
    harness = make_harness(root)
    play(harness)
    assert harness.kinds("error") == []
    assert harness.player.status == "FINISHED"  # onError went to the root's onStopped


def test_a_box_script_that_does_not_compile_is_reported_at_load(make_harness):
    broken = script_box("Broken", 1, "class MyClass(GeneratedClass):\n    def f(self)\n")
    root = flow_box("root", -1, [broken], [link(0, 2, 1, 2)])
    harness = make_harness(root)
    play(harness)
    assert harness.kinds("error")[0].box_path == "root/Broken"
    detail = harness.kinds("error")[0].detail
    assert "SyntaxError" in detail and "porting it to Python 3 failed" in detail
    assert harness.player.status == "PLAYING"


def test_a_python2_script_runs_ported(make_harness):
    old = script_box("Old", 1, """
def onInput_onStart(self):
    try:
        raise ValueError, "no"
    except ValueError, error:
        print >> sys.stderr, "caught", error
    record(self.getName(), "octal", 0755)
    self.onStopped()
""")
    harness = make_harness(flow_box("root", -1, [old], [link(0, 2, 1, 2), link(1, 4, 0, 4)]))
    play(harness)
    assert harness.kinds("error") == []
    assert ("l1_Old", "octal", 0o755) in harness.log
    assert harness.player.status == "FINISHED"


def test_memory_inputs_fire_only_while_their_level_plays(make_harness):
    touched = script_box("Touched", 1, """
def onInput_onStart(self, p):
    record(self.getName(), "touched", p)
""")
    root = flow_box("root", -1, [touched], [link(0, 5, 1, 2)],
                    extra_inputs=[Port("FrontTactilTouched", 0, 1, 4, 5,
                                       stm_value_name="FrontTactilTouched")])
    harness = make_harness(root)
    memory = harness.session.memory
    harness.player.load()
    memory.raiseEvent("FrontTactilTouched", 1.0)
    harness.player.play()
    harness.settle()
    memory.raiseEvent("FrontTactilTouched", 1.0)
    memory.raiseEvent("FrontTactilTouched", 1.0)  # the same value again still fires
    harness.settle()
    harness.player.stop()
    memory.raiseEvent("FrontTactilTouched", 0.0)
    harness.settle()
    assert [entry for entry in harness.log if entry[1] == "touched"] == [
        ("l1_Touched", "touched", 1.0), ("l1_Touched", "touched", 1.0)]
    assert not memory.signals["FrontTactilTouched"].callbacks


def test_on_load_reaches_only_newly_loaded_keyframes(make_harness):
    long_box = script_box("Long", 1, """
def onInput_onStart(self):
    record(self.getName(), "onStart")
""")
    late_box = script_box("Late", 1, """
def onInput_onStart(self):
    record(self.getName(), "onStart")
""")
    layers = [BehaviorLayer("A", [BehaviorKeyframe("long", 1, Diagram([long_box],
                                                                      [link(0, 1, 1, 2)]))]),
              BehaviorLayer("B", [BehaviorKeyframe("early", 1, Diagram()),
                                  BehaviorKeyframe("late", 10, Diagram([late_box],
                                                                       [link(0, 1, 1, 2)]))])]
    harness = make_harness(timeline_box("root", -1, layers))
    play(harness)
    assert names(harness, "onStart") == ["l1_Long"]
    harness.advance(10 / 25)
    # Long stays loaded across the state change: loaded once, started once
    assert names(harness, "onStart") == ["l1_Long", "l1_Late"]
    assert harness.player.state_names == ["long", "late"]


def test_a_start_waiting_for_the_lock_as_its_box_unloads_does_not_start_it(make_harness):
    """A signal reaches a box input in a thread of its own. When an onStart's thread waits
    for the behavior's lock while a state change holding it unloads the box (its keyframe
    left), the box does not start once the lock is free. A loaded machine showed what the
    old code did: the box's onStart ran after its keyframe was left, jumped the timeline
    back, and the box stayed active after the run had ended."""
    jump = script_box("Jump", 1, """
def onInput_onStart(self):
    record(self.getName(), "onStart")
    self.gotoAndPlayParent("skip")
""")
    layers = [BehaviorLayer("A", [BehaviorKeyframe("skip", 1, Diagram([jump])),
                                  BehaviorKeyframe("end", 10, Diagram())])]
    harness = make_harness(timeline_box("root", -1, layers))
    play(harness)
    box = harness.player.box_named("l1_Jump")
    assert box.loaded
    with harness.player.lock:  # held, as a state change holds it
        starting = threading.Thread(target=box.receive, args=(box.inputs["onStart"], None))
        starting.start()
        deadline = time.monotonic() + 5
        while not _runs(starting, "_start"):  # past the input's checks, at the lock
            assert time.monotonic() < deadline, "the signal never reached the box's start"
            time.sleep(0.001)
        box.unload()
    starting.join(5)
    assert not starting.is_alive()
    harness.settle()
    assert names(harness, "onStart") == [] and not box.active
    assert harness.player.active_boxes == ["root"]
    assert not [event for event in harness.kinds("box_started") if event.box_path == box.path]


def _runs(thread: threading.Thread, function: str) -> bool:
    """Whether ``thread`` is inside a call of ``function`` now."""
    frame = sys._current_frames().get(thread.ident)
    while frame is not None:
        if frame.f_code.co_name == function:
            return True
        frame = frame.f_back
    return False


#: a box whose onStop relies on what its onStart set (as many real boxes' do)
ONSTOP_AFTER_ONSTART = """
def onInput_onStart(self):
    self.started = True
    record(self.getName(), "onStart")
def onInput_onStop(self):
    if self.started:  # AttributeError when onStart never ran
        record(self.getName(), "onStop")
def onUnload(self):
    record(self.getName(), "onUnload")
"""


def test_stop_unloads_every_loaded_box_and_calls_no_onstop(make_harness):
    """As NAOqi stops a behavior: the onUnload of every loaded box runs, started or not;
    no onInput_onStop does (the never started box's would fail)."""
    waiting = script_box("Waiting", 1, ONSTOP_AFTER_ONSTART)
    idle = script_box("Idle", 2, ONSTOP_AFTER_ONSTART)  # loaded with the diagram, not started
    root = flow_box("root", -1, [waiting, idle], [link(0, 2, 1, 2), link(1, 4, 0, 4)])
    harness = make_harness(root)
    play(harness)
    assert harness.player.active_boxes == ["root", "root/Waiting"]
    harness.player.stop()
    harness.settle()
    assert harness.player.status == "STOPPED"
    assert harness.player.errors == []
    assert names(harness, "onStop") == []
    assert sorted(names(harness, "onUnload")) == ["l1_Idle", "l1_Waiting"]
    assert harness.player.active_boxes == []
    assert not [e for e in harness.kinds("output_fired") if e.box_path == "root"]


def test_an_onstop_input_a_link_stimulates_runs_its_method(make_harness):
    """Waiting started, then Stopper's onStopped reaches Waiting's onStop input."""
    waiting = script_box("Waiting", 1, ONSTOP_AFTER_ONSTART.replace(
        '"onStart")', '"onStart")\n    self.ready()'),
        outputs=[stopped(), Port("ready", BANG, 1, 2, 5)])
    stopper = script_box("Stopper", 2, RECORD)
    root = flow_box("root", -1, [waiting, stopper],
                    [link(0, 2, 1, 2), link(1, 5, 2, 2), link(2, 4, 1, 3)])
    harness = make_harness(root)
    play(harness)
    assert names(harness, "onStop") == ["l1_Waiting"]
    assert harness.player.active_boxes == ["root"]
    assert harness.player.errors == []


def test_script_api_and_python2_names(make_harness):
    box = script_box("Api", 1, """
import Queue

class MyClass(GeneratedClass):
    def __init__(self):
        GeneratedClass.__init__(self, False)
    def onInput_onStart(self):
        record(self.getName(), "api", self.boxName, self.behaviorId == ALFrameManager._behavior.behavior_id,
               unicode("x"), list(xrange(2)), long(3), isinstance("s", basestring),
               Queue.Queue().empty(), self.logger.name, self.getTimeline() is None,
               self.getParentTimeline() is not None, self.session() is not None)
        self.BIND_PYTHON(self.getName(), "setParameter")
        self.onStopped()
""")
    harness = make_harness(flow_box("root", -1, [box], [link(0, 2, 1, 2)]))
    play(harness)
    assert harness.kinds("error") == []
    (entry,) = [e for e in harness.log if e[1] == "api"]
    assert entry[2:] == ("l1_Api", True, "x", [0, 1], 3, True, True,
                         "naoqi_qicore.box.l1_Api", True, True, True)


def test_input_arity_rule(make_harness):
    box = script_box("Arity", 1, """
def onInput_bare(self):
    record(self.getName(), "bare")
def onInput_value(self, p):
    record(self.getName(), "value", p)
def onInput_onStart(self):
    self.stimulateIO("bare", 5)
    self.stimulateIO("value", 7)
""", extra_inputs=[Port("bare", 1, 1, 1, 6), Port("value", 2, 1, 1, 7)])
    harness = make_harness(flow_box("root", -1, [box], [link(0, 2, 1, 2)]))
    play(harness)
    assert ("l1_Arity", "bare") in harness.log and ("l1_Arity", "value", 7) in harness.log


def test_stop_on_demand_resource_stops_its_holder(make_harness):
    holder = script_box("Holder", 1, """
def onInput_onStart(self):
    record(self.getName(), "onStart")
def onResourceLost(self):
    record(self.getName(), "lost")
""", resources=[Resource("Audio player", "Stop on demand", "0")])
    asker = script_box("Asker", 2, RECORD, resources=[Resource("Audio player", "Lock", "0")])
    go = Port("go", 1, 1, 1, 6)
    root = flow_box("root", -1, [holder, asker], [link(0, 2, 1, 2), link(0, 6, 2, 2)],
                    extra_inputs=[go])
    harness = make_harness(root)
    play(harness)
    assert harness.player.resources.owner("Audio player") is harness.player.box_named("l1_Holder")
    harness.player.root.receive(go, None)
    harness.settle()
    assert ("l1_Holder", "lost") in harness.log
    assert names(harness, "onStart") == ["l1_Holder", "l1_Asker"]
    assert harness.player.resources.are_free(["Audio player"])  # Asker stopped: released


def test_busy_lock_ends_the_asker(make_harness):
    holder = script_box("Holder", 1, """
def onInput_onStart(self):
    record(self.getName(), "onStart")
""", resources=[Resource("Speech", "Lock", "0")])
    asker = script_box("Asker", 2, RECORD, resources=[Resource("Speech", "Lock", "0")])
    after = script_box("After", 3, RECORD)
    root = flow_box("root", -1, [holder, asker, after],
                    [link(0, 2, 1, 2), link(1, 4, 2, 2), link(0, 5, 2, 2), link(2, 4, 3, 2)],
                    extra_inputs=[Port("go", 1, 1, 1, 5)])
    harness = make_harness(root)
    play(harness)
    harness.player.root.stimulate("go")
    harness.settle()
    # the asker could not get Speech: it ended (its onStopped went on) without running
    assert names(harness, "onStart") == ["l1_Holder", "l1_After"]


def test_package_paths_as_box_scripts_use_them(tmp_path):
    from naoqi_qicore.core.generated import package_info
    package = tmp_path / ".local" / "apps"
    behavior_folder = package / "behavior_1"
    behavior_folder.mkdir(parents=True)
    assert package_info(str(behavior_folder)) == ("behavior_1", "")
    (package / "manifest.xml").write_text('<package uuid="my-app" version="1.0"/>')
    assert package_info(str(behavior_folder)) == ("my-app", "behavior_1")
    assert package_info(str(package)) == ("my-app", "")
    (package / "manifest.xml").write_text("<package/>")
    assert package_info(str(behavior_folder)) == ("apps", "behavior_1")
    for folder in (behavior_folder, package):  # the idiom of real boxes: the package folder
        uid, relative = package_info(str(folder))
        assert str(folder).replace(relative, "").rstrip("/") == str(
            package if relative else folder)


def test_what_box_code_logs_at_warning_and_above_is_a_warning_of_the_run(make_harness, caplog):
    """The Show App box's "Got tablet service, but failed to set application" (a
    logger.warning) is part of what the run tells, as its errors are, whatever the log
    level; lines below WARNING are not, and logging still shows only what its level lets
    through."""
    import logging
    box = script_box("Show App", 1, """
def onInput_onStart(self):
    self.logger.debug("looking for the tablet")
    self.log("found it")
    self.logger.warning("Got tablet service, but failed to set application: %s" % "app")
    self.logger.error("ERROR: Could not set application: app")
    self.logger.warning("Got tablet service, but failed to set application: %s" % "app")
    self.logger.warning("%d%d", 1)  # box code's own format error
    self.onStopped()
""")
    caplog.set_level(logging.ERROR)  # warnings not shown by logging
    harness = make_harness(flow_box("root", -1, [box], [link(0, 2, 1, 2), link(1, 4, 0, 4)]))
    play(harness)
    assert harness.player.status == "FINISHED" and harness.player.errors == []
    warnings = harness.player.warnings
    assert [(w.box_path, w.where) for w in warnings] == [("root/Show App", "log")] * 3
    assert [w.message for w in warnings][:2] == [
        "Got tablet service, but failed to set application: app",
        "ERROR: ERROR: Could not set application: app"]
    assert "%d%d" in warnings[2].message
    assert len(harness.kinds("warning")) == 3
    shown = [r.getMessage() for r in caplog.records if r.name == "naoqi_qicore.box.l1_Show_App"]
    assert shown == ["ERROR: Could not set application: app"]


def test_a_box_failing_in_a_long_timeline_leaves_the_behavior_playing(make_harness, robot):
    """A sound box whose file is missing fails 7 s into a 24.6 s timeline: its failure is
    an error of the run, and the other layers (boxes, motion) play to the end, where the
    run FINISHED (with that error), as on the robot: nothing links the failing box to the
    end of the behavior."""
    simulated, session = robot
    sound_file = script_box("Play Sound File", 2, """
def onInput_onStart(self, p):
    self.session().service("ALAudioPlayer").playFile(p)
    self.onStopped()
""")
    get_file = script_box("Get Attached File", 1, """
def onInput_onStart(self):
    self.onStopped("/home/nao/missing_sound.ogg")
""", outputs=[Port("onStopped", 3, 1, 2, 4)])
    play_sound = flow_box("Play Sound", 1, [get_file, sound_file],
                          [link(0, 2, 1, 2), link(1, 4, 2, 2), link(2, 4, 0, 4)])

    def keyframe(name, index, box):
        return BehaviorKeyframe(name, index, Diagram([box], [link(0, 1, 1, 2)]))
    leds = [keyframe("eyes%d" % index, index, script_box("Eyes%d" % index, 1, RECORD))
            for index in (1, 300, 500)]
    root = timeline_box("root", -1, [
        BehaviorLayer("sound", [keyframe("sound", 175, play_sound)]),
        BehaviorLayer("leds", leds)],
        curves=[curve("HeadYaw", [(5, 0.0), (300, 20.0), (615, 0.0)])])
    harness = make_harness(root, session=session, naoqi=True)
    play(harness)
    harness.advance(7.5)
    assert harness.player.status == "PLAYING"
    [error] = harness.player.errors
    assert (error.box_path, error.where, error.exception_type) == (
        "root/Play Sound/Play Sound File", "onStart", "RuntimeError")
    assert "missing_sound.ogg" in error.message
    harness.advance(18)
    assert harness.player.status == "FINISHED"
    assert harness.player.last_frame == 615
    assert names(harness, "onStart") == ["l1_Eyes1", "l1_Eyes300", "l1_Eyes500"]
    assert len(harness.player.errors) == 1
