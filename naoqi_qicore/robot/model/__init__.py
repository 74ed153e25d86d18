"""NAO's and Pepper's bodies: kinematic trees, forward kinematics, shapes and URDF."""
from naoqi_qicore.robot.model.kinematics import (BASE_LINK, Joint, Pose, RobotModel,
                                                 forward_kinematics, robot_model)
from naoqi_qicore.robot.model.urdf import robot_description

__all__ = ["BASE_LINK", "Joint", "Pose", "RobotModel", "forward_kinematics", "robot_model",
           "robot_description"]
