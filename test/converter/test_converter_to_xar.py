"""Back to Choregraphe: ``xar_convert --to-xar CONVERTED OUT`` (naoqi_qicore.converter.to_xar).

The fixed point: ``.xar`` -> convert -> to-xar -> convert gives the files of the first
conversion byte for byte.  The only thing allowed to differ is the ``source`` attribute of
``behavior.xml``'s root element (it names the input path, which differs by nature): the
comparisons replace exactly that attribute's value and nothing else.
"""
import json
import os
import re
import shutil
import signal
from pathlib import Path
from typing import Dict

import pytest

from naoqi_qicore.converter import to_xar
from naoqi_qicore.converter.api import convert
from naoqi_qicore.converter.interrupts import raise_interrupted
from naoqi_qicore.converter.ownership import WRITTEN_LIST
from naoqi_qicore.converter.project import PROJECT_INDEX
from naoqi_qicore.converter.to_xar import export_xar, main
from naoqi_qicore.converter.writer import (NotConvertedOutputError, OutputError,
                                           OutputExistsError, unported_code)
from naoqi_qicore.xar.errors import XarError
from naoqi_qicore.xar.parser import parse_xar_file

CORPUS_FILES = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "files"
REPO_ROOT = Path(__file__).resolve().parents[2]
PY2_SCRIPT = ("class MyClass(GeneratedClass):\n    def onInput_onStart(self):\n"
              "        print 'hello'\n")
PY3_SCRIPT = "class MyClass(GeneratedClass):\n    pass\n"
BROKEN_SCRIPT = "x = 08\n"
#: the one attribute normalised: ``source`` of behavior.xml's root ``<Behavior>``
_BEHAVIOR_SOURCE = re.compile(rb'(<Behavior format="[^"]*" root="[^"]*") source="[^"]*"')


def corpus_files():
    return sorted(p.name for p in CORPUS_FILES.glob("*.xar")) if CORPUS_FILES.is_dir() else []


def tree(root: Path) -> Dict[str, bytes]:
    """Every file under ``root`` (relative name -> bytes), ``behavior.xml``'s ``source``
    attribute replaced by a fixed value, but the list of the files the converter wrote."""
    files = {}
    for folder, _, names in os.walk(root):
        for name in names:
            if name == WRITTEN_LIST and folder == str(root):
                continue
            path = Path(folder, name)
            data = path.read_bytes()
            if name == "behavior.xml":
                data, count = _BEHAVIOR_SOURCE.subn(rb'\1 source="SOURCE"', data)
                assert count == 1, path
            files[path.relative_to(root).as_posix()] = data
    return files


def leftovers(folder: Path):
    return sorted(p.name for p in folder.iterdir() if ".replacing-" in p.name
                  or ".converting-" in p.name)


@pytest.fixture
def converted(tmp_path, project, box) -> Path:
    """A converted behavior: a Python 2 box (ported), a Python 3 box, an unportable one."""
    xar = tmp_path / "source.xar"
    xar.write_bytes(project(box("Say", 1, PY2_SCRIPT) + box("Wave", 2, PY3_SCRIPT)
                            + box("Broken", 3, BROKEN_SCRIPT)))
    convert(xar, tmp_path / "converted")
    return tmp_path / "converted"


def scripts_of(xar: Path) -> Dict[str, str]:
    behavior = parse_xar_file(xar)
    return {box.name: box.script.content for _, box in behavior.root.walk() if box.script}


# -- the fixed point -------------------------------------------------------------------------
@pytest.mark.parametrize("name", corpus_files())
def test_corpus_file_is_a_fixed_point(name, corpus_dir, tmp_path):
    try:
        convert(corpus_dir / "files" / name, tmp_path / "first")
    except XarError as error:
        pytest.skip("the corpus file does not convert: %s" % error)
    result = export_xar(tmp_path / "first", tmp_path / "back.xar")
    assert result.behaviors[0].edited == []
    convert(tmp_path / "back.xar", tmp_path / "second")
    assert tree(tmp_path / "second") == tree(tmp_path / "first")


def test_unchanged_boxes_get_their_original_scripts_back(converted, tmp_path):
    assert (converted / "l1_Say.py").read_text() != PY2_SCRIPT  # ported
    assert (converted / "l1_Broken.py").read_text().startswith("# x = 08")  # commented out
    result = export_xar(converted, tmp_path / "back.xar")
    assert scripts_of(tmp_path / "back.xar") == {"root": "", "Say": PY2_SCRIPT,
                                                "Wave": PY3_SCRIPT, "Broken": BROKEN_SCRIPT}
    exported = result.behaviors[0]
    assert (exported.scripts, exported.restored, exported.edited) == (3, 2, [])
    assert leftovers(tmp_path) == []


def test_an_edited_box_carries_its_edited_text_both_ways(converted, tmp_path):
    edited = (converted / "l1_Say.py").read_text().replace("hello", "bonjour")
    (converted / "l1_Say.py").write_text(edited)
    fixed = "x = 8\n"
    (converted / "l1_Broken.py").write_text(fixed)
    result = export_xar(converted, tmp_path / "back.xar")
    assert result.behaviors[0].edited == ["l1_Say", "l1_Broken"]
    assert result.behaviors[0].restored == 0
    assert scripts_of(tmp_path / "back.xar") == {"root": "", "Say": edited, "Wave": PY3_SCRIPT,
                                                "Broken": fixed}
    convert(tmp_path / "back.xar", tmp_path / "again")
    assert (tmp_path / "again" / "l1_Say.py").read_text() == edited
    assert (tmp_path / "again" / "l1_Broken.py").read_text() == fixed
    assert "<content>" not in (tmp_path / "again" / "l1_Say.xml").read_text()


def test_an_edited_box_that_kept_no_original_gives_its_new_text(converted, tmp_path):
    assert "<content>" not in (converted / "l1_Wave.xml").read_text()
    edited = PY3_SCRIPT.replace("pass", "x = 1")
    (converted / "l1_Wave.py").write_text(edited)
    assert export_xar(converted, tmp_path / "back.xar").behaviors[0].edited == []
    assert scripts_of(tmp_path / "back.xar")["Wave"] == edited


def test_a_script_commented_out_by_an_older_converter_is_unchanged(converted, tmp_path):
    """The reason in the commented-out form is the one behavior.xml recorded, not the one
    the porter gives today."""
    manifest = converted / "behavior.xml"
    text = manifest.read_text()
    reason = re.search(r'<Script object="l1_Broken" ported="0" error="([^"]*)"', text).group(1)
    manifest.write_text(text.replace('error="%s"' % reason, 'error="an older reason"'))
    (converted / "l1_Broken.py").write_text(unported_code(BROKEN_SCRIPT, "an older reason"))
    export_xar(converted, tmp_path / "back.xar")
    assert scripts_of(tmp_path / "back.xar")["Broken"] == BROKEN_SCRIPT
    (converted / "l1_Broken.py").write_text(unported_code(BROKEN_SCRIPT, "yet another"))
    export_xar(converted, tmp_path / "back.xar", force=True)
    assert scripts_of(tmp_path / "back.xar")["Broken"].startswith("# x = 08")


# -- projects --------------------------------------------------------------------------------
def _project(tmp_path: Path) -> Path:
    """A project: behavior_1 (the example) with a second behavior in its folder, a sound,
    tablet pages, a bundled module, the .pml and manifest.xml."""
    root = tmp_path / "game"
    (root / "behavior_1" / "sounds").mkdir(parents=True)
    shutil.copy(REPO_ROOT / "examples" / "wave_hello" / "behavior.xar",
                root / "behavior_1" / "behavior.xar")
    (root / "behavior_1" / "other.xar").write_text(
        (REPO_ROOT / "examples" / "wave_hello" / "behavior.xar").read_text())
    (root / "behavior_1" / "sounds" / "ding.wav").write_bytes(b"RIFF" + bytes(range(256)))
    (root / "html").mkdir()
    (root / "html" / "index.html").write_text("<html></html>")
    (root / "lib").mkdir()
    (root / "lib" / "helper.py").write_text("print 'never run'\n")
    (root / "manifest.xml").write_text('<package uuid="game-1" version="1.0"/>')
    (root / "game.pml").write_text(
        '<Package name="game" format_version="4"><BehaviorDescriptions>'
        '<BehaviorDescription name="behavior" src="behavior_1" xar="behavior.xar" />'
        '<BehaviorDescription name="other" src="behavior_1" xar="other.xar" />'
        '</BehaviorDescriptions></Package>')
    return root


def test_a_project_goes_back_to_the_project(tmp_path):
    """OUT is named as the project was: converted_project.xml's ``source`` is that name."""
    source = _project(tmp_path)
    convert(source, tmp_path / "converted")
    assert (tmp_path / "converted" / "behavior_1" / "other" / "behavior.xml").is_file()
    back = tmp_path / "back" / "game"
    result = export_xar(tmp_path / "converted", back)
    assert [b.xar for b in result.behaviors] == [back / "behavior_1" / "behavior.xar",
                                                 back / "behavior_1" / "other.xar"]
    assert sorted(tree(back)) == sorted(tree(source))
    assert result.copied == len(tree(source)) - 2
    assert (back / "lib" / "helper.py").read_text() == "print 'never run'\n"
    assert parse_xar_file(back / "behavior_1" / "other.xar").root.name == "root"
    convert(back, tmp_path / "again")
    assert tree(tmp_path / "again") == tree(tmp_path / "converted")
    assert leftovers(tmp_path) == [] and leftovers(tmp_path / "back") == []


def test_a_corpus_project_goes_back_to_the_project(corpus_dir, tmp_path):
    source = corpus_dir / "projects" / "bank-account-c962d51a"
    if not source.is_dir():
        pytest.skip("corpus project not available")
    convert(source, tmp_path / "converted")
    export_xar(tmp_path / "converted", tmp_path / "back" / source.name)
    assert sorted(tree(tmp_path / "back" / source.name)) == sorted(tree(source))
    convert(tmp_path / "back" / source.name, tmp_path / "again")
    assert tree(tmp_path / "again") == tree(tmp_path / "converted")


def test_a_project_edit_and_its_links(tmp_path):
    convert(_project(tmp_path), tmp_path / "converted")
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    (tmp_path / "converted" / "html" / "secret.txt").symlink_to(outside)
    code = next((tmp_path / "converted" / "behavior_1").glob("l1_*.py"))
    code.write_text(code.read_text() + "\n# edited\n")
    result = export_xar(tmp_path / "converted", tmp_path / "back")
    assert any("secret.txt: symbolic link left out" in warning for warning in result.warnings)
    assert not (tmp_path / "back" / "html" / "secret.txt").exists()
    assert "# edited" in (tmp_path / "back" / "behavior_1" / "behavior.xar").read_text()


@pytest.mark.parametrize("path, message", [
    ("../elsewhere", r"unsafe or missing path '\.\./elsewhere'"),
    ("/etc", r"unsafe or missing path '/etc'"),
    ("outside", r"refusing outside: a symbolic link leads it outside"),
])
def test_a_project_index_leading_outside_is_refused(tmp_path, path, message):
    convert(_project(tmp_path), tmp_path / "converted")
    (tmp_path / "converted" / "outside").symlink_to(tmp_path)
    index = tmp_path / "converted" / PROJECT_INDEX
    index.write_text(index.read_text().replace('path="behavior_1"', 'path="%s"' % path))
    with pytest.raises(XarError, match=r"^%s:\d+: <Behavior>: %s" % (re.escape(str(index)),
                                                                     message)):
        export_xar(tmp_path / "converted", tmp_path / "back")
    assert not (tmp_path / "back").exists() and leftovers(tmp_path) == []


def test_a_project_is_never_written_inside_itself(tmp_path):
    convert(_project(tmp_path), tmp_path / "converted")
    with pytest.raises(OutputError, match="cannot be written inside"):
        export_xar(tmp_path / "converted", tmp_path / "converted" / "back")
    with pytest.raises(OutputError, match="cannot be written inside"):
        export_xar(tmp_path / "converted", tmp_path, force=True)
    assert not (tmp_path / "converted" / "back").exists()


# -- errors and safety -----------------------------------------------------------------------
def test_not_a_converted_folder(tmp_path):
    with pytest.raises(XarError, match=r"^%s: no such folder$" % re.escape(str(tmp_path / "x"))):
        export_xar(tmp_path / "x", tmp_path / "out.xar")
    (tmp_path / "empty").mkdir()
    with pytest.raises(XarError, match=r"^%s: not a converted behavior or project: no "
                       r"behavior\.xml" % re.escape(str(tmp_path / "empty"))):
        export_xar(tmp_path / "empty", tmp_path / "out.xar")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty"]


def test_a_wrong_format_marker_is_refused(converted, tmp_path):
    manifest = converted / "behavior.xml"
    manifest.write_text(manifest.read_text().replace("naoqi_qicore/2", "naoqi_qicore/9"))
    with pytest.raises(XarError, match=r"^%s:2: <Behavior>: not a naoqi_qicore/2 file"
                       % re.escape(str(manifest))):
        export_xar(converted, tmp_path / "out.xar")
    assert not (tmp_path / "out.xar").exists()


@pytest.mark.parametrize("missing", ["l1_Say.xml", "l1_Say.py", "l0_root_state_0.xml",
                                     "l0_root_state_machine.xml"])
def test_a_missing_file_is_named(converted, tmp_path, missing):
    (converted / missing).unlink()
    with pytest.raises(XarError, match=r"^%s: " % re.escape(str(converted / missing))):
        export_xar(converted, tmp_path / "out.xar")
    assert not (tmp_path / "out.xar").exists() and leftovers(tmp_path) == []


@pytest.mark.parametrize("name", ["../x", "/etc/passwd", "l1_a/b", "l1 Say"])
def test_unsafe_object_names_are_refused(converted, tmp_path, name):
    root = converted / "l0_root.xml"
    root.write_text(root.read_text().replace('<Object Name="l1_Say" />',
                                             '<Object Name="%s" />' % name))
    with pytest.raises(XarError, match=r"^%s:\d+: <Object>: invalid object name"
                       % re.escape(str(root))):
        export_xar(converted, tmp_path / "out.xar")
    assert not (tmp_path / "out.xar").exists()


def test_a_nul_in_a_box_file_is_refused(converted, tmp_path):
    root = converted / "l0_root.xml"
    root.write_bytes(root.read_bytes().replace(b'Name="l1_Say"', b'Name="l1_\0Say"'))
    with pytest.raises(XarError, match=r"^%s:\d+: not well-formed XML" % re.escape(str(root))):
        export_xar(converted, tmp_path / "out.xar")


def test_a_link_leading_outside_the_folder_is_never_followed(converted, tmp_path):
    outside = tmp_path / "outside.xml"
    shutil.move(converted / "l1_Say.xml", outside)
    (converted / "l1_Say.xml").symlink_to(outside)
    with pytest.raises(XarError, match=r"^%s: refusing a symbolic link leading outside"
                       % re.escape(str(converted / "l1_Say.xml"))):
        export_xar(converted, tmp_path / "out.xar")
    (converted / "l1_Say.xml").unlink()
    os.mkfifo(converted / "l1_Say.xml")
    with pytest.raises(XarError, match=r"l1_Say\.xml: not a regular file"):
        export_xar(converted, tmp_path / "out.xar")


def test_an_existing_output_is_replaced_only_when_forced(converted, tmp_path):
    out = tmp_path / "out.xar"
    out.write_text("keep me")
    with pytest.raises(OutputExistsError, match=r"^%s: already exists$" % re.escape(str(out))):
        export_xar(converted, out)
    assert out.read_text() == "keep me"
    export_xar(converted, out, force=True)
    assert scripts_of(out)["Say"] == PY2_SCRIPT
    with pytest.raises(OutputError, match="is a folder"):
        export_xar(converted, tmp_path, force=True)
    # a project whose one behavior stood at its root as out.xar (the name behavior.xml's
    # source ends with)
    (tmp_path / "back").mkdir()
    (tmp_path / "back" / "old").write_text("old")
    convert(tmp_path / "out.xar", tmp_path / "project_like")
    (tmp_path / "project_like" / PROJECT_INDEX).write_text(
        '<ConvertedProject format="naoqi_qicore/1" source="x"><Behavior name="b" path="."/>'
        '</ConvertedProject>')
    with pytest.raises(OutputExistsError):
        export_xar(tmp_path / "project_like", tmp_path / "back")
    with pytest.raises(NotConvertedOutputError, match="xar_convert did not write it"):
        export_xar(tmp_path / "project_like", tmp_path / "back", force=True)
    (tmp_path / "back" / WRITTEN_LIST).write_text('{"files": []}')
    with pytest.raises(NotConvertedOutputError, match="it holds old, which xar_convert did "
                                                      "not write"):
        export_xar(tmp_path / "project_like", tmp_path / "back", force=True)
    assert (tmp_path / "back" / "old").read_text() == "old"
    shutil.rmtree(tmp_path / "back")
    export_xar(tmp_path / "project_like", tmp_path / "back")
    export_xar(tmp_path / "project_like", tmp_path / "back", force=True)
    assert sorted(p.name for p in (tmp_path / "back").iterdir()) == [WRITTEN_LIST, "out.xar"]


def test_an_interrupted_export_leaves_nothing(converted, tmp_path, monkeypatch):
    def interrupted(*_, **_handles):
        raise KeyboardInterrupt
    monkeypatch.setattr(to_xar.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        export_xar(converted, tmp_path / "out.xar")
    assert not (tmp_path / "out.xar").exists() and leftovers(tmp_path) == []


def test_an_interrupted_command_exits_128_plus_the_signal(converted, tmp_path, monkeypatch,
                                                          capsys):
    def interrupted(*_, **_handles):
        raise to_xar.Interrupted(signal.SIGTERM)
    monkeypatch.setattr(to_xar.os, "replace", interrupted)
    assert main([str(converted), str(tmp_path / "out.xar")]) == 128 + signal.SIGTERM
    assert "interrupted (SIGTERM)" in capsys.readouterr().err
    assert not (tmp_path / "out.xar").exists() and leftovers(tmp_path) == []
    assert signal.getsignal(signal.SIGTERM) is not raise_interrupted


def test_a_write_error_names_the_output(converted, tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(OutputError, match=r"^%s: cannot write: " % re.escape(
            str(tmp_path / "file" / "out.xar"))):
        export_xar(converted, tmp_path / "file" / "out.xar")


# -- command line ----------------------------------------------------------------------------
def test_the_command_line(converted, tmp_path, capsys):
    out = tmp_path / "out.xar"
    assert main([str(converted), str(out)]) == 0
    assert capsys.readouterr().out == (
        "%s -> %s (1 behavior, 3 box scripts from their .py files (2 unedited ports back in "
        "their Python 2 text))\n" % (converted, out))
    assert main([str(converted), str(out)]) == 1
    error = capsys.readouterr().err
    assert error == "%s: already exists (use --force to replace it)\n" % out
    assert main([str(converted), str(out), "-f", "-q"]) == 0
    assert capsys.readouterr() == ("", "")
    assert main([str(converted), str(out), "--force", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and report["behaviors"][0]["scripts"] == 3
    assert (report["behaviors"][0]["restored"], report["behaviors"][0]["edited"]) == (2, [])
    (converted / "l1_Broken.py").write_text("x = 8\n")
    assert main([str(converted), str(out), "--force"]) == 0
    assert capsys.readouterr().out == (
        "%s -> %s (1 behavior, 3 box scripts from their .py files (1 unedited port back in "
        "its Python 2 text, 1 edited port))\n" % (converted, out))
    assert main([str(tmp_path / "missing"), str(out), "--json"]) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out)["error"] == captured.err.strip()
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err


def test_command_line_usage(capsys):
    assert main([]) == 2
    assert "usage: xar_convert --to-xar" in capsys.readouterr().err
    assert main(["a", "b", "--bogus"]) == 2
    assert main(["--help"]) == 0
    assert "CONVERTED OUT" in capsys.readouterr().out


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot program is not installed")
def test_the_diagram_pages_of_a_converted_project_are_not_project_files(tmp_path, project, box,
                                                                         container):
    root = tmp_path / "nested"
    root.mkdir()
    (root / "behavior.xar").write_bytes(project(container("Outer", 1, box("Inner", 1, "pass"))))
    (root / "nested.pml").write_text(
        '<Package name="nested" format_version="4"><BehaviorDescriptions>'
        '<BehaviorDescription name="behavior" src="." xar="behavior.xar" />'
        '</BehaviorDescriptions></Package>')
    convert(root, tmp_path / "converted", graph=".svg")
    assert {"graph.svg", "graph_l1_Outer.svg"} <= set(tree(tmp_path / "converted"))
    back = tmp_path / "back" / "nested"
    export_xar(tmp_path / "converted", back)
    assert sorted(tree(back)) == sorted(tree(root))
