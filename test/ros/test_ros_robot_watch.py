"""What the live view shows of the robot, read from a real libqi session of the simulated
robot: joint angles only while watched and at 30 Hz, speech, LEDs, touch, words heard,
posture and Pepper's base and tablet; the tablet's files served from the project only."""
import os
import threading
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest

from naoqi_qicore.ros.robot_watch import RobotWatch, hex_color, intensity, touched_parts
from naoqi_qicore.ros.tablet_files import app_file, project_file

from process_tools import wait_until

qi = pytest.importorskip("qi")


class Watched:
    """A RobotWatch bound to a simulated robot's session, keeping what it hands on."""

    def __init__(self, robot: str) -> None:
        from naoqi_qicore.robot.sim import SimulatedRobot
        self.sim = SimulatedRobot(robot=robot, listen="tcp://127.0.0.1:0").start()
        self.session = qi.Session()
        self.session.connect(self.sim.url)
        self.snapshots: List[Dict[str, Any]] = []
        self.reports: List[str] = []
        self.lock = threading.Lock()
        self.watch = RobotWatch(self._keep, self.reports.append)
        self.watch.bind(self.session)

    def _keep(self, snapshot: Dict[str, Any]) -> None:
        with self.lock:
            self.snapshots.append(snapshot)

    def until(self, predicate, timeout: float = 5.0, what: str = "") -> Dict[str, Any]:
        return wait_until(lambda: predicate(self.watch.snapshot()) and self.watch.snapshot(),
                          timeout, what)

    def seen(self, predicate, timeout: float = 5.0, what: str = "") -> Dict[str, Any]:
        """The first snapshot handed on that satisfies ``predicate`` (a passing state is
        not missed)."""
        def found() -> Any:
            with self.lock:
                return next((s for s in self.snapshots if predicate(s)), None)
        return wait_until(found, timeout, what)

    def close(self) -> None:
        self.watch.close()
        self.session.close()
        self.sim.stop()


@pytest.fixture
def nao() -> Iterator[Watched]:
    watched = Watched("nao")
    yield watched
    watched.close()


@pytest.fixture
def pepper() -> Iterator[Watched]:
    watched = Watched("pepper")
    yield watched
    watched.close()


def getangles_calls(watched: Watched) -> int:
    return sum(1 for call in watched.sim.calls()
               if call["service"] == "ALMotion" and call["method"] == "getAngles")


def test_joint_angles_are_read_only_while_someone_watches(nao) -> None:
    first = nao.watch.snapshot()
    assert first["connected"] and first["robot"] == "nao" and first["joints"] == {}
    time.sleep(0.5)
    assert getangles_calls(nao) == 0  # nobody watches: the robot is not asked
    motion = nao.session.service("ALMotion")
    motion.pCall("angleInterpolation", "HeadYaw", [1.0, -1.0], [1.5, 3.0], True)
    with nao.watch.watched():
        start = len(nao.snapshots)
        time.sleep(2.0)
        readings = [s["joints"]["HeadYaw"] for s in nao.snapshots[start:] if s["joints"]]
    # read all along as the head moves: 60 readings in 2 s at 30 Hz, of which a loaded
    # machine holds some back (bench/bench_live_view.py measures the rate kept)
    print("%d joint readings in 2 s, %d different" % (len(readings), len(set(readings))))
    assert len(readings) >= 20, len(readings)
    assert max(readings) > 0.5 and len(set(readings)) >= 15
    assert set(nao.watch.snapshot()["joints"]) >= {"HeadYaw", "LShoulderPitch", "RHand",
                                                    "LHipYawPitch"}
    calls = getangles_calls(nao)
    time.sleep(0.5)
    assert getangles_calls(nao) <= calls + 1  # nobody watches any more


def test_what_it_says_its_eyes_and_chest_and_where_it_is_touched(nao) -> None:
    with nao.watch.watched():
        nao.until(lambda s: s["leds"]["eyes"] == ["#ffffff", "#ffffff"], 5, "white eyes")
        leds = nao.session.service("ALLeds")
        leds.fadeRGB("FaceLeds", 0xFF0000, 0.0)
        leds.fadeRGB("ChestLeds", 0x00FF00, 0.0)
        nao.until(lambda s: s["leds"] == {"eyes": ["#ff0000", "#ff0000"], "chest": "#00ff00"},
                  5, "red eyes, green chest")
        leds.fadeRGB("RightFaceLeds", 0x0000FF, 0.0)
        nao.until(lambda s: s["leds"]["eyes"] == ["#ff0000", "#0000ff"], 5, "one eye blue")

        tts = nao.session.service("ALTextToSpeech")
        saying = tts.pCall("say", "Hello, I am NAO. Watch me wave!")
        speech = nao.seen(lambda s: s["speech"]["speaking"] and s["speech"]["text"], 5,
                          "speaking")["speech"]
        assert speech["text"] == "Hello, I am NAO. Watch me wave!"
        tts.wait(saying, 0)
        nao.until(lambda s: not s["speech"]["speaking"], 5, "done speaking")

        perception = nao.session.service("NaoqiSimPerception")
        perception.touch("head_front")
        touched = nao.seen(lambda s: s["touched"]["parts"], 5, "a touch")["touched"]
        assert touched["parts"] == touched["last"] == ["Head/Touch/Front"]
        assert time.time() - touched["at"] < 5
        nao.until(lambda s: s["touched"]["parts"] == [], 5, "the touch released")
        assert nao.watch.snapshot()["touched"]["last"] == ["Head/Touch/Front"]

        asr = nao.session.service("ALSpeechRecognition")
        asr.setVocabulary(["yes", "no"], False)
        asr.subscribe("test")
        perception.hear("yes")
        assert nao.seen(lambda s: s["heard"]["text"], 5, "heard")["heard"]["text"] == "yes"
        asr.unsubscribe("test")

        posture = nao.session.service("ALRobotPosture")
        posture.goToPosture("Sit", 1.0)
        facts = nao.until(lambda s: s["posture"] == "Sitting", 10, "sitting")
        assert facts["awake"] is True and facts["moving"] is False
        assert facts["tablet"] is None  # NAO has none


def test_pepper_moving_on_its_base_and_its_tablet(pepper) -> None:
    assert pepper.watch.snapshot()["robot"] == "pepper"
    with pepper.watch.watched():
        motion = pepper.session.service("ALMotion")
        motion.move(0.3, 0.0, 0.0)
        moving = pepper.seen(lambda s: s["moving"] and s["position"][0] > 0.05, 5,
                             "the base moving forward")
        assert moving["position"][1] == pytest.approx(0.0, abs=0.01)
        motion.stopMove()
        pepper.until(lambda s: not s["moving"], 5, "the base stopped")
        html = pepper.sim.files.apps / "my-app" / "html"  # what the robot serves its tablet
        html.mkdir(parents=True)
        (html / "hello.png").write_bytes(b"\x89PNG\r\n\x1a\n")
        (html / "index.html").write_text("<p>hello</p>")
        tablet = pepper.session.service("ALTabletService")
        assert tablet.showImage("http://198.18.0.1/apps/my-app/hello.png")
        shown = pepper.until(lambda s: s["tablet"]["image"], 5, "an image on the tablet")
        assert shown["tablet"] == {"url": "", "webview": False,
                                   "image": "http://198.18.0.1/apps/my-app/hello.png"}
        tablet.showWebview("http://198.18.0.1/apps/my-app/index.html")
        pepper.until(lambda s: s["tablet"]["webview"] and s["tablet"]["url"].endswith(
            "index.html"), 5, "a page on the tablet")
        assert pepper.watch.snapshot()["leds"]["eyes"] == ["#ffffff", "#ffffff"]


def test_a_lost_robot_is_said_and_nothing_is_read_until_it_is_back(nao) -> None:
    with nao.watch.watched():
        nao.until(lambda s: s["joints"], 5, "the joints read")
        nao.watch.forget()
        assert not nao.watch.snapshot()["connected"]
        calls = getangles_calls(nao)
        time.sleep(0.5)
        assert getangles_calls(nao) <= calls + 1
        nao.watch.bind(nao.session)
        nao.until(lambda s: s["connected"] and s["joints"], 5, "read again")


def test_readings_as_the_page_shows_them() -> None:
    assert intensity(0.5) == 0.5
    assert intensity([["Face/Led/Red/Left/0Deg/Actuator/Value", 1.0], ["x", 0.0]]) == 0.5
    assert intensity([]) == 0.0
    assert hex_color(1.0, 0.5, 0.0) == "#ff8000" and hex_color(2, -1, 0) == "#ff0000"
    assert touched_parts([["Head/Touch/Front", True], ["LArm", False]]) == (
        ["Head/Touch/Front"], ["LArm"])
    assert touched_parts("garbage") == ([], [])


# -- the tablet's files --------------------------------------------------------------------
def test_a_robot_url_names_a_file_of_the_package_html_folder() -> None:
    assert app_file("http://198.18.0.1/apps/my-app/img/hello.png", "my-app") == "img/hello.png"
    assert app_file("http://198.18.0.1/apps/my-app/a%20b.png", "my-app") == "a b.png"
    assert app_file("http://127.0.0.1/apps/my-app/x/../hello.png", "my-app") == "hello.png"
    for url in ("http://198.18.0.1/apps/other-app/hello.png",  # another package
                "http://example.com/apps/my-app/hello.png",  # another site
                "http://198.18.0.1/apps/my-app/../other-app/secret.png",
                "http://198.18.0.1/apps/my-app/%2e%2e/%2e%2e/etc/passwd",
                "http://198.18.0.1/apps/my-app/", "file:///etc/passwd", "not a url"):
        assert app_file(url, "my-app") is None, url
    assert app_file("http://198.18.0.1/apps//hello.png", "") is None


def test_only_the_files_of_the_project_html_folder_are_served(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "html" / "img").mkdir(parents=True)
    (project / "html" / "img" / "hello.png").write_bytes(b"\x89PNG picture")
    (project / "html" / "notes.xyz").write_text("what is it")
    (project / "manifest.xml").write_text("<package/>")
    (tmp_path / "secret.png").write_bytes(b"secret")
    os.symlink(tmp_path / "secret.png", project / "html" / "link.png")
    os.symlink("img/hello.png", project / "html" / "inside.png")
    assert project_file(str(project), "img/hello.png") == (b"\x89PNG picture", "image/png")
    assert project_file(str(project), "inside.png") == (b"\x89PNG picture", "image/png")
    for relative in ("../manifest.xml", "img/../../manifest.xml", "/etc/passwd",
                     "link.png", "img", "missing.png", "notes.xyz",
                     "img\\hello.png", "img/hello.png\x00.txt"):
        with pytest.raises(LookupError):
            project_file(str(project), relative)



def test_a_hard_link_in_the_html_folder_is_not_served(tmp_path: Path) -> None:
    """A hard link in the project's html folder to a file outside: its content lives
    outside the project, it is not served."""
    (tmp_path / "project" / "html").mkdir(parents=True)
    (tmp_path / "secret.png").write_bytes(b"secret")
    os.link(tmp_path / "secret.png", tmp_path / "project" / "html" / "hard.png")
    with pytest.raises(LookupError):
        project_file(str(tmp_path / "project"), "hard.png")
