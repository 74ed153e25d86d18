"""Python 2 source as Python 3 compiles it: ported once, the port cached on disk.

Project modules and ``execfile`` in box code read their source through
:func:`python3_source`.
"""
from __future__ import annotations

import hashlib
import logging
import os
import re
import sys
import tempfile
from pathlib import Path

from naoqi_qicore.converter import pyport

_LOG = logging.getLogger(__name__)
_ERROR_LINE = re.compile(r"\(line (\d+)\)")


def port_cache_dir() -> Path:
    """Where ported modules are kept: ``$XDG_CACHE_HOME/naoqi_qicore/py2``
    (``~/.cache/naoqi_qicore/py2``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "naoqi_qicore" / "py2"


def _cache_key(source: str) -> str:
    salt = "%s\0%d.%d\0" % (pyport.PORT_VERSION, sys.version_info[0], sys.version_info[1])
    return hashlib.sha256((salt + source).encode("utf-8", "surrogatepass")).hexdigest()


def python3_source(source: str, filename: str, python2: bool = False) -> str:
    """``source`` (of the file ``filename``) as Python 3 compiles it: itself when it
    compiles, else its port (cached on disk).  ``python2``: the source is known to be
    Python 2 code, whose calls of Python 2's dictionary methods (``d.has_key(k)``,
    ``d.iteritems()``) are ported even when it compiles.  Raises ``SyntaxError`` with the
    file and line when it cannot be ported."""
    if pyport.compile_error(source) is None and not (
            python2 and pyport.py2_dict_method(source) is not None):
        return source
    cached = port_cache_dir() / (_cache_key(source) + ".py")
    try:
        text = cached.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        pass
    else:
        if pyport.compile_error(text) is None:
            return text
    result = pyport.port_script(source)
    if result.error is not None:
        found = _ERROR_LINE.search(result.error)
        line = int(found.group(1)) if found else None
        lines = source.splitlines()
        text_line = lines[line - 1] if line and line <= len(lines) else None
        raise SyntaxError("%s does not compile under Python 3 and cannot be ported: %s"
                          % (filename, result.error), (filename, line, None, text_line))
    _store(cached, result.code)
    return result.code


def _store(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (a cache: failing to write is not an error)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=str(path.parent), prefix=".port-",
                                             suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
                stream.write(text)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError as error:
        _LOG.debug("cannot cache a ported module in %s: %s", path.parent, error)
