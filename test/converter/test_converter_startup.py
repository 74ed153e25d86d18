"""A plain ``xar_convert`` imports only what a conversion needs: one process per file is
how people use it, and each heavy import is paid per file."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
#: what a conversion without --graph never needs: the libraries of other features, and
#: the standard modules only some inputs or options need (archives, several inputs...)
HEAVY = ("networkx", "matplotlib", "pydot", "numpy", "rclpy", "qi", "fissix", "tqdm",
         "dataclasses", "pkgutil", "tempfile", "tarfile", "zipfile",
         "concurrent", "multiprocessing", "naoqi_qicore.converter.graph",
         # json: only --json and a folder replaced; shutil and its compression modules:
         # only a folder removed (argparse's help formatter would import it for its width);
         # threading: signals are set up from the main thread without it
         "json", "shutil", "bz2", "lzma", "threading")


def imported_modules(*arguments: str) -> set:
    """The modules ``xar_convert ARGUMENTS`` imports (``python -X importtime``)."""
    process = subprocess.run(
        [sys.executable, "-X", "importtime", "-c",
         "import sys; from naoqi_qicore.converter.cli import main; sys.exit(main(sys.argv[1:]))",
         *arguments], cwd=str(REPO), capture_output=True, text=True, timeout=120)
    assert process.returncode == 0, process.stderr[-2000:]
    return {line.split("|")[-1].strip() for line in process.stderr.splitlines()
            if line.startswith("import time:") and "|" in line}


def test_a_plain_conversion_imports_no_heavy_module(tmp_path) -> None:
    modules = imported_modules(str(REPO / "examples" / "wave_hello" / "behavior.xar"),
                               str(tmp_path / "out"), "-q")
    assert (tmp_path / "out" / "main.py").is_file()
    heavy = sorted(name for name in modules
                   if name.split(".")[0] in HEAVY or name in HEAVY)
    assert heavy == [], heavy


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot program is not installed")
def test_graph_brings_its_libraries_only_when_asked(tmp_path) -> None:
    modules = imported_modules(str(REPO / "examples" / "wave_hello" / "behavior.xar"),
                               str(tmp_path / "out"), "-q", "--graph")
    assert "naoqi_qicore.converter.graph" in modules
    assert (tmp_path / "out" / "graph.svg").is_file()
