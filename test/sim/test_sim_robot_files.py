"""The simulated robot's own files (issue 21 point 3, issue 23 point 1): NAOqi's layout under
a root per robot, client paths mapped into it and nothing outside, the behavior's project
installed where the robot keeps applications, box code's own /home/nao paths, and its
services staying registered."""
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from naoqi_qicore.converter.loader import load_converted
from naoqi_qicore.robot.robot_apps import (install_behavior, install_on_robot, installed_apps,
                                           package_id)
from naoqi_qicore.file_root import OutsideRootError
from naoqi_qicore.robot.robot_files import RobotFiles, RobotPathError

qi = pytest.importorskip("qi")

from naoqi_qicore.converter.api import convert  # noqa: E402
from naoqi_qicore.robot.sim import SimulatedRobot  # noqa: E402
from naoqi_qicore.robot.sim.recorder import read_calls  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from robot_projects import (ENV, LAST, PACKAGE_ID, layout_project,  # noqa: E402
                            script_behavior)
from sim_core_support import wait_until  # noqa: E402

pytestmark = pytest.mark.long_running(minutes=0.3)

OUTSIDE = "is outside the robot's files (/home/nao/..., /tmp/...)"


# -- the mapping --------------------------------------------------------------------------------
def test_robot_paths_map_into_the_root_and_nowhere_else(tmp_path):
    files = RobotFiles(tmp_path / "root")
    root = files.root
    assert (root / "home/nao/.local/share/PackageManager/apps").is_dir()
    assert (root / "home/nao/recordings/microphones").is_dir()
    assert (root / "home/nao/recordings/cameras").is_dir()
    assert files.local("/home/nao/x.wav").path == root / "home/nao/x.wav"
    assert files.local("x.wav").path == root / "home/nao/x.wav"  # NAOqi's working folder
    assert files.local("~/rec/x.wav").path == root / "home/nao/rec/x.wav"
    assert files.local("sounds/x.wav", "/home/nao/apps/a").path == \
        root / "home/nao/apps/a/sounds/x.wav"
    assert files.local("/tmp/x").path == root / "tmp/x"
    assert files.local("/home/nao/a/../b").path == root / "home/nao/b"
    assert files.local(str(root / "home/nao/c")).path == root / "home/nao/c"  # this machine's
    assert files.robot_path(str(root / "home/nao/c/../d")) == "/home/nao/d"
    for path in ("/etc/passwd", "/home/nao/../../etc/passwd", "../../etc/passwd", "/",
                 "/home/naomi/x", os.__file__, str(root / "etc" / "x"),
                 str(root)):
        with pytest.raises(RobotPathError) as refused:
            files.local(path)
        assert str(refused.value) == "'%s' %s" % (path, OUTSIDE)
    (root / "home/nao/link").symlink_to("/etc")
    for use in (lambda place: place.open_read(), lambda place: place.write_bytes(b"x"),
                lambda place: place.remove()):
        with pytest.raises(OutsideRootError) as refused:  # refused when used, from handles
            use(files.local("/home/nao/link/passwd"))
        assert refused.value.strerror == "a symbolic link leads out of the robot's files"
        assert refused.value.filename == "/home/nao/link/passwd"  # shown as the robot's path
    with pytest.raises(RobotPathError, match="is not a file path"):
        files.local("/home/nao/a\0b")
    # box code's own paths: the robot's tree into the root, the rest as it is
    assert files.box_path("/home/nao/x") == str(root / "home/nao/x")
    assert files.box_path("/home/nao/../../usr/lib") == "/home/nao/../../usr/lib"
    assert files.box_path("/usr/share/x") == "/usr/share/x"
    assert files.box_path("/tmp/x") == "/tmp/x"  # box code runs here: its /tmp is ours
    assert files.box_path("relative/x") == "relative/x"


# -- what a client of the simulated robot can do -----------------------------------------------
@pytest.fixture
def robot():
    with SimulatedRobot(listen="tcp://127.0.0.1:0") as simulated:
        client = qi.Session()
        client.connect(simulated.url)
        yield simulated, client
        client.close()


def test_clients_write_only_inside_the_robots_files(robot, tmp_path):
    simulated, client = robot
    victim = Path.home() / ".naoqi_qicore_test_victim"  # a file the runner's user owns
    assert not victim.exists()
    # (this checkout may lie under /tmp, the robot's /tmp: Python's own folder is outside)
    outside = [str(victim), "/etc/naoqi_owned", str(Path(os.__file__).parent / "owned.wav")]
    speech = client.service("ALTextToSpeech")
    device, recorder = client.service("ALAudioDevice"), client.service("ALAudioRecorder")
    for path in outside:
        for write in (lambda: speech.sayToFile("hello", path),
                      lambda: device.startMicrophonesRecording(path),
                      lambda: recorder.startMicrophonesRecording(path, "wav", 16000, [1, 1, 1, 1])):
            with pytest.raises(RuntimeError, match="'%s' %s" % (path, OUTSIDE.replace(
                    "(", r"\(").replace(")", r"\)").replace(".", r"\."))):
                write()
        assert not os.path.exists(path)
    # /tmp is the robot's /tmp: this machine's /tmp is not touched
    target = tmp_path / "said.wav"
    with pytest.raises(RuntimeError, match="ALTextToSpeech::sayToFile: cannot write"):
        speech.sayToFile("hello", str(target))
    assert not target.exists()
    speech.sayToFile("hello", "/home/nao/said.wav")
    assert (simulated.files.root / "home/nao/said.wav").stat().st_size > 44
    recorder.startMicrophonesRecording("/home/nao/recordings/microphones/r.wav", "wav",
                                       16000, [1, 1, 1, 1])
    recorder.stopMicrophonesRecording()
    assert (simulated.files.root / "home/nao/recordings/microphones/r.wav").is_file()


def test_clients_learn_nothing_of_files_outside(robot):
    simulated, client = robot
    dialog, player = client.service("ALDialog"), client.service("ALAudioPlayer")
    first_line = Path("/etc/passwd").read_text().splitlines()[0]
    with pytest.raises(RuntimeError) as refused:
        dialog.loadTopic("/etc/passwd")
    assert "'/etc/passwd' %s" % OUTSIDE in str(refused.value)
    assert first_line not in str(refused.value) and "root" not in str(refused.value)
    # a file of the robot that is not a topic: named, not quoted
    secret = simulated.files.local("/home/nao/.auth/keys.json").path
    secret.parent.mkdir()
    secret.write_text('{"token": "s3cr3t-value"}\n')
    with pytest.raises(RuntimeError) as refused:
        dialog.loadTopic("/home/nao/.auth/keys.json")
    assert "'/home/nao/.auth/keys.json' is not a QiChat topic" in str(refused.value)
    assert "s3cr3t" not in str(refused.value)
    # existing or not, a file outside answers the same
    answers = []
    for path in ("/etc/passwd", "/etc/no-such-file-here"):
        with pytest.raises(RuntimeError) as refused:
            player.loadFile(path)
        answers.append(str(refused.value).split("\n")[0].replace(path, "PATH"))
    assert answers[0] == answers[1]
    assert "PATH' %s" % OUTSIDE in answers[0]


def test_the_tablet_shows_an_applications_files_from_the_robots_files():
    with SimulatedRobot(robot="pepper", listen="tcp://127.0.0.1:0") as simulated:
        client = qi.Session()
        client.connect(simulated.url)
        tablet = client.service("ALTabletService")
        html = simulated.files.apps / "my-app" / "html"
        html.mkdir(parents=True)
        (html / "hello.png").write_bytes(b"\x89PNG\r\n\x1a\n")
        assert tablet.showImage("http://198.18.0.1/apps/my-app/hello.png")
        assert tablet.getShownImage() == "http://198.18.0.1/apps/my-app/hello.png"
        tablet.hideImage()
        # a file the application does not have is not shown, as the robot's web server
        # answers 404 for it
        assert not tablet.showImage("http://198.18.0.1/apps/my-app/missing.png")
        assert not tablet.playVideo("http://198.18.0.1/apps/my-app/missing.mp4")
        assert not tablet.preLoadImage("http://198.18.0.1/apps/other-app/hello.png")
        # nor is a file of the robot outside the application's html folder
        secret = simulated.files.local("/home/nao/.auth/keys.json").path
        secret.parent.mkdir()
        secret.write_text("{}")
        (html.parent / "behavior_1").mkdir()
        (html.parent / "behavior_1" / "icon.png").write_bytes(b"\x89PNG\r\n\x1a\n")
        for url in ("http://198.18.0.1/apps/my-app/../../../../../.auth/keys.json",
                    "http://198.18.0.1/apps/%2e%2e/%2e%2e/%2e%2e/%2e%2e/.auth/keys.json",
                    "http://198.18.0.1/apps/my-app/../behavior_1/icon.png"):
            assert not tablet.showImage(url)
        assert tablet.getShownImage() == ""
        # a URL leading out of the robot's files is refused, the file there or not (a page
        # with onLoadPageError)
        errors = []
        tablet.onLoadPageError.connect(lambda *error: errors.append(error))
        for url in ("http://198.18.0.1/apps/my-app/../../../../../../../etc/passwd",
                    "http://198.18.0.1/apps/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd"):
            with pytest.raises(RuntimeError, match=OUTSIDE.replace("(", r"\(").replace(
                    ")", r"\)").replace(".", r"\.")):
                tablet.showImage(url)
            errors.clear()
            assert not tablet.loadUrl(url)
            assert wait_until(lambda: errors)
            assert errors[0][0] == -1 and OUTSIDE in errors[0][1] and errors[0][2] == url
        assert tablet.getShownImage() == ""
        # other sites' files are the tablet's business
        assert tablet.showImage("https://example.org/a.png")
        client.close()


def test_robot_files_are_private_and_go_with_the_robot(tmp_path):
    with SimulatedRobot(listen="tcp://127.0.0.1:0") as simulated:
        root = simulated.files.root
        assert root.stat().st_mode & 0o077 == 0
        client = qi.Session()
        client.connect(simulated.url)
        assert client.service("NaoqiSimFiles").root() == str(root)
        client.close()
    assert not root.exists()
    kept = tmp_path / "kept"
    with SimulatedRobot(listen="tcp://127.0.0.1:0", root=kept) as simulated:
        simulated.service("ALTextToSpeech").sayToFile("hi", "/home/nao/hi.wav")
    assert (kept / "home/nao/hi.wav").is_file()


def _listing(folder: Path) -> list:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


@pytest.fixture
def outside(tmp_path):
    """A user's folder outside any robot's files, holding ``notes.txt``."""
    folder = tmp_path / "users_folder"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    return folder


def test_a_link_in_the_root_leading_out_is_never_followed(tmp_path, outside):
    """A symbolic link planted in a robot's root: the robot creates nothing through it,
    installs nothing through it, and a client's removeBehavior removes the link, never
    what it points to."""
    root = tmp_path / "root"
    (root / "home/nao/.local/share").mkdir(parents=True)
    (root / "home/nao/.local/share/PackageManager").symlink_to(outside)
    with pytest.raises(OutsideRootError, match="leads out of the robot's files"):
        SimulatedRobot(listen="tcp://127.0.0.1:0", root=root).start()
    with pytest.raises(OutsideRootError):
        RobotFiles(root)
    from naoqi_qicore.robot.sim import cli
    assert cli.main(["--listen", "tcp://127.0.0.1:0", "--root", str(root)]) == 2
    assert _listing(outside) == ["notes.txt"]
    (root / "home/nao/.local/share/PackageManager").unlink()
    # an application's folder, or a folder inside one, that is a link leading out
    files = RobotFiles(root)
    xar = script_behavior(tmp_path, "behavior", "pass")
    convert(xar, tmp_path / "out")
    package = install_behavior(files, load_converted(tmp_path / "out"))[0].package_id
    (files.apps / "planted").symlink_to(outside)
    (files.apps / package / "sounds").symlink_to(outside)
    assert [app.package_id for app in installed_apps(files)] == [
        ".lastUploadedChoregrapheBehavior", package]
    with SimulatedRobot(listen="tcp://127.0.0.1:0", root=root) as simulated:
        client = qi.Session()
        client.connect(simulated.url)
        manager = client.service("ALBehaviorManager")
        assert not manager.removeBehavior("planted/.")
        assert manager.removeBehavior(package + "/.")
        client.close()
    assert not (files.apps / package).exists() and _listing(outside) == ["notes.txt"]
    (files.apps / package).symlink_to(outside)  # installed again over a planted link
    install_behavior(files, load_converted(tmp_path / "out"))
    assert not (files.apps / package).is_symlink() and _listing(outside) == ["notes.txt"]


def test_a_folder_swapped_for_a_link_never_leads_a_write_out(tmp_path, outside):
    """A folder of the robot's files replaced by a link leading out, again and again,
    while a client writes into it: nothing outside changes (the path was checked, then
    opened again)."""
    with SimulatedRobot(listen="tcp://127.0.0.1:0", root=tmp_path / "root") as simulated:
        folder = simulated.files.root / "home/nao/race"
        folder.mkdir()
        aside = folder.with_name("aside")
        stop = threading.Event()

        def swap() -> None:
            while not stop.is_set():
                try:
                    folder.rename(aside)
                    folder.symlink_to(outside)
                    time.sleep(0.001)
                    folder.unlink()
                    aside.rename(folder)
                    time.sleep(0.001)  # the real folder stays a while too: writes land
                except OSError:
                    pass
        swapper = threading.Thread(target=swap)
        swapper.start()
        client = qi.Session()
        client.connect(simulated.url)
        speech = client.service("ALTextToSpeech")
        recorder = client.service("ALAudioRecorder")
        written = 0
        try:
            # 3 s of swaps, longer on a loaded machine until some writes landed
            start = time.monotonic()
            while time.monotonic() < start + 3.0 or (not written and
                                                     time.monotonic() < start + 30.0):
                for write in (lambda: speech.sayToFile("hi", "/home/nao/race/notes.txt"),
                              lambda: recorder.startMicrophonesRecording(
                                  "/home/nao/race/notes.txt", "wav", 16000, [1, 1, 1, 1])):
                    try:
                        write()
                        written += 1
                    except RuntimeError:
                        pass
                    try:
                        recorder.stopMicrophonesRecording()
                    except RuntimeError:
                        pass
        finally:
            stop.set()
            swapper.join()
            client.close()
    assert written
    assert _listing(outside) == ["notes.txt"] and (outside / "notes.txt").read_text() == "mine"


def test_hard_links_in_the_root_are_replaced_or_refused(robot, outside):
    """A hard link planted in the robot's files to a file outside: a write replaces the
    link (the file outside keeps its content), a read is refused (its content lives
    outside)."""
    simulated, client = robot
    home = simulated.files.root / "home/nao"
    (outside / "topic.top").write_text("topic: ~secret()\nlanguage: enu\nu:(hi) secret\n")
    for name in ("said.wav", "recorded.wav"):
        os.link(outside / "notes.txt", home / name)
    os.link(outside / "topic.top", home / "linked.top")
    client.service("ALTextToSpeech").sayToFile("hello", "/home/nao/said.wav")
    recorder = client.service("ALAudioRecorder")
    recorder.startMicrophonesRecording("/home/nao/recorded.wav", "wav", 16000, [1, 1, 1, 1])
    recorder.stopMicrophonesRecording()
    assert (outside / "notes.txt").read_text() == "mine"
    assert (home / "said.wav").stat().st_nlink == 1 and (home / "said.wav").stat().st_size > 44
    with pytest.raises(RuntimeError, match="hard link"):
        client.service("ALDialog").loadTopic("/home/nao/linked.top")
    assert client.service("ALDialog").getAllLoadedTopics() == []


def test_error_answers_are_naoqi_like_messages_without_this_machines_paths(robot):
    """Every method called with arguments it refuses, and the file methods with hostile
    paths: each answer is a message of the service, never a Python traceback or a path of
    this machine (libqi adds the traceback of an error raised to it)."""
    simulated, client = robot
    machine = [str(Path(__file__).resolve().parents[2]), sys.prefix, str(simulated.files.root),
               os.path.dirname(os.__file__)]
    answers = []

    def answer(call) -> None:
        try:
            call()
        except RuntimeError as error:
            answers.append(str(error))
    for service in [info["name"] for info in client.services()]:
        proxy = client.service(service)
        for method in proxy.getMethodList() if hasattr(proxy, "getMethodList") else []:
            bound = getattr(proxy, method, None)  # (a private name is another's)
            if bound is not None and method not in ("pCall", "wait", "stop", "isRunning",
                                                    "ping", "version", "getMethodList"):
                answer(lambda: bound(*["?"] * 20))
    long_name = "/home/nao/" + "a" * 5000
    speech, dialog = client.service("ALTextToSpeech"), client.service("ALDialog")
    for path in ("/etc/passwd", long_name, "/home/nao/missing/x.wav", "/home/nao"):
        answer(lambda: speech.sayToFile("hi", path))
        answer(lambda: dialog.loadTopic(path))
        answer(lambda: client.service("ALAudioPlayer").loadFile(path))
        answer(lambda: client.service("ALPhotoCapture").takePicture(path, "x"))
        answer(lambda: client.service("ALBehaviorManager").installBehavior(path, "x", True))
        answer(lambda: client.service("ALFrameManager").newBehaviorFromFile(path, ""))
        answer(lambda: client.service("ALPreferenceManager").importPrefFile(path, True))
    assert len(answers) > 300
    leaking = [text for text in answers if "\nAt:\n" in text or "Traceback" in text
               or any(place in text for place in machine)]
    assert leaking == [], leaking[:3]
    assert [text for text in answers if long_name in text and "File name too long" not in text
            and "does not exist" not in text and "no behavior" not in text] == []


# -- the service directory ------------------------------------------------------------------
class _Impostor:
    def getJointNames(self, name):
        return ["owned"]


def _holder(client, name):
    return [info["serviceId"] for info in client.services() if info["name"] == name]


def test_a_client_cannot_take_the_robots_services_away(robot):
    simulated, client = robot
    directory = client.service("ServiceDirectory")
    directory.unregisterService(_holder(client, "ALMotion")[0])
    deadline = time.monotonic() + 2
    while not _holder(client, "ALMotion") and time.monotonic() < deadline:
        time.sleep(0.01)
    assert client.service("ALMotion").getJointNames("Head") == ["HeadYaw", "HeadPitch"]
    # unregistering and registering an impostor at once, again and again: the robot's wins
    impostor = _Impostor()
    for _ in range(20):
        for service_id in _holder(client, "ALMotion"):
            directory.unregisterService(service_id, _async=True)
        try:
            client.registerService("ALMotion", impostor)
        except RuntimeError:
            pass
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        other = qi.Session()
        other.connect(simulated.url)
        try:
            if other.service("ALMotion").getJointNames("Head") == ["HeadYaw", "HeadPitch"]:
                break
        except RuntimeError:
            pass
        finally:
            other.close()
        time.sleep(0.05)
    else:
        pytest.fail("the robot's ALMotion did not come back")
    assert len(_holder(client, "ALMotion")) == 1
    # a client's own service is its own business
    own = client.registerService("MyModule", _Impostor())
    directory.unregisterService(own)
    time.sleep(0.2)
    assert _holder(client, "MyModule") == []


# -- a project that leans on the robot's layout, run by main.py --------------------------------
def _inserted(record: Path) -> dict:
    calls = read_calls(record)
    return {call["args"][0]: call["args"][1] for call in calls
            if call["method"] == "insertData" and call["args"][0].startswith("Test/")}


@pytest.mark.slow  # real processes: left out of make check
def test_a_project_runs_from_where_the_robot_keeps_applications(tmp_path):
    out = tmp_path / "converted"
    convert(layout_project(tmp_path), out)
    record, root = tmp_path / "calls.jsonl", tmp_path / "robot"
    done = subprocess.run([sys.executable, str(out / "behavior_1" / "main.py"), "--robot",
                           "nao", "--record", str(record), "--root", str(root)], env=ENV,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "box error" not in done.stderr
    seen = _inserted(record)
    assert seen["Test/AppName"] == PACKAGE_ID + "/behavior_1"
    assert seen["Test/Absolute"] == "/%s/behavior_1" % PACKAGE_ID
    assert seen["Test/Greeting"] == "hello from lib"  # a Python 2 module of lib/, ported
    assert seen["Test/Lib"] == ["greeting.py"]
    assert seen["Test/Words"] == ["tea", "coffee"]
    assert seen["Test/Recorded"] is True
    assert seen["Test/Resolved"] == [".lastUploadedChoregrapheBehavior/behavior_1",
                                     PACKAGE_ID + "/behavior_1"]
    assert seen["Test/Installed"] == [".lastUploadedChoregrapheBehavior/behavior_1",
                                      PACKAGE_ID + "/behavior_1"]
    played = [call for call in read_calls(record) if call["method"] == "playFile"]
    assert [call.get("error") for call in played] == [None, None]
    apps = root / LAST.lstrip("/")
    assert (apps.parent / PACKAGE_ID / "behavior_1" / "sounds" / "beep.wav").is_file()
    assert os.readlink(apps) == PACKAGE_ID
    assert (root / "home/nao/recordings/microphones/test.wav").is_file()


def test_a_lone_behavior_is_installed_under_a_derived_id(tmp_path):
    (tmp_path / "wave it").mkdir()
    xar = script_behavior(tmp_path / "wave it", "behavior", "pass")
    (tmp_path / "wave it" / "hello.wav").write_bytes(b"RIFF")
    convert(xar, tmp_path / "out")
    files = RobotFiles(tmp_path / "root")
    installed, warnings = install_behavior(files, load_converted(tmp_path / "out"))
    assert warnings == []
    assert installed.name == "wave_it/."  # the behavior is the application's folder
    assert installed.loaded.folder == files.apps / "wave_it"
    assert (files.apps / "wave_it" / "hello.wav").read_bytes() == b"RIFF"
    assert [(app.package_id, app.behaviors) for app in installed_apps(files)] == [
        (".lastUploadedChoregrapheBehavior", ["."]), ("wave_it", ["."])]
    # installed again unchanged: nothing copied
    stamp = (files.apps / "wave_it" / ".naoqi_qicore_installed").stat().st_mtime_ns
    install_behavior(files, load_converted(tmp_path / "out"))
    assert (files.apps / "wave_it" / ".naoqi_qicore_installed").stat().st_mtime_ns == stamp


def test_files_going_away_next_to_a_lone_behavior_are_left_out(tmp_path, monkeypatch):
    """A lone behavior's folder where other programs write (a browser's profile, a
    download folder): what is gone between its listing and its copy, or while its folder
    is read, is not in the folder any more, and the behavior installs without it."""
    import naoqi_qicore.converter.project as project
    import naoqi_qicore.robot.robot_apps as robot_apps
    (tmp_path / "wave it").mkdir()
    xar = script_behavior(tmp_path / "wave it", "behavior", "pass")
    scratch = tmp_path / "wave it" / "profile"
    convert(xar, tmp_path / "out")
    files = RobotFiles(tmp_path / "root")
    real_files, real_walk = robot_apps.project_files, os.walk

    def remake() -> None:
        scratch.mkdir(exist_ok=True)
        for name in ("lock.tmp", "journal.tmp"):
            (scratch / name).write_text("x")

    def listed_then_gone(*arguments):  # listed, then removed before the copy
        found = real_files(*arguments)
        (scratch / "lock.tmp").unlink()
        return found

    def gone_while_read(top, *arguments, **options):  # removed once its folder was listed
        for current, folders, names in real_walk(top, *arguments, **options):
            if current == str(scratch):
                (scratch / "journal.tmp").unlink(missing_ok=True)
            yield current, folders, names
    for round, patch in enumerate(((robot_apps, "project_files", listed_then_gone),
                                   (project.os, "walk", gone_while_read))):
        remake()
        sound = b"RIFF%d" % round  # changed: installed anew
        (tmp_path / "wave it" / "hello.wav").write_bytes(sound)
        with monkeypatch.context() as patched:
            patched.setattr(*patch)
            installed, warnings = install_behavior(files, load_converted(tmp_path / "out"))
        assert warnings == []
        app = files.apps / "wave_it"
        assert (app / "hello.wav").read_bytes() == sound
        present = sorted(path.name for path in scratch.iterdir())
        assert sorted(path.name for path in (app / "profile").iterdir()) == present


def test_a_manifest_id_that_is_no_folder_name_is_not_used(tmp_path):
    for uuid in ("../../etc", ".hidden", "a/b", "", "x" * 200):
        (tmp_path / "manifest.xml").write_text('<package uuid="%s"/>' % uuid)
        assert package_id(tmp_path, "my project!") == "my_project"
    (tmp_path / "manifest.xml").write_text('<package uuid="good-id_2"/>')
    assert package_id(tmp_path, "x") == "good-id_2"



class _RealRobot:
    """A robot session without the simulated robot's NaoqiSimFiles (a NAO or a Pepper)."""

    def service(self, name):
        raise RuntimeError("Cannot find service '%s' in index" % name)


class _ElsewhereSimulated:
    """A simulated robot whose root is not on this machine (another token)."""

    def __init__(self, root):
        self._root = root

    def service(self, name):
        root = self._root

        class Files:
            def root(self):
                return str(root)

            def token(self):
                return "another machine's"
        return Files()


def test_a_real_robots_behaviors_run_from_a_mirror_of_its_layout(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    out = tmp_path / "converted"
    convert(layout_project(tmp_path), out)
    installed, files, _ = install_on_robot(_RealRobot(), "tcp://10.0.0.5:9559",
                                           load_converted(out / "behavior_1"))
    mirror = tmp_path / "cache" / "naoqi_qicore" / "robot_files" / "10.0.0.5_9559"
    assert files.root == mirror
    assert str(installed.loaded.folder).endswith(
        "/home/nao/.local/share/PackageManager/apps/%s/behavior_1" % PACKAGE_ID)
    assert (files.apps / ".lastUploadedChoregrapheBehavior" / "lib" / "greeting.py").is_file()
    # a simulated robot whose root is not this machine's is treated as a real one
    (tmp_path / "sim_root").mkdir()
    (tmp_path / "sim_root" / ".naoqi_sim_root").write_text("this machine's")
    _, files, _ = install_on_robot(_ElsewhereSimulated(tmp_path / "sim_root"),
                                   "tcp://10.0.0.6:9559", load_converted(out / "behavior_1"))
    assert files.root.name == "10.0.0.6_9559"
