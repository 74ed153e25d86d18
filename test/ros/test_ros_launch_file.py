"""launch/run_behavior.launch.py, checked where the ROS 2 launch packages are installed."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from script_behaviors import script_behavior

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
    assert {"behavior", "robot_url", "namespace", "autoplay", "log_level", "params_file",
            "nao_ip", "nao_port", "username", "password_file", "robot",
            "scenario"} <= set(declared)


def _actions(**configuration):
    """The actions the launch file's OpaqueFunction returns for these launch arguments; each
    Node records the keyword arguments it was made with (``node.made_with``)."""
    description = load_description()
    from launch import LaunchContext
    from launch.actions import OpaqueFunction
    from launch_ros.actions import Node
    opaque = [a for a in description.entities if isinstance(a, OpaqueFunction)][0]

    class RecordingNode(Node):
        def __init__(self, **kwargs):
            self.made_with = kwargs
            super().__init__(**kwargs)

    function = opaque._OpaqueFunction__function
    function.__globals__["Node"] = RecordingNode
    context = LaunchContext()
    for action in description.entities:
        if not isinstance(action, OpaqueFunction):
            action.visit(context)
    context.launch_configurations.update(configuration)
    return opaque.execute(context), context


def _processes(actions, context):
    from launch.actions import ExecuteProcess
    from launch.utilities import perform_substitutions
    from launch_ros.actions import Node
    return {(action.node_executable if isinstance(action, Node)
             else perform_substitutions(context, action.name)): action
            for action in actions if isinstance(action, ExecuteProcess)}


@pytest.mark.parametrize("configuration, expected", [
    (dict(robot_url=""), ["naoqi_sim", "naoqi_bridge", "behavior_runner"]),
    (dict(robot_url="tcp://10.0.0.5:9559"), ["naoqi_bridge", "behavior_runner"]),
    (dict(nao_ip="10.0.0.5"), ["naoqi_bridge", "behavior_runner"])])
def test_processes_follow_robot_url(configuration, expected) -> None:
    actions, context = _actions(namespace="nao1", **configuration)
    assert list(_processes(actions, context)) == expected


def test_robot_in_the_params_file_means_no_simulated_robot(tmp_path) -> None:
    params = tmp_path / "robot.yaml"
    params.write_text("/**:\n  ros__parameters:\n    nao_ip: 10.0.0.5\n")
    actions, context = _actions(params_file=str(params))
    assert list(_processes(actions, context)) == ["naoqi_bridge", "behavior_runner"]


def test_connection_parameters_and_params_file_go_to_both_nodes(tmp_path) -> None:
    params = tmp_path / "nodes.yaml"
    params.write_text("/**:\n  ros__parameters:\n    focus: false\n")
    actions, context = _actions(params_file=str(params), nao_ip="10.0.0.5", nao_port="9503",
                                username="nao", password_file="secret.txt",
                                behavior="/b.xar", autoplay="true")
    processes = _processes(actions, context)
    expected = {"nao_ip": "10.0.0.5", "nao_port": 9503, "username": "nao",
                "password_file": str(tmp_path.cwd() / "secret.txt")}
    for name in ("naoqi_bridge", "behavior_runner"):
        file_, overrides = processes[name].made_with["parameters"]
        assert file_ == str(params)  # first: the launch arguments win over it
        assert {key: overrides[key] for key in expected} == expected, name
        assert "robot_url" not in overrides
    runner = processes["behavior_runner"].made_with["parameters"][1]
    assert runner["behavior"] == "/b.xar" and runner["autoplay"] is True


def test_a_node_exit_shuts_down_and_the_simulated_robot_stops_last() -> None:
    actions, context = _actions(robot_url="", robot="nao")
    from launch.actions import RegisterEventHandler
    from launch.event_handlers import OnProcessExit
    from launch.utilities import perform_substitutions
    simulator = _processes(actions, context)["naoqi_sim"]
    command = [perform_substitutions(context, part) for part in simulator.cmd[1:]]
    assert "--ignore-sigint" in command  # Ctrl-C reaches the nodes, not the robot
    handlers = [action.event_handler for action in actions
                if isinstance(action, RegisterEventHandler)]
    assert len(handlers) == 3 and all(isinstance(h, OnProcessExit) for h in handlers)


def test_the_scenario_goes_to_the_simulated_robot() -> None:
    actions, context = _actions(robot_url="", robot="nao", scenario="generic")
    from launch.utilities import perform_substitutions
    simulator = _processes(actions, context)["naoqi_sim"]
    command = [perform_substitutions(context, part) for part in simulator.cmd[1:]]
    assert command[:2] == ["--robot", "nao"] and command[-2:] == ["--scenario", "generic"]


# -- the launch run for real, where the launch packages are installed ----------------------
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "launch_testing" / \
    "test_run_behavior_launch.py"
#: ``ros2 launch FILE ARG:=VALUE...`` without ros2cli: what ros2launch does with the file
LAUNCH = """
import sys
from launch import LaunchDescription, LaunchService
from launch.actions import IncludeLaunchDescription
from launch.launch_description_sources import PythonLaunchDescriptionSource
service = LaunchService()
service.include_launch_description(LaunchDescription([IncludeLaunchDescription(
    PythonLaunchDescriptionSource(sys.argv[1]),
    launch_arguments=[tuple(a.split(":=", 1)) for a in sys.argv[2:]])]))
sys.exit(service.run())
"""


def run_launch(tmp_path: Path, *command: str) -> subprocess.CompletedProcess:
    """Run a command of the launch packages on the installed package (the working folder
    is not this checkout: its launch/ folder is no ``launch`` package)."""
    pytest.importorskip("launch.actions")
    pytest.importorskip("launch_ros.actions")
    return subprocess.run([sys.executable, *command], cwd=str(tmp_path), capture_output=True,
                          text=True, timeout=300)


@pytest.mark.slow
def test_a_behavior_that_cannot_be_loaded_fails_the_launch(tmp_path: Path) -> None:
    launched = run_launch(tmp_path, "-c", LAUNCH, str(LAUNCH_FILE), "behavior:=nope.xar")
    output = launched.stdout + launched.stderr
    assert launched.returncode != 0, output
    assert "behavior_runner-3 exited with code 2" in output


@pytest.mark.slow
def test_the_launch_testing_example_passes_a_run_that_succeeded(tmp_path: Path) -> None:
    pytest.importorskip("launch_testing")
    tested = run_launch(tmp_path, "-m", "launch_testing.launch_test", str(EXAMPLE))
    assert tested.returncode == 0, tested.stdout + tested.stderr


@pytest.mark.slow
def test_the_launch_testing_example_fails_a_run_that_failed(tmp_path: Path) -> None:
    pytest.importorskip("launch_testing")
    behavior = script_behavior(tmp_path, "root_boom", "", root_code="""
def onInput_onStart(self):
    raise RuntimeError("BOOM from root")
""")
    tested = run_launch(tmp_path, "-m", "launch_testing.launch_test", str(EXAMPLE),
                        "behavior:=%s" % behavior)
    output = tested.stdout + tested.stderr
    assert tested.returncode != 0, output
    assert "behavior_runner-3 exited with code 1" in output
