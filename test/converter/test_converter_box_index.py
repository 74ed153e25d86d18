"""The box index of a converted folder (box_index.xml): the loader reads every box of a
folder as written through it but those whose diagrams hold boxes (their own timeline,
parsed once from their box file), gives the model the box files give, and reads a box
file that was edited since (or a folder without index) from the file itself."""
import inspect
import re
from pathlib import Path

import pytest
from lxml import etree
from test_converter_corpus import EMPTY_ANCHOR, corpus_files

from naoqi_qicore.converter import loader, writer
from naoqi_qicore.converter.box_index import copier
from naoqi_qicore.converter.loader import load_converted
from naoqi_qicore.converter.writer import (BOX_INDEX, READABLE_FORMATS, install_files, render,
                                           write_converted)
from naoqi_qicore.xar import model
from naoqi_qicore.xar.elements import ElementReader
from naoqi_qicore.xar.errors import XarError
from naoqi_qicore.xar.model import (NO_EXTRAS, ActuatorCurve, ActuatorList, Box, Extras, Key,
                                    Parameter, Port, Script)
from naoqi_qicore.xar.parser import parse_xar_bytes, parse_xar_file

REPO = Path(__file__).resolve().parents[2]
SAY = "class MyClass(GeneratedClass):\n    def onLoad(self):\n        print 'x'\n"
MOTION = """<ActuatorList model="nao"><ActuatorCurve name="value" actuator="HeadYaw"
 recordable="0" mute="0" unit="0"><Key frame="10" value="5" /><Key frame="20" value="%s" />
</ActuatorCurve></ActuatorList>"""


@pytest.fixture
def read_from_files(monkeypatch):
    """The names of the boxes the loader reads from their own files (not the index)."""
    names = []
    real = loader._FolderReader.parse_box
    monkeypatch.setattr(loader._FolderReader, "parse_box",
                        lambda reader, name, path, data: names.append(name)
                        or real(reader, name, path, data))
    return names


@pytest.fixture
def converted(project, box, tmp_path):
    """A converted folder: two Say boxes (ported scripts), a plain one, a timeline with
    motion and a box with a parameter, and the model it was converted from."""
    timeline = box("Move", 4, "", '<Timeline enable="1" fps="25" size="30" start_frame="1" '
                   'end_frame="-1">%s</Timeline>' % (MOTION % "7"))
    parameter = box("Wait", 5, "", '<Parameter name="Timeout" inherits_from_parent="0" '
                    'content_type="2" value="1.5" default_value="1" min="0" max="10" id="5">'
                    '<Choice value="1" /><Choice value="2" /></Parameter>')
    behavior = parse_xar_bytes(project(box("Say", 1, SAY) + box("Say", 2, SAY) + box("Plain", 3)
                                       + timeline + parameter), "b.xar")
    write_converted(behavior, tmp_path / "out")
    return tmp_path / "out", behavior


def test_a_folder_as_written_is_read_through_its_index(converted, read_from_files):
    folder, behavior = converted
    assert (folder / BOX_INDEX).is_file()
    loaded = load_converted(folder)
    assert read_from_files == ["l0_root"] and loaded.warnings == []
    assert loaded.behavior == behavior
    from_files = loader._read_converted(folder, None)
    assert loaded.code == from_files.code
    assert list(loaded.names.values()) == list(from_files.names.values())
    boxes = [box for _, box in loaded.behavior.root.walk()]
    # boxes read from one part share no mutable object
    first, second = boxes[1], boxes[2]
    assert first.inputs == second.inputs and first.inputs[0] is not second.inputs[0]
    assert first.script is not second.script
    assert first.extras is second.extras is NO_EXTRAS  # immutable: shared
    assert first.script.content is second.script.content  # one string per distinct script


def indexed_as_before(folder: Path) -> str:
    """The index of ``folder`` as the converter wrote it before it left out the boxes whose
    diagrams hold boxes: every box has its parts, timelines naming boxes included."""
    loaded = load_converted(folder)
    box_writer = writer._BoxFileWriter(loaded.names, {name: code for name, code
                                                      in loaded.code.items() if code})
    index = writer._BoxIndexWriter()
    for _, box in loaded.behavior.root.walk():
        timeline = box.timeline
        motion = (writer._motion_element(timeline) if timeline is not None
                  and timeline.actuator_list is not None else None)
        name = loaded.names[id(box)]
        index.add(name, bool(loaded.code[name]), box_writer.box_parts(box), motion)
    return index.text()


def test_a_box_whose_diagrams_hold_boxes_is_parsed_once_from_its_box_file(
        project, box, container, tmp_path, read_from_files):
    """No other box has a timeline whose diagrams name boxes: the index holds no part of
    such a box (the loader parsed it once in the index and again for the box), only its
    motion when it has one, and the loader reads its box file."""
    dance = box("Dance", 2, "", '<Timeline enable="1" fps="25" size="30" start_frame="1" '
                'end_frame="-1"><BehaviorLayer name="l"><BehaviorKeyframe name="k" index="1">'
                '<Diagram>%s</Diagram></BehaviorKeyframe></BehaviorLayer>%s</Timeline>'
                % (box("Say", 3, SAY), MOTION % "7"))
    behavior = parse_xar_bytes(project(container("Group", 1, box("Say", 4, SAY)) + dance),
                               "b.xar")
    write_converted(behavior, tmp_path / "out")
    text = (tmp_path / "out" / BOX_INDEX).read_text()
    entries = re.findall(r'<Box object="l\d_(\w+)"([^>]*)/>', text)
    assert [name for name, _ in entries] == ["Say", "Dance", "Say_1"]
    assert re.fullmatch(r' motion="\d+" ', entries[1][1])
    assert "<Object" not in text and "<Diagram" not in text
    loaded = load_converted(tmp_path / "out")
    assert read_from_files == ["l0_root", "l1_Group", "l1_Dance"]
    assert loaded.warnings == [] and loaded.behavior == behavior
    assert loaded.behavior.root.children().__next__().timeline.layers[0].keyframes[0] \
        .diagram.boxes[0].script.content == SAY


def test_a_timeline_naming_boxes_is_not_kept_parsed_once_its_box_is_read(converted,
                                                                          read_from_files):
    """An index written before holds the timelines naming boxes too, and is still used for
    them.  A diagram names boxes only one box holds: its parsed part serves that box
    alone, and keeping every one parsed held the largest behaviors' timelines twice in
    memory."""
    folder, behavior = converted
    (folder / BOX_INDEX).write_text(indexed_as_before(folder))
    del read_from_files[:]
    index, _ = loader._box_index(folder)
    assert any(part.lstrip().startswith("<Timeline") and "<Object" in part
               for part in index.parts)
    loaded = load_converted(folder)
    assert read_from_files == [] and loaded.behavior == behavior
    assert loader._read_converted(folder, index).behavior == behavior
    assert index._parts, "the parts serving several boxes are kept"
    kept = [number for number, part in index._parts.items()
            if any(True for node in part.nodes for _ in node.iter("Object"))]
    assert kept == []


def test_an_edited_box_file_is_read_from_the_file(converted, read_from_files):
    folder, _ = converted
    path = folder / "l1_Wait.xml"
    path.write_text(path.read_text().replace('value="1.5"', 'value="2.5"'))  # same size
    loaded = load_converted(folder)
    assert read_from_files == ["l0_root", "l1_Wait"]  # the root holds boxes: never indexed
    wait = loaded.behavior.root.timeline.layers[0].keyframes[0].diagram.boxes[4]
    assert wait.parameters[0].value == "2.5"
    assert loaded.behavior == loader._read_converted(folder, None).behavior


def test_a_box_read_from_its_file_gets_its_code_after_boxes_read_through_the_index(
        project, box, tmp_path):
    """A box read from its file in a load that read through the index boxes whose script
    holds its text gets its ``.py``: whether its script holds its text is read from its
    own file (it was told by its script object's address, which one made and freed for
    the index could have had)."""
    code = "class MyClass(GeneratedClass):\n    def onLoad(self):\n        pass\n"
    behavior = parse_xar_bytes(project("".join(box("Say", number, SAY) for number in
                                               range(1, 9)) + box("Run", 9, code)), "b.xar")
    write_converted(behavior, tmp_path / "out")
    path = tmp_path / "out" / "l1_Run.xml"
    path.write_text(path.read_text().replace('x="', 'x=" '))  # edited: read from the file
    loaded = load_converted(tmp_path / "out")
    assert loaded.behavior.root.timeline.layers[0].keyframes[0].diagram.boxes[8] \
        .script.content == code


def test_an_edited_script_and_motion_are_used(converted):
    folder, _ = converted
    (folder / "l1_Say.py").write_text("class MyClass(GeneratedClass):\n    pass\n")
    motion = folder / "l1_Move_timeline.xml"
    motion.write_text(motion.read_text().replace('value="7"', 'value="9"'))
    loaded = load_converted(folder)
    assert loaded.code["l1_Say"] == "class MyClass(GeneratedClass):\n    pass\n"
    boxes = loaded.behavior.root.timeline.layers[0].keyframes[0].diagram.boxes
    assert [key.value for key in boxes[3].timeline.actuator_list.curves[0].keys] == [5.0, 9.0]


def test_an_index_that_no_longer_matches_its_files_is_not_used_for_them(converted,
                                                                         read_from_files):
    folder, behavior = converted
    index = folder / BOX_INDEX
    index.write_text(index.read_text().replace('name="onStart"', 'name="onBegin"'))
    assert load_converted(folder).behavior == behavior
    assert len(read_from_files) == 6  # every box has that port


@pytest.mark.parametrize("damage", [
    lambda text: text[:len(text) // 2],
    lambda text: text.replace('format="naoqi_qicore/2"', 'format="other"', 1),
    lambda text: re.sub(r'<Box object="l1_Say_1"', '<Box object="l1_Say"', text),
])
def test_a_broken_index_is_left_aside_with_a_warning(converted, read_from_files, damage):
    folder, behavior = converted
    index = folder / BOX_INDEX
    index.write_text(damage(index.read_text()))
    loaded = load_converted(folder)
    assert loaded.behavior == behavior and len(read_from_files) == 6
    assert len(loaded.warnings) == 1
    assert loaded.warnings[0].startswith(str(index))
    assert loaded.warnings[0].endswith("(not used: the box files are read instead)")


def test_an_index_that_is_a_link_is_not_followed(converted, read_from_files, tmp_path):
    """As the box files, the index is read in its folder only: a link in its place (to an
    index of the same boxes elsewhere) is left aside with a warning."""
    folder, behavior = converted
    index = folder / BOX_INDEX
    elsewhere = tmp_path / "elsewhere.xml"
    index.rename(elsewhere)
    index.symlink_to(elsewhere)
    loaded = load_converted(folder)
    assert loaded.behavior == behavior and len(read_from_files) == 6
    assert len(loaded.warnings) == 1 and loaded.warnings[0].startswith(str(index) + ": cannot")


def test_the_index_is_parsed_in_pieces_and_one_too_large_is_left_aside(converted,
                                                                       read_from_files,
                                                                       monkeypatch):
    """The index is fed to its parser piece by piece (a large behavior's is megabytes):
    read in many pieces it gives the same boxes; longer than a document may be, it is not
    used, with a warning, and the box files are read."""
    folder, behavior = converted
    size = (folder / BOX_INDEX).stat().st_size
    monkeypatch.setattr(loader, "_FIRST_READ", 64)  # many pieces
    loaded = load_converted(folder)
    assert loaded.behavior == behavior and loaded.warnings == [] and read_from_files == ["l0_root"]
    monkeypatch.setattr(loader, "MAX_DOCUMENT_BYTES", size - 1)
    del read_from_files[:]
    loaded = load_converted(folder)
    assert loaded.behavior == behavior and len(read_from_files) == 6
    assert loaded.warnings == ["%s: file too large (not used: the box files are read instead)"
                               % (folder / BOX_INDEX)]


def test_errors_and_warnings_name_the_box_files(project, box, tmp_path):
    late_key = box("Move", 1, "", '<Timeline enable="1" fps="25" size="15" start_frame="1" '
                   'end_frame="-1">%s</Timeline>' % (MOTION % "7"))
    link = '<Link inputowner="1" indexofinput="2" outputowner="0" indexofoutput="2" />'
    write_converted(parse_xar_bytes(project(late_key + link), "b.xar"), tmp_path / "out")
    warnings = load_converted(tmp_path / "out").warnings
    assert warnings == loader._read_converted(tmp_path / "out", None).warnings
    assert len(warnings) == 1 and warnings[0].startswith(str(tmp_path / "out" / "l1_Move"))
    # a port a link of the root uses, removed from the box: the root's link is wrong
    path = tmp_path / "out" / "l1_Move.xml"
    path.write_text(re.sub(r'\s*<Input name="onStart"[^>]*>', "", path.read_text()))
    root = tmp_path / "out" / "l0_root.xml"
    line = next(number for number, text in enumerate(root.read_text().splitlines(), 1)
                if "<Link " in text and 'indexofinput="2"' in text)
    with pytest.raises(XarError, match=r"^%s:%d: <Link>: link input port 2 is not a port"
                       % (re.escape(str(root)), line)):
        load_converted(tmp_path / "out")


def test_a_folder_of_the_first_format_still_loads(converted, read_from_files):
    folder, behavior = converted
    (folder / BOX_INDEX).unlink()
    for path in folder.glob("*.xml"):
        path.write_text(path.read_text().replace('format="naoqi_qicore/2"',
                                                 'format="naoqi_qicore/1"'))
    assert READABLE_FORMATS[0] == "naoqi_qicore/1"
    loaded = load_converted(folder)
    assert loaded.behavior == behavior and loaded.warnings == []
    assert len(read_from_files) == 6


def test_records_are_copied_by_their_constructors():
    """:func:`copier` makes records by calling their class with their fields in order."""
    for cls in vars(model).values():
        if isinstance(cls, type) and issubclass(cls, model.Record) and cls.__slots__:
            parameters = list(inspect.signature(cls.__init__).parameters)[1:]
            assert parameters == list(cls.__slots__), cls.__name__
    curve = ActuatorCurve("HeadYaw", keys=[Key(1, 2.0, extras=Extras({"a": "b"}, ["<x/>"]))])
    make = copier(ActuatorList("nao", [curve]))
    first, second = make(), make()
    assert first == second == ActuatorList("nao", [curve])
    assert first.curves[0].keys[0].extras is not second.curves[0].keys[0].extras
    assert first.curves[0].keys[0].extras.elements is not curve.keys[0].extras.elements
    port = Port("onStart", 1, 1, 2, 2, 0, "tip", None, NO_EXTRAS)
    assert copier(port)() == port and copier(port)().extras is NO_EXTRAS
    parameter = Parameter("P", 1, "1", "1", 5, choices=["1", "2"])
    assert copier(parameter)().choices is not copier(parameter)().choices


def test_copies_share_the_empty_extras_until_given_some():
    """An empty ``Extras`` is copied as the shared immutable ``NO_EXTRAS`` (boxes and their
    scripts seldom have extras: two objects fewer per box); an element read into such a box
    afterwards gives it extras of its own."""
    make = copier(Box("Say", 1, script=Script(4, "code")))
    first, second = make(), make()
    assert first == Box("Say", 1, script=Script(4, "code"))
    assert first.extras is NO_EXTRAS and first.script.extras is NO_EXTRAS
    ElementReader("l1_Say.xml").box_child(first, etree.fromstring("<unknown />"))
    assert first.extras.elements == ["<unknown/>"] and second.extras is NO_EXTRAS


@pytest.mark.parametrize("name", [name for name in corpus_files() if name != EMPTY_ANCHOR]
                         + ["wave_hello"])
def test_every_corpus_box_but_those_holding_boxes_is_read_through_the_index(
        name, corpus_dir, tmp_path, read_from_files):
    path = (REPO / "examples" / name / "behavior.xar" if name == "wave_hello"
            else corpus_dir / "files" / name)
    behavior = parse_xar_file(path)
    files, _ = render(behavior)
    install_files(files, tmp_path / "out")
    loaded = load_converted(tmp_path / "out")
    through_files = list(read_from_files)
    from_files = loader._read_converted(tmp_path / "out", None)
    assert len(read_from_files) == len(through_files) + len(from_files.names)
    if from_files.warnings:  # read again from the files, which name where
        assert loaded.warnings == from_files.warnings
        return
    assert through_files == [from_files.names[id(box)] for _, box
                             in from_files.behavior.root.walk()
                             if next(box.children(), None) is not None]
    assert loaded.behavior == from_files.behavior == behavior
    assert loaded.code == from_files.code
    assert list(loaded.names.values()) == list(from_files.names.values())
