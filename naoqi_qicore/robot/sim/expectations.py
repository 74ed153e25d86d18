"""Expectations: what a scenario says the robot and its behavior must do, and how soon.

An ``expect:`` step of a scenario (:mod:`naoqi_qicore.robot.sim.scenario`) is a trigger
that must be met in time: the step waits for what it names, at most ``within`` seconds
(default :data:`DEFAULT_WITHIN_S`), then runs its actions; when it is not met in time, or
the run ends first, the expectation fails and the scenario's steps stop there::

    - expect: {say: "hello|hi", within: 5}   # the robot said a sentence containing the
                                             # text, or matching it as a regular expression
    - expect: {box: "Say Hello"}             # a box of that name (or path: root/Say Hello,
                                             # * wildcards) started
    - expect: {state: Wave}                  # a keyframe of the behavior's timeline became
                                             # current (behavior/state's states)
    - expect: {joint: {RShoulderPitch: -1.0}, tolerance: 0.1, within: 4}   # rad, all at once
    - expect: {tablet: "*.png"}              # the tablet shows an image, video or page whose
                                             # URL (or its end) matches (not the web server's
                                             # "404 Not Found" page for it)
    - expect: {ends: FINISHED, within: 30}   # the run ends FINISHED, STOPPED or ERROR

``within`` counts from the step's turn (the previous step's actions done) or from the start
of the run, whichever is later; what happened since the previous step's trigger was met
counts, as for triggers.  Speech, joints and the tablet are seen by the simulated robot;
boxes, states and the run's start and end are reported by the program running the
behavior (``main.py``, ``run_behavior --autoplay``).  :class:`Verdict` says how the
expectations went.
"""
from __future__ import annotations

import difflib
import fnmatch
import logging
import math
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

import regex

from naoqi_qicore.robot.sim.joints import JointTable
from naoqi_qicore.robot.sim.observations import BOX, ENDED, SAID, STATE, TABLET, Observation

SAY, JOINT, ENDS = "say", "joint", "ends"
#: what an expectation can be about (one per expectation)
EXPECT_KINDS = (SAY, BOX, STATE, JOINT, TABLET, ENDS)
#: the fields an expectation may have besides its kind
EXPECT_OPTIONS = ("within", "tolerance")
#: how a run can end
END_STATUSES = ("FINISHED", "STOPPED", "ERROR")
#: how long an expectation waits by default (s)
DEFAULT_WITHIN_S = 10.0
#: how far from its target a joint may be by default (rad)
DEFAULT_TOLERANCE_RAD = 0.05
#: how often joint angles are read while a joint expectation waits (s)
JOINT_POLL_S = 0.02
#: what a failure lists of what happened instead, at most
SHOWN_INSTEAD = 8
#: the largest number a scenario takes (seconds, pixels...): larger ones overflow timers
MAX_NUMBER = 1e9
#: the longest a sentence pattern is matched against one sentence (s): a pattern that would
#: backtrack for longer (``(a|aa)+$``) is taken as not found there, and the robot goes on
PATTERN_TIMEOUT_S = 0.1
#: the observation each kind of expectation is about
_WATCHED = {SAY: SAID, BOX: BOX, STATE: STATE, TABLET: TABLET, ENDS: ENDED}
_ALL_JOINTS = frozenset(JointTable("nao").limits) | frozenset(JointTable("pepper").limits)
_LOG = logging.getLogger(__name__)
#: what a sentence is matched with: the text, and its regular expression if it is one
SentencePattern = Tuple[str, Optional["regex.Pattern[str]"]]


@dataclass(frozen=True)
class Expectation:
    """One expectation: its kind, its target (say: ``(text, regex or None)``; box, state,
    tablet: a pattern; joint: ``{joint: rad}``; ends: a status), ``within`` (s) and, for
    joints, ``tolerance`` (rad)."""

    kind: str
    target: Any
    within: float = DEFAULT_WITHIN_S
    tolerance: float = DEFAULT_TOLERANCE_RAD

    def describe(self) -> str:
        """``the robot to say /bye/`` (what is expected, for messages)."""
        if self.kind == SAY:
            return "the robot to say /%s/" % self.target[0]
        if self.kind == BOX:
            return "box %r to start" % self.target
        if self.kind == STATE:
            return "the behavior's timeline to reach keyframe %r" % self.target
        if self.kind == JOINT:
            return "the joints to reach %s (± %.2f rad)" % (_angles_text(self.target),
                                                             self.tolerance)
        if self.kind == TABLET:
            return "the tablet to show %r" % self.target
        return "the behavior to end %s" % self.target

    def watches(self, seen: Observation) -> bool:
        """Whether ``seen`` is the kind of thing this expectation is about."""
        return _WATCHED.get(self.kind) == seen.kind

    def met_by(self, seen: Observation) -> bool:
        """Whether ``seen`` meets the expectation (joints: see :class:`JointApproach`)."""
        if not self.watches(seen):
            return False
        if self.kind == SAY:
            return sentence_matches(self.target, seen.name)
        if self.kind == TABLET and seen.value:
            return False  # another page shown instead, such as the web server's 404 page
        if self.kind in (BOX, TABLET):
            return fnmatch.fnmatchcase(seen.name, self.target) or \
                fnmatch.fnmatchcase(seen.name, "*/" + self.target.lstrip("/"))
        if self.kind == STATE:
            return fnmatch.fnmatchcase(seen.name, self.target)
        return seen.name == self.target

    def instead(self, seen: List[Observation], count: int, since: int = 0,
                before: Sequence[Observation] = ()) -> str:
        """What the robot or behavior did instead, from the ``count`` observations this
        expectation watched (``seen``: the last ones) since step ``since`` was met (0: the
        start); when there were none, what it did before (``before``, the last ones)."""
        if count and self.kind == ENDS:
            last = seen[-1]
            return "it ended %s%s" % (last.name, " (%s)" % last.value if last.value else "")
        if count:
            more = "%d before: " % (count - SHOWN_INSTEAD) if count > SHOWN_INSTEAD else ""
            return _DID[self.kind] + more + self._listed(seen)
        nothing = _DID_NOTHING[self.kind] + (" since step %d" % since if since else "")
        if before and self.kind != ENDS:
            nothing += " (before: %s)" % self._listed(before)
        return nothing

    def _listed(self, seen: Sequence[Observation]) -> str:
        return ", ".join(_listed(self.kind, item) for item in seen[-SHOWN_INSTEAD:])


def _listed(kind: str, seen: Observation) -> str:
    """How an observation is listed among what the robot did instead."""
    if kind == SAY:
        return '"%s"' % seen.name
    if kind == TABLET and seen.value:
        return "%s (%s)" % (seen.name, seen.value)
    return seen.name


#: how the robot's doings are listed, per kind of expectation
_DID = {SAY: "it said: ", BOX: "boxes started: ", STATE: "keyframes reached: ",
        TABLET: "the tablet showed: "}
_DID_NOTHING = {SAY: "it said nothing", BOX: "no box started",
                STATE: "no keyframe of its timeline was reached",
                TABLET: "the tablet showed nothing", ENDS: "it was still running"}


def sentence_pattern(text: str) -> SentencePattern:
    """What a sentence is matched with: ``text`` and, when it is one, the regular
    expression it is (case-insensitive; the ``regex`` package's, matched with a time
    bound)."""
    try:
        return text, regex.compile(text, regex.IGNORECASE)
    except (regex.error, ValueError, OverflowError):
        return text, None  # not a regular expression: a plain text then


def sentence_matches(target: SentencePattern, sentence: str) -> bool:
    """Whether ``sentence`` contains the text of ``target`` (case-insensitive) or its
    regular expression is found in it (see :func:`sentence_pattern`) within
    :data:`PATTERN_TIMEOUT_S` (not found, with a warning in the robot's log, when it takes
    longer)."""
    text, pattern = target
    if text.lower() in sentence.lower():
        return True
    if pattern is None:
        return False
    try:
        return pattern.search(sentence, timeout=PATTERN_TIMEOUT_S) is not None
    except TimeoutError:
        _LOG.warning("the pattern /%s/ took more than %g s on the sentence %r: taken as not "
                     "found there (write a pattern that does not backtrack so much)",
                     text[:200], PATTERN_TIMEOUT_S, sentence[:200])
        return False


def _angles_text(angles: Dict[str, float]) -> str:
    return ", ".join("%s %.2f rad" % item for item in sorted(angles.items()))


def _distance(target: Dict[str, float], angles: Dict[str, float]) -> float:
    """The largest gap between a joint's target and its angle (inf for a missing joint)."""
    return max(abs(angles[name] - goal) if name in angles else math.inf
               for name, goal in target.items())


class JointApproach:
    """The joints of a joint expectation, read again and again while it waits: whether they
    reached their targets, and how close they came."""

    def __init__(self, expectation: Expectation) -> None:
        self._target = expectation.target
        self._tolerance = expectation.tolerance
        self.closest: Optional[Dict[str, float]] = None
        self.last: Optional[Dict[str, float]] = None

    def update(self, angles: Dict[str, float]) -> bool:
        """A new reading; True when every joint is within the tolerance of its target, or
        went through it since the previous reading (joints move continuously)."""
        previous, self.last = self.last, angles
        if self.closest is None or \
                _distance(self._target, angles) < _distance(self._target, self.closest):
            self.closest = angles
        for name, goal in self._target.items():
            if name not in angles:
                return False
            crossed = previous is not None and name in previous and \
                (previous[name] - goal) * (angles[name] - goal) <= 0
            if abs(angles[name] - goal) > self._tolerance and not crossed:
                return False
        return True

    def describe(self) -> str:
        if self.last is None:
            return "its joints were not read"
        if self.closest == self.last:
            return "they are at %s" % _angles_text(self.last)
        return "they came closest at %s and are at %s" % (_angles_text(self.closest or {}),
                                                          _angles_text(self.last))


def parse_expectation(value: Any) -> Expectation:
    """The expectation of an ``expect:`` value; ValueError says what is wrong."""
    if not isinstance(value, dict) or not value:
        raise ValueError("an expectation is a mapping such as {say: hello, within: 5} (one "
                         "of %s), got %r" % (", ".join(EXPECT_KINDS), value))
    names = [str(key) for key in value]
    kinds = [name for name in names if name in EXPECT_KINDS]
    unknown = [name for name in names if name not in EXPECT_KINDS + EXPECT_OPTIONS]
    if unknown:
        near = difflib.get_close_matches(unknown[0], EXPECT_KINDS + EXPECT_OPTIONS, 1)
        raise ValueError("unknown field %r%s (one of %s, and within%s)" % (
            unknown[0], " (did you mean %r?)" % near[0] if near else "",
            ", ".join(EXPECT_KINDS), ", tolerance for joint"))
    if len(kinds) != 1:
        raise ValueError("an expectation is about one thing (one of %s), got %s" % (
            ", ".join(EXPECT_KINDS), " and ".join(kinds) if kinds else "none"))
    kind = kinds[0]
    within = _number("within", value.get("within", DEFAULT_WITHIN_S), positive=True)
    if "tolerance" in value and kind != JOINT:
        raise ValueError("tolerance goes with joint, not %s" % kind)
    tolerance = _number("tolerance", value.get("tolerance", DEFAULT_TOLERANCE_RAD),
                        positive=True)
    return Expectation(kind, _target(kind, value[kind]), within, tolerance)


def _number(name: str, value: Any, positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value \
            or not -MAX_NUMBER <= value <= MAX_NUMBER or (positive and value <= 0):
        raise ValueError("%s must be a number%s, got %s" % (name, " > 0" if positive else "",
                                                            number_text(value)))
    return float(value)


def number_text(value: Any) -> str:
    """``value`` for a message: a very long integer by its size (YAML gives no integer
    longer than Python turns back into text)."""
    if isinstance(value, int) and value.bit_length() > 64:
        return "a number of %d digits" % len(str(abs(value)))
    return repr(value)


def _text(kind: str, value: Any) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise ValueError("%s must be a non-empty text, got %r" % (kind, value))
    return value


def _target(kind: str, value: Any) -> Any:
    if kind == SAY:
        return sentence_pattern(_text(kind, value))
    if kind == JOINT:
        if not isinstance(value, dict) or not value:
            raise ValueError("joint must be a mapping of joint names to angles in rad "
                             "(e.g. {RShoulderPitch: -1.0}), got %r" % (value,))
        for name in value:
            if name not in _ALL_JOINTS:
                near = difflib.get_close_matches(str(name), sorted(_ALL_JOINTS), 1)
                raise ValueError("joint: %r is not a joint of NAO or Pepper%s" % (
                    name, " (did you mean %r?)" % near[0] if near else ""))
        return {str(name): _number("joint %s" % name, angle) for name, angle in value.items()}
    if kind == ENDS:
        status = str(value).upper() if isinstance(value, str) else value
        if status not in END_STATUSES:
            raise ValueError("ends must be one of %s, got %r" % (", ".join(END_STATUSES),
                                                                 value))
        return status
    return _text(kind, value)


def robot_problem(expectation: Expectation, robot: str) -> Optional[str]:
    """Why ``robot`` ("nao"/"pepper") cannot meet ``expectation``, or None."""
    if expectation.kind == TABLET and robot != "pepper":
        return "NAO has no tablet (a Pepper scenario: use --robot pepper)"
    if expectation.kind == JOINT:
        joints = JointTable(robot).limits
        missing = sorted(name for name in expectation.target if name not in joints)
        if missing:
            return "%s has no joint %s" % ("NAO" if robot == "nao" else "Pepper",
                                           ", ".join(missing))
    return None


@dataclass
class Verdict:
    """How a scenario's expectations went: ``decided`` once one failed (``failure`` says
    which and what happened instead) or every step is done; ``held`` lists those met,
    ``unchecked`` the steps of those never reached; ``expected_end`` is the status a met
    ``ends`` expectation named."""

    origin: str
    expectations: int
    decided: bool = False
    held: List[str] = field(default_factory=list)
    failure: str = ""
    unchecked: List[int] = field(default_factory=list)
    expected_end: str = ""

    @property
    def passed(self) -> bool:
        return self.decided and not self.failure

    def lines(self) -> List[str]:
        """What to print: the failure (and what was not checked), or how many held."""
        if self.passed:
            return ["%s: %d expectation%s held" % (self.origin, self.expectations,
                                                   "" if self.expectations == 1 else "s")]
        lines = ["expectation failed: " + self.failure] if self.failure else [
            "%s: the run ended before its expectations were checked" % self.origin]
        if self.unchecked:
            lines.append("%s: not checked: %s" % (self.origin, steps_text(self.unchecked)))
        return lines

    def run_as_expected(self, status: str, errors: int, stopped_by_scenario: bool) -> bool:
        """Whether a run that ended with ``status`` and ``errors`` box errors is what the
        scenario expected: the status a met ``ends`` names (errors allowed only when it is
        ERROR), else FINISHED, or stopped because the scenario was over, with no error."""
        if self.expected_end:
            return status == self.expected_end and (errors == 0 or status == "ERROR")
        return errors == 0 and (status == "FINISHED" or stopped_by_scenario)

    def as_dict(self) -> Dict[str, Any]:
        """The verdict as plain values (for libqi)."""
        return {"origin": self.origin, "expectations": self.expectations,
                "decided": self.decided, "held": list(self.held), "failure": self.failure,
                "unchecked": list(self.unchecked), "expected_end": self.expected_end}

    @classmethod
    def from_dict(cls, values: Dict[str, Any]) -> "Verdict":
        return cls(origin=str(values["origin"]), expectations=int(values["expectations"]),
                   decided=bool(values["decided"]), held=[str(v) for v in values["held"]],
                   failure=str(values["failure"]),
                   unchecked=[int(v) for v in values["unchecked"]],
                   expected_end=str(values["expected_end"]))


def steps_text(numbers: Iterable[int]) -> str:
    """``steps 3, 5`` or ``step 3``."""
    numbers = list(numbers)
    return "step%s %s" % ("" if len(numbers) == 1 else "s", ", ".join(map(str, numbers)))

