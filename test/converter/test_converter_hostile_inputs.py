"""Hostile inputs through the whole conversion: clean errors, nothing written outside OUT."""
import pytest

from naoqi_qicore.converter.api import convert
from naoqi_qicore.converter.loader import load_converted
from naoqi_qicore.xar.errors import XarError

LAUGHS = b'''<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">
<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
<ChoregrapheProject xar_version="3"><Box name="&lol2;" id="-1"/></ChoregrapheProject>'''
EXTERNAL = b'''<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>
<ChoregrapheProject xar_version="3"><Box name="&e;" id="-1"/></ChoregrapheProject>'''
EXTERNAL_DTD = b'''<?xml version="1.0"?><!DOCTYPE x SYSTEM "http://example.com/x.dtd">
<ChoregrapheProject xar_version="3"><Box name="r" id="-1"/></ChoregrapheProject>'''
DEEP = (b'<ChoregrapheProject xar_version="3">'
        + b'<Box name="a" id="1"><Timeline enable="0"><BehaviorLayer name="l">'
          b'<BehaviorKeyframe name="k" index="1"><Diagram>' * 300)


def written(tmp_path):
    return sorted(p.name for p in tmp_path.iterdir())


@pytest.mark.parametrize("data, expected", [
    (LAUGHS, "entities are refused"), (EXTERNAL, "entities are refused"),
    (EXTERNAL_DTD, "external DTDs are refused"), (DEEP, "not well-formed XML"),
])
def test_entities_and_depth_are_refused_by_convert(tmp_path, data, expected):
    source = tmp_path / "in.xar"
    source.write_bytes(data)
    with pytest.raises(XarError, match=expected) as caught:
        convert(source, tmp_path / "out")
    assert str(caught.value).startswith(str(source)) and "\n" not in str(caught.value)
    assert written(tmp_path) == ["in.xar"]


def test_box_names_never_leave_the_output(tmp_path, project, box):
    names = ["../../evil", "a/b\\c&#9;&#x0A;", "CON", "..", "con", "/etc/passwd", "~root"]
    source = tmp_path / "in.xar"
    source.write_bytes(project("".join(box(name, i + 1) for i, name in enumerate(names))))
    convert(source, tmp_path / "out")
    assert written(tmp_path) == ["in.xar", "out"]
    assert all(p.is_file() for p in (tmp_path / "out").iterdir())
    loaded = load_converted(tmp_path / "out")
    assert [b.name for b in loaded.behavior.root.children()][:3] == ["../../evil", "a/b\\c\t\n",
                                                                     "CON"]


def test_absurd_numbers_convert_or_fail_cleanly(tmp_path, project, box):
    many = "".join('<BehaviorKeyframe name="k%d" index="%d"><Diagram/></BehaviorKeyframe>'
                   % (i, i * 10 ** 9) for i in range(1, 500))
    cases = [project(box("X", 1), timeline_attributes='enable="1" fps="9' + '9' * 30 + '"'),
             project(layers='<BehaviorLayer name="l">%s</BehaviorLayer>' % many),
             project(timeline_attributes='enable="1" fps="0"', layers=(
                 '<ActuatorList><ActuatorCurve actuator="HeadYaw"><Key frame="9%s" value="1e999"'
                 ' /></ActuatorCurve></ActuatorList>' % ("9" * 30))),
             project(box("x" * 100000, 10 ** 30))]
    for index, data in enumerate(cases):
        source = tmp_path / ("in%d.xar" % index)
        source.write_bytes(data)
        convert(source, tmp_path / "out" / str(index))
        assert load_converted(tmp_path / "out" / str(index)).names
    assert written(tmp_path) == ["in%d.xar" % i for i in range(len(cases))] + ["out"]
