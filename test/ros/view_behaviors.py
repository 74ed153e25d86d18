"""Small behaviors written for the live view's tests: boxes inside boxes with a timeline
deep inside and a Comment box."""
from pathlib import Path

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

#: the links of a flow diagram holding one box (id 1): its onStart starts the box, the box's
#: onStopped ends it
THROUGH = """<Link inputowner="1" indexofinput="2" outputowner="0" indexofoutput="2"/>
<Link inputowner="0" indexofinput="4" outputowner="1" indexofoutput="4"/>"""

#: what the Comment box of the root says
COMMENT = "Greeting waves the arms, then stops. Look inside it: Wave Arms is a timeline."


def flow_box(name: str, box_id: int, diagram: str) -> str:
    """A box holding a flow diagram."""
    return ('<Box name="%s" id="%d" localization="8" tooltip="" x="0" y="0">%s\n'
            '<Timeline enable="0"><BehaviorLayer name="behavior_layer1">'
            '<BehaviorKeyframe name="keyframe1" index="1"><Diagram>\n%s\n</Diagram>'
            '</BehaviorKeyframe></BehaviorLayer></Timeline></Box>' % (name, box_id, PORTS, diagram))


def timeline_box(name: str, box_id: int, fps: int, frames: int, labels: dict,
                 motion: str = "") -> str:
    """A box holding a timeline of ``frames`` frames at ``fps``, with an empty keyframe
    at each of ``labels`` (name -> frame) and ``motion`` (ActuatorCurve elements)."""
    keyframes = "\n".join('<BehaviorKeyframe name="%s" index="%d"><Diagram/></BehaviorKeyframe>'
                          % (label, frame) for label, frame in labels.items())
    actuators = '<ActuatorList model="nao">%s</ActuatorList>' % motion if motion else ""
    return ('<Box name="%s" id="%d" localization="8" tooltip="" x="0" y="0">%s\n'
            '<Timeline enable="1" fps="%d" start_frame="0" end_frame="%d" size="%d" '
            'resources_acquisition="0"><BehaviorLayer name="moves">%s</BehaviorLayer>%s'
            '</Timeline></Box>' % (name, box_id, PORTS, fps, frames, frames, keyframes,
                                   actuators))


def nested_behavior(folder: Path, name: str = "nested") -> Path:
    """``folder/name.xar``: root (flow diagram) > Greeting (flow diagram) > Wave Arms (a
    timeline of 20 s at 10 fps turning the head, labels Up at 1 and Down at 100), beside a
    Comment box on the root."""
    head = ('<ActuatorCurve name="value" actuator="HeadYaw" recordable="1" mute="0" unit="0">'
            '<Key frame="1" value="0"/><Key frame="100" value="40"/><Key frame="200" value="0"/>'
            '</ActuatorCurve>')
    wave = timeline_box("Wave Arms", 1, 10, 200, {"Up": 1, "Down": 100}, head)
    greeting = flow_box("Greeting", 1, wave + "\n" + THROUGH)
    comment = ('<Box name="Comment" id="2" localization="8" tooltip="" plugin="textedit_plugin" '
               'x="0" y="0"><pluginContent><text><![CDATA[%s]]></text></pluginContent>'
               '<Input name="onLoad" type="1" type_size="1" nature="0" inner="1" tooltip="" '
               'id="1"/></Box>' % COMMENT)
    root = flow_box("root", -1, greeting + "\n" + comment + "\n" + THROUGH)
    path = folder / (name + ".xar")
    path.write_text(PROJECT % root, encoding="utf-8")
    return path
