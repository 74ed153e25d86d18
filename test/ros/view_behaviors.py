"""Small behaviors written for the live view's tests: boxes inside boxes with a timeline
deep inside and a Comment box; eyes changing colour; a Pepper project showing an image of
its own on the tablet."""
import struct
import zlib
from pathlib import Path
from textwrap import indent
from typing import List, Tuple

from script_behaviors import PORTS, PROJECT

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


def script_box(name: str, box_id: int, body: str) -> str:
    """A box whose script is ``body`` (methods of ``MyClass``)."""
    code = "import time\nclass MyClass(GeneratedClass):\n" + indent(body.strip("\n") + "\n",
                                                                     "    ")
    return ('<Box name="%s" id="%d" localization="8" tooltip="" x="0" y="0">'
            '<script language="4"><content><![CDATA[%s]]></content></script>\n%s</Box>'
            % (name, box_id, code, PORTS))


def sequence_behavior(path: Path, boxes: List[Tuple[str, str]]) -> Path:
    """``path``: a root flow diagram running script boxes ((name, body), ...) one after
    the other, the last one ending the root."""
    parts = [script_box(name, number, body) for number, (name, body) in enumerate(boxes, 1)]
    parts.append('<Link inputowner="1" indexofinput="2" outputowner="0" indexofoutput="2"/>')
    parts.extend('<Link inputowner="%d" indexofinput="2" outputowner="%d" indexofoutput="4"/>'
                 % (number + 1, number) for number in range(1, len(boxes)))
    parts.append('<Link inputowner="0" indexofinput="4" outputowner="%d" indexofoutput="4"/>'
                 % len(boxes))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(PROJECT % flow_box("root", -1, "\n".join(parts)), encoding="utf-8")
    return path


def eyes_box(color: int) -> str:
    """A box turning the eyes to ``color`` as Choregraphe's Eyes LEDs box does, then
    staying 2 s."""
    return '''
def onInput_onStart(self):
    ALProxy("ALLeds").fadeRGB("FaceLeds", %d, 0.1)
    time.sleep(2.0)
    self.onStopped()
''' % color


def eyes_behavior(folder: Path) -> Path:
    """``folder/eyes.xar``: the eyes red for 2 s (box Red Eyes), then blue (Blue Eyes)."""
    return sequence_behavior(folder / "eyes.xar", [("Red Eyes", eyes_box(0xFF0000)),
                                                   ("Blue Eyes", eyes_box(0x0000FF))])


#: the colour of the image the tablet behavior shows
TABLET_COLOR = (0, 160, 80)
#: the package id of the tablet behavior's project
TABLET_PACKAGE = "live-view-tablet"


def solid_png(width: int, height: int, rgb: Tuple[int, int, int]) -> bytes:
    """A PNG image of one colour."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2,
                                                               0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def tablet_project(folder: Path) -> Path:
    """A Pepper project in ``folder/tablet_project``: an image in its ``html`` folder and a
    behavior showing it on the tablet (Show Image, 3 s), then listening for "yes" 3 s
    (Listen); returns the behavior's .xar."""
    project = folder / "tablet_project"
    (project / "html").mkdir(parents=True)
    (project / "html" / "hello.png").write_bytes(solid_png(64, 40, TABLET_COLOR))
    (project / "manifest.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8" ?>\n<package uuid="%s" version="1.0.0">'
        '<names><name lang="en_US">Tablet</name></names><supportedLanguages/>'
        '<descriptionLanguages/><contents><behaviorContent path="behavior_1"/></contents>'
        '</package>\n' % TABLET_PACKAGE, encoding="utf-8")
    show = '''
def onInput_onStart(self):
    tablet = ALProxy("ALTabletService")
    tablet.showImage("http://%s/apps/%s/hello.png" % (tablet.robotIp(), self.packageUid()))
    time.sleep(3.0)
    self.onStopped()
'''
    listen = '''
def onInput_onStart(self):
    asr = ALProxy("ALSpeechRecognition")
    asr.setVocabulary(["yes", "no"], False)
    asr.subscribe(self.getName())
    time.sleep(3.0)
    asr.unsubscribe(self.getName())
    self.onStopped()
'''
    return sequence_behavior(project / "behavior_1" / "behavior.xar",
                             [("Show Image", show), ("Listen", listen)])
