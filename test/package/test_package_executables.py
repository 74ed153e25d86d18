"""Every program of the package is where ``ros2 run`` and ``ros2 launch`` look for it in the
environment ``make setup`` builds (``<venv>/lib/naoqi_qicore/<name>``), stays on the PATH
of the activated shell, and answers ``--help`` by printing and exiting, without starting
a node or a robot.  (The colcon route: test_package_colcon.py.)"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ros2_lookups import (HELP_MENTIONS, PACKAGE, console_scripts, launch_processes,
                          package_prefix, ros2_run_executables)

ROOT = Path(__file__).resolve().parents[2]
LAUNCH_FILE = ROOT / "launch" / "run_behavior.launch.py"
VENV = Path(sys.prefix)


def registered(prefix: Path) -> bool:
    return (prefix / "share" / "ament_index" / "resource_index" / "packages" / PACKAGE).is_file()


@pytest.fixture(scope="module")
def venv() -> Path:
    """The environment make setup builds, when the tests run from it."""
    if sys.prefix == sys.base_prefix or not registered(VENV):
        pytest.skip("not run from the environment make setup builds")
    return VENV


def run_help(program: Path) -> subprocess.CompletedProcess:
    """``program --help`` with this checkout's sources, as a user starts it."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([str(program), "--help"], capture_output=True, text=True,
                          timeout=60, env=env, cwd=str(ROOT))


def test_ros2_run_finds_every_program_in_the_environment(venv: Path) -> None:
    found = ros2_run_executables([venv])
    assert sorted(found) == console_scripts()
    for name, path in found.items():
        assert (venv / "bin" / name).is_file(), name  # on the PATH of the activated shell
        assert path.resolve() == (venv / "bin" / name).resolve(), name


def test_the_environment_wins_when_activated_after_a_colcon_overlay(
        venv: Path, tmp_path: Path) -> None:
    """A shell that sources a colcon install, then activates the environment, has the
    environment first in AMENT_PREFIX_PATH: its programs must be found there."""
    overlay = tmp_path / "install"
    (overlay / "share" / "ament_index" / "resource_index" / "packages").mkdir(parents=True)
    (overlay / "share" / "ament_index" / "resource_index" / "packages" / PACKAGE).touch()
    assert package_prefix([venv, overlay]) == venv
    assert sorted(ros2_run_executables([venv, overlay])) == console_scripts()


@pytest.mark.parametrize("arguments", [{}, {"behavior": "examples/wave_hello/behavior.xar",
                                             "robot_url": "tcp://10.0.0.5:9559"}],
                         ids=["simulated-robot", "robot"])
def test_the_launch_file_runs_programs_that_exist(venv: Path, arguments: dict) -> None:
    processes = launch_processes(LAUNCH_FILE, arguments, [venv])
    expected = ["naoqi_bridge", "behavior_runner"]
    if "robot_url" not in arguments:
        expected.insert(0, "naoqi_sim")
    assert [name for name, _ in processes] == expected
    for name, path in processes:
        assert path == venv / "lib" / PACKAGE / name
        assert path.is_file() and os.access(path, os.X_OK), path


@pytest.mark.slow  # real processes: left out of make check
def test_every_program_has_a_help_that_describes_it(venv: Path) -> None:
    """``--help`` prints usage and the parameters or options, and exits 0 at once: no
    node, no robot (no libqi line, nothing logged by a node)."""
    names = console_scripts()
    assert set(HELP_MENTIONS) == set(names)
    for name in names:
        done = run_help(venv / "lib" / PACKAGE / name)
        assert done.returncode == 0, (name, done.stderr)
        assert done.stdout.startswith("usage: " + name), (name, done.stdout[:200])
        for mention in HELP_MENTIONS[name]:
            assert mention in done.stdout, (name, mention)
        for noise in ("[I]", "[W]", "[INFO]", "simulated robot at"):
            assert noise not in done.stdout + done.stderr, (name, noise)
        for markup in ("``", ":class:`", ":mod:`", ":func:`", ":meth:`"):  # docstrings' RST
            assert markup not in done.stdout, (name, markup)


def test_a_converted_behavior_has_a_help(tmp_path: Path) -> None:
    from naoqi_qicore.converter.api import convert
    convert(ROOT / "examples" / "wave_hello" / "behavior.xar", tmp_path / "wave")
    done = subprocess.run([sys.executable, str(tmp_path / "wave" / "main.py"), "--help"],
                          capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0 and done.stdout.startswith("usage: main.py")
    assert "--url" in done.stdout and "[W]" not in done.stdout + done.stderr
