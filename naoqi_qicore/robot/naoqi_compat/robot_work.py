"""What a behavior's box code started on the robot, and stopping it when a run ends.

On NAOqi a box stops what it started in its onStop or onUnload (``tts.stop(id)``...).  Box
code that the stop ends before it gets there (a Say box whose ``post.say`` had not answered
yet, a box blocked in ``ALLeds.rasta``) leaves its work running on the robot: sentences
pile up in the speech queue, sounds and LED animations play on, the robot keeps walking.
:class:`RobotWork` keeps, for one behavior, the robot calls of its box code that have not
answered yet and the tasks it posted (``proxy.post.x()``, ``pCall``); :meth:`RobotWork.stop`
(the box environment's ``stop``, which the engine calls each time a run ends, once box code
can no longer call the robot) stops them:

* a posted task: ``service.stop(id)``;
* a call still waiting for its answer: cancelled (libqi asks the robot to cancel it), and
  stopped as its service stops such work (:func:`stop_calls`): speech
  (ALTextToSpeech, ALAnimatedSpeech) by ``ALTextToSpeech.stopAll``, sounds by
  ``ALAudioPlayer.stopAll``, LED animations by ``ALLeds.reset`` of the LEDs they animate,
  walks by ``ALMotion.stopMove``, joint moves by ``ALMotion.killTasksUsingResources``;
* calls that answer at once but leave the robot moving (:data:`LASTING`): ``stopMove``;
* services of applications box code started (``ALServiceManager.startService``, the "Run
  App Script" box): ``stopService``, unless box code stopped them itself.

A post answered after the stop (it was on its way when the behavior stopped) is stopped as
soon as its answer comes.  Each post's task id, with the box that posted it, is told to
the ``posted`` listener (the failures of posted calls are warnings of the run:
:mod:`~naoqi_qicore.robot.naoqi_compat.posted_calls`).
"""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

from naoqi_qicore.core.guard import BoxCodeGuard

_LOG = logging.getLogger(__name__)

#: longest wait for the robot to answer the stop calls of one run end (s)
STOP_TIMEOUT = 1.0
POST_METHOD = "pCall"
#: ALTextToSpeech and ALAnimatedSpeech methods that speak (``ALTextToSpeech.stopAll``)
SPEAKS = ("say", "sayToFileAndPlay")
#: ALLeds methods that animate the LEDs they name first (``reset`` of those LEDs)
LED_FADES = ("fade", "fadeRGB", "fadeListRGB")
#: LED animations that do not name the LEDs they animate -> the group they animate
LED_ANIMATIONS = {"rasta": "AllLeds", "randomEyes": "FaceLeds", "rotateEyes": "FaceLeds",
                  "earLedsSetAngle": "EarLeds"}
#: ALMotion methods that walk the robot (``stopMove``)
WALKS = ("moveTo", "walkTo", "move", "moveToward", "setWalkTargetVelocity", "setWalkVelocity")
#: ALMotion methods that move the joints they name first (``killTasksUsingResources``)
JOINT_MOVES = ("angleInterpolation", "angleInterpolationWithSpeed",
               "angleInterpolationBezier", "setAngles", "changeAngles")
#: (service, method) calls that answer at once but leave the robot doing something
LASTING = {("ALMotion", "move"), ("ALMotion", "moveToward"),
           ("ALMotion", "setWalkTargetVelocity"), ("ALMotion", "setWalkVelocity")}

#: (service, method) calls that start something another call of the same service stops,
#: given the same first argument -> that method
UNDONE_BY = {("ALServiceManager", "startService"): "stopService"}

#: a call to make on the robot: (service, method, arguments)
StopCall = Tuple[str, str, Tuple[Any, ...]]


@dataclass(frozen=True)
class RobotCall:
    """A call of box code to the robot: ``service.method(*args)``."""

    service: str
    method: str
    args: Tuple[Any, ...]


def _names(value: Any) -> List[str]:
    """Joint or LED names given as one name or a list of them ([] for anything else)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, str) for v in value):
        return list(value)
    return []


def stop_calls(call: RobotCall) -> List[StopCall]:
    """The robot calls that stop the work of ``call`` while it has not answered (none for
    a call that leaves nothing running: a getter, an instant change)."""
    first = call.args[0] if call.args else None
    if call.service in ("ALTextToSpeech", "ALAnimatedSpeech") and call.method in SPEAKS:
        return [("ALTextToSpeech", "stopAll", ())]
    if call.service == "ALAudioPlayer" and call.method.startswith("play"):
        return [("ALAudioPlayer", "stopAll", ())]
    if call.service == "ALLeds":
        groups = ([LED_ANIMATIONS[call.method]] if call.method in LED_ANIMATIONS
                  else _names(first) if call.method in LED_FADES else [])
        return [("ALLeds", "reset", (group,)) for group in groups]
    if call.service == "ALMotion" and call.method in WALKS:
        return [("ALMotion", "stopMove", ())]
    if call.service == "ALMotion" and call.method in JOINT_MOVES and _names(first):
        return [("ALMotion", "killTasksUsingResources", (_names(first),))]
    undo = UNDONE_BY.get((call.service, call.method))
    if undo is not None and call.args:
        return [(call.service, undo, call.args[:1])]
    return []


#: hears each call box code posts: ``posted(box, "ALAudioPlayer.playFile", task_id)``
PostListener = Callable[[str, str, int], None]


class RobotWork:
    """The robot work of one behavior's box code (module doc); ``session`` reaches the
    robot, ``guard`` says whether the behavior is stopped and which box calls, ``posted``
    hears the posts."""

    def __init__(self, session: Any, guard: BoxCodeGuard,
                 posted: Optional[PostListener] = None) -> None:
        self._session = session
        self._guard = guard
        self._posted = posted
        self._lock = threading.Lock()
        #: calls waiting for their answer: id of their future -> (call, future)
        self._pending: Dict[int, Tuple[RobotCall, Any]] = {}
        #: what stops the work that answered calls left running (a dict as an ordered set)
        self._left: Dict[StopCall, None] = {}

    def started(self, service: str, method: str, args: Tuple[Any, ...], future: Any) -> None:
        """Box code called ``service.method(*args)``; ``future`` is the robot's answer."""
        call = RobotCall(service, method, args)
        with self._lock:
            self._pending[id(future)] = (call, future)
        if self._guard.closed:  # stopped meanwhile: the run's stop may have missed it
            self._stop_pending([id(future)])
        future.addCallback(lambda answered: self._answered(call, answered))
        if method == POST_METHOD and args and self._posted is not None:
            box, listener = self._guard.current_box() or "root", self._posted
            what = "%s.%s" % (service, args[0])
            future.addCallback(lambda answered: answered.hasError() or answered.isCanceled()
                               or listener(box, what, int(answered.value())))

    def _answered(self, call: RobotCall, future: Any) -> None:
        """The robot answered ``call``: remember what stops the work it left running, or
        stop it now when the behavior is already stopped."""
        with self._lock:
            self._pending.pop(id(future), None)
        if future.hasError() or future.isCanceled():
            return
        if call.method in ("stop", "wait") and call.args and not future.value():
            with self._lock:  # box code stopped its task, or saw it end
                self._left.pop((call.service, "stop", (call.args[0],)), None)
            return
        if call.method in UNDONE_BY.values() and call.args:
            with self._lock:  # box code undid it itself
                self._left.pop((call.service, call.method, (call.args[0],)), None)
            return
        undo = UNDONE_BY.get((call.service, call.method))
        if call.method == POST_METHOD:
            stop: StopCall = (call.service, "stop", (int(future.value()),))
        elif (call.service, call.method) in LASTING:
            stop = ("ALMotion", "stopMove", ())
        elif undo is not None and call.args and future.value():
            stop = (call.service, undo, (call.args[0],))
        else:
            return
        with self._lock:
            self._left[stop] = None
        if self._guard.closed:  # answered after the run's stop
            with self._lock:
                late = self._left.pop(stop, "taken") is None
            if late:  # libqi's thread that delivers answers must not wait for one
                threading.Thread(target=self._run, args=([stop],), daemon=True,
                                 name="late robot stop").start()

    def stop(self) -> None:
        """Stop what box code started and still runs on the robot (module doc); returns once
        the robot answered, :data:`STOP_TIMEOUT` s at most."""
        with self._lock:
            pending = list(self._pending)
            left, self._left = list(self._left), {}
        self._stop_pending(pending, left)

    def _stop_pending(self, keys: List[int], stops: Optional[List[StopCall]] = None) -> None:
        """Cancel the pending calls of ``keys`` and stop their work, with ``stops``."""
        with self._lock:
            calls = [self._pending.pop(key) for key in keys if key in self._pending]
        stops = list(stops or [])
        for call, future in calls:
            if call.method == POST_METHOD:
                continue  # its answer, the task id, stops it (see _answered)
            try:
                future.cancel()
            except RuntimeError as error:  # the robot is gone
                _LOG.debug("cancelling %s.%s: %s", call.service, call.method, error)
            stops += [stop for stop in stop_calls(call) if stop not in stops]
        self._run(stops)

    def _run(self, stops: List[StopCall]) -> None:
        """Make the ``stops`` calls at once and wait for their answers (none on a session
        that is not connected: the robot is gone, and with it what box code started)."""
        connected = getattr(self._session, "isConnected", None)
        if not stops or (connected is not None and not connected()):
            return
        answers = []
        for service, method, args in stops:
            try:
                target = getattr(self._session.service(service), method)
                answers.append(("%s.%s" % (service, method), target(*args, _async=True)))
            except Exception as error:  # a robot without that service, or gone
                _LOG.debug("stopping box code's robot work: %s.%s: %s", service, method, error)
        deadline = time.monotonic() + STOP_TIMEOUT
        for what, answer in answers:
            answer.wait(max(0, int((deadline - time.monotonic()) * 1000)))
            if not answer.isFinished() or answer.hasError():
                _LOG.debug("stopping box code's robot work: %s: %s", what,
                           answer.error() if answer.isFinished() else "no answer")
