"""format_version 4 projects read from their box files (the split format)."""
import zipfile

import pytest

from naoqi_qicore.converter.api import convert
from naoqi_qicore.converter.loader import load_converted
from naoqi_qicore.xar.box_files import signature_type
from naoqi_qicore.xar.errors import XarError
from naoqi_qicore.xar.model import IOType, ParameterType, ScriptLanguage
from naoqi_qicore.xar.parser import parse_xar_file

from converter_archives import ar_archive, tar_gz

PORTS = """
    <Input name="onLoad" signature="()" nature="0" inner="1" tooltip="" id="1" />
    <Input name="onStart" signature="()" nature="2" inner="0" tooltip="" id="2" />
    <Input name="onStop" signature="_" nature="3" inner="0" tooltip="" id="3" />
    <Output name="onStopped" signature="()" nature="1" inner="0" tooltip="" id="4" />"""


def interface(name, contents, extra=""):
    return ('<?xml version="1.0" encoding="UTF-8" ?>\n<BoxInterface uuid="u-%s" '
            'box_version="1.0.0.0" name="%s" localization="8" tooltip="t" format_version="4" >'
            '\n    <Bitmap path="media/%s.png" />%s%s\n    <Contents>%s\n    </Contents>\n'
            '</BoxInterface>\n' % (name, name, name, PORTS, extra, "".join(
                '\n        <Content type="%d" path="%s" checksum="" />' % content
                for content in contents)))


@pytest.fixture
def project(tmp_path):
    """A v4 project: root (flow diagram) > Say (script, parameter) and Dance (sequence)."""
    folder = tmp_path / "behavior_1"
    folder.mkdir()
    files = {
        "behavior.xar": '<?xml version="1.0" encoding="UTF-8" ?>\n<ChoregrapheProject '
                        'name="demo" format_version="4" >\n    <BoxInstance name="root" id="-1" '
                        'x="0" y="0" path="root_1.xml" />\n</ChoregrapheProject>\n',
        "root_1.xml": interface("root", [(0, "root_1.py"), (2, "root_1.fld")]),
        "root_1.py": "class MyClass(GeneratedClass):\n    pass\n",
        "root_1.fld": '<FlowDiagram scale="100" format_version="4" >\n'
                      '    <BoxInstance name="Say" id="1" x="10" y="20" path="Say_1.xml" >\n'
                      '        <ParameterValue id="5" value="120" />\n    </BoxInstance>\n'
                      '    <BoxInstance name="Dance" id="2" x="30" y="40" path="Dance_1.xml" />\n'
                      '    <Link inputowner="1" indexofinput="2" outputowner="0" '
                      'indexofoutput="2" />\n'
                      '    <Link inputowner="2" indexofinput="2" outputowner="1" '
                      'indexofoutput="4" />\n'
                      '    <Link inputowner="0" indexofinput="4" outputowner="2" '
                      'indexofoutput="4" />\n</FlowDiagram>\n',
        "Say_1.xml": interface("Say", [(0, "Say_1.py")], extra=(
            '\n    <Input name="text" signature="((ss))" nature="1" inner="0" tooltip="" id="6" />'
            '\n    <Parameter name="Speed (%)" inherits_from_parent="1" type="i" '
            'default_value="100" min="50" max="200" tooltip="" id="5" />'
            '\n    <Parameter name="Voice" inherits_from_parent="0" type="s" default_value="a" '
            'custom_choice="1" tooltip="" id="7" >\n        <Choice value="a" />\n'
            '        <Choice value="b" />\n    </Parameter>'
            '\n    <Resource name="Speakers" lock_type="Lock" timeout="0" />')),
        "Say_1.py": "class MyClass(GeneratedClass):\n    def onInput_onStart(self):\n"
                    "        print 'hello'\n",
        "Dance_1.xml": interface("Dance", [(3, "Dance_1.bhs"), (4, "Dance_1.anim")]),
        "Dance_1.bhs": '<BehaviorSequence fps="25" start_frame="1" end_frame="-1" size="40" '
                       'format_version="4" >\n    <BehaviorLayer name="layer" >\n'
                       '        <BehaviorKeyframe name="first" index="1" path="Dance_1_k1.fld" />\n'
                       '        <BehaviorKeyframe name="second" index="20" '
                       'path="Dance_1_k2.fld" />\n    </BehaviorLayer>\n</BehaviorSequence>\n',
        "Dance_1_k1.fld": '<FlowDiagram format_version="4" >\n</FlowDiagram>\n',
        "Dance_1_k2.fld": '<FlowDiagram format_version="4" >\n    <Link inputowner="0" '
                          'indexofinput="4" outputowner="0" indexofoutput="2" />\n'
                          '</FlowDiagram>\n',
        "Dance_1.anim": '<Animation fps="25" start_frame="1" end_frame="-1" size="40" '
                        'format_version="4" >\n    <ActuatorList model="nao" >\n'
                        '        <ActuatorCurve name="value" actuator="HeadYaw" recordable="0" '
                        'mute="0" unit="0" >\n            <Key frame="10" value="12.5" />\n'
                        '        </ActuatorCurve>\n    </ActuatorList>\n</Animation>\n',
    }
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


def test_signatures():
    assert signature_type("()") == signature_type("_") == (IOType.BANG, 1)
    assert signature_type("(s)") == (IOType.STRING, 1)
    assert signature_type("((dd))") == (IOType.NUMBER, 2)
    assert signature_type("(s<Bitmap>)") == (IOType.BITMAP, 1)
    assert signature_type("(m)") == (IOType.DYNAMIC, 1)
    assert signature_type("((sd))") is None and signature_type("(q)") is None


def test_project_is_read_from_its_box_files(project):
    behavior = parse_xar_file(project / "behavior.xar")
    assert (behavior.format_version, behavior.xar_version, behavior.name) == (None, "3", "demo")
    root = behavior.root
    assert root.script.content.startswith("class MyClass") and root.bitmaps == ["media/root.png"]
    assert root.timeline.enable == 0 and root.timeline.layers[0].name == "behavior_layer1"
    diagram = root.timeline.layers[0].keyframes[0].diagram
    say, dance = diagram.boxes
    assert (say.name, say.id, say.x, say.localization, say.tooltip) == ("Say", 1, "10", "8", "t")
    assert say.extras.attributes == {"uuid": "u-Say", "box_version": "1.0.0.0"}
    assert [(p.name, p.type, p.type_size) for p in say.inputs][-1] == ("text", IOType.STRING, 2)
    speed, voice = say.parameters
    assert (speed.content_type, speed.value, speed.default_value) == (ParameterType.INT, "120",
                                                                      "100")
    assert (voice.value, voice.choices, voice.custom_choice) == ("a", ["a", "b"], 1)
    assert say.resources[0].type == "Lock" and say.script.language == ScriptLanguage.PYTHON
    assert len(diagram.links) == 3
    timeline = dance.timeline
    assert (timeline.enable, timeline.fps, timeline.size) == (1, 25, 40)
    assert [k.name for k in timeline.layers[0].keyframes] == ["first", "second"]
    assert timeline.layers[0].keyframes[1].diagram.links[0].indexofoutput == 2
    assert timeline.actuator_list.curves[0].keys[0].value == 12.5


def test_project_converts_and_loads_back(project, tmp_path):
    result = convert(project, tmp_path / "out")
    assert result.behaviors[0].ported == ["l1_Say"]
    loaded = load_converted(tmp_path / "out")
    assert loaded.behavior == result.models[0]
    assert "print('hello')" in loaded.code["l1_Say"]
    assert (tmp_path / "out" / "l1_Dance_timeline.xml").is_file()
    assert (tmp_path / "out" / "l1_Dance_state_1.xml").is_file()


@pytest.mark.parametrize("change, expected", [
    (lambda p: (p / "Say_1.py").unlink(),
     r"Say_1\.xml:\d+: <Content>: script file Say_1\.py is missing"),
    (lambda p: (p / "Dance_1.xml").unlink(),
     r"root_1\.fld:\d+: <BoxInstance>: BoxInterface file Dance_1\.xml is missing"),
    (lambda p: (p / "Dance_1_k2.fld").unlink(),
     r"Dance_1\.bhs:\d+: <BehaviorKeyframe>: FlowDiagram file Dance_1_k2\.fld is missing"),
    (lambda p: (p / "root_1.fld").write_text((p / "root_1.fld").read_text().replace(
        "Say_1.xml", "../../etc/passwd")), r"root_1\.fld:2: <BoxInstance>: refusing the path"),
    (lambda p: (p / "root_1.fld").write_text((p / "root_1.fld").read_text().replace(
        "Say_1.xml", "root_1.xml")), "root_1.xml contains itself"),
    (lambda p: (p / "Say_1.xml").write_text((p / "Say_1.xml").read_text().replace(
        "((ss))", "(x)")), r"Say_1\.xml:\d+: <Input>: unknown signature '\(x\)'"),
    (lambda p: (p / "root_1.fld").write_text((p / "root_1.fld").read_text().replace(
        'id="5" value', 'id="9" value')), r"root_1\.fld:3: <ParameterValue>: id 9 is not"),
    (lambda p: (p / "root_1.fld").write_text((p / "root_1.fld").read_text().replace(
        'indexofinput="2" outputowner="1"', 'indexofinput="2" outputowner="7"')),
     r"root_1\.fld:\d+: <Link>: link output owner 7"),
    (lambda p: (p / "Dance_1.anim").write_text("<Animation"), r"Dance_1\.anim:1: not well-formed"),
])
def test_broken_box_files_give_clean_errors(project, tmp_path, change, expected):
    change(project)
    with pytest.raises(XarError, match=expected) as caught:
        convert(project, tmp_path / "out")
    assert "\n" not in str(caught.value)
    assert not (tmp_path / "out").exists()


def test_root_box_file_absent_converts_the_instance_with_a_warning(project, tmp_path):
    (project / "root_1.xml").unlink()
    result = convert(project / "behavior.xar", tmp_path / "out")
    assert "root_1.xml is not there" in result.warnings[0]


def test_project_inside_a_package(project, tmp_path):
    package = tmp_path / "app.pkg"
    with zipfile.ZipFile(package, "w") as archive:
        archive.writestr("manifest.xml", '<package><behaviors><behavior path="behavior_1"/>'
                         '</behaviors></package>')
        for path in project.iterdir():
            archive.write(path, "behavior_1/" + path.name)
    result = convert(package, tmp_path / "out")
    assert [b.name for b in result.models[0].root.children()] == ["Say", "Dance"]


def test_project_inside_a_crg_archive(project, tmp_path):
    crg = tmp_path / "app.crg"
    crg.write_bytes(ar_archive([("debian-binary", b"2.0\n"), ("data.tar.gz", tar_gz(
        [("behavior_1/" + path.name, path.read_bytes()) for path in sorted(project.iterdir())]))]))
    result = convert(crg, tmp_path / "out")
    assert [b.name for b in result.models[0].root.children()] == ["Say", "Dance"]
    assert not result.warnings
