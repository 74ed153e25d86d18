"""Which folders a conversion may replace: only those it wrote, holding nothing else."""
import json
import os

import pytest

from naoqi_qicore.converter.api import convert
from naoqi_qicore.converter.ownership import (WRITTEN_LIST, not_written_by_converter,
                                              written_list)
from naoqi_qicore.converter.writer import NotConvertedOutputError


@pytest.fixture
def converted(tmp_path, project, box):
    """A behavior converted into ``tmp_path/out``."""
    (tmp_path / "dance.xar").write_bytes(project(box("Say", 1, "print 'hi'")))
    convert(tmp_path / "dance.xar", tmp_path / "out")
    return tmp_path / "out"


def test_a_converted_folder_lists_every_file_it_holds(converted):
    listed = json.loads((converted / WRITTEN_LIST).read_text())["files"]
    assert sorted(listed + [WRITTEN_LIST]) == sorted(os.listdir(converted))
    assert not_written_by_converter(converted) is None


def test_compiled_python_is_no_reason_to_keep_a_folder(converted):
    (converted / "__pycache__").mkdir()
    (converted / "__pycache__" / "main.cpython-311.pyc").write_bytes(b"\0")
    assert not_written_by_converter(converted) is None
    (converted / "__pycache__" / "notes.txt").write_text("mine")
    assert not_written_by_converter(converted) == \
        "it holds __pycache__/, which xar_convert did not write"


@pytest.mark.parametrize("change, reason", [
    (lambda out: (out / "empty").mkdir(), "it holds empty/, which"),
    (lambda out: (out / "link").symlink_to(out.parent), "it holds link, which"),
    (lambda out: (out / WRITTEN_LIST).write_text("{not json"), "did not write it"),
    (lambda out: (out / WRITTEN_LIST).write_text('{"files": "main.py"}'), "did not write it"),
    (lambda out: (out / WRITTEN_LIST).write_text("[" * 100000), "did not write it"),
    (lambda out: (out / WRITTEN_LIST).unlink(), "did not write it"),
])
def test_anything_else_keeps_the_folder(converted, tmp_path, project, box, change, reason):
    change(converted)
    assert reason in not_written_by_converter(converted)
    before = sorted(os.listdir(converted))
    with pytest.raises(NotConvertedOutputError, match="^%s: not replaced: " % converted):
        convert(tmp_path / "dance.xar", converted, force=True)
    assert sorted(os.listdir(converted)) == before


def test_a_list_that_is_a_link_is_not_the_converters(converted, tmp_path):
    """A list of the files written is never followed out of the folder."""
    (tmp_path / "elsewhere.json").write_text((converted / WRITTEN_LIST).read_text())
    (converted / WRITTEN_LIST).unlink()
    (converted / WRITTEN_LIST).symlink_to(tmp_path / "elsewhere.json")
    assert "did not write it" in not_written_by_converter(converted)
    link = tmp_path / "link"
    link.symlink_to(converted)
    assert not_written_by_converter(link) == "it is not a folder xar_convert wrote"


def test_a_project_lists_its_copies_and_never_copies_a_list(tmp_path, project, box):
    root = tmp_path / "game"
    (root / "sounds").mkdir(parents=True)
    (root / "behavior.xar").write_bytes(project(box("Say", 1)))
    (root / "sounds" / "ding.wav").write_bytes(b"RIFF")
    (root / "sounds" / WRITTEN_LIST).write_text('{"files": ["ding.wav"]}')
    (root / "game.pml").write_text(
        '<Package name="game" format_version="4"><BehaviorDescriptions>'
        '<BehaviorDescription name="behavior" src="." xar="behavior.xar" />'
        '</BehaviorDescriptions></Package>')
    convert(root, tmp_path / "out")
    listed = json.loads((tmp_path / "out" / WRITTEN_LIST).read_text())["files"]
    assert "sounds/ding.wav" in listed and "game.pml" in listed
    assert not (tmp_path / "out" / "sounds" / WRITTEN_LIST).exists()
    convert(root, tmp_path / "out", force=True)


def test_the_list_of_written_files_is_json_whatever_their_names():
    names = ["l0_root.xml", 'sounds/say "hi".wav', "été.txt", "tab\there", "back\\slash",
             "bell\x07", "del\x7f"]
    assert json.loads(written_list(names)) == {"format": "naoqi_qicore/1",
                                               "files": sorted(names)}
    assert written_list(["a.xml", "b.py"]) == '{"format": "naoqi_qicore/1", "files": [\n' \
                                             '"a.xml",\n"b.py"\n]}\n'
