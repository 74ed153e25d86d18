"""The colcon route: building the package in a workspace gives runnable executables and
importable interfaces registered in the ament index."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.slow
@pytest.mark.parametrize("symlink_install", [False, True], ids=["copy", "symlink-install"])
def test_colcon_build_installs_executables_and_interfaces(repo_root: Path, tmp_path: Path,
                                                          symlink_install: bool) -> None:
    """``colcon build`` and ``colcon build --symlink-install`` (``setup.py develop``: the
    interfaces must be generated there too) give the same runnable install."""
    colcon = Path(sys.executable).with_name("colcon")
    if not colcon.exists() and shutil.which("colcon") is None:
        pytest.skip("colcon is not installed")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "naoqi_qicore").symlink_to(repo_root)
    env = dict(os.environ)
    for variable in ("AMENT_PREFIX_PATH", "CMAKE_PREFIX_PATH"):
        env[variable] = os.pathsep.join(filter(None, [env.get(variable), sys.prefix]))
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env["PATH"]])
    build = subprocess.run([str(colcon) if colcon.exists() else "colcon", "build",
                            "--event-handlers", "console_direct-"]
                           + (["--symlink-install"] if symlink_install else []),
                           cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    assert build.returncode == 0, build.stdout

    prefix = tmp_path / "install" / "naoqi_qicore"
    for executable in ("xar_convert", "naoqi_sim"):
        assert os.access(prefix / "lib" / "naoqi_qicore" / executable, os.X_OK), executable
    index = prefix / "share" / "ament_index" / "resource_index"
    assert (index / "packages" / "naoqi_qicore").is_file()
    listed = (index / "rosidl_interfaces" / "naoqi_qicore").read_text().split()
    assert {"msg/BehaviorState.msg", "msg/ActivityFocus.msg", "msg/BehaviorError.msg",
            "srv/GoTo.srv", "action/RunBehavior.action"} <= set(listed)
    for interface in listed:
        assert (prefix / "share" / "naoqi_qicore" / interface).is_file(), interface
    launch_files = sorted(p.name for p in (repo_root / "launch").glob("*.launch.py"))
    installed = sorted(p.name for p in (prefix / "share" / "naoqi_qicore" / "launch").glob("*"))
    assert installed == launch_files
    assert list((prefix / "lib").glob("libnaoqi_qicore__rosidl_typesupport_c.so"))

    # A fresh shell that sources the install finds the package and its generated types.
    check = ("from naoqi_qicore.srv import GoTo; from naoqi_qicore.msg import BehaviorState, "
             "ActivityFocus; from naoqi_qicore.action import RunBehavior; import naoqi_qicore; "
             "print(naoqi_qicore.__file__); print(GoTo.Request().frame, "
             "RunBehavior.Goal().frame)")
    shell = subprocess.run(
        ["bash", "-c", '. "$1/install/local_setup.sh" && cd / && "$2" -c "$3" && '
         '"$4" --help', "sh", str(tmp_path), sys.executable, check,
         str(prefix / "lib" / "naoqi_qicore" / "naoqi_sim")],
        env={"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp")},
        check=True, stdout=subprocess.PIPE, text=True)
    module_file, frame, goal_frame = shell.stdout.split()[:3]
    assert "usage: naoqi_sim" in shell.stdout
    if symlink_install:  # the sources themselves, through the build folder's link
        assert module_file.startswith(str(tmp_path / "build" / "naoqi_qicore"))
        assert Path(module_file).resolve() == repo_root / "naoqi_qicore" / "__init__.py"
        assert (prefix / "share" / "naoqi_qicore" / "launch" / launch_files[0]).is_symlink()
    else:
        assert module_file.startswith(str(prefix))
    assert (frame, goal_frame) == ("-1", "-1")
