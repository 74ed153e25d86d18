"""Porting box scripts written for NAOqi's Python 2 to Python 3, without running them.

A script that already compiles under Python 3 is returned as it is.  Otherwise it is
rewritten with fissix (lib2to3's maintained fork): ``except X, e``, print statements,
old octal and long literals, ``<>``, backquotes, ``raise E, v``, ``exec``, renamed
modules...; plus two rewrites fissix has no fixer for:

* ``async`` used as a name: ``qi.async(f, delay=us)`` becomes ``qi.runAsync(f, delay=us)``
  (same arguments in qi 3), any other ``async`` name becomes ``async_``;
* ``from m import *`` inside a function or class (refused by Python 3) becomes a call
  that puts the module's public names into the script's globals.

The common idioms (``async`` names, ``except X, e``, ``raise E, v``, print statements, old
octal and long literals, ``<>``) are first rewritten from a regular-expression scan that
skips strings and comments; fissix (whose parser is slow on long scripts) only runs when
that is not enough.  Renamed modules (``thread``, ``urllib2``...) are then left to the
engine, which provides them.

Python 2's dictionary methods (``d.iteritems()``, ``d.has_key(k)``...) compile under
Python 3 but fail when they run, and no module can bring them back: a script that calls
them (ported or not) goes through fissix's ``dict`` and ``has_key`` fixers as well.

Indentation mixing tabs and spaces, which Python 2 accepted (a tab advances to the next
multiple of 8 columns) and Python 3 refuses (``TabError``), is expanded as Python 2 read
it before anything else (:func:`expand_indentation_tabs`; tabs inside strings stay).

Results are cached by the script text: a behavior repeats the same library boxes.
"""
from __future__ import annotations

import functools
import re
import symtable
import warnings
from typing import Dict, Iterable, List, NamedTuple, Optional, Tuple


class LazyPattern:
    """A regular expression compiled when first used: the patterns of porting are only
    needed for scripts that do not compile as they are, so most ``xar_convert`` processes
    never pay for compiling them."""

    __slots__ = ("_pattern", "_flags", "_compiled")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._pattern, self._flags = pattern, flags
        self._compiled: Optional["re.Pattern[str]"] = None

    def __getattr__(self, name: str):
        if self._compiled is None:
            self._compiled = re.compile(self._pattern, self._flags)
        return getattr(self._compiled, name)


#: version of what porting writes: part of the key of ported text cached on disk (bump it
#: whenever porting writes something else for the same script)
PORT_VERSION = "2"

#: fissix fixers applied to scripts that do not compile: the Python 2 syntax, plus the
#: renamed modules and ``has_key`` (builtins such as ``unicode`` are the engine's business)
FIXERS = ("except", "print", "numliterals", "ne", "raise", "exec", "execfile", "repr",
          "tuple_params", "throw", "long", "imports", "urllib", "has_key")

_STAR_IMPORT = LazyPattern(r"^(?P<indent>\s+)from\s+(?P<module>[\w.]+)\s+import\s+\*\s*(?:#.*)?$")
_STAR_REPLACEMENT = ('{indent}globals().update((_name, getattr(_module, _name)) for _module in '
                     '[__import__("{module}", fromlist=["*"])] for _name in getattr(_module, '
                     '"__all__", [_n for _n in dir(_module) if not _n.startswith("_")]))')


class PortResult(NamedTuple):
    """What porting one script gave."""

    #: Python 3 source (compiles under 3.11), or the original when it could not be ported
    code: str
    #: True when ``code`` differs from the original because it was ported
    ported: bool
    #: why the script does not compile under Python 3 even after porting (None when it does)
    error: Optional[str]


#: script text -> its port (the result holds that text anyway)
_cache: Dict[str, PortResult] = {}

#: calls of dictionary methods Python 3 no longer has
_PY2_DICT_METHOD = re.compile(r"\.(has_key|(?:iter|view)(?:items|keys|values))\s*\(")


def _compile_error(source: str) -> Optional[SyntaxError]:
    """Why ``source`` does not compile (None when it does); the caller silences warnings
    (else a warning filter set to "error" would make invalid escapes syntax errors).

    Python's parser and symbol table decide, without generating code: what only the code
    generator refuses (``break`` outside a loop, ``return`` outside a function...) Python
    2 refused as well, but for ``await``, a plain name in Python 2, which gets a whole
    compilation.
    """
    try:
        symtable.symtable(source, "<box script>", "exec")
        if "await" in source:
            compile(source, "<box script>", "exec", dont_inherit=True)
    except SyntaxError as error:
        # without its traceback: kept by the caller, its frames would make a reference
        # cycle holding the whole behavior being converted until a full collection
        return error.with_traceback(None)
    except ValueError as error:  # e.g. NUL bytes
        return SyntaxError(str(error))
    return None


def compile_error(source: str) -> Optional[SyntaxError]:
    """Why ``source`` does not compile under Python 3 (None when it does), without
    running or generating its code; compiler warnings are silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _compile_error(source)


def _describe(error: SyntaxError) -> str:
    where = " (line %d)" % error.lineno if error.lineno else ""
    return "%s: %s%s" % (type(error).__name__, error.msg or error, where)


@functools.lru_cache(maxsize=None)
def _refactoring_tool(fixers: Tuple[str, ...], print_function: bool = False):
    from fissix.refactor import RefactoringTool
    return RefactoringTool(["fissix.fixes.fix_" + name for name in fixers],
                           {"print_function": print_function})


def _refactored(source: str, fixers: Tuple[str, ...], print_function: bool = False,
                rename_async: bool = False) -> str:
    """``source`` through fissix's ``fixers`` (line ending kept as it was); raises
    SyntaxError when fissix cannot parse it."""
    from fissix.pgen2.parse import ParseError
    from fissix.pgen2.tokenize import TokenError
    text = source if source.endswith("\n") else source + "\n"
    try:
        tree = _refactoring_tool(fixers, print_function).refactor_string(text, "<box script>")
    except (ParseError, TokenError, IndentationError, SyntaxError) as error:
        raise SyntaxError("cannot be parsed as Python 2: %s" % str(error).split("\n")[0]) from None
    if rename_async:
        _rename_async(tree)
    code = str(tree)
    return code if source.endswith("\n") else code[:-1]


def py2_dict_method(code: str) -> Optional[str]:
    """The first dictionary method Python 3 removed that ``code`` seems to call
    (``has_key``, ``iteritems``...; a mention in a string or comment counts too), None
    when it calls none."""
    found = _PY2_DICT_METHOD.search(code)
    return found.group(1) if found is not None else None


def _dict_methods_ported(code: str) -> str:
    """``code`` (which compiles under Python 3) with Python 2's dictionary methods rewritten;
    unchanged when it has none or fissix cannot parse it (then those calls fail at run time,
    reported with the box)."""
    if py2_dict_method(code) is None:
        return code
    quick = _quick_dict_loops(code)
    if quick is not None:
        return quick
    try:
        ported = _refactored(code, ("dict", "has_key"), print_function=True)
    except SyntaxError:
        return code
    return ported if _compile_error(ported) is None else code


def _rename_async(tree) -> None:
    from fissix.pgen2 import token
    for leaf in tree.leaves():
        if leaf.type != token.NAME or leaf.value != "async":
            continue
        dot = leaf.prev_sibling  # qi.async is Name(qi) trailer(. async) trailer(...)
        owner = leaf.parent.prev_sibling if leaf.parent is not None else None
        if (dot is not None and dot.type == token.DOT and owner is not None
                and getattr(owner, "value", None) == "qi"):
            leaf.value = "runAsync"
        else:
            leaf.value = "async_"


#: a string literal of Python 2 or 3 (any prefix, triple-quoted or not)
_STRING = (r"""(?:\b[uUbBrR]{1,2})?(?:'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''"""
           r'''|"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*"""'''
           r"""|'[^'\\\n]*(?:\\.[^'\\\n]*)*'|"[^"\\\n]*(?:\\.[^"\\\n]*)*")""")
#: what the quick fixes look for in code (strings and comments are matched to be skipped)
_QUICK = LazyPattern(r"(?P<string>%s)|#[^\n]*|(?P<word>\b(?:print|except|raise|async)\b)"
                    r"|(?P<number>(?<![\w.])(?:0[xX][0-9a-fA-F]+[lL]|0\d+[lL]?|\d+[lL])(?![\w.]))"
                    r"|(?P<ne><>)" % _STRING, re.S)
#: what delimits a statement: strings, comments, brackets, continuations, separators
_EXTENT = LazyPattern(r"%s|#[^\n]*|\\\r?\n|[()\[\]{}\n;,:]" % _STRING, re.S)
#: Python 2 syntax only fissix rewrites: backquotes, exec statements, tuple parameters
_FISSIX_ONLY = LazyPattern(r"`|\bexec\b|\bdef\b|\blambda\b")
_QI_DOT = LazyPattern(r"\bqi\s*\.\s*$")
_PRINT_FUNCTION = LazyPattern(r"^from\s+__future__\s+import\b[^\n]*\bprint_function\b", re.M)


#: string literals and comments, skipped when looking for where lines start
_LITERAL_OR_COMMENT = LazyPattern(r"%s|#[^\r\n]*" % _STRING, re.S)
_LINE_BREAK = LazyPattern(r"\r\n?|\n")
_LEADING_WHITESPACE = LazyPattern(r"[ \t\f]*")
#: columns a tab advanced to a multiple of, in Python 2's tokenizer
TAB_SIZE = 8


def expand_indentation_tabs(source: str) -> str:
    """``source`` with the tabs of its lines' leading whitespace expanded to spaces as
    Python 2 read them: a tab advances to the next multiple of 8 columns, a form feed
    goes back to column 0.  Lines that start inside a string literal are kept as they are
    (their tabs are the string's); so is every line whose indentation has no tab.

    Python 2 accepted indentation mixing tabs and spaces that Python 3 refuses
    (``TabError``); expanded, it means to Python 3 what it meant to Python 2.
    """
    if "\t" not in source:
        return source
    # strings spanning lines: the lines starting inside them are the string's
    spans = [match.span() for match in _LITERAL_OR_COMMENT.finditer(source)
             if "\n" in match.group() or "\r" in match.group()]
    starts = [0] + [match.end() for match in _LINE_BREAK.finditer(source)]
    parts: List[str] = []
    position = span = 0
    for start in starts:
        while span < len(spans) and spans[span][1] <= start:
            span += 1
        if span < len(spans) and spans[span][0] < start:
            continue  # inside a string
        indent = _LEADING_WHITESPACE.match(source, start).group()
        if "\t" not in indent:
            continue
        column = 0
        for char in indent:
            if char == "\t":
                column = (column // TAB_SIZE + 1) * TAB_SIZE
            elif char == "\f":
                column = 0
            else:
                column += 1
        parts.append(source[position:start])
        parts.append(" " * column)
        position = start + len(indent)
    if not parts:
        return source
    parts.append(source[position:])
    return "".join(parts)


#: (start, end, replacement) of one rewrite
_Edit = Tuple[int, int, str]


class _Extent(NamedTuple):
    """Where a statement (or clause) starting at some position ends."""

    #: position of the stop character at bracket depth 0 (len(source) at the end)
    end: int
    #: positions of the commas at bracket depth 0
    commas: List[int]
    #: position of the first bracket closing back to depth 0 (-1 when none)
    first_close: int


def _extent(source: str, start: int, stops: str) -> Optional[_Extent]:
    """The extent from ``start`` to the first of ``stops`` at depth 0 (None: unbalanced)."""
    depth, commas, first_close = 0, [], -1
    for match in _EXTENT.finditer(source, start):
        char = match.group()[0]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth < 0:
                return None
            if depth == 0 and first_close < 0:
                first_close = match.start()
        elif depth or len(match.group()) > 1 and char != "#":
            continue  # inside brackets, a string or a line continuation
        elif char in stops:
            return _Extent(match.start(), commas, first_close)
        elif char == ",":
            commas.append(match.start())
    return None if depth else _Extent(len(source), commas, first_close)


def _print_edits(source: str, keyword_end: int) -> Optional[List[_Edit]]:
    """Edits making the print statement whose keyword ends at ``keyword_end`` a call."""
    extent = _extent(source, keyword_end, "\n;#")
    if extent is None:
        return None
    body = source[keyword_end:extent.end]
    begin = keyword_end + len(body) - len(body.lstrip(" \t"))
    end = keyword_end + len(body.rstrip())
    if begin >= end:
        return [(keyword_end, begin, "()")]
    commas = extent.commas
    if source[begin] == "(" and extent.first_close == end - 1:
        return []  # print (x): already a call
    edits, keywords = [(keyword_end, begin, "(")], ""
    if commas and commas[-1] == end - 1:  # print x, : no newline
        edits.append((end - 1, end, ""))
        keywords += ", end=' '"
        commas = commas[:-1]
    if source.startswith(">>", begin):
        target_end = commas[0] if commas else end
        target = source[begin + 2:target_end].strip()
        if commas:
            rest = commas[0] + 1
            edits.append((begin, rest + len(source[rest:end]) - len(source[rest:end].lstrip()),
                          ""))
        else:
            edits.append((begin, end, ""))
        keywords += "%sfile=%s" % (", " if commas else "", target)
    edits.append((end, end, keywords + ")"))
    return edits


def _clause_edits(source: str, keyword: str, keyword_end: int) -> Optional[List[_Edit]]:
    """``except X, e:`` -> ``except X as e:``; ``raise E, v`` -> ``raise E(v)``."""
    extent = _extent(source, keyword_end, ":\n;#" if keyword == "except" else "\n;#")
    if extent is None or len(extent.commas) != 1:
        return [] if extent is not None and not extent.commas else None
    comma = extent.commas[0]
    tail = source[comma + 1:extent.end]
    if keyword == "except":
        if source[extent.end:extent.end + 1] != ":" or not tail.strip().isidentifier():
            return None
        head = source[keyword_end:comma]
        return [(keyword_end + len(head.rstrip()), comma + 1 + len(tail) - len(tail.lstrip()),
                 " as ")]
    value = tail.strip()
    if not value or value[0] == "(":
        return None  # raise E, (a, b): left to fissix
    end = comma + 1 + len(tail.rstrip())
    return [(comma, comma + 1 + len(tail) - len(tail.lstrip()), "("), (end, end, ")")]


def _quick_fixes(source: str) -> Optional[str]:
    """``source`` with the common Python 2 idioms rewritten, from a regular-expression scan.

    ``async`` names, ``except X, e``, ``raise E, v``, print statements, old octal and long
    literals and ``<>``; line numbers are kept.  The quick path before fissix (whose parser
    is slow on long scripts); None when it finds something it cannot rewrite.
    """
    prints = _PRINT_FUNCTION.search(source) is None
    edits: List[_Edit] = []
    for match in _QUICK.finditer(source):
        kind = match.lastgroup
        if kind == "string" or kind is None:
            continue
        start, end = match.span()
        text = match.group()
        if kind == "number":
            digits = text.rstrip("lL")
            if digits[:1] == "0" and digits[1:].isdigit() and digits.strip("0"):
                digits = "0o" + digits[1:]
            edits.append((start, end, digits))
        elif kind == "ne":
            edits.append((start, end, "!="))
        elif text == "async":
            follows_qi = _QI_DOT.search(source, max(0, start - 80), start) is not None
            edits.append((start, end, "runAsync" if follows_qi else "async_"))
        elif source[start - 1:start] == "." or (text == "print" and not prints):
            continue
        else:
            found = (_print_edits(source, end) if text == "print"
                     else _clause_edits(source, text, end))
            if found is None:
                return None
            edits.extend(found)
    edits.sort(key=lambda edit: edit[0])
    parts, position = [], 0
    for start, end, replacement in edits:
        if start < position:
            return None  # overlapping rewrites: left to fissix
        parts.append(source[position:start])
        parts.append(replacement)
        position = end
    parts.append(source[position:])
    return "".join(parts)


#: what fissix's dict fixer looks at: a dictionary method name after a dot (strings and
#: comments are matched to be skipped)
_DICT_SCAN = LazyPattern(r"%s|#[^\n]*|(?P<method>\.[\s\\]*"
                        r"(?:has_key|(?:iter|view)?(?:items|keys|values))\b)" % _STRING, re.S)
#: ``for <targets> in <dotted name>``: the line up to an ``.iter*()`` call ending the header
_FOR_HEADER = LazyPattern(r"[ \t]*for[ \t]+(?:(?!\bin\b)[^\n#'\"])*?[ \t]in[ \t]+"
                         r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_ITER_CALL = LazyPattern(r"\.iter(?:items|keys|values)\(\)[ \t]*:")


def _quick_dict_loops(code: str) -> Optional[str]:
    """``code`` with ``for ... in d.iteritems():`` (``iterkeys``, ``itervalues``) loops made
    ``d.items()``, what fissix's dict fixer writes there; None when ``code`` calls another
    dictionary method fissix would rewrite (``has_key``, ``keys()``, ``iteritems`` elsewhere...).
    """
    kept, position = [], 0
    for match in _DICT_SCAN.finditer(code):
        start = match.start("method")
        if start < 0:
            continue  # a string or a comment
        line_start = code.rfind("\n", 0, start) + 1
        if (_ITER_CALL.match(code, start) is None
                or _FOR_HEADER.fullmatch(code, line_start, start) is None):
            return None
        kept.append(code[position:start + 1])
        position = start + 5  # the dot kept, "iter" dropped
    kept.append(code[position:])
    return "".join(kept)


def _replace_star_imports(code: str) -> Tuple[str, Optional[SyntaxError]]:
    """``code`` with the ``import *`` Python 3 refuses where they stand rewritten (one line
    each), and the compile error left (None when it compiles)."""
    for _ in range(code.count("import") + 1):
        error = _compile_error(code)
        if error is None or "import *" not in str(error.msg) or not error.lineno:
            return code, error
        lines: List[str] = code.split("\n")
        match = _STAR_IMPORT.match(lines[error.lineno - 1])
        if match is None:
            return code, error
        lines[error.lineno - 1] = _STAR_REPLACEMENT.format(**match.groupdict())
        code = "\n".join(lines)
    return code, _compile_error(code)


def _only_fissix_fixes(code: str, error: SyntaxError) -> bool:
    """True when the line ``code`` fails on holds what fissix rewrites and the quick scan
    does not (backquotes, ``exec`` statements, tuple parameters); else fissix, which keeps
    everything else as it is, cannot make the script compile either."""
    lines = code.split("\n")
    if not error.lineno or error.lineno > len(lines):
        return True
    return _FISSIX_ONLY.search(lines[error.lineno - 1]) is not None


def _port(source: str) -> PortResult:
    result = _port_syntax(source)
    if result.error is not None:
        return result
    code = _dict_methods_ported(result.code)
    return PortResult(code, code != source, None)


def _port_syntax(original: str) -> PortResult:
    error = _compile_error(original)
    if error is None:
        return PortResult(original, False, None)
    source = expand_indentation_tabs(original)
    if source != original:
        error = _compile_error(source)
        if error is None:
            return PortResult(source, True, None)
    quick = _quick_fixes(source)
    if quick is not None:
        code, remaining = _replace_star_imports(quick)
        if remaining is None:
            return PortResult(code, True, None)
        if not _only_fissix_fixes(code, remaining):
            return PortResult(original, False, _describe(remaining))
    try:
        code, remaining = _replace_star_imports(_refactored(source, FIXERS, rename_async=True))
    except SyntaxError as failure:
        return PortResult(original, False, "%s; %s" % (_describe(error), failure.msg))
    if remaining is None:
        return PortResult(code, True, None)
    return PortResult(original, False, _describe(remaining))


def port_script(source: str) -> PortResult:
    """``source`` made to compile under Python 3 (never executed); see the module doc."""
    cached = _cache.get(source)
    return cached if cached is not None else port_scripts((source,))[0]


def port_scripts(sources: Iterable[str]) -> List[PortResult]:
    """:func:`port_script` of each of ``sources`` (compiler warnings silenced once for all)."""
    sources = list(sources)
    missing = [source for source in dict.fromkeys(sources) if source not in _cache]
    if missing:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for source in missing:
                _cache[source] = _port(source)
    return [_cache[source] for source in sources]
