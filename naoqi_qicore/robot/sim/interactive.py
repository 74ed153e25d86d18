"""A person at the keyboard talking to the simulated robot (``naoqi_sim --interactive``).

Each line read is one perception (see :mod:`naoqi_qicore.robot.sim.senses`)::

    yes please            heard (ALSpeechRecognition, ALDialog), given 2 s to start listening
    /touch [PART]         touch the head (or left_hand, right_bumper...; /parts lists them)
    /face [NAME]          a face comes into view (no name: a stranger); /noface: it leaves
    /people COUNT         that many people around
    /tablet X Y           a tap on Pepper's tablet at (X, Y) pixels
    /tablet {"k": 1}      ALMemory events raised by a tablet page (a JSON object)
    /sonar LEFT RIGHT     obstacles at LEFT / RIGHT m (5: nothing)
    /landmark [ID ...]    NAO marks come into view (no id: they leave)
    /sound AZIMUTH        a noise from AZIMUTH rad (0: in front)
    /battery PERCENT [plugged]   the battery's charge
    /raise KEY VALUE      any ALMemory event (VALUE read as YAML: 1, [1, 2], text...)
    /help                 this list

What the robot says is printed as ``robot says: "..."``, and what it made of each line as
``-> ...``.  The end of the input ends the console, not the robot.
"""
from __future__ import annotations

import json
import queue
import threading
from typing import Any, Callable, List, Optional, TextIO

from naoqi_qicore.robot.sim.observations import Observation, RobotWatch
from naoqi_qicore.robot.sim.senses import DEFAULT_CONFIDENCE

#: how long a line heard waits for something to listen (s)
INTERACTIVE_HEAR_WAIT_S = 2.0
HELP = __doc__.split("::\n\n", 1)[1].split("\n\nWhat the robot", 1)[0]


def _yaml_value(text: str) -> Any:
    import yaml
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return text


class Console:
    """Reads perceptions from ``lines`` (a text stream) and prints to ``output``."""

    def __init__(self, senses: Any, memory: Any, lines: TextIO, output: TextIO) -> None:
        self._senses = senses
        self._memory = memory
        self._lines = lines
        self._output = output
        # lines are written by a thread of their own: a slow terminal never holds back the
        # robot's ALMemory dispatcher, which reports what the robot says
        self._printed: "queue.Queue[Optional[str]]" = queue.Queue()
        self._stopping = threading.Event()
        self._watch = RobotWatch(memory, None, self._robot_did)
        self._thread: Optional[threading.Thread] = None

    def _print(self, line: str) -> None:
        self._printed.put(line)

    def _write(self) -> None:
        while True:
            line = self._printed.get()
            if line is None:
                return
            try:
                self._output.write(line + "\n")
                self._output.flush()
            except (OSError, ValueError):  # the output went away
                return

    def _robot_did(self, seen: Observation) -> None:
        if seen.kind == "saying":
            self._print("robot says: %s" % json.dumps(seen.name, ensure_ascii=False))

    def start(self) -> "Console":
        """Read lines in a background thread."""
        threading.Thread(target=self._write, daemon=True, name="sim-console-output").start()
        self._print("interactive: type what the person says, or /help")
        self._thread = threading.Thread(target=self._read, daemon=True, name="sim-console")
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop reacting to lines (a blocked read is left to end with the process)."""
        self._stopping.set()
        self._watch.close()
        self._printed.put(None)  # after the lines already printed
        self._senses = self._memory = None  # the robot's objects go with the robot

    def _read(self) -> None:
        for line in self._lines:
            if self._stopping.is_set():
                return
            line = line.strip()
            if not line:
                continue
            try:
                result = self.handle(line)
            except (RuntimeError, TypeError, ValueError) as error:
                result = "error: %s" % error
            if not self._stopping.is_set():
                self._print("-> " + result)
        if not self._stopping.is_set():
            self._print("interactive: end of input (the robot keeps running; Ctrl-C stops it)")

    def handle(self, line: str) -> str:
        """React to one line; returns what the robot made of it."""
        if not line.startswith("/"):
            return self._senses.hear(line, DEFAULT_CONFIDENCE, INTERACTIVE_HEAR_WAIT_S)
        command, _, rest = line[1:].partition(" ")
        rest = rest.strip()
        handlers: dict = {"touch": self._touch, "face": self._face, "noface": self._noface,
                          "people": self._people, "tablet": self._tablet,
                          "sonar": self._sonar, "raise": self._raise, "parts": self._parts,
                          "landmark": self._landmark, "sound": self._sound,
                          "battery": self._battery,
                          "help": lambda _: HELP}
        handler: Optional[Callable[[str], str]] = handlers.get(command)
        if handler is None:
            return "unknown command /%s (/help lists them)" % command
        return handler(rest)

    def _touch(self, rest: str) -> str:
        return self._senses.touch(rest or "head")

    def _parts(self, rest: str) -> str:
        return "touch parts: %s" % ", ".join(self._senses.parts())

    def _face(self, rest: str) -> str:
        return self._senses.showFace(rest)

    def _noface(self, rest: str) -> str:
        return self._senses.hideFace()

    def _people(self, rest: str) -> str:
        if not rest.isdigit():
            raise ValueError("usage: /people COUNT")
        return self._senses.people(int(rest))

    def _tablet(self, rest: str) -> str:
        if rest.startswith("{"):
            events = json.loads(rest)
            if not isinstance(events, dict) or not events:
                raise ValueError("usage: /tablet {\"event\": value, ...}")
            return "; ".join(self._senses.tabletEvent(key, value) for key, value in events.items())
        x, y = _two_numbers(rest, "/tablet X Y")
        return self._senses.tabletTouch(x, y)

    def _sonar(self, rest: str) -> str:
        left, right = _two_numbers(rest, "/sonar LEFT RIGHT")
        return self._senses.sonar(left, right)

    def _landmark(self, rest: str) -> str:
        if not all(part.isdigit() for part in rest.split()):
            raise ValueError("usage: /landmark [ID ...]")
        return self._senses.landmark([int(part) for part in rest.split()])

    def _sound(self, rest: str) -> str:
        try:
            return self._senses.sound(float(rest or 0.0))
        except ValueError:
            raise ValueError("usage: /sound AZIMUTH") from None

    def _battery(self, rest: str) -> str:
        charge, _, plugged = rest.partition(" ")
        if not charge.isdigit() or plugged.strip() not in ("", "plugged"):
            raise ValueError("usage: /battery PERCENT [plugged]")
        return self._senses.battery(int(charge), plugged.strip() == "plugged")

    def _raise(self, rest: str) -> str:
        key, _, value = rest.partition(" ")
        if not key or not value.strip():
            raise ValueError("usage: /raise KEY VALUE")
        parsed = _yaml_value(value.strip())
        self._memory.raiseEvent(key, parsed)
        return "ALMemory event %s = %r" % (key, parsed)


def _two_numbers(text: str, usage: str) -> List[float]:
    parts = text.replace(",", " ").split()
    try:
        numbers = [float(part) for part in parts]
    except ValueError:
        numbers = []
    if len(numbers) != 2:
        raise ValueError("usage: " + usage)
    return numbers
