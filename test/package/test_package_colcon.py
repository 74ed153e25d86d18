"""The colcon route: building the package in a workspace, with and without
``--symlink-install``, gives runnable executables where ``ros2 run`` and launch_ros look,
and importable interfaces registered in the ament index.

One workspace holds both installs (``install-copy``, ``install-symlink-install``) built
one after the other in the same build folder: the second build runs the same commands
(``setup.py develop`` instead of ``install``, the rosidl CMake project configured,
built and installed again) but finds the interfaces already compiled, which is most of
the first build's time.
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterator, Tuple

import pytest

from ros2_lookups import (HELP_MENTIONS, PACKAGE, console_scripts, launch_processes,
                          package_prefix, ros2_run_executables)

pytestmark = pytest.mark.long_running(minutes=4)

ROUTES = {"copy": [], "symlink-install": ["--symlink-install"]}
#: the first build compiles the interfaces: about 100 s of CPU, which took over 300 s (the
#: suite's default timeout) on a 2-core machine with a load of 14
BUILD_TIMEOUT = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def workspace(repo_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A colcon workspace whose src/ holds this checkout."""
    colcon = Path(sys.executable).with_name("colcon")
    if not colcon.exists() and shutil.which("colcon") is None:
        pytest.skip("colcon is not installed")
    folder = tmp_path_factory.mktemp("colcon_ws")
    (folder / "src").mkdir()
    (folder / "src" / PACKAGE).symlink_to(repo_root)
    return folder


@pytest.fixture(scope="module", params=list(ROUTES))
def install(request: pytest.FixtureRequest, workspace: Path) -> Iterator[Tuple[str, Path]]:
    """``(route, prefix of the package)``: colcon build by that route, copy first."""
    route = request.param
    colcon = Path(sys.executable).with_name("colcon")
    env = dict(os.environ)
    for variable in ("AMENT_PREFIX_PATH", "CMAKE_PREFIX_PATH"):
        env[variable] = os.pathsep.join(filter(None, [env.get(variable), sys.prefix]))
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env["PATH"]])
    # The copy route's install record: colcon would "undo" it into the other install base
    # (it removes nothing there) and then pass --force to symlink_data, whose forced
    # overwrite fails on destinations that do not exist yet (colcon-core 0.21).
    (workspace / "build" / PACKAGE / "install.log").unlink(missing_ok=True)
    build = subprocess.run([str(colcon) if colcon.exists() else "colcon", "build",
                            "--event-handlers", "console_direct-",
                            "--build-base", "build", "--install-base", "install-" + route]
                           + ROUTES[route], cwd=workspace, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    assert build.returncode == 0, build.stdout
    yield route, workspace / ("install-" + route) / PACKAGE


@pytest.mark.slow
@BUILD_TIMEOUT
def test_colcon_build_installs_executables_and_interfaces(repo_root: Path, workspace: Path,
                                                          install: Tuple[str, Path]) -> None:
    route, prefix = install
    for executable in console_scripts():
        assert os.access(prefix / "lib" / PACKAGE / executable, os.X_OK), executable
    index = prefix / "share" / "ament_index" / "resource_index"
    assert (index / "packages" / PACKAGE).is_file()
    listed = (index / "rosidl_interfaces" / PACKAGE).read_text().split()
    assert {"msg/BehaviorState.msg", "msg/ActivityFocus.msg", "msg/BehaviorError.msg",
            "srv/GoTo.srv", "action/RunBehavior.action"} <= set(listed)
    for interface in listed:
        assert (prefix / "share" / PACKAGE / interface).is_file(), interface
    launch_files = sorted(p.name for p in (repo_root / "launch").glob("*.launch.py"))
    installed = sorted(p.name for p in (prefix / "share" / PACKAGE / "launch").glob("*"))
    assert installed == launch_files
    examples = sorted(p.relative_to(repo_root / "examples")
                      for p in (repo_root / "examples").rglob("*") if p.is_file())
    assert examples and all((prefix / "share" / PACKAGE / "examples" / example).is_file()
                            for example in examples)
    assert list((prefix / "lib").glob("libnaoqi_qicore__rosidl_typesupport_c.so"))
    # no ROS 2 installation here holds tf2_msgs: the build generated it into the install
    assert (index / "packages" / "tf2_msgs").is_file()
    assert (prefix / "share" / "tf2_msgs" / "msg" / "TFMessage.msg").is_file()
    assert list((prefix / "lib").glob("libtf2_msgs__rosidl_typesupport_c.so"))

    # A fresh shell that sources the install finds the package and its generated types.
    check = ("from naoqi_qicore.srv import GoTo; from naoqi_qicore.msg import BehaviorState, "
             "ActivityFocus; from naoqi_qicore.action import RunBehavior; import naoqi_qicore; "
             "print(naoqi_qicore.__file__); print(GoTo.Request().frame, "
             "RunBehavior.Goal().frame); import tf2_msgs; from tf2_msgs.msg import TFMessage; "
             "from rclpy.serialization import serialize_message; "
             "print(tf2_msgs.__file__, len(serialize_message(TFMessage())))")
    shell = subprocess.run(
        ["bash", "-c", '. "$1/local_setup.sh" && cd / && "$2" -c "$3" && "$4" --help',
         "sh", str(prefix.parent), sys.executable, check,
         str(prefix / "lib" / PACKAGE / "naoqi_sim")],
        env={"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp")},
        check=True, stdout=subprocess.PIPE, text=True)
    module_file, frame, goal_frame, tf2_msgs_file, tf_size = shell.stdout.split()[:5]
    assert tf2_msgs_file.startswith(str(prefix)) and int(tf_size) > 0
    assert "usage: naoqi_sim" in shell.stdout
    if route == "symlink-install":  # the sources themselves, through the build folder's link
        assert module_file.startswith(str(workspace / "build" / PACKAGE))
        assert Path(module_file).resolve() == repo_root / PACKAGE / "__init__.py"
        assert (prefix / "share" / PACKAGE / "launch" / launch_files[0]).is_symlink()
    else:
        assert module_file.startswith(str(prefix))
    assert (frame, goal_frame) == ("-1", "-1")
    # the live view's page with the library it draws the robot with (npm ci at build time)
    page = Path(module_file).parent / "ros" / "live_view_page"
    for name in ("index.html", "robot.js", "node_modules/three/build/three.module.js",
                 "node_modules/three/build/three.core.js"):
        assert (page / name).is_file(), name


@pytest.mark.slow
@BUILD_TIMEOUT
def test_ros2_run_and_launch_find_the_installed_programs(repo_root: Path,
                                                         install: Tuple[str, Path]) -> None:
    """As ros2cli and launch_ros look them up, alone in AMENT_PREFIX_PATH and with the
    environment make setup builds before or after the install; each answers --help from a
    shell that sourced the install only."""
    route, prefix = install
    orders = [[prefix]]
    if sys.prefix != sys.base_prefix:
        orders += [[prefix, Path(sys.prefix)], [Path(sys.prefix), prefix]]
    for order in orders:
        found = ros2_run_executables(order)
        assert sorted(found) == console_scripts(), order
        in_effect = package_prefix(order)
        for name, path in launch_processes(repo_root / "launch" / "run_behavior.launch.py",
                                           {}, order):
            assert path == in_effect / "lib" / PACKAGE / name
            assert os.access(path, os.X_OK), path
    for name, path in ros2_run_executables([prefix]).items():
        shell = subprocess.run(
            ["bash", "-c", '. "$1/local_setup.sh" && cd / && "$2" --help', "sh",
             str(prefix.parent), str(path)],
            env={"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp")},
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
        assert shell.returncode == 0, (name, shell.stdout)
        assert shell.stdout.startswith("usage: " + name), (route, name, shell.stdout[:300])
        assert all(mention in shell.stdout for mention in HELP_MENTIONS[name]), name
