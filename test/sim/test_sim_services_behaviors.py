"""ALRobotPosture, ALFrameManager and ALBehaviorManager of the simulated robot."""
import os
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from test_sim_services_context import pepper, sim, wait_until  # noqa: E402,F401  (fixtures)

XAR = """<?xml version="1.0" encoding="UTF-8" ?>
<ChoregrapheProject xmlns="http://www.aldebaran-robotics.com/schema/choregraphe/project.xsd"
 xar_version="3"><Box name="root" id="-1"><Timeline enable="1" fps="{fps}" start_frame="1"
 end_frame="-1" size="{size}"><BehaviorLayer name="behavior_layer1">
 <BehaviorKeyframe name="intro" index="1"/><BehaviorKeyframe name="outro" index="{outro}"/>
 </BehaviorLayer><ActuatorList model="nao"><ActuatorCurve name="value" actuator="HeadYaw">
 <Key frame="{size}" value="10"/></ActuatorCurve></ActuatorList></Timeline>
 <Box name="Inner" id="2"><Timeline enable="0"/></Box></Box></ChoregrapheProject>"""


@pytest.fixture
def xar(sim):
    """A behavior of the robot's files: its robot path."""
    path = sim.files.local("/home/nao/dance/behavior.xar").path
    path.parent.mkdir()
    path.write_text(XAR.format(fps=50, size=10, outro=8))
    return "/home/nao/dance/behavior.xar"


# -- ALRobotPosture ----------------------------------------------------------------------------
def test_go_to_posture_moves_the_joints_and_is_recognised(sim):
    posture = sim.service("ALRobotPosture")
    assert posture.getPosture() == "StandZero"  # the fake motion starts at zero
    assert posture.goToPosture("Crouch", 0.5) is True
    assert posture.getPosture() == "Crouch" and posture.getPostureFamily() == "Crouching"
    assert sim.memory.values("PostureChanged")[-1] == "Crouch"
    assert sim.motion.angles["LKneePitch"] > 1.5
    assert posture.applyPosture("StandInit", 1.0) is True
    assert posture.getPostureFamily() == "Standing"


def test_posture_lists_depend_on_the_robot(sim, pepper):
    assert {"Sit", "SitRelax", "LyingBack", "LyingBelly"} <= set(
        sim.service("ALRobotPosture").getPostureList())
    assert pepper.service("ALRobotPosture").getPostureList() == [
        "Crouch", "Stand", "StandInit", "StandZero"]
    assert "Sitting" not in pepper.service("ALRobotPosture").getPostureFamilyList()
    assert pepper.service("ALRobotPosture").goToPosture("Stand", 0.8)
    assert pepper.service("ALRobotPosture").getPosture() == "Stand"


def test_posture_errors_and_stop_move(sim):
    posture = sim.service("ALRobotPosture")
    with pytest.raises(RuntimeError, match="posture 'Dab' is not in the posture list"):
        posture.goToPosture("Dab", 0.5)
    with pytest.raises(RuntimeError, match="maxSpeedFraction must be in"):
        posture.goToPosture("Sit", 2.0)
    posture.setMaxTryNumber(1)
    task = posture.pCall("goToPosture", "Sit", 0.05)
    time.sleep(0.05)
    posture.stopMove()
    assert posture.wait(task, 1000) is False
    assert posture.getPosture() != "Sit"


# -- ALFrameManager ------------------------------------------------------------------------------
def test_frame_manager_reads_the_timeline_and_plays_it(sim, xar):
    frames = sim.service("ALFrameManager")
    behavior = frames.newBehaviorFromFile(xar, "")
    assert frames.getBehaviorPath(behavior) == "/home/nao/dance"
    assert frames.getTimelineFps(behavior) == 50
    assert frames.getMotionLength(behavior) == pytest.approx(0.2)
    started = time.monotonic()
    frames.completeBehavior(behavior)
    assert 0.15 < time.monotonic() - started < 0.6
    assert frames.getCurrentFrame(behavior) == 10
    frames.gotoAndStop(behavior, "outro")
    assert frames.getCurrentFrame(behavior) == 8
    frames.gotoAndStop(behavior, 3)
    time.sleep(0.05)
    assert frames.getCurrentFrame(behavior) == 3
    frames.gotoAndPlay(behavior, "intro")
    assert wait_until(lambda: frames.getCurrentFrame(behavior) > 1)
    frames.setTimelineFps(behavior, 10)
    assert frames.getTimelineFps(behavior) == 10
    frames.exitBehavior(behavior)
    frames.deleteBehavior(behavior)
    with pytest.raises(RuntimeError, match="ALFrameManager::getBehaviorPath: no behavior with"):
        frames.getBehaviorPath(behavior)


def test_frame_manager_errors(sim, xar):
    frames = sim.service("ALFrameManager")
    behavior = frames.newBehaviorFromFile(xar, "Inner")
    assert frames.getMotionLength(behavior) == 0.0
    with pytest.raises(RuntimeError, match="no box named 'Nope'"):
        frames.newBehaviorFromFile(xar, "Nope")
    with pytest.raises(RuntimeError, match="does not exist"):
        frames.newBehaviorFromFile("/home/nao/none.xar", "")
    with pytest.raises(RuntimeError, match="'/etc/hostname' is outside the robot's files"):
        frames.newBehaviorFromFile("/etc/hostname", "")
    root = frames.newBehaviorFromFile(xar, "")
    with pytest.raises(RuntimeError, match="no label 'middle'.*intro, outro"):
        frames.gotoAndPlay(root, "middle")
    with pytest.raises(RuntimeError, match="frame 99 is outside"):
        frames.gotoAndStop(root, 99)
    with pytest.raises(TypeError, match="ALFrameManager::gotoAndStop: argument 2"):
        frames.gotoAndStop(root, 1.5j)
    folder = frames.newBehavior("/data/behaviors/x", "")
    assert frames.getBehaviorPath(folder) == "/data/behaviors/x"


def test_exit_behavior_ends_complete_behavior(sim):
    sim.files.local("/home/nao/long.xar").path.write_text(XAR.format(fps=5, size=100, outro=50))
    frames = sim.service("ALFrameManager")
    behavior = frames.newBehaviorFromFile("long.xar", "")
    task = frames.pCall("completeBehavior", behavior)
    time.sleep(0.05)
    frames.exitBehavior(behavior)
    assert frames.wait(task, 1000) is False


# -- ALBehaviorManager ---------------------------------------------------------------------------
def test_run_start_and_stop_behaviors_with_events(sim, xar):
    manager = sim.service("ALBehaviorManager")
    started = []
    manager.behaviorStarted.connect(started.append)
    assert manager.installBehavior("/home/nao/dance", "dance/behavior_1", False)
    assert not manager.installBehavior("/home/nao/dance", "dance/behavior_1", False)
    with pytest.raises(RuntimeError, match="'/etc' is outside the robot's files"):
        manager.installBehavior("/etc", "etc/behavior_1", True)
    assert sim.memory.values("ALBehaviorManager/BehaviorAdded") == ["dance/behavior_1"]
    assert manager.resolveBehaviorName("dance") == "dance/behavior_1"
    begin = time.monotonic()
    manager.runBehavior("dance")
    assert time.monotonic() - begin > 0.15
    assert wait_until(lambda: started == ["dance/behavior_1"])
    assert sim.memory.getData("BehaviorsRun") == []
    begin = time.monotonic()
    manager.startBehavior("animations/Stand/Gestures/Hey_1")
    assert manager.getRunningBehaviors() == ["animations/Stand/Gestures/Hey_1"]
    assert sim.memory.getData("BehaviorsRun") == ["animations/Stand/Gestures/Hey_1"]
    with pytest.raises(RuntimeError, match="already running"):
        manager.startBehavior("animations/Stand/Gestures/Hey_1")
    manager.stopBehavior("animations/Stand/Gestures/Hey_1")
    assert time.monotonic() - begin < 1.0  # stopped before its 2.8 s
    assert not manager.isBehaviorRunning("animations/Stand/Gestures/Hey_1")
    begin = time.monotonic()
    manager.runBehavior("animations/Stand/Gestures/Hey_3")  # runs for its duration
    assert 2.1 < time.monotonic() - begin < 3.0


def test_behavior_queries_and_errors(sim):
    manager = sim.service("ALBehaviorManager")
    assert "animations/Stand/Gestures/Hey_1" in manager.getInstalledBehaviors()
    assert manager.getBehaviorsByTag("hi") == ["animations/Sit/Gestures/Hey_1",
                                                "animations/Stand/Gestures/Hey_1"]
    assert "animations/Stand/Gestures/BowShort_1" in manager.getBehaviorsByTag("hello")
    assert "happy" in manager.getTagList()
    assert manager.getBehaviorNature("dialog_applauncher") == "solitary"
    with pytest.raises(RuntimeError, match="'animations/Stand' is ambiguous"):
        manager.resolveBehaviorName("animations/Stand")
    with pytest.raises(RuntimeError, match="behavior 'ghost' is not installed"):
        manager.runBehavior("ghost")
    with pytest.raises(RuntimeError, match="is not running"):
        manager.stopBehavior("animations/Stand/Gestures/Hey_1")
    assert manager.preloadBehavior("animations/Sit/Gestures/Hey_1")
    assert manager.isBehaviorLoaded("animations/Sit/Gestures/Hey_1")
    manager.addDefaultBehavior("dialog_applauncher")
    assert manager.getDefaultBehaviors() == ["dialog_applauncher/."]
    assert manager.removeBehavior("animations/Sit/Gestures/Hey_1")
    assert not manager.isBehaviorInstalled("animations/Sit/Gestures/Hey_1")


def test_package_manager_knows_the_installed_applications(sim):
    packages = sim.service("PackageManager")
    assert not packages.hasPackage("greeter")
    (sim.files.apps / "greeter").mkdir(parents=True, exist_ok=True)
    assert packages.hasPackage("greeter")
    assert not any(packages.hasPackage(name) for name in ("greet", "", ".", "../apps/greeter"))
    (sim.files.apps / "elsewhere").symlink_to(sim.files.apps / "greeter")
    assert not packages.hasPackage("elsewhere")
