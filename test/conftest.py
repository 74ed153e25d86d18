"""Settings shared by every test: a private ROS 2 domain, the corpus location, sound files,
Ctrl-C reaching the programs the tests start."""
import os
import random
import signal
import struct
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
CORPUS_DIR = REPO_ROOT.parent / "shared" / "corpus"

# One DDS domain per test run, reachable only on this machine, so that parallel runs
# (and other ROS 2 users of the machine) never see each other; pytest-xdist's workers
# (``-n N``) each take the next domain after the run's own.
os.environ.setdefault("ROS_DOMAIN_ID", str(random.Random(os.getpid()).randint(1, 101)))
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
if _WORKER.startswith("gw"):
    os.environ["ROS_DOMAIN_ID"] = str(
        (int(os.environ["ROS_DOMAIN_ID"]) + int(_WORKER[2:])) % 101 + 1)
os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")

# The tests stop the programs they start with SIGINT, as Ctrl-C in a terminal does.  A run
# started in the background by a script (``make test &``, a CI step) inherits SIGINT
# ignored (POSIX: an asynchronous list without job control), which its children would keep
# (an ignored signal stays ignored across exec, and Python then installs no Ctrl-C
# handler): each program would wait out its test's stop timeout.  With a handler here, the
# children start with SIGINT's default.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    except ValueError:  # not the main thread: its children keep what it has
        pass


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


def _ogg_page(payload: bytes, granule: int, sequence: int, flags: int) -> bytes:
    lacing = [255] * (len(payload) // 255) + [len(payload) % 255]
    return (b"OggS" + bytes([0, flags]) + struct.pack("<qIII", granule, 1, sequence, 0)
            + bytes([len(lacing)]) + bytes(lacing) + payload)


def _vorbis(seconds: float, rate: int = 22050, kbps: int = 32) -> bytes:
    """An OGG Vorbis stream's pages (headers, then silence of the size a ``kbps`` stream
    of ``seconds`` has), the last one holding the granule position (samples) at its end."""
    ident = b"\x01vorbis" + struct.pack("<IBIiii", 0, 1, rate, 0, kbps * 1000, 0) + b"\xb8\x01"
    comment = b"\x03vorbis" + struct.pack("<I", 4) + b"test" + struct.pack("<I", 0) + b"\x01"
    pages = [_ogg_page(ident, 0, 0, 2), _ogg_page(comment, 0, 1, 0)]
    body = bytes(int(seconds * kbps * 1000 / 8))
    chunks = [body[start:start + 60000] for start in range(0, len(body), 60000)]
    for index, chunk in enumerate(chunks):
        last = index == len(chunks) - 1
        pages.append(_ogg_page(chunk, int(seconds * rate) if last else -1, index + 2,
                               4 if last else 0))
    return b"".join(pages)


def _mp3(seconds: float) -> bytes:
    """A constant 32 kbit/s MPEG-1 layer III mono stream at 32 kHz: 144-byte frames of
    1152 samples (silent frames: a header and zeros)."""
    frame = bytes([0xFF, 0xFB, 0x18, 0xC0]) + bytes(140)
    return frame * int(seconds * 32000 / 1152)


@pytest.fixture
def low_bitrate_sound(tmp_path):
    """``make(name, seconds)``: a music file of that length at 32 kbit/s, a quarter of the
    bitrate a size-based guess assumes (``.ogg``: OGG Vorbis; ``.mp3``: MPEG layer III)."""
    def make(name: str, seconds: float) -> Path:
        path = tmp_path / name
        path.write_bytes(_vorbis(seconds) if name.endswith(".ogg") else _mp3(seconds))
        return path
    return make


def pytest_collection_modifyitems(items: list) -> None:
    """Tests that read the shared corpus of real behaviors are marked ``corpus``: they are
    left out of ``make check``, the quick loop.  Files marked ``long_running`` come first,
    the longest first (the marker's ``minutes``): the parallel workers of ``make test`` take
    files in this order, and a file of minutes started last would keep one worker running
    alone at the end."""
    for item in items:
        if "corpus_dir" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.corpus)

    def expected_minutes(item) -> float:
        marker = item.get_closest_marker("long_running")
        return marker.kwargs.get("minutes", 1.0) if marker is not None else 0.0
    items.sort(key=lambda item: -expected_minutes(item))
