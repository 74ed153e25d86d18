"""A small Choregraphe project of our own that leans on the robot's file layout as real
projects do: the tablet boxes' app name from the behavior path, a module shipped in
``lib/`` imported from ``.lastUploadedChoregrapheBehavior``, a recording in
``/home/nao/recordings/microphones``, sounds under the app folder, ALBehaviorManager
resolving the project's behaviors; and the environment of the processes that run such
behaviors (``main.py``, ``naoqi_sim``)."""
import os
import sys
from pathlib import Path

from naoqi_qicore.robot.sim.services.sound import write_silence

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "test" / "ros"))
from script_behaviors import script_behavior  # noqa: E402

#: the environment of the processes the tests start: this worktree's sources first
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO)] + [
    p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]), PYTHONUNBUFFERED="1")

PACKAGE_ID = "layout-app"
LAST = "/home/nao/.local/share/PackageManager/apps/.lastUploadedChoregrapheBehavior"

#: what the Script box does: every result goes to ALMemory (Test/...)
USES_THE_LAYOUT = '''
def onInput_onStart(self):
    import os, sys
    memory = ALProxy("ALMemory")
    # the standard tablet boxes: the app's name from the behavior path
    path = os.path.normpath(ALProxy("ALFrameManager").getBehaviorPath(self.behaviorId))
    fragment = os.path.join("PackageManager", "apps")
    if fragment not in path:
        raise RuntimeError("appsFolderFragment is not in behaviorPath")
    memory.insertData("Test/AppName", path.split(fragment, 1)[1].lstrip("\\\\/"))
    memory.insertData("Test/Absolute", self.behaviorAbsolutePath().split(fragment, 1)[1])
    # a module shipped with the project, imported from where Choregraphe's play puts it
    sys.path.append("%(last)s/lib")
    import greeting
    memory.insertData("Test/Greeting", greeting.hello())
    memory.insertData("Test/Lib", sorted(n for n in os.listdir("%(last)s/lib")
                                         if n.endswith(".py")))
    with open("%(last)s/data/words.txt") as words:
        memory.insertData("Test/Words", words.read().split())
    # a recording where NAOqi keeps them, read back by the box itself
    recorder = ALProxy("ALAudioRecorder")
    recorder.startMicrophonesRecording("/home/nao/recordings/microphones/test.wav", "wav",
                                       16000, [0, 0, 1, 0])
    time.sleep(0.2)
    recorder.stopMicrophonesRecording()
    memory.insertData("Test/Recorded",
                      os.path.getsize("/home/nao/recordings/microphones/test.wav") > 44)
    # sounds under the app folder, by the behavior's path and by the robot's path
    player = ALProxy("ALAudioPlayer")
    player.playFile(self.behaviorAbsolutePath() + "/sounds/beep.wav")
    player.playFile("%(last)s/behavior_1/sounds/beep.wav")
    manager = ALProxy("ALBehaviorManager")
    memory.insertData("Test/Resolved", [
        manager.resolveBehaviorName(".lastUploadedChoregrapheBehavior/behavior_1"),
        manager.resolveBehaviorName("%(package)s")])
    memory.insertData("Test/Installed", [name for name in manager.getInstalledBehaviors()
                                         if not name.startswith(("animations/", "dialog_"))])
    self.onStopped()
''' % {"last": LAST, "package": PACKAGE_ID}

GREETING = '''# -*- coding: utf-8 -*-
def hello():
    print "greeting imported"  # Python 2, as real projects ship it
    return u"hello from lib"
'''

MANIFEST = ('<?xml version="1.0" encoding="UTF-8" ?>\n<package uuid="%s" version="1.0.0">'
            '<names><name lang="en_US">Layout app</name></names><behaviors>'
            '<behavior path="behavior_1" nature="interactive" name="layout"/></behaviors>'
            '</package>\n' % PACKAGE_ID)
PML = ('<?xml version="1.0" encoding="UTF-8" ?>\n<Package name="layout" format_version="4">'
       '<BehaviorDescriptions><BehaviorDescription name="behavior" src="behavior_1" '
       'xar="behavior.xar" /></BehaviorDescriptions></Package>\n')


def layout_project(folder: Path, box_code: str = USES_THE_LAYOUT) -> Path:
    """``folder/project/``: manifest (package id :data:`PACKAGE_ID`), .pml, behavior_1
    running ``box_code`` in its Script box, lib/greeting.py, data/words.txt and
    behavior_1/sounds/beep.wav; returns the project folder."""
    project = folder / "project"
    (project / "lib").mkdir(parents=True)
    (project / "data").mkdir()
    (project / "manifest.xml").write_text(MANIFEST)
    (project / "layout.pml").write_text(PML)
    (project / "lib" / "greeting.py").write_text(GREETING)
    (project / "data" / "words.txt").write_text("tea coffee\n")
    (project / "behavior_1" / "sounds").mkdir(parents=True)
    script_behavior(project / "behavior_1", "behavior", box_code)
    write_silence(str(project / "behavior_1" / "sounds" / "beep.wav"), 0.1)
    return project
