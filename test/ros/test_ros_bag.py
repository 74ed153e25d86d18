"""``run_behavior --bag FILE.mcap``: the run recorded as rosbag2 records it, read back with
the MCAP libraries (the reader, and mcap-ros2-support's decoder, which parses the schemas
written in the file to decode the CDR messages)."""
import json
import subprocess
from pathlib import Path

import pytest
import yaml

pytest.importorskip("naoqi_qicore.robot.sim.cli", reason="needs the simulated robot")
psutil = pytest.importorskip("psutil")
from mcap.reader import make_reader  # noqa: E402
from mcap_ros2.decoder import DecoderFactory  # noqa: E402

from naoqi_qicore.robot.sim.joints import JointTable  # noqa: E402
from naoqi_qicore.robot.sim.recorder import read_calls  # noqa: E402
from naoqi_qicore.ros.bag_recorder import message_definition  # noqa: E402
from naoqi_qicore.ros.launcher import parse_arguments, python_program  # noqa: E402
from process_tools import AutoplayLauncher  # noqa: E402

FINISHED, PLAYING = 5, 2


def test_the_run_recorded_as_mcap(example_behavior, repo_root, tmp_path: Path) -> None:
    bag, record = tmp_path / "run.mcap", tmp_path / "calls.jsonl"
    launcher = AutoplayLauncher(example_behavior, repo_root, "--bag", str(bag),
                                 "--record", str(record))
    children = []
    try:
        assert "FINISHED" in launcher.wait_for("run_behavior: result ")
        children = psutil.Process(launcher.process.pid).children(recursive=True)
        assert launcher.interrupt() == 0  # the runner finishes the file as it stops
        assert psutil.wait_procs(children, timeout=10)[1] == []
    finally:
        launcher.close(children)

    with open(bag, "rb") as stream:
        reader = make_reader(stream, decoder_factories=[DecoderFactory()])
        header = reader.get_header()
        summary = reader.get_summary()
        messages = {}
        for schema, channel, message, decoded in reader.iter_decoded_messages(log_time_order=True):
            messages.setdefault(channel.topic, []).append((message, decoded))

    # as rosbag2's MCAP storage writes it
    assert header.profile == "ros2"
    channels = {c.topic: c for c in summary.channels.values()}
    assert {"/joint_states", "/robot_description", "/behavior/state", "/behavior/focus",
            "/robot/speech", "/motion/keyframes", "/motion/status",
            "/robot/connection", "/tf", "/tf_static"} <= set(channels)
    for channel in channels.values():
        schema = summary.schemas[channel.schema_id]
        assert channel.message_encoding == "cdr" and schema.encoding == "ros2msg"
        assert schema.data.decode() == message_definition(schema.name)
        assert yaml.safe_load(channel.metadata["offered_qos_profiles"])
        assert channel.metadata["topic_type_hash"].startswith("RIHS01_")
    assert summary.schemas[channels["/joint_states"].schema_id].name == \
        "sensor_msgs/msg/JointState"
    for topic in ("/robot_description", "/tf_static"):
        latched = yaml.safe_load(channels[topic].metadata["offered_qos_profiles"])
        assert latched[0]["durability"] == 1  # transient local: played back latched
    assert summary.schemas[channels["/tf"].schema_id].name == "tf2_msgs/msg/TFMessage"
    # the message counts of the summary are those in the file
    counts = {topic: len(found) for topic, found in messages.items()}
    assert {channels[t].id: n for t, n in counts.items()} == \
        dict(summary.statistics.channel_message_counts)

    # what was recorded
    assert counts["/robot_description"] == 1
    assert 'robot name="nao"' in messages["/robot_description"][0][1].data
    statuses = [decoded.status for _, decoded in messages["/behavior/state"]]
    assert PLAYING in statuses and statuses[-1] == FINISHED
    assert [d.data for _, d in messages["/robot/speech"]] == [
        "Hello, I am NAO. Watch me wave!", "Goodbye!"]
    assert counts["/motion/keyframes"] >= 1
    assert messages["/behavior/focus"][-1][1].focused_activity != "naoqi_qicore/wave_hello"
    states = messages["/joint_states"]
    times = [message.log_time / 1e9 for message, _ in states]
    print("joint_states: %d messages in %.1f s: %.1f Hz"
          % (len(states), times[-1] - times[0], (len(states) - 1) / (times[-1] - times[0])))
    assert (len(states) - 1) / (times[-1] - times[0]) >= 20.0

    # the joint positions are the angles the robot answered, in the order it answered them
    answers = [c["result"] for c in read_calls(record)
               if c["service"] == "ALMotion" and c["method"] == "getAngles" and "result" in c]
    index = 0
    for _, joint_state in states:
        assert list(joint_state.name) == JointTable("nao").body
        while index < len(answers) and list(joint_state.position) != pytest.approx(
                answers[index], abs=1e-6):
            index += 1
        assert index < len(answers), "a recorded position the robot never answered"
    moved = [p.position[JointTable("nao").body.index("RShoulderPitch")] for _, p in states]
    assert max(moved) - min(moved) > 0.5

    # the transforms: the fixed joints once, then the moving ones with each joint state
    [(_, static)] = messages["/tf_static"]
    assert ("base_link", "torso") in [(t.header.frame_id, t.child_frame_id)
                                      for t in static.transforms]
    stamps = {(s.header.stamp.sec, s.header.stamp.nanosec) for _, s in states}
    transform_stamps = set()
    for _, transforms in messages["/tf"]:
        frames = [(t.header.frame_id, t.child_frame_id) for t in transforms.transforms]
        assert ("odom", "base_link") in frames and ("RElbow", "RForeArm") in frames
        transform_stamps.add((transforms.transforms[0].header.stamp.sec,
                              transforms.transforms[0].header.stamp.nanosec))
    # each joint state has its transforms and the reverse, from when both topics were
    # recorded (each subscription starts when discovery has matched it) until the end
    both = (max(min(stamps), min(transform_stamps)), min(max(stamps), max(transform_stamps)))
    assert both[1] > both[0]

    def within(found: set) -> set:
        return {stamp for stamp in found if both[0] <= stamp <= both[1]}
    assert within(stamps) == within(transform_stamps)


def test_a_recording_never_replaces_a_file(tmp_path: Path, example_behavior) -> None:
    existing = tmp_path / "kept.mcap"
    existing.write_bytes(b"precious")
    with pytest.raises(SystemExit):
        parse_arguments([str(example_behavior), "--bag", str(existing)])
    with pytest.raises(SystemExit):
        parse_arguments([str(example_behavior), "--bag", str(tmp_path / "no" / "run.mcap")])
    plan = parse_arguments([str(example_behavior), "--bag", str(tmp_path / "run.mcap")])
    assert "bag_file:=%s" % json.dumps(str(tmp_path / "run.mcap")) in \
        plan.runner_command("tcp://127.0.0.1:9559")
    # the runner itself refuses it too, before anything runs
    runner = subprocess.run(python_program(
        "naoqi_qicore.ros.behavior_runner", "--ros-args", "-p", "robot_url:=tcp://127.0.0.1:1",
        "-p", "bag_file:=" + str(existing)), capture_output=True, text=True, timeout=60)
    assert runner.returncode == 2
    assert "bag_file: cannot create the bag file %s: File exists" % existing in runner.stderr
    assert existing.read_bytes() == b"precious"


def test_the_first_play_waits_for_a_bridge_connected_to_the_robot(probe, tmp_path: Path) -> None:
    """naoqi_bridge advertises robot/speech as it starts but hears the robot's sentences only
    once connected: a recording must not start the run before the bridge says it is."""
    from naoqi_qicore.msg import RobotConnection
    from naoqi_qicore.ros.bag_recorder import BagRecorder
    from naoqi_qicore.ros.joint_states import JOINT_STATES_QOS
    from naoqi_qicore.ros.qos import COMMANDS, LATCHED
    from sensor_msgs.msg import JointState
    from std_msgs.msg import String

    node = probe.node
    for topic, message_type, qos in (("joint_states", JointState, JOINT_STATES_QOS),
                                     ("robot/speech", String, COMMANDS),
                                     ("robot/heard", String, COMMANDS)):
        node.create_publisher(message_type, topic, qos)
    connection = node.create_publisher(RobotConnection, "robot/connection", LATCHED)
    connection.publish(RobotConnection(state=RobotConnection.CONNECTING))
    recorder = BagRecorder(node, str(tmp_path / "early.mcap"))
    try:
        assert sorted(recorder.wait_for_robot_streams(timeout=1.5)) == [
            "/joint_states", "/robot/heard", "/robot/speech"]
    finally:
        recorder.close()
    connection.publish(RobotConnection(state=RobotConnection.CONNECTED))
    recorder = BagRecorder(node, str(tmp_path / "connected.mcap"))
    try:
        assert recorder.wait_for_robot_streams(timeout=10) == []
    finally:
        recorder.close()
