"""Box scripts share their globals, as NAOqi ran them: a name one box's code defines (at
module level, or with ``global`` in a method) is seen by the boxes that run after it, while
every box keeps its own ``MyClass`` and its own outputs."""
from naoqi_qicore.xar.model import Port

from core_builders import FakeSession, flow_box, link, script_box, stopped

SETUP = """
SERVER_PORT = 9559

class MyClass(GeneratedClass):
    def __init__(self):
        GeneratedClass.__init__(self)

    def onInput_onStart(self):
        global server
        server = "10.0.0.7:%d" % SERVER_PORT
        self.ready()
"""

CLIENT = """
class MyClass(GeneratedClass):
    def __init__(self):
        GeneratedClass.__init__(self, False)

    def onInput_onStart(self):
        record(self.getName(), "server", server, SERVER_PORT)
        self.onStopped()
"""


def setup_then_client():
    """root -> Setup -> (ready) -> Client -> root's onStopped."""
    setup = script_box("Setup", 1, SETUP, outputs=[Port("ready", 1, 1, 2, 4)])
    client = script_box("Client", 2, CLIENT)
    return flow_box("root", -1, [setup, client],
                    [link(0, 2, 1, 2), link(1, 4, 2, 2), link(2, 4, 0, 4)])


def test_a_name_one_box_defines_is_seen_by_the_next(make_harness):
    harness = make_harness(setup_then_client())
    harness.player.load()
    harness.player.play()
    harness.settle()
    assert harness.player.errors == []
    assert harness.log == [("l1_Client", "server", "10.0.0.7:9559", 9559)]
    assert harness.player.status == "FINISHED"


def test_boxes_keep_their_own_class_and_outputs(make_harness):
    """Three boxes define ``MyClass`` with the same name (two with the same text, as a
    library box used twice): each box runs its own, with its own outputs."""
    counter = """
class MyClass(GeneratedClass):
    def onInput_onStart(self):
        record(self.getName(), "counted")
        self.next()
"""
    first = script_box("First", 1, counter, outputs=[Port("next", 1, 1, 2, 4)])
    second = script_box("Second", 2, counter, outputs=[Port("next", 1, 1, 2, 4)])
    last = script_box("Last", 3, """
class MyClass(GeneratedClass):
    def onInput_onStart(self):
        record(self.getName(), "last", type(self).__module__)
        self.onStopped()
""", outputs=[stopped(4)])
    root = flow_box("root", -1, [first, second, last],
                    [link(0, 2, 1, 2), link(1, 4, 2, 2), link(2, 4, 3, 2), link(3, 4, 0, 4)])
    harness = make_harness(root)
    harness.player.load()
    harness.player.play()
    harness.settle()
    assert harness.player.errors == []
    assert harness.log == [("l1_First", "counted"), ("l1_Second", "counted"),
                           ("l1_Last", "last", "l1_Last")]
    assert harness.player.status == "FINISHED"


class BrokenSession(FakeSession):
    """A robot whose ALBroken service fails every call."""

    def service(self, name):
        if name == "ALBroken":
            class Broken:
                def fail(self):
                    raise RuntimeError("ALBroken cannot")
            return Broken()
        return super().service(name)


def test_a_robot_call_is_the_error_of_the_box_whose_code_makes_it(make_harness):
    """Box code shares its globals: which box makes a call is told by the code running."""
    first = script_box("First", 1, """
def onInput_onStart(self):
    global broken
    broken = ALProxy("ALBroken")
    self.onStopped()
""")
    second = script_box("Second", 2, """
def onInput_onStart(self):
    broken.fail()
""")
    root = flow_box("root", -1, [first, second], [link(0, 2, 1, 2), link(1, 4, 2, 2)])
    harness = make_harness(root, session=BrokenSession(), naoqi=True)
    harness.player.load()
    harness.player.play()
    harness.settle()
    paths = {error.box_path for error in harness.player.errors}
    assert paths == {"root/Second"}
    assert any("ALBroken cannot" in error.message for error in harness.player.errors)
