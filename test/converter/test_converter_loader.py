"""The engine's entry points: prepare() in memory, load_converted() from a folder."""
import pytest

from naoqi_qicore.converter.loader import load_converted, prepare
from naoqi_qicore.converter.writer import write_converted
from naoqi_qicore.xar.errors import XarError
from naoqi_qicore.xar.parser import parse_xar_bytes


@pytest.fixture
def behavior(project, box):
    script = "class MyClass(GeneratedClass):\n    def onLoad(self):\n        print 'x'\n"
    return parse_xar_bytes(project(box("Say", 1, script) + box("Say", 2)), "b.xar")


def test_an_entry_point_written_by_an_older_converter_is_a_warning(behavior, tmp_path):
    """A converted folder whose main.py imports where the runner of converted folders was
    (naoqi_qicore.core.standalone) is told to be converted again; a current one is not."""
    from naoqi_qicore.converter.writer import MAIN_PY
    out = tmp_path / "out"
    write_converted(behavior, out)
    assert not any("main.py" in warning for warning in load_converted(out).warnings)
    (out / "main.py").write_text(MAIN_PY.replace("naoqi_qicore.robot.standalone",
                                                 "naoqi_qicore.core.standalone"))
    warnings = [w for w in load_converted(out).warnings if "main.py" in w]
    assert warnings == ["%s: written by an older xar_convert, it does not run with this "
                        "version: convert the behavior again (xar_convert SOURCE %s --force)"
                        % (out / "main.py", out)]
    (out / "main.py").write_text("print('my own')\n")  # not the converter's: none of its business
    assert not any("main.py" in warning for warning in load_converted(out).warnings)


def test_prepare_names_and_ports(behavior):
    loaded = prepare(behavior)
    assert loaded.folder is None
    assert sorted(loaded.names.values()) == ["l0_root", "l1_Say", "l1_Say_1"]
    assert "print('x')" in loaded.code["l1_Say"]
    assert "class MyClass(GeneratedClass):" in loaded.code["l1_Say"]
    assert loaded.code["l0_root"] == "" and loaded.code["l1_Say_1"] == ""


def test_load_converted_gives_the_same_behavior_and_keeps_the_original_script(behavior, tmp_path):
    report = write_converted(behavior, tmp_path / "out")
    assert report.ported == ["l1_Say"]
    assert "print 'x'" in (tmp_path / "out" / "l1_Say.xml").read_text()
    loaded = load_converted(tmp_path / "out")
    assert loaded.behavior == behavior and loaded.folder == tmp_path / "out"
    assert loaded.code == prepare(behavior).code
    say = loaded.behavior.root.timeline.layers[0].keyframes[0].diagram.boxes[0]
    assert loaded.names[id(say)] == "l1_Say"


def test_a_script_that_cannot_be_ported_is_commented_out_and_reported(project, box, tmp_path):
    script = "class MyClass(GeneratedClass):\n    def onLoad(self)\n        x = 08\n"
    behavior = parse_xar_bytes(project(box("Bad", 1, script)), "b.xar")
    report = write_converted(behavior, tmp_path / "out")
    assert list(report.failed) == ["l1_Bad"] and "line 3" in report.failed["l1_Bad"]
    code = (tmp_path / "out" / "l1_Bad.py").read_text()
    compile(code, "l1_Bad.py", "exec")
    assert code.splitlines()[:3] == ["# " + line for line in script.splitlines()]
    assert code.splitlines()[-1].startswith("raise SyntaxError(")
    loaded = load_converted(tmp_path / "out")
    assert loaded.behavior == behavior  # the original script, from l1_Bad.xml
    assert loaded.port_errors == report.failed == prepare(behavior).port_errors
    assert loaded.code == prepare(behavior).code
    with pytest.raises(SyntaxError, match="could not be ported: SyntaxError: .*line 3"):
        exec(compile(code, "l1_Bad.py", "exec"), {})


@pytest.mark.parametrize("damage, expected", [
    (lambda out: (out / "l1_Say.xml").unlink(), "l1_Say.xml: cannot read"),
    (lambda out: (out / "behavior.xml").write_text("<Behavior/>"), "not a naoqi_qicore/2 file"),
    (lambda out: (out / "l0_root.xml").write_text("<Box"), "not well-formed"),
    (lambda out: (out / "l0_root.xml").write_text((out / "l0_root.xml").read_text().replace(
        'Name="l1_Say"', 'Name="../x"')), "invalid object name"),
    (lambda out: (out / "l0_root.xml").write_text((out / "l0_root.xml").read_text().replace(
        'Name="l1_Say_1"', 'Name="l1_Say"')), "referenced twice"),
    (lambda out: (out / "l1_Say.xml").write_text((out / "l1_Say.xml").read_text().replace(
        "<Input ", '<Timeline><BehaviorLayer name="l"><BehaviorKeyframe name="k" index="1">'
        '<Diagram><Object Name="l0_root" /></Diagram></BehaviorKeyframe></BehaviorLayer>'
        '</Timeline><Input ', 1)), "contains itself"),
])
def test_damaged_folders_give_clean_errors(behavior, tmp_path, damage, expected):
    write_converted(behavior, tmp_path / "out")
    damage(tmp_path / "out")
    with pytest.raises(XarError, match=expected):
        load_converted(tmp_path / "out")


def test_a_box_file_that_is_a_link_is_refused(behavior, tmp_path):
    """The folder's files are opened in the folder, never through a link (which could lead
    out of it)."""
    out = tmp_path / "out"
    write_converted(behavior, out)
    outside = tmp_path / "elsewhere.xml"
    outside.write_bytes((out / "l1_Say.xml").read_bytes())
    (out / "l1_Say.xml").unlink()
    (out / "l1_Say.xml").symlink_to(outside)
    with pytest.raises(XarError, match=r"l1_Say\.xml: cannot read"):
        load_converted(out)
