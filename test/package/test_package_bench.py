"""Every script of ``bench/`` runs, with tiny counts on a small behavior of ``examples/``, so
that none breaks unseen; a script added to ``bench/`` must be added here."""
import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, NamedTuple

import pytest

pytestmark = pytest.mark.long_running(minutes=0.7)

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench"
BEHAVIOR = REPO / "examples" / "wave_hello" / "behavior.xar"


class Run(NamedTuple):
    """How a bench script is run here: its arguments (``{corpus}``: a corpus folder whose
    ``files`` hold the behavior, ``{behavior}``: the behavior, ``{work}``: a scratch
    folder), a line its output must have (it got to its end), and whether it exits 1 when
    its targets are missed (which tiny counts do not measure)."""

    arguments: List[str]
    says: str
    judges: bool = False


SCRIPTS: Dict[str, Run] = {
    "bench_convert.py": Run(["--corpus", "{corpus}/files", "--runs", "1"],
                            "one process per file"),
    "bench_engine.py": Run(["--seconds", "0.2", "--corpus", "{corpus}"],
                           "load behavior.xar"),
    "bench_scale.py": Run(["--sizes", "10", "40", "--runs", "1", "--work-dir", "{work}",
                           "--profile", "3"], "target convert peak RSS"),
    "corpus_report.py": Run(["--corpus", "{corpus}", "--seconds", "1", "--workers", "1"],
                            "1 behaviors, 1 converted"),
    "bench_ros.py": Run(["--count", "2"], "cancel -> STOPPED result"),
    "bench_soak.py": Run(["--cycles", "4", "--warmup", "1", "--rest", "0"], "growth: ",
                         judges=True),
    "bench_live_view.py": Run(["--behavior", "{behavior}", "--past", "root/",
                               "--seconds", "0.5"], "page: "),
    # with one Foxglove client: the plain run is the same script without that option
    "bench_bridge_readings.py": Run(["--seconds", "1", "--foxglove-clients", "1"],
                                    "foxglove client 1: /joint_states "),
}


def _scripts() -> List[str]:
    """The programs of bench/ (the files with a ``__main__`` block)."""
    return sorted(path.name for path in BENCH.glob("*.py")
                  if 'if __name__ == "__main__":' in path.read_text(encoding="utf-8"))


def _imported(path: Path) -> List[str]:
    """The top-level module names ``path`` imports."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module.split(".")[0])
    return names


def test_every_bench_script_is_run_here() -> None:
    assert _scripts() == sorted(SCRIPTS), "add the new bench script to SCRIPTS"
    helpers = {path.stem for path in BENCH.glob("*.py")} - {name[:-3] for name in SCRIPTS}
    used = {name for script in SCRIPTS for name in _imported(BENCH / script)}
    used |= {name for helper in helpers for name in _imported(BENCH / (helper + ".py"))}
    assert helpers <= used, "bench modules no script uses: %s" % sorted(helpers - used)


@pytest.mark.slow  # real processes: left out of make check
@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_a_bench_script_runs_with_tiny_counts(script: str, tmp_path: Path) -> None:
    if script == "bench_live_view.py":
        sys.path.insert(0, str(BENCH))
        from chromium_page import CHROMIUM_NAMES
        if not any(shutil.which(name) for name in CHROMIUM_NAMES):
            pytest.skip("needs chromium (.setup/test-tools.sh installs it)")
    corpus, work = tmp_path / "corpus", tmp_path / "work"
    (corpus / "files").mkdir(parents=True)
    work.mkdir()
    shutil.copyfile(BEHAVIOR, corpus / "files" / BEHAVIOR.name)
    places = {"corpus": str(corpus), "behavior": str(BEHAVIOR), "work": str(work)}
    run = SCRIPTS[script]
    done = subprocess.run([sys.executable, str(BENCH / script)]
                          + [argument.format(**places) for argument in run.arguments],
                          cwd=str(REPO), env=dict(os.environ), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode in ((0, 1) if run.judges else (0,)), done.stdout + done.stderr
    assert run.says in done.stdout, done.stdout + done.stderr
