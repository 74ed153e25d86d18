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
from typing import Iterable, Optional, Set

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


def _listed_files(folder: Path) -> Optional[Set[str]]:
    """The names :data:`WRITTEN_LIST` of ``folder`` lists; None without a readable one."""
    try:
        descriptor = os.open(folder / WRITTEN_LIST, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                             | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    with open(descriptor, "rb") as stream:
        if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
            return None
        text = stream.read(_MAX_LIST_BYTES + 1)
    import json  # only a folder being replaced is read
    try:
        content = json.loads(text.decode("utf-8")) if len(text) <= _MAX_LIST_BYTES else None
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    files = content.get("files") if isinstance(content, dict) else None
    if not isinstance(files, list) or not all(isinstance(name, str) for name in files):
        return None
    return set(files)


def _is_compiled_folder(path: str) -> bool:
    """True for a ``__pycache__`` folder holding only compiled modules (regular files)."""
    try:
        entries = list(os.scandir(path))
    except OSError:
        return False
    return all(entry.name.endswith(".pyc") and entry.is_file(follow_symlinks=False)
               for entry in entries)


def not_written_by_converter(folder: Path) -> Optional[str]:
    """Why ``folder`` may not be replaced by a conversion (``"it holds notes.txt, which
    xar_convert did not write"``), or None when it is a folder the converter wrote
    holding nothing else.  Symbolic links are never followed."""
    if os.path.islink(folder) or not os.path.isdir(folder):
        return "it is not a folder xar_convert wrote"
    listed = _listed_files(folder)
    if listed is None:
        return "xar_convert did not write it (no %s in it)" % WRITTEN_LIST
    folders = {prefix for name in listed if "/" in name
               for prefix in _prefixes(name.rsplit("/", 1)[0])}
    listed.add(WRITTEN_LIST)
    pending = [""]
    while pending:
        relative = pending.pop()
        try:
            entries = sorted(os.scandir(os.path.join(folder, relative)), key=lambda e: e.name)
        except OSError as error:
            return "%s cannot be read: %s" % (relative or "it", error.strerror or error)
        for entry in entries:
            name = relative + entry.name
            if entry.is_dir(follow_symlinks=False):
                if name in folders:
                    pending.append(name + "/")
                    continue
                if entry.name == _COMPILED_FOLDER and _is_compiled_folder(entry.path):
                    continue
            elif name in listed:
                continue
            shown = name + "/" if entry.is_dir(follow_symlinks=False) else name
            return "it holds %s, which xar_convert did not write" % shown
    return None


def _prefixes(folder: str) -> Iterable[str]:
    """``a``, ``a/b``, ``a/b/c`` for ``a/b/c``."""
    parts = folder.split("/")
    return ("/".join(parts[:count]) for count in range(1, len(parts) + 1))
