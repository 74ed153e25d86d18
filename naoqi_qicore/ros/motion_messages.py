"""Motion segments as ROS messages and back as ALMotion.angleInterpolationBezier arguments."""
from typing import Any, List, Sequence, Tuple

from naoqi_qicore.msg import JointKeyframes, MotionKeyframes

BezierArguments = Tuple[List[str], List[List[float]], List[List[list]]]


def keyframes_message(segment_id: int, names: Sequence[str], times: Sequence[Sequence[float]],
                      keys: Sequence[Sequence[Any]]) -> MotionKeyframes:
    """The message of a segment; ``keys[c][j] = [angle, [type, dt, da], [type, dt, da]]``."""
    if not len(names) == len(times) == len(keys):
        raise ValueError("segment %d: %d names, %d time lists, %d key lists"
                         % (segment_id, len(names), len(times), len(keys)))
    message = MotionKeyframes(segment_id=int(segment_id))
    for name, joint_times, joint_keys in zip(names, times, keys):
        if len(joint_times) != len(joint_keys):
            raise ValueError("segment %d, joint %s: %d times for %d keys"
                             % (segment_id, name, len(joint_times), len(joint_keys)))
        joint = JointKeyframes(name=name, times=[float(t) for t in joint_times])
        joint.angles = [float(key[0]) for key in joint_keys]
        joint.left_types = [int(key[1][0]) for key in joint_keys]
        joint.left_dtimes = [float(key[1][1]) for key in joint_keys]
        joint.left_dangles = [float(key[1][2]) for key in joint_keys]
        joint.right_types = [int(key[2][0]) for key in joint_keys]
        joint.right_dtimes = [float(key[2][1]) for key in joint_keys]
        joint.right_dangles = [float(key[2][2]) for key in joint_keys]
        message.joints.append(joint)
    return message


def bezier_arguments(message: MotionKeyframes) -> BezierArguments:
    """``(names, times, controlPoints)`` for ALMotion.angleInterpolationBezier.

    Raises ``ValueError`` when a joint's arrays do not all have one entry per key.
    """
    names, times, keys = [], [], []
    for joint in message.joints:
        columns = (joint.angles, joint.left_types, joint.left_dtimes, joint.left_dangles,
                   joint.right_types, joint.right_dtimes, joint.right_dangles)
        if not joint.times or any(len(column) != len(joint.times) for column in columns):
            raise ValueError("segment %d, joint %r: every key array needs %d entries"
                             % (message.segment_id, joint.name, len(joint.times)))
        names.append(joint.name)
        times.append(list(joint.times))
        keys.append([[angle, [int(lt), ldt, lda], [int(rt), rdt, rda]]
                     for angle, lt, ldt, lda, rt, rdt, rda in zip(*columns)])
    return names, times, keys
