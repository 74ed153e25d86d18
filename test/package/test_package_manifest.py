"""The package metadata is what ROS 2 tools expect of an ament_python package."""
import configparser
import importlib.metadata
from pathlib import Path

import pytest

catkin_pkg = pytest.importorskip("catkin_pkg.package")


def test_package_xml_is_valid_format_3(repo_root: Path) -> None:
    package = catkin_pkg.parse_package(str(repo_root / "package.xml"))
    package.validate()
    assert package.package_format == 3
    assert package.name == "naoqi_qicore"
    assert package.get_build_type() == "ament_python"
    exec_depends = {dep.name for dep in package.exec_depends}
    assert {"rclpy", "std_msgs", "std_srvs", "builtin_interfaces", "rosidl_default_runtime",
            "launch_ros", "python3-lxml", "qi"} <= exec_depends
    assert "rosidl_interface_packages" in {group.name for group in package.member_of_groups}


def test_version_is_the_same_everywhere(repo_root: Path) -> None:
    import naoqi_qicore

    package = catkin_pkg.parse_package(str(repo_root / "package.xml"))
    assert package.version == naoqi_qicore.__version__
    assert importlib.metadata.version("naoqi_qicore") == naoqi_qicore.__version__


def test_scripts_install_where_ros2_run_looks(repo_root: Path) -> None:
    config = configparser.ConfigParser()
    config.read(repo_root / "setup.cfg")
    assert config["install"]["install_scripts"] == "$base/lib/naoqi_qicore"
    assert config["develop"]["script_dir"] == "$base/lib/naoqi_qicore"


def test_console_scripts_point_at_real_functions() -> None:
    scripts = [ep for ep in importlib.metadata.entry_points(group="console_scripts")
               if ep.value.startswith("naoqi_qicore.")]
    assert {"xar_convert", "naoqi_sim"} <= {ep.name for ep in scripts}
    for entry_point in scripts:
        assert callable(entry_point.load()), entry_point.name


def test_ament_index_marker_exists(repo_root: Path) -> None:
    assert (repo_root / "resource" / "naoqi_qicore").is_file()
