"""Sound files for the simulated audio services: lengths, silent recordings."""
import os
import wave
from typing import Any, BinaryIO, Callable, List, Optional, Union

from tinytag import TinyTag

from naoqi_qicore.file_root import RootedPath

#: bits per second of a file whose length cannot be read from it (then estimated from its size)
ASSUMED_BITRATE = 128000


def write_silence(target: Union[str, BinaryIO], seconds: float, rate: int = 16000,
                  channels: int = 1) -> None:
    """Write a 16-bit PCM WAV file of silence into ``target`` (a path, or a binary file open
    for writing; a path that cannot be opened fails before any WAV writer exists)."""
    if isinstance(target, str):
        with open(target, "wb") as raw:
            write_silence(raw, seconds, rate, channels)
        return
    with wave.open(target, "wb") as out:
        out.setnchannels(channels)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(b"\0\0" * channels * int(rate * seconds))


def sound_length(source: Union[str, BinaryIO]) -> float:
    """Length in seconds of the sound file ``source`` (a path, or a binary file open for
    reading), read from it as a player reads it (WAV, MP3, OGG Vorbis and Opus, FLAC, M4A,
    AIFF, WMA: their frames, granule positions or headers); estimated from the size at
    128 kbit/s only when the file cannot be read (a 46 s mono OGG at 32 kbit/s read that
    way would end after 11 s)."""
    if isinstance(source, str):
        with open(source, "rb") as stream:
            return sound_length(stream)
    try:
        length = TinyTag.get(file_obj=source, tags=False).duration
    except Exception:  # noqa: BLE001 (any unreadable or malformed file: estimated below)
        length = None
    if length:
        return float(length)
    return os.fstat(source.fileno()).st_size * 8.0 / ASSUMED_BITRATE


class MicrophoneRecording:
    """A recording in progress into the file ``place`` (its folder held open from the
    start): on stop, a silent file as long as the recording is written there."""

    def __init__(self, place: RootedPath, clock: Callable[[], float], rate: int = 16000,
                 channels: Optional[List[int]] = None) -> None:
        if not place.name or place.is_dir():
            raise OSError("'%s' names no file" % place.shown)
        try:
            self._folder = place.parent.folder()
        except OSError:
            raise OSError("its folder does not exist") from None
        if not os.access(".", os.W_OK, dir_fd=self._folder.fileno()):
            self._folder.close()
            raise OSError("its folder is not writable")
        self._name = place.name
        self._clock = clock
        self._start = clock()
        self._rate = rate
        self._channels = max(1, sum(1 for c in (channels or [1]) if c))

    def stop(self) -> float:
        """Write the file; returns its duration."""
        seconds = self._clock() - self._start
        try:
            with self._folder.replace(self._name) as stream:
                write_silence(stream, seconds, self._rate, self._channels)
        finally:
            self._folder.close()
        return seconds


def describe(error: Any) -> str:
    """A one-line reason for an OSError."""
    return getattr(error, "strerror", None) or str(error)
