"""The Python 2 that NAOqi's box scripts were written for, as Python 3 objects.

Porting a script (``converter.pyport``) fixes its syntax; what a script *does* with
Python 2's builtins and standard library is provided here, for box code only:

* :data:`PY2_BUILTINS`: ``unicode``, ``basestring``, ``xrange``, ``long``, ``unichr``,
  ``reduce``, ``cmp``, ``intern``, ``reload``, ``file``, ``execfile`` (of Python 2 files
  too: ported as the project's modules are), ``apply``, and
  ``range``, ``map``, ``filter``, ``zip`` returning lists as they did;
* :func:`py2_module`: modules by their Python 2 name: the renamed ones (``thread``,
  ``Queue``, ``cPickle``, ``StringIO``, ``email.MIMEText``, ``xml.etree.cElementTree``...:
  fissix's renames and those Python 3 made since), ``urllib`` with ``urlencode``,
  ``quote``, ``urlopen``..., ``urllib2`` whose ``Request`` has ``add_data`` and friends
  and whose ``urlopen`` takes text data, ``string`` with ``letters``, ``join``,
  ``upper``..., ``sys`` with ``setdefaultencoding`` and ``maxint``, ``json`` writing byte
  strings as text, ``mutex``, and the modules whose names Python 3 removed with those
  names back (``collections.Mapping``, ``os.getcwdu``, ``time.clock``...: see
  :mod:`naoqi_qicore.core.py2_stdlib`); :func:`py2_import` is what ``import`` gives
  Python 2 code, :func:`python2_view` a module of the box environment with its Python 2
  names.
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
from typing import Any, Callable, Dict, FrozenSet, Optional, Set

from naoqi_qicore.core.ported_source import python3_source
from naoqi_qicore.core.py2_stdlib import REMOVED_MODULES, REMOVED_NAMES

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
    "CGIHTTPServer": "http.server", "DocXMLRPCServer": "xmlrpc.server",
    "SimpleXMLRPCServer": "xmlrpc.server", "robotparser": "urllib.robotparser",
    "markupbase": "_markupbase", "anydbm": "dbm", "whichdb": "dbm", "dumbdbm": "dbm.dumb",
    "gdbm": "dbm.gnu", "dummy_thread": "_thread",
    "dummy_threading": "threading", "future_builtins": "builtins", "exceptions": "builtins",
    "Dialog": "tkinter.dialog", "FileDialog": "tkinter.filedialog",
    "ScrolledText": "tkinter.scrolledtext", "SimpleDialog": "tkinter.simpledialog",
    "Tix": "tkinter.tix", "Tkconstants": "tkinter.constants", "Tkdnd": "tkinter.dnd",
    "tkColorChooser": "tkinter.colorchooser", "tkCommonDialog": "tkinter.commondialog",
    "tkFileDialog": "tkinter.filedialog", "tkFont": "tkinter.font",
    "tkMessageBox": "tkinter.messagebox", "tkSimpleDialog": "tkinter.simpledialog",
    "ttk": "tkinter.ttk",
    # the ElementTree of Python 2's days, and its C version Python 3.9 removed
    "xml.etree.cElementTree": "xml.etree.ElementTree", "cElementTree": "xml.etree.ElementTree",
    "elementtree": "xml.etree", "elementtree.ElementTree": "xml.etree.ElementTree",
    # the modules of the PIL of Python 2's days, which Pillow keeps in its PIL package
    **{name: "PIL." + name for name in (
        "Image", "ImageChops", "ImageColor", "ImageDraw", "ImageEnhance", "ImageFile",
        "ImageFilter", "ImageFont", "ImageGrab", "ImageMath", "ImageOps", "ImagePalette",
        "ImagePath", "ImageSequence", "ImageStat", "ImageTk")},
    # Python 2's capitalized names of the email package's modules
    "email.MIMEText": "email.mime.text", "email.MIMEMultipart": "email.mime.multipart",
    "email.MIMEBase": "email.mime.base", "email.MIMEImage": "email.mime.image",
    "email.MIMEAudio": "email.mime.audio", "email.MIMEMessage": "email.mime.message",
    "email.MIMENonMultipart": "email.mime.nonmultipart", "email.Utils": "email.utils",
    "email.Encoders": "email.encoders", "email.Header": "email.header",
    "email.Charset": "email.charset", "email.Parser": "email.parser",
    "email.Generator": "email.generator", "email.Message": "email.message",
    "email.Errors": "email.errors", "email.Iterators": "email.iterators",
    "email.FeedParser": "email.feedparser", "email.Base64MIME": "email.base64mime",
    "email.QuopriMIME": "email.quoprimime",
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
    code = compile(python3_source(text, path, python2=True), path, "exec", dont_inherit=True)
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
    """A module whose missing names are looked up in other modules (given as modules or
    names), in order."""

    _sources: tuple = ()

    def __getattr__(self, name: str) -> Any:
        for source in self._sources:
            module = source if isinstance(source, types.ModuleType) \
                else importlib.import_module(source)
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
                     maxunicode=sys.maxunicode, exc_clear=lambda: None)
_mutex = types.ModuleType("mutex", "Python 2's mutex module")
_mutex.mutex = _Mutex  # type: ignore[attr-defined]

#: the modules above by the name box code imports, and those Python 3 took names out of
_OWN_MODULES: Dict[str, types.ModuleType] = {
    "urllib": _urllib, "urllib2": _urllib2, "string": _string, "sys": _sys, "mutex": _mutex,
    "json": _json, **REMOVED_MODULES, **{
        name: _merged(name, (PY2_MODULES.get(name, name),), **names)
        for name, names in REMOVED_NAMES.items()}}
#: the Python 2 module names :func:`py2_module` answers with a module of its own
REBUILT_MODULES = frozenset(_OWN_MODULES)


def _renamed_submodules() -> Dict[str, FrozenSet[str]]:
    """package -> its Python 2 submodules Python 3 renamed (``email``: ``MIMEText``...),
    and the packages holding those (``xml``: ``etree``)."""
    found: Dict[str, Set[str]] = {}
    for name in PY2_MODULES:
        parts = name.split(".")
        for depth in range(1, len(parts)):
            found.setdefault(".".join(parts[:depth]), set()).add(parts[depth])
    return {package: frozenset(names) for package, names in found.items()}


_RENAMED_SUBMODULES = _renamed_submodules()
#: Python 2 packages with renamed submodules, as box code sees them
_packages: Dict[str, types.ModuleType] = {}


def py2_module(name: str) -> Optional[types.ModuleType]:
    """What ``import name`` gives box code when Python 2 had it otherwise; None when the
    real module is the right one."""
    if name in _OWN_MODULES:
        return _OWN_MODULES[name]
    if name in PY2_MODULES:
        return importlib.import_module(PY2_MODULES[name])
    return None


class _Py2Package(_MergedModule):
    """A package whose Python 2 submodules Python 3 renamed are its attributes."""

    def __getattr__(self, name: str) -> Any:
        full = "%s.%s" % (self.__name__, name)
        if name in _RENAMED_SUBMODULES.get(self.__name__, ()):
            return _py2_package(full) if full in _RENAMED_SUBMODULES else py2_module(full)
        return super().__getattr__(name)


def _py2_package(name: str) -> types.ModuleType:
    if name not in _packages:
        real = py2_module(name) or importlib.import_module(name)
        _packages[name] = type(name, (_Py2Package,), {"_sources": (real,)})(name)
    return _packages[name]


def py2_import(name: str, fromlist: Any = (),
               modules: Optional[Dict[str, types.ModuleType]] = None
               ) -> Optional[types.ModuleType]:
    """What ``__import__(name, fromlist=fromlist)`` gives Python 2 code when Python 2 had
    the module otherwise (None: the real import is right).  ``import email.MIMEText``
    binds ``email`` holding ``MIMEText``; a module renamed to one of the box
    environment's ``modules`` (``dummy_threading``: its ``threading``) is that one."""
    target = PY2_MODULES.get(name)
    if modules is not None and target in modules:
        return modules[target]
    module = py2_module(name)
    if module is None:
        return _py2_package(name) if fromlist and name in _RENAMED_SUBMODULES else None
    if fromlist or "." not in name:
        return module
    return _py2_package(name.partition(".")[0])


def python2_view(name: str, module: types.ModuleType) -> types.ModuleType:
    """``module`` (a box environment's ``name``: its ``os``, its ``time``...) holding the
    names Python 2's ``name`` had and Python 3 removed (itself when there are none)."""
    names = REMOVED_NAMES.get(name)
    return module if names is None else _merged(name, (module,), **names)


def python2_only(module: str, name: str) -> bool:
    """Whether ``module.name`` is a name Python 2's ``module`` had and Python 3's has not
    (``collections.Mapping``, ``string.letters``, ``os.getcwdu``...)."""
    own = _OWN_MODULES.get(module)
    if own is None or not hasattr(own, name):
        return False
    try:
        real = importlib.import_module(PY2_MODULES.get(module, module))
    except ImportError:
        return True
    return not hasattr(real, name)


#: ``sys`` as box code finds it without importing it
PY2_SYS = _sys
