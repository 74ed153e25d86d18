"""xar_convert -j N: several inputs converted by worker processes, with the same folders,
reports and exit codes as one job; failures (even a dying worker) and interruptions
affect only what they must."""
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from naoqi_qicore.converter import cli
from naoqi_qicore.converter.cli import main

REPO = Path(__file__).resolve().parents[2]
RUN_CLI = "import sys; from naoqi_qicore.converter.cli import main; sys.exit(main(sys.argv[1:]))"
SUMMARY = re.compile(r"^converted (\d+) of (\d+) inputs?( \((\d+) failed\))? in [0-9.]+ s "
                     r"with (\d+) jobs?$")


@pytest.fixture
def inputs(tmp_path, project, box):
    """Five behaviors, the fourth a broken file."""
    folder = tmp_path / "in"
    folder.mkdir()
    for name, script in (("hello", "print 'hi'"), ("wave", ""), ("walk", "x = 1")):
        (folder / (name + ".xar")).write_bytes(project(box(name.title(), 1, script)))
    (folder / "broken.xar").write_bytes(b"<ChoregrapheProject")
    (folder / "sit.xar").write_bytes(project(box("Sit", 1)))
    return [folder / name for name in ("hello.xar", "wave.xar", "walk.xar", "broken.xar",
                                       "sit.xar")]


def folder_bytes(root: Path) -> dict:
    """Every file under ``root`` (relative path -> bytes)."""
    return {path.relative_to(root).as_posix(): path.read_bytes()
            for path in sorted(root.rglob("*")) if path.is_file()}


def convert_with_jobs(paths, out: Path, jobs: int, capsys, *options: str):
    """(exit code, stdout with ``out`` written OUT, stderr lines without the progress bar)."""
    code = main([*map(str, paths), str(out), "-j", str(jobs), *options])
    captured = capsys.readouterr()
    errors = [line for line in re.split(r"[\r\n]", captured.err)
              if line.strip() and not line.startswith("converting")]
    return code, captured.out.replace(str(out), "OUT"), errors


def same_conversions(paths, tmp_path, capsys, *options: str) -> None:
    """-j 1 and -j 2 write the same bytes, print the same lines, exit the same way."""
    results = []
    for jobs in (1, 2):
        out = tmp_path / ("out%d" % jobs)
        code, stdout, errors = convert_with_jobs(paths, out, jobs, capsys, *options)
        assert SUMMARY.match(errors[-1]).group(5) == str(jobs), errors[-1]
        results.append((code, stdout, [line.replace(str(out), "OUT") for line in errors[:-1]],
                        folder_bytes(out)))
    assert results[0][3], "nothing converted"
    assert results[0] == results[1]


def test_two_jobs_write_what_one_job_writes_on_corpus_files(corpus_dir, tmp_path, capsys):
    files = sorted((corpus_dir / "files").glob("*.xar"))[::9]
    assert len(files) > 10
    same_conversions(files, tmp_path, capsys)


def test_two_jobs_write_what_one_job_writes_on_the_examples(tmp_path, capsys):
    examples = sorted(path.parent for path in (REPO / "examples").glob("*/behavior.xar"))
    assert examples
    same_conversions(examples + [path / "behavior.xar" for path in examples], tmp_path, capsys)


def test_graph_files_are_numbered_in_input_order(inputs, tmp_path, capsys):
    graphs = {}
    for jobs in (1, 2):
        graph = tmp_path / ("g%d" % jobs) / "graph.dot"
        graph.parent.mkdir()
        code, _, _ = convert_with_jobs(inputs, tmp_path / ("out%d" % jobs), jobs, capsys,
                                       "--graph", str(graph), "--json")
        assert code == 1
        graphs[jobs] = folder_bytes(graph.parent)
    # numbered by input position: the fourth input, broken, has no graph
    assert sorted(graphs[2]) == ["graph_%d.dot" % index for index in (0, 1, 2, 4)]
    assert graphs[1] == graphs[2]
    assert "Walk" in graphs[2]["graph_2.dot"].decode()
    assert "Sit" in graphs[2]["graph_4.dot"].decode()


def test_a_broken_input_among_good_ones(inputs, tmp_path, capsys):
    code, stdout, errors = convert_with_jobs(inputs, tmp_path / "out", 2, capsys)
    assert code == 1
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == [
        "hello", "sit", "walk", "wave"]
    assert [line.split(" -> ")[0] for line in stdout.splitlines()] == [
        str(path) for path in inputs if path.name != "broken.xar"]
    assert errors[0].startswith(str(inputs[3]) + ":1:")
    converted, total, _, failed, jobs = SUMMARY.match(errors[-1]).groups()
    assert (converted, total, failed, jobs) == ("4", "5", "1", "2")


def test_json_report_keeps_the_input_order(inputs, tmp_path, capsys):
    code, stdout, errors = convert_with_jobs(inputs, tmp_path / "out", 2, capsys, "--json")
    assert code == 1 and len(errors) == 1 and errors[0].startswith(str(inputs[3]) + ":")
    report = json.loads(stdout)
    assert [entry["input"] for entry in report] == [str(path) for path in inputs]
    assert [entry["ok"] for entry in report] == [True, True, True, False, True]


def test_an_existing_destination_fails_only_its_input(inputs, tmp_path, capsys):
    (tmp_path / "out" / "walk").mkdir(parents=True)
    (tmp_path / "out" / "walk" / "mine.txt").write_text("kept")
    code, _, errors = convert_with_jobs(inputs, tmp_path / "out", 2, capsys, "-q")
    assert code == 1
    assert errors[0] == "%s: already exists (use --force to replace it)" % (tmp_path / "out" / "walk")
    assert (tmp_path / "out" / "walk" / "mine.txt").read_text() == "kept"
    assert (tmp_path / "out" / "sit" / "main.py").is_file()


@pytest.mark.parametrize("death, reason", [(lambda: os._exit(3), "exited with status 3"),
                                           (lambda: os.kill(os.getpid(), signal.SIGKILL),
                                            "was killed by SIGKILL")])
def test_a_dying_worker_fails_only_its_input(inputs, tmp_path, capsys, monkeypatch,
                                             death, reason):
    convert_one = cli._convert_one

    def dying_on_wave(source, destination, options):
        if source.name == "wave.xar":  # as if killed while writing its staging folder
            (destination.parent / (".%s.converting-abcd1234" % destination.name)).mkdir(parents=True)
            death()
        return convert_one(source, destination, options)

    monkeypatch.setattr(cli, "_convert_one", dying_on_wave)  # the forked workers inherit it
    code, stdout, errors = convert_with_jobs(inputs, tmp_path / "out", 2, capsys)
    assert code == 1
    assert errors[0] == "%s: internal error: the process converting it %s" % (inputs[1], reason)
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == ["hello", "sit", "walk"]
    assert len(stdout.splitlines()) == 3
    assert SUMMARY.match(errors[-1]).group(4) == "2"


@pytest.mark.parametrize("value", ["0", "-2", "two"])
def test_bad_job_counts_are_usage_errors(inputs, tmp_path, capsys, value):
    assert main([str(inputs[0]), str(tmp_path / "out"), "-j", value]) == 2
    assert "-j/--jobs" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_the_default_is_the_usable_cores() -> None:
    assert cli._parser().parse_args(["a", "b"]).jobs == len(os.sched_getaffinity(0))


def imported_modules(*arguments: str) -> set:
    """The modules ``xar_convert ARGUMENTS`` imports."""
    process = subprocess.run([sys.executable, "-X", "importtime", "-c", RUN_CLI, *arguments],
                             cwd=str(REPO), capture_output=True, text=True, timeout=120)
    assert process.returncode == 0, process.stderr[-2000:]
    return {line.split("|")[-1].strip() for line in process.stderr.splitlines()
            if line.startswith("import time:") and "|" in line}


@pytest.mark.parametrize("jobs, pooled", [("1", False), ("2", True)])
def test_only_several_jobs_start_processes(inputs, tmp_path, jobs, pooled):
    modules = imported_modules(str(inputs[0]), str(inputs[1]), str(tmp_path / "out"), "-q",
                               "-j", jobs)
    assert ("multiprocessing" in modules) is pooled
    assert "concurrent" not in modules


def test_to_xar_dispatches_to_its_module(monkeypatch) -> None:
    if importlib.util.find_spec("naoqi_qicore.converter.to_xar") is None:
        pytest.skip("naoqi_qicore.converter.to_xar is not there yet")
    to_xar = importlib.import_module("naoqi_qicore.converter.to_xar")
    calls = []
    monkeypatch.setattr(to_xar, "main", lambda argv: calls.append(argv) or 7)
    assert main(["--to-xar", "converted/", "back.xar"]) == 7
    assert calls == [["converted/", "back.xar"]]


def group_members(group: int) -> list:
    """The processes still in the process group ``group``."""
    members = []
    for entry in os.listdir("/proc"):
        try:
            stat = Path("/proc", entry, "stat").read_text()
        except (OSError, ValueError):
            continue
        if stat.rsplit(")", 1)[1].split()[2] == str(group):
            members.append(entry)
    return members


@pytest.mark.parametrize("signum, to_group", [(signal.SIGTERM, False), (signal.SIGINT, True)])
def test_an_interruption_stops_the_workers_and_leaves_no_staging_folder(
        corpus_dir, tmp_path, signum, to_group):
    largest = sorted((corpus_dir / "files").glob("*.xar"), key=lambda path: -path.stat().st_size)
    out = tmp_path / "out"
    process = subprocess.Popen(
        [sys.executable, "-c", RUN_CLI, *map(str, largest[:5] * 60), str(out), "-j", "2", "-q"],
        cwd=str(REPO), stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 60
    while not (out.is_dir() and len(os.listdir(out)) > 2):  # the workers are writing
        assert process.poll() is None and time.monotonic() < deadline, process.stderr.read()
        time.sleep(0.005)
    if to_group:  # Ctrl-C in a terminal: the parent and its workers all get SIGINT
        os.killpg(process.pid, signum)
    else:
        process.send_signal(signum)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 128 + signum, stderr
    assert stderr == "xar_convert: interrupted (%s), nothing left of the folder being written\n" % (
        signal.Signals(signum).name)
    assert [name for name in os.listdir(out) if ".converting-" in name] == []
    assert all((out / name / "main.py").is_file() for name in os.listdir(out))
    assert group_members(process.pid) == []


def test_no_progress_bar_in_a_log(inputs, tmp_path):
    # stderr is a file here, not a terminal: the lines and the summary only
    command = [sys.executable, "-c", RUN_CLI, "-j", "2"] + [str(path) for path in inputs]
    done = subprocess.run(command + [str(tmp_path / "out")], capture_output=True, text=True,
                          cwd=str(REPO), timeout=120)
    assert done.returncode == 1
    assert "\r" not in done.stderr and "converting:" not in done.stderr
    assert SUMMARY.match(done.stderr.splitlines()[-1])
