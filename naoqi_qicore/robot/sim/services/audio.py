"""Simulated audio: ALAudioPlayer, ALAudioDevice and ALAudioRecorder.

Playing takes the sound's real length (WAV) or an estimate (compressed files), positions
advance with the clock, and pause/stop/goTo act on what is playing.  Sounds are read from
and recordings written to the robot's files (``/home/nao/...``; relative paths from
``/home/nao``): another path is refused, whether or not such a file exists.
"""
import itertools
import math
from dataclasses import dataclass
from typing import Any, Dict, List, Optional

from naoqi_qicore.robot.sim.services.extractor import Extractor
from naoqi_qicore.robot.sim.services.module import Activity, SimModule, check_range
from naoqi_qicore.robot.sim.services.sound import MicrophoneRecording, describe, sound_length


@dataclass
class Playback:
    """A loaded sound and where its playing head is."""

    path: str
    length: float
    volume: float = 1.0
    pan: float = 0.0
    position: float = 0.0
    started_at: Optional[float] = None  # clock time when the head was last at `position`
    activity: Optional[Activity] = None
    paused: bool = False


class ALAudioPlayer(SimModule):
    """Plays sound files and streams (silently), with NAOqi's ids, positions and errors."""

    NAME = "ALAudioPlayer"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._files: Dict[int, Playback] = {}
        self._ids = itertools.count(1)
        self._master_volume = 1.0
        self._pan = 0.0

    # -- internals --------------------------------------------------------------------------
    def _load(self, method: str, path: str, length: Optional[float] = None) -> int:
        if length is None:
            place = self._file(method, path)
            if not place.is_file():
                raise self._error(method, "file '%s' does not exist" % path)
            try:
                with place.open_read() as stream:
                    length = sound_length(stream)
            except OSError as error:
                raise self._file_failed(method, "read", path, error) from None
        with self._lock:
            file_id = next(self._ids)
            self._files[file_id] = Playback(path, length)
        return file_id

    def _playback(self, method: str, fileId: int) -> Playback:
        with self._lock:
            if fileId not in self._files:
                raise self._error(method, "no file loaded with id %d" % fileId)
            return self._files[fileId]

    def _head(self, playback: Playback) -> float:
        if playback.started_at is None:
            return playback.position
        return min(playback.length, playback.position + self._sim.clock() - playback.started_at)

    def _play(self, fileId: int, volume: Optional[float], pan: Optional[float],
              position: Optional[float] = None, loop: bool = False) -> None:
        playback = self._playback("play", fileId)
        if volume is not None:
            playback.volume = check_range(self, "play", "volume", volume, 0.0, 1.0)
        if pan is not None:
            playback.pan = check_range(self, "play", "pan", pan, -1.0, 1.0)
        if position is not None:
            playback.position = check_range(self, "play", "position", position, 0.0,
                                            playback.length)
        with self._activity() as activity:
            playback.activity, playback.paused = activity, False
            while True:
                playback.started_at = self._sim.clock()
                finished = activity.sleep(playback.length - playback.position)
                playback.position, playback.started_at = self._head(playback), None
                if not finished or not loop or playback.length <= 0:
                    break
                playback.position = 0.0
            playback.activity = None
            if finished or not playback.paused:
                playback.position = 0.0

    def _play_file(self, path: str, volume: Optional[float], pan: Optional[float],
                   position: Optional[float] = None, loop: bool = False) -> None:
        file_id = self._load("playFile", path)
        try:
            self._play(file_id, volume, pan, position, loop)
        finally:
            self.unloadFile(file_id)

    # -- NAOqi API --------------------------------------------------------------------------
    def loadFile(self, fileName: str) -> int:
        """Load a file; returns its id."""
        return self._load("loadFile", fileName)

    def unloadFile(self, id: int) -> None:
        """Forget a loaded file (stopping it)."""
        playback = self._playback("unloadFile", id)
        if playback.activity is not None:
            playback.activity.interrupt()
        with self._lock:
            self._files.pop(id, None)

    def unloadAllFiles(self) -> None:
        """Forget every loaded file."""
        for file_id in self.getLoadedFilesIds():
            self.unloadFile(file_id)

    def getLoadedFilesIds(self) -> List[int]:
        """Ids of the loaded files."""
        with self._lock:
            return sorted(self._files)

    def getLoadedFilesNames(self) -> List[str]:
        """Paths of the loaded files."""
        with self._lock:
            return [self._files[i].path for i in sorted(self._files)]

    def play(self, id: int, volume: Optional[float] = None, pan: Optional[float] = None) -> None:
        """Play (or resume) a loaded file; returns when it ends, is paused or stopped."""
        self._play(id, volume, pan)

    def playInLoop(self, id: int, volume: Optional[float] = None,
                   pan: Optional[float] = None) -> None:
        """Play a loaded file again and again until stopped."""
        self._play(id, volume, pan, loop=True)

    def playFile(self, fileName: str, volume: Optional[float] = None,
                 pan: Optional[float] = None) -> None:
        """Load, play and unload a file."""
        self._play_file(fileName, volume, pan)

    def playFileFromPosition(self, fileName: str, position: float,
                             volume: Optional[float] = None, pan: Optional[float] = None) -> None:
        """Play a file starting ``position`` seconds in."""
        self._play_file(fileName, volume, pan, position)

    def playFileInLoop(self, fileName: str, volume: Optional[float] = None,
                       pan: Optional[float] = None) -> None:
        """Play a file again and again until stopped."""
        self._play_file(fileName, volume, pan, loop=True)

    def playWebStream(self, streamName: str, volume: float, pan: float) -> None:
        """Play an http(s) stream until stopped."""
        if not streamName.startswith(("http://", "https://")):
            raise self._error("playWebStream", "'%s' is not an http(s) URL" % streamName)
        file_id = self._load("playWebStream", streamName, length=math.inf)
        try:
            self._play(file_id, volume, pan)
        finally:
            self.unloadFile(file_id)

    def playSine(self, frequence: int, gain: int, pan: int, duration: float) -> None:
        """Play a sine wave for ``duration`` seconds."""
        check_range(self, "playSine", "gain", gain, 0, 100)
        check_range(self, "playSine", "pan", pan, -1, 1)
        with self._activity() as activity:
            activity.sleep(duration)

    def pause(self, id: int) -> None:
        """Pause a playing file; ``play`` resumes it."""
        playback = self._playback("pause", id)
        if playback.activity is not None:
            playback.paused = True
            playback.activity.interrupt()

    def stop(self, id: int) -> None:
        """Stop a posted task or a loaded file (its head goes back to the start)."""
        with self._lock:
            posted = id in self._posted
            playback = self._files.get(id)
        if posted or playback is None:
            super().stop(id)
        elif playback.activity is not None:
            playback.activity.interrupt()
        else:
            playback.position = 0.0

    def stopAll(self) -> None:
        """Stop every sound."""
        self._interrupt_all()

    def goTo(self, id: int, position: float) -> None:
        """Move the playing head of a loaded file."""
        playback = self._playback("goTo", id)
        check_range(self, "goTo", "position", position, 0.0, playback.length)
        playback.position = position
        if playback.started_at is not None:
            playback.started_at = self._sim.clock()

    def getCurrentPosition(self, id: int) -> float:
        """Playing head of a loaded file, in seconds."""
        return self._head(self._playback("getCurrentPosition", id))

    def getFileLength(self, id: int) -> float:
        """Length of a loaded file, in seconds."""
        return self._playback("getFileLength", id).length

    def setVolume(self, id: int, volume: float) -> None:
        """Volume of a loaded file in [0, 1]."""
        self._playback("setVolume", id).volume = check_range(self, "setVolume", "volume",
                                                             volume, 0.0, 1.0)

    def getVolume(self, id: int) -> float:
        """Volume of a loaded file."""
        return self._playback("getVolume", id).volume

    def setMasterVolume(self, volume: float) -> None:
        """Volume of the player in [0, 1]."""
        self._master_volume = check_range(self, "setMasterVolume", "volume", volume, 0.0, 1.0)

    def getMasterVolume(self) -> float:
        """Volume of the player."""
        return self._master_volume

    def setPanorama(self, panorama: float) -> None:
        """Panorama of the player in [-1, 1]."""
        self._pan = check_range(self, "setPanorama", "panorama", panorama, -1.0, 1.0)


MICROPHONE_CHANNELS = [1, 1, 1, 1]


class _Recorder(SimModule):
    """What ALAudioDevice and ALAudioRecorder share: one microphone recording at a time."""

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._recording: Optional[MicrophoneRecording] = None
        self._recording_path = ""

    def _start_recording(self, path: str, rate: int, channels: List[int]) -> None:
        method = "startMicrophonesRecording"
        place = self._file(method, path)
        with self._lock:
            if self._recording is not None:
                raise self._error(method, "already recording to '%s'" % self._recording_path)
            try:
                self._recording = MicrophoneRecording(place, self._sim.clock, rate, channels)
            except OSError as error:
                raise self._error(method, "cannot record to '%s': %s" % (path, describe(error)))
            self._recording_path = path

    def stopMicrophonesRecording(self) -> None:
        """Stop the recording and write its file."""
        with self._lock:
            recording, self._recording = self._recording, None
        if recording is not None:
            recording.stop()


class ALAudioDevice(_Recorder, Extractor):
    """Output volume, mute, microphone energies and recordings."""

    NAME = "ALAudioDevice"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._volume = 50
        self._muted = False
        self._energy = False
        self._clients: Dict[str, List[Any]] = {}

    def setOutputVolume(self, volume: int) -> None:
        """Speaker volume in [0, 100]."""
        self._volume = int(check_range(self, "setOutputVolume", "volume", volume, 0, 100))

    def getOutputVolume(self) -> int:
        """Speaker volume in [0, 100]."""
        return self._volume

    def muteAudioOut(self, mute: bool) -> None:
        """Mute or unmute the speakers."""
        self._muted = mute

    def isAudioOutMuted(self) -> bool:
        """True when the speakers are muted."""
        return self._muted

    def enableEnergyComputation(self) -> None:
        """Start computing the microphone energies."""
        self._energy = True

    def disableEnergyComputation(self) -> None:
        """Stop computing the microphone energies."""
        self._energy = False

    def _energy_of(self, phase: float) -> float:
        if not self._energy:
            return 0.0
        return 300.0 + 100.0 * math.sin(self._sim.clock() + phase)

    def getFrontMicEnergy(self) -> float:
        """Energy of the front microphone (0 until computation is enabled)."""
        return self._energy_of(0.0)

    def getRearMicEnergy(self) -> float:
        """Energy of the rear microphone."""
        return self._energy_of(1.0)

    def getLeftMicEnergy(self) -> float:
        """Energy of the left microphone."""
        return self._energy_of(2.0)

    def getRightMicEnergy(self) -> float:
        """Energy of the right microphone."""
        return self._energy_of(3.0)

    def startMicrophonesRecording(self, fileName: str) -> None:
        """Record the four microphones (48 kHz) into a WAV file until stopped."""
        self._start_recording(fileName, 48000, MICROPHONE_CHANNELS)

    def setClientPreferences(self, name: str, sampleRate: int, channels: int,
                             deinterleaved: int) -> None:
        """Preferences of a module processing the microphones."""
        self._clients[name] = [sampleRate, channels, deinterleaved]


class ALAudioRecorder(_Recorder):
    """Microphone recordings with a chosen format, rate and channels."""

    NAME = "ALAudioRecorder"

    def startMicrophonesRecording(self, filename: str, type: str, samplerate: int,
                                  channels: List[int]) -> None:
        """Record into ``filename`` ("wav" or "ogg") until stopped."""
        if type not in ("wav", "ogg"):
            raise self._error("startMicrophonesRecording", "type must be 'wav' or 'ogg'")
        if len(channels) != 4:
            raise self._error("startMicrophonesRecording",
                              "channels must list 4 flags (left, right, front, rear)")
        self._start_recording(filename, samplerate, channels)
