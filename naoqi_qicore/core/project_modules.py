"""Python modules shipped with a project, imported by box code as NAOqi imported them.

Box code commonly puts a folder of its project on ``sys.path`` (``lib``, the package
folder: ``self.behaviorAbsolutePath().replace(self.behaviorRelativePath(), "")``) and
imports modules from it, written for Python 2 like the boxes.  While a behavior is loaded,
a ``sys.meta_path`` finder takes over the modules that the usual import finds as source
files under the behavior's project folder (:func:`package_folder`):

* a module of Python 3 is imported as it is (its source, Python 3's builtins, its
  ``__pycache__``), except that importing a module the box environment provides and
  Python cannot find (``from naoqi import ALProxy`` without NAOqi's SDK) gives the
  behavior's: projects often ship Python 2/3 libraries, which must keep taking their
  Python 3 paths;
* a module of Python 2 is ported as box scripts are and runs as box code does.  It is
  Python 2 when it does not compile under Python 3, or when it uses what only Python 2
  had (:func:`python2_reason`: a module only Python 2 had, ``import urllib2``; a name
  Python 3 took out of a module, ``collections.Mapping``, ``string.letters``,
  ``os.getcwdu``; a builtin of Python 2 it never defines, ``unicode``; a dictionary
  method of Python 2, ``d.has_key(k)``), or when importing it as it is fails the way
  Python 2 code fails on Python 3 (the same, reached another way).  Porting
  (:mod:`naoqi_qicore.converter.pyport`: indentation tabs, print statements, ``except X,
  e``, dictionary methods...; fissix is only imported when a module needs it) is cached
  on disk (:func:`~naoqi_qicore.core.ported_source.port_cache_dir`, keyed by a hash of
  the source, the porter's version and Python's): the next import does not port again.
  The module runs with the box builtins of the behavior importing it (Python 2's
  builtins, module names and the names Python 3 removed from its modules, the behavior's
  ``naoqi``/``qi``/``almath`` and ``time.sleep``...) and Python 2's ``encode``/``decode``
  on text.  A module that cannot be ported fails its import with a ``SyntaxError`` naming
  its file and line;
* a package or module the project ships that the environment also provides (an old
  ``lib/requests`` beside an installed requests) is imported from the project when it is
  Python 3 code and works there; when it is Python 2 (any of its modules: its vendored
  ``urllib3`` importing ``collections.Mapping``...) or fails to import as a Python 2
  library does, the installed one is imported instead, said in one log line ("project
  lib/requests is Python 2 only (collections.Mapping); using the installed requests
  2.32.3");
* unloading the behavior drops those modules from ``sys.modules`` (the next load imports
  them again, for that behavior) and removes the finder once no behavior needs it.

Modules of the standard library, of site-packages (and any ``dist-packages``) and of
naoqi_qicore itself are never taken over, wherever the project is.  A folder of the
robot's box code put on ``sys.path`` (``/home/nao/.local/share/PackageManager/apps/
.lastUploadedChoregrapheBehavior/lib``) is searched where the box environment maps it
(:mod:`naoqi_qicore.core.box_paths`).
"""
from __future__ import annotations

import ast
import builtins as python_builtins
import functools
import importlib.machinery
import importlib.metadata
import importlib.util
import logging
import os
import re
import site
import symtable
import sys
import sysconfig
import threading
import types
import warnings
from typing import Any, Dict, Iterable, List, Mapping, Optional, Set, Tuple

from naoqi_qicore.converter import pyport
from naoqi_qicore.core.box_paths import PathMapper, mapped_search_path
from naoqi_qicore.core.dependencies import imported_names
from naoqi_qicore.core.ported_source import python3_source
from naoqi_qicore.core.py2 import PY2_BUILTINS, PY2_MODULES, REBUILT_MODULES, python2_only
from naoqi_qicore.core.py2_text import rewrite_text_methods

_LOG = logging.getLogger(__name__)
#: how far above a behavior's folder its project's ``manifest.xml`` or ``.pml`` may be
MAX_PROJECT_DEPTH = 3


def package_folder(behavior_path: str) -> str:
    """The project folder of the behavior in ``behavior_path``: the nearest folder at most
    :data:`MAX_PROJECT_DEPTH` levels above it holding a ``manifest.xml`` or a ``.pml``
    (where box code finds ``lib/``), else the behavior's folder itself."""
    folder = os.path.abspath(behavior_path)
    probe = folder
    for _ in range(MAX_PROJECT_DEPTH + 1):
        if _is_project_folder(probe):
            return probe
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    return folder


def _is_project_folder(folder: str) -> bool:
    if os.path.isfile(os.path.join(folder, "manifest.xml")):
        return True
    try:
        return any(name.lower().endswith(".pml") for name in os.listdir(folder))
    except OSError:
        return False


def _excluded_folders() -> Tuple[str, ...]:
    """Folders whose modules are never taken over: the standard library, site-packages,
    naoqi_qicore itself."""
    folders = set()
    paths = sysconfig.get_paths()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        if paths.get(key):
            folders.add(paths[key])
    for getter in ("getsitepackages", "getusersitepackages"):
        try:
            found = getattr(site, getter)()
        except (AttributeError, OSError):  # some virtual environments lack them
            continue
        folders.update([found] if isinstance(found, str) else found)
    folders.update(entry for entry in sys.path
                   if entry and ("site-packages" in entry or "dist-packages" in entry))
    folders.add(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return tuple(sorted({os.path.realpath(folder) for folder in folders}))


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


class ProjectModules:
    """The project modules of one loaded behavior (:func:`install_project_modules`)."""

    def __init__(self, roots: Iterable[str], builtins: Dict[str, Any],
                 modules: Optional[Mapping[str, types.ModuleType]] = None,
                 paths: Optional[PathMapper] = None) -> None:
        self.roots = tuple(sorted({os.path.realpath(root) for root in roots}))
        #: maps the robot's paths box code put on ``sys.path`` to folders of this machine
        self.paths = paths
        #: the ``__builtins__`` of ported modules (the behavior's box builtins)
        self.builtins = builtins
        #: the ``__builtins__`` of the modules imported as they are
        self.plain_builtins = _fallback_builtins(dict(modules or {}))
        self._modules: Dict[str, types.ModuleType] = {}
        self._lock = threading.Lock()
        self.closed = False

    def covers(self, path: str) -> bool:
        """Whether the module file ``path`` (real path) is one of the project's."""
        return any(_inside(path, root) for root in self.roots) and not any(
            _inside(path, folder) for folder in _FINDER.excluded())

    @property
    def modules(self) -> List[str]:
        """Names of the modules imported for the behavior so far."""
        with self._lock:
            return sorted(self._modules)

    def _imported(self, module: types.ModuleType) -> None:
        with self._lock:
            self._modules[module.__name__] = module

    def installed(self, name: str) -> Optional[importlib.machinery.ModuleSpec]:
        """The environment's own top-level module ``name`` (found outside the project),
        None when it has none."""
        search = [entry for entry in sys.path
                  if not any(_inside(os.path.realpath(entry or os.curdir), root)
                             for root in self.roots)]
        spec = importlib.machinery.PathFinder.find_spec(name, search)
        if spec is None or spec.loader is None or spec.origin is None:
            return None
        return spec

    def use_installed(self, name: str, origin: str, error: BaseException) -> bool:
        """The project's top-level module ``name`` (file ``origin``) failed to import with
        ``error``: put the environment's own ``name`` in ``sys.modules`` instead, with one
        log line; False when the environment has none (or it fails too)."""
        spec = self.installed(name)
        if spec is None:
            return False
        with self._lock:  # what the failed import left: the project's modules of ``name``
            failed = [key for key in self._modules if key == name or key.startswith(name + ".")]
            for key in failed:
                del self._modules[key]
        for key in failed + [name]:
            sys.modules.pop(key, None)
        installed = importlib.util.module_from_spec(spec)
        sys.modules[name] = installed
        try:
            spec.loader.exec_module(installed)
        except Exception:  # noqa: BLE001 (the project's own failure is the one to tell)
            sys.modules.pop(name, None)
            return False
        shipped = os.path.dirname(origin) if os.path.basename(origin) == "__init__.py" \
            else origin
        root = next(root for root in self.roots if _inside(os.path.realpath(shipped), root))
        _LOG.warning("project %s %s; using the installed %s", os.path.relpath(
            os.path.realpath(shipped), root), _why_not(error), _installed_name(name, spec))
        return True

    def close(self) -> None:
        """The behavior is unloaded: forget its modules, remove the finder when no other
        behavior needs it (again: no-op)."""
        if self.closed:
            return
        self.closed = True
        _FINDER.unregister(self)
        with self._lock:
            modules, self._modules = self._modules, {}
        for name, module in modules.items():
            if sys.modules.get(name) is module:
                del sys.modules[name]


#: how a Python 2 library fails to import on Python 3
_PYTHON2_FAILURES = (ImportError, SyntaxError, AttributeError, NameError)
_MISSING_NAME = re.compile(r"cannot import name '(\w+)' from '([\w.]+)'"
                           r"|module '([\w.]+)' has no attribute '(\w+)'")
#: the builtins of Python 2 that Python 3 lacks (box code and Python 2 modules have them)
_PY2_ONLY_BUILTINS = frozenset(PY2_BUILTINS) - frozenset(dir(python_builtins))
#: module names the engine gives Python 2 code (``urllib2``, ``email.MIMEText``...; those
#: Python 3 has too, ``string``, are no sign of Python 2)
_PY2_MODULE_NAMES = frozenset(PY2_MODULES) | REBUILT_MODULES


class Python2Library(ImportError):
    """A module of a library the project ships, and the environment has too, is Python 2:
    the library is taken from the environment (raised up to the library's top module)."""

    def __init__(self, reason: str, path: str) -> None:
        super().__init__("%s is Python 2 (%s)" % (path, reason), path=path)
        self.reason = reason


def _python3_lacks(module: str) -> bool:
    """Whether Python (this one, with the current ``sys.path``) cannot find ``module``."""
    try:
        return importlib.util.find_spec(module) is None
    except (ImportError, ValueError):
        return True


def _python2_module(dotted: str) -> Optional[str]:
    """The Python 2 module that importing ``dotted`` names (``urllib2``, ``email.MIMEText``)
    when Python 3 has no such module, else None."""
    parts = dotted.split(".")
    for depth in range(len(parts), 0, -1):
        prefix = ".".join(parts[:depth])
        if prefix in _PY2_MODULE_NAMES and _python3_lacks(prefix):
            return prefix
    return None


@functools.lru_cache(maxsize=256)
def python2_reason(source: str, filename: str = "<module>") -> Optional[str]:
    """Why the module ``source`` is Python 2 code: it does not compile under Python 3
    ("Python 2 syntax, line 4"), or the first thing it uses that only Python 2 had: a
    module (``urllib2``), a name Python 3 took out of a module (``collections.Mapping``),
    a builtin the module never defines (``unicode``), a dictionary method
    (``has_key``).  None when it is Python 3 code.  Imports inside a ``try`` catching
    ``ImportError`` and builtins the module binds itself (``unicode = str``) are those of
    a Python 2/3 library and do not count."""
    error = pyport.compile_error(source)
    if error is not None:
        return "Python 2 syntax, line %s" % error.lineno
    for dotted in sorted(imported_names(source)):
        module, _, name = dotted.rpartition(".")
        if module and python2_only(module, name):
            return dotted
        old = _python2_module(dotted)
        if old is not None:
            return old
    tree = ast.parse(source, filename)
    modules = {alias.asname or alias.name: alias.name for node in ast.walk(tree)
               if isinstance(node, ast.Import) for alias in node.names if "." not in alias.name}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in modules and python2_only(modules[node.value.id],
                                                              node.attr)):
            return "%s.%s" % (modules[node.value.id], node.attr)
    builtin = _free_python2_builtin(symtable.symtable(source, filename, "exec"),
                                    _names_tried(tree))
    return builtin or pyport.py2_dict_method(source)


def _names_tried(tree: ast.AST) -> Set[str]:
    """The names read inside a ``try`` that catches ``NameError`` (``try: unicode``)."""
    names: Set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
                handler.type is None or any(isinstance(kind, ast.Name) and kind.id in (
                    "NameError", "Exception", "BaseException") for kind in (
                    handler.type.elts if isinstance(handler.type, ast.Tuple)
                    else [handler.type])) for handler in node.handlers):
            names.update(name.id for statement in node.body for name in ast.walk(statement)
                         if isinstance(name, ast.Name))
    return names


def _free_python2_builtin(module: symtable.SymbolTable, tried: Set[str]) -> Optional[str]:
    """A builtin only Python 2 had that the module's code uses and never binds (nor reads
    only to see whether it exists: ``tried``)."""
    bound = tried | {symbol.get_name() for symbol in module.get_symbols()
                     if symbol.is_assigned() or symbol.is_imported() or symbol.is_namespace()}
    tables = [module]
    while tables:
        table = tables.pop()
        tables.extend(table.get_children())
        for symbol in table.get_symbols():
            name = symbol.get_name()
            if (name in _PY2_ONLY_BUILTINS and name not in bound and symbol.is_referenced()
                    and (table is module or symbol.is_global())):
                return name
    return None


def _python2_failure(error: BaseException) -> Optional[str]:
    """What Python 2 had that ``error`` says Python 3 lacks (``collections.Mapping``,
    ``urllib2``, ``unicode``), None when it is not how Python 2 code fails on Python 3."""
    if isinstance(error, Python2Library):
        return error.reason
    found = _MISSING_NAME.search(str(error))
    if found is not None:
        module, name = (found.group(2), found.group(1)) if found.group(1) \
            else (found.group(3), found.group(4))
        return "%s.%s" % (module, name) if python2_only(module, name) else None
    name = getattr(error, "name", None) if isinstance(error, (ImportError, NameError)) \
        else None
    if isinstance(error, ModuleNotFoundError) and name:
        return _python2_module(name)
    return name if isinstance(error, NameError) and name in _PY2_ONLY_BUILTINS else None


def _why_not(error: BaseException) -> str:
    """Why a shipped library does not import: "is Python 2 only (collections.Mapping)", or
    "does not import (No module named 'chardet')" for another failure."""
    reason = _python2_failure(error)
    return "is Python 2 only (%s)" % reason if reason else "does not import (%s)" % error


def _installed_name(name: str, spec: importlib.machinery.ModuleSpec) -> str:
    """``requests 2.32.3`` (the distribution's version when it has one), else where it is."""
    for distribution in importlib.metadata.packages_distributions().get(name, []):
        try:
            return "%s %s" % (name, importlib.metadata.version(distribution))
        except importlib.metadata.PackageNotFoundError:
            continue
    return "%s (%s)" % (name, os.path.dirname(spec.origin or ""))


def _fallback_builtins(modules: Dict[str, types.ModuleType]) -> Dict[str, Any]:
    """Python's builtins, whose ``__import__`` gives the top-level ``modules`` that Python
    itself cannot find."""
    real_import = python_builtins.__import__

    def project_import(name: str, globals: Any = None, locals: Any = None,
                       fromlist: Any = (), level: int = 0) -> Any:
        try:
            return real_import(name, globals, locals, fromlist, level)
        except ModuleNotFoundError as error:
            top = name.partition(".")[0]
            if (level or top not in modules or error.name != top
                    or (top != name and fromlist)):
                raise
            return modules[top]

    namespace = dict(python_builtins.__dict__)
    namespace["__import__"] = project_import
    return namespace


class _ProjectModuleLoader(importlib.machinery.SourceFileLoader):
    """Loads a project module: as it is when it is Python 3 code, else ported and run with
    the box builtins (see the module)."""

    def __init__(self, fullname: str, path: str, owner: ProjectModules) -> None:
        super().__init__(fullname, path)
        self._owner = owner

    def _source(self, path: str) -> str:
        try:
            return importlib.util.decode_source(self.get_data(path))
        except (SyntaxError, UnicodeDecodeError, LookupError) as error:
            raise SyntaxError("%s cannot be read as Python source: %s" % (path, error),
                              (path, None, None, None)) from None

    def exec_module(self, module: types.ModuleType) -> None:
        name = module.__name__
        try:
            self._run(module)
        except _PYTHON2_FAILURES as error:
            # the environment's own copy of a library the project ships for Python 2
            # (the import system takes what is in sys.modules once this returns)
            if "." in name or not self._owner.use_installed(
                    name, self.get_filename(name), error):
                raise

    def _run(self, module: types.ModuleType) -> None:
        name = module.__name__
        path = self.get_filename(name)
        source = self._source(path)
        reason = python2_reason(source, path)
        if reason is None:
            try:
                self._execute(module, super().get_code(name), self._owner.plain_builtins)
                return
            except _PYTHON2_FAILURES as error:
                reason = _python2_failure(error)
                if reason is None or self._owner.installed(name.partition(".")[0]):
                    raise
        if self._owner.installed(name.partition(".")[0]) is not None:
            raise Python2Library(reason, path)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes etc. of old modules
            code = compile(rewrite_text_methods(python3_source(source, path, python2=True),
                                                path), path, "exec", dont_inherit=True)
        self._execute(module, code, self._owner.builtins)

    def _execute(self, module: types.ModuleType, code: types.CodeType,
                 builtins: Dict[str, Any]) -> None:
        module.__dict__["__builtins__"] = builtins
        self._owner._imported(module)
        exec(code, module.__dict__)


class ProjectModuleFinder:
    """The ``sys.meta_path`` finder of project modules, installed while a behavior using it
    is loaded."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._owners: List[ProjectModules] = []
        self._excluded: Optional[Tuple[str, ...]] = None

    def excluded(self) -> Tuple[str, ...]:
        if self._excluded is None:
            self._excluded = _excluded_folders()
        return self._excluded

    def register(self, owner: ProjectModules) -> None:
        self.excluded()
        with self._lock:
            self._owners.append(owner)
            if self not in sys.meta_path:
                sys.meta_path.insert(0, self)

    def unregister(self, owner: ProjectModules) -> None:
        with self._lock:
            if owner in self._owners:
                self._owners.remove(owner)
            if not self._owners and self in sys.meta_path:
                sys.meta_path.remove(self)

    @property
    def installed(self) -> bool:
        return self in sys.meta_path

    def find_spec(self, fullname: str, path: Any = None,
                  target: Any = None) -> Optional[importlib.machinery.ModuleSpec]:
        with self._lock:
            owners = list(self._owners)
        if not owners:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        mapped = False
        for mapper in {owner.paths for owner in owners if owner.paths is not None}:
            if spec is not None:
                break
            # a robot folder box code put on sys.path (.../apps/<id>/lib): where it is here
            spec = importlib.machinery.PathFinder.find_spec(fullname, mapped_search_path(
                mapper, sys.path if path is None else path))
            mapped = spec is not None
        if (spec is None or not spec.has_location or spec.origin is None
                or type(spec.loader) is not importlib.machinery.SourceFileLoader):
            return spec if mapped else None
        origin = os.path.realpath(spec.origin)
        owner = next((owner for owner in reversed(owners) if owner.covers(origin)), None)
        if owner is None:
            return spec if mapped else None
        spec.loader = _ProjectModuleLoader(fullname, spec.origin, owner)
        return spec

    def invalidate_caches(self) -> None:
        """Nothing cached here (``importlib.invalidate_caches`` calls it)."""


_FINDER = ProjectModuleFinder()


def install_project_modules(roots: Iterable[str], builtins: Dict[str, Any],
                            modules: Optional[Mapping[str, types.ModuleType]] = None,
                            paths: Optional[PathMapper] = None) -> ProjectModules:
    """Take over the modules under ``roots`` for a behavior whose box code has ``builtins``
    and whose box environment gives ``modules`` (``naoqi``...) and maps its robot paths
    with ``paths``, until :meth:`ProjectModules.close`."""
    owner = ProjectModules(roots, builtins, modules, paths)
    _FINDER.register(owner)
    return owner


def finder_installed() -> bool:
    """Whether the finder of project modules is in ``sys.meta_path``."""
    return _FINDER.installed
