"""The Python 2 that NAOqi's box scripts were written for, as Python 3 objects.

Porting a script (``converter.pyport``) fixes its syntax; what a script *does* with
Python 2's builtins and standard library is provided here, for box code only:

* :data:`PY2_BUILTINS`: ``unicode``, ``basestring``, ``xrange``, ``long``, ``unichr``,
  ``reduce``, ``cmp``, ``intern``, ``reload``, ``file``, ``execfile`` (of Python 2 files
  too: ported as the project's modules are), ``apply``, and
  ``range``, ``map``, ``filter``, ``zip`` returning lists as they did;
* :func:`py2_module`: modules by their Python 2 name: the renamed ones (``thread``,
  ``Queue``, ``cPickle``, ``StringIO``...), ``urllib`` with ``urlencode``, ``quote``,
  ``urlopen``..., ``urllib2`` whose ``Request`` has ``add_data`` and friends and whose
  ``urlopen`` takes text data, ``string`` with ``letters``, ``join``, ``upper``...,
  ``sys`` with ``setdefaultencoding`` and ``maxint``, ``json`` writing byte strings as
  text, and ``mutex``.
"""
from __future__ import annotations

import builtins
import functools
import importlib
import importlib.util
import json
import string
import sys
import threading
import types
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, Dict, Optional

from naoqi_qicore.core.ported_source import python3_source

#: Python 2 module names -> their Python 3 module
PY2_MODULES = {
    "thread": "_thread", "Queue": "queue", "cPickle": "pickle",
    "StringIO": "io", "cStringIO": "io", "ConfigParser": "configparser",
    "httplib": "http.client", "urlparse": "urllib.parse", "HTMLParser": "html.parser",
    "cookielib": "http.cookiejar", "SocketServer": "socketserver", "Tkinter": "tkinter",
    "commands": "subprocess", "htmlentitydefs": "html.entities", "xmlrpclib": "xmlrpc.client",
    "__builtin__": "builtins", "copy_reg": "copyreg", "repr": "reprlib",
    "BaseHTTPServer": "http.server", "SimpleHTTPServer": "http.server", "Cookie": "http.cookies",
    "UserDict": "collections", "UserList": "collections", "UserString": "collections",
}


def _cmp(a: Any, b: Any) -> int:
    return (a > b) - (a < b)


def _range(*args: int) -> list:
    return list(builtins.range(*args))


def _map(function: Optional[Callable], *iterables: Any) -> list:
    if function is None:  # Python 2: map(None, a, b) pairs the items up
        return list(iterables[0]) if len(iterables) == 1 else list(builtins.zip(*iterables))
    return list(builtins.map(function, *iterables))


def _filter(function: Optional[Callable], iterable: Any) -> Any:
    kept = builtins.filter(function, iterable)
    if isinstance(iterable, str):
        return "".join(kept)
    if isinstance(iterable, tuple):
        return tuple(kept)
    return list(kept)


def _zip(*iterables: Any) -> list:
    return list(builtins.zip(*iterables))


def _reload(module: types.ModuleType) -> types.ModuleType:
    """``reload(m)``; the modules of this file (``reload(sys)``...) are returned as they are."""
    name = getattr(module, "__name__", "")
    if sys.modules.get(name) is not module or name.startswith("naoqi_qicore."):
        return module
    return importlib.reload(module)


def _execfile(path: str, globals: Optional[dict] = None, locals: Optional[dict] = None) -> None:
    """``execfile(path)``: a Python 2 file is ported first, as project modules are."""
    with open(path, "rb") as source:
        text = importlib.util.decode_source(source.read())
    code = compile(python3_source(text, path), path, "exec", dont_inherit=True)
    exec(code, globals if globals is not None else {}, locals)


def _apply(function: Callable, args: tuple = (), keywords: Optional[dict] = None) -> Any:
    return function(*args, **(keywords or {}))


PY2_BUILTINS: Dict[str, Any] = {
    "unicode": str, "basestring": str, "xrange": builtins.range, "long": int, "unichr": chr,
    "reduce": functools.reduce, "cmp": _cmp, "intern": sys.intern, "reload": _reload,
    "file": open, "execfile": _execfile, "apply": _apply,
    "range": _range, "map": _map, "filter": _filter, "zip": _zip,
}


class _MergedModule(types.ModuleType):
    """A module whose missing names are looked up in other modules, in order."""

    _sources: tuple = ()

    def __getattr__(self, name: str) -> Any:
        for module_name in self._sources:
            module = importlib.import_module(module_name)
            if hasattr(module, name):
                return getattr(module, name)
        raise AttributeError("module %r has no attribute %r" % (self.__name__, name))


def _data_bytes(data: Any) -> Any:
    return data.encode("utf-8") if isinstance(data, str) else data


class Request(urllib.request.Request):
    """``urllib2.Request``: text data is sent UTF-8 encoded; Python 2's accessors."""

    def __init__(self, url: str, data: Any = None, *args: Any, **kwargs: Any) -> None:
        super().__init__(url, _data_bytes(data), *args, **kwargs)

    def add_data(self, data: Any) -> None:
        self.data = _data_bytes(data)

    def get_data(self) -> Any:
        return self.data

    def has_data(self) -> bool:
        return self.data is not None

    def get_type(self) -> str:
        return self.type

    def get_host(self) -> str:
        return self.host

    def get_selector(self) -> str:
        return self.selector

    def get_origin_req_host(self) -> str:
        return self.origin_req_host

    def is_unverifiable(self) -> bool:
        return self.unverifiable


def _urlopen(url: Any, data: Any = None, *args: Any, **kwargs: Any) -> Any:
    return urllib.request.urlopen(url, _data_bytes(data), *args, **kwargs)


class _Py2Sys(types.ModuleType):
    """``sys`` read and written through, plus ``setdefaultencoding`` (text is Unicode
    already) and ``maxint``."""

    def __getattr__(self, name: str) -> Any:
        return getattr(sys, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(sys, name, value)

    def __dir__(self) -> list:
        return sorted(set(dir(sys)) | set(self.__dict__))


class _Mutex:
    """Python 2's ``mutex.mutex``: a flag with a queue of functions waiting for it."""

    def __init__(self) -> None:
        self.locked = False
        self.queue: list = []
        self._guard = threading.Lock()

    def test(self) -> bool:
        return self.locked

    def testandset(self) -> bool:
        with self._guard:
            if self.locked:
                return False
            self.locked = True
            return True

    def lock(self, function: Callable, argument: Any) -> None:
        if self.testandset():
            function(argument)
        else:
            with self._guard:
                self.queue.append((function, argument))

    def unlock(self) -> None:
        with self._guard:
            if not self.queue:
                self.locked = False
                return
            function, argument = self.queue.pop(0)
        function(argument)


def _merged(name: str, sources: tuple, **names: Any) -> types.ModuleType:
    module = type(name, (_MergedModule,), {"_sources": sources})(name)
    module.__dict__.update(names)
    return module


_urllib = _merged("urllib", ("urllib.parse", "urllib.request", "urllib.error"),
                  urlopen=_urlopen)
_urllib.__path__ = importlib.import_module("urllib").__path__  # type: ignore[attr-defined]
_urllib.__dict__.update(parse=urllib.parse, request=urllib.request, error=urllib.error)
_urllib2 = _merged("urllib2", ("urllib.request", "urllib.error", "urllib.parse"),
                   Request=Request, urlopen=_urlopen)
_string = _merged(
    "string", ("string",),
    letters=string.ascii_letters, lowercase=string.ascii_lowercase,
    uppercase=string.ascii_uppercase, maketrans=str.maketrans,
    atoi=lambda text, base=10: int(text, base), atol=lambda text, base=10: int(text, base),
    atof=float, capitalize=str.capitalize, expandtabs=str.expandtabs, find=str.find,
    rfind=str.rfind, index=str.index, rindex=str.rindex, count=str.count, lower=str.lower,
    upper=str.upper, swapcase=str.swapcase, split=str.split, splitfields=str.split,
    rsplit=str.rsplit, lstrip=str.lstrip, rstrip=str.rstrip, strip=str.strip,
    ljust=str.ljust, rjust=str.rjust, center=str.center, zfill=str.zfill,
    replace=str.replace, translate=str.translate,
    join=lambda words, separator=" ": separator.join(words),
    joinfields=lambda words, separator=" ": separator.join(words))


def _json_writer(write: Callable) -> Callable:
    """``json.dump``/``dumps`` writing byte strings as text, as Python 2's json did."""
    def call(obj: Any, *args: Any, default: Optional[Callable] = None, **kwargs: Any) -> Any:
        def text_of(value: Any) -> Any:
            if isinstance(value, bytes):
                return value.decode("utf-8", "replace")
            if default is not None:
                return default(value)
            raise TypeError("Object of type %s is not JSON serializable"
                            % type(value).__name__)
        return write(obj, *args, default=text_of, **kwargs)
    return functools.wraps(write)(call)


_json = _merged("json", ("json",), dumps=_json_writer(json.dumps), dump=_json_writer(json.dump))
_json.__path__ = json.__path__  # type: ignore[attr-defined]
_sys = _Py2Sys("sys", sys.__doc__)
_sys.__dict__.update(setdefaultencoding=lambda encoding: None, maxint=sys.maxsize,
                     maxunicode=sys.maxunicode)
_mutex = types.ModuleType("mutex", "Python 2's mutex module")
_mutex.mutex = _Mutex  # type: ignore[attr-defined]

#: the modules above by the name box code imports
_OWN_MODULES: Dict[str, types.ModuleType] = {
    "urllib": _urllib, "urllib2": _urllib2, "string": _string, "sys": _sys, "mutex": _mutex,
    "json": _json}
#: the Python 2 module names :func:`py2_module` answers with a module of its own
REBUILT_MODULES = frozenset(_OWN_MODULES)


def py2_module(name: str) -> Optional[types.ModuleType]:
    """What ``import name`` gives box code when Python 2 had it otherwise; None when the
    real module is the right one."""
    if name in _OWN_MODULES:
        return _OWN_MODULES[name]
    if name in PY2_MODULES:
        return importlib.import_module(PY2_MODULES[name])
    return None


#: ``sys`` as box code finds it without importing it
PY2_SYS = _sys
