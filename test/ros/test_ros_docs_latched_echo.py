"""``ros2 topic echo`` of a latched topic in the docs asks for the QoS it is published with.

The nodes publish their latched topics (``behavior/state``, ``behavior/focus``,
``robot/connection``) reliable and transient local (``ros/qos.py``); ``ros2 topic echo``
given only ``--qos-durability transient_local`` does not get the last sample (the command
waits forever), so every such command of the docs says ``--qos-reliability reliable`` too.
"""
import re
from pathlib import Path

from naoqi_qicore.ros.qos import LATCHED
from rclpy.qos import DurabilityPolicy, ReliabilityPolicy

REPO = Path(__file__).resolve().parents[2]
_ECHO = re.compile(r"ros2 topic echo [^\n`]*")


def test_latched_echo_commands_ask_for_reliable_and_transient_local():
    assert (LATCHED.durability, LATCHED.reliability) == (DurabilityPolicy.TRANSIENT_LOCAL,
                                                         ReliabilityPolicy.RELIABLE)
    documents = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    commands = [(path.name, command) for path in documents
                for command in _ECHO.findall(path.read_text(encoding="utf-8"))
                if "--qos-durability transient_local" in command]
    assert commands  # the docs show how to read a latched topic
    wrong = [(name, command) for name, command in commands
             if "--qos-reliability reliable" not in command]
    assert wrong == []
