"""launch/run_behavior.launch.py's actions, built without the launch packages (see
ros2_lookups): what each node is given."""
from pathlib import Path

import pytest
from ros2_lookups import launch_actions, launch_description

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


def test_autoplay_makes_the_runner_end_the_launch_with_the_run() -> None:
    assert runner_parameters(robot_url="tcp://x:1", behavior="/b.xar", autoplay="true")[
        "exit_after_run"] is True
    assert runner_parameters(robot_url="tcp://x:1")["exit_after_run"] is False


class _Context:
    def __init__(self, shutting_down: bool) -> None:
        self.is_shutdown = shutting_down


class _Exited:
    """A ProcessExited event: the action that exited and its status."""

    def __init__(self, action, returncode: int) -> None:
        self.action = action
        self.returncode = returncode


def _on_exit(**arguments: str):
    """The launch's handler of its processes' exits, and its processes by executable."""
    actions = launch_actions(LAUNCH_FILE, arguments)
    handlers = [action.args[0] for action in actions
                if type(action).__name__ == "RegisterEventHandler"]
    assert {type(h).__name__ for h in handlers} == {"OnProcessExit"}
    processes = {}
    for action in actions:
        if type(action).__name__ in ("Node", "ExecuteProcess"):
            name = action.kwargs.get("executable") or action.kwargs["name"]
            action.name = name + "-1"  # as launch names a process it started
            processes[name] = action
    assert sorted(h.kwargs["target_action"].name for h in handlers) == sorted(
        p.name for p in processes.values())
    return handlers[0].kwargs["on_exit"], processes


def _emitted(reply) -> list:
    return [type(action.kwargs["event"]).__name__ for action in reply
            if type(action).__name__ == "EmitEvent"]


def test_a_node_that_fails_fails_the_launch() -> None:
    """A node exiting with an error stops the launch and emits NodeFailed, whose handler
    raises (launch then returns a non-zero status); one exiting 0 only stops it."""
    on_exit, processes = _on_exit(robot_url="", behavior="nope.xar")
    runner, bridge = processes["behavior_runner"], processes["naoqi_bridge"]
    reply = on_exit(_Exited(runner, 2), _Context(False))
    assert _emitted(reply) == ["Shutdown", "NodeFailed"]
    [failed] = [a.kwargs["event"] for a in reply if type(a).__name__ == "EmitEvent"
                and type(a.kwargs["event"]).__name__ == "NodeFailed"]
    assert failed.reason == "behavior_runner-1 exited with code 2"
    # the bridge stops on the shutdown: its end, and the simulated robot's, fail nothing
    reply = on_exit(_Exited(bridge, 0), _Context(True))
    assert _emitted(reply) == ["SignalProcess"]  # both nodes gone: the robot stops
    assert "NodeFailed" not in _emitted(on_exit(_Exited(processes["naoqi_sim"], -15),
                                                _Context(True)))
    # ... but an error status of its own while stopping does
    assert "NodeFailed" in _emitted(on_exit(_Exited(bridge, 1), _Context(True)))
    # a crash (killed by a signal) before any shutdown fails the launch
    on_exit, processes = _on_exit(robot_url="", behavior="nope.xar")
    assert _emitted(on_exit(_Exited(processes["naoqi_bridge"], -11), _Context(False))) == [
        "Shutdown", "NodeFailed"]


def test_the_autoplayed_run_ends_the_launch_with_its_outcome() -> None:
    on_exit, processes = _on_exit(robot_url="tcp://x:1", behavior="/b.xar", autoplay="true")
    runner = processes["behavior_runner"]
    reply = on_exit(_Exited(runner, 0), _Context(False))
    assert _emitted(reply) == ["Shutdown"]
    [said] = [a.kwargs["msg"] for a in reply if type(a).__name__ == "LogInfo"]
    assert said == "the autoplayed run succeeded: stopping the launch"
    reply = on_exit(_Exited(runner, 1), _Context(False))
    assert _emitted(reply) == ["Shutdown", "NodeFailed"]
    [said] = [a.kwargs["msg"] for a in reply if type(a).__name__ == "LogInfo"]
    assert said.startswith("the autoplayed run did not succeed (behavior_runner-1 exited "
                           "with code 1")


def test_node_failed_makes_the_launch_fail_with_its_reason() -> None:
    module, entities = launch_description(LAUNCH_FILE)
    [handler] = [entity.args[0] for entity in entities
                 if type(entity).__name__ == "RegisterEventHandler"]
    event = module.NodeFailed("naoqi_bridge-2 exited with code 2")
    assert handler.kwargs["matcher"](event) and not handler.kwargs["matcher"](object())
    [action] = handler.kwargs["entities"]

    class Locals:
        pass
    context = type("Context", (), {"locals": Locals()})()
    context.locals.event = event
    with pytest.raises(RuntimeError, match="naoqi_bridge-2 exited with code 2"):
        action.kwargs["function"](context)
