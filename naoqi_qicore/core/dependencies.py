"""The Python packages a behavior's box code needs and this machine lacks, said up front.

:func:`missing_dependencies` reads the box scripts (with :mod:`ast`, never running them)
and the modules the project ships that they import, and keeps the top-level modules
that are neither installed, nor in the standard library, nor provided by the engine
(``naoqi``, ``qi``, ``almath``, Python 2's module names...), nor shipped in the project.
Imports made inside a ``try`` that catches ``ImportError`` are optional and not counted.

A project names the packages it needs in a ``requirements.txt`` at its root (the folder
of its ``.pml`` or ``manifest.xml``), one per line as pip reads it: those that are not
installed are named too, and a missing import whose name one of them contains (``Xlib``
for ``python-xlib``) is taken as provided by it.  Otherwise a missing import is advised
the distribution that really provides it (:mod:`naoqi_qicore.core.distributions`:
``yaml`` -> ``PyYAML``, ``cv2`` -> ``opencv-python``, a namespace package by what is
imported from it: ``google.cloud.speech`` -> ``google-cloud-speech``; Python 2's name of
a module, ``Image``, by its Python 3 one, ``PIL.Image``: ``Pillow``), and never a
distribution merely named like it: an import no known distribution provides (a module of
the project it does not ship, most often) is named with no command, and one nothing
installs under Python 3 (Python 2's ``xmllib``, NAOqi's SDK, .NET's ``clr``) is named with
what replaces it.  :meth:`MissingDependencies.warning` is the one warning to show.
"""
from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import os
import re
import sys
from dataclasses import dataclass
from typing import (Callable, Dict, FrozenSet, Iterable, Iterator, List, Optional, Set,
                    Tuple)

from naoqi_qicore.core.distributions import distributions, unavailable_reason
from naoqi_qicore.core.py2 import PY2_MODULES, REBUILT_MODULES

#: the file of a project naming the Python packages its box code needs
REQUIREMENTS_FILE = "requirements.txt"
#: modules of NAOqi's SDK that box code imported on the robot (no pip package has them)
NAOQI_SDK_MODULES = frozenset(("naoqi", "qi", "almath", "motion", "vision_definitions",
                               "allog", "inaoqi", "qimessaging"))
#: files of a project looked at, at most, to know which modules it ships
MAX_PROJECT_FILES = 20_000
#: project modules read, at most, for their own imports (each at most MAX_MODULE_BYTES)
MAX_PROJECT_MODULES = 500
MAX_MODULE_BYTES = 1 << 20
_SKIPPED_FOLDERS = {".git", ".hg", ".svn", "__pycache__", "node_modules", ".metadata"}
_IMPORT_LINE = re.compile(r"^[ \t]*(?:import[ \t]+([\w. \t,]+)|from[ \t]+(\w[\w.]*)[ \t]+import\b"
                          r"[ \t(]*([\w \t,]*))", re.M)
_REQUIREMENT_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")
_OPTIONAL_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


@dataclass(frozen=True)
class MissingDependencies:
    """What box code imports that this machine does not have."""

    #: top-level modules imported and not found, that a known distribution provides
    modules: Tuple[str, ...] = ()
    #: what to install with pip: the project's requirements not installed and the
    #: distributions providing the modules above that they do not cover
    packages: Tuple[str, ...] = ()
    #: the project's requirements that are not installed
    requirements: Tuple[str, ...] = ()
    #: modules nothing installs under Python 3: Python 2's standard modules Python 3
    #: removed, NAOqi SDK modules the engine does not provide, .NET's
    unavailable: Tuple[str, ...] = ()
    #: the project's ``requirements.txt`` read (None: none)
    requirements_file: Optional[str] = None
    #: modules imported and not found that no known distribution provides (the project's
    #: own, not shipped?) and that no requirement covers
    unknown: Tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.packages or self.unavailable or self.unknown)

    @property
    def pip_command(self) -> str:
        """``pip install ...`` of :attr:`packages` ("" when nothing to install)."""
        return "pip install " + " ".join(self.packages) if self.packages else ""

    def warning(self) -> str:
        """One line saying what is missing and how to install it ("" when nothing is)."""
        parts = []
        if self.modules:
            parts.append("box code imports modules that are not installed: "
                         + ", ".join(self.modules))
        if self.requirements:
            parts.append("%s names packages that are not installed: %s"
                         % (self.requirements_file or REQUIREMENTS_FILE,
                            ", ".join(self.requirements)))
        if self.packages:
            parts.append("install them with: " + self.pip_command)
        if self.unknown:
            parts.append("box code imports modules that no known package provides (modules "
                         "of the project it does not ship?): " + ", ".join(self.unknown))
        if self.unavailable:
            parts.append("box code imports modules nothing installs under Python 3: "
                         + ", ".join("%s (%s)" % (name, unavailable_why(name))
                                     for name in self.unavailable))
        return "missing Python dependencies: " + "; ".join(parts) if parts else ""


def unavailable_why(module: str) -> str:
    """Why nothing installs the top-level ``module`` under Python 3."""
    if module in NAOQI_SDK_MODULES:
        return "NAOqi's SDK, which the engine does not give"
    return unavailable_reason(module) or "nothing provides it"


def imported_modules(source: str) -> Set[str]:
    """Top-level modules ``source`` imports for sure (not inside a ``try`` that catches
    ``ImportError``; relative imports left out); read with :mod:`ast`, or line by line when
    it does not parse (a Python 2 script not ported)."""
    return {name.partition(".")[0] for name in imported_names(source)}


def imported_names(source: str) -> Set[str]:
    """The dotted names :func:`imported_modules` comes from (``from a.b import c``:
    ``a.b.c``, which may be a module or a name of ``a.b``)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return _imported_by_lines(source)
    visitor = _Imports()
    visitor.visit(tree)
    return visitor.names


class _Imports(ast.NodeVisitor):
    def __init__(self) -> None:
        self.names: Set[str] = set()
        self._optional = 0

    def visit_Try(self, node: ast.Try) -> None:  # noqa: N802
        optional = any(_catches_import_error(handler) for handler in node.handlers)
        self._optional += optional
        for statement in node.body:
            self.visit(statement)
        self._optional -= optional
        for part in node.handlers + node.orelse + node.finalbody:
            self.visit(part)

    visit_TryStar = visit_Try  # noqa: N815

    def visit_Import(self, node: ast.Import) -> None:  # noqa: N802
        if not self._optional:
            self.names.update(alias.name for alias in node.names)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:  # noqa: N802
        if not self._optional and not node.level and node.module:
            self.names.update("%s.%s" % (node.module, alias.name) if alias.name != "*"
                              else node.module for alias in node.names)

    def visit_Call(self, node: ast.Call) -> None:  # noqa: N802
        function = node.func
        name = function.id if isinstance(function, ast.Name) else (
            function.attr if isinstance(function, ast.Attribute) else "")
        if (name in ("__import__", "import_module") and not self._optional and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str) and node.args[0].value
                and not node.args[0].value.startswith(".")):
            self.names.add(node.args[0].value)
        self.generic_visit(node)


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(kind, ast.Name) and kind.id in _OPTIONAL_ERRORS for kind in types)


def _imported_by_lines(source: str) -> Set[str]:
    names: Set[str] = set()
    for match in _IMPORT_LINE.finditer(source):
        if match.group(1):
            for item in match.group(1).split(","):
                words = item.split()
                if words and words[0].partition(".")[0].isidentifier():
                    names.add(words[0])
        else:  # from m import a, b: m.a and m.b, as the parsed imports give them
            imported = [item.split()[0] for item in match.group(3).split(",") if item.split()]
            if imported:
                names.update("%s.%s" % (match.group(2), name) for name in imported
                             if name.isidentifier())
            else:
                names.add(match.group(2))
    return names


def project_module_files(folder: str) -> Dict[str, List[str]]:
    """Top-level module name -> its source files, for the Python modules and packages found
    anywhere in the project ``folder`` (``name.py``, a ``name/`` folder holding Python
    files, compiled extensions ``name*.so``/``.pyd``: no files listed for those)."""
    found: Dict[str, List[str]] = {}
    for current, names in _project_listings(folder):
        sources = [name for name in names if name.endswith(".py")]
        for name in sorted(names):
            stem, extension = os.path.splitext(name)
            if extension == ".py" and stem.isidentifier():
                found.setdefault(stem, []).append(os.path.join(current, name))
            elif extension in (".so", ".pyd") and stem.partition(".")[0].isidentifier():
                found.setdefault(stem.partition(".")[0], [])
        if current != folder and sources and os.path.basename(current).isidentifier():
            # a package (or namespace package) folder: importable by its folder's name
            package = os.path.basename(current)
            found.setdefault(package, []).extend(os.path.join(current, name)
                                                 for name in sorted(sources))
    return found


def _project_listings(folder: str) -> Iterator[Tuple[str, List[str]]]:
    """Each folder of the project ``folder`` (top-down, subfolders in name order, links to
    folders not followed, folders that cannot be read and :data:`_SKIPPED_FOLDERS` left
    out) with the names of its files, until :data:`MAX_PROJECT_FILES` files and folders
    are seen: listing stops there, the folder where it stops is not given.  A behavior of
    tens of thousands of boxes is that many files in one folder, not listed to its end."""
    seen = 0
    pending = [folder]
    while pending:
        current = pending.pop()
        folders: List[str] = []
        names: List[str] = []
        try:
            with os.scandir(current) as entries:
                for entry in entries:
                    name = entry.name
                    try:
                        is_folder = entry.is_dir()
                    except OSError:
                        is_folder = False
                    if not is_folder:
                        names.append(name)
                    elif name in _SKIPPED_FOLDERS or name.startswith("."):
                        continue
                    else:
                        folders.append(name)
                    seen += 1
                    if seen > MAX_PROJECT_FILES:
                        return
        except OSError:
            continue
        yield current, names
        pending.extend(path for path in (os.path.join(current, name)
                                         for name in sorted(folders, reverse=True))
                       if not os.path.islink(path))


def read_requirements(path: str) -> List[str]:
    """The package names a ``requirements.txt`` lists (options, URLs, comments and version
    specifiers left out; each once, as pip compares names)."""
    names: List[str] = []
    try:
        with open(path, encoding="utf-8", errors="replace") as stream:
            lines = stream.read().splitlines()
    except OSError:
        return names
    for line in lines:
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith(("#", "-")) or "://" in line:
            continue
        match = _REQUIREMENT_NAME.match(line)
        if match and _normalized(match.group()) not in map(_normalized, names):
            names.append(match.group())
    return names


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "", name).lower()


def is_installed(module: str) -> bool:
    """Whether the top-level ``module`` can be imported here (without importing it)."""
    if module in sys.modules:
        return True
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def has_distribution(package: str) -> bool:
    """Whether the pip package ``package`` is installed."""
    try:
        importlib.metadata.distribution(package)
    except importlib.metadata.PackageNotFoundError:
        return False
    except Exception:  # a broken installation's metadata: not ours to judge
        return True
    return True


def _standard_modules() -> FrozenSet[str]:
    return frozenset(getattr(sys, "stdlib_module_names", ())) | frozenset(
        sys.builtin_module_names) | {"__future__", "__main__"}


#: modules the engine gives every box besides the standard library's: Python 2's renamed
#: and rebuilt modules (``thread`` among them, bound to the behavior)
ENGINE_MODULES = frozenset(PY2_MODULES) | REBUILT_MODULES


def missing_dependencies(scripts: Iterable[str], *, provided: Iterable[str] = (),
                         project_folder: Optional[str] = None,
                         installed: Callable[[str], bool] = is_installed,
                         distribution_installed: Callable[[str], bool] = has_distribution
                         ) -> MissingDependencies:
    """What the box code ``scripts`` imports that is missing here (module doc).

    ``provided``: modules the behavior's box environment gives (``naoqi``, ``almath``...);
    ``project_folder``: the project's root (its modules are shipped, its
    ``requirements.txt`` read); ``installed(module)`` and ``distribution_installed(pip
    name)`` say what this machine has.
    """
    dotted: Set[str] = set()
    for script in set(scripts):  # behaviors repeat the same library boxes: read each once
        dotted |= imported_names(script)
    shipped: Dict[str, List[str]] = {}
    requirements: List[str] = []
    requirements_file = None
    if project_folder is not None and os.path.isdir(project_folder):
        shipped = project_module_files(project_folder)
        dotted |= _imports_of_shipped(dotted, shipped)
        candidate = os.path.join(project_folder, REQUIREMENTS_FILE)
        if os.path.isfile(candidate):
            requirements_file = candidate
            requirements = read_requirements(candidate)
    dotted = {_python3_name(name) for name in dotted}
    imported = {name.partition(".")[0] for name in dotted}
    known = _standard_modules() | ENGINE_MODULES | set(provided)
    missing = sorted((name for name in imported
                      if name not in known and name not in shipped and not installed(name)),
                     key=str.lower)
    unavailable = [name for name in missing
                   if name in NAOQI_SDK_MODULES or unavailable_reason(name) is not None]
    absent_requirements = [name for name in requirements if not distribution_installed(name)]
    packages, modules, unknown = list(absent_requirements), [], []
    for module in (name for name in missing if name not in unavailable):
        provided_by = _distributions(module, dotted)
        if any(_covers(requirement, module, provided_by) for requirement in requirements):
            modules.append(module)
        elif provided_by:
            modules.append(module)
            packages.extend(dict.fromkeys(names[0] for names in provided_by.values()))
        else:
            unknown.append(module)
    return MissingDependencies(tuple(modules),
                               tuple(sorted(dict.fromkeys(packages), key=str.lower)),
                               tuple(absent_requirements), tuple(unavailable),
                               requirements_file, tuple(unknown))


def _python3_name(dotted: str) -> str:
    """``dotted`` with a Python 2 module name the engine renames as Python 3 names it
    (``Image.open`` -> ``PIL.Image.open``, ``urllib2.urlopen`` -> ``urllib.request...``)."""
    parts = dotted.split(".")
    for depth in range(len(parts), 0, -1):
        prefix = ".".join(parts[:depth])
        if prefix in PY2_MODULES:
            return ".".join([PY2_MODULES[prefix]] + parts[depth:])
    return dotted


def _distributions(module: str, dotted: Set[str]) -> Dict[str, Tuple[str, ...]]:
    """The imports of the top-level ``module`` among the ``dotted`` names -> the
    distributions providing each (those no known one provides left out)."""
    found = {name: distributions(module, name) for name in sorted(dotted)
             if name == module or name.startswith(module + ".")}
    return {name: names for name, names in found.items() if names}


def _covers(requirement: str, module: str, provided_by: Dict[str, Tuple[str, ...]]) -> bool:
    """Whether the pip package ``requirement`` is taken to provide ``module``: one of the
    distributions providing it, or a name holding the module's (``python-xlib`` for
    ``Xlib``)."""
    wanted, name = _normalized(module), _normalized(requirement)
    return (any(_normalized(candidate) == name for names in provided_by.values()
                for candidate in names)
            or (len(wanted) >= 3 and wanted in name))


def _imports_of_shipped(imported: Set[str], shipped: Dict[str, List[str]]) -> Set[str]:
    """The names imported by the project's modules that box code imports (``imported``,
    dotted names), and by those they import..."""
    found: Set[str] = set()
    pending = list({name.partition(".")[0] for name in imported} & set(shipped))
    visited: Set[str] = set(pending)
    read = 0
    while pending and read < MAX_PROJECT_MODULES:
        for path in shipped[pending.pop()]:
            if read >= MAX_PROJECT_MODULES:
                break
            read += 1
            try:
                if os.path.getsize(path) > MAX_MODULE_BYTES:
                    continue
                with open(path, "rb") as stream:
                    source = importlib.util.decode_source(stream.read())
            except (OSError, SyntaxError, UnicodeDecodeError, LookupError):
                continue
            for name in imported_names(source):
                found.add(name)
                top = name.partition(".")[0]
                if top in shipped and top not in visited:
                    visited.add(top)
                    pending.append(top)
    return found
