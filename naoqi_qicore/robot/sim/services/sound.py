"""Sound files for the simulated audio services: lengths, silent recordings."""
import os
import wave
from typing import Any, Callable, List, Optional

ASSUMED_BITRATE = 128000  # bits per second, for compressed files whose length is estimated


def write_silence(path: str, seconds: float, rate: int = 16000, channels: int = 1) -> None:
    """Write a 16-bit PCM WAV file of silence."""
    with wave.open(path, "wb") as out:
        out.setnchannels(channels)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(b"\0\0" * channels * int(rate * seconds))


def sound_length(path: str) -> float:
    """Length in seconds: exact for WAV, estimated from the size at 128 kbit/s otherwise."""
    if path.lower().endswith(".wav"):
        try:
            with wave.open(path, "rb") as sound:
                return sound.getnframes() / float(sound.getframerate())
        except (wave.Error, EOFError):
            pass
    return os.path.getsize(path) * 8.0 / ASSUMED_BITRATE


class MicrophoneRecording:
    """A recording in progress: on stop, a silent file as long as the recording is written."""

    def __init__(self, path: str, clock: Callable[[], float], rate: int = 16000,
                 channels: Optional[List[int]] = None) -> None:
        folder = os.path.dirname(os.path.abspath(path))
        if not os.access(folder, os.W_OK):
            raise OSError("folder '%s' is not writable" % folder)
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
