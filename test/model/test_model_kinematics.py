"""NAO's and Pepper's kinematics and URDF, checked against the robots' published figures.

Expected positions are worked out here from the figures themselves (NAOqi documentation's
Links tables for NAO H25 V4/V5/V6, the robot's own description for Pepper), not from the
module's constants.  The URDF is parsed back with a standard XML parser and its joints are
chained by the test's own transform code.
"""
import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from naoqi_qicore.robot.model import forward_kinematics, robot_description, robot_model
from naoqi_qicore.robot.model.body import body_shapes
from naoqi_qicore.robot.sim.joints import JointTable

CM = 0.01  # the tolerance asked of the hand positions

# NAO H25 V4/V5/V6 Links table (mm)
SHOULDER = np.array([0.0, 98.0, 100.0])
ELBOW = np.array([105.0, 15.0, 0.0])          # UpperArmLength, ElbowOffsetY
WRIST = np.array([55.95, 0.0, 0.0])           # LowerArmLength
HAND = np.array([57.75, 0.0, -12.31])         # HandOffsetX, -HandOffsetZ (LArm effector)
HIP = np.array([0.0, 50.0, -85.0])
THIGH, TIBIA, FOOT_HEIGHT = 100.0, 102.9, 45.19


def mm(vector) -> np.ndarray:
    return np.asarray(vector, dtype=float) / 1000.0


def position(robot: str, link: str, **angles: float) -> np.ndarray:
    return np.array(forward_kinematics(robot_model(robot), angles)[link].position)


def test_nao_arms_stretched_forward_put_the_hands_in_front_of_the_shoulders():
    # ShoulderPitch 0, elbow straight: the arm points forward along X
    expected = mm(SHOULDER + ELBOW + WRIST + HAND)          # (218.70, 113.00, 87.69) mm
    assert np.allclose(position("nao", "l_gripper"), expected, atol=CM)
    mirrored = expected * [1, -1, 1]
    assert np.allclose(position("nao", "r_gripper"), mirrored, atol=CM)
    assert position("nao", "l_gripper")[0] == pytest.approx(0.2187, abs=1e-4)


def test_nao_arm_down_at_shoulder_pitch_90_degrees():
    # positive ShoulderPitch turns the arm down: the arm's X becomes -Z
    arm = ELBOW + WRIST + HAND                              # (218.70, 15.00, -12.31)
    expected = mm(SHOULDER + [arm[2], arm[1], -arm[0]])     # (-12.31, 113, -118.70)
    assert np.allclose(position("nao", "l_gripper", LShoulderPitch=math.pi / 2), expected,
                       atol=CM)
    assert position("nao", "l_gripper", LShoulderPitch=math.pi / 2)[2] < 0  # below the torso


def test_nao_arm_opened_sideways_at_shoulder_roll_90_degrees():
    arm = ELBOW + WRIST + HAND
    expected = mm(SHOULDER + [-arm[1], arm[0], arm[2]])     # the arm points left (+Y)
    assert np.allclose(position("nao", "l_gripper", LShoulderRoll=math.pi / 2), expected,
                       atol=CM)


def test_nao_elbow_bent_brings_the_forearm_across_the_body():
    # LElbowRoll -90 degrees: the forearm turns about Z towards the middle (-Y)
    forearm = WRIST + HAND
    expected = mm(SHOULDER + ELBOW + [forearm[1], -forearm[0], forearm[2]])
    assert np.allclose(position("nao", "l_gripper", LElbowRoll=-math.pi / 2), expected,
                       atol=CM)


def test_nao_legs_straight_and_knee_bent():
    sole = mm(HIP + [0, 0, -(THIGH + TIBIA + FOOT_HEIGHT)])  # (0, 50, -333.09) mm
    assert np.allclose(position("nao", "l_sole"), sole, atol=CM)
    # hip pitch -90 degrees (thigh forward), knee 90 degrees (shin down again)
    ankle = mm(HIP + [THIGH, 0, -TIBIA])
    assert np.allclose(position("nao", "l_ankle", LHipPitch=-math.pi / 2,
                                LKneePitch=math.pi / 2), ankle, atol=CM)


def test_nao_right_hip_yaw_pitch_follows_the_left_one():
    model = robot_model("nao")
    assert model.joint("RHipYawPitch").mimic == "LHipYawPitch"
    poses = forward_kinematics(model, {"LHipYawPitch": -0.5})
    assert np.allclose(poses["r_sole"].position * np.array([1, -1, 1]),
                       poses["l_sole"].position, atol=1e-9)  # the legs move as mirrors
    assert not np.allclose(poses["l_sole"].position, position("nao", "l_sole"), atol=CM)


def test_head_turns_but_stays_on_the_neck():
    turned = forward_kinematics(robot_model("nao"), {"HeadYaw": math.pi / 2})["Head"]
    assert np.allclose(turned.position, [0, 0, 0.1265], atol=1e-9)
    assert np.allclose(turned.rotation[:, 0], [0, 1, 0], atol=1e-9)  # it looks to its left
    x, y, z, w = turned.quaternion()
    assert (x, y) == pytest.approx((0, 0)) and z == pytest.approx(math.sqrt(0.5))
    assert w == pytest.approx(math.sqrt(0.5))


def test_pepper_arm_stretched_forward_and_its_base():
    # Pepper's description: shoulder (-57, 149.74, 86.82), elbow (181.2, 15, 0.13), the
    # forearm pitched 9 degrees down (-0.157079 rad about Y), forearm 150, hand 25 mm
    pitch = -0.157079
    forearm = np.array([150.0 + 25.0, 0.0, 0.0])
    turned = [forearm[0] * math.cos(pitch), 0.0, -forearm[0] * math.sin(pitch)]
    expected = mm(np.array([-57.0, 149.74, 86.82]) + [181.2, 15.0, 0.13] + turned)
    assert np.allclose(position("pepper", "l_gripper"), expected, atol=CM)
    assert position("pepper", "base_footprint")[2] == pytest.approx(-(139 + 79 + 268 + 334)
                                                                     / 1000.0, abs=CM)


def test_joint_names_and_limits_are_naoqis():
    for robot in ("nao", "pepper"):
        table = JointTable(robot)
        moving = robot_model(robot).moving_joints
        assert sorted(j.name for j in moving) == sorted(table.body)
        assert all(j.limits == table.limits[j.name] for j in moving)


def test_bad_robot_name():
    with pytest.raises(ValueError, match="nao or pepper"):
        robot_model("romeo")


# -- URDF ---------------------------------------------------------------------------------
def parse(robot: str) -> ET.Element:
    return ET.fromstring(robot_description(robot).encode())


def rpy_matrix(rpy) -> np.ndarray:
    """URDF rpy as three elementary rotations applied X, then Y, then Z."""
    def about(axis: int, angle: float) -> np.ndarray:
        c, s = math.cos(angle), math.sin(angle)
        i, j = (axis + 1) % 3, (axis + 2) % 3
        m = np.eye(3)
        m[i, i], m[i, j], m[j, i], m[j, j] = c, -s, s, c
        return m
    roll, pitch, yaw = rpy
    return about(2, yaw) @ about(1, pitch) @ about(0, roll)


def axis_angle(axis, angle: float) -> np.ndarray:
    """Rotation about ``axis`` through a quaternion (not the module's formula)."""
    axis = np.asarray(axis) / np.linalg.norm(axis)
    w, (x, y, z) = math.cos(angle / 2), math.sin(angle / 2) * axis
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def urdf_link_positions(root: ET.Element, angles: dict) -> dict:
    """Chain the URDF's joints from its root link; link -> (rotation, position)."""
    joints = root.findall("joint")
    children = {j.find("child").get("link") for j in joints}
    links = [link.get("name") for link in root.findall("link")]
    (base,) = [name for name in links if name not in children]
    frames = {base: (np.eye(3), np.zeros(3))}
    pending = list(joints)
    while pending:
        for joint in list(pending):
            parent = joint.find("parent").get("link")
            if parent not in frames:
                continue
            pending.remove(joint)
            rotation, origin = frames[parent]
            placed = joint.find("origin")
            xyz = [float(v) for v in placed.get("xyz").split()]
            rpy = [float(v) for v in placed.get("rpy").split()]
            origin = origin + rotation @ np.array(xyz)
            rotation = rotation @ rpy_matrix(rpy)
            if joint.get("type") == "revolute":
                mimic = joint.find("mimic")
                name = joint.get("name")
                angle = angles.get(name, angles.get(mimic.get("joint"), 0.0)
                                   if mimic is not None else 0.0)
                axis = [float(v) for v in joint.find("axis").get("xyz").split()]
                rotation = rotation @ axis_angle(axis, angle)
            frames[joint.find("child").get("link")] = (rotation, origin)
    return frames


@pytest.mark.parametrize("robot", ["nao", "pepper"])
def test_urdf_is_a_tree_of_naoqi_joints_for_robot_state_publisher(robot):
    root = parse(robot)
    assert root.tag == "robot" and root.get("name") == robot
    links = [link.get("name") for link in root.findall("link")]
    assert len(links) == len(set(links))
    joints = root.findall("joint")
    revolute = {j.get("name"): j for j in joints if j.get("type") == "revolute"}
    table = JointTable(robot)
    assert sorted(revolute) == sorted(table.body)  # every NAOqi joint, nothing else moves
    assert {j.get("type") for j in joints} <= {"revolute", "fixed"}
    for name, joint in revolute.items():
        limit = joint.find("limit")
        low, high, velocity, effort = table.limits[name]
        assert float(limit.get("lower")) == pytest.approx(low, abs=1e-6)
        assert float(limit.get("upper")) == pytest.approx(high, abs=1e-6)
        assert float(limit.get("velocity")) == pytest.approx(velocity, abs=1e-6)
        assert float(limit.get("effort")) == pytest.approx(effort, abs=1e-6)
        assert np.linalg.norm([float(v) for v in joint.find("axis").get("xyz").split()]) \
            == pytest.approx(1.0, abs=1e-5)
    children = [j.find("child").get("link") for j in joints]
    assert len(children) == len(set(children))  # one parent per link
    for joint in joints:
        assert joint.find("parent").get("link") in links
        assert joint.find("child").get("link") in links
    assert len(set(links) - set(children)) == 1  # one root
    materials = {m.get("name") for m in root.findall("material")}
    for visual in root.iter("visual"):
        assert visual.find("material").get("name") in materials
        (geometry,) = list(visual.find("geometry"))
        assert geometry.tag in ("box", "sphere", "cylinder")  # no mesh, nothing non-standard


@pytest.mark.parametrize("robot", ["nao", "pepper"])
def test_forward_kinematics_of_the_urdf_matches_the_module(robot):
    root = parse(robot)
    rng = np.random.default_rng(7)
    table = JointTable(robot)
    poses = [{}, {name: float(rng.uniform(low, high))
                  for name, (low, high, _, _) in table.limits.items()}]
    poses.append({name: float(rng.uniform(low, high))
                  for name, (low, high, _, _) in table.limits.items()})
    for angles in poses:
        expected = forward_kinematics(robot_model(robot), angles)
        chained = urdf_link_positions(root, angles)
        assert set(chained) == set(expected)
        for link, (rotation, origin) in chained.items():
            assert np.allclose(origin, expected[link].position, atol=1e-5), link
            assert np.allclose(rotation, expected[link].rotation, atol=1e-5), link


@pytest.mark.ros
@pytest.mark.parametrize("robot", ["nao", "pepper"])
def test_urdf_survives_a_ros_command_line_parameter(robot):
    """``-p robot_description:="$(python -m naoqi_qicore.robot.model ROBOT)"`` (the command
    docs/ros.md gives for robot_state_publisher) hands the node a string with the same
    URDF: rcl reads the value as YAML."""
    rclpy = pytest.importorskip("rclpy")
    text = robot_description(robot)
    context = rclpy.Context()
    rclpy.init(args=["--ros-args", "-p", "robot_description:=" + text], context=context)
    try:
        node = rclpy.create_node("urdf_parameter", context=context)
        value = node.declare_parameter("robot_description", "").value
        node.destroy_node()
    finally:
        context.try_shutdown()
    assert isinstance(value, str)
    assert ET.canonicalize(value, strip_text=True) == ET.canonicalize(
        text.split("?>", 1)[1], strip_text=True)


def test_every_link_with_a_look_exists_and_shapes_have_sizes():
    for robot in ("nao", "pepper"):
        links = set(robot_model(robot).links)
        shapes = body_shapes(robot)
        assert set(shapes) <= links
        assert {"torso", "Head", "LBicep", "RForeArm", "l_wrist", "r_wrist"} <= set(shapes)
        for link_shapes in shapes.values():
            for shape in link_shapes:
                assert shape.radius > 0 or min(shape.size) > 0


def test_print_urdf_command(capsys):
    from naoqi_qicore.robot.model.__main__ import main
    assert main(["pepper"]) == 0
    assert parse("pepper").get("name") == ET.fromstring(capsys.readouterr().out).get("name")


# -- NAOqi's spaces ------------------------------------------------------------------------
def test_position_6d_and_rpy_turn_back_into_the_same_pose():
    from naoqi_qicore.robot.model.spaces import pose_from_6d, position_6d
    rng = np.random.default_rng(3)
    for _ in range(20):
        six = [*rng.uniform(-1, 1, 3), *rng.uniform(-3.0, 3.0, 1), *rng.uniform(-1.5, 1.5, 1),
               *rng.uniform(-3.0, 3.0, 1)]
        pose = pose_from_6d(six)
        assert np.allclose(pose_from_6d(position_6d(pose)), pose, atol=1e-9)
        assert np.allclose(pose[:3, :3], rpy_matrix(six[3:]), atol=1e-9)
    with pytest.raises(ValueError, match="6 finite numbers"):
        pose_from_6d([0.0] * 5)


def test_robot_frame_lies_between_the_feet_or_under_peppers_base():
    from naoqi_qicore.robot.model.spaces import FRAME_ROBOT, FRAME_TORSO, part_pose
    nao = robot_model("nao")
    # knees bent: the torso comes down, the soles stay on the ground
    bent = {"LHipPitch": -0.4, "LKneePitch": 0.8, "LAnklePitch": -0.4,
            "RHipPitch": -0.4, "RKneePitch": 0.8, "RAnklePitch": -0.4}
    for angles in ({}, bent):
        torso = part_pose(nao, angles, "Torso", FRAME_ROBOT)
        sole = part_pose(nao, angles, "LLeg", FRAME_ROBOT)
        assert sole[2, 3] == pytest.approx(0.0, abs=1e-9)
        assert torso[:2, 3] == pytest.approx([0.0, 0.0], abs=0.01)  # above the feet
    straight = part_pose(nao, {}, "Torso", FRAME_ROBOT)[2, 3]
    assert straight == pytest.approx((85 + 100 + 102.9 + 45.19) / 1000.0, abs=1e-6)
    assert part_pose(nao, bent, "Torso", FRAME_ROBOT)[2, 3] < straight - 0.01
    pepper = robot_model("pepper")
    assert part_pose(pepper, {}, "Torso", FRAME_ROBOT)[2, 3] == pytest.approx(
        (139 + 79 + 268 + 334) / 1000.0, abs=1e-6)
    assert np.allclose(part_pose(pepper, {}, "Torso", FRAME_TORSO), np.eye(4))
    with pytest.raises(KeyError):
        part_pose(pepper, {}, "LLeg", FRAME_ROBOT)  # Pepper has no legs
    with pytest.raises(ValueError, match="space must be"):
        part_pose(nao, {}, "Torso", 5)


@pytest.mark.parametrize("robot", ["nao", "pepper"])
def test_joint_rotations_and_single_links_agree_with_the_whole_tree(robot):
    """What /tf publishes per joint (a quaternion) and one link's chain give what the
    matrices of the whole tree give."""
    from naoqi_qicore.robot.model.kinematics import joint_rotation, joint_transform, link_pose
    model = robot_model(robot)
    rng = np.random.default_rng(11)
    table = JointTable(robot)
    for _ in range(5):
        angles = {name: float(rng.uniform(low, high))
                  for name, (low, high, _, _) in table.limits.items()}
        for joint in model.joints:
            x, y, z, w = joint_rotation(joint, angles)
            assert x * x + y * y + z * z + w * w == pytest.approx(1.0)
            assert np.allclose(axis_angle([x, y, z], 2 * math.atan2(math.sqrt(
                x * x + y * y + z * z), w)) if (x, y, z) != (0, 0, 0) else np.eye(3),
                joint_transform(joint, angles)[:3, :3], atol=1e-9), joint.name
        poses = forward_kinematics(model, angles)
        for link in model.links:
            assert np.allclose(link_pose(model, link, angles).matrix, poses[link].matrix,
                               atol=1e-12), link
    with pytest.raises(KeyError):
        model.chain("no_such_link")
