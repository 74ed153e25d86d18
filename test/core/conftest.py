"""Fixtures of the engine tests (helpers live in core_builders.py, importable from tests)."""
import sys
from pathlib import Path
from typing import Any, List

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from core_builders import Harness  # noqa: E402
from naoqi_qicore.xar.model import Box  # noqa: E402


@pytest.fixture
def make_harness():
    made: List[Harness] = []

    def make(root: Box, **kwargs: Any) -> Harness:
        harness = Harness(root, **kwargs)
        made.append(harness)
        return harness
    yield make
    for harness in made:
        harness.player.unload()


