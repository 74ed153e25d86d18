"""Which folders the converter wrote: each one lists, inside itself, the files written.

Every folder :func:`~naoqi_qicore.converter.writer.install_files` writes holds
:data:`WRITTEN_LIST`, the names of its files.  Replacing an existing folder
(``xar_convert --force``, the convert node's ``force``) is allowed only when that list is
there and the folder holds nothing else (files the converter wrote and the user edited
since count as its own, ``__pycache__`` folders of compiled Python too): a conversion
never removes a folder, or a file in one, that it did not write.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Iterable, List, Optional, Set, Tuple, Union

from naoqi_qicore.file_root import FileRoot, RootedPath

#: the list of the files of a folder the converter wrote, kept in that folder
WRITTEN_LIST = ".written_by_xar_convert.json"
#: folders Python fills with compiled modules when a behavior's code is imported
_COMPILED_FOLDER = "__pycache__"
#: the largest list read (a converted project holds at most 20,000 files)
_MAX_LIST_BYTES = 16 * 1024 * 1024


def written_list(names: Iterable[str]) -> str:
    """The text of :data:`WRITTEN_LIST` for a folder holding the files ``names``
    (relative, ``/``-separated)."""
    listed = ",\n".join(_json_string(name) for name in sorted(names))  # one a line
    return '{"format": "naoqi_qicore/1", "files": [\n%s\n]}\n' % listed


def _json_string(text: str) -> str:
    """``text`` as a JSON string, as ``json.dumps`` writes it; a converted file's name, plain
    printable ASCII, needs no escape (and json is not imported for it)."""
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return '"%s"' % text
    import json  # names of copied project files may need escapes
    return json.dumps(text)


def _listed_files(folder: FileRoot) -> Optional[Set[str]]:
    """The names :data:`WRITTEN_LIST` of ``folder`` lists; None without a readable one."""
    try:
        with folder.open_read(WRITTEN_LIST) as stream:
            text = stream.read(_MAX_LIST_BYTES + 1)
    except OSError:
        return None
    import json  # only a folder being replaced is read
    try:
        content = json.loads(text.decode("utf-8")) if len(text) <= _MAX_LIST_BYTES else None
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    files = content.get("files") if isinstance(content, dict) else None
    if not isinstance(files, list) or not all(isinstance(name, str) for name in files):
        return None
    return set(files)


def _entries(folder: FileRoot, relative: str) -> List[Tuple[str, bool, bool]]:
    """``(name, is a folder, is a regular file)`` of each entry of the folder ``relative``
    of ``folder``, sorted by name; links are neither."""
    with folder.folder(relative) as sub_folder, os.scandir(sub_folder.fileno()) as scan:
        return sorted((entry.name, entry.is_dir(follow_symlinks=False),
                       entry.is_file(follow_symlinks=False)) for entry in scan)


def _is_compiled_folder(folder: FileRoot, relative: str) -> bool:
    """True for a ``__pycache__`` folder holding only compiled modules (regular files)."""
    try:
        entries = _entries(folder, relative)
    except OSError:
        return False
    return all(name.endswith(".pyc") and is_file for name, _, is_file in entries)


def not_written_by_converter(folder: Union[str, Path, RootedPath]) -> Optional[str]:
    """Why ``folder`` (a path of this machine, or a place below a root) may not be replaced
    by a conversion (``"it holds notes.txt, which xar_convert did not write"``), or None
    when it is a folder the converter wrote holding nothing else.  Symbolic links are never
    followed: the folder is read from handles."""
    if isinstance(folder, RootedPath):
        place = folder
    else:
        path = Path(os.path.abspath(folder))
        try:
            place = RootedPath(FileRoot(path.parent), path.name)
        except OSError:
            return "it is not a folder xar_convert wrote"
    try:
        info = place.stat(follow=False)
        if info is None or not stat.S_ISDIR(info.st_mode):
            return "it is not a folder xar_convert wrote"
        with place.folder() as root:
            return _unlisted_entry(root)
    except OSError as error:
        return "it cannot be read: %s" % (error.strerror or error)


def _unlisted_entry(root: FileRoot) -> Optional[str]:
    """What the folder ``root`` holds that its :data:`WRITTEN_LIST` does not list (see
    :func:`not_written_by_converter`)."""
    listed = _listed_files(root)
    if listed is None:
        return "xar_convert did not write it (no %s in it)" % WRITTEN_LIST
    folders = {prefix for name in listed if "/" in name
               for prefix in _prefixes(name.rsplit("/", 1)[0])}
    listed.add(WRITTEN_LIST)
    pending = [""]
    while pending:
        relative = pending.pop()
        try:
            entries = _entries(root, relative)
        except OSError as error:
            return "%s cannot be read: %s" % (relative or "it", error.strerror or error)
        for entry, is_folder, _ in entries:
            name = relative + entry
            if is_folder:
                if name in folders:
                    pending.append(name + "/")
                    continue
                if entry == _COMPILED_FOLDER and _is_compiled_folder(root, name):
                    continue
            elif name in listed:
                continue
            return "it holds %s, which xar_convert did not write" % (
                name + "/" if is_folder else name)
    return None


def _prefixes(folder: str) -> Iterable[str]:
    """``a``, ``a/b``, ``a/b/c`` for ``a/b/c``."""
    parts = folder.split("/")
    return ("/".join(parts[:count]) for count in range(1, len(parts) + 1))
