"""Python 2's ``text.encode(...)`` and ``data.decode(...)`` for box code.

In Python 2, ``u"oui/non".encode("utf-8")`` gave a ``str``: bytes that still split on
``"/"``, compared equal to ``"oui"`` and concatenated with other text.  NAOqi box
scripts rely on that all the time (the standard Choice box splits its encoded word
lists; boxes build sentences from encoded parts), and ``"data".decode("utf-8")`` on
text was how they turned it into ``unicode``.  Under Python 3 the first gives
:class:`bytes` that mix with nothing and the second fails.

Box scripts are compiled with their ``.encode(...)`` and ``.decode(...)`` calls going
through :func:`py2_encode` and :func:`py2_decode` (:func:`rewrite_text_methods`); on any
object that is not text (or bytes, for ``encode``) the call is the object's own method
(``json.JSONEncoder().encode``, ``codecs``, ``base64``...).  Text encoded with a text
codec is a :class:`Py2Bytes`: real bytes (hashing, sockets and files take it, and qi
sends it as a string) that also mixes with text as Python 2's ``str`` did.
"""
from __future__ import annotations

import ast
import codecs
import re
from typing import Any, Dict, Iterator, List, Tuple, Union

#: the names box code calls instead of the ``encode`` and ``decode`` methods
ENCODE_NAME, DECODE_NAME = "__py2_encode__", "__py2_decode__"

_TEXT_METHOD = re.compile(r"\.\s*(?:en|de)code\b")


def _bytes(value: Any) -> Any:
    """``value`` as bytes when it is text (UTF-8), else as it is."""
    return value.encode("utf-8") if isinstance(value, str) else value


def _text(value: bytes) -> str:
    return bytes.decode(value, "utf-8", "surrogateescape")


class Py2Bytes(bytes):
    """Bytes that behave like Python 2's ``str`` with text: text arguments are taken as
    UTF-8, equality and hashing are those of the decoded text, ``str()`` and formatting
    give the text, indexing and iteration give one-character strings."""

    def __str__(self) -> str:
        return _text(self)

    def __format__(self, spec: str) -> str:
        return format(_text(self), spec)

    def __eq__(self, other: Any) -> Any:
        return bytes.__eq__(self, _bytes(other))

    def __ne__(self, other: Any) -> Any:
        return bytes.__ne__(self, _bytes(other))

    def __hash__(self) -> int:
        return hash(_text(self))

    def __lt__(self, other: Any) -> Any:
        return bytes.__lt__(self, _bytes(other))

    def __le__(self, other: Any) -> Any:
        return bytes.__le__(self, _bytes(other))

    def __gt__(self, other: Any) -> Any:
        return bytes.__gt__(self, _bytes(other))

    def __ge__(self, other: Any) -> Any:
        return bytes.__ge__(self, _bytes(other))

    def __contains__(self, item: Any) -> bool:
        return bytes.__contains__(self, _bytes(item))

    def __add__(self, other: Any) -> "Py2Bytes":
        return Py2Bytes(bytes.__add__(self, _bytes(other)))

    def __radd__(self, other: Any) -> "Py2Bytes":
        return Py2Bytes(_bytes(other) + bytes(self))

    def __mul__(self, count: int) -> "Py2Bytes":
        return Py2Bytes(bytes.__mul__(self, count))

    __rmul__ = __mul__

    def __mod__(self, values: Any) -> "Py2Bytes":
        if isinstance(values, tuple):
            values = tuple(_text(v) if isinstance(v, Py2Bytes) else v for v in values)
        return Py2Bytes(_bytes(_text(self) % values))

    def __getitem__(self, index: Any) -> "Py2Bytes":
        if isinstance(index, slice):
            return Py2Bytes(bytes.__getitem__(self, index))
        return Py2Bytes(bytes((bytes.__getitem__(self, index),)))

    def __iter__(self) -> Iterator["Py2Bytes"]:
        return (Py2Bytes(bytes((byte,))) for byte in bytes.__iter__(self))

    def split(self, sep: Any = None, maxsplit: int = -1) -> List["Py2Bytes"]:
        return [Py2Bytes(part) for part in bytes.split(self, _bytes(sep), maxsplit)]

    def rsplit(self, sep: Any = None, maxsplit: int = -1) -> List["Py2Bytes"]:
        return [Py2Bytes(part) for part in bytes.rsplit(self, _bytes(sep), maxsplit)]

    def splitlines(self, keepends: bool = False) -> List["Py2Bytes"]:
        return [Py2Bytes(part) for part in bytes.splitlines(self, keepends)]

    def partition(self, sep: Any) -> Tuple["Py2Bytes", ...]:
        return tuple(Py2Bytes(part) for part in bytes.partition(self, _bytes(sep)))

    def rpartition(self, sep: Any) -> Tuple["Py2Bytes", ...]:
        return tuple(Py2Bytes(part) for part in bytes.rpartition(self, _bytes(sep)))

    def join(self, parts: Any) -> "Py2Bytes":
        return Py2Bytes(bytes.join(self, [_bytes(part) for part in parts]))

    def replace(self, old: Any, new: Any, count: int = -1) -> "Py2Bytes":
        return Py2Bytes(bytes.replace(self, _bytes(old), _bytes(new), count))

    def strip(self, chars: Any = None) -> "Py2Bytes":
        return Py2Bytes(bytes.strip(self, _bytes(chars)))

    def lstrip(self, chars: Any = None) -> "Py2Bytes":
        return Py2Bytes(bytes.lstrip(self, _bytes(chars)))

    def rstrip(self, chars: Any = None) -> "Py2Bytes":
        return Py2Bytes(bytes.rstrip(self, _bytes(chars)))

    def startswith(self, prefix: Any, *bounds: int) -> bool:
        prefix = tuple(map(_bytes, prefix)) if isinstance(prefix, tuple) else _bytes(prefix)
        return bytes.startswith(self, prefix, *bounds)

    def endswith(self, suffix: Any, *bounds: int) -> bool:
        suffix = tuple(map(_bytes, suffix)) if isinstance(suffix, tuple) else _bytes(suffix)
        return bytes.endswith(self, suffix, *bounds)

    def find(self, sub: Any, *bounds: int) -> int:
        return bytes.find(self, _bytes(sub), *bounds)

    def rfind(self, sub: Any, *bounds: int) -> int:
        return bytes.rfind(self, _bytes(sub), *bounds)

    def index(self, sub: Any, *bounds: int) -> int:
        return bytes.index(self, _bytes(sub), *bounds)

    def rindex(self, sub: Any, *bounds: int) -> int:
        return bytes.rindex(self, _bytes(sub), *bounds)

    def count(self, sub: Any, *bounds: int) -> int:
        return bytes.count(self, _bytes(sub), *bounds)

    def lower(self) -> "Py2Bytes":
        return Py2Bytes(bytes.lower(self))

    def upper(self) -> "Py2Bytes":
        return Py2Bytes(bytes.upper(self))

    def capitalize(self) -> "Py2Bytes":
        return Py2Bytes(bytes.capitalize(self))

    def title(self) -> "Py2Bytes":
        return Py2Bytes(bytes.title(self))

    def encode(self, encoding: str = "utf-8", errors: str = "strict") -> Any:
        """Python 2: bytes to encode are decoded first (here as UTF-8)."""
        return py2_encode(_text(self), encoding, errors)


def _is_text_codec(encoding: str) -> bool:
    return codecs.lookup(encoding)._is_text_encoding  # type: ignore[attr-defined]


def _codec_arguments(args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Tuple[str, str]:
    """(encoding, errors) of an ``encode``/``decode`` call, with their defaults."""
    encoding = (args[0] if args else kwargs.get("encoding")) or "utf-8"
    errors = (args[1] if len(args) > 1 else kwargs.get("errors")) or "strict"
    return encoding, errors


def py2_encode(value: Any, *args: Any, **kwargs: Any) -> Any:
    """``value.encode(...)`` with Python 2's result for text and bytes (see the module)."""
    if not isinstance(value, (str, bytes)) or isinstance(value, Py2Bytes):
        return value.encode(*args, **kwargs)
    text = value if isinstance(value, str) else _text(value)
    encoding, errors = _codec_arguments(args, kwargs)
    if _is_text_codec(encoding):
        return Py2Bytes(str.encode(text, encoding, errors))
    try:  # base64, hex, zlib... worked on str; rot13 maps text to text
        encoded = codecs.encode(text, encoding, errors)
    except TypeError:
        encoded = codecs.encode(text.encode("utf-8"), encoding, errors)
    return Py2Bytes(encoded) if isinstance(encoded, bytes) else encoded


def py2_decode(value: Any, *args: Any, **kwargs: Any) -> Any:
    """``value.decode(...)``: on text, what Python 2 gave for a ``str`` (the text itself
    for a text codec); on anything else, the object's own ``decode``."""
    if not isinstance(value, str):
        return value.decode(*args, **kwargs)
    encoding, errors = _codec_arguments(args, kwargs)
    if _is_text_codec(encoding):
        return value
    decoded = codecs.decode(value.encode("utf-8"), encoding, errors)
    return Py2Bytes(decoded) if isinstance(decoded, bytes) else decoded


class _TextMethodCalls(ast.NodeTransformer):
    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        function = node.func
        if isinstance(function, ast.Attribute) and function.attr in ("encode", "decode"):
            name = ENCODE_NAME if function.attr == "encode" else DECODE_NAME
            call = ast.Call(func=ast.Name(id=name, ctx=ast.Load()),
                            args=[function.value, *node.args], keywords=node.keywords)
            return ast.copy_location(call, node)
        return node


def rewrite_text_methods(source: str, filename: str) -> Union[str, ast.Module]:
    """``source`` whose ``x.encode(...)`` / ``x.decode(...)`` calls go through
    :func:`py2_encode` / :func:`py2_decode`, ready for ``compile`` (``source`` itself when
    it has no such call); raises ``SyntaxError``."""
    if not _TEXT_METHOD.search(source):
        return source
    tree = _TextMethodCalls().visit(ast.parse(source, filename))
    return ast.fix_missing_locations(tree)


#: the names :func:`rewrite_text_methods` makes box code call
PY2_TEXT_BUILTINS = {ENCODE_NAME: py2_encode, DECODE_NAME: py2_decode}
