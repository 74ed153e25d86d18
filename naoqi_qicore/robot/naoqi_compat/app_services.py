"""The services of a behavior's application, failing on the simulated robot: errors of
the run.

A Pepper application often is mostly a service its ``manifest.xml`` declares (started by
a "Run App Script" box, or when the application is installed); the simulated robot runs
it (:mod:`naoqi_qicore.robot.sim.services.service_manager`).  One that cannot start (its
program is missing) or that crashes would leave the run clean and hollow: while a
behavior is loaded, :class:`AppServiceFailures` makes each failure of its application's
services, those since its installation included, an error of the run
(``BoxError(where="app service")``, with the service's traceback).  A real robot runs its
services itself and tells nothing of the kind: nothing is done there.
"""
from __future__ import annotations

import threading
from typing import Any, Dict, Set

from naoqi_qicore.core.environment import BehaviorContext
from naoqi_qicore.core.events import WHERE_APP_SERVICE, BoxError
from naoqi_qicore.core.generated import package_info
from naoqi_qicore.robot.naoqi_compat.sim_signals import SimSignalLink
from naoqi_qicore.robot.robot_apps import SIM_APPS_SERVICE


def _exception_type(traceback: str) -> str:
    """The exception type a Python traceback ends with ("" when it names none)."""
    lines = [line for line in traceback.splitlines() if line.strip()]
    last = lines[-1] if lines and not lines[-1].startswith(" ") else ""
    kind = last.split(":", 1)[0].strip()
    return kind if kind.replace(".", "").replace("_", "").isalnum() and kind else ""


class AppServiceFailures:
    """Errors of the runs of one loaded behavior for its application's service failures."""

    def __init__(self, context: BehaviorContext) -> None:
        self._context = context
        self._package = package_info(context.behavior_path)[0]
        self._lock = threading.Lock()
        self._told: Set[int] = set()
        self._link = SimSignalLink(context.session, SIM_APPS_SERVICE, "serviceFailed",
                                   self._failed)
        if self._link.service is not None:
            for failure in self._link.service.failures(self._package):
                self._failed(failure)

    def _failed(self, failure: Dict[str, Any]) -> None:
        if failure.get("package") != self._package:
            return
        with self._lock:
            if failure["id"] in self._told:
                return
            self._told.add(failure["id"])
        traceback = failure.get("traceback", "")
        self._context.record_error(BoxError(
            "root", WHERE_APP_SERVICE, "%s: %s" % (failure["service"], failure["message"]),
            _exception_type(traceback), traceback))

    def close(self) -> None:
        """The behavior is unloaded: failures are not its errors any more."""
        self._link.close()
