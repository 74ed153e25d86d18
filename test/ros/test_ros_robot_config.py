"""Robot configuration of both nodes: naoqi_driver2's parameter names from one YAML file,
secrets that never show (command line, parameters, topics, logs), and /diagnostics."""
import time
from pathlib import Path

import pytest

pytest.importorskip("naoqi_qicore.robot.sim.cli", reason="needs the simulated robot")
psutil = pytest.importorskip("psutil")
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus  # noqa: E402
from rcl_interfaces.msg import ParameterType  # noqa: E402
from rcl_interfaces.srv import GetParameters  # noqa: E402

from naoqi_qicore.msg import BehaviorState, RobotConnection  # noqa: E402
from naoqi_qicore.ros.launcher import free_tcp_port  # noqa: E402
from process_tools import wait_until  # noqa: E402

pytestmark = pytest.mark.long_running(minutes=0.7)

SECRET = "s3cr3t-Pa55"
RUNNER = "naoqi_qicore: behavior_runner robot connection"
BRIDGE = "naoqi_qicore: naoqi_bridge robot connection"


def driver2_yaml(path: Path, port: int, **more: object) -> Path:
    """A naoqi_driver2-style parameter file for every node (``/**``)."""
    lines = ["/**:", "  ros__parameters:", "    nao_ip: 127.0.0.1", "    nao_port: %d" % port,
             "    username: nao", "    network_interface: eth0",
             "    qi_listen_url: tcp://127.0.0.1:0"]
    lines += ["    %s: %s" % (key, value) for key, value in more.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def parameters(probe, node: str, *names: str):
    """name: ParameterValue, one call per name (an undeclared one answers no value)."""
    values = {}
    for name in names:
        response = probe.call(GetParameters, "/%s/get_parameters" % node,
                              GetParameters.Request(names=[name]))
        if response.values and response.values[0].type != ParameterType.PARAMETER_NOT_SET:
            values[name] = response.values[0]
    return values


def command_lines(program) -> str:
    process = psutil.Process(program.process.pid)
    return " ".join(" ".join(p.cmdline()) for p in [process] + process.children(recursive=True))


def latest(messages, name):
    for array in reversed(list(messages)):
        for status in array.status:
            if status.name == name:
                return status
    return None


def connected(messages, name) -> bool:
    status = latest(messages, name)
    return status is not None and status.level == DiagnosticStatus.OK


def test_one_driver2_yaml_connects_both_nodes(programs, probe, tmp_path: Path) -> None:
    robot = programs("sim")
    config = driver2_yaml(tmp_path / "robot.yaml", robot.port)
    diagnostics = probe.listen(DiagnosticArray, "/diagnostics", latched=False)
    connection = probe.listen(RobotConnection, "robot/connection")
    programs("bridge", "--params-file", str(config))
    programs("runner", "--params-file", str(config))
    probe.wait_until(lambda: connection and connection[-1].state == RobotConnection.CONNECTED,
                     30, "bridge connected")
    assert connection[-1].url == robot.url
    probe.wait_until(lambda: connected(diagnostics, RUNNER), 30, "runner connected")
    assert latest(diagnostics, RUNNER).hardware_id == robot.url
    values = parameters(probe, "behavior_runner", "username", "nao_port", "network_interface")
    assert values["username"].string_value == "nao"
    assert values["nao_port"].integer_value == robot.port
    assert values["network_interface"].string_value == "eth0"


def test_password_from_file_or_environment_never_shows(programs, probe, tmp_path: Path,
                                                       monkeypatch) -> None:
    robot = programs("sim")
    config = driver2_yaml(tmp_path / "robot.yaml", robot.port,
                          robot_url=robot.url)  # the simulated robot speaks tcp, not tcps
    secret_file = tmp_path / "password"
    secret_file.write_text(SECRET + "\n")
    topics = [probe.listen(DiagnosticArray, "/diagnostics", latched=False),
              probe.listen(RobotConnection, "robot/connection"),
              probe.listen(BehaviorState, "behavior/state")]
    monkeypatch.setenv("NAOQI_PASSWORD", SECRET)
    bridge = programs("bridge", "--params-file", str(config))
    monkeypatch.delenv("NAOQI_PASSWORD")
    runner = programs("runner", "--params-file", str(config),
                      "-p", "password_file:=" + str(secret_file))
    probe.wait_until(lambda: connected(topics[0], RUNNER) and connected(topics[0], BRIDGE),
                     30, "both nodes connected")
    for program, node in ((bridge, "naoqi_bridge"), (runner, "behavior_runner")):
        assert SECRET not in command_lines(program)
        values = parameters(probe, node, "password", "robot_url", "password_file")
        assert "password" not in values and values["password_file"]
        assert SECRET not in str(values)
        assert SECRET not in program.output()
    assert all(SECRET not in str(message) for messages in topics for message in messages)


def test_password_in_robot_url_is_removed_everywhere(programs, probe) -> None:
    robot = programs("sim")
    port = free_tcp_port()  # nothing listens there: the runner keeps failing
    diagnostics = probe.listen(DiagnosticArray, "/diagnostics", latched=False)
    connection = probe.listen(RobotConnection, "robot/connection")
    states = probe.listen(BehaviorState, "behavior/state")
    bridge = programs("bridge", "-p", "robot_url:=tcp://nao:%s@127.0.0.1:%d"
                      % (SECRET, robot.port))
    runner = programs("runner", "-p", "robot_url:=tcp://nao:%s@127.0.0.1:%d" % (SECRET, port))
    probe.wait_until(lambda: connection and connection[-1].state == RobotConnection.CONNECTED,
                     30, "bridge connected")
    assert connection[-1].url == robot.url
    probe.wait_until(lambda: states and "Connection refused" in states[-1].last_error, 30,
                     "the runner's connection error")
    assert "tcp://127.0.0.1:%d" % port in states[-1].last_error
    assert (parameters(probe, "naoqi_bridge", "robot_url")["robot_url"].string_value
            == robot.url)
    assert "robot_url holds a password" in runner.output()
    # /diagnostics comes once a second: the error above can come before either node's first
    probe.wait_until(lambda: latest(diagnostics, RUNNER) is not None
                     and latest(diagnostics, BRIDGE) is not None, 10, "both nodes' diagnostics")
    for messages in (diagnostics, connection, states):
        assert messages and all(SECRET not in str(message) for message in messages)
    assert SECRET not in bridge.output() and SECRET not in runner.output()


def test_diagnostics_follow_the_robot_connection(programs, probe) -> None:
    robot = programs("sim")
    diagnostics = probe.listen(DiagnosticArray, "/diagnostics", latched=False)
    unreachable = "tcp://127.0.0.1:%d" % free_tcp_port()
    programs("bridge", "-p", "robot_url:=" + unreachable)
    programs("runner", "-p", "robot_url:=" + robot.url)
    probe.wait_until(lambda: latest(diagnostics, BRIDGE) is not None
                     and latest(diagnostics, BRIDGE).level == DiagnosticStatus.ERROR,
                     30, "the bridge's ERROR")
    status = latest(diagnostics, BRIDGE)
    assert "Connection refused" in status.message and status.hardware_id == unreachable
    assert {v.key: v.value for v in status.values}["state"] == "CONNECTING"
    probe.wait_until(lambda: connected(diagnostics, RUNNER), 30, "the runner's OK")
    names = {s.name for array in diagnostics for s in array.status}
    assert {"naoqi_qicore: naoqi_bridge motion", "naoqi_qicore: behavior_runner behavior"} <= names
    robot.kill()
    probe.wait_until(lambda: latest(diagnostics, RUNNER).level in (DiagnosticStatus.ERROR,
                                                                   DiagnosticStatus.WARN),
                     30, "the runner's ERROR once the robot is gone")
    assert "lost" in latest(diagnostics, RUNNER).message
    # at 1 Hz even when nothing changes
    count = len(diagnostics)
    probe.wait_until(lambda: len(diagnostics) >= count + 4, 5, "periodic diagnostics")


@pytest.mark.parametrize("overrides, env, expected", [
    (dict(nao_ip="10.0.0.2", username="me"), SECRET, ("tcps://10.0.0.2:9503", "me", SECRET)),
    (dict(nao_ip="10.0.0.2", user="old", password=SECRET), "", ("tcps://10.0.0.2:9503", "old",
                                                                 SECRET)),
    (dict(nao_ip="10.0.0.2", nao_port=9000, robot_url="tcp://127.0.0.1:1234"), "",
     ("tcp://127.0.0.1:1234", "", "")),
    (dict(robot_url="tcps://u:%s@10.0.0.3" % SECRET), "", ("tcps://10.0.0.3:9503", "u", SECRET)),
    (dict(nao_ip="10.0.0.2", password_file="FILE"), "other", ("tcps://10.0.0.2:9503", "nao",
                                                               SECRET)),
])
def test_address_and_password_sources(overrides, env, expected, tmp_path, monkeypatch) -> None:
    """robot_url wins over nao_ip; the password comes from password_file, the parameter or
    NAOQI_PASSWORD; ``user`` still works; the secrets are gone from the parameters."""
    import rclpy
    from rclpy.parameter import Parameter

    from naoqi_qicore.ros.robot_parameters import declare_robot_parameters, robot_address
    if overrides.get("password_file") == "FILE":
        (tmp_path / "pw").write_text(SECRET + "\n")
        overrides["password_file"] = str(tmp_path / "pw")
    if env:
        monkeypatch.setenv("NAOQI_PASSWORD", env)
    else:
        monkeypatch.delenv("NAOQI_PASSWORD", raising=False)
    context = rclpy.Context()
    rclpy.init(context=context)
    try:
        node = rclpy.create_node("config_test", context=context, parameter_overrides=[
            Parameter(name, value=value) for name, value in overrides.items()])
        declare_robot_parameters(node)
        address = robot_address(node)
        assert (address.url, address.user, address.password) == expected
        assert not node.has_parameter("password")
        assert SECRET not in str([p.value for p in node._parameters.values()])
        node.destroy_node()
    finally:
        context.try_shutdown()


def test_a_tcps_connection_to_a_plain_robot_is_told_at_once(programs, tmp_path: Path) -> None:
    """naoqi_driver2's YAML with a password (so tcps) against a robot that speaks tcp: both
    nodes say in their log, once and within seconds, why they cannot connect and what to
    check, never the password."""
    robot = programs("sim")
    secret_file = tmp_path / "password"
    secret_file.write_text(SECRET + "\n")
    config = driver2_yaml(tmp_path / "robot.yaml", robot.port, password_file=str(secret_file))
    nodes = [programs("bridge", "--params-file", str(config), "-p", "max_retry_delay:=0.2"),
             programs("runner", "--params-file", str(config))]
    told = "because a password was given"
    for node in nodes:
        wait_until(lambda: told in node.output(), 20, node.name + " telling why")
    time.sleep(3)  # more attempts, failing the same way
    for node in nodes:
        lines = [line for line in node.output().splitlines() if "cannot connect" in line]
        assert len(lines) == 1, lines
        assert lines[0].startswith("[WARN]") and "tcps://127.0.0.1:%d" % robot.port in lines[0]
        assert SECRET not in node.output()
