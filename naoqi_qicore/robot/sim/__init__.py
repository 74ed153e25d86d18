"""The simulated NAOqi robot (NAO or Pepper) over real libqi.

``SimulatedRobot(robot="nao", listen="tcp://127.0.0.1:0").start()`` serves ALMemory, ALMotion,
ALAutonomousLife and the services of :mod:`naoqi_qicore.robot.sim.services` in a standalone
service directory; clients connect with ``qi.Session().connect(robot.url)``.

``SimulatedRobot`` is imported on first use: the robot model and the ROS nodes read the
joint tables of this package without loading every simulated service.
"""
from typing import Any

__all__ = ["SimulatedRobot"]


def __getattr__(name: str) -> Any:
    if name == "SimulatedRobot":
        from naoqi_qicore.robot.sim.robot import SimulatedRobot
        return SimulatedRobot
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
