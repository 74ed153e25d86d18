"""SIGINT and SIGTERM during a conversion: an exception that unwinds it, so that what it
was writing is removed on the way out, and a way to hold them back for a moment."""
from __future__ import annotations

import contextlib
import signal
from typing import Iterator

#: the signals that stop a conversion
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived (``signum``): unwinds the conversion."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _ignore(_signum: int, _frame: object) -> None:
    """A signal handler doing nothing: unlike SIG_IGN, it also quietly swallows a signal
    received before it was set but not yet handled by Python."""


def raise_interrupted(signum: int, _frame: object) -> None:
    """The handler of :data:`STOP_SIGNALS`: raises :class:`Interrupted`; the signals that
    follow are ignored, so that the clean-up finishes."""
    for sig in STOP_SIGNALS:
        signal.signal(sig, _ignore)
    raise Interrupted(signum)


@contextlib.contextmanager
def stop_signals_raise() -> Iterator[None]:
    """Inside the block, :data:`STOP_SIGNALS` raise :class:`Interrupted` (in the main thread,
    the only one receiving signals); the previous handlers come back after it."""
    try:
        previous = {sig: signal.signal(sig, raise_interrupted) for sig in STOP_SIGNALS}
    except ValueError:  # not the main thread (signal says so): signals never reach this one
        previous = {}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@contextlib.contextmanager
def stop_signals_held() -> Iterator[None]:
    """:data:`STOP_SIGNALS` held back (where the platform can) until the block ends: a
    handler raising in the middle of it would leave what it made unknown to the caller."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, set(STOP_SIGNALS))
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
