"""Reading .xar documents: every accepted root, the CDATA payload, and clean errors."""
import pytest

from naoqi_qicore.xar.errors import XarError
from naoqi_qicore.xar.parser import parse_xar_bytes
from naoqi_qicore.xar.writer import behavior_to_xar

LINK = '<Link inputowner="%s" indexofinput="%s" outputowner="%s" indexofoutput="%s" />'


def error_of(data: bytes) -> XarError:
    with pytest.raises(XarError) as caught:
        parse_xar_bytes(data, "b.xar")
    text = str(caught.value)
    assert "\n" not in text and text.startswith("b.xar")
    return caught.value


@pytest.mark.parametrize("namespace", [True, False])
def test_project_with_or_without_namespace(namespace, project, box):
    data = project(box("Say", 1, "class MyClass(GeneratedClass):\n    pass") + LINK % (1, 2, 0, 2),
                   namespace=namespace)
    behavior = parse_xar_bytes(data, "b.xar")
    say = behavior.root.timeline.layers[0].keyframes[0].diagram.boxes[0]
    assert say.script.content == "class MyClass(GeneratedClass):\n    pass"
    assert behavior.namespace.endswith("project.xsd") == namespace
    assert [p.name for p in say.inputs] == ["onLoad", "onStart", "onStop"]
    assert parse_xar_bytes(behavior_to_xar(behavior).encode(), "b.xar") == behavior


def test_unknown_attributes_and_elements_are_kept(project, box):
    data = project(box("X", 1, extra='<Unknown a="1"><b/></Unknown><dialogFile>d.top</dialogFile>'
                       '<pluginContent><english>Hi</english></pluginContent>')
                   ).replace(b'<Box name="X"', b'<Box color="red" name="X"')
    x = parse_xar_bytes(data, "b.xar").root.timeline.layers[0].keyframes[0].diagram.boxes[0]
    assert x.extras.attributes == {"color": "red"}
    assert x.extras.elements == ['<Unknown a="1"><b/></Unknown>']
    assert x.dialog_files == ["d.top"]
    assert x.plugin_content == "<pluginContent><english>Hi</english></pluginContent>"


def test_bare_timeline_animation_and_box_roots_are_wrapped(box):
    motion = b'''<Animation fps="25" enable="1" start_frame="0" end_frame="-1"><ActuatorList>
      <ActuatorCurve name="value" actuator="HeadYaw" mute="0" unit="0"><Key frame="3" value="1.5">
      <Tangent side="left" interpType="bezier" abscissaParam="-1" ordinateParam="0" />
      <Tangent side="right" interpType="bezier" abscissaParam="1" ordinateParam="0" /></Key>
      </ActuatorCurve></ActuatorList></Animation>'''
    for tag in (b"Animation", b"Timeline"):
        behavior = parse_xar_bytes(motion.replace(b"Animation", tag), "m.xar")
        assert behavior.root_tag == tag.decode() and behavior.root.name == "root"
        key = behavior.root.timeline.actuator_list.curves[0].keys[0]
        assert (key.frame, key.value, len(key.tangents)) == (3, 1.5, 2)
    single = b'<ChoregrapheBox xar_version="3">' + box("Alone", 7).encode() + b"</ChoregrapheBox>"
    behavior = parse_xar_bytes(single, "c.xar")
    diagram = behavior.root.timeline.layers[0].keyframes[0].diagram
    assert [b.name for b in diagram.boxes] == ["Alone"]
    assert [(l.inputowner, l.outputowner) for l in diagram.links] == [(7, 0), (0, 7)]
    assert parse_xar_bytes(behavior_to_xar(behavior).encode(), "c.xar") == behavior


def test_format_version_4_without_its_files_converts_the_instance():
    data = (b'<ChoregrapheProject name="p" format_version="4"><BoxInstance name="root" id="-1" '
            b'x="0" y="0" path="root_1.xml"><ParameterValue id="5" value="1" /></BoxInstance>'
            b'</ChoregrapheProject>')
    behavior = parse_xar_bytes(data, "/nonexistent/behavior.xar")
    assert behavior.root.extras.attributes == {"path": "root_1.xml"}
    assert "root_1.xml" in behavior.warnings[0]


@pytest.mark.parametrize("make, expected", [
    (lambda p, b: b"", "the file is empty"),
    (lambda p, b: b"<ChoregrapheProject xar_version='3'><Box", "not well-formed XML"),
    (lambda p, b: b"\x00\x01binary", "not well-formed"),
    (lambda p, b: b"<html/>", "<html>: not a Choregraphe behavior"),
    (lambda p, b: p(version="2"), "unsupported xar_version '2'"),
    (lambda p, b: b"<ChoregrapheProject><Box name='r' id='-1'/></ChoregrapheProject>",
     "xar_version"),
    (lambda p, b: p(b("X", 1).replace('name="X" ', "")),
     "<Box>: missing required attribute 'name'"),
    (lambda p, b: p(b("X", 1) + b("Y", 1)), "duplicate box id 1"),
    (lambda p, b: p(b("X", 1) + LINK % (9, 2, 0, 2)), "owner 9 is not a box"),
    (lambda p, b: p(b("X", 1) + LINK % (1, 77, 0, 2)), "port 77 is not a port of box 1"),
    (lambda p, b: p(b("X", 1).replace('id="1"', 'id="one"')), "'one' is not an integer"),
    (lambda p, b: p(timeline_attributes='enable="1" fps="25"', layers=(
        '<ActuatorList><ActuatorCurve actuator="HeadYaw"><Key frame="-4" value="0" />'
        '</ActuatorCurve></ActuatorList>')), "<Key>: key at negative frame -4"),
    (lambda p, b: p(layers='<BehaviorLayer name="l"><BehaviorKeyframe name="k" index="-2">'
                           '<Diagram/></BehaviorKeyframe></BehaviorLayer>'), "negative frame -2"),
    (lambda p, b: p(timeline_attributes='enable="1" fps="25" size="40" end_frame="30"', layers=(
        '<ActuatorList><ActuatorCurve actuator="HeadYaw"><Key frame="12" value="0" />\n'
        '<Key frame="41" value="0" /></ActuatorCurve></ActuatorList>')),
     ":12: <Key>: key at frame 41 is outside its timeline (size 40, end_frame 30)"),
])
def test_bad_documents_give_one_line_with_file_line_element(make, expected, project, box):
    assert expected in str(error_of(make(project, box)))


def test_keys_after_the_size_of_a_timeline_ending_at_its_last_key_are_kept(project):
    # as a real generated behavior: size 59, keys up to frame 60, end_frame -1
    curve = ('<ActuatorList><ActuatorCurve actuator="HeadYaw"><Key frame="59" value="0" />\n'
             '<Key frame="60" value="1" /></ActuatorCurve></ActuatorList>')
    for end in ('end_frame="-1" ', ""):
        behavior = parse_xar_bytes(project(
            timeline_attributes='enable="1" fps="25" %ssize="59"' % end, layers=curve), "k.xar")
        keys = behavior.root.timeline.actuator_list.curves[0].keys
        assert [key.frame for key in keys] == [59, 60]
        assert behavior.warnings == ["k.xar:12: <Key>: key at frame 60 is after the timeline's "
                                     "size (59); kept: the timeline plays to its last key"]
    within_end = parse_xar_bytes(project(
        timeline_attributes='enable="1" fps="25" end_frame="60" size="59"', layers=curve), "k.xar")
    assert within_end.warnings == []


def test_error_line_numbers_point_at_the_element(project, box):
    data = project(box("X", 1) + "\n\n" + LINK % (1, 2, 5, 2))
    error = error_of(data)
    assert error.element == "Link" and error.line == data.decode().splitlines().index(
        [line for line in data.decode().splitlines() if "<Link" in line][0]) + 1


def test_entities_are_refused_and_never_expanded():
    laughs = b'''<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">
    <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
    <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
    <ChoregrapheProject xar_version="3"><Box name="&lol3;" id="-1"/></ChoregrapheProject>'''
    assert "entities" in str(error_of(laughs))
    external = b'''<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>
    <ChoregrapheProject xar_version="3"><Box name="&e;" id="-1"/></ChoregrapheProject>'''
    assert "entities" in str(error_of(external))
