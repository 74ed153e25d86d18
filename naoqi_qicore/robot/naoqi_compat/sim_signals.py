"""What only a simulated robot tells: a signal of one of its own services (``NaoqiSimApps``,
``NaoqiSimTasks``) connected to a callback, nothing on a real robot (which has no such
service)."""
from __future__ import annotations

import logging
from typing import Any, Callable, Optional

_LOG = logging.getLogger(__name__)


class SimSignalLink:
    """``callback`` connected to the signal ``signal`` of the service ``service`` of the
    robot of ``session``, when it is a simulated one (:attr:`service` is None otherwise)."""

    def __init__(self, session: Any, service: str, signal: str,
                 callback: Callable[..., None]) -> None:
        self.service: Optional[Any] = None
        self._signal: Optional[Any] = None
        self._link: Optional[int] = None
        try:
            served = session.service(service)
        except RuntimeError:  # a real robot
            return
        self._signal = getattr(served, signal)
        self._link = self._signal.connect(callback)
        self.service = served

    def close(self) -> None:
        """Disconnect the callback (nothing when the robot is gone)."""
        signal, link, self._signal, self._link = self._signal, self._link, None, None
        if signal is not None and link is not None:
            try:
                signal.disconnect(link)
            except RuntimeError as error:  # the robot is gone
                _LOG.debug("disconnecting from the simulated robot: %s", error)
