"""What the robot's ALAutonomousLife focus is, as an ActivityFocus message.

ALAutonomousLife has no getter for its focus stack, so :class:`FocusTracker` follows it
from the calls that go through this node (``switchFocus`` with
STOP_AND_STACK_CURRENT pushes, ``stopAll`` and the disabled/safeguard states clear) and
from the robot's transitions (an ``unstacked`` start pops).  libqi may deliver two
transitions out of order: one older (by its ``TransitionTime``) than the newest seen is
stale and ignored.

The robot names no caller (its start reason for any switchFocus is ``unknown-api-caller``):
the tracker knows which changes its own node's calls made and names that node and call in
``changed_by`` and ``change_call``, whichever of the call's answer and the robot's report of
the change comes first.
"""
import threading
from typing import Any, Callable, List, Mapping, Optional, Tuple

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
#: the calls of the tracker's node that change the focus (``change_call``)
SWITCH_FOCUS, STOP_FOCUS, STOP_ALL = "switchFocus", "stopFocus", "stopAll"


class FocusTracker:
    """The focused activity, the previous one with the reasons, who changed it, and the
    focus stack; ``node`` is the fully qualified name of the node whose calls it is told of."""

    def __init__(self, node: str = "") -> None:
        self._lock = threading.Lock()
        self.node = node
        self.focused = ""
        self.previous = ""
        self.start_reason = ""
        self.stop_reason = ""
        #: the node's call that made the current change ("" when the robot or another client
        #: of it did)
        self.change_call = ""
        self._stack: List[str] = []
        #: TransitionTime of the newest activityTransition applied
        self._newest_transition: Optional[float] = None
        #: the node's call on its way: (call, activity, flags, previous); switchFocus gives
        #: ``activity`` the focus, stopFocus stops it
        self._calling: Optional[Tuple[str, str, int, str]] = None
        #: the content of the message :meth:`changed_message` returned last
        self._last_message: Optional[tuple] = None

    @property
    def stack(self) -> List[str]:
        """Activities waiting on the stack, top first."""
        with self._lock:
            return list(self._stack)

    def switching(self, activity: str, flags: int, previous: str) -> None:
        """The node calls ``switchFocus(activity, flags)`` while ``previous`` has the focus:
        the robot's report of ``activity`` taking the focus before the answer is this call's
        (then :meth:`switched`, or :meth:`call_failed`)."""
        with self._lock:
            self._calling = (SWITCH_FOCUS, activity, flags, previous)

    def stopping(self, activity: str) -> None:
        """The node calls ``stopFocus()`` while ``activity`` has the focus: the robot's report
        of ``activity`` losing it before the answer is this call's (then :meth:`focus_stopped`,
        or :meth:`call_failed`)."""
        with self._lock:
            self._calling = (STOP_FOCUS, activity, STOP_CURRENT, activity)

    def call_failed(self) -> None:
        """The node's switchFocus or stopFocus failed or got no answer."""
        with self._lock:
            self._calling = None

    def switched(self, activity: str, flags: int, previous: str) -> None:
        """The node's ``switchFocus(activity, flags)`` succeeded while ``previous`` had the
        focus.

        The robot's own focus events may arrive before or after this call: both orders
        end in the same state.
        """
        with self._lock:
            self._calling = None
            self._switched(activity, flags, previous)

    def focus_stopped(self, stopped: str, focused: str) -> None:
        """The node's ``stopFocus()`` stopped ``stopped``; ``focused`` has the focus now
        ("" if none)."""
        with self._lock:
            self._calling = None
            self._focus_stopped(stopped, focused)

    def stopped_all(self) -> None:
        """The node's ``stopAll()`` succeeded: nothing focused, empty stack."""
        with self._lock:
            self._stack.clear()
            if self.focused:  # else the robot reported the change already, or none was made
                self._set("", "", API_CALLER, call=STOP_ALL)

    def _switched(self, activity: str, flags: int, previous: str) -> None:
        if (flags == STOP_AND_STACK_CURRENT and previous and previous != activity
                and self._stack[:1] != [previous]):
            self._stack.insert(0, previous)
        self._set(activity, API_CALLER, "switchfocus-api-interrupt" if previous else "",
                  previous, unstacked=self._stack[:1] == [activity], call=SWITCH_FOCUS)

    def _focus_stopped(self, stopped: str, focused: str) -> None:
        if focused == self.focused and self.previous == stopped:
            # the robot reported the change already
            self.stop_reason, self.change_call = API_CALLER, STOP_FOCUS
            return
        reason = UNSTACKED if focused and self._stack[:1] == [focused] else ""
        self._set(focused, reason, API_CALLER, stopped, unstacked=reason == UNSTACKED,
                  call=STOP_FOCUS)

    def _reported_call(self, focused: str, previous: Optional[str]) -> bool:
        """The robot reports ``focused`` has the focus now (after ``previous``, None when it
        does not say): whether that is the change of the node's call on its way (then
        applied as that call's answer will be)."""
        if self._calling is None:
            return False
        call, activity, flags, before = self._calling
        if call == SWITCH_FOCUS and focused == activity:
            self._switched(activity, flags, before)
        elif call == STOP_FOCUS and focused != activity and previous in (None, activity):
            self._focus_stopped(activity, focused)
        else:
            return False
        return True

    def transition(self, info: Mapping[str, Any]) -> None:
        """An ``activityTransition`` of the robot (ActivityTransitionInfo fields)."""
        stamp = info.get("TransitionTime")
        with self._lock:
            if isinstance(stamp, (int, float)):
                if self._newest_transition is not None and stamp < self._newest_transition:
                    return  # delivered after a newer one
                self._newest_transition = stamp
            focused = str(info.get("FocusedActivityName", ""))
            previous = str(info.get("PreviousActivityName", self.focused))
            if self._reported_call(focused, previous):
                return
            start_reason = str(info.get("FocusedActivityStartReason", ""))
            # the robot's report of a change the node's call made already is that change
            echo = (focused, previous) == (self.focused, self.previous)
            self._set(focused, start_reason, str(info.get("PreviousActivityStopReason", "")),
                      previous, unstacked=start_reason == UNSTACKED,
                      call=self.change_call if echo else "")

    def observed(self, focused: str) -> None:
        """The robot says ``focused`` has the focus (focusedActivity() or its ALMemory event)."""
        with self._lock:
            if focused == self.focused or self._reported_call(focused, None):
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
             previous: Optional[str] = None, unstacked: bool = False, call: str = "") -> None:
        """Record a focus change (made by the node's ``call``, "" for none); ``unstacked``:
        ``focused`` came back from the stack's top."""
        self.previous = self.focused if previous is None else previous
        self.focused, self.start_reason, self.stop_reason = focused, start_reason, stop_reason
        self.change_call = call
        if unstacked and focused and self._stack[:1] == [focused]:
            self._stack.pop(0)

    def _content(self) -> tuple:
        return (self.focused, self.previous, self.start_reason, self.stop_reason,
                self.node if self.change_call else "", self.change_call, tuple(self._stack))

    def message(self, stamp: Time) -> ActivityFocus:
        """The current focus as a message."""
        with self._lock:
            return self._message(stamp, self._content())

    def changed_message(self, stamp: Time) -> Optional[ActivityFocus]:
        """The current focus as a message if it differs (stamp aside) from the one this
        returned last, else None: a node publishes each focus once, however many of its
        calls and the robot's events told it."""
        with self._lock:
            content = self._content()
            if content == self._last_message:
                return None
            self._last_message = content
            return self._message(stamp, content)

    @staticmethod
    def _message(stamp: Time, content: tuple) -> ActivityFocus:
        focused, previous, start_reason, stop_reason, changed_by, change_call, stack = content
        return ActivityFocus(stamp=stamp, focused_activity=focused, previous_activity=previous,
                             start_reason=start_reason, stop_reason=stop_reason,
                             changed_by=changed_by, change_call=change_call,
                             focus_stack=list(stack))


def focus_details(focus: Any) -> List[str]:
    """What an ActivityFocus says beside the focused activity, as phrases for people: a change
    a node's call made names that node and call (the robot's reason for any call is
    ``unknown-api-caller``), e.g. "started by /behavior_runner (switchFocus)"."""
    details = []
    if focus.previous_activity:
        details.append("previous " + focus.previous_activity)
    caller = "by %s (%s)" % (focus.changed_by, focus.change_call) if focus.changed_by else ""
    if caller and focus.change_call == SWITCH_FOCUS:
        details.append("started " + caller)
    elif focus.start_reason:
        details.append("started: " + focus.start_reason)
    if caller and focus.change_call != SWITCH_FOCUS:
        details.append("previous stopped " + caller)
    elif focus.stop_reason:
        details.append("previous stopped: " + focus.stop_reason)
    if focus.focus_stack:
        details.append("stack " + ", ".join(focus.focus_stack))
    return details


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
