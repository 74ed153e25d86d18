"""Large documents are read as they are parsed (each diagram's boxes at their end tag,
their elements emptied at once): the model and the errors are those of a whole parse."""
from pathlib import Path

import pytest

from naoqi_qicore.xar import elements
from naoqi_qicore.xar.errors import XarError
from naoqi_qicore.xar.parser import parse_xar_bytes

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO.parent / "shared" / "corpus" / "files"
LINK = '<Link inputowner="%s" indexofinput="%s" outputowner="%s" indexofoutput="%s" />'


def both_ways(data: bytes, monkeypatch) -> tuple:
    """The behavior (or the error) read whole, then read as parsed."""
    results = []
    for threshold in (elements.MAX_DOCUMENT_BYTES + 1, 0):
        monkeypatch.setattr(elements, "STREAMED_DOCUMENT_BYTES", threshold)
        try:
            results.append(parse_xar_bytes(data, "b.xar"))
        except XarError as error:
            results.append(str(error))
    return tuple(results)


def sample_files() -> list:
    files = sorted(CORPUS.glob("*.xar")) if CORPUS.is_dir() else []
    by_size = sorted(files, key=lambda path: path.stat().st_size)
    return [REPO / "examples" / "wave_hello" / "behavior.xar"] + by_size[-3:] + by_size[:3]


@pytest.mark.parametrize("path", sample_files(), ids=lambda path: path.name)
def test_the_model_is_the_same(path, monkeypatch) -> None:
    whole, streamed = both_ways(path.read_bytes(), monkeypatch)
    assert streamed == whole


def test_nested_diagrams(project, box, container, monkeypatch) -> None:
    outer = container("Outer", 1, box("Inner", 1, "pass") + LINK % (1, 2, 0, 2))
    whole, streamed = both_ways(project(outer + LINK % (1, 2, 0, 2)), monkeypatch)
    assert streamed == whole
    outer_model = streamed.root.timeline.layers[0].keyframes[0].diagram.boxes[0]
    assert [child.name for child in outer_model.children()] == ["Inner"]


def test_errors_name_the_same_element(project, box, container, monkeypatch) -> None:
    inner = box("Inner", 1, "pass")
    broken = container("Outer", 1, inner + LINK % (7, 2, 0, 2))
    whole, streamed = both_ways(project(broken), monkeypatch)
    assert isinstance(whole, str) and streamed == whole and "owner 7" in whole
    assert both_ways(project(inner + inner), monkeypatch)[1].count("duplicate box id 1") == 1


def test_equal_scripts_are_one_text(project, box) -> None:
    behavior = parse_xar_bytes(project(box("A", 1, "x = 1") + box("B", 2, "x = 1")), "b.xar")
    first, second = behavior.root.timeline.layers[0].keyframes[0].diagram.boxes
    assert first.script.content is second.script.content
