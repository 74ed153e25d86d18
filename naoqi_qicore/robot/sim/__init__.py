"""The simulated NAOqi robot (NAO or Pepper) over real libqi.

``SimulatedRobot(robot="nao", listen="tcp://127.0.0.1:0").start()`` serves ALMemory, ALMotion,
ALAutonomousLife and the services of :mod:`naoqi_qicore.robot.sim.services` in a standalone
service directory; clients connect with ``qi.Session().connect(robot.url)``.
"""
from naoqi_qicore.robot.sim.robot import SimulatedRobot

__all__ = ["SimulatedRobot"]
