"""Simulated body sensors: ALBattery and ALBodyTemperature.

The simulated robot's battery and temperatures stay where they are until the robot's senses
change them (:meth:`ALBattery._set_battery`, :meth:`ALBodyTemperature._set_temperature`,
which ``NaoqiSimPerception.battery`` and ``temperature`` call); each change writes the
ALMemory keys and raises the events the real services raise.
"""
from typing import Any, Dict, List, Tuple

from naoqi_qicore.robot.sim.services.module import SimModule, check_range

BATTERY_CHARGE_KEY = "Device/SubDeviceList/Battery/Charge/Sensor/Value"
#: the simulated robot starts with this charge (%), off its charger
START_CHARGE = 90
#: BatteryLowDetected below this charge (%), BatteryNearlyEmpty below the second
LOW_CHARGE = 20
NEARLY_EMPTY_CHARGE = 7

HEAD_CPU = "Head"
TEMPERATURE_KEY = "Device/SubDeviceList/%s/Temperature/Sensor/Value"
TEMPERATURE_STATUS_KEY = "Device/SubDeviceList/%s/Temperature/Sensor/Status"
#: temperatures (degrees Celsius) the simulated robot starts with
START_CPU_C = 52.0
START_JOINT_C = 32.0
#: temperature status 1, 2, 3 (hot, too hot, critical) from these temperatures (degrees
#: Celsius); 0 below the first
TEMPERATURE_STATUS_C = (70.0, 75.0, 80.0)
CPU_STATUS_C = (90.0, 95.0, 100.0)


class ALBattery(SimModule):
    """The battery's charge (%), whether the robot is plugged in and charging."""

    NAME = "ALBattery"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._charge = START_CHARGE
        self._plugged = False
        self._monitoring = True
        self._memory().insertData(BATTERY_CHARGE_KEY, self._charge / 100.0)

    def getBatteryCharge(self) -> int:
        """The charge in percent."""
        with self._lock:
            return self._charge

    def enablePowerMonitoring(self, enable: bool) -> None:
        """Whether ALBattery raises its events."""
        with self._lock:
            self._monitoring = enable

    def _set_battery(self, charge: int, plugged: bool) -> List[str]:
        """The battery reaches ``charge`` % and is plugged in or not: its ALMemory key and
        the events the change raises (their names are returned)."""
        check_range(self, "battery", "charge", charge, 0, 100)
        with self._lock:
            before, was_plugged = self._charge, self._plugged
            self._charge, self._plugged = int(charge), plugged
            monitoring = self._monitoring
        self._memory().insertData(BATTERY_CHARGE_KEY, charge / 100.0)
        events: List[Tuple[str, Any]] = []
        if charge != before:
            events.append(("BatteryChargeChanged", int(charge)))
        if plugged != was_plugged:
            events.append(("BatteryPowerPluggedChanged", plugged))
            events.append(("BatteryChargingFlagChanged", plugged and charge < 100))
        if charge < LOW_CHARGE <= before:
            events.append(("BatteryLowDetected", True))
        if charge < NEARLY_EMPTY_CHARGE <= before:
            events.append(("BatteryNearlyEmpty", True))
        if charge == 100 and before < 100:
            events.append(("BatteryFullChargedFlagChanged", True))
        if monitoring:
            for key, value in events:
                self._raise_event(key, value)
        return [key for key, _ in events] if monitoring else []


def _status(celsius: float, thresholds: Tuple[float, float, float]) -> int:
    return sum(1 for threshold in thresholds if celsius >= threshold)


class ALBodyTemperature(SimModule):
    """Temperatures of the head processor and of the joints, their status and diagnosis; a
    hot device is notified (ALNotificationManager) while notifications are enabled
    (setEnableNotifications, kept as the API table says)."""

    NAME = "ALBodyTemperature"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        motion = sim.service("ALMotion")
        joints = motion.getBodyNames("Body") if hasattr(motion, "getBodyNames") else []
        self._celsius: Dict[str, float] = {HEAD_CPU: START_CPU_C}
        self._celsius.update((joint, START_JOINT_C) for joint in joints)
        memory = self._memory()
        for device, celsius in self._celsius.items():
            memory.insertData(TEMPERATURE_KEY % device, celsius)
            memory.insertData(TEMPERATURE_STATUS_KEY % device, 0)

    def _device_status(self, device: str) -> int:
        return _status(self._celsius[device], CPU_STATUS_C if device == HEAD_CPU
                       else TEMPERATURE_STATUS_C)

    def _hot(self) -> List[List[Any]]:
        with self._lock:
            return [[device, self._device_status(device)] for device in sorted(self._celsius)
                    if self._device_status(device) > 0]

    def getTemperatureDiagnosis(self) -> List[Any]:
        """``[]`` when nothing is hot, else ``[highest status, [hot devices]]``."""
        hot = self._hot()
        if not hot:
            return []
        return [max(status for _, status in hot), [device for device, _ in hot]]

    def _set_temperature(self, device: str, celsius: float) -> str:
        """``device`` (a joint, or "Head" for the head processor) reaches ``celsius``: its
        ALMemory keys, and ``HotDeviceDetected`` ``[[device, status], ...]`` when a device
        is hot (status > 0).  Returns what changed, for the user."""
        with self._lock:
            if device not in self._celsius:
                raise self._error("temperature", "no device '%s' (Head or a joint: %s)"
                                  % (device, ", ".join(sorted(self._celsius)[:6]) + "..."))
            before = self._device_status(device)
            self._celsius[device] = float(celsius)
            status = self._device_status(device)
        memory = self._memory()
        memory.insertData(TEMPERATURE_KEY % device, float(celsius))
        memory.insertData(TEMPERATURE_STATUS_KEY % device, status)
        if status > 0 and status != before:
            self._raise_event("HotDeviceDetected", self._hot())
            if self.areNotificationsEnabled():
                self._notify(device, status)
        return "%s at %g C (temperature status %d)" % (device, celsius, status)

    def _notify(self, device: str, status: int) -> None:
        try:
            notifications = self._sim.service("ALNotificationManager")
        except RuntimeError:
            return
        notifications._post("warning" if status < 3 else "error",
                            "%s is hot (temperature status %d)" % (device, status))
