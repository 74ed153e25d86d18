"""Scenarios: what the people around the simulated robot say and do, and when.

A scenario file is YAML: a list of steps, or a mapping with ``steps`` and optionally
``name``, ``seed`` (of the generic person's choices, default 0) and ``generic: true`` (the
generic person below also answers, besides the steps)::

    name: answer the quiz
    steps:
      - at: 1.5                        # seconds after the scenario started
        face: Ada                      # Ada's face comes into view and stays
      - after_say: "what is your name" # once the robot has said a sentence containing it
        hear: Ada
      - on_event: Dialog/IsStarted     # once this ALMemory key is raised or written
        wait: 0.5
        hear: {text: "I like tea", confidence: 0.6, wait: 10}
      - on_call: ALTabletService.showWebview
        tablet_touch: [640, 400]
      - touch: head                    # no trigger: right after the step above

Steps run one after the other: a step waits for its trigger (at most one), then runs its
actions in the order they are written, then the next step waits for its own trigger.  A key
appears once in a step: actions that repeat go in a list, ``do: [{touch: head}, {wait: 1},
{touch: head}]`` (run where the ``do`` key stands among the step's other actions).  A
trigger is met by what happens after the previous step's trigger was met, so a sentence the
robot says while the previous step's actions run is not missed.

Triggers (what the simulated robot can observe; the behavior's boxes, states and timeline
live in the client and are not seen by the robot, except by expectations, which the program
running the behavior tells about them):

``at: SECONDS``
    that long after the scenario started (at once when already past);
``after_say: TEXT``
    the robot finished saying a sentence (ALTextToSpeech, ALAnimatedSpeech, ALDialog's
    answers) that contains ``TEXT`` (case-insensitive) or in which ``TEXT`` as a regular
    expression is found (seen through ALTextToSpeech's ALMemory notifications, on unless a
    behavior disables them);
``on_event: KEY`` or ``on_event: {key: KEY, value: VALUE}``
    an ALMemory key raised or written (by anyone), with that value if given;
``on_call: SERVICE.METHOD``
    a call ended, a client's or one the robot made of its own accord (``*`` wildcards
    allowed: ``ALTabletService.show*``);
``expect: {say|box|state|joint|tablet|ends: ..., within: SECONDS}``
    an expectation: a trigger that must be met within its time, else the scenario fails
    there (see :mod:`naoqi_qicore.robot.sim.expectations`; the program running the
    behavior reports its boxes, states and end, and says how the expectations went).

Actions (see :mod:`naoqi_qicore.robot.sim.senses` for what each raises):

``hear: TEXT`` or ``{text: TEXT, confidence: 0.75, wait: 10}``
    someone says ``TEXT``; when nothing listens yet, up to ``wait`` s (default 10) are given
    to ALSpeechRecognition or ALDialog to start;
``touch: PART``
    ``head`` (the three head sensors), ``head_front``, ``head_middle``, ``head_rear``,
    ``left_hand``, ``right_hand``, ``left_bumper``, ``right_bumper`` (``back_bumper`` on
    Pepper), or an ALTouch sensor name (``RHand/Touch/Left``);
``face: NAME``, ``face: true`` (a stranger), ``face: {name: NAME, alpha: 0, beta: 0}``,
``face: false``
    a face comes into view and stays, or leaves;
``people: COUNT``
    that many people around;
``tablet_touch: [X, Y]``
    a tap on Pepper's tablet (pixels);
``tablet_event: {KEY: VALUE, ...}``
    ALMemory events a tablet page raises with ``ALMemory.raiseEvent``;
``sonar: {left: M, right: M}``
    obstacles (5: nothing; a side left out keeps its distance);
``landmark: [64, 68]``, ``landmark: false``
    NAO marks come into view and stay, or leave;
``sound: AZIMUTH`` or ``{azimuth: RAD, elevation: RAD}``
    a noise from that direction (0: in front);
``battery: CHARGE`` or ``{charge: PERCENT, plugged: true}``
    the battery reaches that charge, plugged in or not;
``temperature: {device: DEVICE, celsius: C}``
    a joint or the head processor (``Head``) reaches that temperature;
``raise: {key: KEY, value: VALUE}``
    any ALMemory event;
``wait: SECONDS``
    a pause before the next action.

``generic`` (``--scenario generic``) is a built-in person who keeps any behavior going: a
person comes and shows their face at the start; shortly after the robot stops speaking or
starts listening (and again after some silence) it says something the robot is listening
for: ``yes`` to a yes/no question when the robot accepts it, else one of
ALSpeechRecognition's words or an input matching one of ALDialog's rules (the sub-rules it
expects first: the first alternative of each ``[...]``), the least said first, at random
among equals with a seeded generator (the same behavior gets the same answers); when nothing
listens for words but something waits for a head touch, it touches the head now and then as
a person does: one sensor, among those something waits for, the least touched first.
It acts at most once per turn or per few seconds, looking at the robot 5 times a second.
"""
from __future__ import annotations

import difflib
import fnmatch
import math
import random
import re
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Deque, Dict, List, Optional, Tuple, Union

from naoqi_qicore.robot.sim.expectations import (ENDS, JOINT, JOINT_POLL_S, MAX_NUMBER,
                                                 SHOWN_INSTEAD, Expectation, JointApproach,
                                                 Verdict, number_text, parse_expectation,
                                                 robot_problem, sentence_matches,
                                                 sentence_pattern)
from naoqi_qicore.robot.sim.observations import (BEHAVIOR_KINDS, BOX, CALL, ENDED, EVENT, SAID,
                                                 SAYING, STARTED, STATE, TABLET, Observation,
                                                 RobotWatch)
from naoqi_qicore.robot.sim.senses import (DEFAULT_CONFIDENCE, LISTEN_POLL_S, MAX_PEOPLE,
                                           TOUCH_PARTS)

GENERIC = "generic"
TRIGGERS = ("at", "after_say", "on_event", "on_call", "expect")
ACTIONS = ("hear", "touch", "face", "people", "tablet_touch", "tablet_event", "sonar", "raise",
           "wait", "landmark", "sound", "battery", "temperature")
#: the largest scenario file read (bytes)
MAX_SCENARIO_BYTES = 1_000_000
#: the deepest nesting of lists and mappings in a scenario (a step's values are 3 deep)
MAX_SCENARIO_DEPTH = 20
#: the largest NAO mark id (libqi's 32-bit integers)
MAX_MARK_ID = 2 ** 31 - 1
#: how long ``hear`` waits for something to listen, by default (s)
HEAR_WAIT_S = 10.0
SONAR_RANGE = (0.2, 5.0)

#: the generic person: pause after the robot stopped speaking before answering (s)
REPLY_DELAY_S = 0.7
#: ... silence after which it says something anyway when something listens (s)
IDLE_REPLY_S = 5.0
#: ... silence after which it touches the head when something waits for a touch (s)
TOUCH_AFTER_S = 3.0
#: ... and at most once per (s)
TOUCH_EVERY_S = 10.0
#: ... how often it looks at the robot (s)
GENERIC_TICK_S = 0.2
YES_WORDS = ("yes", "yeah", "yep", "sure", "ok", "okay", "oui", "ja", "si", "sí", "sim", "da")
_YES_NO_STARTS = frozenset(
    "do does did don't doesn't didn't are is am was were aren't isn't can could can't will "
    "would won't shall should have has had may might must shall want ready".split())

#: how many of the last observations are kept: those after the observation that met a step's
#: trigger, before the next step is armed, count for it
OBSERVATIONS_KEPT = 1000
#: what a failed expectation's report starts with
EXPECTATION_FAILED = "expectation failed: "

Report = Callable[[str], None]


class ScenarioError(ValueError):
    """A scenario that cannot be played; the message names the file and the step."""


@dataclass
class Step:
    """One step: its trigger (kind, value) or None, and its actions in order; ``line``:
    where it starts in its file (0: unknown)."""

    number: int
    trigger: Optional[Tuple[str, Any]]
    actions: List[Tuple[str, Any]]
    line: int = 0

    @property
    def expectation(self) -> Optional[Expectation]:
        """The step's expectation, when its trigger is one."""
        if self.trigger is not None and self.trigger[0] == "expect":
            return self.trigger[1]
        return None

    def where(self, origin: str) -> str:
        """``talk.yaml:7: step 3`` (the file, the line and the step, for messages)."""
        return "%s:%d: step %d" % (origin, self.line, self.number) if self.line else \
            "%s: step %d" % (origin, self.number)

    def describe(self) -> str:
        if self.trigger is None:
            return "step %d" % self.number
        kind, value = self.trigger
        if kind == "expect":
            return "step %d (expect %s)" % (self.number, value.describe())
        if kind == "on_event":
            value = value[0] if value[1] is _ANY else "%s = %r" % value
        elif kind == "after_say":
            value = repr(value[0])
        elif kind == "at":
            value = "%g s" % value
        return "step %d (%s %s)" % (self.number, kind, value)


@dataclass
class Scenario:
    """A parsed scenario."""

    origin: str
    name: str = ""
    steps: List[Step] = field(default_factory=list)
    generic: bool = False
    seed: int = 0

    @property
    def expectations(self) -> List[Step]:
        """The steps whose trigger is an expectation."""
        return [step for step in self.steps if step.expectation is not None]

    def check_robot(self, robot: str) -> None:
        """ScenarioError when a step needs what ``robot`` ("nao"/"pepper") does not have."""
        for step in self.steps:
            expectation = step.expectation
            problem = robot_problem(expectation, robot) if expectation is not None else None
            if problem is not None:
                raise ScenarioError("%s: expect %s: %s" % (step.where(self.origin),
                                                           expectation.kind, problem))
            for kind, value in step.actions:
                where = "%s: %s" % (step.where(self.origin), kind)
                if kind == "tablet_touch" and robot != "pepper":
                    raise ScenarioError("%s: NAO has no tablet (a Pepper scenario: use "
                                        "--robot pepper)" % where)
                if kind == "touch" and "/" not in value and value not in TOUCH_PARTS[robot]:
                    raise ScenarioError("%s: %s has no part %r (parts: %s)" % (
                        where, "NAO" if robot == "nao" else "Pepper", value,
                        ", ".join(sorted(TOUCH_PARTS[robot]))))


class _Any:
    def __repr__(self) -> str:
        return "any value"


_ANY = _Any()


# -- reading and checking ----------------------------------------------------------------------
def load_scenario(spec: Union[str, Path], robot: Optional[str] = None) -> Scenario:
    """The scenario ``spec`` names: ``"generic"`` or a YAML file; checked for ``robot``
    when given.  ScenarioError says what is wrong, with the file and the step."""
    if str(spec) == GENERIC:
        return Scenario(origin=GENERIC, name=GENERIC, generic=True)
    path = Path(spec)
    try:
        with path.open("rb") as stream:
            data = stream.read(MAX_SCENARIO_BYTES + 1)
    except OSError as error:
        raise ScenarioError("%s: cannot read the scenario: %s" % (path, error.strerror or error))
    if len(data) > MAX_SCENARIO_BYTES:
        raise ScenarioError("%s: the scenario is larger than %g MB (a scenario is a short "
                            "list of steps)" % (path, MAX_SCENARIO_BYTES / 1e6))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ScenarioError("%s: not UTF-8 text: %s" % (path, error))
    scenario = parse_scenario(text, str(path))
    if robot is not None:
        scenario.check_robot(robot)
    return scenario


class _Located(dict):
    """A mapping read from YAML, with its line and the line of each key (from 1)."""

    line = 0
    key_lines: Dict[str, int] = {}


def _yaml_loader() -> Any:
    """PyYAML's safe loader, except that only true/false are booleans (YAML 1.2): ``hear:
    yes`` and ``hear: no`` are words; a key twice in a mapping is an error (YAML would
    keep the last one: a step's second ``touch`` would replace its first); mappings say
    where they are (:class:`_Located`); anchors and aliases are refused (a few hundred
    bytes of aliases expand to gigabytes) and so is nesting deeper than
    :data:`MAX_SCENARIO_DEPTH`; a value its tag cannot be made from (``!!int abc``, a
    number of more than 4300 digits) is an error at its line."""
    import yaml

    class Loader(yaml.SafeLoader):
        def __init__(self, stream: Any) -> None:
            super().__init__(stream)
            self.depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            event = self.peek_event()
            if isinstance(event, yaml.AliasEvent):
                raise yaml.MarkedYAMLError(
                    problem="alias *%s: a scenario cannot use anchors and aliases (write "
                            "the value out)" % event.anchor, problem_mark=event.start_mark)
            if getattr(event, "anchor", None) is not None:
                raise yaml.MarkedYAMLError(
                    problem="anchor &%s: a scenario cannot use anchors and aliases (write "
                            "the value out)" % event.anchor, problem_mark=event.start_mark)
            if self.depth >= MAX_SCENARIO_DEPTH:
                raise yaml.MarkedYAMLError(
                    problem="nested more than %d levels deep (a scenario is a list of "
                            "steps)" % MAX_SCENARIO_DEPTH, problem_mark=event.start_mark)
            self.depth += 1
            try:
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

        def construct_object(self, node: Any, deep: bool = False) -> Any:
            try:
                return super().construct_object(node, deep)
            except (ValueError, TypeError, KeyError, AttributeError, OverflowError):
                raise yaml.MarkedYAMLError(
                    problem="%r cannot be read as %s" % (
                        str(getattr(node, "value", ""))[:40], node.tag.rsplit(":", 1)[-1]),
                    problem_mark=node.start_mark) from None

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            if not isinstance(node, yaml.MappingNode):  # (!!set [1]) YAML's own error
                return super().construct_mapping(node, deep)
            seen = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                try:
                    twice = key in seen
                    seen.add(key)
                except TypeError:  # an unhashable key: YAML's own error follows
                    continue
                if twice:
                    raise yaml.MarkedYAMLError(
                        problem="%r twice in one mapping (to do something twice, list the "
                                "actions: do: [{touch: head}, {touch: head}])" % (key,),
                        problem_mark=key_node.start_mark)
            return super().construct_mapping(node, deep)
    def construct_located(loader: Any, node: Any) -> Any:
        located = _Located()
        located.line = node.start_mark.line + 1
        located.key_lines = {str(key.value): key.start_mark.line + 1 for key, _ in node.value
                             if isinstance(key, yaml.ScalarNode)}
        yield located
        located.update(loader.construct_mapping(node))
    Loader.add_constructor("tag:yaml.org,2002:map", construct_located)
    boolean = "tag:yaml.org,2002:bool"
    Loader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != boolean]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
    Loader.add_implicit_resolver(boolean, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                                 list("tTfF"))
    return Loader


def parse_scenario(text: str, origin: str = "<scenario>") -> Scenario:
    """A scenario from its YAML text (``origin`` names it in errors)."""
    import yaml
    if len(text) > MAX_SCENARIO_BYTES:
        raise ScenarioError("%s: the scenario is larger than %d kB (a scenario is a short "
                            "list of steps)" % (origin, MAX_SCENARIO_BYTES // 1000))
    try:
        data = yaml.load(text, Loader=_yaml_loader())  # noqa: S506 (a safe loader)
    except (ValueError, TypeError, KeyError, AttributeError, OverflowError) as error:
        # a value a constructor of PyYAML's fails on after its node (those of !!set, !!omap)
        raise ScenarioError("%s: not valid YAML: %s" % (origin, error)) from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        problem = getattr(error, "problem", None) or str(error)
        if type(error) is not yaml.MarkedYAMLError:  # not one of ours: the syntax
            problem = "not valid YAML: " + problem
        if mark is None:
            raise ScenarioError("%s: %s" % (origin, problem))
        raise ScenarioError("%s:%d: %s (column %d)" % (origin, mark.line + 1, problem,
                                                       mark.column + 1))
    scenario = Scenario(origin=origin)
    if isinstance(data, dict):
        unknown = sorted(set(map(str, data)) - {"name", "seed", "generic", "steps"})
        if unknown:
            raise ScenarioError("%s: unknown key %r (a scenario has steps, and optionally "
                                "name, seed, generic)" % (origin, unknown[0]))
        scenario.name = str(data.get("name") or "")
        seed = data.get("seed", 0)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ScenarioError("%s: seed must be an integer, got %s"
                                % (origin, number_text(seed)))
        generic = data.get("generic", False)
        if not isinstance(generic, bool):
            raise ScenarioError("%s: generic must be true or false, got %r" % (origin, generic))
        scenario.seed, scenario.generic = seed, generic
        steps = data.get("steps", [])
        if steps is None:
            steps = []
    elif isinstance(data, list):
        steps = data
    elif data is None:
        raise ScenarioError("%s: the scenario is empty (expected a list of steps)" % origin)
    else:
        raise ScenarioError("%s: expected a list of steps or a mapping with 'steps', got %s"
                            % (origin, _kind(data)))
    if not isinstance(steps, list):
        raise ScenarioError("%s: steps must be a list, got %s" % (origin, _kind(steps)))
    if not steps and not scenario.generic:
        raise ScenarioError("%s: the scenario has no steps" % origin)
    scenario.steps = [_step(origin, number, raw) for number, raw in enumerate(steps, 1)]
    return scenario


def _kind(value: Any) -> str:
    names = {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean",
             int: "a number", float: "a number", type(None): "nothing"}
    return names.get(type(value), type(value).__name__)


def _step(origin: str, number: int, raw: Any) -> Step:
    line = getattr(raw, "line", 0)
    where = Step(number, None, [], line).where(origin)
    if not isinstance(raw, dict) or not raw:
        raise ScenarioError("%s: a step is a mapping of a trigger and actions "
                            "(e.g. {after_say: hello, hear: hi}), got %s" % (where, _kind(raw)))
    trigger: Optional[Tuple[str, Any]] = None
    actions: List[Tuple[str, Any]] = []
    for key, value in raw.items():
        key = str(key)
        where = Step(number, None, [], raw.key_lines.get(key, line) if isinstance(
            raw, _Located) else line).where(origin)
        if key == "do":
            actions.extend(_listed_actions(where, value))
        elif key in TRIGGERS:
            if trigger is not None:
                raise ScenarioError("%s: two triggers (%s and %s): a step waits for one"
                                    % (where, trigger[0], key))
            trigger = (key, _check(where, key, value))
        elif key in ACTIONS:
            actions.append((key, _check(where, key, value)))
        else:
            near = difflib.get_close_matches(key, TRIGGERS + ACTIONS + ("do",), 1)
            raise ScenarioError("%s: unknown key %r%s (triggers: %s; actions: %s; do: a "
                                "list of actions)" % (
                                    where, key, " (did you mean %r?)" % near[0] if near else "",
                                    ", ".join(TRIGGERS), ", ".join(ACTIONS)))
    return Step(number, trigger, actions, line)


def _listed_actions(where: str, value: Any) -> List[Tuple[str, Any]]:
    """The actions of ``do: [{action: value}, ...]``, in order."""
    if not isinstance(value, list) or not value:
        raise ScenarioError("%s: do must be a list of actions (e.g. [{touch: head}, {wait: 1}]"
                            "), got %r" % (where, value))
    actions: List[Tuple[str, Any]] = []
    for index, item in enumerate(value, 1):
        if not isinstance(item, dict) or not item:
            raise ScenarioError("%s: do item %d: an action is a mapping such as {touch: head}, "
                                "got %r" % (where, index, item))
        for key, argument in item.items():
            key = str(key)
            if key not in ACTIONS:
                raise ScenarioError("%s: do item %d: %r is not an action (actions: %s)"
                                    % (where, index, key, ", ".join(ACTIONS)))
            actions.append((key, _check("%s: do item %d" % (where, index), key, argument)))
    return actions


def _number(where: str, key: str, value: Any, low: float = 0.0,
            high: float = MAX_NUMBER) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not low <= value <= high or value != value:  # (NaN is not itself)
        bounds = ">= %g" % low if high == MAX_NUMBER else "in [%g, %g]" % (low, high)
        raise ScenarioError("%s: %s must be a number %s, got %s"
                            % (where, key, bounds, number_text(value)))
    return float(value)


def _robot_value(where: str, key: str, value: Any) -> Any:
    """``value`` (read from YAML) as a value sent to the robot: plain dicts for the
    :class:`_Located` ones, and integers that fit in the 64 bits of libqi's."""
    if isinstance(value, dict):
        return {name: _robot_value(where, key, item) for name, item in value.items()}
    if isinstance(value, list):
        return [_robot_value(where, key, item) for item in value]
    if isinstance(value, int) and not -2 ** 63 <= value < 2 ** 63:
        raise ScenarioError("%s: %s: %s does not fit in the 64 bits of the robot's numbers"
                            % (where, key, number_text(value)))
    return value


def _text(where: str, key: str, value: Any) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise ScenarioError("%s: %s must be a non-empty text, got %r" % (where, key, value))
    return value


def _fields(where: str, key: str, value: Dict[Any, Any], allowed: Tuple[str, ...],
            required: Tuple[str, ...] = ()) -> None:
    unknown = sorted(set(map(str, value)) - set(allowed))
    if unknown:
        raise ScenarioError("%s: %s: unknown field %r (fields: %s)"
                            % (where, key, unknown[0], ", ".join(allowed)))
    for name in required:
        if name not in value:
            raise ScenarioError("%s: %s: %r is missing" % (where, key, name))


def _check(where: str, key: str, value: Any) -> Any:
    """The checked value of a trigger or action."""
    if key in ("at", "wait"):
        return _number(where, key, value)
    if key == "after_say":
        return sentence_pattern(_text(where, key, value))
    if key == "on_event":
        if isinstance(value, dict):
            _fields(where, key, value, ("key", "value"), ("key",))
            return _text(where, key + " key", value["key"]), _robot_value(
                where, key, value.get("value", _ANY))
        return _text(where, key, value), _ANY
    if key == "expect":
        try:
            return parse_expectation(value)
        except ValueError as error:
            raise ScenarioError("%s: expect: %s" % (where, error)) from None
    if key == "on_call":
        text = _text(where, key, value)
        if "." not in text:
            raise ScenarioError("%s: on_call must be SERVICE.METHOD (e.g. "
                                "ALTabletService.showWebview), got %r" % (where, text))
        return text
    if key == "hear":
        if isinstance(value, dict):
            _fields(where, key, value, ("text", "confidence", "wait"), ("text",))
            return {"text": _text(where, "hear text", value["text"]),
                    "confidence": _number(where, "hear confidence",
                                          value.get("confidence", DEFAULT_CONFIDENCE), 0, 1),
                    "wait": _number(where, "hear wait", value.get("wait", HEAR_WAIT_S))}
        return {"text": _text(where, key, value), "confidence": DEFAULT_CONFIDENCE,
                "wait": HEAR_WAIT_S}
    if key == "touch":
        part = _text(where, key, value)
        known = set(TOUCH_PARTS["nao"]) | set(TOUCH_PARTS["pepper"])
        if "/" not in part and part not in known:
            near = difflib.get_close_matches(part, sorted(known), 1)
            raise ScenarioError("%s: touch: unknown part %r%s (parts: %s; or an ALTouch "
                                "sensor such as RHand/Touch/Left)" % (
                                    where, part, " (did you mean %r?)" % near[0] if near else "",
                                    ", ".join(sorted(known))))
        return part
    if key == "face":
        if value is None or value is False:
            return None
        if value is True:
            return {"name": "", "alpha": 0.0, "beta": 0.0}
        if isinstance(value, dict):
            _fields(where, key, value, ("name", "alpha", "beta"))
            name = value.get("name", "")
            if not isinstance(name, str):
                raise ScenarioError("%s: face name must be a text, got %r" % (where, name))
            return {"name": name,
                    "alpha": _number(where, "face alpha", value.get("alpha", 0.0), -math.pi,
                                     math.pi),
                    "beta": _number(where, "face beta", value.get("beta", 0.0), -math.pi,
                                    math.pi)}
        if isinstance(value, str) and value.strip():
            return {"name": value, "alpha": 0.0, "beta": 0.0}
        raise ScenarioError("%s: face must be a name, true (a stranger), false (no face) or "
                            "{name, alpha, beta}, got %r" % (where, value))
    if key == "people":
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_PEOPLE:
            raise ScenarioError("%s: people must be a count in [0, %d], got %s"
                                % (where, MAX_PEOPLE, number_text(value)))
        return value
    if key == "tablet_touch":
        if not isinstance(value, list) or len(value) != 2:
            raise ScenarioError("%s: tablet_touch must be [x, y] (pixels), got %r"
                                % (where, value))
        return [_number(where, "tablet_touch x", value[0]),
                _number(where, "tablet_touch y", value[1])]
    if key == "tablet_event":
        if not isinstance(value, dict) or not value:
            raise ScenarioError("%s: tablet_event must be a mapping {event: value, ...}, "
                                "got %r" % (where, value))
        return {_text(where, "tablet_event key", name): _robot_value(where, key, item)
                for name, item in value.items()}
    if key == "sonar":
        if not isinstance(value, dict) or not value:
            raise ScenarioError("%s: sonar must be {left: m, right: m}, got %r" % (where, value))
        _fields(where, key, value, ("left", "right"))
        return {side: _number(where, "sonar " + side, distance, *SONAR_RANGE)
                for side, distance in value.items()}
    if key == "landmark":
        if value is False or value is None:
            return []
        marks = value if isinstance(value, list) else [value]
        if not marks or not all(isinstance(m, int) and not isinstance(m, bool)
                                and 0 <= m <= MAX_MARK_ID for m in marks):
            raise ScenarioError("%s: landmark must be a mark id (0 to %d), a list of mark ids "
                                "or false, got %s" % (where, MAX_MARK_ID, number_text(value)))
        return marks
    if key == "sound":
        if isinstance(value, dict):
            _fields(where, key, value, ("azimuth", "elevation"), ("azimuth",))
            return [_number(where, "sound " + name, value.get(name, 0.0), -math.pi, math.pi)
                    for name in ("azimuth", "elevation")]
        return [_number(where, "sound azimuth", value, -math.pi, math.pi), 0.0]
    if key == "battery":
        if isinstance(value, dict):
            _fields(where, key, value, ("charge", "plugged"), ("charge",))
            plugged = value.get("plugged", False)
            if not isinstance(plugged, bool):
                raise ScenarioError("%s: battery plugged must be true or false, got %r"
                                    % (where, plugged))
            return [int(_number(where, "battery charge", value["charge"], 0, 100)), plugged]
        return [int(_number(where, "battery charge", value, 0, 100)), False]
    if key == "temperature":
        if not isinstance(value, dict):
            raise ScenarioError("%s: temperature must be {device: DEVICE, celsius: C}, got %r"
                                % (where, value))
        _fields(where, key, value, ("device", "celsius"), ("device", "celsius"))
        return [_text(where, "temperature device", value["device"]),
                _number(where, "temperature celsius", value["celsius"], -50.0, 200.0)]
    if key == "raise":
        if not isinstance(value, dict):
            raise ScenarioError("%s: raise must be {key: KEY, value: VALUE}, got %r"
                                % (where, value))
        _fields(where, key, value, ("key", "value"), ("key", "value"))
        return _text(where, "raise key", value["key"]), _robot_value(where, key, value["value"])
    raise AssertionError(key)


# -- watching the robot ------------------------------------------------------------------------
def _matches(trigger: Tuple[str, Any], seen: Observation) -> bool:
    kind, value = trigger
    if kind == "after_say":
        return seen.kind == SAID and sentence_matches(value, seen.name)
    if kind == "on_event":
        key, expected = value
        return seen.kind == EVENT and seen.name == key and (
            expected is _ANY or seen.value == expected)
    if kind == "on_call":
        return seen.kind == CALL and fnmatch.fnmatchcase(seen.name, value)
    if kind == "expect":
        return value.met_by(seen)
    return False


def is_yes_no_question(sentence: str) -> bool:
    """True for a sentence asking a question that starts like "Do you...", "Are you...",
    "Can I..." or saying "yes or no" (English)."""
    if "yes or no" in sentence.lower():
        return True
    for phrase in re.split(r"(?<=[.!?])\s+", sentence.strip()):
        words = re.findall(r"[\w']+", phrase.lower())
        if phrase.endswith("?") and words and words[0] in _YES_NO_STARTS:
            return True
    return False


# -- playing ------------------------------------------------------------------------------------
class ScenarioRunner:
    """Plays a :class:`Scenario` against a simulated robot's senses (a
    :class:`~naoqi_qicore.robot.sim.senses.NaoqiSimPerception`), its ALMemory and its call
    record; ``report`` receives one line per thing done.  ``service(name)`` gives the
    robot's ALMotion and ALTabletService, which expectations read.

    The program running the behavior tells it about the run (:meth:`observe_behavior`);
    :attr:`decided` is set once the scenario's expectations have a :meth:`verdict`."""

    def __init__(self, senses: Any, memory: Any, record: Any, scenario: Scenario,
                 report: Optional[Report] = None, clock: Callable[[], float] = time.monotonic,
                 service: Optional[Callable[[str], Any]] = None) -> None:
        self.scenario = scenario
        self._senses = senses
        self._memory = memory
        self._service = service
        self._report_line = report or (lambda line: None)
        self._clock = clock
        self._cond = threading.Condition()
        self._stopping = False
        self._started_at = 0.0
        self.done = threading.Event()  # set when the steps are over (or there are none)
        self._pending: Optional[Tuple[str, Any]] = None
        # what meets the pending trigger, with its number in the log of what was observed
        self._seen: Deque[Tuple[int, Observation]] = deque()
        self._log: Deque[Tuple[int, Observation]] = deque(maxlen=OBSERVATIONS_KEPT)
        self._count = 0  # observations so far
        self._met_at = 0  # the number of the observation that met the last trigger
        # the run, as the program running the behavior reports it
        self._run_started: Optional[float] = None
        self._ended: Optional[Observation] = None
        self._ended_at = 0.0
        self._step_index = 0  # the step being played
        # what the expectation being waited for watched (the last ones), and how many
        self._watched: Deque[Observation] = deque(maxlen=SHOWN_INSTEAD)
        self._watched_count = 0
        self._verdict = Verdict(scenario.origin, len(scenario.expectations))
        self.decided = threading.Event()
        # what the generic person knows of the robot
        self._speaking = False
        self._last_sentence = ""
        self._quiet_since = 0.0
        self._turn = False
        self._unheeded: List[str] = []  # the generic person's answers since the robot spoke
        self._uses: Dict[str, int] = {}  # how often it said each answer
        self._random = random.Random(scenario.seed)
        self._threads: List[threading.Thread] = []
        tablet = None
        if service is not None and record is not None:
            try:
                tablet = service("ALTabletService")
            except RuntimeError:  # NAO has no tablet
                tablet = None
        self._watch = RobotWatch(memory, record, self._observe, tablet)

    def _report(self, line: str) -> None:
        self._report_line(line)

    # -- life cycle -----------------------------------------------------------------------
    def start(self) -> "ScenarioRunner":
        """Start playing (steps and, if asked, the generic person, each in a thread)."""
        self._started_at = self._quiet_since = self._clock()
        label = self.scenario.name or self.scenario.origin
        self._report("scenario %s: %d step(s)%s" % (label, len(self.scenario.steps),
                                                    ", generic person" if self.scenario.generic
                                                    else ""))
        targets = [self._play_steps] + ([self._play_generic] if self.scenario.generic else [])
        for target in targets:
            thread = threading.Thread(target=target, daemon=True,
                                      name="sim-scenario-" + target.__name__.strip("_"))
            self._threads.append(thread)
            thread.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        """Stop playing: ``hear`` and ``wait`` are cut short, a running action may take up
        to ``timeout`` s to end (the robot's own shutdown then interrupts what it does).
        Expectations not decided by then stay unchecked."""
        with self._cond:
            self._stopping = True
            if not self._verdict.decided:
                self._verdict.unchecked = [step.number for step in self.scenario.expectations
                                           if step.number > self._step_index]
            self._cond.notify_all()
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(timeout)
        self._watch.close()
        self._senses = self._memory = None  # the robot's objects go with the robot

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Wait for the steps to be over; True when they are."""
        return self.done.wait(timeout)

    # -- the run, reported by the program running the behavior -----------------------------
    def observe_behavior(self, kind: str, name: str = "", detail: str = "") -> None:
        """What the behavior did: ``started`` (it plays), ``box`` (box ``name`` started),
        ``state`` (keyframe ``name`` of its timeline became current), ``ended`` (the run
        ended with status ``name``, ``detail`` saying how).  ValueError for another kind.
        Quick and thread-safe: engine threads call it.  Seen after the robot's own events
        that came before it (the sentence a box said before the run ended)."""
        if kind not in BEHAVIOR_KINDS:
            raise ValueError("a behavior observation is one of %s, got %r"
                             % (", ".join(BEHAVIOR_KINDS), kind))
        seen = Observation(kind, name, detail)
        memory = self._memory
        if memory is None:
            self._observe(seen)
        else:  # after what the robot did before it: a sentence it ended, a key written
            memory._after_notifications(lambda: self._observe(seen))

    def verdict(self) -> Verdict:
        """How the expectations went so far (``decided`` once known)."""
        with self._cond:
            return Verdict(**vars(self._verdict))

    # -- observations (robot threads) ------------------------------------------------------
    def _observe(self, seen: Observation) -> None:
        with self._cond:
            if seen.kind == SAYING:
                self._speaking, self._last_sentence = True, seen.name
            elif seen.kind == SAID:
                self._speaking, self._turn = False, True
                self._quiet_since = self._clock()
                self._unheeded = []
            elif seen.kind == STARTED and self._run_started is None:
                self._run_started = self._clock()
            elif seen.kind == ENDED and self._ended is None:
                self._ended, self._ended_at = seen, self._clock()
            self._count += 1
            self._log.append((self._count, seen))
            if not self._consider(self._count, seen) and \
                    seen.kind not in (SAYING, SAID, STARTED, ENDED):
                return
            self._cond.notify_all()

    def _consider(self, number: int, seen: Observation) -> bool:
        """Whether observation ``number`` meets the pending trigger (kept if it does; what
        the pending expectation watches is kept too); ``_cond`` held."""
        pending = self._pending
        if pending is None:
            return False
        if pending[0] == "expect" and pending[1].watches(seen):
            self._watched.append(seen)
            self._watched_count += 1
        if _matches(pending, seen):
            self._seen.append((number, seen))
            return True
        return False

    def _run_over(self) -> bool:
        """The run ended while an expectation remains to be checked: nothing more will
        happen, the scenario gives up (called with ``_cond`` held)."""
        return self._ended is not None and any(
            step.expectation is not None for step in self.scenario.steps[self._step_index:])

    def _given_up(self) -> bool:
        return self._stopping or self._run_over()

    # -- steps ----------------------------------------------------------------------------
    def _arm(self, step: Optional[Step]) -> None:
        """Collect what meets ``step``'s trigger from the observation after the one that met
        the previous trigger on (called with ``_cond`` held)."""
        self._seen.clear()
        self._watched.clear()
        self._watched_count = 0
        self._pending = step.trigger if step is not None and step.trigger is not None and \
            step.trigger[0] != "at" else None
        for number, seen in self._log:
            if number > self._met_at:
                self._consider(number, seen)

    def _met(self) -> str:
        """What met the pending trigger (the first kept), for the report (``_cond`` held)."""
        self._met_at, seen = self._seen.popleft()
        return _met(seen)

    def _wait_trigger(self, step: Step, following: Optional[Step]) -> Optional[str]:
        """Wait for ``step``'s trigger, then arm ``following``; what met the trigger, or None
        when stopping or when the scenario failed there."""
        if step.expectation is not None:
            met = self._wait_expected(step)
            if met is None:
                return None
            with self._cond:
                self._arm(following)
            return met
        with self._cond:
            if step.trigger is None:
                met = "after the previous step" if step.number > 1 else "at the start"
                self._met_at = self._count
            elif step.trigger[0] == "at":
                deadline = self._started_at + step.trigger[1]
                while not self._given_up() and self._clock() < deadline:
                    self._cond.wait(deadline - self._clock())
                met = "%.1f s after the start" % (self._clock() - self._started_at)
                self._met_at = self._count
            else:
                self._cond.wait_for(lambda: self._given_up() or bool(self._seen))
                if not self._seen:
                    self._give_up(step, "waited for its trigger")
                    return None
                met = self._met()
            if self._given_up():
                self._give_up(step, "waited for its trigger")
                return None
            self._arm(following)
            return met

    def _wait_expected(self, step: Step) -> Optional[str]:
        """Wait until ``step``'s expectation is met (what met it), fails (None, the verdict
        says why) or the scenario stops (None)."""
        expectation = step.expectation
        assert expectation is not None
        approach = JointApproach(expectation) if expectation.kind == JOINT else None
        turn = self._clock()
        while True:
            angles = self._joint_angles(expectation) if approach is not None else None
            with self._cond:  # (the robot is read without it: its threads call _observe)
                if self._stopping:
                    return None
                if self._seen:
                    met = self._met()
                    break
                if angles is not None and approach is not None:
                    if approach.update(angles):
                        self._met_at = self._count
                        met = "the joints reached their targets (read: %s)" % ", ".join(
                            "%s %.2f rad" % (name, angles[name]) for name in expectation.target)
                        break
                instead = approach.describe() if approach is not None else \
                    self._instead(step, expectation)
                if self._ended is not None:
                    if expectation.kind != ENDS:
                        instead += "; " + self._ended_text()
                    self._fail(step, instead)
                    return None
                timeout: Optional[float] = None
                if self._run_started is not None:  # the time counts once the run started
                    deadline = max(turn, self._run_started) + expectation.within
                    if self._clock() >= deadline:
                        self._fail(step, instead)
                        return None
                    timeout = deadline - self._clock()
                if approach is not None:
                    timeout = JOINT_POLL_S if timeout is None else min(timeout, JOINT_POLL_S)
                self._cond.wait(timeout)
        with self._cond:
            self._verdict.held.append("%s: %s" % (step.where(self.scenario.origin), met))
            if expectation.kind == ENDS:
                self._verdict.expected_end = expectation.target
        return met

    def _instead(self, step: Step, expectation: Expectation) -> str:
        """What the robot did instead of meeting ``step``'s expectation (``_cond`` held)."""
        before = [seen for number, seen in self._log
                  if number <= self._met_at and expectation.watches(seen)]
        return expectation.instead(list(self._watched), self._watched_count,
                                   step.number - 1, before[-SHOWN_INSTEAD:])

    def _joint_angles(self, expectation: Expectation) -> Optional[Dict[str, float]]:
        """The robot's angles of the expectation's joints now (None when it cannot say)."""
        names = list(expectation.target)
        try:
            angles = self._service("ALMotion").getAngles(names, False) \
                if self._service is not None else None
        except (RuntimeError, KeyError, ValueError):  # the robot is stopping
            return None
        return dict(zip(names, angles)) if angles is not None else None

    def _ended_text(self) -> str:
        """``the behavior ended FINISHED after 3.2 s (no errors)`` (``_cond`` held)."""
        ended = self._ended
        assert ended is not None
        after = " after %.1f s" % (self._ended_at - self._run_started) \
            if self._run_started is not None else " before it started"
        return "the behavior ended %s%s%s" % (ended.name, after,
                                              " (%s)" % ended.value if ended.value else "")

    def _fail(self, step: Step, instead: str) -> None:
        """``step``'s expectation failed: the verdict says so (``_cond`` held)."""
        expectation = step.expectation
        assert expectation is not None
        self._verdict.failure = "%s: expected %s within %g s; %s" % (
            step.where(self.scenario.origin), expectation.describe(), expectation.within,
            instead)
        self._verdict.unchecked = [later.number for later in self.scenario.expectations
                                   if later.number > step.number]
        self._decide()
        self._report(EXPECTATION_FAILED + self._verdict.failure)

    def _give_up(self, step: Step, doing: str) -> None:
        """The run ended while ``step`` ``doing`` something, before the expectations that
        follow: the first of them fails (``_cond`` held; nothing when stopping)."""
        if self._stopping:
            return
        following = [later for later in self.scenario.expectations if later.number > step.number]
        self._fail(following[0], "%s, while step %d %s" % (self._ended_text(), step.number,
                                                           doing))

    def _decide(self) -> None:
        self._verdict.decided = True
        self.decided.set()

    def _play_steps(self) -> None:
        steps = self.scenario.steps
        with self._cond:
            self._arm(steps[0] if steps else None)
        try:
            for index, step in enumerate(steps):
                with self._cond:
                    self._step_index = index
                met = self._wait_trigger(step, steps[index + 1] if index + 1 < len(steps)
                                         else None)
                if met is None:
                    return
                with self._cond:
                    self._step_index = index + 1
                self._report("%s: %s" % (step.describe(), met))
                for kind, value in step.actions:
                    with self._cond:
                        if self._given_up():
                            self._give_up(step, "ran its actions")
                            return
                    self._report("%s: %s %s -> %s" % (step.describe(), kind,
                                                      _shown(kind, value), self._act(kind, value)))
            if steps:
                self._report("scenario %s: done" % (self.scenario.name or self.scenario.origin))
            if self.scenario.expectations:
                with self._cond:
                    self._decide()
                    lines = self._verdict.lines()
                for line in lines:
                    self._report(line)
        finally:
            self.done.set()

    def _act(self, kind: str, value: Any) -> str:
        senses = self._senses
        try:
            if kind == "wait":
                with self._cond:
                    self._cond.wait_for(self._given_up, value)
                return "waited"
            if kind == "hear":
                deadline = self._clock() + value["wait"]
                while not senses._speech_listeners() and self._clock() < deadline:
                    with self._cond:  # gives something time to listen, unless stopping
                        if self._cond.wait_for(self._given_up, LISTEN_POLL_S):
                            return "not said: the scenario stopped"
                return senses.hear(value["text"], value["confidence"])
            if kind == "touch":
                return senses.touch(value)
            if kind == "face":
                return senses.hideFace() if value is None else \
                    senses.showFace(value["name"], value["alpha"], value["beta"])
            if kind == "people":
                return senses.people(value)
            if kind == "tablet_touch":
                return senses.tabletTouch(*value)
            if kind == "tablet_event":
                return "; ".join(senses.tabletEvent(key, item) for key, item in value.items())
            if kind == "sonar":
                distances = senses._sonar_distances()
                distances.update(value)
                return senses.sonar(distances["left"], distances["right"])
            if kind == "raise":
                self._memory.raiseEvent(value[0], value[1])
                return "ALMemory event %s = %r" % value
            if kind == "landmark":
                return senses.landmark(value)
            if kind in ("sound", "battery", "temperature"):
                return getattr(senses, kind)(*value)
        except (RuntimeError, TypeError) as error:
            return "failed: %s" % error
        raise AssertionError(kind)

    # -- the generic person -----------------------------------------------------------------
    def _play_generic(self) -> None:
        senses = self._senses
        self._report("generic: %s; %s" % (senses.people(1), senses.showFace("")))
        last_answer = last_touch = -math.inf
        listened = False
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._stopping, GENERIC_TICK_S)
                if self._stopping:
                    return
                now = self._clock()
                speaking, turn, sentence = self._speaking, self._turn, self._last_sentence
                quiet = 0.0 if speaking else now - self._quiet_since
            if speaking:
                continue
            try:
                listeners = senses._speech_listeners()
                if listeners and not listened:  # it starts listening: the person's turn,
                    with self._cond:            # after a short pause
                        self._turn, self._quiet_since = True, now
                    listened = True
                    continue
                listened = bool(listeners)
                if listeners and ((turn and quiet >= REPLY_DELAY_S) or (
                        quiet >= IDLE_REPLY_S and now - last_answer >= IDLE_REPLY_S)):
                    text = self._generic_answer(listeners, sentence if turn else "")
                    with self._cond:
                        self._turn = False
                    last_answer = now
                    if text is not None:
                        with self._cond:
                            self._unheeded.append(text)
                        self._report("generic: hear %r -> %s" % (text, senses.hear(text)))
                        last_answer = self._clock()
                elif not listeners and quiet >= TOUCH_AFTER_S and \
                        now - last_touch >= TOUCH_EVERY_S:
                    parts = senses._head_touches_listened()
                    if parts:  # as a person: one sensor, one of those waited for
                        last_touch = now
                        part = self._pick(parts, [])
                        self._report("generic: touch %s -> %s" % (part, senses.touch(part)))
            except RuntimeError as error:  # a service going away while the robot stops
                self._report("generic: %s" % error)

    def _generic_answer(self, listeners: List[str], sentence: str) -> Optional[str]:
        """What the generic person says to the robot that listens (None: nothing fits):
        "yes" to a yes/no question, else a choice among what the robot can understand
        (see :meth:`_pick`)."""
        yes_no = is_yes_no_question(sentence)
        with self._cond:
            unheeded = list(self._unheeded)
        if "ALSpeechRecognition" in listeners:
            vocabulary = [w for w in self._senses._vocabulary() if w.strip()]
            if vocabulary:
                yes = [w for w in vocabulary if w.strip().lower() in YES_WORDS
                       and w not in unheeded]
                return yes[0] if yes_no and yes else self._pick(vocabulary, unheeded)
        if "ALDialog" in listeners:
            if yes_no:
                for word in YES_WORDS:
                    if word not in unheeded and self._senses._dialog_understands(word):
                        return word
            expected, rules = self._senses._dialog_inputs()
            choices = expected or rules
            if choices:
                return self._pick(choices, unheeded)
        return None

    def _pick(self, choices: List[str], unheeded: List[str]) -> str:
        """One of the choices the robot has not ignored since it spoke, among the least
        said so far (a conversation explores its branches), at random among equals."""
        fresh = [choice for choice in choices if choice not in unheeded] or choices
        least = min(self._uses.get(choice, 0) for choice in fresh)
        picked = self._random.choice([c for c in fresh if self._uses.get(c, 0) == least])
        self._uses[picked] = self._uses.get(picked, 0) + 1
        return picked


def _met(seen: Observation) -> str:
    """What met a trigger, for the report."""
    if seen.kind == SAID:
        return "the robot said %r" % seen.name
    if seen.kind == EVENT:
        return "%s = %r" % (seen.name, seen.value)
    if seen.kind == CALL:
        return "call %s" % seen.name
    if seen.kind == ENDED:
        return "the behavior ended %s" % seen.name
    return {BOX: "box %s started", STATE: "keyframe %s reached",
            TABLET: "the tablet shows %s"}[seen.kind] % seen.name


def _shown(kind: str, value: Any) -> str:
    if kind == "hear":
        return repr(value["text"])
    if kind == "face":
        return "none" if value is None else repr(value["name"] or "a stranger")
    if kind == "raise":
        return "%s = %r" % value
    return repr(value) if isinstance(value, str) else str(value)
