"""Files named with another letter case than they have.

A project made on Windows or macOS (whose file systems ignore letter case) may name
``../Museo/Museo.dlg`` when its folder is ``museo``: it worked on its author's machine, and
fails on the robot, whose file system tells letters' case apart, as does this one.  When a
file is missing, :func:`case_twin` finds the one its name meant, and
:func:`missing_file_error` says so to the user.
"""
from __future__ import annotations

import errno
import os
from typing import List, Optional

#: what the errors of :func:`missing_file_error` end with
LETTER_CASE_DIFFERS = "(letter case differs)"


def case_twin(path: str) -> Optional[str]:
    """The path of an existing file or folder whose path differs from ``path`` (absolute)
    only in letter case; None when ``path`` exists or has no such twin."""
    if not os.path.isabs(path) or os.path.lexists(path):
        return None
    parts = [part for part in os.path.normpath(path).split(os.sep) if part]
    found = os.sep
    for part in parts:
        step = os.path.join(found, part)
        if not os.path.lexists(step):
            try:
                names = sorted(os.listdir(found))
            except OSError:  # not a folder, or not readable
                return None
            twins = [name for name in names if name.casefold() == part.casefold()]
            if not twins:
                return None
            step = os.path.join(found, twins[0])
        found = step
    return found


def _with_case_of(path: str, twin: str) -> str:
    """``path`` with the letter case of ``twin`` (the same path spelled otherwise, maybe
    under another folder: their last components are matched)."""
    own: List[str] = path.split("/")
    other = twin.split(os.sep)
    count = min(len(own), len(other))
    tail = [theirs if theirs.casefold() == mine.casefold() else mine
            for mine, theirs in zip(own[-count:], other[-count:])]
    return "/".join(own[:-count] + tail) if count else path


def missing_file_error(named: str, looked_up: str) -> Optional[FileNotFoundError]:
    """The error telling that there is no file ``named`` (as the behavior names it), looked
    up at ``looked_up`` (this machine's path), when a file whose name differs only in
    letter case is there; None when there is none."""
    twin = case_twin(looked_up)
    if twin is None:
        return None
    return FileNotFoundError(
        errno.ENOENT, "No such file or directory: '%s' (looked up at %s); did you mean '%s'? %s"
        % (named, looked_up, _with_case_of(named, twin), LETTER_CASE_DIFFERS))
