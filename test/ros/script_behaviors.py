"""Small Choregraphe behaviors written for the ROS tests: a root running one script box or
a chain of them, and a timeline moving joints."""
from pathlib import Path
from textwrap import indent
from typing import List, Tuple

PORTS = """<Input name="onLoad" type="1" type_size="1" nature="0" inner="1" tooltip="" id="1"/>
<Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="" id="2"/>
<Input name="onStop" type="1" type_size="1" nature="3" inner="0" tooltip="" id="3"/>
<Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="" id="4"/>"""

PROJECT = """<?xml version="1.0" encoding="UTF-8" ?>
<ChoregrapheProject xmlns="http://www.aldebaran-robotics.com/schema/choregraphe/project.xsd" \
xar_version="3">
%s
</ChoregrapheProject>
"""


#: a box body that asks until it hears "yes" (ALSpeechRecognition), then says goodbye
#: and stops
WAITS_FOR_YES = """
def onLoad(self):
    self.memory = ALProxy("ALMemory")
    self.tts = ALProxy("ALTextToSpeech")
    ALProxy("ALSpeechRecognition").setVocabulary(["yes", "no"], False)
def onInput_onStart(self):
    self.memory.subscribeToEvent("WordRecognized", self.getName(), "onWord")
    self.tts.say("Shall we go on?")
def onWord(self, key, value, message):
    if value[0] != "yes":
        self.tts.say("Sorry. Shall we go on?")
        return
    self.memory.unsubscribeToEvent("WordRecognized", self.getName())
    self.tts.say("Good, goodbye")
    self.onStopped()
"""


def _box(name: str, box_id: int, code: str, inside: str = "") -> str:
    script = '<script language="4"><content><![CDATA[%s]]></content></script>' % code
    return '<Box name="%s" id="%d" localization="8" tooltip="" x="0" y="0">\n%s\n%s\n%s</Box>' % (
        name, box_id, script, PORTS, inside)


def _class(body: str) -> str:
    return "class MyClass(GeneratedClass):\n" + indent((body.strip("\n") or "pass") + "\n",
                                                     "    ")


def script_behavior(folder: Path, name: str, box_code: str, root_code: str = "") -> Path:
    """``folder/name.xar``: the root starts a box named "Script" running ``box_code`` (a
    ``MyClass`` body); the box's onStopped ends the root.  ``root_code``: the root's own
    ``MyClass`` body (none by default)."""
    return chain_behavior(folder, name, [("Script", box_code)], root_code)


def chain_behavior(folder: Path, name: str, boxes: List[Tuple[str, str]],
                   root_code: str = "") -> Path:
    """``folder/name.xar``: the root starts the script boxes ``(name, MyClass body)`` one
    after the other (each one's onStopped starts the next); the last one ends the root.
    ``root_code``: the root's own ``MyClass`` body (none by default)."""
    parts = [_box(box_name, index, _class(code)) for index, (box_name, code)
             in enumerate(boxes, 1)]
    for index in range(len(boxes) + 1):  # 0: the root's onStart, then each onStopped
        source, target = index, index + 1 if index < len(boxes) else 0
        parts.append('  <Link inputowner="%d" indexofinput="%d" outputowner="%d" '
                     'indexofoutput="%d"/>' % (target, 2 if target else 4, source,
                                               4 if source else 2))
    timeline = ('<Timeline enable="0"><BehaviorLayer name="behavior_layer1">'
                '<BehaviorKeyframe name="keyframe1" index="1">\n<Diagram>\n%s\n</Diagram>\n'
                '</BehaviorKeyframe></BehaviorLayer></Timeline>' % "\n".join(parts))
    root = _box("root", -1, _class(root_code) if root_code else "", timeline)
    path = folder / (name + ".xar")
    path.write_text(PROJECT % root, encoding="utf-8")
    return path


def layered_behavior(folder: Path, name: str, layers: dict, joints: dict, fps: int = 25) -> Path:
    """``folder/name.xar``: a root timeline moving ``joints`` (as :func:`motion_behavior`)
    whose behavior layers (layer -> [(keyframe index, box name, MyClass body)]) each start,
    at its keyframe, a script box (the keyframe's onLoad starts it; its outputs go
    nowhere)."""
    keyframes = "\n".join(
        '<BehaviorLayer name="%s">%s</BehaviorLayer>' % (layer, "".join(
            '<BehaviorKeyframe name="%s" index="%d"><Diagram>%s\n<Link inputowner="1" '
            'indexofinput="2" outputowner="0" indexofoutput="1"/></Diagram></BehaviorKeyframe>'
            % (box_name, index, _box(box_name, 1, _class(code)))
            for index, box_name, code in keyframe_boxes))
        for layer, keyframe_boxes in layers.items())
    return motion_behavior(folder, name, joints, fps, keyframes)


def motion_behavior(folder: Path, name: str, joints: dict, fps: int = 25,
                    layers: str = "") -> Path:
    """``folder/name.xar``: a root timeline moving ``joints`` (joint -> [(frame, degrees)]),
    with the behavior ``layers`` given (their XML)."""
    curves = "\n".join(
        '<ActuatorCurve name="value" actuator="%s" recordable="1" mute="0" unit="0">\n%s\n'
        '</ActuatorCurve>' % (joint, "\n".join('  <Key frame="%d" value="%s"/>' % key
                                                for key in keys))
        for joint, keys in joints.items())
    timeline = ('<Timeline enable="1" fps="%d" start_frame="0" end_frame="-1" size="%d" '
                'resources_acquisition="0">\n%s<ActuatorList model="nao">\n%s\n</ActuatorList>\n'
                '</Timeline>' % (fps, max(frame for keys in joints.values() for frame, _ in keys),
                                 layers, curves))
    path = folder / (name + ".xar")
    path.write_text(PROJECT % _box("root", -1, "", timeline), encoding="utf-8")
    return path
