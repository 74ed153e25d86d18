"""Robot resources of boxes as NAOqi shares them: a box inside the holder of a resource may
take it too (Choregraphe's Stand Up box holds "All motors" around its Goto Posture box),
boxes outside wait or end, and a box that ends because its resources stay busy tells the
run."""
from naoqi_qicore.xar.model import Parameter, Port, Resource

from core_builders import RECORD, flow_box, link, script_box, stopped, string_parameter

#: the Goto Posture box of Choregraphe's box library, in its shape (its own words)
GOTO_POSTURE = """
class MyClass(GeneratedClass):
    def __init__(self):
        GeneratedClass.__init__(self, False)

    def onLoad(self):
        self.tries = 0
        self.posture = self.session().service("ALRobotPosture")

    def onUnload(self):
        self.posture.stopMove()

    def onInput_onStart(self):
        if self.tries != self.getParameter("Maximum of tries"):
            self.tries = self.getParameter("Maximum of tries")
            self.posture.setMaxTryNumber(self.tries)
        if self.posture.goToPosture(self.getParameter("Name"),
                                    self.getParameter("Speed (%)") / 100.):
            self.success()
        else:
            self.failure()

    def onInput_onStop(self):
        self.onUnload()
"""
SUCCESS_FAILURE = [Port("success", 1, 1, 1, 4), Port("failure", 1, 1, 1, 5)]


def tries(pid: int, inherits: int = 0) -> Parameter:
    return Parameter("Maximum of tries", 1, "3", "3", pid, inherits_from_parent=inherits)


def stand_up(box_id: int = 1):
    """A Stand Up box as the library's: it holds "All motors" (Lock) while its Goto Posture
    box, which declares "All motors" and "Stiffness" (Lock, timeout 0), moves."""
    goto = script_box("Goto Posture", 2, GOTO_POSTURE, outputs=SUCCESS_FAILURE, parameters=[
        string_parameter("Name", "Stand", 6), Parameter("Speed (%)", 1, "80", "80", 7),
        tries(8, inherits=1)],
        resources=[Resource("All motors", "Lock", "0"), Resource("Stiffness", "Lock", "0")])
    return flow_box("Stand Up", box_id, [goto],
                    [link(0, 2, 2, 2), link(2, 4, 0, 4), link(2, 5, 0, 5)],
                    outputs=SUCCESS_FAILURE, parameters=[tries(6)],
                    resources=[Resource("All motors", "Lock", "0")])


def play(harness):
    harness.player.load()
    harness.player.play()
    harness.settle()


#: a box that holds its resources once started
HOLDS = "def onInput_onStart(self):\n    pass\n"


def asked_after_held(make_harness, holder, asker):
    """A behavior whose root starts ``holder`` (id 2), then, once it runs, ``asker`` (id 1)
    through the root's input "go"; played, "go" given: its harness."""
    go = Port("go", 1, 1, 1, 6)
    root = flow_box("root", -1, [asker, holder], [link(0, 2, 2, 2), link(0, 6, 1, 2)],
                    extra_inputs=[go])
    harness = make_harness(root)
    play(harness)
    harness.player.root.receive(go, None)
    harness.settle()
    return harness


def posture_calls(harness):
    return [method for service, method, _ in harness.session.calls if service == "ALRobotPosture"]


def test_the_stand_up_box_moves_its_goto_posture_inside_it(make_harness):
    after = script_box("After", 2, RECORD)
    root = flow_box("root", -1, [stand_up(), after],
                    [link(0, 2, 1, 2), link(1, 4, 2, 2), link(2, 4, 0, 4)])
    harness = make_harness(root)
    play(harness)
    assert posture_calls(harness)[:2] == ["setMaxTryNumber", "goToPosture"]
    assert harness.player.status == "FINISHED"
    assert [e.detail for e in harness.kinds("output_fired") if e.box_path == "root/Stand Up"] \
        == ["success"]
    assert harness.player.warnings == [] and harness.player.errors == []
    assert harness.player.resources.are_free(["All motors", "Stiffness"])


def test_a_box_outside_the_holder_gets_no_resource_and_the_run_says_so(make_harness):
    """Another box holds "All motors": the Stand Up box does not run (NAOqi fires no output
    of a box that has no onStopped), and the run has a warning naming the holder."""
    holder = script_box("Holder", 2, HOLDS, resources=[Resource("All motors", "Lock", "0")])
    harness = asked_after_held(make_harness, holder, stand_up())
    assert "goToPosture" not in posture_calls(harness)
    assert [e for e in harness.kinds("output_fired") if e.box_path == "root/Stand Up"] == []
    assert [(w.box_path, w.where, w.message) for w in harness.player.warnings] == [
        ("root/Stand Up", "resources", "the robot resources All motors stayed busy (held by "
         "root/Holder): the box did not run, no output fired")]
    assert [e.detail for e in harness.kinds("warning")] == [
        w.text() for w in harness.player.warnings]
    assert harness.player.errors == []


def test_a_busy_box_fires_its_onstopped_output_not_another_stopped_one(make_harness):
    """NAOqi ends a box whose resources stay busy through its onStopped output: a box
    whose first Stopped output is "success" does not report a success."""
    holder = script_box("Holder", 2, HOLDS, resources=[Resource("Speech", "Lock", "0")])
    asker = script_box("Asker", 1, RECORD, outputs=[stopped(4, "success"), stopped(5)],
                       resources=[Resource("Speech", "Lock", "0")])
    harness = asked_after_held(make_harness, holder, asker)
    assert [e.detail for e in harness.kinds("output_fired") if e.box_path == "root/Asker"] \
        == ["onStopped"]
    assert [w.message for w in harness.player.warnings] == [
        "the robot resources Speech stayed busy (held by root/Holder): the box did not run, "
        "its onStopped output fired"]


def test_a_holder_asked_to_stop_on_demand_ends_through_onstopped(make_harness):
    holder = script_box("Holder", 2, HOLDS, outputs=[stopped(4, "success"), stopped(5)],
                        resources=[Resource("Audio player", "Stop on demand", "0")])
    asker = script_box("Asker", 1, RECORD, resources=[Resource("Audio player", "Lock", "0")])
    harness = asked_after_held(make_harness, holder, asker)
    assert [e.detail for e in harness.kinds("output_fired") if e.box_path == "root/Holder"] \
        == ["onStopped"]
    assert ("l1_Asker", "onStart") in harness.log
