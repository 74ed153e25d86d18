"""``python -m naoqi_qicore.robot.model nao|pepper``: print the robot's URDF."""
import argparse
import sys
from typing import List, Optional

from naoqi_qicore.robot.model.urdf import robot_description


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m naoqi_qicore.robot.model",
        description="Print the URDF (robot_description) of NAO or Pepper.")
    parser.add_argument("robot", choices=("nao", "pepper"))
    arguments = parser.parse_args(argv)
    sys.stdout.write(robot_description(arguments.robot))
    return 0


if __name__ == "__main__":
    sys.exit(main())
