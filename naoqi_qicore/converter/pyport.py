"""Porting box scripts written for NAOqi's Python 2 to Python 3, without running them.

A script that already compiles under Python 3 is returned as it is.  Otherwise it is
rewritten with fissix (lib2to3's maintained fork): ``except X, e``, print statements,
old octal and long literals, ``<>``, backquotes, ``raise E, v``, ``exec``, renamed
modules...; plus two rewrites fissix has no fixer for:

* ``async`` used as a name: ``qi.async(f, delay=us)`` becomes ``qi.runAsync(f, delay=us)``
  (same arguments in qi 3), any other ``async`` name becomes ``async_``;
* ``from m import *`` inside a function or class (refused by Python 3) becomes a call
  that puts the module's public names into the script's globals.

``async`` names and ``except X, e`` are first fixed on the tokens; fissix (whose parser is
slow on long scripts) only runs when that is not enough.

Results are cached by the script text: a behavior repeats the same library boxes.
"""
from __future__ import annotations

import hashlib
import io
import re
import tokenize
import warnings
from dataclasses import dataclass
from typing import Dict, List, Optional

#: fissix fixers applied to scripts that do not compile: the Python 2 syntax, plus the
#: renamed modules and ``has_key`` (builtins such as ``unicode`` are the engine's business)
FIXERS = ("except", "print", "numliterals", "ne", "raise", "exec", "execfile", "repr",
          "tuple_params", "throw", "long", "imports", "urllib", "has_key")

_STAR_IMPORT = re.compile(r"^(?P<indent>\s+)from\s+(?P<module>[\w.]+)\s+import\s+\*\s*(?:#.*)?$")
_STAR_REPLACEMENT = ('{indent}globals().update((_name, getattr(_module, _name)) for _module in '
                     '[__import__("{module}", fromlist=["*"])] for _name in getattr(_module, '
                     '"__all__", [_n for _n in dir(_module) if not _n.startswith("_")]))')


@dataclass(frozen=True)
class PortResult:
    """What porting one script gave."""

    #: Python 3 source (compiles under 3.11), or the original when it could not be ported
    code: str
    #: True when ``code`` differs from the original because it was ported
    ported: bool
    #: why the script does not compile under Python 3 even after porting (None when it does)
    error: Optional[str]


_cache: Dict[str, PortResult] = {}
_tool = None


def _compile_error(source: str) -> Optional[SyntaxError]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(source, "<box script>", "exec", dont_inherit=True)
        except SyntaxError as error:
            return error
        except ValueError as error:  # e.g. NUL bytes
            return SyntaxError(str(error))
    return None


def _describe(error: SyntaxError) -> str:
    where = " (line %d)" % error.lineno if error.lineno else ""
    return "%s: %s%s" % (type(error).__name__, error.msg or error, where)


def _refactoring_tool():
    global _tool
    if _tool is None:
        from fissix.refactor import RefactoringTool
        _tool = RefactoringTool(["fissix.fixes.fix_" + name for name in FIXERS])
    return _tool


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


def _except_comma(tokens: List[tokenize.TokenInfo], position: int) -> Optional[int]:
    """Index of the ``,`` of ``except X, name:`` starting at ``tokens[position]``, if it is one."""
    depth = 0
    for index in range(position + 1, len(tokens)):
        token = tokens[index]
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
        elif token.type == tokenize.OP and token.string == ":" and depth == 0:
            return None
        elif token.type == tokenize.OP and token.string == "," and depth == 0:
            following = tokens[index + 1:index + 3]
            if (len(following) == 2 and following[0].type == tokenize.NAME
                    and following[1].string == ":" and following[0].start[0] == token.start[0]):
                return index
            return None
        elif token.type in (tokenize.NEWLINE, tokenize.NL) and depth == 0:
            return None
    return None


def _token_fixes(source: str) -> Optional[str]:
    """``source`` with ``async`` names renamed and ``except X, e`` rewritten, by tokens.

    The quick path before fissix (whose parser is slow on long scripts); None when there
    is nothing it can fix.
    """
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    edits = []  # (start, end, replacement)
    for position, token in enumerate(tokens):
        if token.type != tokenize.NAME:
            continue
        if token.string == "async":
            follows_qi = (position >= 2 and tokens[position - 1].string == "."
                          and tokens[position - 2].string == "qi")
            edits.append((token.start, token.end, "runAsync" if follows_qi else "async_"))
        elif token.string == "except":
            comma = _except_comma(tokens, position)
            if comma is not None:  # from the comma to the name: " as "
                edits.append((tokens[comma].start, tokens[comma + 1].start, " as "))
    if not edits:
        return None
    lines = source.splitlines(keepends=True)
    for (row, column), (_, end_column), replacement in reversed(edits):
        line = lines[row - 1]
        lines[row - 1] = line[:column] + replacement + line[end_column:]
    return "".join(lines)


def _fissix_port(source: str) -> str:
    from fissix.pgen2.parse import ParseError
    from fissix.pgen2.tokenize import TokenError
    text = source if source.endswith("\n") else source + "\n"
    try:
        tree = _refactoring_tool().refactor_string(text, "<box script>")
    except (ParseError, TokenError, IndentationError, SyntaxError) as error:
        raise SyntaxError("cannot be parsed as Python 2: %s" % str(error).split("\n")[0]) from None
    _rename_async(tree)
    code = str(tree)
    return code if source.endswith("\n") else code[:-1]


def _replace_star_imports(code: str) -> str:
    """Rewrite, one line each, the ``import *`` that Python 3 refuses where they stand."""
    for _ in range(code.count("import")):
        error = _compile_error(code)
        if error is None or "import *" not in str(error.msg) or not error.lineno:
            break
        lines: List[str] = code.split("\n")
        match = _STAR_IMPORT.match(lines[error.lineno - 1])
        if match is None:
            break
        lines[error.lineno - 1] = _STAR_REPLACEMENT.format(**match.groupdict())
        code = "\n".join(lines)
    return code


def port_script(source: str) -> PortResult:
    """``source`` made to compile under Python 3 (never executed); see the module doc."""
    digest = hashlib.sha1(source.encode("utf-8", "surrogatepass")).hexdigest()
    cached = _cache.get(digest)
    if cached is not None:
        return cached
    error = _compile_error(source)
    quick = _token_fixes(source) if error is not None else None
    if error is None:
        result = PortResult(source, False, None)
    elif quick is not None and _compile_error(quick) is None:
        result = PortResult(quick, True, None)
    else:
        try:
            code = _replace_star_imports(_fissix_port(source))
        except SyntaxError as failure:
            result = PortResult(source, False, "%s; %s" % (_describe(error), failure.msg))
        else:
            remaining = _compile_error(code)
            if remaining is None:
                result = PortResult(code, True, None)
            else:
                result = PortResult(source, False, _describe(remaining))
    _cache[digest] = result
    return result
