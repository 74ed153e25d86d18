"""The robot services box code calls, and loading that waits for them before the boxes load."""
from typing import List

from naoqi_qicore.core.robot_services import ServiceNames, service_names

from core_builders import Harness, flow_box, link, script_box


def test_the_names_box_code_reaches_and_those_it_registers():
    source = '''
from naoqi import ALProxy, ALModule
import qi
class Greeter(ALModule):
    pass
class MyClass(GeneratedClass):
    def onLoad(self):
        self.tts = ALProxy("ALTextToSpeech")
        self.leds = ALProxy('ALLeds', "127.0.0.1", 9559)
        self.tablet = self.session().service("ALTabletService")
        self.other = qi.Session().service("ALMotion")
        self.frames = ALProxy("ALFrameManager")
        self.greeter = Greeter("ALGreeter")
        self.session().registerService("ALServedHere", object())
        self.mine = ALProxy("ALGreeter")
        self.dynamic = ALProxy(self.getParameter("Service"))
        self.not_naoqi = ALProxy("MyModule")
        # ALProxy("ALInAComment")
'''
    names = service_names(source)
    assert names.called == {"ALTextToSpeech", "ALLeds", "ALTabletService", "ALMotion",
                            "ALFrameManager", "ALGreeter"}
    assert names.registered == {"ALGreeter", "ALServedHere"}


def test_a_script_that_does_not_parse_is_read_line_by_line():
    python2 = '''
class MyClass(GeneratedClass):
    def onLoad(self):
        print "loading"
        self.tts = ALProxy("ALTextToSpeech")
        self.memory = self.session().service( 'ALMemory' )
'''
    assert service_names(python2) == ServiceNames(frozenset({"ALTextToSpeech", "ALMemory"}))


def two_boxes() -> Harness:
    """Two boxes calling ALTextToSpeech, one of them ALTabletService too; a third registers
    ALServedHere and calls it (in methods the test never has called)."""
    say = "def later(self):\n    self.tts = ALProxy('ALTextToSpeech')\n"
    boxes = [script_box("Say", 1, say),
             script_box("Show", 2, say + "    self.tablet = ALProxy('ALTabletService')\n"),
             script_box("Serve", 3, "def later(self):\n"
                                    "    self.session().registerService('ALServedHere', 1)\n"
                                    "    ALProxy('ALServedHere')\n")]
    waited: List[List[str]] = []

    def await_services(names: List[str]) -> List[str]:
        waited.append(list(names))
        return [name for name in names if name == "ALTabletService"]
    harness = Harness(flow_box("root", -1, boxes, [link(0, 2, 1, 2)]),
                      await_services=await_services)
    harness.waited = waited  # type: ignore[attr-defined]
    return harness


def test_loading_waits_for_the_services_and_reports_those_missing():
    harness = two_boxes()
    player = harness.player
    player.load()
    assert harness.waited == [["ALTabletService", "ALTextToSpeech"]]
    assert player.robot_services() == {"ALTextToSpeech": ["root/Say", "root/Show"],
                                       "ALTabletService": ["root/Show"]}
    [error] = player.errors
    assert (error.box_path, error.where, error.message) == (
        "root/Show", "robot service",
        "the robot does not offer ALTabletService (called by root/Show)")
    player.play()  # the error is one of every run of that load
    harness.settle()
    assert [e.where for e in player.errors] == ["robot service"]
    player.unload()


def test_what_comes_between_the_load_and_the_first_play_is_kept_for_every_run():
    """An application service that crashed on the robot once the behavior was loaded (the
    simulated robot reports it when it installs the application), and the root's onLoad
    that failed: errors of the load, kept by the first play and every one after it."""
    from naoqi_qicore.core.events import BoxError
    root = flow_box("root", -1, [script_box("Say", 1, "def onInput_onStart(self):\n"
                                                      "    self.onStopped()\n")],
                    [link(0, 2, 1, 2), link(1, 4, 0, 4)])
    root.script = script_box("root", -1, "def onLoad(self):\n"
                                         "    raise RuntimeError('no config')\n").script
    harness = Harness(root)
    player = harness.player
    player.load()
    player.record_error(BoxError("root", "app service", "my-app.Main crashed"))
    for _ in range(2):
        player.play()
        harness.settle()
        assert player.status == "FINISHED"
        assert [(e.where, e.message) for e in player.errors] == [
            ("onLoad", "no config"), ("app service", "my-app.Main crashed")]
    player.unload()


def test_without_a_waiter_loading_does_not_wait():
    harness = Harness(flow_box("root", -1, [script_box("Say", 1, "def onLoad(self):\n"
                                                                "    pass\n")], []))
    harness.player.load()
    assert harness.player.errors == []
    harness.player.unload()
