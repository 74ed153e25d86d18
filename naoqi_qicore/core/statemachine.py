"""State machines whose transitions are applied in order of arrival on a worker thread.

:class:`TransitionQueue` is the worker: one FIFO of changes, one thread (a behavior
shares one queue between all its state machines, so changes happen in the order they
were asked for).  :class:`StateMachine` is the libqicore ``qi::StateMachine`` contract
(reference §3.8, tests §6.1) without its bugs: :meth:`StateMachine.run` enters the
initial state synchronously; :meth:`~StateMachine.go_to` and transitions are queued; a
transition applies only if its from-state is current when its turn comes; :meth:`stop`
really leaves the current state.  A state change calls ``on_change(previous, new)``
once, in the worker (or in the caller for ``run``).
"""
from __future__ import annotations

import collections
import logging
import threading
from typing import Any, Callable, Deque, Generic, Hashable, Optional, Set, TypeVar

_LOG = logging.getLogger(__name__)

State = TypeVar("State", bound=Hashable)


class TransitionQueue:
    """A FIFO of callables run one at a time by a daemon thread started on demand."""

    def __init__(self, name: str = "transitions",
                 on_error: Optional[Callable[[BaseException], None]] = None) -> None:
        self._name = name
        self._on_error = on_error
        self._condition = threading.Condition()
        self._items: Deque[Callable[[], None]] = collections.deque()
        self._thread: Optional[threading.Thread] = None
        self._busy = False
        self._closed = False

    def submit(self, change: Callable[[], None]) -> None:
        """Queue ``change``; it runs after every change queued before it."""
        with self._condition:
            if self._closed:
                return
            self._items.append(change)
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name=self._name, daemon=True)
                self._thread.start()
            self._condition.notify_all()

    def in_worker(self) -> bool:
        """True when called from the worker thread."""
        return threading.current_thread() is self._thread

    def wait_idle(self, timeout: Optional[float] = None) -> bool:
        """Wait until the queue is empty and nothing runs; False on timeout."""
        if self.in_worker():
            return not self._items
        with self._condition:
            return self._condition.wait_for(lambda: not self._items and not self._busy, timeout)

    def close(self, timeout: float = 5.0) -> None:
        """Drop what is queued and end the thread (after the change in progress)."""
        with self._condition:
            self._closed = True
            self._items.clear()
            self._condition.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def _work(self) -> None:
        while True:
            with self._condition:
                self._busy = False
                self._condition.notify_all()
                self._condition.wait_for(lambda: self._items or self._closed)
                if self._closed:
                    return
                change = self._items.popleft()
                self._busy = True
            try:
                change()
            except BaseException as error:  # one failing change must not stop the others
                if self._on_error is not None:
                    self._on_error(error)
                else:
                    _LOG.exception("state change failed")


class Transition(Generic[State]):
    """A change from one state to another, applied when triggered."""

    def __init__(self, machine: "StateMachine[State]", source: State, target: State) -> None:
        self.machine = machine
        self.source = source
        self.target = target

    def trigger(self) -> None:
        """Queue the change; it applies only if ``source`` is current when its turn comes."""
        self.machine._enqueue(self.target, self.source)


_ANY = object()


class StateMachine(Generic[State]):
    """States, one initial state, final states, and queued changes between states."""

    def __init__(self, on_change: Optional[Callable[[Optional[State], Optional[State]], None]]
                 = None, queue: Optional[TransitionQueue] = None,
                 lock: Optional[Any] = None) -> None:
        self._on_change = on_change
        self._owns_queue = queue is None
        self._queue = queue if queue is not None else TransitionQueue("state machine")
        #: guards the machine and is held during ``on_change`` (share the owner's lock to
        #: keep one lock order)
        self._lock = lock if lock is not None else threading.RLock()
        self._states: Set[State] = set()
        self._finals: Set[State] = set()
        self._initial: Optional[State] = None
        self._current: Optional[State] = None
        self._running = False

    # -- structure -------------------------------------------------------------------------
    def add_state(self, state: State) -> None:
        with self._lock:
            self._states.add(state)

    def set_initial_state(self, state: State) -> bool:
        """Make ``state`` the initial state; False if it is not a state of the machine."""
        with self._lock:
            if state not in self._states:
                return False
            self._initial = state
            return True

    def set_final_state(self, state: State) -> bool:
        with self._lock:
            if state not in self._states:
                return False
            self._finals.add(state)
            return True

    def remove_final_state(self, state: State) -> bool:
        with self._lock:
            if state not in self._finals:
                return False
            self._finals.discard(state)
            return True

    def transition(self, source: State, target: State) -> Transition[State]:
        """A transition between two states of the machine."""
        with self._lock:
            for state in (source, target):
                if state not in self._states:
                    raise ValueError("%r is not a state of this machine" % (state,))
        return Transition(self, source, target)

    # -- running ---------------------------------------------------------------------------
    @property
    def current(self) -> Optional[State]:
        with self._lock:
            return self._current

    @property
    def running(self) -> bool:
        with self._lock:
            return self._running

    def is_on_final_state(self) -> bool:
        with self._lock:
            return self._current is not None and self._current in self._finals

    def run(self) -> None:
        """Enter the initial state now, in this thread; no-op while already running."""
        with self._lock:
            if self._running:
                return
            if self._initial is None:
                raise ValueError("the state machine has no initial state")
            self._running = True
            self._apply(self._initial)

    def go_to(self, state: State) -> None:
        """Queue a change to ``state`` (any state of the machine); never blocks."""
        if state not in self._states:  # states are only added before running
            raise ValueError("%r is not a state of this machine" % (state,))
        self._enqueue(state, _ANY)

    def stop(self) -> None:
        """Queue leaving the current state; the machine then runs no state."""
        self._enqueue(None, _ANY)

    def stop_now(self) -> None:
        """Leave the current state in this thread (queued changes still pending are dropped
        when their turn comes, since the machine no longer runs)."""
        with self._lock:
            if self._running:
                self._apply(None)

    def wait_idle(self, timeout: Optional[float] = None) -> bool:
        """Wait until every queued change is applied."""
        return self._queue.wait_idle(timeout)

    def close(self) -> None:
        """Stop the worker if this machine owns it."""
        if self._owns_queue:
            self._queue.close()

    # -- internals -------------------------------------------------------------------------
    def _enqueue(self, target: Optional[State], source: Any) -> None:
        def change() -> None:
            with self._lock:
                if not self._running:
                    return
                if source is not _ANY and self._current != source:
                    return
                self._apply(target)
        self._queue.submit(change)

    def _apply(self, target: Optional[State]) -> None:
        previous = self._current
        if target is None:
            self._running = False
        if target == previous and target is not None:
            return
        self._current = target
        if self._on_change is not None:
            self._on_change(previous, target)
