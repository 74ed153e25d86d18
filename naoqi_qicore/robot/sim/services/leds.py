"""Simulated ALLeds: every LED of NAO or Pepper, NAOqi's groups, and fades that take time.

An LED's intensity is computed from its current fade (start value, target, start and end
times), so it evolves with the clock without a thread per fade.
"""
import random
from dataclasses import dataclass
from typing import Any, Dict, List

from naoqi_qicore.robot.sim.services.module import SimModule, check_range

COLORS = ("Red", "Green", "Blue")
SIDES = ("Left", "Right")
FACE_ANGLES = range(0, 360, 45)
EAR_ANGLES = range(0, 360, 36)
BRAIN = [("Front", 0), ("Front", 1), ("Middle", 0), ("Rear", 0), ("Rear", 1), ("Rear", 2)]
NAMED_COLORS = {"white": 0xFFFFFF, "red": 0xFF0000, "green": 0x00FF00, "blue": 0x0000FF,
                "yellow": 0xFFFF00, "magenta": 0xFF00FF, "cyan": 0x00FFFF}


def _face(side: str, angle: int, color: str) -> str:
    return "Face/Led/%s/%s/%dDeg/Actuator/Value" % (color, side, angle)


def _ear(side: str, angle: int) -> str:
    return "Ears/Led/%s/%dDeg/Actuator/Value" % (side, angle)


def led_groups(robot: str) -> Dict[str, List[str]]:
    """NAOqi's LED groups for ``robot`` ("nao" or "pepper"), group name -> LED names."""
    groups: Dict[str, List[str]] = {}
    for side in SIDES:
        groups[side + "FaceLeds"] = [_face(side, a, c) for a in FACE_ANGLES for c in COLORS]
        for color in COLORS:
            groups[side + "FaceLeds" + color] = [_face(side, a, color) for a in FACE_ANGLES]
        for index, angle in enumerate(FACE_ANGLES):
            groups["%sFaceLed%d" % (side, index + 1)] = [_face(side, angle, c) for c in COLORS]
        groups[side + "EarLeds"] = [_ear(side, a) for a in EAR_ANGLES]
        for index, angle in enumerate(EAR_ANGLES):
            groups["%sEarLed%d" % (side, index + 1)] = [_ear(side, angle)]
    for index, angle in enumerate(FACE_ANGLES):
        groups["FaceLed%d" % index] = [_face(s, angle, c) for s in SIDES for c in COLORS]
    groups["FaceLeds"] = groups["LeftFaceLeds"] + groups["RightFaceLeds"]
    groups["FaceLedsTop"] = [_face(s, a, c) for s in SIDES for a in (315, 0, 45) for c in COLORS]
    groups["FaceLedsBottom"] = [_face(s, a, c) for s in SIDES for a in (135, 180, 225)
                                for c in COLORS]
    groups["EarLeds"] = groups["LeftEarLeds"] + groups["RightEarLeds"]
    groups["ChestLeds"] = ["ChestBoard/Led/%s/Actuator/Value" % c for c in COLORS]
    if robot == "nao":
        for side in SIDES:
            groups[side + "FootLeds"] = ["%sFoot/Led/%s/Actuator/Value" % (side, c)
                                         for c in COLORS]
        groups["FeetLeds"] = groups["LeftFootLeds"] + groups["RightFootLeds"]
        groups["BrainLeds"] = ["Head/Led/%s/%s/%d/Actuator/Value" % (place, side, index)
                               for place, index in BRAIN for side in SIDES]
    every = [led for name, leds in groups.items() if name.endswith("Leds") for led in leds]
    groups["AllLeds"] = sorted(set(every))
    for color in COLORS:
        groups["AllLeds" + color] = [led for led in groups["AllLeds"] if color_of(led) == color]
    return groups


def color_of(led: str) -> str:
    """Which color channel an LED drives (ear and head LEDs are blue)."""
    return next((c for c in COLORS if "/%s/" % c in led), "Blue")


def default_intensity(led: str) -> float:
    """Intensity after ``reset``: eyes, ears and chest on, feet and head off."""
    return 1.0 if led.startswith(("Face/", "Ears/", "ChestBoard/")) else 0.0


def rgb_components(rgb: int) -> Dict[str, float]:
    """0x00RRGGBB -> {"Red": r, "Green": g, "Blue": b} in [0, 1]."""
    return {"Red": ((rgb >> 16) & 0xFF) / 255.0, "Green": ((rgb >> 8) & 0xFF) / 255.0,
            "Blue": (rgb & 0xFF) / 255.0}


@dataclass
class Fade:
    """A linear change of one LED's intensity between two clock times."""

    start_value: float
    target: float
    start_time: float
    end_time: float

    def value(self, now: float) -> float:
        if now >= self.end_time:
            return self.target
        ratio = (now - self.start_time) / (self.end_time - self.start_time)
        return self.start_value + (self.target - self.start_value) * max(0.0, ratio)


class ALLeds(SimModule):
    """LED intensities and colors with timed fades and the usual eye animations."""

    NAME = "ALLeds"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._groups = led_groups(sim.robot)
        self._leds = {led: Fade(default_intensity(led), default_intensity(led), 0.0, 0.0)
                      for led in self._groups["AllLeds"]}

    # -- internals --------------------------------------------------------------------------
    def _resolve(self, method: str, name: str) -> List[str]:
        if name in self._leds:
            return [name]
        if name not in self._groups:
            raise self._error(method, "'%s' is neither an LED nor a group of LEDs" % name)
        return self._groups[name]

    def _fade_to(self, targets: Dict[str, float], duration: float) -> None:
        """Start fading each LED to its target, wait ``duration``, freeze if interrupted."""
        now = self._sim.clock()
        with self._lock:
            fades = {led: Fade(self._leds[led].value(now), target, now, now + max(0.0, duration))
                     for led, target in targets.items()}
            self._leds.update(fades)
        if duration <= 0:
            return
        with self._activity() as activity:
            if activity.sleep(duration):
                return
        now = self._sim.clock()
        with self._lock:
            for led, fade in fades.items():
                if self._leds[led] is fade:
                    current = fade.value(now)
                    self._leds[led] = Fade(current, current, now, now)

    def _rgb_targets(self, method: str, name: str, rgb: int) -> Dict[str, float]:
        components = rgb_components(rgb)
        return {led: components[color_of(led)] for led in self._resolve(method, name)}

    def _color(self, method: str, color: Any) -> int:
        if isinstance(color, str):
            if color.lower() not in NAMED_COLORS:
                raise self._error(method, "unknown color '%s' (known: %s)"
                                  % (color, ", ".join(NAMED_COLORS)))
            return NAMED_COLORS[color.lower()]
        if isinstance(color, bool) or not isinstance(color, (int, float)):
            raise TypeError("ALLeds::%s: color must be an int 0x00RRGGBB or a color name" % method)
        return int(color)

    # -- NAOqi API --------------------------------------------------------------------------
    def fadeRGB(self, name: str, *color_and_duration: Any) -> None:
        """fadeRGB(name, rgb, duration), (name, colorName, duration) or (name, r, g, b, duration)."""
        args = color_and_duration
        if len(args) == 2:
            rgb, duration = self._color("fadeRGB", args[0]), args[1]
        elif len(args) == 4:
            r, g, b, duration = args
            rgb = (int(r * 255) << 16) | (int(g * 255) << 8) | int(b * 255)
        else:
            raise TypeError("ALLeds::fadeRGB: takes (name, rgb, duration), (name, colorName, "
                            "duration) or (name, red, green, blue, duration)")
        if isinstance(duration, bool) or not isinstance(duration, (int, float)):
            raise TypeError("ALLeds::fadeRGB: duration must be a float")
        self._fade_to(self._rgb_targets("fadeRGB", name, rgb), float(duration))

    def fadeListRGB(self, name: str, rgbList: List[int], timeList: List[float]) -> None:
        """Chain fades to each color, reaching rgbList[i] at timeList[i] seconds."""
        if len(rgbList) != len(timeList):
            raise self._error("fadeListRGB", "rgbList and timeList must have the same length")
        elapsed = 0.0
        with self._activity() as activity:
            for rgb, at in zip(rgbList, timeList):
                self._fade_to(self._rgb_targets("fadeListRGB", name, rgb), at - elapsed)
                elapsed = at
                if activity.interrupted:
                    return

    def fade(self, name: str, intensity: float, duration: float) -> None:
        """Fade an LED or group to ``intensity`` in ``duration`` seconds."""
        check_range(self, "fade", "intensity", intensity, 0.0, 1.0)
        self._fade_to({led: intensity for led in self._resolve("fade", name)}, duration)

    def on(self, name: str) -> None:
        """Full intensity at once."""
        self._fade_to({led: 1.0 for led in self._resolve("on", name)}, 0.0)

    def off(self, name: str) -> None:
        """Zero intensity at once."""
        self._fade_to({led: 0.0 for led in self._resolve("off", name)}, 0.0)

    def setIntensity(self, name: str, intensity: float) -> None:
        """Set an intensity at once."""
        check_range(self, "setIntensity", "intensity", intensity, 0.0, 1.0)
        self._fade_to({led: intensity for led in self._resolve("setIntensity", name)}, 0.0)

    def getIntensity(self, name: str) -> float:
        """Intensity of an LED (mean intensity for a group)."""
        leds = self._resolve("getIntensity", name)
        now = self._sim.clock()
        with self._lock:
            return sum(self._leds[led].value(now) for led in leds) / len(leds)

    def reset(self, name: str) -> None:
        """Back to the default state (eyes, ears, chest on)."""
        self._fade_to({led: default_intensity(led) for led in self._resolve("reset", name)}, 0.0)

    def rasta(self, duration: float) -> None:
        """Green, yellow and red in turn on every LED for ``duration`` seconds."""
        self._cycle("rasta", "AllLeds", [0x00FF00, 0xFFFF00, 0xFF0000], duration, 0.5)

    def randomEyes(self, duration: float) -> None:
        """Random eye colors for ``duration`` seconds."""
        colors = [random.randrange(0x1000000) for _ in range(max(1, int(duration / 0.2)))]
        self._cycle("randomEyes", "FaceLeds", colors, duration, 0.2)

    def _cycle(self, method: str, group: str, colors: List[int], duration: float,
               step: float) -> None:
        end = self._sim.clock() + duration
        with self._activity() as activity:
            for index in range(max(1, int(duration / step))):
                remaining = end - self._sim.clock()
                if activity.interrupted or remaining <= 0:
                    return
                rgb = colors[index % len(colors)]
                self._fade_to(self._rgb_targets(method, group, rgb), min(step, remaining))

    def rotateEyes(self, rgb: int, timeForRotation: float, totalDuration: float) -> None:
        """One lit segment turning around each eye."""
        step = timeForRotation / len(FACE_ANGLES)
        end = self._sim.clock() + totalDuration
        components = rgb_components(rgb)
        with self._activity() as activity:
            index = 0
            while not activity.interrupted and self._sim.clock() < end:
                lit = "FaceLed%d" % (index % len(FACE_ANGLES))
                targets = {led: 0.0 for led in self._groups["FaceLeds"]}
                targets.update({led: components[color_of(led)] for led in self._groups[lit]})
                self._fade_to(targets, min(step, end - self._sim.clock()))
                index += 1

    def earLedsSetAngle(self, degrees: int, duration: float, leaveOnAtEnd: bool) -> None:
        """Light the ear LEDs from 0 up to ``degrees``."""
        targets = {_ear(side, angle): 1.0 if angle <= degrees else 0.0
                   for side in SIDES for angle in EAR_ANGLES}
        self._fade_to(targets, duration)
        if not leaveOnAtEnd:
            self.off("EarLeds")

    def createGroup(self, groupName: str, ledNames: List[str]) -> None:
        """Name a list of LEDs."""
        unknown = [led for led in ledNames if led not in self._leds]
        if unknown:
            raise self._error("createGroup", "unknown LEDs: %s" % ", ".join(unknown))
        with self._lock:
            self._groups[groupName] = list(ledNames)

    def listGroup(self, groupName: str) -> List[str]:
        """LEDs of a group."""
        return list(self._resolve("listGroup", groupName))

    def listGroups(self) -> List[str]:
        """Names of every group."""
        return sorted(self._groups)

    def listLED(self, name: str) -> List[str]:
        """[name] when ``name`` is an LED, else []."""
        return [name] if name in self._leds else []

    def listLEDs(self) -> List[str]:
        """Every LED name."""
        return sorted(self._leds)
