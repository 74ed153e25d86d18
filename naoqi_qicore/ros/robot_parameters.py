"""The robot connection parameters both nodes declare (names as naoqi_driver2's).

One YAML file can configure naoqi_driver2 and our nodes (``/**: ros__parameters:``, see
config/robot.yaml): ``nao_ip``, ``nao_port``, ``username``, ``password``,
``network_interface`` and ``qi_listen_url`` are naoqi_driver2's names.  ``robot_url``
(ours) wins over ``nao_ip``/``nao_port`` when set; ``user`` is a deprecated alias of
``username``.

Secrets: the password comes, first found, from ``password_file`` (a file holding it),
the ``password`` parameter (warned: it can be read on the ROS graph and often in a
command line) or the ``NAOQI_PASSWORD`` environment variable; the ``password``
parameter is undeclared once read, and a ``robot_url`` carrying ``user:password@`` is
stored without them, so that no parameter service answers them.
"""
import os
from typing import Any, List

from rcl_interfaces.msg import FloatingPointRange, IntegerRange, SetParametersResult
from rclpy.node import Node

from naoqi_qicore.robot.session import (NAOQI_PORT, PASSWORD_ENV, RobotAddress,
                                        strip_credentials)
from naoqi_qicore.ros.node_parameters import NodeParameter, declare_parameters

#: services both nodes bind at each connection (waited for while a robot is starting)
ROBOT_SERVICES = ("ALMemory", "ALMotion", "ALAutonomousLife")
#: default of ``robot_start_timeout`` (s): a simulated robot starting on a loaded machine
#: listens within a few seconds
ROBOT_START_TIMEOUT = 30.0
#: parameters read once at start, then refused (they may have held a secret)
_SECRET_PARAMETERS = ("robot_url", "password")


#: the connection parameters of both nodes; robot_url and password are not read only:
#: they are masked or undeclared once read, then changes are refused
CONNECTION_PARAMETERS = (
    NodeParameter("robot_url", "", "qi URL of the robot (tcp://IP:9559, tcps://IP:9503); "
                  "wins over nao_ip; user:password@ in it is accepted and removed from the "
                  "parameter", read_only=False),
    NodeParameter("nao_ip", "", "robot address when robot_url is empty (naoqi_driver2's "
                  "name); with neither, behavior_runner starts a simulated robot in-process"),
    NodeParameter("nao_port", NAOQI_PORT, "NAOqi port with nao_ip (9559; with a password "
                  "9559 becomes 9503)",
                  constraints=dict(integer_range=[IntegerRange(from_value=1, to_value=65535,
                                                               step=1)])),
    NodeParameter("username", "", "NAOqi 2.9 user name (default nao when a password is set)"),
    NodeParameter("user", "", "deprecated alias of username"),
    NodeParameter("password", "", "NAOqi 2.9 password (prefer password_file or the %s "
                  "environment variable): undeclared once read" % PASSWORD_ENV,
                  read_only=False),
    NodeParameter("password_file", "", "path of a file holding the NAOqi 2.9 password"),
    NodeParameter("network_interface", "", "naoqi_driver2's: accepted, no effect (these "
                  "nodes only connect to the robot, they listen on no qi endpoint)"),
    NodeParameter("qi_listen_url", "", "naoqi_driver2's: accepted, no effect (no qi "
                  "endpoint is opened)"),
    NodeParameter("robot_start_timeout", ROBOT_START_TIMEOUT, "seconds the robot may take "
                  "to accept connections after the node starts (a robot booting, the "
                  "simulated robot a launch starts beside the node): until then refused "
                  "connections are not warned about and requests that need the robot (goals, "
                  "behavior/load, behavior/list, behavior/installed...) wait for it",
                  constraints=dict(floating_point_range=[
                      FloatingPointRange(from_value=0.0, to_value=600.0)])),
)


def declare_robot_parameters(node: Node) -> None:
    """Declare the connection parameters and read the password (see the module)."""
    declare_parameters(node, CONNECTION_PARAMETERS)
    _read_secrets(node)


def _read_secrets(node: Node) -> None:
    """Keep the address on the node, remove the secrets from its parameters."""
    logger = node.get_logger()
    username = node.get_parameter("username").value
    user = node.get_parameter("user").value
    if user:
        logger.warning("parameter 'user' is deprecated: use 'username' (naoqi_driver2's name)")
        username = username or user
    password = ""
    error = ""
    password_file = node.get_parameter("password_file").value
    given = node.get_parameter("password").value
    if password_file:
        try:
            with open(os.path.expanduser(password_file)) as secret:
                password = secret.read().strip("\r\n")
        except OSError as failure:
            error = "password_file %s cannot be read: %s" % (password_file, failure.strerror)
    elif given:
        logger.warning("the password is given as a ROS parameter: parameters can be read on "
                       "the ROS graph (the node undeclares it after reading it, but a params "
                       "file or a command line may still show it); prefer password_file or "
                       "the %s environment variable" % PASSWORD_ENV)
        password = given
    else:
        password = os.environ.get(PASSWORD_ENV, "")
    robot_url = node.get_parameter("robot_url").value
    clean_url = strip_credentials(robot_url)
    if clean_url != robot_url and ":" in robot_url.split("://", 1)[-1].split("@", 1)[0]:
        logger.warning("robot_url holds a password: it is removed from the parameter, but "
                       "prefer password_file or the %s environment variable" % PASSWORD_ENV)
    node._naoqi_robot_parameters = dict(  # type: ignore[attr-defined]
        robot_url=robot_url, nao_ip=node.get_parameter("nao_ip").value,
        nao_port=node.get_parameter("nao_port").value, user=username, password=password,
        error=error)
    # nothing answers the secrets any more: robot_url without credentials, no password
    from rclpy.parameter import Parameter
    if clean_url != robot_url:
        node.set_parameters([Parameter("robot_url", value=clean_url)])
    node.undeclare_parameter("password")

    def refuse(parameters: List[Any]) -> SetParametersResult:
        for parameter in parameters:
            if parameter.name in _SECRET_PARAMETERS:
                return SetParametersResult(
                    successful=False, reason="%s is only read at start" % parameter.name)
        return SetParametersResult(successful=True)

    node.add_on_set_parameters_callback(refuse)
    for name in ("network_interface", "qi_listen_url"):
        if node.get_parameter(name).value:
            logger.info("%s is naoqi_driver2's: it has no effect here (this node opens no "
                        "qi endpoint, it only connects to the robot)" % name)


def robot_parameters_given(node: Node) -> bool:
    """True when ``robot_url`` or ``nao_ip`` is set."""
    return bool(node.get_parameter("robot_url").value or node.get_parameter("nao_ip").value)


def robot_address(node: Node) -> RobotAddress:
    """The address the parameters describe; ``ValueError`` when they are wrong or missing."""
    value = dict(getattr(node, "_naoqi_robot_parameters", None) or {})
    if not value:
        raise ValueError("declare_robot_parameters was not called")
    error = value.pop("error")
    if error:
        raise ValueError(error)
    return RobotAddress.from_parameters(**value)
