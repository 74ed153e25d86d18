"""Converting an input (a ``.xar`` or a container of behaviors) into converted folders."""
from __future__ import annotations

import posixpath
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple, Union

from naoqi_qicore.converter.naming import format_name
from naoqi_qicore.converter.project import (PROJECT_INDEX, project_files, project_index,
                                            project_root)
from naoqi_qicore.converter.writer import (ENTRY_POINT, PROJECT_ENTRY_POINT, ConversionReport,
                                          install_files, render)
from naoqi_qicore.file_root import RootedPath
from naoqi_qicore.xar.elements import collector_paused
from naoqi_qicore.xar.errors import XarError
from naoqi_qicore.xar.model import Behavior, Record
from naoqi_qicore.xar.sources import NamedBehavior, read_behaviors


class ConversionResult(Record):
    """What converting one input wrote."""

    __slots__ = ("source", "output", "behaviors", "models", "notes", "copied")

    def __init__(self, source: Path, output: Path,
                 behaviors: Optional[List[ConversionReport]] = None,
                 models: Optional[List[Behavior]] = None) -> None:
        self.source = source
        self.output = output
        #: one report per behavior of the input
        self.behaviors: List[ConversionReport] = [] if behaviors is None else behaviors
        #: the behaviors read from the input
        self.models: List[Behavior] = [] if models is None else models
        #: what the conversion of a project left out or moved, for the user
        self.notes: List[str] = []
        #: how many files of the project were copied next to the converted behaviors
        self.copied = 0

    @property
    def warnings(self) -> List[str]:
        """Everything worth telling the user, scripts left unported included."""
        notes: List[str] = list(self.notes)
        for report in self.behaviors:
            notes.extend(report.warnings)
            notes.extend("%s: %s.py: script not ported, commented out: %s"
                         % (report.output, name, error)
                         for name, error in report.failed.items())
        return notes


#: where a conversion writes: a path of this machine, or a place below a root (written from
#: the root's handle, see :mod:`naoqi_qicore.file_root`)
Destination = Union[str, Path, RootedPath]


def _output_place(destination: Destination) -> Tuple[Union[Path, RootedPath], Path]:
    """Where to install ``destination``, and its path for reports."""
    if isinstance(destination, RootedPath):
        return destination, destination.path
    return Path(destination), Path(destination)


def convert(source: Union[str, Path], destination: Destination, force: bool = False,
            graph: Optional[str] = None) -> ConversionResult:
    """Convert every behavior of ``source`` into ``destination`` (atomically).

    A project (a ``.pml`` or a folder holding one) becomes the project again: each
    behavior converted at its place, the project's other files copied (see
    :mod:`naoqi_qicore.converter.project`).  Otherwise one behavior is written into
    ``destination`` itself; several (package, box library) each into
    ``destination/<name>``.  ``graph`` (".svg" or ".dot") adds the diagrams of each
    behavior to its folder: ``graph<suffix>``, the root diagram, and ``graph_<object
    name><suffix>`` for every box with a diagram or timeline of its own.  Raises XarError
    for unreadable input and OutputError when ``destination`` cannot be written.
    """
    source = Path(source)
    with collector_paused():
        missing: List[str] = []
        named = read_behaviors(source, missing)
        if named and all(entry.path is not None for entry in named):
            root = source if source.is_dir() else source.parent
            result = _convert_project(source, root, named, destination, force, graph)
            result.notes[:0] = ["%s: listed by the project but missing, not converted"
                                % (root / path) for path in missing]
            return result
        return _convert(source, named, destination, force, graph)


def convert_in_project(behavior_file: Union[str, Path], destination: Destination,
                       force: bool = False) -> ConversionResult:
    """Convert one behavior file (``.xar``) with the project around it, if any
    (:func:`~naoqi_qicore.converter.project.project_root`): the project's files are copied
    around the converted behavior as :func:`convert` does for a whole project."""
    behavior_file = Path(behavior_file).resolve()
    root = project_root(behavior_file)
    with collector_paused():
        named = read_behaviors(behavior_file)
        if root is None or len(named) != 1:
            return _convert(behavior_file, named, destination, force, None)
        named[0].path = behavior_file.relative_to(root).as_posix()
        return _convert_project(behavior_file, root, named, destination, force, None)


def _render(entry: NamedBehavior, graph: Optional[str]) -> Tuple[Dict[str, str],
                                                                   ConversionReport]:
    try:
        rendered, report = render(entry.behavior)
    except XarError as error:
        raise error.located(entry.behavior.source) from None
    if graph is not None:
        from naoqi_qicore.converter.graph import (  # Graphviz: only when asked
            FOLDER_GRAPH_STEM, graph_files)
        rendered.update((name, content.decode("utf-8")) for name, content
                        in graph_files(entry.behavior, FOLDER_GRAPH_STEM, graph).items())
    return rendered, report


def _convert(source: Path, named: List[NamedBehavior], destination: Destination, force: bool,
             graph: Optional[str]) -> ConversionResult:
    files: Dict[str, str] = {}
    place, shown = _output_place(destination)
    result = ConversionResult(source, shown)
    used: Set[str] = set()
    for entry in named:
        rendered, report = _render(entry, graph)
        if len(named) == 1:
            files = rendered
            report.output = shown
        else:
            folder = base = format_name(entry.name)
            while folder.casefold() in used:
                folder = "%s_%d" % (base, len(used))
            used.add(folder.casefold())
            files.update(("%s/%s" % (folder, name), text) for name, text in rendered.items())
            report.output = shown / folder
        result.behaviors.append(report)
        result.models.append(entry.behavior)
    install_files(files, place, force)
    return result


def _convert_project(source: Path, root: Path, named: List[NamedBehavior],
                     destination: Destination, force: bool,
                     graph: Optional[str]) -> ConversionResult:
    """Each behavior converted in the folder of its ``.xar`` inside the project, the
    project's other files copied, and the index of the converted behaviors."""
    files: Dict[str, str] = {}
    place, shown = _output_place(destination)
    result = ConversionResult(source, shown)
    folders: Set[str] = set()
    index: List[Tuple[str, str]] = []
    for entry in named:
        folder = posixpath.dirname(entry.path or "") or "."
        if folder in folders:  # two behaviors in one folder: the later one a level down
            folder = posixpath.normpath(posixpath.join(
                folder, format_name(posixpath.splitext(posixpath.basename(entry.path))[0])))
            result.notes.append("%s: converted into %s/, its folder holds another behavior"
                                % (entry.path, folder))
        folders.add(folder)
        rendered, report = _render(entry, graph)
        prefix = "" if folder == "." else folder + "/"
        files.update((prefix + name, text) for name, text in rendered.items())
        report.output = shown / folder
        result.behaviors.append(report)
        result.models.append(entry.behavior)
        index.append((entry.name, folder))
    files[PROJECT_INDEX] = project_index(source.name, index)
    found = project_files(root, [entry.path for entry in named if entry.path])
    result.notes.extend(found.warnings)
    for folder in folders:  # a main.py of the project's own (an application's service) stays
        entry = ENTRY_POINT if folder == "." else folder + "/" + ENTRY_POINT
        if entry in found.files:
            renamed = posixpath.join(posixpath.dirname(entry), PROJECT_ENTRY_POINT)
            files[renamed] = files.pop(entry)
            result.notes.append("%s: the project's own, kept; the converted behavior's entry "
                                "point is %s" % (found.files[entry], renamed))
    copies = {}
    for name, path in found.files.items():
        if name in files:
            result.notes.append("%s: not copied, the converted behavior has a file of that "
                                "name" % path)
        else:
            copies[name] = path
    install_files(files, place, force, copies)
    result.copied = len(copies)
    return result
