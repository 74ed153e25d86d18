"""Sound files for the simulated audio services: lengths, silent recordings."""
import os
import wave
from typing import Any, Callable, List, Optional

from tinytag import TinyTag

#: bits per second of a file whose length cannot be read from it (then estimated from its size)
ASSUMED_BITRATE = 128000


def write_silence(path: str, seconds: float, rate: int = 16000, channels: int = 1) -> None:
    """Write a 16-bit PCM WAV file of silence (a path that cannot be opened fails before any
    WAV writer exists)."""
    with open(path, "wb") as raw, wave.open(raw, "wb") as out:
        out.setnchannels(channels)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(b"\0\0" * channels * int(rate * seconds))


def sound_length(path: str) -> float:
    """Length in seconds, read from the file as a player reads it (WAV, MP3, OGG Vorbis and
    Opus, FLAC, M4A, AIFF, WMA: their frames, granule positions or headers); estimated from
    the size at 128 kbit/s only when the file cannot be read (a 46 s mono OGG at 32 kbit/s
    read that way would end after 11 s)."""
    try:
        length = TinyTag.get(path, tags=False).duration
    except Exception:  # noqa: BLE001 (any unreadable or malformed file: estimated below)
        length = None
    if length:
        return float(length)
    return os.path.getsize(path) * 8.0 / ASSUMED_BITRATE


class MicrophoneRecording:
    """A recording in progress: on stop, a silent file as long as the recording is written."""

    def __init__(self, path: str, clock: Callable[[], float], rate: int = 16000,
                 channels: Optional[List[int]] = None) -> None:
        if not path or path.endswith(os.sep) or os.path.isdir(path):
            raise OSError("'%s' names no file" % path)
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise OSError("its folder does not exist")
        if not os.access(folder, os.W_OK):
            raise OSError("its folder is not writable")
        self.path = path
        self._clock = clock
        self._start = clock()
        self._rate = rate
        self._channels = max(1, sum(1 for c in (channels or [1]) if c))

    def stop(self) -> float:
        """Write the file; returns its duration."""
        seconds = self._clock() - self._start
        write_silence(self.path, seconds, self._rate, self._channels)
        return seconds


def describe(error: Any) -> str:
    """A one-line reason for an OSError."""
    return getattr(error, "strerror", None) or str(error)
