"""Hostile inputs through the whole conversion: clean errors, nothing written outside OUT."""
import random
import re

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


#: values a mutation puts into an attribute
HOSTILE_VALUES = ["", "-1", "x", "1e999", "nan", "9" * 30, "../..", "3.5", " 1", "\u00e9"]
_ATTRIBUTE = re.compile(rb'\s([A-Za-z_]+)="([^"]*)"')
_TAG = re.compile(rb"<([A-Za-z]+)[ />]")


def mutate(data: bytes, rng: random.Random) -> bytes:
    """``data`` with one attribute value changed, one attribute removed or one tag renamed
    (into another tag of the document, so that the result is often still well formed)."""
    attributes = list(_ATTRIBUTE.finditer(data))
    choice = rng.random()
    if choice < 0.4:
        found = rng.choice(attributes)
        value = rng.choice(HOSTILE_VALUES).encode()
        return data[:found.start(2)] + value + data[found.end(2):]
    if choice < 0.7:
        found = rng.choice(attributes)
        return data[:found.start()] + data[found.end():]
    tags = list(_TAG.finditer(data))
    renamed, other = rng.choice(tags), rng.choice(tags)
    return data[:renamed.start(1)] + other.group(1) + data[renamed.end(1):]


def test_mutated_corpus_behaviors_convert_or_fail_cleanly(tmp_path, corpus_dir):
    """Real behaviors with seeded mutations: each converts and loads back, or gives one
    line naming the file and line; nothing is written outside OUT."""
    files = sorted(path for path in (corpus_dir / "files").glob("*.xar")
                   if 1000 < path.stat().st_size < 60_000)
    rng = random.Random(20261124)
    failures = 0
    for index in range(120):
        data = rng.choice(files).read_bytes()
        for _ in range(rng.randint(1, 3)):
            data = mutate(data, rng)
        source = tmp_path / "in.xar"
        source.write_bytes(data)
        output = tmp_path / "out" / str(index)
        try:
            convert(source, output)
        except XarError as error:
            failures += 1
            assert re.match(re.escape(str(source)) + r":\d+: ", str(error)), error
            assert "\n" not in str(error) and not output.exists()
        else:
            assert load_converted(output).names
    assert 0 < failures < 120  # the mutations make both kinds
    assert written(tmp_path) == ["in.xar", "out"]
