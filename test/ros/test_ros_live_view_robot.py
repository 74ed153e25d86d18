"""The robot in the live view, in a real browser with the real runner and simulated robot:
NAO drawn in 3D moving as the robot reports its joints (wave_hello's arm), what it says in
a bubble, its eyes following an LEDs box, Pepper's tablet showing an image of the project,
what it heard and where it was touched; the figure and event stream served by the view."""
import io
import json
import time
from typing import Any, Dict, List, Tuple

import pytest

from naoqi_qicore.ros import live_view
from naoqi_qicore.ros.launcher import free_tcp_port
from naoqi_qicore.ros.live_view import LiveView
from naoqi_qicore.ros.robot_figure import robot_figure

from live_view_client import EventReader, request, start_runner
from process_tools import wait_until
from view_behaviors import TABLET_COLOR, eyes_behavior, tablet_project

Image = pytest.importorskip("PIL.Image")


def test_the_figures_hold_every_joint_and_link_of_both_robots() -> None:
    for robot, eyes, chest in (("nao", True, True), ("pepper", True, False)):
        figure = robot_figure(robot)
        children = [joint["child"] for joint in figure["joints"]]
        placed = {figure["root"]}
        for joint in figure["joints"]:  # each joint after the one placing its parent link
            assert joint["parent"] in placed, joint
            placed.add(joint["child"])
        assert set(figure["shapes"]) <= placed and len(children) == len(set(children))
        moving = {joint["name"] for joint in figure["joints"] if joint["axis"]}
        assert {"HeadYaw", "LShoulderPitch", "RElbowRoll", "LHand"} <= moving
        assert ("KneePitch" in moving) == (robot == "pepper")
        assert (figure["lights"]["eyes"] is not None) == eyes
        assert (figure["lights"]["chest"] is not None) == chest
        json.dumps(figure)


def test_the_view_serves_the_figure_and_the_robot_events_once_connected(monkeypatch,
                                                                        tmp_path) -> None:
    qi = pytest.importorskip("qi")
    from naoqi_qicore.robot.sim import SimulatedRobot
    view = LiveView(0, {name: print for name in live_view.CONTROLS})
    sim = SimulatedRobot(robot="pepper", listen="tcp://127.0.0.1:0").start()
    session = qi.Session()
    try:
        status, _, body = request(view.port, "GET", "/robot/figure")
        assert status == 404 and json.loads(body) == {"error": "no robot known yet"}
        events = EventReader(view.port, "/robot/events", "robot")
        assert events.next()["connected"] is False
        session.connect(sim.url)
        view.watch_robot(session)
        state = events.until(lambda event: event["connected"] and event["joints"], 5,
                             "the joints, read while the stream is open")
        assert state["robot"] == "pepper" and "KneePitch" in state["joints"]
        events.close()
        status, _, body = request(view.port, "GET", "/robot/figure")
        assert status == 200 and json.loads(body) == json.loads(json.dumps(robot_figure("pepper")))
        for path in ("/three/three.module.js", "/three/three.core.js"):
            status, headers, _ = request(view.port, "GET", path)
            assert status == 200 and headers["Content-Type"].startswith("text/javascript")
        page = tmp_path / "page"  # a page installed without npm: the view says why
        page.mkdir()
        monkeypatch.setattr(live_view, "PAGE_DIR", page)
        status, _, body = request(view.port, "GET", "/three/three.module.js")
        assert status == 404 and json.loads(body) == {"error": live_view.THREE_MISSING}
    finally:
        view.close()
        session.close()
        sim.stop()


# -- in a real browser ----------------------------------------------------------------------
def open_view(browser, port: int) -> None:
    """The live view at 1400 x 900 px, once the 3D robot is drawn."""
    browser.set_size(1400, 900)
    browser.send("Page.navigate", url="http://127.0.0.1:%d/" % port)
    browser.wait_for("window.liveView && window.liveView.robot.scene && "
                     "window.liveView.robot.frames > 3", 30, "the 3D robot drawn")


def robot_state(browser) -> Dict[str, Any]:
    return browser.evaluate("window.liveView.robot.state")


def still(browser, seconds: float = 0.6) -> Dict[str, Any]:
    """The robot state once its joints have not moved for ``seconds`` (and drawn so)."""
    def settled() -> Any:
        first = robot_state(browser)["joints"]
        time.sleep(seconds)
        return robot_state(browser)["joints"] == first
    wait_until(settled, 15, "the robot still")
    time.sleep(0.2)  # the drawing reaches the last reading
    return robot_state(browser)


def screen_box(browser, links: List[str]) -> Dict[str, float]:
    return browser.evaluate("window.liveView.robot.scene.screenBox(%s)" % json.dumps(links))


def changed_share(before: Any, after: Any, box: Dict[str, float]) -> float:
    """The share of the pixels of ``box`` (page px) that differ between two screenshots."""
    import numpy
    area = tuple(int(round(box[side])) for side in ("left", "top", "right", "bottom"))
    first = numpy.asarray(before.crop(area), dtype=int)
    second = numpy.asarray(after.crop(area), dtype=int)
    differ = numpy.abs(first - second).sum(axis=2) > 60
    return float(differ.mean()) if differ.size else 0.0


def union(*boxes: Dict[str, float]) -> Dict[str, float]:
    return {"left": min(b["left"] for b in boxes), "top": min(b["top"] for b in boxes),
            "right": max(b["right"] for b in boxes), "bottom": max(b["bottom"] for b in boxes)}


def screenshot(browser) -> Any:
    return Image.open(io.BytesIO(browser.screenshot())).convert("RGB")


@pytest.mark.slow
def test_in_a_browser_nao_waves_and_says_hello(programs, probe, browser, example_behavior,
                                               tmp_path) -> None:
    from std_srvs.srv import Trigger
    from naoqi_qicore.srv import Play
    port = free_tcp_port()
    start_runner(programs, example_behavior, tmp_path, port)
    open_view(browser, port)
    assert browser.evaluate("window.liveView.robot.figure.robot") == "nao"
    assert probe.call(Play, "behavior/play").success
    browser.wait_for("!document.getElementById('speech').hidden", 10, "the speech bubble")
    assert browser.evaluate("document.getElementById('speech').textContent") == \
        "Hello, I am NAO. Watch me wave!"
    assert "root/Say Hello" in browser.evaluate(
        "document.getElementById('active').textContent")  # while Say Hello runs
    assert probe.call(Trigger, "behavior/pause").success  # first moment: the arm down
    first = still(browser)
    first_shot = screenshot(browser)
    first_arm = screen_box(browser, ["RShoulder"])
    legs = screen_box(browser, ["LTibia", "RTibia"])  # the shins and feet: they stay

    updates = browser.evaluate("window.liveView.robot.updates")
    assert probe.call(Trigger, "behavior/resume").success
    time.sleep(2.0)  # the arm rising, the hand waving: the page hears from the robot
    received = browser.evaluate("window.liveView.robot.updates") - updates  # 30 times a second
    print("robot updates in the page: %d in 2 s" % received)
    assert received >= 40
    wait_until(lambda: browser.evaluate("window.liveView.diagram.state.frame") >= 45, 10,
               "frame 45: waving")
    assert probe.call(Trigger, "behavior/pause").success  # second moment: the arm up
    second = still(browser)
    second_shot = screenshot(browser)
    second_arm = screen_box(browser, ["RShoulder"])
    assert first["joints"]["RShoulderPitch"] - second["joints"]["RShoulderPitch"] > 1.0

    arm = union(first_arm, second_arm)
    moved, kept = changed_share(first_shot, second_shot, arm), changed_share(
        first_shot, second_shot, legs)
    print("pixels changed: %.0f %% where the right arm is drawn, %.1f %% on the legs"
          % (100 * moved, 100 * kept))
    assert moved > 0.15 and kept < 0.02
    assert probe.call(Trigger, "behavior/stop").success


def eye_pixels(browser) -> List[Tuple[int, int, int]]:
    """The colour drawn at the middle of each eye."""
    shot = screenshot(browser)
    points = browser.evaluate("window.liveView.robot.scene.screenPoints('eyes')")
    return [shot.getpixel((int(x), int(y))) for x, y in points]


def reddish(pixel: Tuple[int, int, int]) -> bool:
    return pixel[0] > 150 and pixel[1] < 90 and pixel[2] < 90


def bluish(pixel: Tuple[int, int, int]) -> bool:
    return pixel[2] > 150 and pixel[0] < 90 and pixel[1] < 90


@pytest.mark.slow
def test_in_a_browser_the_eyes_follow_an_leds_box(programs, probe, browser,
                                                  tmp_path) -> None:
    from naoqi_qicore.srv import Play
    port = free_tcp_port()
    start_runner(programs, eyes_behavior(tmp_path), tmp_path, port)
    open_view(browser, port)
    browser.wait_for("document.getElementById('eye-left').dataset.color === '#ffffff'", 10,
                     "white eyes before the run")
    assert probe.call(Play, "behavior/play").success
    swatches = ("[document.getElementById('eye-left').dataset.color, "
                "document.getElementById('eye-right').dataset.color, "
                "document.getElementById('active').textContent]")
    left, right, active = browser.wait_for(
        "(%s)[0] === '#ff0000' && %s" % (swatches, swatches), 10, "red eyes")
    assert right == "#ff0000" and "root/Red Eyes" in active
    time.sleep(0.3)  # drawn
    assert all(reddish(pixel) for pixel in eye_pixels(browser)), eye_pixels(browser)
    left, right, active = browser.wait_for(
        "(%s)[0] === '#0000ff' && %s" % (swatches, swatches), 10, "blue eyes")
    assert right == "#0000ff" and "root/Blue Eyes" in active
    time.sleep(0.3)
    assert all(bluish(pixel) for pixel in eye_pixels(browser)), eye_pixels(browser)
    assert browser.evaluate("document.getElementById('tablet').hidden")  # NAO: no tablet


@pytest.mark.slow
def test_in_a_browser_pepper_shows_the_image_of_its_project_on_its_tablet(
        programs, probe, browser, tmp_path) -> None:
    from naoqi_qicore.srv import Play
    scenario = tmp_path / "listen.yaml"
    scenario.write_text("steps:\n  - on_call: ALSpeechRecognition.subscribe\n    hear: 'yes'\n"
                        "  - touch: head_front\n")
    robot = programs("sim", "--robot", "pepper", "--scenario", str(scenario))
    port = free_tcp_port()
    start_runner(programs, tablet_project(tmp_path), tmp_path, port,
                 "-p", "robot_url:=" + robot.url)
    open_view(browser, port)
    assert browser.evaluate("window.liveView.robot.figure.robot") == "pepper"
    assert not browser.evaluate("document.getElementById('tablet').hidden")
    assert probe.call(Play, "behavior/play").success
    browser.wait_for("document.getElementById('tablet-image').complete && "
                     "document.getElementById('tablet-image').naturalWidth === 64 && "
                     "!document.getElementById('tablet-image').hidden", 10,
                     "the project's image on the tablet")
    assert browser.evaluate("document.getElementById('tablet-image').getAttribute('src')") == \
        "/tablet/hello.png"
    caption = browser.evaluate("document.getElementById('tablet-caption').textContent")
    assert caption.startswith("tablet: http://198.18.0.1/apps/") and caption.endswith(
        "/hello.png")
    image = browser.evaluate("(() => { const r = document.getElementById('tablet-image')"
                             ".getBoundingClientRect(); return [r.x + r.width / 2, "
                             "r.y + r.height / 2]; })()")
    assert screenshot(browser).getpixel((int(image[0]), int(image[1]))) == TABLET_COLOR
    browser.wait_for("!document.getElementById('heard').hidden", 15, "the words heard")
    assert browser.evaluate("document.getElementById('heard').textContent") == "heard: yes"
    browser.wait_for("document.getElementById('touched').textContent === 'Head/Touch/Front'",
                     10, "the touch on the head")
    status, headers, body = request(port, "GET", "/tablet/hello.png")
    assert status == 200 and headers["Content-Type"] == "image/png"
    assert "sandbox" in headers["Content-Security-Policy"]
    for path in ("/tablet/../manifest.xml", "/tablet/%2e%2e/manifest.xml",
                 "/tablet/..%2fmanifest.xml", "/tablet/%2fetc%2fpasswd",
                 "/tablet/behavior_1/behavior.xar"):
        assert request(port, "GET", path)[0] == 404, path
