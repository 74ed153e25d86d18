"""The environment ``make setup`` builds: its ``bin/activate`` sets the ament index and the
ROS 2 wheels' library path once (.setup/extend-activate.sh), and ``deactivate`` puts them back."""
import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

EXTEND = Path(__file__).resolve().parents[2] / ".setup" / "extend-activate.sh"

#: prints the variables the activation touches, one per line, "-" when unset
SHOW = ('for v in AMENT_PREFIX_PATH LD_LIBRARY_PATH _ROS_WHEELS_BOOTSTRAP_COMPLETE; do '
        'eval "printf \'%s\\n\' \\"\\${$v--}\\""; done')


def _bash(script: str, **env: str) -> list:
    base = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/")}
    done = subprocess.run(["bash", "--norc", "--noprofile", "-c", "set -u\n" + script],
                          env={**base, **env}, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.fixture(scope="module")
def environment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with a wheel's ``ros_*.libs`` folder, extended twice."""
    folder = tmp_path_factory.mktemp("env")
    venv.EnvBuilder(with_pip=False).create(folder)
    purelib = sysconfig.get_path("purelib", vars={"base": str(folder),
                                                  "platbase": str(folder)})
    (Path(purelib) / "ros_demo.libs").mkdir(parents=True)
    for _ in range(2):  # a second set-up replaces the part of the first
        subprocess.run([str(EXTEND), str(folder)], check=True, timeout=60)
    return folder


def test_activation_sets_the_library_path_once_and_deactivate_restores(
        environment: Path) -> None:
    activate = environment / "bin" / "activate"
    assert activate.read_text().count("# naoqi_qicore") == 1
    libs = "%s/lib:%s" % (environment, next(environment.glob("lib/python*/site-packages/"
                                                             "ros_demo.libs")))
    before = _bash(SHOW, LD_LIBRARY_PATH="/opt/x")
    assert before == ["-", "/opt/x", "-"]
    lines = _bash(". %s\n%s\n. %s\n%s\ndeactivate\n%s" % (activate, SHOW, activate, SHOW, SHOW),
                  LD_LIBRARY_PATH="/opt/x")
    activated = [str(environment), libs + ":/opt/x", "1"]
    assert lines[0:3] == activated
    assert lines[3:6] == activated  # activating again adds nothing twice
    assert lines[6:9] == before


def test_deactivate_keeps_what_the_shell_had(environment: Path) -> None:
    activate = environment / "bin" / "activate"
    lines = _bash(". %s\ndeactivate\n%s" % (activate, SHOW), AMENT_PREFIX_PATH="/opt/ros",
                  _ROS_WHEELS_BOOTSTRAP_COMPLETE="1")
    assert lines == ["/opt/ros", "-", "1"]


def test_this_environment_imports_rclpy_activated() -> None:
    activate = Path(sys.prefix) / "bin" / "activate"
    if sys.prefix == sys.base_prefix or "# naoqi_qicore" not in activate.read_text():
        pytest.skip("not run from the environment make setup builds")
    pytest.importorskip("rclpy")
    lines = _bash('. %s\npython -c "import rclpy, os; print(os.environ[\'LD_LIBRARY_PATH\'])"'
                  % activate)
    assert lines[-1].startswith(os.path.join(sys.prefix, "lib"))
