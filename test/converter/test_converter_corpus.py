"""Every real behavior of the corpus converts, compiles and survives round trips.

Per file: .xar -> model -> converted folder -> model (equal to the parsed one), every .py
written compiles under Python 3, and .xar -> format -> .xar -> format is a fixed point.
The one empty file of the corpus gives a clean one-line error.
"""
import hashlib
import warnings
from pathlib import Path

import pytest

from naoqi_qicore.converter.loader import load_converted, prepare
from naoqi_qicore.converter.writer import MANIFEST, install_files, render
from naoqi_qicore.xar.errors import XarError
from naoqi_qicore.xar.parser import parse_xar_bytes, parse_xar_file
from naoqi_qicore.xar.writer import behavior_to_xar

CORPUS_FILES = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "files"
EMPTY_ANCHOR = "libqicore-e3b0c442.xar"
_compiled = set()


def corpus_files():
    return sorted(p.name for p in CORPUS_FILES.glob("*.xar")) if CORPUS_FILES.is_dir() else []


def _compiles(code: str) -> bool:
    digest = hashlib.sha1(code.encode()).digest()
    if digest not in _compiled:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(code, "<box>", "exec")
        _compiled.add(digest)
    return True


@pytest.mark.parametrize("name", corpus_files())
def test_corpus_file(name, corpus_dir, tmp_path):
    path = corpus_dir / "files" / name
    if name == EMPTY_ANCHOR:
        with pytest.raises(XarError, match=r"^%s:1: not an XML document" % path):
            parse_xar_file(path)
        return
    behavior = parse_xar_file(path)
    files, report = render(behavior)
    install_files(files, tmp_path / "out")
    loaded = load_converted(tmp_path / "out")
    assert loaded.behavior == behavior
    prepared = prepare(behavior)
    assert loaded.code == prepared.code
    assert sorted(loaded.names.values()) == sorted(prepared.names.values())
    for object_name, code in loaded.code.items():
        if code:
            assert _compiles(code), object_name
    again = parse_xar_bytes(behavior_to_xar(loaded.behavior).encode("utf-8"), behavior.source)
    assert again == behavior
    assert render(again)[0] == files
    assert MANIFEST in files


def test_the_corpus_is_there_or_skipped(corpus_dir):
    assert len(corpus_files()) > 100
