"""The robot connection parameters both nodes declare (names as naoqi_driver's)."""
from rcl_interfaces.msg import IntegerRange, ParameterDescriptor
from rclpy.node import Node

from naoqi_qicore.robot.session import NAOQI_PORT, RobotAddress

#: services both nodes bind at each connection (waited for while a robot is starting)
ROBOT_SERVICES = ("ALMemory", "ALMotion", "ALAutonomousLife")


def declare_robot_parameters(node: Node) -> None:
    """Declare ``robot_url``, ``nao_ip``, ``nao_port``, ``user`` and ``password``."""
    read_only = dict(read_only=True)
    node.declare_parameter("robot_url", "", ParameterDescriptor(
        description="qi URL of the robot (tcp://IP:9559, tcps://IP:9503); wins over nao_ip",
        **read_only))
    node.declare_parameter("nao_ip", "", ParameterDescriptor(
        description="robot address when robot_url is empty", **read_only))
    node.declare_parameter("nao_port", NAOQI_PORT, ParameterDescriptor(
        description="NAOqi port with nao_ip (9559; with a password 9559 becomes 9503)",
        integer_range=[IntegerRange(from_value=1, to_value=65535, step=1)], **read_only))
    node.declare_parameter("user", "", ParameterDescriptor(
        description="NAOqi 2.9 user name (default nao when a password is set)", **read_only))
    node.declare_parameter("password", "", ParameterDescriptor(
        description="NAOqi 2.9 password: connects with tcps and credentials", **read_only))


def robot_parameters_given(node: Node) -> bool:
    """True when ``robot_url`` or ``nao_ip`` is set."""
    return bool(node.get_parameter("robot_url").value or node.get_parameter("nao_ip").value)


def robot_address(node: Node) -> RobotAddress:
    """The address the parameters describe; ``ValueError`` when they are wrong or missing."""
    value = {name: node.get_parameter(name).value
             for name in ("robot_url", "nao_ip", "nao_port", "user", "password")}
    return RobotAddress.from_parameters(**value)
