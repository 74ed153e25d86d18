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

pytestmark = pytest.mark.long_running(minutes=1)


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


def shape_points(shape: Any) -> List[Tuple[Any, float]]:
    """Points of a shape with a radius round each, in its link's frame, holding it."""
    import itertools
    import numpy
    from naoqi_qicore.robot.model.kinematics import rotation_rpy
    centre = numpy.array(shape.xyz)
    if shape.kind == "box":
        turn = rotation_rpy(shape.rpy)
        return [(centre + turn @ (numpy.array(signs) * shape.size / 2), 0.0)
                for signs in itertools.product((-1, 1), repeat=3)]
    if shape.kind == "cylinder":  # its two rims, every 5 degrees
        turn = rotation_rpy(shape.rpy)
        return [(centre + turn @ numpy.array([shape.radius * numpy.cos(angle),
                                              shape.radius * numpy.sin(angle), end]), 0.0)
                for angle in numpy.radians(numpy.arange(0, 360, 5))
                for end in (-shape.length / 2, shape.length / 2)]
    if shape.kind == "capsule":
        return [(centre, shape.radius), (numpy.array(shape.end), shape.radius)]
    return [(centre, shape.radius)]


@pytest.mark.parametrize("robot", ["nao", "pepper"])
def test_the_sphere_the_view_frames_holds_the_robot_in_any_pose(robot) -> None:
    """The camera frames ``reach``: every shape stays inside it, arms raised or any pose
    the joints allow (random ones, and each joint at its limits)."""
    import numpy
    from naoqi_qicore.robot.model import forward_kinematics, robot_model
    from naoqi_qicore.robot.model.body import body_shapes
    reach = robot_figure(robot)["reach"]
    centre, radius = numpy.array(reach["centre"]), reach["radius"]
    model = robot_model(robot)
    limits = {joint.name: joint.limits[:2] for joint in model.moving_joints}
    random = numpy.random.default_rng(7)
    poses = [{name: random.uniform(low, high) for name, (low, high) in limits.items()}
             for _ in range(300)]
    poses += [{name: bounds[side] for name, bounds in limits.items()} for side in (0, 1)]
    raised = {"LShoulderPitch": limits["LShoulderPitch"][0],
              "RShoulderPitch": limits["RShoulderPitch"][0]}
    poses.append(raised)
    shapes = body_shapes(robot)
    farthest = 0.0
    for angles in poses:
        links = forward_kinematics(model, angles)
        for link, link_shapes in shapes.items():
            turn, origin = links[link].rotation, links[link].matrix[:3, 3]
            for shape in link_shapes:
                for point, around in shape_points(shape):
                    distance = numpy.linalg.norm(origin + turn @ point - centre) + around
                    farthest = max(farthest, distance)
                    assert distance <= radius + 1e-9, (robot, link, shape, angles)
    hand = forward_kinematics(model, raised)["l_gripper"]
    assert hand.position[2] > forward_kinematics(model, {})["Head"].position[2]  # raised
    assert farthest > 0.7 * radius  # not a sphere far larger than the robot
    print("%s: reach radius %.3f m, farthest point seen %.3f m" % (robot, radius, farthest))


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


#: the robot drawn in a pose (joint -> angle; null: as drawn now): the page-px box round
#: every vertex drawn, and the canvas's box, for the views given (azimuth, elevation)
DRAWN_IN_POSE = """((pose, views) => {
  const scene = window.liveView.robot.scene;
  for (const mover of pose ? scene.movers : []) {
    const angle = mover.name in pose ? pose[mover.name]
      : mover.mimic && mover.mimic in pose ? pose[mover.mimic] : 0;
    mover.motion.quaternion.setFromAxisAngle(mover.axis, angle);
  }
  scene.scene.updateMatrixWorld(true);
  const rect = scene.canvas.getBoundingClientRect();
  return views.map(([azimuth, elevation]) => {
    scene.setView({azimuth: azimuth, elevation: elevation, zoom: 1});
    scene.camera.updateMatrixWorld();
    return {robot: scene.drawnBox(), canvas: {left: rect.left, top: rect.top,
                                               right: rect.right, bottom: rect.bottom}};
  });
})(%s, %s)"""
#: the directions the robot is looked at from: the first view, front, side, above, below
VIEWS = [(0.6, 0.2), (0.0, 0.0), (1.57, 0.0), (0.0, 1.4), (-2.0, -1.2)]
#: browser windows (px): a large one, and one low enough that the robot's panel scrolls
WINDOWS = [(1400, 900), (1024, 600)]


def margin(drawn: Dict[str, Any]) -> float:
    """How far inside the canvas the robot is drawn at least (px; negative: out of it)."""
    robot, canvas = drawn["robot"], drawn["canvas"]
    return min(robot["left"] - canvas["left"], canvas["right"] - robot["right"],
               robot["top"] - canvas["top"], canvas["bottom"] - robot["bottom"])


#: frames of wave_hello in which its right arm is up (RShoulderPitch at its -60 degree key
#: from frame 30 to 80), with a margin for the motion in flight
ARM_UP_FRAMES = (32, 78)


def pause_with_the_arm_up(probe) -> None:
    """Pause wave_hello while its right arm is up: once the runner says it plays frame 32,
    pause it.  That leaves 2 s for the pause to arrive; when a loaded machine took longer,
    the behavior is played again from its start (three times at most)."""
    from std_srvs.srv import Trigger
    from naoqi_qicore.msg import BehaviorState
    from naoqi_qicore.srv import Play
    states = probe.listen(BehaviorState, "behavior/state")
    for _ in range(3):
        seen = len(states)  # the states of this play, not of one before
        wait_until(lambda: any(state.status == BehaviorState.PLAYING
                               and state.frame >= ARM_UP_FRAMES[0] for state in states[seen:]),
                   15, "frame %d: the arm up" % ARM_UP_FRAMES[0])
        answer = probe.call(Trigger, "behavior/pause")  # refused when it has finished
        if answer.success:
            paused = wait_until(lambda: next((state for state in states[seen:]
                                              if state.status == BehaviorState.PAUSED), None),
                                5, "the behavior paused")
            if paused.frame <= ARM_UP_FRAMES[1]:
                return
            assert probe.call(Trigger, "behavior/stop").success
        print("paused after the arm came down (%s): played again" % answer.message)
        assert probe.call(Play, "behavior/play").success
    pytest.fail("the behavior could not be paused with its arm up in three plays")


@pytest.mark.slow
def test_in_a_browser_nao_waves_and_says_hello(programs, probe, browser, example_behavior,
                                               tmp_path) -> None:
    from std_srvs.srv import Trigger
    from naoqi_qicore.srv import GoTo, Play
    port = free_tcp_port()
    start_runner(programs, example_behavior, tmp_path, port)
    open_view(browser, port)
    assert browser.evaluate("window.liveView.robot.figure.robot") == "nao"
    first = still(browser)  # first moment, before the behavior plays: the arm down
    first_shot = screenshot(browser)
    first_arm = screen_box(browser, ["RShoulder"])
    legs = screen_box(browser, ["LTibia", "RTibia"])  # the shins and feet: they stay
    assert probe.call(Play, "behavior/play").success
    browser.wait_for("!document.getElementById('speech').hidden", 10, "the speech bubble")
    assert browser.evaluate("document.getElementById('speech').textContent") == \
        "Hello, I am NAO. Watch me wave!"
    # while Say Hello runs (the speech comes with the robot's stream, the boxes with the
    # runner's: either may be shown first)
    browser.wait_for("document.getElementById('active').textContent.includes('root/Say Hello')",
                     10, "Say Hello among the active boxes")
    assert "started by /behavior_runner (switchFocus)" in browser.evaluate(
        "document.getElementById('focus-detail').textContent")  # who took the focus

    pause_with_the_arm_up(probe)  # second moment: the arm up
    second = still(browser)
    second_shot = screenshot(browser)
    second_arm = screen_box(browser, ["RShoulder"])
    assert first["joints"]["RShoulderPitch"] - second["joints"]["RShoulderPitch"] > 1.0
    (waving,) = browser.evaluate(DRAWN_IN_POSE % ("null", json.dumps([VIEWS[0]])))
    assert margin(waving) >= 0, waving  # the raised hand in the picture

    arm = union(first_arm, second_arm)
    moved, kept = changed_share(first_shot, second_shot, arm), changed_share(
        first_shot, second_shot, legs)
    print("pixels changed: %.0f %% where the right arm is drawn, %.1f %% on the legs"
          % (100 * moved, 100 * kept))
    # (the robot framed for its full reach, its moving arm covers 16-18 % of that box)
    assert moved > 0.1 and kept < 0.02

    # back to Wave (frame 30): 3.6 s of the behavior still to play, the hand waving
    assert probe.call(GoTo, "behavior/goto", GoTo.Request(label="Wave")).success
    updates = browser.evaluate("window.liveView.robot.updates")
    assert probe.call(Trigger, "behavior/resume").success
    # the page follows the waving hand: over 2 s, the angles of the right arm it was last
    # told of differ from one look to the next (the view sends the robot's joints 30 times
    # a second, as fast as the machine allows: bench/bench_live_view.py measures the rate)
    arms = []
    for _ in range(8):
        time.sleep(0.25)
        joints = robot_state(browser)["joints"]
        arms.append(tuple(joints[name] for name in sorted(joints) if name.startswith("R")
                          and ("Shoulder" in name or "Elbow" in name)))
    received = browser.evaluate("window.liveView.robot.updates") - updates
    print("robot updates in the page: %d in 2 s; %d different right arm poses seen in 8 "
          "looks" % (received, len(set(arms))))
    assert len(set(arms)) >= 4 and received >= len(set(arms))


@pytest.mark.slow
@pytest.mark.parametrize("robot", ["nao", "pepper"])
def test_in_a_browser_the_whole_robot_stays_in_view_arms_raised_too(
        programs, browser, example_behavior, tmp_path, robot) -> None:
    """NAO's waving hand left the picture: the camera framed the robot as it stands.  In
    every pose its joints allow (arms raised, stretched out, random ones) and from every
    side, each vertex drawn is inside the canvas."""
    import numpy
    from naoqi_qicore.robot.model import robot_model
    simulator = programs("sim", "--robot", robot)
    port = free_tcp_port()
    start_runner(programs, example_behavior, tmp_path, port, "-p",
                 "robot_url:=" + simulator.url)
    open_view(browser, port)
    assert browser.evaluate("window.liveView.robot.figure.robot") == robot
    limits = {joint.name: joint.limits[:2] for joint in robot_model(robot).moving_joints}
    raised = {"LShoulderPitch": limits["LShoulderPitch"][0],
              "RShoulderPitch": limits["RShoulderPitch"][0]}
    spread = dict(raised, LShoulderRoll=limits["LShoulderRoll"][1],
                  RShoulderRoll=limits["RShoulderRoll"][0])
    random = numpy.random.default_rng(3)
    poses = [raised, spread] + [{name: float(random.uniform(low, high)) for name, (low, high)
                                 in limits.items()} for _ in range(30)]
    margins = []
    for window in WINDOWS:
        browser.set_size(*window)
        browser.wait_for("window.liveView.robot.scene.camera.aspect === "
                         "window.liveView.robot.scene.canvas.clientWidth / "
                         "window.liveView.robot.scene.canvas.clientHeight", 5, "the canvas resized")
        for pose in poses:
            for view, drawn in zip(VIEWS, browser.evaluate(DRAWN_IN_POSE % (
                    json.dumps(pose), json.dumps(VIEWS)))):
                margins.append((margin(drawn), window, view, pose))
    least, window, view, pose = min(margins, key=lambda item: item[0])
    print("%s: %.0f px between the robot and the canvas's edge at least (window %s, view %s)"
          % (robot, least, window, view))
    assert least >= 0, (window, view, pose)
    # the robot is not lost in the picture either: standing, seen from the front, it is
    # more than half the canvas high
    (front,) = browser.evaluate(DRAWN_IN_POSE % ("{}", json.dumps([[0.0, 0.0]])))
    height = front["robot"]["bottom"] - front["robot"]["top"]
    assert height > 0.5 * (front["canvas"]["bottom"] - front["canvas"]["top"]), front


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
