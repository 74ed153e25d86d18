"""Talking to the simulated robot from ROS: naoqi_bridge's robot/sim/* topics, and
run_behavior's --scenario."""
import signal
import subprocess
import sys
import time

import pytest

pytest.importorskip("naoqi_qicore.robot.sim.cli", reason="needs the simulated robot")
qi = pytest.importorskip("qi")
from std_msgs.msg import String  # noqa: E402

from naoqi_qicore.msg import RobotConnection  # noqa: E402
from process_tools import kill_processes  # noqa: E402
from naoqi_qicore.ros.launcher import parse_arguments, python_program  # noqa: E402
from naoqi_qicore.ros.qos import COMMANDS  # noqa: E402


def connected_bridge(programs, probe, url: str):
    bridge = programs("bridge", "-p", "robot_url:=" + url)
    connection = probe.listen(RobotConnection, "robot/connection")
    probe.wait_until(lambda: connection and connection[-1].state == RobotConnection.CONNECTED,
                     30, "bridge connected")
    return bridge


class SimTopics:
    """The test's publishers on robot/sim/*, once the bridge listens to them."""

    def __init__(self, probe) -> None:
        self.publishers = {name: probe.node.create_publisher(String, "robot/sim/" + name,
                                                             COMMANDS)
                           for name in ("hear", "touch", "face", "tablet")}
        for name, publisher in self.publishers.items():
            probe.wait_until(lambda publisher=publisher: publisher.get_subscription_count() > 0,
                             10, "bridge subscribed to robot/sim/" + name)

    def send(self, name: str, text: str) -> None:
        self.publishers[name].publish(String(data=text))


def test_the_hear_touch_face_and_tablet_topics_reach_the_simulated_robot(programs, probe):
    robot = programs("sim")
    bridge = connected_bridge(programs, probe, robot.url)
    session = qi.Session()
    session.connect(robot.url)
    try:
        memory = session.service("ALMemory")
        asr = session.service("ALSpeechRecognition")
        asr.setVocabulary(["yes", "no"], False)
        asr.subscribe("Test")
        session.service("ALFaceDetection").subscribe("Test")
        topics = SimTopics(probe)
        topics.send("hear", "yes")
        probe.wait_until(lambda: _value(memory, "WordRecognized") == ["yes", 0.75], 15,
                         "WordRecognized from robot/sim/hear")
        topics.send("touch", "head")
        probe.wait_until(lambda: _value(memory, "FrontTactilTouched") == 0.0, 15,
                         "the head touched and released")
        topics.send("face", "Ada")
        probe.wait_until(lambda: _value(memory, "FaceDetected"), 15, "FaceDetected")
        topics.send("face", "")
        probe.wait_until(lambda: _value(memory, "FaceDetected") == [], 15, "the face gone")
        topics.send("tablet", '{"myapp/clicked": {"button": 2}}')
        probe.wait_until(lambda: _value(memory, "myapp/clicked") == {"button": 2}, 15,
                         "the tablet page's event")
        topics.send("tablet", "10 20")  # NAO: no tablet, said in the log
        probe.wait_until(lambda: "robot/sim/tablet tap at (10, 20): " in bridge.output()
                         and "NAO has no tablet" in bridge.output(), 15, "the tablet error")
        assert "robot/sim/hear 'yes': ALSpeechRecognition recognised 'yes'" in bridge.output()
        assert robot.calls("ALSpeechRecognition", "subscribe")  # the client's, recorded
        assert robot.calls("NaoqiSimPerception") == []  # the simulator's own: not recorded
    finally:
        session.close()


def _value(memory, key):
    try:
        return memory.getData(key)
    except RuntimeError:
        return None


def test_the_topics_say_once_that_they_need_a_simulated_robot(programs, probe):
    """On a robot without NaoqiSimPerception (a real one) the topics do nothing and the
    bridge says why, once."""
    from naoqi_qicore.robot.sim import SimulatedRobot
    robot = SimulatedRobot(robot="nao", listen="tcp://127.0.0.1:0").start()
    try:
        robot.withdraw_service("NaoqiSimPerception")  # a real robot has none
        bridge = connected_bridge(programs, probe, robot.url)
        topics = SimTopics(probe)
        topics.send("hear", "yes")
        topics.send("touch", "head")
        probe.wait_until(lambda: "robot/sim/* topics only work on a simulated robot" in
                         bridge.output(), 15, "the bridge's warning")
        topics.send("hear", "again")
        time.sleep(1.0)  # what the bridge does with it
        assert bridge.output().count("only work on a simulated robot") == 1
        assert bridge.alive()
    finally:
        robot.stop()  # (the bridge, started by the fixture, is stopped by it)


def test_run_behavior_passes_the_scenario_to_the_simulated_robot(tmp_path):
    scenario = tmp_path / "talk.yaml"
    scenario.write_text("- after_say: hello\n  hear: hi\n")
    plan = parse_arguments(["b.xar", "--scenario", str(scenario)])
    command = plan.simulator_command("tcp://127.0.0.1:1234", "nao")
    assert command[command.index("--scenario") + 1] == str(scenario)
    generic = parse_arguments(["b.xar", "--scenario", "generic"])
    assert generic.simulator_command("tcp://127.0.0.1:1234", "pepper")[-2:] == [
        "--scenario", "generic"]
    assert "--scenario" not in parse_arguments(["b.xar"]).simulator_command("tcp://h:1", "nao")
    scenario.write_text("- after_say: hello\n  heer: hi\n")
    with pytest.raises(SystemExit) as exited:
        parse_arguments(["b.xar", "--scenario", str(scenario)])
    assert exited.value.code == 2
    with pytest.raises(SystemExit):
        parse_arguments(["b.xar", "--scenario", "generic", "--robot-url", "tcp://10.0.0.5"])




def test_run_behavior_with_a_scenario_plays_a_waiting_behavior_to_its_end(tmp_path, repo_root):
    psutil = pytest.importorskip("psutil")
    from script_behaviors import WAITS_FOR_YES, script_behavior
    behavior = script_behavior(tmp_path, "ask", WAITS_FOR_YES)
    scenario = tmp_path / "answers.yaml"
    scenario.write_text("- after_say: go on\n  hear: no\n- after_say: go on\n  hear: yes\n")
    launcher = subprocess.Popen(
        python_program("naoqi_qicore.ros.launcher", str(behavior), "--autoplay", "--robot",
                       "nao", "--scenario", str(scenario), "--log-level", "warn"),
        cwd=str(repo_root), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    children = []
    try:
        for line in launcher.stdout:
            lines.append(line.rstrip("\n"))
            if line.startswith("run_behavior: result "):
                break
        children = psutil.Process(launcher.pid).children(recursive=True)
        assert lines and lines[-1].startswith("run_behavior: result FINISHED"), "\n".join(lines)
        assert any(line.startswith("naoqi_sim: step 2 (after_say 'go on'): hear 'yes' -> "
                                   "ALSpeechRecognition recognised 'yes'") for line in lines)
        launcher.send_signal(signal.SIGINT)
        assert launcher.wait(30) == 0
    finally:
        kill_processes([launcher] + children)
        launcher.wait()
        sys.stdout.write("\n".join(lines))
