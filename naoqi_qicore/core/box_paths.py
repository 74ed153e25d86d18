"""Box code's own files named by the robot's paths.

On NAOqi, box code ran on the robot: ``open("/home/nao/recordings/x.wav")``,
``os.listdir("/home/nao/.local/share/PackageManager/apps/.lastUploadedChoregrapheBehavior/lib")``
or ``sys.path.append`` of such a folder named the robot's files.  Here box code runs in
another process, maybe on another machine; the box environment may give a
:data:`PathMapper` (the robot layer's: the robot's files under a folder of this machine),
and then box code gets versions of the functions that take paths which map them first:

* the builtins ``open``, ``file`` and ``execfile``;
* ``os`` (``listdir``, ``scandir``, ``walk``, ``stat``, ``lstat``, ``access``, ``mkdir``,
  ``makedirs``, ``remove``, ``unlink``, ``rmdir``, ``removedirs``, ``rename``, ``replace``,
  ``open``, ``chdir``, ``chmod``, ``utime``) and ``os.path`` (``exists``, ``lexists``,
  ``isfile``, ``isdir``, ``islink``, ``getsize``, ``getmtime``, ``getatime``, ``getctime``,
  ``samefile``; ``realpath`` and ``expanduser`` give this machine's path, ``~`` being the
  robot's ``/home/nao``);
* ``io.open``, ``codecs.open``, ``glob.glob``/``iglob`` and ``shutil``'s ``copy``,
  ``copy2``, ``copyfile``, ``copytree``, ``move``, ``rmtree``;
* the folders box code puts on ``sys.path`` (see
  :mod:`naoqi_qicore.core.project_modules`).

A path the mapper does not know stays as it is; a mapped path naming no file, when a file
whose name differs only in letter case is there, fails saying so
(:mod:`naoqi_qicore.core.letter_case`).  Other libraries box code hands a robot path to
(``wave.open``...) get it unmapped.  With a temporary folder of the robot, box
code's ``tempfile`` makes its files and folders there (NAOqi's boxes record into a folder
``tempfile.mkdtemp()`` made and ask the robot to write there: the robot must see it).
"""
from __future__ import annotations

import codecs
import functools
import glob
import io
import os
import shutil
import tempfile
import types
from typing import Any, Callable, Dict, Iterable, Optional

from naoqi_qicore.core.box_stdlib import module_copy
from naoqi_qicore.core.letter_case import missing_file_error
from naoqi_qicore.core.py2 import PY2_BUILTINS

#: maps a path box code gives to the file of this machine (paths it does not know: as is)
PathMapper = Callable[[str], str]
#: the robot's home, what ``~`` is in box code
ROBOT_HOME = "/home/nao"

_OS_FUNCTIONS = ("listdir", "scandir", "walk", "stat", "lstat", "access", "mkdir", "makedirs",
                 "remove", "unlink", "rmdir", "removedirs", "open", "chdir", "chmod", "utime")
_OS_TWO_PATHS = ("rename", "replace")
_PATH_FUNCTIONS = ("exists", "lexists", "isfile", "isdir", "islink", "getsize", "getmtime",
                   "getatime", "getctime", "realpath")
_SHUTIL_FUNCTIONS = ("copy", "copy2", "copyfile", "copytree", "move")
#: ``tempfile``'s functions taking ``dir``, and its position among their arguments
_DIR_POSITION = {"mkdtemp": 2, "mkstemp": 2, "TemporaryDirectory": 2, "NamedTemporaryFile": 6,
                 "TemporaryFile": 6, "SpooledTemporaryFile": 7}


def _mapped_value(mapper: PathMapper, value: Any) -> Any:
    if isinstance(value, str):
        return mapper(value)
    if isinstance(value, os.PathLike):
        path = os.fspath(value)
        return mapper(path) if isinstance(path, str) else value
    return value


def mapping(function: Callable, mapper: PathMapper, positions: Iterable[int] = (0,)) -> Callable:
    """``function`` whose arguments at ``positions`` are paths mapped by ``mapper``."""
    indexes = tuple(positions)

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        mapped = tuple(_mapped_value(mapper, arg) if index in indexes else arg
                       for index, arg in enumerate(args))
        try:
            return function(*mapped, **kwargs)
        except FileNotFoundError as error:
            missing = _named_with_case(error, args, mapped)
            if missing is None:
                raise
            raise missing from None
    return call


def _named_with_case(error: FileNotFoundError, given: tuple,
                     mapped: tuple) -> Optional[FileNotFoundError]:
    """The error of a path box code gave (among ``given``, ``mapped`` as this machine has
    them) that names a file with another letter case (None: not so)."""
    for path, local in zip(given, mapped):
        if isinstance(path, str) and local in (error.filename, error.filename2):
            return missing_file_error(path, local)
    return None


def _expanduser(mapper: PathMapper) -> Callable[[Any], Any]:
    def expanduser(path: Any) -> Any:
        text = os.fspath(path)
        if isinstance(text, str) and (text == "~" or text.startswith("~/")):
            return mapper(ROBOT_HOME + text[1:])
        return os.path.expanduser(path)
    return expanduser


def _path_module(mapper: PathMapper) -> types.ModuleType:
    module = module_copy(os.path)
    for name in _PATH_FUNCTIONS:
        setattr(module, name, mapping(getattr(os.path, name), mapper))
    module.samefile = mapping(os.path.samefile, mapper, (0, 1))  # type: ignore[attr-defined]
    module.expanduser = _expanduser(mapper)  # type: ignore[attr-defined]
    return module


def box_path_modules(mapper: PathMapper) -> Dict[str, types.ModuleType]:
    """Import name -> module, for box code whose paths ``mapper`` maps."""
    path = _path_module(mapper)
    system = module_copy(os)
    for name in _OS_FUNCTIONS:
        setattr(system, name, mapping(getattr(os, name), mapper))
    for name in _OS_TWO_PATHS:
        setattr(system, name, mapping(getattr(os, name), mapper, (0, 1)))
    system.path = path  # type: ignore[attr-defined]
    streams = module_copy(io)
    streams.open = mapping(io.open, mapper)  # type: ignore[attr-defined]
    coding = module_copy(codecs)
    coding.open = mapping(codecs.open, mapper)  # type: ignore[attr-defined]
    patterns = module_copy(glob)
    patterns.glob = mapping(glob.glob, mapper)  # type: ignore[attr-defined]
    patterns.iglob = mapping(glob.iglob, mapper)  # type: ignore[attr-defined]
    files = module_copy(shutil)
    for name in _SHUTIL_FUNCTIONS:
        setattr(files, name, mapping(getattr(shutil, name), mapper, (0, 1)))
    files.rmtree = mapping(shutil.rmtree, mapper)  # type: ignore[attr-defined]
    return {"os": system, "os.path": path, "io": streams, "codecs": coding, "glob": patterns,
            "shutil": files}


def box_tempfile_module(folder: str) -> types.ModuleType:
    """``tempfile`` whose files and folders are made in ``folder`` unless told otherwise."""
    module = module_copy(tempfile)

    def in_folder(function: Callable) -> Callable:
        @functools.wraps(function)
        def call(*args: Any, **kwargs: Any) -> Any:
            if kwargs.get("dir") is None and len(args) < _DIR_POSITION[function.__name__]:
                kwargs["dir"] = folder
            return function(*args, **kwargs)
        return call

    for name in _DIR_POSITION:
        setattr(module, name, in_folder(getattr(tempfile, name)))
    module.gettempdir = lambda: folder  # type: ignore[attr-defined]
    module.gettempdirb = lambda: os.fsencode(folder)  # type: ignore[attr-defined]
    module.tempdir = folder  # type: ignore[attr-defined]
    return module


def box_path_builtins(mapper: Optional[PathMapper]) -> Dict[str, Any]:
    """The builtins of box code that take paths, mapped by ``mapper`` (none: {})."""
    if mapper is None:
        return {}
    return {"open": mapping(open, mapper), "file": mapping(open, mapper),
            "execfile": mapping(PY2_BUILTINS["execfile"], mapper)}


def mapped_search_path(mapper: PathMapper, entries: Iterable[str]) -> list:
    """The folders of ``sys.path``-like ``entries`` as this machine has them."""
    return [mapper(entry) if isinstance(entry, str) else entry for entry in entries]
