"""What the robot's ALAutonomousLife focus is, as an ActivityFocus message.

ALAutonomousLife has no getter for its focus stack, so :class:`FocusTracker` follows it
from the calls that go through this node (``switchFocus`` with
STOP_AND_STACK_CURRENT pushes, ``stopAll`` and the disabled/safeguard states clear) and
from the robot's transitions (an ``unstacked`` start pops).  libqi may deliver two
transitions out of order: one older (by its ``TransitionTime``) than the newest seen is
stale and ignored.
"""
import threading
from typing import Any, Callable, List, Mapping, Optional

from builtin_interfaces.msg import Time

from naoqi_qicore.msg import ActivityFocus

STOP_CURRENT = 0
STOP_AND_STACK_CURRENT = 1
#: start reason of an activity that gets the focus back from the stack
UNSTACKED = "unstacked"
#: reason libqi reports for an API call that gave none
API_CALLER = "unknown-api-caller"
#: states in which ALAutonomousLife runs no activity (setState calls stopAll)
IDLE_STATES = ("disabled", "safeguard")


class FocusTracker:
    """The focused activity, the previous one with the reasons, and the focus stack."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.focused = ""
        self.previous = ""
        self.start_reason = ""
        self.stop_reason = ""
        self._stack: List[str] = []
        #: TransitionTime of the newest activityTransition applied
        self._newest_transition: Optional[float] = None

    @property
    def stack(self) -> List[str]:
        """Activities waiting on the stack, top first."""
        with self._lock:
            return list(self._stack)

    def switched(self, activity: str, flags: int, previous: str) -> None:
        """``switchFocus(activity, flags)`` succeeded while ``previous`` had the focus.

        The robot's own focus events may arrive before or after this call: both orders
        end in the same state.
        """
        with self._lock:
            if (flags == STOP_AND_STACK_CURRENT and previous and previous != activity
                    and self._stack[:1] != [previous]):
                self._stack.insert(0, previous)
            self._set(activity, API_CALLER, "switchfocus-api-interrupt", previous,
                      unstacked=self._stack[:1] == [activity])

    def focus_stopped(self, stopped: str, focused: str) -> None:
        """``stopFocus()`` stopped ``stopped``; ``focused`` has the focus now ("" if none)."""
        with self._lock:
            if focused == self.focused and self.previous == stopped:
                self.stop_reason = API_CALLER  # the robot reported the change already
                return
            reason = UNSTACKED if focused and self._stack[:1] == [focused] else ""
            self._set(focused, reason, API_CALLER, stopped, unstacked=reason == UNSTACKED)

    def stopped_all(self) -> None:
        """``stopAll()`` succeeded: nothing focused, empty stack."""
        with self._lock:
            self._stack.clear()
            self._set("", "", API_CALLER)

    def transition(self, info: Mapping[str, Any]) -> None:
        """An ``activityTransition`` of the robot (ActivityTransitionInfo fields)."""
        stamp = info.get("TransitionTime")
        with self._lock:
            if isinstance(stamp, (int, float)):
                if self._newest_transition is not None and stamp < self._newest_transition:
                    return  # delivered after a newer one
                self._newest_transition = stamp
            start_reason = str(info.get("FocusedActivityStartReason", ""))
            self._set(str(info.get("FocusedActivityName", "")), start_reason,
                      str(info.get("PreviousActivityStopReason", "")),
                      str(info.get("PreviousActivityName", self.focused)),
                      unstacked=start_reason == UNSTACKED)

    def observed(self, focused: str) -> None:
        """The robot says ``focused`` has the focus (focusedActivity() or its ALMemory event)."""
        with self._lock:
            if focused == self.focused:
                return
            reason = UNSTACKED if self._stack and self._stack[0] == focused else ""
            self._set(focused, reason, "", unstacked=reason == UNSTACKED)

    def state_changed(self, state: str) -> None:
        """ALAutonomousLife entered ``state``; disabled and safeguard clear everything."""
        if state in IDLE_STATES:
            with self._lock:
                self._stack.clear()
                if self.focused:
                    self._set("", "", state + "-state")

    def _set(self, focused: str, start_reason: str, stop_reason: str,
             previous: Optional[str] = None, unstacked: bool = False) -> None:
        """Record a focus change; ``unstacked``: ``focused`` came back from the stack's top."""
        self.previous = self.focused if previous is None else previous
        self.focused, self.start_reason, self.stop_reason = focused, start_reason, stop_reason
        if unstacked and focused and self._stack[:1] == [focused]:
            self._stack.pop(0)

    def message(self, stamp: Time) -> ActivityFocus:
        """The current focus as a message."""
        with self._lock:
            return ActivityFocus(stamp=stamp, focused_activity=self.focused,
                                 previous_activity=self.previous,
                                 start_reason=self.start_reason, stop_reason=self.stop_reason,
                                 focus_stack=list(self._stack))


class LifeObserver:
    """Follows a robot's ALAutonomousLife into a :class:`FocusTracker`.

    :meth:`bind` runs after every (re)connection: it subscribes to
    ``AutonomousLife/State`` and to the ``activityTransition`` signal when the robot has it,
    else to ``AutonomousLife/FocusedActivity``, and reads the current state and focus.
    ``on_state(state)`` and ``on_focus()`` are called on each change, in libqi threads.
    """

    def __init__(self, tracker: FocusTracker, on_state: Callable[[str], None],
                 on_focus: Callable[[], None]) -> None:
        self.tracker = tracker
        self._on_state = on_state
        self._on_focus = on_focus
        self._subscribers: List[Any] = []  # kept alive: a dropped subscriber unsubscribes

    def bind(self, session: Any) -> Optional[Any]:
        """Bind to the robot of ``session``; its ALAutonomousLife proxy, or None when absent."""
        self._subscribers = []
        if "ALAutonomousLife" not in {info["name"] for info in session.services()}:
            return None
        life = session.service("ALAutonomousLife")
        memory = session.service("ALMemory")
        state_subscriber = memory.subscriber("AutonomousLife/State")
        state_subscriber.signal.connect(self._state_changed)
        subscribers = [state_subscriber]
        if hasattr(life, "activityTransition"):
            life.activityTransition.connect(self._transition)
        else:
            focus_subscriber = memory.subscriber("AutonomousLife/FocusedActivity")
            focus_subscriber.signal.connect(self._focused)
            subscribers.append(focus_subscriber)
        self._subscribers = subscribers
        self._state_changed(life.getState())
        self._focused(life.focusedActivity())
        return life

    def _state_changed(self, state: Any) -> None:
        self.tracker.state_changed(str(state))
        self._on_state(str(state))
        self._on_focus()

    def _transition(self, info: Any) -> None:
        self.tracker.transition(dict(info))
        self._on_focus()

    def _focused(self, activity: Any) -> None:
        self.tracker.observed(str(activity or ""))
        self._on_focus()
