"""Simulated ALLeds: every LED of NAO or Pepper, NAOqi's groups, and fades that take time.

An LED's intensity is computed from its current fade (start value, target, start and end
times), so it evolves with the clock without a thread per fade.  A call that animates LEDs
over time (a fade with a duration, ``rasta``, ``rotateEyes``...) ends early when ``reset``
puts any of its LEDs back to their default, or when it is stopped (``stop(id)`` of a
posted call).

Group and short names follow the NAOqi LED pages ("Groups, Short Names and Names" and the
NAO V5 eye LED locations).  Each eye's ring is numbered by its groups FaceLedLeft0..7 and
FaceLedRight0..7, mirrored so that FaceLed<n> lights the same place on both eyes; the
pages name the quarters of each eye (Top, External, Bottom, Internal) without listing
their LEDs: here each quarter is two neighbours of that numbering, 0-1, 2-3, 4-5 and 6-7.
Ear groups (0 degrees is up, 90 forwards): Front is 0 to 144 degrees, Back 180 to 324,
Odd and Even follow the short names' numbers (RightEarLed1 is 0 degrees).
"""
import random
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Dict, Iterable, Iterator, List, Set, Tuple

from naoqi_qicore.robot.sim.services.module import Activity, SimModule, check_range

COLORS = ("Red", "Green", "Blue")
SIDES = ("Left", "Right")
EAR_ANGLES = range(0, 360, 36)
EYE_QUARTERS = {"Top": (0, 1), "External": (2, 3), "Bottom": (4, 5), "Internal": (6, 7)}
#: short names Brain0..11 in order, as (place, side, index) of Head/Led/<place>/<side>/<index>
BRAIN = [("Front", "Right", 1), ("Front", "Right", 0), ("Middle", "Right", 0),
         ("Rear", "Right", 0), ("Rear", "Right", 1), ("Rear", "Right", 2),
         ("Rear", "Left", 2), ("Rear", "Left", 1), ("Rear", "Left", 0),
         ("Middle", "Left", 0), ("Front", "Left", 0), ("Front", "Left", 1)]
BRAIN_PLACES = {"Front": "Front", "Middle": "Middle", "Back": "Rear"}
NAMED_COLORS = {"white": 0xFFFFFF, "red": 0xFF0000, "green": 0x00FF00, "blue": 0x0000FF,
                "yellow": 0xFFFF00, "magenta": 0xFF00FF, "cyan": 0x00FFFF}


def eye_angle(side: str, number: int) -> int:
    """Degrees of the LED of group FaceLed<side><number> (NAO V5 eye LED locations)."""
    return ((315 if side == "Right" else 45) - 45 * number) % 360


def _face(side: str, angle: int, color: str) -> str:
    return "Face/Led/%s/%s/%dDeg/Actuator/Value" % (color, side, angle)


def _eye(side: str, numbers: Any) -> List[str]:
    return [_face(side, eye_angle(side, n), c) for n in numbers for c in COLORS]


def _ear(side: str, angle: int) -> str:
    return "Ears/Led/%s/%dDeg/Actuator/Value" % (side, angle)


def _rgb(device: str) -> List[str]:
    return ["%s/Led/%s/Actuator/Value" % (device, color) for color in COLORS]


def _eye_groups(groups: Dict[str, List[str]], short: Dict[str, List[str]]) -> None:
    for side in SIDES:
        groups[side + "FaceLeds"] = _eye(side, range(8))
        for color in COLORS:
            groups[side + "FaceLeds" + color] = [led for led in groups[side + "FaceLeds"]
                                                 if color_of(led) == color]
        for number in range(8):
            groups["FaceLed%s%d" % (side, number)] = _eye(side, [number])
        for quarter, numbers in EYE_QUARTERS.items():
            groups["FaceLeds%s%s" % (side, quarter)] = _eye(side, numbers)
    for number in range(8):  # short names: RightFaceLed1 is FaceLedRight7, LeftFaceLed1 ...Left0
        short["RightFaceLed%d" % (8 - number)] = groups["FaceLedRight%d" % number]
        short["LeftFaceLed%d" % (number + 1)] = groups["FaceLedLeft%d" % number]
        groups["FaceLed%d" % number] = _eye("Left", [number]) + _eye("Right", [number])
    for quarter in EYE_QUARTERS:
        groups["FaceLeds" + quarter] = (groups["FaceLedsLeft" + quarter]
                                        + groups["FaceLedsRight" + quarter])
    groups["FaceLeds"] = groups["LeftFaceLeds"] + groups["RightFaceLeds"]


def _ear_groups(groups: Dict[str, List[str]], short: Dict[str, List[str]]) -> None:
    for side in SIDES:
        groups[side + "EarLeds"] = [_ear(side, a) for a in EAR_ANGLES]
        groups[side + "EarLedsFront"] = [_ear(side, a) for a in EAR_ANGLES if a < 180]
        groups[side + "EarLedsBack"] = [_ear(side, a) for a in EAR_ANGLES if a >= 180]
        groups[side + "EarLedsOdd"] = [_ear(side, a) for a in EAR_ANGLES[0::2]]
        groups[side + "EarLedsEven"] = [_ear(side, a) for a in EAR_ANGLES[1::2]]
        for index, angle in enumerate(EAR_ANGLES):
            short["%sEarLed%d" % (side, index + 1)] = [_ear(side, angle)]
    for index, angle in enumerate(EAR_ANGLES):
        groups["EarLed%d" % (index + 1)] = [_ear(side, angle) for side in SIDES]
    groups["EarLeds"] = groups["LeftEarLeds"] + groups["RightEarLeds"]


def _nao_groups(groups: Dict[str, List[str]], short: Dict[str, List[str]]) -> None:
    """Feet and the head's tactile sensor LEDs (NAO only)."""
    for side in SIDES:
        groups[side + "FootLeds"] = _rgb(side[0] + "Foot")
        for led in groups[side + "FootLeds"]:
            short[side + "FootLeds" + color_of(led)] = [led]
    groups["FeetLeds"] = groups["LeftFootLeds"] + groups["RightFootLeds"]
    brain = ["Head/Led/%s/%s/%d/Actuator/Value" % place for place in BRAIN]
    for index, led in enumerate(brain):
        short["Brain%d" % index] = [led]
    groups["BrainLeds"] = brain
    for group, place in BRAIN_PLACES.items():
        groups["BrainLeds" + group] = [led for led in brain if "/%s/" % place in led]
    for side in SIDES:
        groups["BrainLeds" + side] = [led for led in brain if "/%s/" % side in led]


def led_names(robot: str) -> Tuple[Dict[str, List[str]], Dict[str, List[str]]]:
    """NAOqi's LED groups and its short LED names for ``robot`` ("nao" or "pepper"), each
    name -> the LED devices it stands for."""
    groups: Dict[str, List[str]] = {}
    short: Dict[str, List[str]] = {}
    _eye_groups(groups, short)
    _ear_groups(groups, short)
    groups["ChestLeds"] = _rgb("ChestBoard")
    for led in groups["ChestLeds"]:
        short["ChestLeds" + color_of(led)] = [led]
    if robot == "nao":
        _nao_groups(groups, short)
    every = [led for name, leds in groups.items() if name.endswith("Leds") for led in leds]
    groups["AllLeds"] = sorted(set(every))
    for color in COLORS:
        groups["AllLeds" + color] = [led for led in groups["AllLeds"] if color_of(led) == color]
    return groups, short


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
        self._groups, self._short_names = led_names(sim.robot)
        self._leds = {led: Fade(default_intensity(led), default_intensity(led), 0.0, 0.0)
                      for led in self._groups["AllLeds"]}
        #: running animations -> the LEDs they animate
        self._animations: Dict[Activity, Set[str]] = {}

    # -- internals --------------------------------------------------------------------------
    def _resolve(self, method: str, name: str) -> List[str]:
        if name in self._leds:
            return [name]
        leds = self._groups.get(name) or self._short_names.get(name)
        if leds is None:
            raise self._error(method, "'%s' is neither an LED nor a group of LEDs" % name)
        return leds

    @contextmanager
    def _animating(self, leds: Iterable[str]) -> Iterator[Activity]:
        """Run a call that animates ``leds`` as an activity ``reset`` of any of them ends
        (nested calls share it)."""
        with self._activity() as activity:
            with self._lock:
                outer = self._animations.get(activity)
                self._animations[activity] = (outer or set()) | set(leds)
            try:
                yield activity
            finally:
                with self._lock:
                    if outer is None:
                        self._animations.pop(activity, None)
                    else:
                        self._animations[activity] = outer

    def _fade_to(self, targets: Dict[str, float], duration: float) -> None:
        """Start fading each LED to its target, wait ``duration``, freeze if interrupted."""
        now = self._sim.clock()
        with self._lock:
            fades = {led: Fade(self._leds[led].value(now), target, now, now + max(0.0, duration))
                     for led, target in targets.items()}
            self._leds.update(fades)
        if duration <= 0:
            return
        with self._animating(targets) as activity:
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
        with self._animating(self._resolve("fadeListRGB", name)) as activity:
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
        """Back to the default state (eyes, ears, chest on), ending the animations running
        on those LEDs."""
        leds = set(self._resolve("reset", name))
        with self._lock:
            animations = [activity for activity, animated in self._animations.items()
                          if animated & leds]
        for activity in animations:
            activity.interrupt()
        self._fade_to({led: default_intensity(led) for led in leds}, 0.0)

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
        with self._animating(self._groups[group]) as activity:
            for index in range(max(1, int(duration / step))):
                remaining = end - self._sim.clock()
                if activity.interrupted or remaining <= 0:
                    return
                rgb = colors[index % len(colors)]
                self._fade_to(self._rgb_targets(method, group, rgb), min(step, remaining))

    def rotateEyes(self, rgb: int, timeForRotation: float, totalDuration: float) -> None:
        """One lit segment turning around each eye."""
        step = timeForRotation / 8
        end = self._sim.clock() + totalDuration
        components = rgb_components(rgb)
        with self._animating(self._groups["FaceLeds"]) as activity:
            index = 0
            while not activity.interrupted and self._sim.clock() < end:
                lit = "FaceLed%d" % (index % 8)
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
        """The LED devices a short LED name stands for ([] for other names)."""
        return list(self._short_names.get(name, []))

    def listLEDs(self) -> List[str]:
        """The short LED names."""
        return sorted(self._short_names)
