"""Simulated DCM: timed actuator commands (set, aliases) on the DCM clock.

A command list reaches each value at its time by linear change from the current value, as
the real DCM does. LED devices are driven through ALLeds (so ALLeds sees the change); other
devices get their value written to ``Device/SubDeviceList/<device>`` in ALMemory.
"""
from typing import Any, Dict, List

from naoqi_qicore.robot.sim.services.module import Activity, SimModule, check_choice

UPDATE_TYPES = ["Merge", "ClearAll", "ClearAfter", "ClearBefore"]


class DCM(SimModule):
    """Device Communication Manager: getTime, set, createAlias, setAlias."""

    NAME = "DCM"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._start = sim.clock()
        self._aliases: Dict[str, List[str]] = {}
        self._chains: Dict[str, Activity] = {}

    def getTime(self, offset: int) -> int:
        """DCM time in ms, plus ``offset`` ms."""
        return int((self._sim.clock() - self._start) * 1000) + offset

    def _schedule(self, method: str, device: str, update: str, commands: List[Any]) -> None:
        check_choice(self, method, update, UPDATE_TYPES)
        timed = []
        for command in commands:
            if not isinstance(command, (list, tuple)) or len(command) < 2:
                raise self._error(method, "command for '%s' must be [value, time(, importance)]"
                                  % device)
            timed.append((float(command[0]), int(command[1])))
        timed.sort(key=lambda c: c[1])
        activity = Activity()
        with self._lock:
            previous = self._chains.get(device)
            if previous is not None and update != "Merge":
                previous.interrupt()
            self._chains[device] = activity
        self._sim.tasks.start(self._apply, device, timed, activity)

    def _apply(self, device: str, timed: List[Any], activity: Activity) -> None:
        leds = self._sim.service("ALLeds")
        is_led = device in leds.listGroup("AllLeds")
        with self._activity(activity):
            for value, at in timed:
                delay = max(0.0, (at - self.getTime(0)) / 1000.0)
                if is_led:
                    leds.fade(device, min(1.0, max(0.0, value)), delay)
                elif activity.sleep(delay):
                    self._memory().insertData("Device/SubDeviceList/" + device, value)
                if activity.interrupted:
                    return

    def set(self, command: List[Any]) -> None:
        """[device, updateType, [[value, dcmTime(, importance)], ...]]."""
        if len(command) != 3 or not isinstance(command[0], str) or \
                not isinstance(command[2], list):
            raise self._error("set", "expected [device, updateType, [[value, time], ...]]")
        self._schedule("set", command[0], command[1], command[2])

    def createAlias(self, alias: List[Any]) -> List[Any]:
        """[aliasName, [device, ...]] -> the same list."""
        if len(alias) != 2 or not isinstance(alias[0], str) or not isinstance(alias[1], list):
            raise self._error("createAlias", "expected [aliasName, [device, ...]]")
        self._aliases[alias[0]] = [str(device) for device in alias[1]]
        return [alias[0], list(self._aliases[alias[0]])]

    def setAlias(self, commands: List[Any]) -> None:
        """[alias, update, "time-mixed", [[[value, time], ...] per device]] or
        [alias, update, "time-separate", importance, [times], [[values] per device]]."""
        if len(commands) < 4 or commands[0] not in self._aliases:
            raise self._error("setAlias", "unknown alias or malformed command %r"
                              % (commands[:1],))
        devices = self._aliases[commands[0]]
        if commands[2] == "time-mixed":
            per_device = commands[3]
        elif commands[2] == "time-separate" and len(commands) == 6:
            times = commands[4]
            per_device = [[[value, at] for value, at in zip(values, times)]
                          for values in commands[5]]
        else:
            raise self._error("setAlias", "third element must be 'time-mixed' or "
                                          "'time-separate'")
        if len(per_device) != len(devices):
            raise self._error("setAlias", "alias '%s' has %d devices, got %d command lists"
                              % (commands[0], len(devices), len(per_device)))
        for device, device_commands in zip(devices, per_device):
            self._schedule("setAlias", device, commands[1], device_commands)
