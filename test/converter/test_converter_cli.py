"""The xar_convert command: outputs, exit codes, reports, graphs, atomic writes."""
import json
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from naoqi_qicore.converter.cli import main
from naoqi_qicore.converter.interrupts import STOP_SIGNALS
from naoqi_qicore.converter.loader import load_converted

REPO = Path(__file__).resolve().parents[2]


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
    (out / "main.py").unlink()
    (out / "l1_Wave.xml").write_text("edited")
    assert main([str(inputs / "wave.xar"), str(out), "--quiet"]) == 1
    assert "--force" in capsys.readouterr().err
    assert main([str(inputs / "wave.xar"), str(out), "-q", "-f"]) == 0
    assert (out / "main.py").is_file() and (out / "l1_Wave.xml").read_text() != "edited"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in", "out"]


def test_force_never_replaces_what_xar_convert_did_not_write(inputs, tmp_path, capsys):
    """``-f`` replaces a folder xar_convert wrote, only while it holds nothing else."""
    out = tmp_path / "out"
    assert main([str(inputs / "wave.xar"), str(out), "--quiet"]) == 0
    (out / "notes.txt").write_text("mine")
    assert main([str(inputs / "wave.xar"), str(out), "-q", "-f"]) == 1
    assert capsys.readouterr().err == "%s: not replaced: it holds notes.txt, which " \
        "xar_convert did not write\n" % out
    assert (out / "notes.txt").read_text() == "mine"
    mine = tmp_path / "mine"
    (mine / "deep").mkdir(parents=True)
    (mine / "deep" / "thesis.txt").write_text("mine")
    assert main([str(inputs / "wave.xar"), str(mine), "-q", "-f"]) == 1
    assert "xar_convert did not write it" in capsys.readouterr().err
    (tmp_path / "file.txt").write_text("mine")
    assert main([str(inputs / "wave.xar"), str(tmp_path / "file.txt"), "-q", "-f"]) == 1
    assert "not a folder xar_convert wrote" in capsys.readouterr().err
    assert (mine / "deep" / "thesis.txt").read_text() == "mine"
    assert (tmp_path / "file.txt").read_text() == "mine"


@pytest.mark.parametrize("ending", ["sub/..", "sub/../", "."])
def test_an_input_naming_no_folder_of_its_own_is_a_usage_error(inputs, tmp_path, capsys,
                                                                monkeypatch, ending: str):
    """``xar_convert dance/sub/.. wave.xar out -f`` wrote the first input into ``out/..``
    (replacing the folder around ``out``); ``.`` into ``out`` itself."""
    (inputs / "dance" / "sub").mkdir()
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.chdir(inputs / "dance")
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    assert main([ending, str(inputs / "wave.xar"), str(out), "-q", "-f"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("xar_convert: %s: cannot name an output folder after this path "
                            "(it ends in '%s'); give the input by its own name, as %s\n"
                            % (Path(ending), Path(ending).name or ".", inputs / "dance"))
    assert error.count("\n") == 1
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before


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


needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="Graphviz's dot program is not installed "
                                      "(apt-get install graphviz)")


@needs_dot
@pytest.mark.parametrize("suffix, marker", [(".dot", "digraph"), (".svg", "<svg")])
def test_graph_files(inputs, tmp_path, suffix, marker):
    graph = tmp_path / ("g" + suffix)
    assert main([str(inputs / "dance"), str(tmp_path / "out"), "--quiet", "--graph",
                 str(graph)]) == 0
    text = graph.read_text()
    assert marker in text and "Say" in text


@needs_dot
def test_graph_inside_the_output_and_bad_graph_suffix(inputs, tmp_path, capsys):
    assert main([str(inputs / "wave.xar"), str(tmp_path / "out"), "--quiet", "--graph"]) == 0
    assert (tmp_path / "out" / "graph.svg").read_text().count("<svg") == 1
    assert main([str(inputs / "wave.xar"), str(tmp_path / "o2"), "--graph", "g.pdf"]) == 2
    assert "g.pdf: graph files must end with" in capsys.readouterr().err
    assert not (tmp_path / "o2").exists()


@needs_dot
def test_graph_pages_side_by_side(tmp_path, project, box, container, capsys):
    source = tmp_path / "nested.xar"
    source.write_bytes(project(container("Outer", 1, box("Inner", 1, "pass"))))
    assert main([str(source), str(tmp_path / "out"), "--quiet", "--graph"]) == 0
    pages = sorted(path.name for path in (tmp_path / "out").glob("graph*.svg"))
    assert pages == ["graph.svg", "graph_l1_Outer.svg"]
    assert 'href="graph_l1_Outer.svg"' in (tmp_path / "out" / "graph.svg").read_text()
    assert main([str(source), str(tmp_path / "o2"), "--quiet", "--graph",
                 str(tmp_path / "d.png")]) == 0
    assert (tmp_path / "d.png").read_bytes().startswith(b"\x89PNG")
    assert (tmp_path / "d_l1_Outer.png").read_bytes().startswith(b"\x89PNG")


def test_the_command_ends_with_its_status_and_its_output(inputs, tmp_path):
    # the command leaves without tearing the interpreter down: what it printed is there
    command = [sys.executable, "-m", "naoqi_qicore.converter.cli"]
    done = subprocess.run(command + [str(inputs / "wave.xar"), str(tmp_path / "out")],
                          capture_output=True, text=True, cwd=str(REPO), timeout=60)
    assert done.returncode == 0 and "wave.xar -> " in done.stdout
    assert load_converted(tmp_path / "out").names
    done = subprocess.run(command + [str(inputs / "broken.xar"), str(tmp_path / "o2"), "--json"],
                          capture_output=True, text=True, cwd=str(REPO), timeout=60)
    assert done.returncode == 1 and json.loads(done.stdout)[0]["ok"] is False


def test_a_conversion_in_another_thread_than_the_main_one(tmp_path):
    """Only the main thread receives signals: elsewhere (a node's worker thread) a
    conversion runs without setting their handlers."""
    handlers = [signal.getsignal(sig) for sig in STOP_SIGNALS]
    done = []
    example = REPO / "examples" / "wave_hello" / "behavior.xar"
    thread = threading.Thread(target=lambda: done.append(
        main([str(example), str(tmp_path / "out"), "-q"])))
    thread.start()
    thread.join(60)
    assert done == [0] and (tmp_path / "out" / "main.py").is_file()
    assert [signal.getsignal(sig) for sig in STOP_SIGNALS] == handlers
