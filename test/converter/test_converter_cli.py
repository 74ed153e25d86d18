"""The xar_convert command: outputs, exit codes, reports, graphs, atomic writes."""
import json

import pytest

from naoqi_qicore.converter.cli import main
from naoqi_qicore.converter.loader import load_converted


@pytest.fixture
def inputs(tmp_path, project, box):
    folder = tmp_path / "in"
    (folder / "dance").mkdir(parents=True)
    (folder / "dance" / "behavior.xar").write_bytes(project(box("Say", 1, "print 'hi'")))
    (folder / "wave.xar").write_bytes(project(box("Wave", 1)))
    (folder / "broken.xar").write_bytes(b"<ChoregrapheProject")
    return folder


def test_one_input_goes_into_out(inputs, tmp_path, capsys):
    assert main([str(inputs / "wave.xar"), str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "main.py").is_file()
    assert load_converted(tmp_path / "out").names
    assert capsys.readouterr().out == "%s -> %s (2 boxes, 0 scripts ported)\n" % (
        inputs / "wave.xar", tmp_path / "out")
    assert main([str(inputs / "dance"), str(tmp_path / "dance")]) == 0
    assert capsys.readouterr().out.endswith(" (2 boxes, 1 script ported)\n")


def test_several_inputs_each_into_their_folder_and_failures_exit_1(inputs, tmp_path, capsys):
    code = main([str(inputs / "dance"), str(inputs / "wave.xar"), str(inputs / "broken.xar"),
                 str(tmp_path / "out"), "--json"])
    assert code == 1
    report = json.loads(capsys.readouterr().out)
    assert [entry["ok"] for entry in report] == [True, True, False]
    assert report[0]["behaviors"][0]["ported"] == ["l1_Say"]
    assert report[2]["error"].startswith(str(inputs / "broken.xar") + ":")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["dance", "wave"]


def test_errors_are_one_line_without_traceback(inputs, tmp_path, capsys):
    assert main([str(inputs / "broken.xar"), str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "out").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]


def test_existing_output_needs_force(inputs, tmp_path, capsys):
    out = tmp_path / "out"
    assert main([str(inputs / "wave.xar"), str(out), "--quiet"]) == 0
    (out / "stale.txt").write_text("old")
    assert main([str(inputs / "wave.xar"), str(out), "--quiet"]) == 1
    assert "--force" in capsys.readouterr().err
    assert main([str(inputs / "wave.xar"), str(out), "-q", "-f"]) == 0
    assert not (out / "stale.txt").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in", "out"]


def test_output_is_deterministic(inputs, tmp_path):
    for name in ("a", "b"):
        assert main([str(inputs / "dance"), str(tmp_path / name), "--quiet"]) == 0
    for path in (tmp_path / "a").iterdir():
        assert path.read_bytes() == (tmp_path / "b" / path.name).read_bytes()


def test_usage_errors_exit_2(tmp_path, capsys):
    assert main([]) == 2
    assert main([str(tmp_path)]) == 2
    assert main(["--bogus", "a", "b"]) == 2
    assert main(["--help"]) == 0


@pytest.mark.parametrize("suffix, marker", [(".dot", "digraph"), (".svg", "<svg")])
def test_graph_files(inputs, tmp_path, suffix, marker):
    graph = tmp_path / ("g" + suffix)
    assert main([str(inputs / "dance"), str(tmp_path / "out"), "--quiet", "--graph",
                 str(graph)]) == 0
    text = graph.read_text()
    assert marker in text and "Say" in text


def test_graph_inside_the_output_and_bad_graph_suffix(inputs, tmp_path, capsys):
    assert main([str(inputs / "wave.xar"), str(tmp_path / "out"), "--quiet", "--graph"]) == 0
    assert (tmp_path / "out" / "graph.svg").read_text().count("<svg") == 1
    assert main([str(inputs / "wave.xar"), str(tmp_path / "o2"), "--graph", "g.png"]) == 1
    assert "graph files must end with" in capsys.readouterr().err
