"""Where behavior_runner runs a behavior from: a converted folder, converted once per input.

A converted folder (one holding the file-per-object format) is used as it is; a converted
project runs its first behavior.  Any other input the converter reads (.xar, .pml, .crg,
.pkg, or a folder holding a project or a .xar) is converted into
``<cache>/<name>-<digest>/``, where the digest covers the input's bytes and what the
converter writes (its format, the entry point): a changed file, or a folder converted by
a version of the converter that wrote them otherwise, is converted again, an unchanged one
is not.  A ``.xar`` inside a Choregraphe project is
converted with its project around it, so the files its boxes open are there.
"""
import hashlib
import os
from pathlib import Path
from typing import List, Optional, Tuple

from naoqi_qicore.converter.api import convert, convert_in_project
from naoqi_qicore.converter.loader import LoadedBehavior, load_converted
from naoqi_qicore.converter.project import project_root, read_project_index, tree_paths
from naoqi_qicore.converter.writer import FORMAT, MAIN_PY, MANIFEST

#: suffixes of the files the converter reads
BEHAVIOR_SUFFIXES = (".xar", ".pml", ".crg", ".pkg")


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/naoqi_qicore`` (``~/.cache/naoqi_qicore``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "naoqi_qicore" / "behaviors"


def behavior_name(path: str) -> str:
    """Name of a behavior: its file or folder name ("dance" for dance.xar or dance/behavior.xar)."""
    source = Path(path.rstrip("/"))
    if source.stem == "behavior" and source.parent.name:
        return source.parent.name
    return source.stem


def is_converted(folder: Path) -> bool:
    """True when ``folder`` holds a converted behavior (its manifest)."""
    return folder.is_dir() and (folder / MANIFEST).is_file()


def _digest(path: Path, project: Optional[Path] = None) -> str:
    """The digest of a file or folder's bytes; with ``project``, also of the names, sizes
    and modification times of the project's files."""
    sha = hashlib.sha256((FORMAT + MAIN_PY).encode())
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    for file in files:
        sha.update(str(file.relative_to(path.parent if path.is_file() else path)).encode())
        with open(file, "rb") as stream:
            for chunk in iter(lambda: stream.read(1 << 16), b""):
                sha.update(chunk)
    for file in tree_paths(str(project)) if project is not None else []:
        try:
            info = os.lstat(file)
        except FileNotFoundError:  # gone since it was listed: not in the project any more
            continue
        sha.update(("%s %d %d" % (os.path.relpath(file, project), info.st_size,
                                  info.st_mtime_ns)).encode())
    return sha.hexdigest()[:16]


def convert_behavior(source: Path, destination: Path) -> List[str]:
    """Convert ``source`` into the folder ``destination`` (replaced atomically).

    An input holding several behaviors (project, package) gets one sub-folder each; a
    ``.xar`` inside a project is converted with its project.  Returns the conversion
    warnings; raises ``ValueError`` with file, line and element when ``source`` cannot be
    converted.
    """
    if source.suffix.lower() == ".xar" and project_root(source) is not None:
        return convert_in_project(source, destination, force=True).warnings
    return convert(source, destination, force=True).warnings


def converted_folder(folder: Path) -> Path:
    """``folder`` if it is a converted behavior, the first behavior of a converted
    project, else its first converted sub-folder."""
    project = read_project_index(folder)
    for _, behavior in project:
        if is_converted(behavior):
            return behavior
    if is_converted(folder):
        return folder
    for child in sorted(folder.iterdir()) if folder.is_dir() else []:
        if is_converted(child):
            return child
    raise ValueError("%s: no converted behavior in it" % folder)


def load_behavior(path: str, cache_dir: Path) -> Tuple[LoadedBehavior, List[str]]:
    """The behavior at ``path`` (converted into ``cache_dir`` if needed) and the warnings.

    Raises ``ValueError`` with a readable message when the path cannot be loaded.
    """
    source = Path(path).expanduser()
    if not source.exists():
        raise ValueError("%s: no such file or folder" % path)
    source = source.resolve()
    if is_converted(source) or read_project_index(source):
        return load_converted(converted_folder(source)), []
    project = project_root(source) if source.suffix.lower() == ".xar" else None
    target = cache_dir / ("%s-%s" % (behavior_name(str(source)), _digest(source, project)))
    warnings: List[str] = []
    if not target.is_dir():
        warnings = convert_behavior(source, target)
    return load_converted(converted_folder(target)), warnings
