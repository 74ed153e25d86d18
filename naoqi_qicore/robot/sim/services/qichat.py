"""QiChat for the simulated ALDialog: reading topic files, matching inputs, rendering answers.

Reading (:func:`parse_topic`) follows NAOqi's QiChat syntax:

* header keywords ``topic: ~name()``, ``language: xxx`` (a QiChat code such as ``enu``,
  ``frf``, ``jpj`` or a NAOqi name such as ``English``), ``concept:(name) ...``,
  ``dynamic: name``, ``include: file.top`` (the concepts of another topic file, found beside
  the including file; ``lexicon_enu.top`` falls back on the robot's own lexicon, see
  :mod:`~naoqi_qicore.robot.sim.services.qichat_lexicon`), ``def: name($a, $b) output`` and
  ``pronunciation:(word) [phonemes]``;
* rules ``u:(human input) robot output``, ``proposal: %tag output``, sub-rules ``u1:`` ...
  ``u9:`` under a rule, a proposal or another sub-rule (a ``uN:`` belongs to the last rule
  read at level N-1, even when a proposal came in between), callback sub-rules ``c1:`` ...
  of a ``^call``, rule functions before the input (``u:^private(...)``);
* a line that starts with none of these keywords continues the statement above it;
* ``#`` starts a comment; ``%script`` ... ``%script`` encloses Python code, a step of the
  output where it stands;
* in inputs: words, ``"phrases"`` (quotes nest: ``"what ["did you say" said]"``), choices
  ``[a b]``, optional parts ``{a b}``, the wildcard ``*``, input storing ``_``, concepts
  ``~name``, variables ``$name`` and conditions ``$name==value`` (also ``!= <> > < >= <=``),
  forbidden words ``!word``, events ``e:Event/Name`` (also ``in:name``; alone or in a choice
  beside words: ``[~yes e:Dialog/AnswerYes]``) and assignments ``$name=value`` (made when
  the part of the input holding them matches);
* in outputs: text, choices ``[a b]`` (said in turn, skipping those that cannot be said),
  ``^rand[...]``, ``^first[...]``, ``$name`` and ``$1`` values, ``$name=value`` assignments
  (seen by the rest of the output), concepts (``~drink?``: the punctuation is not part of
  the name), ``%bookmarks``, ``\\pau=200\\`` speech tags and ``^functions(arguments)``
  (``^goto``, ``^start``, ``^wait``, ``^call``, ``^clear``...).

What cannot be read raises :class:`TopicError` naming the file (when known) and the line.
One tolerance, because the robots' own English lexicon needs it: in a concept, a ``"`` phrase
left open at the end of its line ends there when the concept cannot be read otherwise (the
topic's ``warnings`` say where).

Matching compiles a rule's input into a regular expression over the normalised input (words in
lower case, punctuation dropped), matched with the ``regex`` package within
:data:`MATCH_TIMEOUT_S`: an input whose wildcards backtrack without end on a long sentence
(``u:(* * * * * * * * x)``, written by any client loading a topic) is taken as not matching
it, with a warning in the robot's log, instead of holding the robot; rendering evaluates an output against the captured words,
variables and concepts into its steps in the order they stand (text to say, assignments, rule
functions, ``%script`` blocks: :class:`Output`).  Both are used by
:mod:`naoqi_qicore.robot.sim.services.dialog`, which does the steps in that order.
"""
import logging
import os
import random
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import regex

from naoqi_qicore.robot.sim.services.qichat_lexicon import builtin_lexicon

_LOG = logging.getLogger("naoqi_sim.qichat")
#: longest a rule's input may take to match one input (s)
MATCH_TIMEOUT_S = 0.1


class TopicError(ValueError):
    """A topic that cannot be read: ``file:line: message`` (``line N: message`` when the
    topic has no file)."""

    def __init__(self, message: str, line: Optional[int] = None,
                 origin: Optional[str] = None) -> None:
        self.message = message
        self.line = line
        self.origin = origin
        super().__init__(self._text())

    def _text(self) -> str:
        if self.origin and self.line:
            return "%s:%d: %s" % (self.origin, self.line, self.message)
        if self.line:
            return "line %d: %s" % (self.line, self.message)
        if self.origin:
            return "%s: %s" % (self.origin, self.message)
        return self.message

    def __str__(self) -> str:
        return self._text()


# -- syntax tree ---------------------------------------------------------------------------
class Node:
    """One element of an input, an output or a concept; ``sp``: whitespace before it."""

    __slots__ = ("sp",)

    def __init__(self) -> None:
        self.sp = True


class Word(Node):
    """Literal text (a word, punctuation, a speech tag such as ``\\pau=200\\``)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class Phrase(Node):
    """``"..."``: elements that go together."""

    __slots__ = ("items",)

    def __init__(self, items: List[Node]) -> None:
        super().__init__()
        self.items = items


class Choice(Node):
    """``[a b]`` (``optional``: ``{a b}``); ``mode`` "rand"/"first" for ``^rand[...]`` and
    ``^first[...]``."""

    __slots__ = ("items", "optional", "mode", "spread")

    def __init__(self, items: List[Node], optional: bool = False, mode: str = "",
                 spread: bool = False) -> None:
        super().__init__()
        self.items = items
        self.optional = optional
        self.mode = mode
        self.spread = spread  # ^rand~concept: choose among the concept's alternatives


class Star(Node):
    """``*``: any words, maybe none."""

    __slots__ = ()


class Capture(Node):
    """``_x``: what ``x`` matched is stored in ``$1``, ``$2``..."""

    __slots__ = ("item",)

    def __init__(self, item: Node) -> None:
        super().__init__()
        self.item = item


class Forbidden(Node):
    """``!x``: the input must not go on with ``x`` here."""

    __slots__ = ("item",)

    def __init__(self, item: Node) -> None:
        super().__init__()
        self.item = item


class ConceptRef(Node):
    """``~name``."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name


class VarRef(Node):
    """``$name`` (a variable: an ALMemory key)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name


class CaptureRef(Node):
    """``$1``, ``$2``...: what the input stored with ``_``."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        super().__init__()
        self.index = index


class Condition(Node):
    """``$name==value`` (``!= <> > < >= <=``): true or false, matches no words."""

    __slots__ = ("name", "op", "value")

    def __init__(self, name: str, op: str, value: Node) -> None:
        super().__init__()
        self.name = name
        self.op = op
        self.value = value


class Assign(Node):
    """``$name=value`` in an output."""

    __slots__ = ("name", "value")

    def __init__(self, name: str, value: Node) -> None:
        super().__init__()
        self.name = name
        self.value = value


class Func(Node):
    """``^name``, ``^name(arguments)`` (``args``: their text) or ``^rand[...]``."""

    __slots__ = ("name", "args", "choice")

    def __init__(self, name: str, args: Optional[str] = None,
                 choice: Optional[Choice] = None) -> None:
        super().__init__()
        self.name = name
        self.args = args
        self.choice = choice


class Tag(Node):
    """``%name``: a rule's tag (where its output starts) or a bookmark."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name


class Event(Node):
    """``e:Event/Name`` (or ``in:name``): the rule answers the event (in a choice, the
    event or the other alternatives' words)."""

    __slots__ = ("name", "kind")

    def __init__(self, name: str, kind: str = "e") -> None:
        super().__init__()
        self.name = name
        self.kind = kind


class Script(Node):
    """A ``%script`` block of an output: Python code run where it stands."""

    __slots__ = ("code",)

    def __init__(self, code: str) -> None:
        super().__init__()
        self.code = code


def event_key(event: Event) -> str:
    """How the dialog names an event: the ALMemory key, ``in:name`` for ``in:`` events."""
    return event.name if event.kind == "e" else "in:" + event.name


# -- topics and rules ----------------------------------------------------------------------
@dataclass
class Rule:
    """A user rule (``kind`` "u"), a proposal ("proposal") or a callback rule ("c"): its
    QiChat input and output, the parsed forms, and what hangs below it."""

    pattern: str
    answer: str
    subrules: List["Rule"] = field(default_factory=list)
    kind: str = "u"
    level: int = 0
    line: int = 0
    functions: List[str] = field(default_factory=list)
    tags: List[str] = field(default_factory=list)
    scripts: List[str] = field(default_factory=list)
    callbacks: List["Rule"] = field(default_factory=list)
    input: List[Node] = field(default_factory=list, repr=False)
    output: List[Node] = field(default_factory=list, repr=False)

    @property
    def events(self) -> List[str]:
        """The events the rule's input answers, wherever they are in it (``u:(e:Bell)``,
        ``u:([~yes e:Dialog/AnswerYes])``); ``in:`` events keep their prefix."""
        found: List[str] = []
        pending = list(self.input)
        while pending:
            node = pending.pop(0)
            if isinstance(node, Event):
                key = event_key(node)
                if key not in found:
                    found.append(key)
            pending[:0] = _children(node)
        return found

    @property
    def private(self) -> bool:
        """``^private`` rules answer only while their topic has the focus."""
        return "private" in self.functions


@dataclass
class Topic:
    """A loaded topic."""

    name: str
    language: str
    concepts: Dict[str, List[Node]] = field(default_factory=dict)
    dynamic: List[str] = field(default_factory=list)
    rules: List[Rule] = field(default_factory=list)
    proposals: List[Rule] = field(default_factory=list)
    functions: Dict[str, Tuple[List[str], List[Node]]] = field(default_factory=dict)
    pronunciations: Dict[str, str] = field(default_factory=dict)
    includes: List[str] = field(default_factory=list)
    topic_functions: List[str] = field(default_factory=list)
    origin: Optional[str] = None
    language_line: int = 0
    #: what was read with some tolerance (NAOqi accepts it too), as "file:line: message"
    warnings: List[TopicError] = field(default_factory=list)
    #: next alternative of each output choice said in turn (id of the Choice -> index)
    turns: Dict[int, int] = field(default_factory=dict, repr=False)

    def all_rules(self) -> Iterator[Rule]:
        """Every rule, proposal and sub-rule, depth first in file order."""
        def walk(rules: List[Rule]) -> Iterator[Rule]:
            for rule in rules:
                yield rule
                yield from walk(rule.subrules)
                yield from walk(rule.callbacks)
        items = sorted(self.rules + self.proposals, key=lambda r: r.line)
        return walk(items)


# -- reading elements ----------------------------------------------------------------------
_NAME_CHARS = r"[^\s()\[\]{}\"~$^%#,]"
#: ``~name``; punctuation right after it is not part of it (``do you want ~drink?``)
_CONCEPT = re.compile(r"~(%s+?)(?=[?!.;:*]*(?:[\s()\[\]{}\"~$^%%#,]|$))" % _NAME_CHARS)
_CAPTURE_REF = re.compile(r"\$(\d+)(?!\w)")
_VARIABLE = re.compile(r"\$(\w(?:[\w/\-.]*\w)?)")
_OPERATOR = re.compile(r"\s*(==|!=|<>|>=|<=|=|>|<)\s*")
_FUNCTION = re.compile(r"\^([A-Za-z_]\w*)")
_TAG = re.compile(r"%([\w\-.]*\w)")
_SPEECH_TAG = re.compile(r"\\[A-Za-z]+\s*(?:=\s*[^\\\n]*?)?\\")
_EVENT = re.compile(r"(e|in):([^\s()\[\]{}\"]+)")
_WORD_END = re.compile(r"[\s\[\]{}\"\\]|\^[A-Za-z_]|\$\w|~[^\s()\[\]{}\"~$^%#,]")
_OPENERS = {"[": "]", "{": "}", '"': '"'}
_SPACE_BEFORE_QUOTE = set(" \t[{(\"")
_SPACE_AFTER_QUOTE = set(" \t]})\"")


class _Reader:
    """Reads one input, output or concept body into nodes.

    ``kind``: "input", "output" or "concept"; ``lines``: (offset, line number) of each source
    line joined into ``text``, to name the line of an error.
    """

    def __init__(self, text: str, kind: str, lines: Sequence[Tuple[int, int]],
                 recover: bool = False) -> None:
        self.s = text
        self.i = 0
        self.kind = kind
        self.lines = lines
        #: close a phrase left open at the end of its line (the robot's own English lexicon
        #: has such lines, which NAOqi accepts)
        self.recover = recover
        self.recovered: List[int] = []  # lines where a phrase was closed that way

    def line_at(self, offset: int) -> int:
        number = self.lines[0][1] if self.lines else 0
        for start, line in self.lines:
            if start > offset:
                break
            number = line
        return number

    def error(self, message: str, offset: Optional[int] = None) -> TopicError:
        return TopicError(message, self.line_at(self.i if offset is None else offset))

    def read(self) -> List[Node]:
        return self._items("", 0)

    # -- structure ---------------------------------------------------------------------------
    def _quote_closes(self) -> bool:
        """Inside a phrase, whether the ``"`` at ``self.i`` closes it (else it opens one)."""
        before = self.s[self.i - 1] if self.i > 0 else " "
        after = self.s[self.i + 1] if self.i + 1 < len(self.s) else " "
        return after in _SPACE_AFTER_QUOTE or before not in _SPACE_BEFORE_QUOTE

    def _items(self, closer: str, opened_at: int) -> List[Node]:
        items: List[Node] = []
        while True:
            start = self.i
            while self.i < len(self.s) and self.s[self.i].isspace():
                self.i += 1
            spaced = self.i > start or self.i == 0
            if self.i >= len(self.s):
                if closer:
                    opener = {"]": "[", "}": "{", '"': '"'}[closer]
                    raise self.error("unclosed '%s'" % opener, opened_at)
                return items
            char = self.s[self.i]
            if closer == '"' and char == '"' and self._quote_closes():
                self.i += 1
                return items
            if closer == '"' and self.recover and any(start < offset <= self.i
                                                      for offset, _ in self.lines):
                self.recovered.append(self.line_at(start))
                return items
            if char in "]}":
                if char == closer:
                    self.i += 1
                    return items
                raise self.error("unbalanced '%s'" % char)
            node = self._item()
            node.sp = spaced or (items == [] and closer == "")
            items.append(node)

    def _item(self) -> Node:
        s, i = self.s, self.i
        char = s[i]
        if char == "[" or char == "{":
            self.i += 1
            return Choice(self._items(_OPENERS[char], i), optional=char == "{")
        if char == '"':
            self.i += 1
            return Phrase(self._items('"', i))
        if self.kind != "output":
            if char == "*":
                self.i += 1
                return Star()
            if char == "_" and i + 1 < len(s) and not s[i + 1].isspace():
                self.i += 1
                return Capture(self._item())
            if char == "!" and i + 1 < len(s) and not s[i + 1].isspace():
                self.i += 1
                return Forbidden(self._item())
            if self.kind == "input":
                event = _EVENT.match(s, i)
                if event and (i == 0 or s[i - 1].isspace() or s[i - 1] in "[{\""):
                    self.i = event.end()
                    return Event(event.group(2), event.group(1))
        if char == "~":
            concept = _CONCEPT.match(s, i)
            if concept is None:
                raise self.error("'~' without a concept name")
            self.i = concept.end()
            return ConceptRef(concept.group(1))
        if char == "$":
            node = self._variable()
            if node is not None:
                return node
        if char == "^":
            function = _FUNCTION.match(s, i)
            if function is not None:
                return self._function(function)
        if char == "%" and self.kind == "output":
            tag = _TAG.match(s, i)
            if tag is not None:
                self.i = tag.end()
                return Tag(tag.group(1))
        if char == "\\":
            speech = _SPEECH_TAG.match(s, i)
            if speech is not None:
                self.i = speech.end()
                return Word(speech.group(0))
        end = _WORD_END.search(s, i + 1)
        self.i = end.start() if end else len(s)
        return Word(s[i:self.i])

    def _variable(self) -> Optional[Node]:
        s, i = self.s, self.i
        index = _CAPTURE_REF.match(s, i)
        if index is not None:
            self.i = index.end()
            return CaptureRef(int(index.group(1)))
        name = _VARIABLE.match(s, i)
        if name is None:
            return None
        self.i = name.end()
        operator = _OPERATOR.match(s, self.i)
        if operator is None or operator.end() >= len(s) or s[operator.end()] in "])}":
            return VarRef(name.group(1))
        op = operator.group(1)
        self.i = operator.end()
        value = self._value()
        return Assign(name.group(1), value) if op == "=" else Condition(name.group(1), op, value)

    def _value(self) -> Node:
        """The value of an assignment or a condition: a phrase, a variable or a word."""
        s, start = self.s, self.i
        if s[start] == '"':
            self.i += 1
            return Phrase(self._items('"', start))
        if s[start] == "$":
            node = self._variable()
            if isinstance(node, (VarRef, CaptureRef)):
                return node
            self.i = start
        end = start
        while end < len(s) and not s[end].isspace() and s[end] not in "[]{}\"":
            end += 1
        self.i = end
        return Word(s[start:end])

    def _function(self, match: "re.Match[str]") -> Node:
        s = self.s
        name = match.group(1)
        self.i = match.end()
        if name in ("rand", "first"):
            j = self.i
            while j < len(s) and s[j] in " \t":
                j += 1
            if j < len(s) and s[j] == "~":
                self.i = j
                concept = self._item()
                return Func(name, choice=Choice([concept], mode=name, spread=True))
            if j >= len(s) or s[j] not in "[{":
                raise self.error("^%s needs a choice: ^%s[...] or ^%s~concept"
                                 % (name, name, name))
            self.i = j + 1
            items = self._items(_OPENERS[s[j]], j)
            return Func(name, choice=Choice(items, optional=s[j] == "{", mode=name))
        if self.i < len(s) and s[self.i] == "(":
            opened = self.i
            depth, quoted, j = 0, False, self.i
            while j < len(s):
                if s[j] == '"':
                    quoted = not quoted
                elif not quoted and s[j] == "(":
                    depth += 1
                elif not quoted and s[j] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            if j >= len(s):
                raise self.error("unclosed '(' of ^%s" % name, opened)
            self.i = j + 1
            return Func(name, s[opened + 1:j])
        return Func(name)


def _children(node: Node) -> List[Node]:
    if isinstance(node, (Phrase, Choice)):
        return list(node.items)
    if isinstance(node, (Capture, Forbidden)):
        return [node.item]
    if isinstance(node, Func) and node.choice is not None:
        return [node.choice]
    return []


def read_nodes(text: str, kind: str, line: int = 0) -> List[Node]:
    """Parse one input ("input"), output ("output") or concept body ("concept")."""
    return _Reader(text, kind, [(0, line)]).read()


# -- reading a topic file ------------------------------------------------------------------
_KEYWORD = re.compile(r"\s*(topic|language|concept|dynamic|include|def|pronunciation|proposal"
                      r"|u\d?|c\d)\s*:")
_SCRIPT = "%script"
#: header keywords whose statement is one line (rules, concepts and def: may go on)
_ONE_LINE = ("topic", "language", "dynamic", "include")


@dataclass
class _Statement:
    keyword: str
    text: str  # after "keyword:"
    line: int
    lines: List[Tuple[int, int]]  # (offset in text, source line)
    scripts: List[str] = field(default_factory=list)


def _strip_comment(line: str) -> str:
    return line.split("#", 1)[0]


def _trim_block(lines: List[str]) -> str:
    """A ``%script`` block without its blank first and last lines."""
    while lines and not lines[0].strip():
        lines = lines[1:]
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return "\n".join(line.rstrip() for line in lines)


def _statements(text: str) -> List[_Statement]:
    """Split a topic into statements: a keyword line and its continuation lines, with the
    ``%script`` blocks found in them."""
    statements: List[_Statement] = []
    script: Optional[List[str]] = None
    script_line = 0

    def add_text(piece: str, number: int) -> None:
        piece = _strip_comment(piece)
        if not piece.strip():
            return
        keyword = _KEYWORD.match(piece)
        if keyword is not None:
            body = piece[keyword.end():]
            statements.append(_Statement(keyword.group(1), body, number, [(0, number)]))
            return
        if not statements:
            raise TopicError("expected 'topic: ~name()' first, got '%s'" % piece.strip(),
                             number)
        last = statements[-1]
        if last.keyword in _ONE_LINE:
            raise TopicError("cannot read '%s' (a %s: line does not go on on the next line)"
                             % (piece.strip(), last.keyword), number)
        last.lines.append((len(last.text) + 1, number))
        last.text += " " + piece

    for number, raw in enumerate(text.splitlines(), 1):
        line = raw
        while True:
            if script is not None:
                end = line.find(_SCRIPT)
                if end < 0:
                    script.append(line)
                    break
                script.append(line[:end])
                statements[-1].scripts.append(_trim_block(script))
                script = None
                line = line[end + len(_SCRIPT):]
                continue
            code = _strip_comment(line)
            start = code.find(_SCRIPT)
            if start < 0:
                add_text(line, number)
                break
            add_text(line[:start], number)
            if not statements or statements[-1].keyword not in ("u", "proposal") and \
                    not re.fullmatch(r"[uc]\d", statements[-1].keyword):
                raise TopicError("%script outside a rule's output", number)
            statements[-1].text += " %s " % _SCRIPT  # where it stands: see _with_scripts
            script, script_line = [], number
            line = line[start + len(_SCRIPT):]
    if script is not None:
        raise TopicError("unclosed %script", script_line)
    return statements


_HEADER = re.compile(r"\s*~(%s+)\s*\(\s*\)\s*(.*)$" % _NAME_CHARS)
_DEFINITION = re.compile(r"\s*\(\s*([^\s()]+)\s*\)\s*(.*)$", re.DOTALL)
_DEF = re.compile(r"\s*([A-Za-z_]\w*)\s*\(([^)]*)\)\s*(.*)$", re.DOTALL)


def _rule_parts(statement: _Statement) -> Tuple[List[str], int, str, str]:
    """(rule functions, offset of the input, input, output) of a ``u``/``c`` statement."""
    text = statement.text
    i = 0
    functions = []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        function = _FUNCTION.match(text, i)
        if function is None:
            break
        functions.append(function.group(1))
        i = function.end()
    if i >= len(text) or text[i] != "(":
        raise TopicError("%s: needs a human input in parentheses" % statement.keyword,
                         statement.line)
    depth, quoted, j = 0, False, i
    while j < len(text):
        if text[j] == '"':
            quoted = not quoted
        elif not quoted and text[j] == "(":
            depth += 1
        elif not quoted and text[j] == ")":
            depth -= 1
            if depth == 0:
                break
        j += 1
    if j >= len(text):
        raise TopicError("unclosed '(' of the human input", statement.line)
    return functions, i + 1, text[i + 1:j], text[j + 1:]


def _shift(lines: List[Tuple[int, int]], offset: int) -> List[Tuple[int, int]]:
    """Line offsets of a statement's text seen from ``offset`` on."""
    return [(max(0, start - offset), number) for start, number in lines]


IncludeReader = Callable[[str, int], Tuple[str, str]]


def _default_reader(origin: Optional[str]) -> IncludeReader:
    """Finds ``include:`` files beside ``origin`` (the including file), else the robot's
    own lexicon for ``lexicon_<language>.top``."""
    def read(path: str, line: int) -> Tuple[str, str]:
        if os.path.isabs(path) or origin:
            full = path if os.path.isabs(path) else os.path.join(os.path.dirname(origin or ""),
                                                                 path)
            if os.path.isfile(full):
                try:
                    with open(full, encoding="utf-8-sig") as source:
                        return source.read(), full
                except (OSError, UnicodeDecodeError) as error:
                    raise TopicError("include: cannot read '%s': %s" % (path, error), line)
        builtin = builtin_lexicon(os.path.basename(path))
        if builtin is not None:
            return builtin, "<robot lexicon %s>" % os.path.basename(path)
        if not origin and not os.path.isabs(path):
            raise TopicError("include: '%s' is relative and the topic has no file to find it "
                             "from" % path, line)
        raise TopicError("include: file '%s' does not exist" % path, line)
    return read


def parse_topic(text: str, origin: Optional[str] = None,
                include: Optional[IncludeReader] = None, _seen: Tuple[str, ...] = ()) -> Topic:
    """Read a .top file's text (``origin``: its path, named in errors and used to find
    included files; ``include(path, line) -> (text, origin)`` reads an included file)."""
    try:
        return _parse(text.lstrip("\ufeff"), origin, include, _seen)
    except TopicError as error:
        if error.origin is None:
            error.origin = origin
        raise


def _parse(text: str, origin: Optional[str], include: Optional[IncludeReader],
           seen: Tuple[str, ...]) -> Topic:
    topic: Optional[Topic] = None
    language, language_line = "", 0
    parents: Dict[int, Rule] = {}  # the last rule read at each level
    for statement in _statements(text):
        keyword, body, number = statement.keyword, statement.text, statement.line
        if keyword == "language":
            language, language_line = body.strip(), number
            if not language or len(language.split()) != 1:
                raise TopicError("language: needs one language code, got '%s'" % language,
                                 number)
            if topic is not None:
                topic.language, topic.language_line = language, number
            continue
        if keyword == "topic":
            if topic is not None:
                raise TopicError("a second 'topic:' header (the topic is ~%s)" % topic.name,
                                 number)
            header = _HEADER.match(body)
            if header is None:
                raise TopicError("expected 'topic: ~name()', got 'topic:%s'" % body.rstrip(),
                                 number)
            topic = Topic(header.group(1), language, origin=origin,
                          language_line=language_line)
            rest = header.group(2).strip()
            topic.topic_functions = _FUNCTION.findall(rest)
            if _FUNCTION.sub("", rest).strip():
                raise TopicError("unexpected text after the topic header: '%s'" % rest, number)
            continue
        if topic is None:
            raise TopicError("expected 'topic: ~name()' first", number)
        _statement(topic, statement, parents, include, origin, seen)
    if topic is None:
        raise TopicError("no 'topic: ~name()' line")
    return topic


def _statement(topic: Topic, statement: _Statement, parents: Dict[int, Rule],
               include: Optional[IncludeReader], origin: Optional[str],
               seen: Tuple[str, ...]) -> None:
    keyword, body, number = statement.keyword, statement.text, statement.line
    if keyword == "concept":
        definition = _DEFINITION.match(body)
        if definition is None:
            raise TopicError("expected 'concept:(name) [words]'", number)
        lines = _shift(statement.lines, definition.start(2))
        try:
            nodes = _Reader(definition.group(2), "concept", lines).read()
        except TopicError as error:
            lenient = _Reader(definition.group(2), "concept", lines, recover=True)
            try:
                nodes = lenient.read()
            except TopicError:
                raise error from None
            topic.warnings.extend(TopicError("unclosed '\"' taken as ending with its line", n,
                                             origin) for n in lenient.recovered)
        if not nodes:
            raise TopicError("concept ~%s is empty" % definition.group(1), number)
        topic.concepts[definition.group(1)] = nodes
    elif keyword == "dynamic":
        names = [n for n in re.split(r"[\s,]+", body.strip()) if n]
        if not names or any(not re.fullmatch(_NAME_CHARS + "+", n) for n in names):
            raise TopicError("expected 'dynamic: name', got 'dynamic:%s'" % body.rstrip(),
                             number)
        topic.dynamic.extend(names)
    elif keyword == "include":
        _include(topic, body.strip(), number, include, origin, seen)
    elif keyword == "pronunciation":
        definition = _DEFINITION.match(body)
        if definition is None:
            raise TopicError("expected 'pronunciation:(word) [phonemes]'", number)
        topic.pronunciations[definition.group(1)] = definition.group(2).strip()
    elif keyword == "def":
        function = _DEF.match(body)
        if function is None:
            raise TopicError("expected 'def:name($parameter, ...) output'", number)
        params = [p.strip() for p in function.group(2).split(",") if p.strip()]
        if any(not re.fullmatch(r"\$\w+", p) for p in params):
            raise TopicError("def:%s: parameters are $names" % function.group(1), number)
        output = _Reader(function.group(3), "output",
                         _shift(statement.lines, function.start(3))).read()
        topic.functions[function.group(1)] = ([p[1:] for p in params], output)
    else:
        _rule(topic, statement, parents)


def _include(topic: Topic, path: str, number: int, include: Optional[IncludeReader],
             origin: Optional[str], seen: Tuple[str, ...]) -> None:
    if not path:
        raise TopicError("include: needs a file name", number)
    text, found = (include or _default_reader(origin))(path, number)
    if found in seen or found == origin:
        raise TopicError("include: '%s' includes itself" % path, number)
    included = parse_topic(text, found, include, seen + ((origin or ""), found))
    if included.rules or included.proposals:
        raise TopicError("include: '%s' has rules; an included topic may only define concepts"
                         % path, number)
    for name, nodes in included.concepts.items():
        topic.concepts.setdefault(name, nodes)
    topic.dynamic.extend(n for n in included.dynamic if n not in topic.dynamic)
    topic.functions.update({k: v for k, v in included.functions.items()
                            if k not in topic.functions})
    topic.includes.append(found)
    topic.warnings.extend(included.warnings)


def _with_scripts(nodes: List[Node], scripts: List[str]) -> List[Node]:
    """``nodes`` of an output with the ``%script`` marks :func:`_statements` left where its
    blocks stood (read as the tag ``%script``) replaced by the blocks, in order."""
    remaining = list(scripts)

    def replaced(items: List[Node]) -> List[Node]:
        result: List[Node] = []
        for node in items:
            if isinstance(node, Tag) and "%" + node.name == _SCRIPT and remaining:
                script = Script(remaining.pop(0))
                script.sp = node.sp
                node = script
            elif isinstance(node, (Phrase, Choice)):
                node.items = replaced(node.items)
            elif isinstance(node, Func) and node.choice is not None:
                node.choice.items = replaced(node.choice.items)
            result.append(node)
        return result
    return replaced(nodes)


def _leading_tags(output: List[Node]) -> List[str]:
    """The rule's tags: the ``%tag`` an output starts with (taken out of ``output``), the
    names ``^activate``/``^deactivate``/``^goto`` and ALDialog's ``*Tag`` methods use."""
    tags = []
    while output and isinstance(output[0], Tag):
        tags.append(output.pop(0).name)  # type: ignore[attr-defined]
    return tags


def _rule(topic: Topic, statement: _Statement, parents: Dict[int, Rule]) -> None:
    keyword, number = statement.keyword, statement.line
    if keyword == "proposal":
        output = _with_scripts(_Reader(statement.text, "output", statement.lines).read(),
                               statement.scripts)
        read = Rule("", statement.text.strip(), kind="proposal", line=number,
                    tags=_leading_tags(output), scripts=statement.scripts, output=output)
        topic.proposals.append(read)
        parents[0] = read
        return
    functions, start, pattern, answer = _rule_parts(statement)
    input_nodes = _Reader(pattern, "input", _shift(statement.lines, start)).read()
    output_start = start + len(pattern) + 1
    output = _with_scripts(_Reader(answer, "output", _shift(statement.lines, output_start)
                                   ).read(), statement.scripts)
    kind, level = keyword[0], int(keyword[1:] or 0)
    read = Rule(pattern, answer.strip(), kind=kind, level=level, line=number,
                functions=functions, tags=_leading_tags(output), scripts=statement.scripts,
                input=input_nodes, output=output)
    if kind == "c" and level == 0:
        raise TopicError("c0: is not a callback rule; use c1: to c9:", number)
    # a uN: rule belongs to the last rule read at level N-1, wherever it is (a u2: after a
    # proposal goes on the conversation of the u1: read before it)
    if level > 0 and level - 1 not in parents:
        raise TopicError("%s%d: without a %s%s: rule above it"
                         % (kind, level, "u" if level == 1 else kind, level - 1 or ""), number)
    if level == 0:
        topic.rules.append(read)
    elif kind == "c":
        parents[level - 1].callbacks.append(read)
    else:
        parents[level - 1].subrules.append(read)
    parents[level] = read


# -- matching -------------------------------------------------------------------------------
def _words(text: str) -> str:
    return " ".join(re.findall(r"[\w']+", text.lower()))


def _words_regex(text: str) -> str:
    return "".join(re.escape(w) + " " for w in _words(text).split())


#: concept name -> its nodes (static) or its phrases (dynamic); None when unknown
ConceptLookup = Callable[[str], Optional[Union[List[Node], List[str]]]]
#: variable name -> its value as text; None when undefined
VariableLookup = Callable[[str], Optional[str]]


def _compare(left: Optional[str], op: str, right: Optional[str]) -> bool:
    if left is None or right is None:
        return False
    try:
        a: Any = float(left)
        b: Any = float(right)
    except ValueError:
        a, b = left.strip().lower(), right.strip().lower()
    return {"==": a == b, "!=": a != b, "<>": a != b, ">": a > b, "<": a < b,
            ">=": a >= b, "<=": a <= b}[op]


class _Compiler:
    """A rule input as a regular expression over ``"word word "`` (each word followed by one
    space); ``groups`` are the names of the ``_`` captures in input order."""

    MAX_DEPTH = 24

    def __init__(self, concept: ConceptLookup, variable: VariableLookup) -> None:
        self.concept = concept
        self.variable = variable
        self.groups: List[str] = []
        #: (group name, variable, value) of the assignments of the input and its concepts
        self.assignments: List[Tuple[str, str, Node]] = []
        self._expanding: List[str] = []

    def seq(self, nodes: Sequence[Node], capture: bool = True) -> str:
        return "".join(self.node(n, capture) for n in nodes)

    def value(self, node: Node) -> Optional[str]:
        if isinstance(node, VarRef):
            return self.variable(node.name)
        if isinstance(node, Phrase):
            return " ".join(w.text for w in node.items if isinstance(w, Word))
        return node.text if isinstance(node, Word) else None

    def node(self, node: Node, capture: bool = True) -> str:
        if isinstance(node, Word):
            return _words_regex(node.text)
        if isinstance(node, Phrase):
            return self.seq(node.items, capture)
        if isinstance(node, Choice):
            options = [self.node(item, capture) for item in node.items]
            if not options:
                return ""
            return "(?:%s)%s" % ("|".join(options), "?" if node.optional else "")
        if isinstance(node, Star):
            return r"(?:\S+ )*?"
        if isinstance(node, Capture):
            inner = self.node(node.item, capture)
            if not capture:
                return "(?:%s)" % inner
            name = "c%d" % len(self.groups)
            self.groups.append(name)
            return "(?P<%s>%s)" % (name, inner)
        if isinstance(node, Forbidden):
            return "(?!%s)" % self.node(node.item, False)
        if isinstance(node, ConceptRef):
            return self.concept_regex(node.name)
        if isinstance(node, VarRef):
            value = self.variable(node.name)
            return "(?!)" if value is None else "(?:%s)" % _words_regex(value)
        if isinstance(node, Condition):
            return "" if _compare(self.variable(node.name), node.op,
                                  self.value(node.value)) else "(?!)"
        if isinstance(node, Func):
            return self.node(node.choice, capture) if node.choice is not None else ""
        if isinstance(node, Event):
            return re.escape(_event_token(event_key(node)))
        if isinstance(node, CaptureRef):
            return "(?!)"
        if isinstance(node, Assign):  # set when the part of the input holding it matches
            name = "a%d" % len(self.assignments)
            self.assignments.append((name, node.name, node.value))
            return "(?P<%s>)" % name
        return ""  # tags match no words

    def concept_regex(self, name: str) -> str:
        if name in self._expanding or len(self._expanding) >= self.MAX_DEPTH:
            return "(?!)"
        values = self.concept(name)
        if not values:
            return "(?!)"
        self._expanding.append(name)
        try:
            if all(isinstance(v, str) for v in values):
                return "(?:%s)" % "|".join(_words_regex(str(v)) for v in values)
            return "(?:%s)" % self.seq([v for v in values if isinstance(v, Node)], False)
        finally:
            self._expanding.pop()


@dataclass
class Match:
    """A rule matching an input: the words stored by ``_`` ($1, $2...) as the user said them,
    and the assignments of the concept alternatives that matched."""

    stored: List[str]
    assignments: List[Tuple[str, str]]


def _event_token(key: str) -> str:
    """What an event is matched as: a token no words give (they never hold ``:``)."""
    return (key if key.startswith("in:") else "e:" + key) + " "


def _match(rule: Rule, normalised: str, said: List[str], concept: ConceptLookup,
           variable: VariableLookup) -> Optional[Match]:
    """How ``normalised`` (``"word word "``, ``said``: the words as said) matches the
    rule's input, else None."""
    compiler = _Compiler(concept, variable)
    try:
        found = regex.fullmatch(compiler.seq(rule.input), normalised, timeout=MATCH_TIMEOUT_S)
    except TimeoutError:
        _LOG.warning("the rule at line %s took more than %g s to match %r: taken as not "
                     "matching it (its wildcards backtrack too much)", rule.line,
                     MATCH_TIMEOUT_S, normalised[:200])
        return None
    if found is None:
        return None
    stored = []
    for group in compiler.groups:
        if found.group(group) is not None:
            first = normalised[:found.start(group)].count(" ")
            stored.append(" ".join(said[first:first + found.group(group).count(" ")]))
    assignments = [(name, _assigned(value, stored, compiler))
                   for group, name, value in compiler.assignments
                   if found.group(group) is not None]
    return Match(stored, assignments)


def _assigned(value: Node, stored: List[str], compiler: _Compiler) -> str:
    """The value an input's ``$name=value`` gives once the input matched (``$1`` is what
    ``_`` stored)."""
    if isinstance(value, CaptureRef):
        return stored[value.index - 1] if 1 <= value.index <= len(stored) else ""
    found = compiler.value(value)
    return "" if found is None else found


def match_input(rule: Rule, heard: str, concept: ConceptLookup,
                variable: VariableLookup) -> Optional[Match]:
    """How the words ``heard`` match the rule's input, else None (an event matches no
    words: ``u:(e:Bell)`` never, ``u:([hello e:Bell])`` "hello")."""
    said = re.findall(r"[\w']+", heard)
    normalised = "".join(w.lower() + " " for w in said)
    if normalised != "".join(w + " " for w in _words(heard).split()):  # lower() changed words
        said = _words(heard).split()
    return _match(rule, normalised, said, concept, variable)


def match_event(rule: Rule, event: str, concept: ConceptLookup,
                variable: VariableLookup) -> Optional[Match]:
    """How the event ``event`` (as :func:`event_key` names it) matches the rule's input
    (its conditions holding), else None."""
    if event not in rule.events:
        return None
    token = _event_token(event)
    return _match(rule, token, [token.strip()], concept, variable)


# -- rendering -------------------------------------------------------------------------------
class Undefined(Exception):
    """An output needs a variable, a stored input or a concept that has no value."""


#: what an output does, in order: ("say", text), ("set", variable, value),
#: ("do", function, arguments) for a rule function (``("start", "animations/...")``,
#: ``("goto", "tag")``...) and ("script", Python code) for a ``%script`` block
Step = Tuple[str, ...]
#: marks the place of a step in the text being rendered (no text holds it)
_STEP = "\x00"


@dataclass
class Output:
    """A rendered output: its steps (:data:`Step`) in the order they stand in it."""

    steps: List[Step] = field(default_factory=list)
    bookmarks: List[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """What it says (the ``%script`` blocks' printing aside)."""
        return " ".join(step[1] for step in self.steps if step[0] == "say")

    @property
    def assignments(self) -> List[Tuple[str, str]]:
        """Its variable assignments, in order."""
        return [(step[1], step[2]) for step in self.steps if step[0] == "set"]

    @property
    def actions(self) -> List[Tuple[str, str]]:
        """Its rule functions, in order, e.g. ("goto", "tag"), ("clear", "x")."""
        return [(step[1], step[2]) for step in self.steps if step[0] == "do"]

    @property
    def scripts(self) -> List[str]:
        """Its ``%script`` blocks, in order."""
        return [step[1] for step in self.steps if step[0] == "script"]


class _Renderer:
    """Renders an output into text, a step's place in it marked by :data:`_STEP` around
    its index in ``steps`` (steps of an alternative that could not be said are dropped with
    its text)."""

    def __init__(self, topic: Optional[Topic], captures: Sequence[str],
                 concept: ConceptLookup, variable: VariableLookup,
                 rng: Optional[random.Random]) -> None:
        self.topic = topic
        self.captures = list(captures)
        self.concept = concept
        self.variable = variable
        self.rng = rng or random.Random()
        self.steps: List[Step] = []
        self.bookmarks: List[str] = []
        self._expanding: List[str] = []
        self._locals: List[Dict[str, str]] = []

    def pieces(self, nodes: Sequence[Node]) -> List[Tuple[bool, str]]:
        result: List[Tuple[bool, str]] = []
        for node in nodes:
            text = self.node(node)
            if text:
                result.append((node.sp, text))
        return result

    def text(self, nodes: Sequence[Node]) -> str:
        joined = ""
        for spaced, piece in self.pieces(nodes):
            joined += (" " if spaced and joined else "") + piece
        return joined

    def step(self, *step: str) -> str:
        """Add a step; the mark of its place in the text."""
        self.steps.append(step)
        return "%s%d%s" % (_STEP, len(self.steps) - 1, _STEP)

    def output(self, nodes: Sequence[Node]) -> Output:
        """The output of ``nodes``: its text split into "say" steps around the others."""
        parts = self.text(nodes).split(_STEP)
        steps: List[Step] = []
        for index, part in enumerate(parts):
            if index % 2:
                steps.append(self.steps[int(part)])
            elif part.split():
                steps.append(("say", " ".join(part.split())))
        return Output(steps, self.bookmarks)

    def lookup(self, name: str) -> Optional[str]:
        """A variable's value: a ``def:`` parameter, else what the output assigned it so
        far, else the dialog's."""
        for scope in reversed(self._locals):
            if name in scope:
                return scope[name]
        for step in reversed(self.steps):
            if step[0] == "set" and step[1] == name:
                return step[2]
        return self.variable(name)

    def node(self, node: Node) -> str:
        if isinstance(node, Word):
            return node.text
        if isinstance(node, Phrase):
            return self.text(node.items)
        if isinstance(node, Choice):
            return self.choice(node)
        if isinstance(node, ConceptRef):
            return self.concept_text(node.name)
        if isinstance(node, VarRef):
            value = self.lookup(node.name)
            if value is None:
                raise Undefined("$%s" % node.name)
            return value.replace(_STEP, "")
        if isinstance(node, CaptureRef):
            if not 1 <= node.index <= len(self.captures):
                raise Undefined("$%d" % node.index)
            return self.captures[node.index - 1].replace(_STEP, "")
        if isinstance(node, Condition):
            right = self.node(node.value) if not isinstance(node.value, Word) \
                else node.value.text
            if not _compare(self.lookup(node.name), node.op, right):
                raise Undefined("$%s%s%s" % (node.name, node.op, right))
            return ""
        if isinstance(node, Assign):
            return self.step("set", node.name, self.node(node.value).replace(_STEP, ""))
        if isinstance(node, Tag):
            self.bookmarks.append(node.name)
            return ""
        if isinstance(node, Script):
            return self.step("script", node.code)
        if isinstance(node, Func):
            return self.function(node)
        return ""

    def choice(self, node: Choice) -> str:
        """``^first``: the first alternative that can be said; ``^rand``: one at random; a
        plain choice: the alternatives in turn, skipping those that cannot be said now
        (``["$name==ada hello Ada" "who are you?"]``)."""
        if not node.items:
            return ""
        if node.mode == "rand":
            return self.node(self.rng.choice(node.items))
        count = len(node.items)
        turns = self.topic.turns if self.topic is not None else {}
        start = 0 if node.mode == "first" else turns.get(id(node), 0) % count
        for step in range(count):
            index = (start + step) % count
            saved = (len(self.steps), len(self.bookmarks))
            try:
                said = self.node(node.items[index])
            except Undefined:
                del self.steps[saved[0]:]
                del self.bookmarks[saved[1]:]
                continue
            if node.mode != "first":
                turns[id(node)] = (index + 1) % count
            return said
        raise Undefined("no alternative of %s can be said"
                        % ("^first" if node.mode == "first" else "the choice"))

    def concept_text(self, name: str) -> str:
        values = self.concept(name)
        if not values or name in self._expanding:
            raise Undefined("~%s" % name)
        if all(isinstance(v, str) for v in values):
            turns = self.topic.turns if self.topic is not None else {}
            key = hash(("dynamic", name))
            index = turns.get(key, 0) % len(values)
            turns[key] = index + 1
            return str(values[index])
        self._expanding.append(name)
        try:
            return self.text([v for v in values if isinstance(v, Node)])
        finally:
            self._expanding.pop()

    def function(self, node: Func) -> str:
        if node.choice is not None:
            return self.node(node.choice)
        args = node.args if node.args is not None else ""
        if self.topic is not None and node.name in self.topic.functions:
            params, body = self.topic.functions[node.name]
            values = [a.strip() for a in _split_args(args)] if args else []
            if len(values) != len(params):
                raise Undefined("^%s takes %d argument(s)" % (node.name, len(params)))
            self._locals.append({p: self.expand(v) for p, v in zip(params, values)})
            try:
                return self.text(body)
            finally:
                self._locals.pop()
        if node.name == "enumerate":
            concept = _CONCEPT.fullmatch(args.strip())
            values = self.concept(concept.group(1)) if concept else None
            if not values:
                raise Undefined("^enumerate(%s)" % args)
            names = [str(v) if isinstance(v, str) else self.text([v]) for v in
                     (values if all(isinstance(v, str) for v in values) else
                      _flatten_choice([v for v in values if isinstance(v, Node)]))]
            return ", ".join(names)
        return self.step("do", node.name, self.expand(args))

    def expand(self, args: str) -> str:
        """Arguments with their ``$variables`` and ``$1`` replaced."""
        def value(match: "re.Match[str]") -> str:
            name = match.group(1)
            if name.isdigit():
                index = int(name)
                if not 1 <= index <= len(self.captures):
                    raise Undefined("$%s" % name)
                return self.captures[index - 1]
            found = self.lookup(name)
            if found is None:
                raise Undefined("$%s" % name)
            return found
        return re.sub(r"\$(\d+|\w(?:[\w/\-.]*\w)?)", value, args)


def _flatten_choice(nodes: List[Node]) -> List[Node]:
    """The alternatives of a concept body (those of its choices, in order)."""
    found: List[Node] = []
    for node in nodes:
        if isinstance(node, Func) and node.choice is not None:
            found.extend(node.choice.items)
        elif isinstance(node, Choice):
            found.extend(node.items)
    return found


def _split_args(args: str) -> List[str]:
    """Top-level comma-separated arguments (quotes and parentheses respected)."""
    parts, depth, quote, current = [], 0, "", ""
    for char in args:
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        current += char
    parts.append(current)
    return parts


def split_arguments(args: str) -> List[str]:
    """``^function`` arguments, split at top-level commas and stripped."""
    return [a.strip() for a in _split_args(args)] if args.strip() else []


def render_output(nodes: Sequence[Node], topic: Optional[Topic] = None,
                  captures: Sequence[str] = (), concept: Optional[ConceptLookup] = None,
                  variable: Optional[VariableLookup] = None,
                  rng: Optional[random.Random] = None) -> Output:
    """Evaluate an output into its steps; :class:`Undefined` when it needs a value nobody
    set."""
    return _Renderer(topic, captures, concept or (lambda name: None),
                     variable or (lambda name: None), rng).output(nodes)


def topic_concept(topics: Sequence[Topic], dynamic: Callable[[str], List[str]],
                  first: Optional[Topic] = None) -> ConceptLookup:
    """Concept lookup: ``first``'s concepts, then those of the other topics (static concepts
    are global), then the dynamic concepts' values."""
    def lookup(name: str) -> Optional[Union[List[Node], List[str]]]:
        for topic in ([first] if first is not None else []) + list(topics):
            if name in topic.concepts:
                return topic.concepts[name]
        values = dynamic(name)
        return list(values) if values else None
    return lookup


def candidates(topics: Sequence[Topic], expected: Sequence[Tuple[Topic, Rule]] = ()
               ) -> List[Tuple[Topic, Rule]]:
    """The rules that may answer, in order: the ``expected`` sub-rules, then the rules of
    ``topics``; ``^private`` rules only in the first topic (the one with the focus)."""
    return list(expected) + [(topic, rule) for index, topic in enumerate(topics)
                             for rule in topic.rules if index == 0 or not rule.private]


def matches(topics: Sequence[Topic], heard: str, concept: Callable[[str], List[str]],
            expected: Sequence[Tuple[Topic, Rule]] = (),
            variable: Optional[VariableLookup] = None,
            ) -> Iterator[Tuple[Topic, Rule, Match]]:
    """(topic, rule, match) of every rule matching ``heard``, in answering order."""
    variable = variable or (lambda name: None)
    for topic, rule in candidates(topics, expected):
        found = match_input(rule, heard, topic_concept(topics, concept, topic), variable)
        if found is not None:
            yield topic, rule, found


def find_answer(topics: Sequence[Topic], heard: str, concept: Callable[[str], List[str]],
                expected: Sequence[Tuple[Topic, Rule]] = (),
                variable: Optional[VariableLookup] = None,
                ) -> Optional[Tuple[Topic, Rule, List[str]]]:
    """(topic, rule, stored input words) of the first rule matching ``heard``."""
    for topic, rule, found in matches(topics, heard, concept, expected, variable):
        return topic, rule, found.stored
    return None
