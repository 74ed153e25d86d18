"""Play a Choregraphe behavior: naoqi_bridge + behavior_runner (+ a simulated robot).

    ros2 launch naoqi_qicore run_behavior.launch.py behavior:=/path/to/behavior.xar
    ros2 launch naoqi_qicore run_behavior.launch.py behavior:=b.xar robot_url:=tcp://10.0.0.5:9559 \
        namespace:=nao1 autoplay:=true

With an empty ``robot_url`` the simulated robot ``naoqi_sim`` is started on a free
loopback port and both nodes are pointed at it (``scenario:=FILE`` or ``scenario:=generic``:
people around it say and do things).  Without the launch packages, the ``run_behavior``
command starts the same set.
"""
import os
import socket

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, ExecuteProcess, LogInfo, OpaqueFunction
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.substitutions import FindPackagePrefix

PACKAGE = "naoqi_qicore"
ARGUMENTS = (
    ("behavior", "", ".xar, .pml, .crg, .pkg or converted folder to load"),
    ("robot_url", "", "qi URL of the robot; empty starts a simulated robot"),
    ("namespace", "", "ROS namespace of the nodes"),
    ("autoplay", "false", "play the behavior once the robot is connected"),
    ("log_level", "info", "log level of the nodes"),
    ("robot", "auto", "model of the simulated robot: nao, pepper or auto (the robot the "
              "behavior was written for)"),
    ("scenario", "", "what people around the simulated robot say and do: a YAML scenario "
                     "file, or 'generic' (someone answers whatever it asks)"),
)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _nodes(context, *args, **kwargs):
    """The processes, once the arguments are known (a free port is picked here)."""
    value = {name: LaunchConfiguration(name).perform(context) for name, _, _ in ARGUMENTS}
    actions = []
    robot_url = value["robot_url"]
    if not robot_url:
        robot_url = "tcp://127.0.0.1:%d" % _free_port()
        from naoqi_qicore.converter.robot_kind import simulated_robot_for
        robot, reason = simulated_robot_for(value["behavior"], value["robot"])
        actions.append(LogInfo(msg="simulated %s robot at %s: %s"
                               % ("Pepper" if robot == "pepper" else "NAO", robot_url, reason)))
        scenario = value["scenario"]
        if scenario and scenario != "generic":
            scenario = os.path.abspath(scenario)
        actions.append(ExecuteProcess(
            cmd=[PathJoinSubstitution([FindPackagePrefix(PACKAGE), "lib", PACKAGE, "naoqi_sim"]),
                 "--robot", robot, "--listen", robot_url]
            + (["--scenario", scenario] if scenario else []),
            name="naoqi_sim", output="screen"))
    common = dict(package=PACKAGE, namespace=value["namespace"], output="screen",
                  arguments=["--ros-args", "--log-level", value["log_level"]])
    actions.append(Node(executable="naoqi_bridge", name="naoqi_bridge",
                        parameters=[{"robot_url": robot_url}], **common))
    actions.append(Node(executable="behavior_runner", name="behavior_runner",
                        parameters=[{"robot_url": robot_url, "behavior": value["behavior"],
                                     "autoplay": value["autoplay"].lower() in ("true", "1")}],
                        **common))
    return actions


def generate_launch_description() -> LaunchDescription:
    return LaunchDescription(
        [DeclareLaunchArgument(name, default_value=default, description=description)
         for name, default, description in ARGUMENTS]
        + [OpaqueFunction(function=_nodes)])
