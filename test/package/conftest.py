"""The package tests' helpers (ros2_lookups) are imported by name."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
