"""Where box code runs: its module namespace, Python 2 names, imports, compiled code.

Each box's script is executed in a module namespace of its own whose ``__builtins__``
adds what NAOqi's Python 2 offered (``unicode``, ``basestring``, ``xrange``, ``long``,
``unichr``, ``reduce``, ``cmp``, ``intern``; ``raw_input`` stays absent: a box cannot
read a terminal) and whose ``__import__`` resolves, in box code only:

* the modules of the behavior's :class:`~naoqi_qicore.core.environment.ScriptEnvironment`
  (``naoqi``, ``almath``...) before anything installed;
* Python 2 module names that Python 3 renamed (``thread``, ``Queue``, ``urllib2``,
  ``cPickle``, ``StringIO``...), a Python 2 style ``urllib`` that also has
  ``urlencode``, ``quote``, ``urlopen``..., and Python 2's ``mutex``.

Compiled code is cached by source text: behaviors repeat the same library boxes.
"""
from __future__ import annotations

import builtins
import functools
import hashlib
import importlib
import linecache
import sys
import threading
import types
import warnings
from typing import Any, Callable, Dict, Mapping, Optional, Type

#: Python 2 module names -> their Python 3 module
PY2_MODULES = {
    "thread": "_thread", "Queue": "queue", "urllib2": "urllib.request", "cPickle": "pickle",
    "StringIO": "io", "cStringIO": "io", "ConfigParser": "configparser",
    "httplib": "http.client", "urlparse": "urllib.parse", "HTMLParser": "html.parser",
    "cookielib": "http.cookiejar", "SocketServer": "socketserver", "Tkinter": "tkinter",
    "commands": "subprocess", "htmlentitydefs": "html.entities", "xmlrpclib": "xmlrpc.client",
    "__builtin__": "builtins",
}


def _cmp(a: Any, b: Any) -> int:
    return (a > b) - (a < b)


PY2_BUILTINS: Dict[str, Any] = {
    "unicode": str, "basestring": str, "xrange": range, "long": int, "unichr": chr,
    "reduce": functools.reduce, "cmp": _cmp, "intern": sys.intern,
}


class _Py2Urllib(types.ModuleType):
    """``urllib`` with the Python 2 functions now in ``urllib.parse`` / ``urllib.request``."""

    def __getattr__(self, name: str) -> Any:
        for module_name in ("urllib.parse", "urllib.request", "urllib.error"):
            module = importlib.import_module(module_name)
            if hasattr(module, name):
                return getattr(module, name)
        raise AttributeError("module 'urllib' has no attribute %r" % name)


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


_py2_mutex = types.ModuleType("mutex", "Python 2's mutex module")
_py2_mutex.mutex = _Mutex  # type: ignore[attr-defined]

_py2_urllib = _Py2Urllib("urllib")
_py2_urllib.__path__ = importlib.import_module("urllib").__path__  # type: ignore[attr-defined]


def box_builtins(modules: Mapping[str, types.ModuleType]) -> Dict[str, Any]:
    """The ``__builtins__`` of box code that can import ``modules`` first."""
    real_import = builtins.__import__

    def box_import(name: str, globals: Any = None, locals: Any = None,
                   fromlist: Any = (), level: int = 0) -> Any:
        if level == 0:
            if name in modules:
                return modules[name]
            if name == "urllib" and not fromlist:
                return _py2_urllib
            if name == "mutex":
                return _py2_mutex
            if name in PY2_MODULES:
                return importlib.import_module(PY2_MODULES[name])
        return real_import(name, globals, locals, fromlist, level)

    namespace = dict(builtins.__dict__)
    namespace.pop("raw_input", None)
    namespace.update(PY2_BUILTINS)
    namespace["__import__"] = box_import
    return namespace


_code_cache: Dict[str, types.CodeType] = {}
_code_lock = threading.Lock()


def compile_box_script(source: str) -> types.CodeType:
    """Compile a box script (cached by text); raises ``SyntaxError``.

    The code's file name is ``<box script HASH>`` and its lines are registered with
    :mod:`linecache`, so tracebacks show the script's lines.
    """
    with _code_lock:
        code = _code_cache.get(source)
    if code is not None:
        return code
    filename = "<box script %s>" % hashlib.sha1(source.encode("utf-8", "replace")).hexdigest()[:10]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escapes etc. of old scripts
        code = compile(source, filename, "exec", dont_inherit=True)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    with _code_lock:
        _code_cache[source] = code
    return code


def find_box_class(namespace: Mapping[str, Any], base: Type) -> Type:
    """The class a box script defines for its box: ``MyClass`` (or another name kept by the
    converter) deriving from ``base``; the last such class defined; ``base`` when none."""
    preferred = namespace.get("MyClass")
    if isinstance(preferred, type) and issubclass(preferred, base):
        return preferred
    module_name = namespace.get("__name__")
    found: Optional[Type] = None
    for value in namespace.values():
        if (isinstance(value, type) and issubclass(value, base) and value is not base
                and value.__module__ == module_name):
            found = value
    return found or base


def positional_arity(method: Callable) -> Optional[int]:
    """How many positional arguments a bound method accepts (None: any number)."""
    code = getattr(getattr(method, "__func__", method), "__code__", None)
    if code is None:
        return None
    if code.co_flags & 0x04:  # *args
        return None
    count = code.co_argcount
    return count - 1 if hasattr(method, "__self__") else count
