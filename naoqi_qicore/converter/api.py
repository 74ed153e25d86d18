"""Converting an input (a ``.xar`` or a container of behaviors) into converted folders."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Set, Union

from naoqi_qicore.converter.naming import format_name
from naoqi_qicore.converter.writer import ConversionReport, install_files, render
from naoqi_qicore.xar.errors import XarError
from naoqi_qicore.xar.model import Behavior
from naoqi_qicore.xar.parser import collector_paused
from naoqi_qicore.xar.sources import read_behaviors


@dataclass
class ConversionResult:
    """What converting one input wrote."""

    source: Path
    output: Path
    #: one report per behavior of the input
    behaviors: List[ConversionReport] = field(default_factory=list)
    #: the behaviors read from the input
    models: List[Behavior] = field(default_factory=list)

    @property
    def warnings(self) -> List[str]:
        """Everything worth telling the user, scripts left unported included."""
        notes: List[str] = []
        for report in self.behaviors:
            notes.extend(report.warnings)
            notes.extend("%s: %s.py: script not ported, commented out: %s"
                         % (report.output, name, error)
                         for name, error in report.failed.items())
        return notes


def convert(source: Union[str, Path], destination: Union[str, Path], force: bool = False,
            graph: Optional[str] = None) -> ConversionResult:
    """Convert every behavior of ``source`` into ``destination`` (atomically).

    One behavior is written into ``destination`` itself; several (a project, package or
    box library) each into ``destination/<name>``.  ``graph`` (".svg" or ".dot") adds
    ``graph<suffix>`` to each converted folder.  Raises XarError for unreadable input
    and OutputError when ``destination`` cannot be written.
    """
    with collector_paused():
        return _convert(Path(source), Path(destination), force, graph)


def _convert(source: Path, destination: Path, force: bool,
             graph: Optional[str]) -> ConversionResult:
    named = read_behaviors(source)
    files: Dict[str, str] = {}
    result = ConversionResult(source, destination)
    used: Set[str] = set()
    for entry in named:
        try:
            rendered, report = render(entry.behavior)
        except XarError as error:
            raise error.located(entry.behavior.source) from None
        if graph is not None:
            from naoqi_qicore.converter.graph import render_graph  # matplotlib: only when asked
            rendered["graph" + graph] = render_graph(entry.behavior, graph)
        if len(named) == 1:
            files = rendered
            report.output = destination
        else:
            folder = base = format_name(entry.name)
            while folder.casefold() in used:
                folder = "%s_%d" % (base, len(used))
            used.add(folder.casefold())
            files.update(("%s/%s" % (folder, name), text) for name, text in rendered.items())
            report.output = destination / folder
        result.behaviors.append(report)
        result.models.append(entry.behavior)
    install_files(files, destination, force)
    return result
