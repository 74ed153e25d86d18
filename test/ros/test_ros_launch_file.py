"""launch/run_behavior.launch.py, checked where the ROS 2 launch packages are installed."""
import importlib.util
from pathlib import Path

import pytest

LAUNCH_FILE = Path(__file__).resolve().parents[2] / "launch" / "run_behavior.launch.py"


def load_description():
    # A bare "launch" would be this repository's launch/ folder: ask for real modules.
    pytest.importorskip("launch.actions")
    pytest.importorskip("launch_ros.actions")
    spec = importlib.util.spec_from_file_location("run_behavior_launch", LAUNCH_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.generate_launch_description()


def test_arguments_are_declared() -> None:
    description = load_description()
    from launch.actions import DeclareLaunchArgument
    declared = {action.name: action.default_value for action in description.entities
                if isinstance(action, DeclareLaunchArgument)}
    assert {"behavior", "robot_url", "namespace", "autoplay", "log_level"} <= set(declared)


@pytest.mark.parametrize("robot_url, expected", [("", ["naoqi_sim", "naoqi_bridge",
                                                       "behavior_runner"]),
                                                  ("tcp://10.0.0.5:9559", ["naoqi_bridge",
                                                                           "behavior_runner"])])
def test_processes_follow_robot_url(robot_url: str, expected) -> None:
    description = load_description()
    from launch import LaunchContext
    from launch.actions import OpaqueFunction
    from launch.utilities import perform_substitutions
    from launch_ros.actions import Node
    context = LaunchContext()
    for action in description.entities:
        if not isinstance(action, OpaqueFunction):
            action.visit(context)
    context.launch_configurations["robot_url"] = robot_url
    context.launch_configurations["namespace"] = "nao1"
    opaque = [a for a in description.entities if isinstance(a, OpaqueFunction)][0]
    actions = opaque.execute(context)
    names = [action.node_executable if isinstance(action, Node)
             else perform_substitutions(context, action.name) for action in actions]
    assert names == expected


def test_the_scenario_goes_to_the_simulated_robot() -> None:
    description = load_description()
    from launch import LaunchContext
    from launch.actions import ExecuteProcess, OpaqueFunction
    from launch.utilities import perform_substitutions
    from launch_ros.actions import Node
    context = LaunchContext()
    for action in description.entities:
        if not isinstance(action, OpaqueFunction):
            action.visit(context)
    context.launch_configurations.update(robot_url="", robot="nao", scenario="generic")
    opaque = [a for a in description.entities if isinstance(a, OpaqueFunction)][0]
    simulator = [action for action in opaque.execute(context)
                 if isinstance(action, ExecuteProcess) and not isinstance(action, Node)][0]
    command = [perform_substitutions(context, part) for part in simulator.cmd[1:]]
    assert command[:2] == ["--robot", "nao"] and command[-2:] == ["--scenario", "generic"]
