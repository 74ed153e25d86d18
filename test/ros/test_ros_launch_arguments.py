"""The launch file's arguments, checked without the launch packages: its ARGUMENTS table
(read from the source), the documentation and run_behavior's options agree."""
import ast
import json
import subprocess
from pathlib import Path

import pytest

from naoqi_qicore.ros import launcher
from naoqi_qicore.ros.launcher import parse_arguments, python_program, robot_in_params_file
from process_tools import plant_modules

ROOT = Path(__file__).resolve().parents[2]
REQUIRED = {"params_file", "nao_ip", "nao_port", "username", "password_file", "namespace",
            "behavior", "robot_url", "robot", "autoplay", "log_level", "scenario"}


def launch_arguments():
    tree = ast.parse((ROOT / "launch" / "run_behavior.launch.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "ARGUMENTS":
            return {name: default for name, default, _ in ast.literal_eval(node.value)}
    raise AssertionError("no ARGUMENTS in the launch file")


def test_the_launch_file_declares_every_argument() -> None:
    assert REQUIRED <= set(launch_arguments())


def test_docs_list_every_launch_argument() -> None:
    rows = [line for line in (ROOT / "docs" / "ros.md").read_text().splitlines()
            if line.startswith("| `")]
    documented = {line.split("`")[1] for line in rows}
    assert set(launch_arguments()) <= documented


def test_run_behavior_passes_the_connection_parameters(tmp_path) -> None:
    params = tmp_path / "p.yaml"
    params.write_text("/**:\n  ros__parameters:\n    focus: false\n")
    plan = parse_arguments(["b.xar", "--params-file", str(params), "--nao-ip", "10.0.0.5",
                            "--nao-port", "9503", "--username", "123",
                            "--password-file", "secret.txt"])
    assert not plan.needs_simulated_robot()
    for command in (plan.bridge_command(""), plan.runner_command("")):
        arguments = command[command.index("--ros-args"):]
        assert arguments[arguments.index("--params-file") + 1] == str(params)
        overrides = dict(arguments[i + 1].split(":=", 1) for i, a in enumerate(arguments)
                         if a == "-p")
        assert {k: json.loads(v) for k, v in overrides.items() if k != "behavior"} == {
            "nao_ip": "10.0.0.5", "nao_port": 9503, "username": "123",
            "password_file": str(Path.cwd() / "secret.txt")}
        # the file comes first: the options win over it
        assert arguments.index("--params-file") < arguments.index("-p")


@pytest.mark.parametrize("content, robot", [
    ("/**:\n  ros__parameters:\n    robot_url: tcp://10.0.0.5:9559\n", True),
    ("nao1:\n  behavior_runner:\n    ros__parameters:\n      nao_ip: 10.0.0.5\n", True),
    ("/**:\n  ros__parameters:\n    focus: false\n", False)])
def test_a_robot_in_the_params_file_replaces_the_simulated_one(tmp_path, content,
                                                               robot) -> None:
    params = tmp_path / "p.yaml"
    params.write_text(content)
    assert robot_in_params_file(str(params)) is robot


def test_an_unreadable_params_file_is_a_usage_error(tmp_path, capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        parse_arguments(["b.xar", "--params-file", str(tmp_path / "missing.yaml")])
    assert exit_.value.code == 2
    assert "cannot read the parameters file" in capsys.readouterr().err


def test_run_behavior_roots_and_stay(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    plan = parse_arguments(["b.xar", "--autoplay", "--stay", "--roots", "a:/srv/x",
                            "--roots", "c"])
    assert plan.stay and plan.behavior_roots == (str(tmp_path / "a"), "/srv/x",
                                                 str(tmp_path / "c"))
    arguments = plan.runner_command("tcp://127.0.0.1:9559")
    overrides = dict(arguments[i + 1].split(":=", 1) for i, a in enumerate(arguments)
                     if a == "-p")
    assert json.loads(overrides["behavior_roots"]) == list(plan.behavior_roots)
    default = parse_arguments(["b.xar"]).runner_command("")
    assert not [a for a in default if a.startswith("behavior_roots:=")]


@pytest.mark.parametrize("argv, error", [
    (["--autoplay"], "--autoplay needs a behavior"),
    (["b.xar", "--stay"], "--stay goes with --autoplay")])
def test_run_behavior_refuses(argv, error, capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse_arguments(argv)
    assert exit_info.value.code == 2 and error in capsys.readouterr().err


def test_run_behavior_without_a_behavior_serves() -> None:
    plan = parse_arguments([])
    assert plan.behavior == "" and plan.simulated_robot() == ("nao", "no behavior given")


def test_programs_import_nothing_from_the_folder_they_start_in(tmp_path) -> None:
    """A ``secrets.py`` or ``argparse.py`` lying in the folder run_behavior is started in
    runs in none of the programs it starts: only installed code is importable."""
    marker = tmp_path / "imported.txt"
    plant_modules(tmp_path, marker)
    done = subprocess.run(python_program("naoqi_qicore.robot.sim.cli", "--help"), cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert not marker.exists(), marker.read_text()
    for command in (parse_arguments([]).simulator_command("tcp://127.0.0.1:9", "nao"),
                    parse_arguments([]).bridge_command(""), parse_arguments([]).runner_command("")):
        assert command[:2] == python_program("x")[:2]


class _Exited:
    """A program that has exited at once (what run() sees of the programs it starts)."""

    def __init__(self, command, **options) -> None:
        self.command, self.environment = command, options.get("env")
        self.returncode = 0

    def poll(self) -> int:
        return 0


def test_a_password_in_the_robot_url_never_reaches_a_command_line(monkeypatch) -> None:
    """``--robot-url tcp://user:password@host``: the nodes get the URL without the password
    and the password in their environment (which only this user can read, where ``ps``
    shows every user the command lines)."""
    monkeypatch.delenv("NAOQI_PASSWORD", raising=False)
    started = []
    monkeypatch.setattr(launcher.subprocess, "Popen",
                        lambda command, **options: started.append(_Exited(command, **options))
                        or started[-1])
    plan = parse_arguments(["b.xar", "--robot-url", "tcp://nao:s3cr%40t@10.0.0.5:9559"])
    launcher.run(plan)
    assert len(started) == 2  # the bridge and the runner: no simulated robot
    for program in started:
        assert not [argument for argument in program.command if "s3cr" in argument]
        assert "robot_url:=\"tcp://nao@10.0.0.5:9559\"" in program.command
        assert program.environment["NAOQI_PASSWORD"] == "s3cr@t"
    monkeypatch.setenv("NAOQI_PASSWORD", "given")  # the environment's comes first, as before
    assert plan.node_environment() == {}
    assert parse_arguments(["b.xar", "--robot-url", "tcp://nao@10.0.0.5"]).node_environment() == {}
