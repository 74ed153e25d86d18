"""naoqi_bridge's /tf and /tf_static, from real processes (simulated robot, bridge, runner
playing examples/wave_hello), read as a TF listener reads them: each frame placed by
chaining the transforms received from the frame asked for up to the root, then compared
with the robot model's forward kinematics at the joint angles of the same instant."""
import math
from pathlib import Path
from typing import Dict, List, Tuple

import numpy as np
import pytest

pytest.importorskip("naoqi_qicore.robot.sim.cli", reason="needs the simulated robot")
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from tf2_msgs.msg import TFMessage  # noqa: E402

from naoqi_qicore.msg import BehaviorState, RobotConnection  # noqa: E402
from naoqi_qicore.robot.model import forward_kinematics, robot_model  # noqa: E402
from naoqi_qicore.srv import Play  # noqa: E402

CM = 0.01
#: tf2_ros's QoS of /tf and /tf_static, as a TF listener subscribes
TF_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                    durability=DurabilityPolicy.VOLATILE)
TF_STATIC_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                           durability=DurabilityPolicy.TRANSIENT_LOCAL)
Stamp = Tuple[int, int]


def listen(probe, topic: str, qos: QoSProfile) -> List[TFMessage]:
    received: List[TFMessage] = []
    probe.node.create_subscription(TFMessage, topic, received.append, qos)
    return received


def matrix(transform) -> np.ndarray:
    """The 4x4 matrix of a geometry_msgs/Transform (unit quaternion, then translation)."""
    q, t = transform.rotation, transform.translation
    x, y, z, w = q.x, q.y, q.z, q.w
    assert x * x + y * y + z * z + w * w == pytest.approx(1.0, abs=1e-6)
    result = np.eye(4)
    result[:3, :3] = [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                      [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                      [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
    result[:3, 3] = [t.x, t.y, t.z]
    return result


def stamp_of(message) -> Stamp:
    return message.header.stamp.sec, message.header.stamp.nanosec


class Listener:
    """What a TF buffer holds: the static transforms, and the dynamic ones by stamp."""

    def __init__(self, static: List[TFMessage], dynamic: List[TFMessage]) -> None:
        self.static: Dict[str, Tuple[str, np.ndarray]] = {}
        for message in static:
            for transform in message.transforms:
                self.static[transform.child_frame_id] = (transform.header.frame_id,
                                                         matrix(transform.transform))
        self.at: Dict[Stamp, Dict[str, Tuple[str, np.ndarray]]] = {}
        for message in dynamic:
            for transform in message.transforms:
                self.at.setdefault(stamp_of(transform), {})[transform.child_frame_id] = (
                    transform.header.frame_id, matrix(transform.transform))

    def lookup(self, target: str, source: str, stamp: Stamp) -> np.ndarray:
        """The pose of frame ``source`` in frame ``target`` at ``stamp`` (``target`` must
        be one of ``source``'s ancestors)."""
        frames = dict(self.static, **self.at[stamp])
        pose, frame = np.eye(4), source
        while frame != target:
            assert frame in frames, "no transform to %s (from %s)" % (frame, source)
            parent, placed = frames[frame]
            pose, frame = placed @ pose, parent
        return pose


def test_a_tf_listener_places_the_hands_and_head_as_the_robot_model_while_wave_hello_plays(
        programs, probe, example_behavior, tmp_path: Path) -> None:
    static = listen(probe, "/tf_static", TF_STATIC_QOS)
    dynamic = listen(probe, "/tf", TF_QOS)
    joint_states = probe.listen(JointState, "joint_states", latched=False)
    states = probe.listen(BehaviorState, "behavior/state")
    robot = programs("sim")
    programs("bridge", "-p", "robot_url:=" + robot.url)
    programs("runner", "-p", "robot_url:=" + robot.url, "-p", "behavior:=" + str(example_behavior),
             "-p", "cache_dir:=" + str(tmp_path / "cache"))
    probe.wait_until(lambda: states and states[-1].status == BehaviorState.LOADED, 60, "LOADED")
    probe.wait_until(lambda: static and dynamic, 30, "/tf_static and /tf")
    assert probe.call(Play, "behavior/play").success
    probe.wait_until(lambda: states[-1].status == BehaviorState.FINISHED, 30, "FINISHED")

    played = [s for s in states if s.status in (BehaviorState.PLAYING, BehaviorState.FINISHED)]
    start, end = stamp_of(played[0]), stamp_of(played[-1])
    during = [m for m in list(joint_states) if start <= stamp_of(m) <= end]
    assert len(during) > 50
    # a reading's transforms are published right after its joint state: the last ones may
    # still be on their way (a loaded machine)
    wanted = {stamp_of(m) for m in during}
    probe.wait_until(lambda: wanted <= {stamp_of(t) for m in list(dynamic)
                                        for t in m.transforms}, 10,
                     "the transforms of every joint state")
    listener = Listener(list(static), list(dynamic))
    model = robot_model("nao")
    hand_positions = []
    for message in during:
        stamp = stamp_of(message)
        assert stamp in listener.at, "a joint state without its transforms"
        expected = forward_kinematics(model, dict(zip(message.name, message.position)))
        for link in ("r_gripper", "l_gripper", "Head"):
            pose = listener.lookup("base_link", link, stamp)
            assert np.linalg.norm(pose[:3, 3] - expected[link].position) < CM, link
            assert np.allclose(pose[:3, :3], expected[link].rotation, atol=0.01), link
        hand_positions.append(listener.lookup("base_link", "r_gripper", stamp)[:3, 3])
        # odom -> base_link: the robot stands on its feet in the odometry frame
        for sole in ("l_sole", "r_sole"):
            assert abs(listener.lookup("odom", sole, stamp)[2, 3]) < CM, sole
    travel = max(np.linalg.norm(p - hand_positions[0]) for p in hand_positions)
    print("the right hand moved up to %.1f cm from where it started" % (travel * 100))
    assert travel > 0.05  # the wave: the transforms follow the arm
    # every link of the URDF is a frame of the tree
    frames = set(listener.static) | set(listener.at[stamp_of(during[-1])])
    assert frames | {"odom"} == set(model.links) | {"odom"}


def test_publish_tf_false_leaves_the_links_to_robot_state_publisher(programs, probe) -> None:
    """Only odom -> base_link (robot_state_publisher does not publish it), under the frame
    prefix given."""
    static = listen(probe, "/tf_static", TF_STATIC_QOS)
    dynamic = listen(probe, "/tf", TF_QOS)
    connection = probe.listen(RobotConnection, "robot/connection")
    robot = programs("sim", "--robot", "pepper")
    programs("bridge", "-p", "robot_url:=" + robot.url, "-p", "publish_tf:=false",
             "-p", "frame_prefix:=pepper1/")
    probe.wait_until(lambda: connection and connection[-1].state == RobotConnection.CONNECTED,
                     30, "bridge connected")
    probe.wait_until(lambda: len(dynamic) > 10, 30, "/tf")
    assert static == [] and probe.node.count_publishers("/tf_static") == 0
    transforms = [t for message in dynamic for t in message.transforms]
    assert {(t.header.frame_id, t.child_frame_id) for t in transforms} == {
        ("pepper1/odom", "pepper1/base_link")}
    # Pepper's torso stands above its base: 139 + 79 + 268 + 334 mm at the zero pose,
    # lower with its hip and knee bent at rest or standing
    height = transforms[-1].transform.translation.z
    assert 0.6 < height < 0.83 and not math.isnan(height)
