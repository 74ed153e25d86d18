"""The three behaviors of the 2012 converter's tests give the same structure as its output.

Deliberate differences (docs/format.md): our files carry ``format``, box files keep the
whole box (display name, bitmaps as elements, script, extras) and list their diagrams,
newlines in attributes are kept as ``&#x0A;``, states list their keyframes, and the
folder also holds ``.py`` files, ``behavior.xml``, ``main.py`` and a ``_timeline.xml`` for
every timeline with an ``<ActuatorList>``.
"""
from pathlib import Path

import pytest
from lxml import etree

from naoqi_qicore.converter.ownership import WRITTEN_LIST
from naoqi_qicore.converter.writer import write_converted
from naoqi_qicore.xar.parser import parse_xar_file

CASES = ("hello", "parameters", "un_wait_deux")


@pytest.fixture(scope="module", params=CASES)
def converted(request, reference_dir, tmp_path_factory):
    case = reference_dir / request.param
    out = tmp_path_factory.mktemp(request.param) / "out"
    write_converted(parse_xar_file(case / "input.xar"), out)
    return case / "output", out


def _xml(path: Path):
    return etree.parse(str(path), etree.XMLParser(recover=True)).getroot()


def test_file_set_contains_the_reference_files(converted):
    expected, out = converted
    ours = {p.name for p in out.iterdir()}
    assert {p.name for p in expected.iterdir()} <= ours
    extra = ours - {p.name for p in expected.iterdir()}
    # the motion of a timeline that has an <ActuatorList> (even an empty one) is kept
    assert extra == {p for p in extra if p.endswith((".py", "_timeline.xml"))} | {
        "behavior.xml", "box_index.xml", "main.py", WRITTEN_LIST}


def test_state_machines_match(converted):
    expected, out = converted
    for reference in expected.glob("*_state_machine.xml"):
        theirs, ours = _xml(reference), _xml(out / reference.name)
        assert ours.get("format") == "naoqi_qicore/2"
        assert [(e.tag, dict(e.attrib)) for e in ours] == [(e.tag, dict(e.attrib)) for e in theirs]


def test_states_match_objects_intervals_labels_links(converted):
    expected, out = converted
    for reference in expected.glob("*_state_[0-9]*.xml"):
        theirs = _xml(reference)
        ours = [e for e in _xml(out / reference.name) if e.tag != "Keyframe"]
        assert [(e.tag, dict(e.attrib)) for e in ours] == [(e.tag, dict(e.attrib)) for e in theirs]


def test_box_metadata_matches(converted):
    expected, out = converted
    for reference in expected.glob("l*.xml"):
        if "_state" in reference.name:
            continue
        theirs, ours = _xml(reference), _xml(out / reference.name)
        assert ours.get("object") == reference.stem
        for name in ("id", "x", "y", "plugin"):
            if theirs.get(name) not in (None, "None", ""):
                assert ours.get(name) == theirs.get(name), name
        assert " ".join(ours.get("tooltip").split()) == " ".join(theirs.get("tooltip").split())
        if theirs.get("bitmap") not in (None, "None"):
            assert [b.text for b in ours.iter("bitmap")][-1] == theirs.get("bitmap")
        ports = lambda root: [(e.tag, e.get("name"), e.get("type"), e.get("type_size"),  # noqa
                               e.get("nature"), e.get("id")) for e in root
                              if e.tag in ("Input", "Output", "Parameter")]
        assert ports(ours) == ports(theirs)
