"""launch/run_behavior.launch.py's actions, built without the launch packages (see
ros2_lookups): what each node is given."""
from pathlib import Path

from ros2_lookups import launch_actions

LAUNCH_FILE = Path(__file__).resolve().parents[2] / "launch" / "run_behavior.launch.py"


def runner_parameters(**arguments: str) -> dict:
    [runner] = [action for action in launch_actions(LAUNCH_FILE, arguments)
                if type(action).__name__ == "Node"
                and action.kwargs["executable"] == "behavior_runner"]
    merged: dict = {}
    for parameters in runner.kwargs["parameters"]:
        merged.update(parameters)
    return merged


def test_behavior_roots_go_to_the_runner_resolved(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    parameters = runner_parameters(behavior_roots="mine:/srv/behaviors", robot_url="tcp://x:1")
    assert parameters["behavior_roots"] == [str(tmp_path / "mine"), "/srv/behaviors"]


def test_without_behavior_nor_roots_the_runner_takes_its_defaults() -> None:
    parameters = runner_parameters(robot_url="tcp://x:1")
    assert parameters["behavior"] == "" and "behavior_roots" not in parameters
