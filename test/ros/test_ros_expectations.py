"""``run_behavior --autoplay --scenario`` with expectations: the run's feedback and result
reach the simulated robot's scenario, which decides the run; every kind holds and fails,
the verdict is printed and the exit status says how it went."""
import shutil
from pathlib import Path

import pytest

pytest.importorskip("psutil")
pytest.importorskip("naoqi_qicore.robot.sim.cli", reason="needs the simulated robot")

from expectation_behaviors import ALL_KINDS, FAILING, greet_behavior, scenario_file  # noqa: E402
from process_tools import AutoplayLauncher  # noqa: E402

from naoqi_qicore.ros.launcher import parse_arguments  # noqa: E402

pytestmark = pytest.mark.long_running(minutes=1.7)

PREFIX = "run_behavior: "


def run(behavior: Path, scenario: Path, repo_root: Path, timeout: float = 90):
    """Run ``behavior`` with ``scenario`` to its end: the exit code and the output lines."""
    launcher = AutoplayLauncher(behavior, repo_root, "--scenario", str(scenario))
    try:
        return launcher.exit_code(timeout), list(launcher.lines)
    finally:
        launcher.close()


def verdict(lines):
    return [line[len(PREFIX):] for line in lines if line.startswith(PREFIX) and (
        "expectation" in line or "not checked" in line)]


#: run_behavior's naoqi_sim runs in a robot folder of its own that does not hold the
#: project's files, so its tablet refuses the project's images: the tablet expectations are
#: checked with main.py (test/sim/test_sim_expectations_main.py), whose robot has them
ROS_KINDS = "".join(line + "\n" for line in ALL_KINDS.splitlines() if "tablet" not in line)


def test_every_kind_of_expectation_holds(tmp_path, repo_root) -> None:
    """A box that starts and ends between two feedbacks is seen too (root/Quick)."""
    path = scenario_file(tmp_path, ROS_KINDS)
    code, lines = run(greet_behavior(tmp_path), path, repo_root)
    assert code == 0, "\n".join(lines)
    assert verdict(lines) == ["%s: 8 expectations held" % path]
    assert "naoqi_sim: step 2 (expect box 'Quick' to start): box root/Quick started" in lines


@pytest.mark.parametrize("kind", sorted(set(FAILING) - {"tablet"}))
def test_each_kind_of_expectation_fails_saying_what_the_robot_did(tmp_path, repo_root,
                                                                  kind) -> None:
    text, failure = FAILING[kind]
    path = scenario_file(tmp_path, text)
    code, lines = run(greet_behavior(tmp_path), path, repo_root)
    assert code == 4, "\n".join(lines)
    failed = verdict(lines)[0]
    assert failed.startswith("expectation failed: %s:" % path), failed
    assert all(part in failed for part in failure), failed
    if kind != "ends":  # failed while it ran: the run was stopped
        assert PREFIX + "the scenario is decided: stopping the run" in lines
        assert any("result STOPPED" in line and "goal CANCELED" in line for line in lines)


def test_expectations_need_a_run(tmp_path, capsys) -> None:
    path = scenario_file(tmp_path, "- expect: {say: hello}\n")
    with pytest.raises(SystemExit) as exited:
        parse_arguments([str(tmp_path / "b.xar"), "--scenario", str(path)])
    assert exited.value.code == 2
    assert "has expectations: they check a run (add --autoplay)" in capsys.readouterr().err
    assert parse_arguments([str(tmp_path / "b.xar"), "--scenario", str(path),
                            "--autoplay"]).expectations


def test_the_dialog_example_passes_its_scenario(tmp_path, repo_root) -> None:
    """The README's "Testing a behavior" example, as a CI job runs it."""
    project = tmp_path / "hello_dialog"
    shutil.copytree(repo_root / "examples" / "hello_dialog", project)
    code, lines = run(project / "hello_dialog.pml", project / "talk.yaml", repo_root)
    assert code == 0, "\n".join(lines)
    assert verdict(lines) == ["%s: 5 expectations held" % (project / "talk.yaml")]
