"""A small QiChat subset for the simulated ALDialog: topics, concepts, user rules, proposals.

Supported: ``topic: ~name()``, ``language: xxx``, ``concept:(name) [a b "c d"]``,
``dynamic: name``, ``u:(pattern) answer`` with ``[alternatives]``, ``{optional}``, ``*``,
``~concept`` and ``"quoted phrases"``, rule functions before the pattern (``u:^private(...)``,
ignored), sub-rules ``u1:``, ``u2:``... (active right after the rule or proposal above them),
``proposal: text``; ``$var=value`` and ``^...`` annotations are removed from answers
(assignments are returned so ALDialog can store them).  Names may hold ``-``
(Choregraphe's Choice box names its topic and concepts with a UUID).
"""
import re
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

_TOKEN = re.compile(r'"[^"]*"|\[|\]|\{|\}|~[\w-]+|\*|[^\s\[\]{}"]+')
_ASSIGNMENT = re.compile(r"\$(\w+)=(\S+)")
_ANNOTATION = re.compile(r"\^\w+(\([^)]*\))?")


class TopicError(ValueError):
    """A topic that cannot be read, with its line number."""


@dataclass
class Rule:
    """A user rule: its QiChat pattern and answer, and its sub-rules."""

    pattern: str
    answer: str
    subrules: List["Rule"] = field(default_factory=list)


@dataclass
class Topic:
    """A loaded topic."""

    name: str
    language: str
    concepts: Dict[str, List[str]] = field(default_factory=dict)
    rules: List[Rule] = field(default_factory=list)
    proposals: List[Rule] = field(default_factory=list)


def _words(text: str) -> str:
    return " ".join(re.findall(r"[\w']+", text.lower()))


def _alternatives(items: List[str]) -> List[str]:
    """Top-level entries of a concept or [ ] list (quoted phrases kept whole)."""
    return [t.strip('"') for t in _TOKEN.findall(" ".join(items)) if t not in "[]"]


def pattern_regex(pattern: str, concept: Callable[[str], List[str]]) -> str:
    """Regular expression matching normalised inputs for a QiChat ``u:(pattern)``."""
    parts: List[str] = []
    stack: List[Tuple[str, List[str]]] = []
    for token in _TOKEN.findall(pattern):
        if token in "[{":
            stack.append((token, []))
            continue
        if token in "]}":
            if not stack:
                raise TopicError("unbalanced '%s' in (%s)" % (token, pattern))
            kind, items = stack.pop()
            piece = "(?:%s)" % "|".join(items) + ("?" if kind == "{" else "")
        elif token == "*":
            piece = r"(?:[\w' ]*?)"
        elif token.startswith("~"):
            values = "|".join(re.escape(_words(v)) for v in concept(token[1:]))
            piece = "(?:%s)" % (values or "(?!)")
        else:
            piece = re.escape(_words(token.strip('"')))
        (stack[-1][1] if stack else parts).append(piece)
    if stack:
        raise TopicError("unclosed '%s' in (%s)" % (stack[-1][0], pattern))
    return r"\s*".join(parts)


def parse_topic(text: str) -> Topic:
    """Read a .top file's text."""
    topic: Optional[Topic] = None
    language = ""
    parents: List[Rule] = []  # the last rule read at each level
    for number, raw in enumerate(text.lstrip("\ufeff").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        header = re.match(r"topic:\s*~([\w-]+)\s*\(\s*\)", line)
        if header:
            topic = Topic(header.group(1), language)
            continue
        if line.startswith("language:"):
            language = line.split(":", 1)[1].strip()
            if topic is not None:
                topic.language = language
            continue
        if topic is None:
            raise TopicError("line %d: expected 'topic: ~name()' first" % number)
        defined = re.match(r"(?:dynamic:\s*([\w-]+)|concept:\s*\(([\w-]+)\)\s*(.*))$", line)
        rule = re.match(r"u(\d*):\s*(?:\^\w+\s*)*\((.*?)\)\s*(.*)$", line)
        if defined:
            name = defined.group(1) or defined.group(2)
            topic.concepts[name] = _alternatives([defined.group(3) or ""])
        elif rule:
            try:
                pattern_regex(rule.group(2), lambda name: [])
            except TopicError as error:
                raise TopicError("line %d: %s" % (number, error))
            level, read = int(rule.group(1) or 0), Rule(rule.group(2), rule.group(3))
            if level > len(parents):
                raise TopicError("line %d: u%d: without a u%s: rule above it"
                                 % (number, level, level - 1 or ""))
            (parents[level - 1].subrules if level else topic.rules).append(read)
            parents[level:] = [read]
        elif line.startswith("proposal:"):
            topic.proposals.append(Rule("", line.split(":", 1)[1].strip()))
            parents[:] = topic.proposals[-1:]
        else:
            raise TopicError("line %d: cannot read '%s'" % (number, line))
    if topic is None:
        raise TopicError("no 'topic: ~name()' line")
    return topic


def render_answer(answer: str) -> Tuple[str, Dict[str, str]]:
    """(text to say, variable assignments) of an answer."""
    assignments = dict(_ASSIGNMENT.findall(answer))
    text = _ANNOTATION.sub(" ", _ASSIGNMENT.sub(" ", answer))
    return " ".join(text.split()), assignments


def answer_for(topics: List[Topic], heard: str, concept: Callable[[str], List[str]],
               expected: Sequence[Tuple[Topic, Rule]] = ()) -> Optional[Tuple[str, Rule]]:
    """(topic name, first matching rule) for an input: the ``expected`` sub-rules first,
    then the rules of ``topics`` in order; concepts come from the topic, else from
    ``concept`` (dynamic concepts)."""
    normalised = _words(heard)
    candidates = list(expected) + [(topic, rule) for topic in topics for rule in topic.rules]
    for topic, rule in candidates:
        def lookup(name: str, topic: Topic = topic) -> List[str]:
            return topic.concepts.get(name) or concept(name)

        if re.fullmatch(pattern_regex(rule.pattern, lookup), normalised):
            return topic.name, rule
    return None
