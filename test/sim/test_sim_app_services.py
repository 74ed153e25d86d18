"""Services of applications, run by the simulated robot as NAOqi runs them: a process of
their own in the application's folder, connected to the robot, their Python 2 ported; their
failures are errors of the run."""
import logging
import os
import sys
import threading
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from app_service_projects import (CALLS_THE_ANNOUNCER, GREETS, PACKAGE_ID,  # noqa: E402
                                  WELCOMES, AppRun, python_app_project, runs_the_service,
                                  service_project)
from test_sim_services_context import wait_until as wait_for  # noqa: E402
from naoqi_qicore.converter.writer import MAIN_PY  # noqa: E402
from naoqi_qicore.core.events import WHERE_APP_SERVICE  # noqa: E402
from naoqi_qicore.robot.robot_apps import AppService  # noqa: E402
from naoqi_qicore.robot.sim.services import service_manager  # noqa: E402
from naoqi_qicore.robot.sim.services.service_manager import (  # noqa: E402
    CRASHED, EXITED, STOPPED_ON_REQUEST, ServiceStartError, python_command)

SERVICES = {"Greeter": "/usr/bin/python2 scripts/main.py", "Crash": "scripts/crash.py",
            "Gone": "scripts/gone.py"}


def wait_until(condition):
    return wait_for(condition, timeout=20.0)


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (a zombie has)."""
    try:
        with open("/proc/%d/stat" % pid) as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@pytest.fixture
def run(tmp_path):
    made = []

    def make(box_code, services=None):
        made.append(AppRun(service_project(tmp_path, box_code, services or SERVICES),
                           tmp_path / "out"))
        return made[-1]
    yield make
    for each in made:
        each.close()


@pytest.mark.slow  # real processes: the services'
def test_an_apps_service_is_the_app_and_ends_its_run(run, caplog, tmp_path, monkeypatch):
    # modules that are neither installed nor the application's must not be importable
    (tmp_path / "planted").mkdir()
    (tmp_path / "planted" / "planted.py").write_text("")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "planted"))
    monkeypatch.chdir(tmp_path / "planted")
    caplog.set_level(logging.INFO, logger="naoqi_sim")
    greeter = run(runs_the_service("Greeter", GREETS))
    player = greeter.play()
    assert (player.status, player.errors) == ("FINISHED", [])
    # the service (an stk application written for Python 2) greeted through the robot
    assert greeter.said() == ["hello Ada"]
    tablet = greeter.robot.service("ALTabletService")
    assert tablet.getCurrentUrl() == "http://198.18.0.1/apps/%s/index.html" % PACKAGE_ID
    # it ended by itself (its stop() method): the box heard it and the run ended
    assert greeter.memory("Test/StopReason") == EXITED
    app = greeter.robot.files.apps / PACKAGE_ID
    assert greeter.memory("Greeter/Folder") == str(app)
    assert greeter.memory("Greeter/Path") == [str(app / "scripts")]
    assert greeter.memory("Greeter/Planted") == ""
    # what it printed is in the robot's log, under its name
    printed = [record.getMessage() for record in caplog.records
               if record.name == "naoqi_sim.%s.Greeter" % PACKAGE_ID]
    assert "greeted Ada" in printed
    # and its helper process ended with it
    assert wait_until(lambda: _gone(greeter.memory("Greeter/Helper")))
    # the project itself is left as it was: nothing ported written into it
    assert not list((tmp_path / "project").rglob("__pycache__"))


@pytest.mark.slow  # real processes: the services'
def test_the_python_app_layouts_main_py_is_its_service(tmp_path):
    """Choregraphe's "Python App": the behavior in the project's folder, its service the
    main.py beside it (the converted behavior's entry point is named otherwise)."""
    app = AppRun(python_app_project(tmp_path, runs_the_service("PythonAppMain", GREETS)),
                 tmp_path / "out", "behavior.xar")
    try:
        player = app.play()
        assert (player.status, player.errors) == ("FINISHED", [])
        assert app.said() == ["hello Ada"]
        assert app.memory("Test/StopReason") == EXITED
    finally:
        app.close()


@pytest.mark.slow  # real processes: the services'
def test_a_service_hears_a_modules_signal_and_asks_the_dialog_its_language_code(run):
    """An application's service connects to ALPeoplePerception.justArrived (a qi signal
    of the module, NAOqi 2.5+) and names its topic by ALDialog.convertLongToNU."""
    welcomer = run(runs_the_service("Welcomer", WELCOMES),
                   {"Welcomer": "scripts/welcomer.py"})
    player = welcomer.play()
    assert (player.status, player.errors) == ("FINISHED", [])
    person = welcomer.memory("PeoplePerception/JustArrived")
    assert welcomer.memory("Welcomer/Arrived") == [person, "welcome_enu.top"]
    assert welcomer.memory("Test/StopReason") == EXITED


@pytest.mark.slow  # real processes: the services'
def test_stopping_a_service_ends_its_whole_process_group(run):
    greeter = run("pass")
    greeter.install()
    manager = greeter.session.service("ALServiceManager")
    started, stopped = [], []
    manager.serviceStarted.connect(started.append)
    manager.serviceStopped.connect(lambda name, reason: stopped.append((name, reason)))
    name = PACKAGE_ID + ".Greeter"
    assert manager.startService(name)
    assert not manager.startService("Greeter")  # running already (by its bare name too)
    assert wait_until(lambda: greeter.robot.service("ALMemory").getListData(
        ["Greeter/Helper"])[0] is not None)
    helper = greeter.memory("Greeter/Helper")
    pid = manager.service(name)["pid"]
    assert manager.isServiceRunning(name) and not _gone(pid) and not _gone(helper)
    assert manager.stopService(name)
    assert _gone(pid) and wait_until(lambda: _gone(helper))
    assert not manager.isServiceRunning(name) and not manager.stopService(name)
    assert wait_until(lambda: stopped == [(name, STOPPED_ON_REQUEST)])
    assert started == [name]
    with pytest.raises(RuntimeError, match="no service named 'nope' in the installed "
                                           "applications"):
        manager.startService("nope")


@pytest.mark.slow  # real processes: the services'
def test_a_stopped_service_is_no_longer_running_when_the_stop_answers(run, monkeypatch):
    """stopService and restartService answer once the service's end is told, however late
    the robot's watcher of its process is (a loaded machine)."""
    def late_in_the_watcher(group, *number):
        if threading.current_thread().name.endswith(" process"):
            time.sleep(0.5)
        kill_group(group, *number)
    kill_group = service_manager._kill_group
    monkeypatch.setattr(service_manager, "_kill_group", late_in_the_watcher)
    greeter = run("pass")
    greeter.install()
    manager = greeter.session.service("ALServiceManager")
    name = PACKAGE_ID + ".Greeter"
    assert manager.startService(name)
    first = manager.service(name)["pid"]
    assert manager.restartService(name)
    second = manager.service(name)
    assert second["running"] and second["pid"] not in (0, first) and second["starts"] == 2
    assert manager.stopService(name)
    assert not manager.isServiceRunning(name) and not manager.service(name)["running"]


@pytest.mark.slow  # real processes: the services'
def test_a_crashing_service_is_an_error_of_the_run_with_its_traceback(run):
    crash = run(runs_the_service("Crash"))
    player = crash.play()
    assert player.status == "FINISHED"
    assert crash.memory("Test/StopReason") == CRASHED
    [error] = player.errors
    assert (error.where, error.exception_type) == (WHERE_APP_SERVICE, "ModuleNotFoundError")
    assert error.text() == ("root: app service: ModuleNotFoundError: %s.Crash: crashed (exit "
                            "status 1)" % PACKAGE_ID)
    assert 'scripts/crash.py", line 3, in <module>' in error.traceback
    assert error.traceback.endswith(
        "ModuleNotFoundError: No module named 'missing_module_of_the_app'")
    assert "naoqi_qicore" not in error.traceback


@pytest.mark.slow  # real processes: the services'
def test_a_service_whose_program_is_missing_is_an_error_of_the_run(run):
    gone = run(runs_the_service("Gone"))
    player = gone.play()
    assert player.status == "FINISHED"
    [error] = player.errors
    assert error.where == WHERE_APP_SERVICE
    assert error.message == (
        "%s.Gone: execStart 'scripts/gone.py' names scripts/gone.py, which the application "
        "does not have (no file /home/nao/.local/share/PackageManager/apps/%s/scripts/gone.py)"
        % (PACKAGE_ID, PACKAGE_ID))


@pytest.mark.slow  # real processes: the services'
def test_autorun_services_start_when_the_app_is_installed(run):
    announcer = run(CALLS_THE_ANNOUNCER, {"Announcer": "scripts/announcer.py|autorun",
                                          "Greeter": "scripts/main.py"})
    player = announcer.play()
    assert (player.status, player.errors) == ("FINISHED", [])
    # the service it registered answered the box
    assert announcer.memory("Test/Motto") == "always greet"
    manager = announcer.robot.service("ALServiceManager")
    assert [(info["name"], info["running"]) for info in manager.services()] == [
        (PACKAGE_ID + ".Announcer", True), (PACKAGE_ID + ".Greeter", False)]
    # installed again unchanged, it runs on; the robot's end ends it
    pid = manager.service("Announcer")["pid"]
    announcer.install()
    assert manager.service("Announcer")["pid"] == pid
    announcer.close()
    assert _gone(pid)


@pytest.mark.slow  # real processes: the services'
def test_the_end_of_a_run_stops_the_services_it_started(run):
    greeter = run(runs_the_service("Greeter", "self.onStopped()"))
    player = greeter.play()
    assert (player.status, player.errors) == ("FINISHED", [])
    assert player.wait_run_closed(10)
    manager = greeter.robot.service("ALServiceManager")
    assert wait_until(lambda: not manager.isServiceRunning("Greeter"))


@pytest.mark.parametrize("command, script, arguments", [
    ("main.py", "main.py", []),
    ("lib/service.py --verbose", "lib/service.py", ["--verbose"]),
    ("/usr/bin/python2 scripts/main.py", "scripts/main.py", []),
    ("python -u scripts/main.py a", "scripts/main.py", ["a"]),
    ("/home/nao/.local/share/PackageManager/apps/python3nao/bin/runpy3.sh scripts/main.py",
     "scripts/main.py", []),
    ("/home/nao/.local/share/PackageManager/apps/my-app/scripts/main.py", "scripts/main.py",
     []),
    ("bin/run", "bin/run", []),
])
def test_the_python_script_an_exec_start_runs(tmp_path, command, script, arguments):
    for name in ("main.py", "lib/service.py", "scripts/main.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "run").write_text("#!/usr/bin/env python\n")
    found = python_command(AppService("my-app", "Main", command, False), tmp_path)
    assert found == ((tmp_path / script).resolve(), arguments)


@pytest.mark.parametrize("command, why", [
    ("scripts/missing.py", "which the application does not have"),
    ("main.py", "which the application does not have .*: the main.py there is the converted "
                "behavior's entry point"),
    ("../other-app/main.py", "which is not in the application's folder"),
    ("/usr/bin/python2 /etc/passwd.py", "which is not in the application's folder"),
    ("bin/tool", "which is no Python script"),
    ("/usr/bin/python2", "without a script"),
    ("'unclosed", "is no command line"),
])
def test_an_exec_start_the_robot_cannot_run_says_why(tmp_path, command, why):
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "tool").write_bytes(b"\x7fELF")
    (tmp_path / "main.py").write_text(MAIN_PY)
    with pytest.raises(ServiceStartError, match=why):
        python_command(AppService("my-app", "Main", command, False), tmp_path)


@pytest.mark.slow  # real processes: the services'
def test_a_crashing_autorun_service_is_started_again_five_times_at_most(run):
    crash = run("pass", {"Crash": "scripts/crash.py|autorun"})
    crash.install()
    manager = crash.robot.service("ALServiceManager")
    assert wait_until(lambda: manager.service("Crash")["starts"] == 5
                      and not manager.isServiceRunning("Crash"))
    time.sleep(0.5)
    assert manager.service("Crash")["starts"] == 5
    failures = crash.robot.service("NaoqiSimApps").failures(PACKAGE_ID)
    assert [failure["message"] for failure in failures] == ["crashed (exit status 1)"] * 5
