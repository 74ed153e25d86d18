"""The frame clock of a box timeline: ticks, motion segments, pause, goto, end.

Tick ``n`` after a (re)start at time ``t0`` from frame ``f`` processes frame ``f + n`` at
the absolute deadline ``t0 + n / fps`` of the injected clock, so lateness never adds up.
Processing a frame: call ``on_frame(frame)`` (the owner switches states at their flags);
if the end frame is reached, stop and call ``on_end()``; otherwise make sure a motion
segment covering the keys after this frame is in flight (one ``angleInterpolationBezier``
per segment; a new one after a goto, a pause, a stop or an fps change).  Keys the robot
cannot play (joints it lacks, left out by the motion sink) are told to ``on_warning``.

The end frame is ``end_frame``, or the last motion key when it is -1; a timeline without
motion and without an explicit end (end 0) plays until its box stops it.  At the end
the next play starts again from ``start_frame``.
"""
from __future__ import annotations

import itertools
import threading
from typing import Callable, List, Optional

from naoqi_qicore.core.clock import Clock
from naoqi_qicore.core.motion import CurveSet, MotionSegment, MotionSink

DEFAULT_FPS = 25
_segment_ids = itertools.count(1)

FrameCallback = Callable[[int], None]
ErrorCallback = Callable[[str, BaseException], None]


class Timeline:
    """Plays frames at ``fps`` against ``clock`` in its own thread."""

    def __init__(self, *, clock: Clock, fps: Optional[float] = DEFAULT_FPS,
                 start_frame: Optional[int] = 0, end_frame: Optional[int] = -1,
                 curves: Optional[CurveSet] = None, motion: Optional[MotionSink] = None,
                 on_frame: Optional[FrameCallback] = None,
                 on_end: Optional[Callable[[], None]] = None,
                 on_motion: Optional[Callable[[MotionSegment], None]] = None,
                 on_error: Optional[ErrorCallback] = None,
                 on_warning: Optional[Callable[[str], None]] = None,
                 name: str = "timeline") -> None:
        self._clock = clock
        self._fps = float(fps) if fps and fps > 0 else float(DEFAULT_FPS)
        self.start_frame = int(start_frame or 0)
        self._curves = curves or CurveSet([])
        last_key = self._curves.last_frame
        self.end_frame = last_key if end_frame is None or int(end_frame) < 0 else int(end_frame)
        self._motion = motion
        self._on_frame = on_frame
        self._on_end = on_end
        self._on_motion = on_motion
        self._on_error = on_error
        self._on_warning = on_warning
        self._name = name
        self._lock = threading.RLock()
        self._wake = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._quit = False
        self._rebase = False
        self._position = self.start_frame
        self._next = self.start_frame
        #: the frame shown last, kept when the timeline stops or ends (where a run ended)
        self.last_frame = self.start_frame
        self._segment: Optional[int] = None
        self._start_time = 0.0

    # -- properties ------------------------------------------------------------------------
    @property
    def fps(self) -> float:
        return self._fps

    @property
    def frame(self) -> int:
        """The frame shown now (last processed, or where a goto/stop put the timeline)."""
        return self._position

    @property
    def playing(self) -> bool:
        with self._lock:
            return self._thread is not None and not self._quit

    @property
    def size(self) -> int:
        """Frames between start and end."""
        return max(0, self.end_frame - self.start_frame)

    @property
    def has_motion(self) -> bool:
        return bool(self._curves)

    # -- control ---------------------------------------------------------------------------
    def play(self) -> None:
        """Play from the current frame (no-op while playing)."""
        with self._lock:
            if self._thread is not None and not self._quit:
                return
            self._join_finished()
            self._quit = False
            self._rebase = False
            self._wake.clear()
            self._start_time = self._clock.now()
            self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
            track = getattr(self._clock, "track", None)
            if track is not None:
                track(self._thread)
            self._thread.start()

    def pause(self) -> None:
        """Stop ticking at the current frame and stop the motion in flight."""
        self._halt()
        self._kill_motion()

    def stop(self) -> None:
        """Stop ticking and the motion; the next play starts from ``start_frame``."""
        self._halt()
        self._kill_motion()
        with self._lock:
            self._position = self._next = self.start_frame

    def goto(self, frame: int) -> None:
        """Continue from ``frame`` (processed at once when playing: the caller sends its
        motion segment, then stops the one it replaces, before the thread wakes up)."""
        with self._lock:
            self._position = self._next = self.last_frame = int(frame)
            replaced, self._segment = self._segment, None
            if self._thread is not None and not self._quit:
                if not self._ends_at(self._position):
                    self._send_motion(self._position)
                self._rebase = True
                self._wake.set()
            self._stop_segment(replaced)

    def set_fps(self, fps: float) -> None:
        """Change the rate; the motion in flight is re-sent at the new rate."""
        if not fps or fps <= 0:
            raise ValueError("fps must be positive, got %r" % (fps,))
        with self._lock:
            self._fps = float(fps)
            self._kill_motion()
            if self._thread is not None and not self._quit:
                self._rebase = True
                self._wake.set()

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Wait until the timeline stops ticking; False on timeout."""
        with self._lock:
            thread = self._thread
        if thread is None or thread is threading.current_thread():
            return True
        thread.join(timeout)
        return not thread.is_alive()

    # -- internals -------------------------------------------------------------------------
    def _join_finished(self) -> None:
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        self._thread = None

    def _halt(self) -> None:
        with self._lock:
            thread = self._thread
            self._quit = True
            self._wake.set()
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        with self._lock:
            if self._thread is thread:
                self._thread = None

    def _kill_motion(self) -> None:
        with self._lock:
            segment, self._segment = self._segment, None
        self._stop_segment(segment)

    def _stop_segment(self, segment: Optional[int]) -> None:
        if segment is not None and self._motion is not None:
            try:
                self._motion.stop(segment)
            except Exception as error:  # the robot may be gone
                self._report("stopping motion segment %d" % segment, error)

    def _report(self, what: str, error: BaseException) -> None:
        if self._on_error is not None:
            self._on_error(what, error)

    def _joints_left_out(self, names: List[str]) -> None:
        if self._on_warning is not None:
            self._on_warning("the robot has no joint %s: the keys of %s in this timeline are "
                             "left out" % (", ".join(names), "it" if len(names) == 1 else "them"))

    def _ends_at(self, frame: int) -> bool:
        return self.end_frame >= 1 and frame >= self.end_frame

    def _send_motion(self, frame: int) -> None:
        if not self._curves or self._motion is None or self._segment is not None:
            return
        segment = self._curves.segment(next(_segment_ids), frame, self._fps)
        if segment is None:
            return
        what = "motion segment %d (from frame %d)" % (segment.segment_id, frame)
        segment.on_failed = lambda message: self._report(what, RuntimeError(message))
        segment.on_joints_left_out = self._joints_left_out
        self._segment = segment.segment_id
        try:
            self._motion.send(segment)
        except Exception as error:
            self._report("sending motion at frame %d" % frame, error)
            return
        if self._on_motion is not None:
            self._on_motion(segment)

    def _run(self) -> None:
        enter_thread = getattr(self._clock, "enter_thread", None)
        if enter_thread is not None:
            enter_thread()
        start_time = self._start_time
        ticks = 0
        with self._lock:
            base = self._next
        while True:
            deadline = start_time + ticks / self._fps
            woken = self._clock.sleep_until(deadline, self._wake)
            with self._lock:
                if self._quit:
                    return
                if woken or self._rebase:
                    self._wake.clear()
                    if self._rebase:
                        self._rebase = False
                        start_time, ticks, base = self._clock.now(), 0, self._next
                    continue
                frame = base + ticks
                self._position = self.last_frame = frame
                self._next = frame + 1
            if self._on_frame is not None:
                self._on_frame(frame)
            with self._lock:
                if self._quit:
                    return
                if self._rebase:
                    continue
                if self._ends_at(frame):
                    self._segment = None
                    self._next = self.start_frame
                    self._quit = True
                    ended = True
                else:
                    self._send_motion(frame)
                    ended = False
            if ended:
                if self._on_end is not None:
                    self._on_end()
                return
            ticks += 1
