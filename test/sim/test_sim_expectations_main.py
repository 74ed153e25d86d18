"""``main.py --scenario`` with expectations, as a real process: every kind holds and fails,
the verdict is printed, the exit status says how it went; and the dialog example of the
README passes."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("qi")
#: real processes: left out of make check
pytestmark = [pytest.mark.slow, pytest.mark.long_running(minutes=0.8)]

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "test" / "ros"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from expectation_behaviors import (ALL_KINDS, FAILING, greet_behavior,  # noqa: E402
                                   scenario_file)
from test_sim_scenario_programs import ENV  # noqa: E402

from naoqi_qicore.converter.api import convert, convert_in_project  # noqa: E402


@pytest.fixture(scope="module")
def greet(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("greet")
    convert(greet_behavior(folder), folder / "converted")
    return folder / "converted" / "main.py"


def run_main(main: Path, scenario: Path, timeout: float = 60):
    process = subprocess.run([sys.executable, str(main), "--scenario", str(scenario)],
                             env=ENV, capture_output=True, text=True, timeout=timeout)
    return process.returncode, process.stdout, process.stderr


def test_every_kind_of_expectation_holds(greet, tmp_path):
    code, out, err = run_main(greet, scenario_file(tmp_path, ALL_KINDS))
    assert code == 0, out + err
    assert out.splitlines()[-2:] == ["%s: 9 expectations held" % (tmp_path / "check.yaml"),
                                     "converted: FINISHED in %s" % out.splitlines()[-1].split(
                                         " in ", 1)[1]]
    assert out.splitlines()[-1].endswith(", no errors")
    assert "scenario: step 2 (expect box 'Quick' to start): box root/Quick started" in err


@pytest.mark.parametrize("kind", sorted(FAILING))
def test_each_kind_of_expectation_fails_saying_what_the_robot_did(greet, tmp_path, kind):
    text, failure = FAILING[kind]
    path = scenario_file(tmp_path, text)
    code, out, err = run_main(greet, path)
    assert code == 4, out + err
    lines = out.splitlines()
    assert lines[0].startswith("expectation failed: %s:" % path), out
    assert all(part in lines[0] for part in failure), out
    assert "scenario: expectation failed: " in err


def test_a_scenario_done_stops_the_run_and_passes(greet, tmp_path):
    code, out, err = run_main(greet, scenario_file(tmp_path, "- expect: {say: touch my head}\n"))
    assert code == 0, out + err
    assert out.splitlines()[-1].startswith("converted: STOPPED by the scenario in ")


def test_an_invalid_expectation_is_refused_before_the_run(greet, tmp_path):
    path = scenario_file(tmp_path, "- hear: hi\n- expect: {say: hi, within: -1}\n")
    code, out, err = run_main(greet, path)
    assert code == 2 and out == ""
    assert err.strip().endswith("%s:2: step 2: expect: within must be a number > 0, got -1"
                                % path)


def test_the_dialog_example_passes_its_scenario(tmp_path):
    """The README's "Testing a behavior" example, as a CI job runs it."""
    project = tmp_path / "hello_dialog"
    shutil.copytree(REPO / "examples" / "hello_dialog", project)
    result = convert_in_project(project / "behavior_1" / "behavior.xar", tmp_path / "out")
    main = result.behaviors[0].output / "main.py"
    code, out, err = run_main(main, project / "talk.yaml")
    assert code == 0, out + err
    assert "talk.yaml: 5 expectations held" in out
    assert "scenario: step 4 (expect the robot to say /me too/): the robot said 'Me too. " \
           "Goodbye!'" in err
