"""A check a CI job can copy: a Choregraphe behavior runs to its end, with no error.

It runs ``run_behavior.launch.py`` with ``autoplay:=true`` (the simulated robot,
naoqi_bridge and behavior_runner; the behavior plays once the robot is connected and the
launch ends with the run), waits for behavior_runner to end, then checks that every process
exited with status 0: behavior_runner exits 0 only when the run succeeded (the behavior
finished with no error), and a node that failed would have exited non-zero.

In a shell where ROS 2 and naoqi_qicore are set up::

    launch_test test_run_behavior_launch.py                       # examples/wave_hello
    launch_test test_run_behavior_launch.py behavior:=/path/to/my_behavior.xar

``launch_test`` exits non-zero when a check fails.  ``python -m pytest`` runs it too
(launch_testing's pytest plugin), with the default behavior.
"""
import unittest

import pytest

launch_testing = pytest.importorskip("launch_testing", reason="needs ROS 2's launch_testing")
import launch_testing.actions  # noqa: E402
import launch_testing.asserts  # noqa: E402
from launch import LaunchDescription  # noqa: E402
from launch.actions import DeclareLaunchArgument, IncludeLaunchDescription  # noqa: E402
from launch.launch_description_sources import PythonLaunchDescriptionSource  # noqa: E402
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution  # noqa: E402
from launch_ros.substitutions import FindPackageShare  # noqa: E402

#: how long the behavior may take to run (s), the simulated robot's start included
RUN_TIMEOUT = 120.0


@pytest.mark.launch_test
def generate_test_description():
    share = FindPackageShare("naoqi_qicore")
    return LaunchDescription([
        DeclareLaunchArgument("behavior", default_value=PathJoinSubstitution(
            [share, "examples", "wave_hello", "behavior.xar"]),
            description="the behavior to run"),
        IncludeLaunchDescription(
            PythonLaunchDescriptionSource(
                PathJoinSubstitution([share, "launch", "run_behavior.launch.py"])),
            launch_arguments={"behavior": LaunchConfiguration("behavior"),
                              "autoplay": "true"}.items()),
        launch_testing.actions.ReadyToTest(),
    ])


class TestTheRun(unittest.TestCase):

    def test_the_run_ends(self, proc_info):
        proc_info.assertWaitForShutdown(process="behavior_runner", timeout=RUN_TIMEOUT)


@launch_testing.post_shutdown_test()
class TestTheRunSucceeded(unittest.TestCase):

    def test_every_process_exited_with_status_0(self, proc_info):
        launch_testing.asserts.assertExitCodes(proc_info)
