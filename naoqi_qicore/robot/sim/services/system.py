"""Simulated system services: ALSystem, ALPreferenceManager, ALAppsAnalytics,
ALNotificationManager (ALServiceManager: :mod:`~naoqi_qicore.robot.sim.services.service_manager`).

Shutdown and reboot are recorded (``ALSystem.requests`` and an ALMemory event), never run.
"""
from typing import Any, Dict, List

from lxml import etree

from naoqi_qicore.robot.sim.services.module import SimModule
from naoqi_qicore.xar.elements import safe_xml_parser

SYSTEM_VERSION = "2.8.6.23"
TOTAL_MEMORY_KB = 4 * 1024 * 1024


class ALSystem(SimModule):
    """Robot name, versions, time zone, memory and disk figures, power requests."""

    NAME = "ALSystem"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._name = sim.robot
        self._timezone = "Europe/Paris"
        self.requests: List[str] = []

    def robotName(self) -> str:
        """Name of the robot."""
        return self._name

    def setRobotName(self, name: str) -> bool:
        """Rename the robot (letters, digits, "-" and "_" only)."""
        if not name or not all(c.isalnum() or c in "-_" for c in name):
            raise self._error("setRobotName", "invalid robot name '%s'" % name)
        self._name = name
        return True

    def robotIcon(self) -> List[int]:
        """The robot's icon (an empty image)."""
        return []

    def systemVersion(self) -> str:
        """NAOqi OS version, e.g. "2.8.6.23"."""
        return SYSTEM_VERSION

    def previousSystemVersion(self) -> str:
        """Version before the last upgrade."""
        return SYSTEM_VERSION

    def timezone(self) -> str:
        """Time zone, e.g. "Europe/Paris"."""
        return self._timezone

    def setTimezone(self, timezone: str) -> None:
        """Set the time zone ("Area/City")."""
        if "/" not in timezone:
            raise self._error("setTimezone", "'%s' is not an Area/City time zone" % timezone)
        self._timezone = timezone

    def freeMemory(self) -> int:
        """Free RAM in kB."""
        return TOTAL_MEMORY_KB // 2

    def totalMemory(self) -> int:
        """Total RAM in kB."""
        return TOTAL_MEMORY_KB

    def diskFree(self, all: bool) -> List[List[Any]]:
        """[[partition, [["Total", kB], ["Free", kB]]]] for the user partition (all: every one)."""
        partitions = ["/home/nao"] + (["/"] if all else [])
        return [[p, [["Total", 32 * 1024 * 1024], ["Free", 16 * 1024 * 1024]]] for p in partitions]

    def _request(self, what: str) -> bool:
        self.requests.append(what)
        self._sim.log.warning("ALSystem.%s requested (recorded, not executed)", what)
        self._raise_event("ALSystem/" + what, 1)
        return True

    def shutdown(self) -> bool:
        """Record a shutdown request."""
        return self._request("shutdown")

    def reboot(self) -> bool:
        """Record a reboot request."""
        return self._request("reboot")


class ALPreferenceManager(SimModule):
    """Preferences: domain -> setting -> value, settable and importable from XML files."""

    NAME = "ALPreferenceManager"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._domains: Dict[str, Dict[str, Any]] = {}

    def getValue(self, domain: str, setting: str) -> Any:
        """Value of a setting, or None when unset."""
        with self._lock:
            return self._domains.get(domain, {}).get(setting)

    def setValue(self, domain: str, setting: str, value: Any) -> None:
        """Set a setting."""
        with self._lock:
            self._domains.setdefault(domain, {})[setting] = value
        self._raise_event("preferenceUpdated", [domain, setting, value])

    def removeValue(self, domain: str, setting: str) -> None:
        """Remove a setting."""
        with self._lock:
            self._domains.get(domain, {}).pop(setting, None)
            if domain in self._domains and not self._domains[domain]:
                del self._domains[domain]

    def getValueList(self, domain: str) -> List[List[Any]]:
        """[[setting, value]] of a domain."""
        with self._lock:
            return [[k, v] for k, v in sorted(self._domains.get(domain, {}).items())]

    def removeDomainValues(self, domain: str) -> None:
        """Remove a whole domain."""
        with self._lock:
            self._domains.pop(domain, None)

    def getDomainList(self) -> List[str]:
        """Domains holding settings."""
        with self._lock:
            return sorted(self._domains)

    def importPrefFile(self, path: str, override: bool) -> None:
        """Import ``<ModulePreference name=domain><Preference name=.. value=..>`` files of
        the robot's files (no entity is expanded)."""
        place = self._file("importPrefFile", path)
        if not place.is_file():
            raise self._error("importPrefFile", "file '%s' does not exist" % path)
        try:
            with place.open_read() as stream:
                root = etree.parse(stream, safe_xml_parser()).getroot()
        except OSError as error:
            raise self._file_failed("importPrefFile", "read", path, error) from None
        except etree.XMLSyntaxError as error:
            raise self._error("importPrefFile", "%s: not a preference file (%s)"
                              % (path, error.msg))
        domain = root.get("name")
        if not domain:
            raise self._error("importPrefFile", "%s: the root element has no name" % path)
        for preference in root.iter("Preference"):
            setting = preference.get("name")
            if setting and (override or self.getValue(domain, setting) is None):
                self.setValue(domain, setting, preference.get("value", ""))

    def update(self) -> None:
        """Synchronise with the cloud (nothing to fetch in simulation)."""


class ALAppsAnalytics(SimModule):
    """Usage reports of applications, kept in memory."""

    NAME = "ALAppsAnalytics"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self.reports: List[List[Any]] = []

    def push_mood(self, packageUid: str, mood: Any) -> None:
        """Report the user's mood for an application."""
        self.reports.append([packageUid, mood])


NOTIFICATION_SEVERITIES = ("info", "warning", "error")


class ALNotificationManager(SimModule):
    """Notifications the robot has to tell: added, read (``notification``), removed."""

    NAME = "ALNotificationManager"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._notifications: Dict[int, Dict[str, Any]] = {}
        self._next_id = 1

    def add(self, notification: Dict[str, Any]) -> int:
        """Add ``{"message", "severity" (info, warning, error), "removeOnRead"}``; returns
        its id (``NotificationAdded`` is raised with it)."""
        message = notification.get("message")
        if not isinstance(message, str) or not message:
            raise self._error("add", "a notification needs a non-empty \"message\"")
        severity = notification.get("severity", "info")
        if severity not in NOTIFICATION_SEVERITIES:
            raise self._error("add", "severity must be one of %s, got %r"
                              % (", ".join(NOTIFICATION_SEVERITIES), severity))
        with self._lock:
            number, self._next_id = self._next_id, self._next_id + 1
            self._notifications[number] = {
                "id": number, "message": message, "severity": severity,
                "removeOnRead": bool(notification.get("removeOnRead", True))}
        self._raise_event("NotificationAdded", number)
        return number

    def _post(self, severity: str, message: str) -> int:
        """A notification of the robot itself (a hot joint...)."""
        return self.add({"message": message, "severity": severity, "removeOnRead": True})

    def notification(self, notificationId: int) -> Dict[str, Any]:
        """The notification ``notificationId`` (read: removed if it says removeOnRead)."""
        with self._lock:
            found = self._notifications.get(notificationId)
            if found is None:
                raise self._error("notification", "no notification %d" % notificationId)
            found = dict(found)
        if found["removeOnRead"]:
            self.remove(notificationId)
        return found

    def notifications(self) -> List[Dict[str, Any]]:
        """Every pending notification, oldest first."""
        with self._lock:
            return [dict(n) for _, n in sorted(self._notifications.items())]

    def remove(self, notificationId: int) -> bool:
        """Remove a notification (``NotificationRemoved``); False if there is none."""
        with self._lock:
            found = self._notifications.pop(notificationId, None)
        if found is not None:
            self._raise_event("NotificationRemoved", notificationId)
        return found is not None
