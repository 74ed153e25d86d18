"""Choregraphe projects: the folder around behaviors, with the files their boxes reach.

A project is the folder of a ``.pml`` (or of a package ``manifest.xml``).  Its behaviors
open files by paths relative to their own folder or to the project's: dialog topics,
sounds, images, tablet pages, bundled Python modules, ``choice_sentences.xml``...  A
converted project is therefore the project again, with each behavior's ``.xar`` replaced
by its converted folder at the same place, every other file copied as it is (never
executed), and :data:`PROJECT_INDEX` listing the converted behaviors in the project's
order.

Copying follows the converter's safety rules: regular files only (symbolic links and
special files are left out with a warning, so nothing outside the project is read), no
file over :data:`MAX_DATA_FILE_BYTES`, at most :data:`MAX_PROJECT_BYTES` and
:data:`MAX_PROJECT_FILES` in all, and version-control folders and the lists of files of
folders the converter wrote (:data:`~naoqi_qicore.converter.ownership.WRITTEN_LIST`) left
out.  (The ``.pml``'s
``<IgnoredPaths>`` are not honoured: Choregraphe lists there paths its project view hides,
often the very topics and sounds the behaviors open.)
"""
from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO, Dict, List, Optional, Sequence, Tuple

from lxml import etree

from naoqi_qicore.converter.ownership import WRITTEN_LIST
from naoqi_qicore.converter.writer import FORMAT
from naoqi_qicore.xar.elements import safe_xml_parser
from naoqi_qicore.xar.errors import XarError
from naoqi_qicore.xar.model import Record

#: the file of a converted project that lists its behaviors
PROJECT_INDEX = "converted_project.xml"
#: how far above a behavior its project's ``.pml`` or ``manifest.xml`` may be
MAX_PROJECT_DEPTH = 3
MAX_DATA_FILE_BYTES = 256 * 1024 * 1024
MAX_PROJECT_BYTES = 1024 * 1024 * 1024
MAX_PROJECT_FILES = 20_000
#: what a project folder holds that no behavior reads
_SKIPPED_FOLDERS = {".git", ".hg", ".svn", "__pycache__", ".metadata"}


class ProjectFiles(Record):
    """The files of a project to copy, and what was left out and why."""

    __slots__ = ("files", "warnings")

    def __init__(self) -> None:
        #: relative name (``/``-separated) -> file in the project
        self.files: Dict[str, Path] = {}
        self.warnings: List[str] = []


def is_project_folder(folder: Path) -> bool:
    """True when ``folder`` holds a ``.pml`` or a ``manifest.xml``."""
    return folder.is_dir() and ((folder / "manifest.xml").is_file()
                                or any(folder.glob("*.pml")))


def project_root(behavior_file: Path) -> Optional[Path]:
    """The project around a behavior file: the nearest folder at most
    :data:`MAX_PROJECT_DEPTH` levels above it that holds a ``.pml`` or ``manifest.xml``."""
    folder = behavior_file.resolve().parent
    for _ in range(MAX_PROJECT_DEPTH + 1):
        if is_project_folder(folder):
            return folder
        if folder.parent == folder:
            return None
        folder = folder.parent
    return None


def project_files(root: Path, converted: Sequence[str] = ()) -> ProjectFiles:
    """Every file of the project at ``root`` to copy next to its converted behaviors.

    ``converted`` are the relative names of the behavior files being converted (they are
    not copied).  Raises XarError when the project is larger than the limits.
    """
    found = ProjectFiles()
    skipped = set(converted)
    total = 0
    for folder, folders, names in os.walk(root, followlinks=False):
        relative_folder = os.path.relpath(folder, root).replace(os.sep, "/")
        prefix = "" if relative_folder == "." else relative_folder + "/"
        folders[:] = sorted(name for name in folders
                            if name not in _SKIPPED_FOLDERS and prefix + name not in skipped
                            and not _is_link(found, prefix + name, os.path.join(folder, name)))
        for name in sorted(names):
            relative = prefix + name
            path = Path(folder, name)
            if relative in skipped or name == WRITTEN_LIST:  # a converted folder's own
                continue
            try:
                info = os.lstat(path)
            except FileNotFoundError:  # gone since the folder was listed: not in it any more
                continue
            if stat.S_ISLNK(info.st_mode):
                found.warnings.append("%s: symbolic link left out of the converted project"
                                      % path)
                continue
            if not stat.S_ISREG(info.st_mode):
                found.warnings.append("%s: not a regular file, left out" % path)
                continue
            if info.st_size > MAX_DATA_FILE_BYTES:
                found.warnings.append("%s: larger than %d MB, left out"
                                      % (path, MAX_DATA_FILE_BYTES >> 20))
                continue
            total += info.st_size
            if total > MAX_PROJECT_BYTES or len(found.files) >= MAX_PROJECT_FILES:
                raise XarError("the project holds more than %d MB or %d files"
                               % (MAX_PROJECT_BYTES >> 20, MAX_PROJECT_FILES), str(root))
            found.files[relative] = path
    return found


def tree_paths(folder: str) -> List[str]:
    """The paths of everything below ``folder`` (its links not followed), sorted; what is
    gone while it is read (a folder others write in) is left out, as is a folder that
    cannot be read."""
    paths: List[str] = []
    for current, folders, names in os.walk(folder):
        paths += (os.path.join(current, name) for name in folders + names)
    return sorted(paths)


def _is_link(found: ProjectFiles, relative: str, path: str) -> bool:
    if os.path.islink(path):
        found.warnings.append("%s: symbolic link left out of the converted project" % path)
        return True
    return False


def project_index(source: str, behaviors: List[Tuple[str, str]]) -> str:
    """The text of :data:`PROJECT_INDEX`: ``(name, converted folder)`` of each behavior."""
    root = etree.Element("ConvertedProject", format=FORMAT, source=source)
    for name, folder in behaviors:
        etree.SubElement(root, "Behavior", name=name, path=folder)
    return etree.tostring(root, encoding="unicode", pretty_print=True)


def read_project_index(folder: Path) -> List[Tuple[str, Path]]:
    """``(name, folder)`` of each behavior of a converted project, in the project's order;
    empty when ``folder`` is not a converted project."""
    index = folder / PROJECT_INDEX
    if not index.is_file():
        return []
    with open(index, "rb") as stream:
        return [(name, folder / path) for name, path in project_index_entries(stream)]


def project_index_entries(stream: BinaryIO) -> List[Tuple[str, str]]:
    """``(name, folder relative to the project)`` of each behavior the
    :data:`PROJECT_INDEX` read from ``stream`` lists; empty when it is none."""
    try:
        root = etree.parse(stream, safe_xml_parser()).getroot()
    except etree.XMLSyntaxError:
        return []
    if root.tag != "ConvertedProject":
        return []
    behaviors = []
    for entry in root.iter("Behavior"):
        path = entry.get("path", "")
        if path == "." or (path and ".." not in path.split("/") and not path.startswith("/")):
            behaviors.append((entry.get("name", path), path))
    return behaviors
