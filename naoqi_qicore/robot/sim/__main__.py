"""``python -m naoqi_qicore.robot.sim``: same as ``naoqi_sim``."""
import sys

from naoqi_qicore.robot.sim.cli import main

sys.exit(main())
