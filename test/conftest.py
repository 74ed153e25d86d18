"""Settings shared by every test: a private ROS 2 domain and the corpus location."""
import os
import random
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
CORPUS_DIR = REPO_ROOT.parent / "shared" / "corpus"

# One DDS domain per test run, reachable only on this machine, so that parallel runs
# (and other ROS 2 users of the machine) never see each other.
os.environ.setdefault("ROS_DOMAIN_ID", str(random.Random(os.getpid()).randint(1, 101)))
os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The shared corpus of real behaviors; tests using it skip when it is absent."""
    if not (CORPUS_DIR / "files").is_dir():
        pytest.skip("corpus not available at " + str(CORPUS_DIR))
    return CORPUS_DIR


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """Root of the source checkout."""
    return REPO_ROOT
