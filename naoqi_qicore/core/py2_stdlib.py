"""Names Python 2's standard modules had and Python 3 removed, as Python 3 objects.

fissix's fixers rename Python 2's modules (``urllib2``, ``Queue``...) but leave the names
Python 3 took out of the modules it kept: ``collections.Mapping`` (the abstract classes
moved to ``collections.abc``), ``os.getcwdu``, ``time.clock``, ``base64.encodestring``,
``inspect.getargspec``, ``cgi.escape``, ``itertools.izip``, ``types.StringType``,
``operator.isCallable``, ``platform.linux_distribution``, ``HTMLParser.HTMLParser().
unescape``...  :data:`REMOVED_NAMES` gives, per module, what stands for each of them;
:mod:`naoqi_qicore.core.py2` gives Python 2 code (box scripts, the Python 2 modules a
project ships) modules holding them besides the real module's names.  Also here: Python 2's
``md5``, ``sha`` and ``sets`` modules, which Python 3 removed with ``hashlib`` and the
built-in sets replacing them.

Python 2's byte strings were text too: the functions of ``base64`` (and ``md5``/``sha``)
take text (as UTF-8) where Python 3's take bytes only, and give what Python 2's ``str``
was to box code (:class:`~naoqi_qicore.core.py2_text.Py2Bytes`).
"""
from __future__ import annotations

import base64
import collections.abc
import errno
import functools
import hashlib
import html
import html.parser
import inspect
import io
import itertools
import numbers
import operator
import os
import platform
import time
import types
import urllib.parse
from typing import Any, Callable, Dict, NamedTuple, Optional, Tuple

from naoqi_qicore.core.py2_text import Py2Bytes


def _text_as_bytes(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` of bytes taking text (as UTF-8) too, its bytes given as Python 2's
    ``str``."""
    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        result = function(*[arg.encode("utf-8") if isinstance(arg, str) else arg
                            for arg in args], **kwargs)
        return Py2Bytes(result) if isinstance(result, bytes) else result
    return call


_BASE64_FUNCTIONS = ("b64encode", "b64decode", "standard_b64encode", "standard_b64decode",
                     "urlsafe_b64encode", "urlsafe_b64decode", "b32encode", "b32decode",
                     "b16encode", "b16decode", "encodebytes", "decodebytes")


class ArgSpec(NamedTuple):
    """What Python 2's ``inspect.getargspec`` gave."""

    args: list
    varargs: Optional[str]
    keywords: Optional[str]
    defaults: Optional[tuple]


def _getargspec(function: Callable[..., Any]) -> ArgSpec:
    """``inspect.getargspec``: the arguments of a function without keyword-only ones."""
    spec = inspect.getfullargspec(function)
    if spec.kwonlyargs:
        raise ValueError("function has keyword-only arguments, use getfullargspec()")
    return ArgSpec(spec.args, spec.varargs, spec.varkw, spec.defaults)


def _cgi_escape(text: str, quote: bool = False) -> str:
    """``cgi.escape``: ``&``, ``<`` and ``>`` (and ``"`` when ``quote``) as HTML entities
    (not ``'``, which ``html.escape`` replaces too)."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace('"', "&quot;") if quote else text


def _classic_division(a: Any, b: Any) -> Any:
    """Python 2's ``a / b`` (``operator.div``): integers give the floor of the quotient."""
    if isinstance(a, numbers.Integral) and isinstance(b, numbers.Integral):
        return a // b
    return a / b


def _linux_distribution(*args: Any, **kwargs: Any) -> Tuple[str, str, str]:
    """``platform.linux_distribution()``/``dist()``: (name, version, codename) of this
    machine's system, from its os-release file (empty when it has none)."""
    try:
        release = platform.freedesktop_os_release()
    except OSError:
        return ("", "", "")
    return (release.get("NAME", ""), release.get("VERSION_ID", ""),
            release.get("VERSION_CODENAME", ""))


class HTMLParseError(Exception):
    """Python 2's ``HTMLParser.HTMLParseError`` (Python 3's parser raises none)."""

    def __init__(self, msg: str, position: Tuple[Optional[int], Optional[int]] = (None, None)):
        super().__init__(msg)
        self.msg = msg
        self.lineno, self.offset = position


class HTMLParser(html.parser.HTMLParser):
    """Python 2's ``HTMLParser.HTMLParser``: with ``unescape``."""

    __module__ = "HTMLParser"

    def unescape(self, text: str) -> str:
        return html.unescape(text)


def _hash_module(name: str, constructor: Callable[..., Any], size: int) -> types.ModuleType:
    """Python 2's ``md5``/``sha`` module: ``new(text)`` and ``name(text)`` as hashlib's."""
    module = types.ModuleType(name, "Python 2's %s module (hashlib's)" % name)
    module.new = _text_as_bytes(constructor)  # type: ignore[attr-defined]
    setattr(module, name, module.new)  # type: ignore[attr-defined]
    module.digest_size = module.digestsize = size  # type: ignore[attr-defined]
    module.blocksize = 1  # type: ignore[attr-defined]
    return module


def _sets_module() -> types.ModuleType:
    module = types.ModuleType("sets", "Python 2's sets module (the built-in sets)")
    module.Set, module.ImmutableSet = set, frozenset  # type: ignore[attr-defined]
    return module


#: module name (as Python 2 code imports it) -> removed name -> what stands for it
REMOVED_NAMES: Dict[str, Dict[str, Any]] = {
    "collections": {name: getattr(collections.abc, name) for name in collections.abc.__all__},
    "os": {"getcwdu": os.getcwd, "errno": errno},
    "time": {"clock": time.perf_counter},
    "base64": dict({name: _text_as_bytes(getattr(base64, name)) for name in _BASE64_FUNCTIONS},
                   encodestring=_text_as_bytes(base64.encodebytes),
                   decodestring=_text_as_bytes(base64.decodebytes)),
    "inspect": {"getargspec": _getargspec, "ArgSpec": ArgSpec},
    "cgi": {"escape": _cgi_escape, "parse_qs": urllib.parse.parse_qs,
            "parse_qsl": urllib.parse.parse_qsl},
    "itertools": {"izip": zip, "imap": map, "ifilter": filter,
                  "ifilterfalse": itertools.filterfalse,
                  "izip_longest": itertools.zip_longest},
    "types": {"StringType": str, "UnicodeType": str, "StringTypes": (str,), "IntType": int,
              "LongType": int, "FloatType": float, "BooleanType": bool,
              "ComplexType": complex, "ListType": list, "TupleType": tuple, "DictType": dict,
              "DictionaryType": dict, "ObjectType": object, "TypeType": type,
              "ClassType": type, "InstanceType": object, "FileType": io.IOBase,
              "SliceType": slice, "XRangeType": range, "BufferType": memoryview,
              "UnboundMethodType": types.FunctionType, "NoneType": type(None)},
    "operator": {"isCallable": callable, "sequenceIncludes": operator.contains,
                 "div": _classic_division, "idiv": _classic_division,
                 "repeat": operator.mul, "irepeat": operator.imul,
                 "isSequenceType": lambda value: isinstance(value, collections.abc.Sequence),
                 "isMappingType": lambda value: isinstance(value, collections.abc.Mapping),
                 "isNumberType": lambda value: isinstance(value, numbers.Number)},
    "platform": {"linux_distribution": _linux_distribution, "dist": _linux_distribution},
    "HTMLParser": {"HTMLParser": HTMLParser, "HTMLParseError": HTMLParseError},
}

#: Python 2's modules that Python 3 removed, by name (their replacements' objects)
REMOVED_MODULES: Dict[str, types.ModuleType] = {
    "md5": _hash_module("md5", hashlib.md5, 16),
    "sha": _hash_module("sha", hashlib.sha1, 20),
    "sets": _sets_module(),
}
