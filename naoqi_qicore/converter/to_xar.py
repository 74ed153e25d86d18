"""Back to Choregraphe: a converted behavior or project written as ``.xar`` again.

``xar_convert --to-xar CONVERTED OUT`` reads a folder written by the converter
(:func:`~naoqi_qicore.converter.loader.load_converted`) and writes the model back with
:func:`~naoqi_qicore.xar.writer.behavior_to_xar`.  A box's script is its ORIGINAL
Python 2 text while its ``.py`` is still what converting that text gives (the port, the
script itself, or the commented-out form of a script that could not be ported), and the
``.py`` text once it was edited.  So ``.xar`` -> convert -> ``--to-xar`` -> convert gives
the same files again (but for ``behavior.xml``'s ``source``).

A converted behavior gives the file ``OUT``; a converted project (a folder holding
``converted_project.xml``) gives the folder ``OUT``: each behavior's ``.xar`` back where
it stood in the project, the project's other files copied with the converter's rules
(regular files only, symbolic links left out with a warning, size limits).

Nothing is read through a symbolic link leaving the converted folder, nothing is written
outside ``OUT``, and ``OUT`` appears whole or not at all: it is written beside itself
under a temporary name, then renamed, the temporary file or folder being removed on any
error or interruption.
"""
from __future__ import annotations

import argparse
import json
import os
import posixpath
import signal
import stat
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Set, Union

from lxml import etree

from naoqi_qicore.converter.graph import FOLDER_GRAPH_STEM, ROOT_PAGE, graph_file_name
from naoqi_qicore.converter.interrupts import Interrupted, stop_signals_raise
from naoqi_qicore.converter.loader import LoadedBehavior, load_converted, read_code_file
from naoqi_qicore.converter.naming import format_name
from naoqi_qicore.converter.project import PROJECT_INDEX, project_files
from naoqi_qicore.converter.pyport import port_script
from naoqi_qicore.converter.states import compute_states
from naoqi_qicore.converter.writer import (BOX_INDEX, ENTRY_POINT, FORMAT, MANIFEST,
                                           PROJECT_ENTRY_POINT, READABLE_FORMATS, OutputError,
                                           OutputExistsError, install_files, is_safe_relative,
                                           unported_code)
from naoqi_qicore.file_root import FileRoot
from naoqi_qicore.xar.elements import MAX_DOCUMENT_BYTES, safe_xml_parser
from naoqi_qicore.xar.errors import XarError
from naoqi_qicore.xar.model import Box
from naoqi_qicore.xar.writer import behavior_to_xar

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
#: the behavior file a project behavior gets when its ``behavior.xml`` does not name one
DEFAULT_XAR = "behavior.xar"
#: the suffixes of the diagram pages ``xar_convert --graph`` adds to a converted folder
#: (not project files)
_GRAPH_SUFFIXES = (".svg", ".dot")


@dataclass
class ExportedBehavior:
    """One converted behavior written back as a ``.xar``."""

    #: the converted folder read
    folder: Path
    #: the ``.xar`` written
    xar: Path
    #: how many boxes have a ``.py``: the script of each comes from it
    scripts: int = 0
    #: how many of those ``.py`` were a port left as the converter wrote it: their box
    #: got back its original Python 2 text
    restored: int = 0
    #: object names of the boxes whose ``.xml`` kept an original script and whose ``.py``
    #: was edited since: that text went into the ``.xar`` (a box whose ``.xml`` kept none
    #: had a ``.py`` equal to its script: that ``.py``, edited or not, goes in)
    edited: List[str] = field(default_factory=list)


@dataclass
class ExportResult:
    """What :func:`export_xar` wrote."""

    source: Path
    output: Path
    behaviors: List[ExportedBehavior] = field(default_factory=list)
    #: what was left out or changed on the way, for the user
    warnings: List[str] = field(default_factory=list)
    #: how many project files were copied next to the behaviors
    copied: int = 0


def export_xar(converted: Union[str, Path], output: Union[str, Path],
               force: bool = False) -> ExportResult:
    """Write the converted behavior ``converted`` as the ``.xar`` file ``output``, or the
    converted project ``converted`` as the project folder ``output`` (see the module doc).

    An existing ``output`` is replaced only with ``force``.  Raises XarError when
    ``converted`` is not a converted behavior or project (or is damaged: missing or
    unsafe files), OutputError when ``output`` cannot be written.
    """
    converted, output = Path(converted), Path(output)
    if not converted.is_dir():
        raise XarError("no such folder" if not converted.exists()
                       else "not a converted behavior or project folder", str(converted))
    if os.path.lexists(converted / PROJECT_INDEX):
        if not _is_regular(converted / PROJECT_INDEX):
            raise XarError("not a regular file", str(converted / PROJECT_INDEX))
        return _export_project(converted, output, force)
    if not os.path.lexists(converted / MANIFEST):
        raise XarError("not a converted behavior or project: no %s or %s"
                       % (MANIFEST, PROJECT_INDEX), str(converted))
    exported = ExportedBehavior(converted, output)
    text = _behavior_text(_load_behavior(converted), exported)
    _install_file(text, output, force)
    return ExportResult(converted, output, [exported])


def _load_behavior(folder: Path) -> LoadedBehavior:
    """The converted behavior in ``folder``, its files checked."""
    _check_behavior_files(folder)
    loaded = load_converted(folder)
    _check_state_files(folder, loaded)
    return loaded


def _behavior_text(loaded: LoadedBehavior, exported: ExportedBehavior) -> str:
    """The ``.xar`` text of ``loaded``, read from ``exported.folder``, with the scripts of its
    ``.py`` files; counts in ``exported`` where the scripts came from."""
    folder = exported.folder
    recorded_errors = _recorded_port_errors(folder)
    for _, box in loaded.behavior.root.walk():
        name = loaded.names[id(box)]
        code_file = folder / (name + ".py")
        if box.script is None or not _is_regular(code_file):
            continue
        exported.scripts += 1
        code = read_code_file(str(code_file), getattr(os, "O_NOFOLLOW", 0))
        original = box.script.content
        if code == original:
            continue
        if _is_converted_from(original, code, recorded_errors.get(name)):
            exported.restored += 1
        else:
            box.script.content = code
            exported.edited.append(name)
    return behavior_to_xar(loaded.behavior)


def _converted_files(loaded: LoadedBehavior) -> Set[str]:
    """The names of the files the converter wrote for ``loaded`` in its folder (those of
    the boxes it names, whether they are there or not), plus ``--graph``'s pages.  Its
    ``main.py`` is the project's own when its entry point has the other name."""
    names = {MANIFEST, BOX_INDEX, PROJECT_ENTRY_POINT}
    if loaded.folder is None or not (Path(loaded.folder) / PROJECT_ENTRY_POINT).is_file():
        names.add(ENTRY_POINT)
    pages = [ROOT_PAGE]
    for _, box in loaded.behavior.root.walk():
        name = loaded.names[id(box)]
        names.update((name + ".xml", name + ".py", name + "_timeline.xml"))
        names.update(_state_files(name, box))
        pages.append(name)
    names.update(graph_file_name(FOLDER_GRAPH_STEM, page, suffix)
                 for page in pages for suffix in _GRAPH_SUFFIXES)
    return names


def _state_files(name: str, box: Box) -> List[str]:
    """The state machine file and state files written for ``box`` named ``name``."""
    if box.timeline is None or not box.timeline.layers:
        return []
    states = compute_states(box.timeline)
    if not states:
        return []
    return [name + "_state_machine.xml"] + ["%s_state_%d.xml" % (name, state.index)
                                            for state in states]


def _is_regular(path: Path) -> bool:
    """True for a regular file that is not a symbolic link."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _check_behavior_files(folder: Path) -> None:
    """Refuse a converted folder holding an ``.xml`` or ``.py`` file that is a symbolic
    link leading outside it, or a special file: the loader would read through it."""
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        inside = folder.resolve()
    except OSError as error:
        raise XarError("cannot read: %s" % (error.strerror or error), str(folder)) from None
    for entry in entries:
        if not entry.name.endswith((".xml", ".py")):
            continue
        path = Path(entry.path)
        if entry.is_symlink() and not path.resolve().is_relative_to(inside):
            raise XarError("refusing a symbolic link leading outside the converted folder",
                           entry.path)
        if path.exists() and not (path.is_file() or path.is_dir()):
            raise XarError("not a regular file", entry.path)


def _check_state_files(folder: Path, loaded: LoadedBehavior) -> None:
    """Every state machine and state file of the behavior is there (the loader does not
    need them, the converted behavior they describe does)."""
    for _, box in loaded.behavior.root.walk():
        for name in _state_files(loaded.names[id(box)], box):
            if not _is_regular(folder / name):
                raise XarError("missing: a state file of the object %r"
                               % loaded.names[id(box)], str(folder / name))


def _recorded_port_errors(folder: Path) -> Dict[str, str]:
    """Object name -> why the converter could not port its script (``behavior.xml``'s
    ``<Script ported="0" error>``; the loader has already read that file)."""
    manifest = etree.parse(str(folder / MANIFEST), safe_xml_parser()).getroot()
    return {script.get("object", ""): script.get("error", "")
            for script in manifest.iterfind("Script") if script.get("ported") == "0"}


def _is_converted_from(original: str, code: str, recorded_error: Optional[str]) -> bool:
    """True when ``code`` (a ``.py``) is what converting the script ``original`` gives:
    its port, or its commented-out form when it could not be ported (with the reason the
    converter recorded, or the reason the porter gives now)."""
    result = port_script(original)
    if result.error is None and code == result.code:
        return True
    reasons = {reason for reason in (result.error, recorded_error) if reason is not None}
    return any(code == unported_code(original, reason) for reason in reasons)


# -- projects ---------------------------------------------------------------------------------
def _project_behaviors(root: Path) -> List[str]:
    """The converted folders (relative, ``/``-separated) ``converted_project.xml`` lists."""
    index = root / PROJECT_INDEX
    try:
        if index.stat().st_size > MAX_DOCUMENT_BYTES:
            raise XarError("file too large", str(index))
        document = etree.parse(str(index), safe_xml_parser()).getroot()
    except OSError as error:
        raise XarError("cannot read: %s" % (error.strerror or error), str(index)) from None
    except etree.XMLSyntaxError as error:
        raise XarError("not well-formed XML: %s" % error.msg, str(index),
                       error.position[0] if error.position else None) from None
    if document.tag != "ConvertedProject" or document.get("format") not in READABLE_FORMATS:
        raise XarError("not a %s project index" % FORMAT, str(index), document.sourceline,
                       document.tag if isinstance(document.tag, str) else None)
    folders: List[str] = []
    resolved_root = root.resolve()
    for entry in document.iter("Behavior"):
        path = entry.get("path")
        if path is None or not (path == "." or is_safe_relative(path)):
            raise XarError("unsafe or missing path %r" % path, str(index), entry.sourceline,
                           "Behavior")
        if not (root / path).resolve().is_relative_to(resolved_root):
            raise XarError("refusing %s: a symbolic link leads it outside the converted "
                           "project" % path, str(index), entry.sourceline, "Behavior")
        if path in folders:
            raise XarError("the behavior folder %s is listed twice" % path, str(index),
                           entry.sourceline, "Behavior")
        folders.append(path)
    if not folders:
        raise XarError("the converted project lists no behavior", str(index),
                       document.sourceline, "ConvertedProject")
    return folders


def _xar_place(folder: str, source: str) -> str:
    """Where the ``.xar`` of the behavior converted into ``folder`` stood in its project:
    ``folder/<file>`` (``<file>`` the name ``source`` ends with), or ``<file>`` beside
    ``folder`` when the converter put a second behavior of a folder one level down."""
    source = source.replace("\\", "/")
    file_name = posixpath.basename(source)
    if not file_name.lower().endswith(".xar") or not is_safe_relative(file_name):
        file_name = DEFAULT_XAR
    inside = file_name if folder == "." else folder + "/" + file_name
    beside = posixpath.join(posixpath.dirname(folder), file_name)
    source = "/" + source
    if (folder != "." and not source.endswith("/" + inside) and source.endswith("/" + beside)
            and posixpath.basename(folder) == format_name(posixpath.splitext(file_name)[0])):
        return beside
    return inside


def _export_project(root: Path, output: Path, force: bool) -> ExportResult:
    resolved_root, resolved_output = root.resolve(), output.resolve()
    if (resolved_output.is_relative_to(resolved_root)
            or resolved_root.is_relative_to(resolved_output)):
        raise OutputError("%s: the project folder cannot be written inside %s or over it"
                          % (output, root))
    result = ExportResult(root, output)
    texts: Dict[str, str] = {}
    skipped = [PROJECT_INDEX]
    for folder in _project_behaviors(root):
        behavior_folder = root / folder
        if not _is_regular(behavior_folder / MANIFEST):
            raise XarError("missing or not a regular file: the converted behavior %s listed "
                           "by %s" % (folder, PROJECT_INDEX), str(behavior_folder / MANIFEST))
        loaded = _load_behavior(behavior_folder)
        place = _xar_place(folder, loaded.behavior.source)
        if place in texts:
            raise XarError("two behaviors go back to %s" % place, str(root / PROJECT_INDEX))
        exported = ExportedBehavior(behavior_folder, output / place)
        texts[place] = _behavior_text(loaded, exported)
        result.behaviors.append(exported)
        prefix = "" if folder == "." else folder + "/"
        skipped.extend(prefix + name for name in _converted_files(loaded))
    found = project_files(root, skipped)
    result.warnings.extend(found.warnings)
    copies: Dict[str, Path] = {}
    for name, path in found.files.items():
        if name in texts:
            result.warnings.append("%s: not copied, a behavior's .xar goes there" % path)
        else:
            copies[name] = path
    with tempfile.TemporaryDirectory(prefix="naoqi_qicore-to-xar-") as scratch:
        for index, (place, text) in enumerate(texts.items()):
            copies[place] = Path(scratch, "%d.xar" % index)
            copies[place].write_text(text, encoding="utf-8")
        install_files({}, output, force, copies)
    result.copied = len(copies) - len(texts)
    return result


# -- writing -----------------------------------------------------------------------------------
def _install_file(text: str, destination: Path, force: bool) -> None:
    """Write ``text`` as the file ``destination`` from a handle of its folder: a new file
    renamed into place (removed on any error or interruption); an existing one replaced
    only with ``force``, never a folder, and a symbolic link replaced, not followed."""
    given = destination
    destination = Path(os.path.abspath(destination))
    try:
        destination.parent.mkdir(parents=True, exist_ok=True)
        with FileRoot(destination.parent) as folder:
            existing = folder.stat(destination.name, follow=False)
            if existing is not None and stat.S_ISDIR(existing.st_mode):
                raise OutputError("%s: is a folder, not a .xar file" % given)
            if existing is not None and not force:
                raise OutputExistsError("%s: already exists" % given)
            with folder.replace(destination.name) as stream:
                stream.write(text.encode("utf-8"))
                os.fchmod(stream.fileno(), 0o644)
    except OSError as error:
        raise OutputError("%s: cannot write: %s" % (given, error.strerror or error)) from None


# -- command line ------------------------------------------------------------------------------
def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="xar_convert --to-xar",
        description="Write a converted behavior back as a .xar file Choregraphe opens (a "
                    "converted project back as the project folder). Box scripts are their "
                    "original text unless their .py was edited.")
    parser.add_argument("converted", metavar="CONVERTED",
                        help="a folder written by xar_convert (behavior or project)")
    parser.add_argument("output", metavar="OUT", help="the .xar file (the project folder)")
    parser.add_argument("-f", "--force", action="store_true", help="replace an existing OUT")
    parser.add_argument("-q", "--quiet", action="store_true", help="print errors only")
    parser.add_argument("--json", action="store_true", help="print a JSON report on stdout")
    return parser


def _plural(count: int, noun: str) -> str:
    return "%d %s%s" % (count, noun, "" if count == 1 else "s")


def _summary(behaviors: List[dict]) -> str:
    """``1 behavior, 5 box scripts from their .py files (2 unedited ports back in their
    Python 2 text, 1 edited port)``: where the scripts written came from."""
    scripts = sum(behavior["scripts"] for behavior in behaviors)
    restored = sum(behavior["restored"] for behavior in behaviors)
    edited = sum(len(behavior["edited"]) for behavior in behaviors)
    text = "%s, %s from their .py files" % (_plural(len(behaviors), "behavior"),
                                            _plural(scripts, "box script"))
    details = []
    if restored:
        details.append("%s back in %s Python 2 text" % (_plural(restored, "unedited port"),
                                                        "its" if restored == 1 else "their"))
    if edited:
        details.append(_plural(edited, "edited port"))
    return text + (" (%s)" % ", ".join(details) if details else "")


def _report(result: ExportResult) -> dict:
    return {"input": str(result.source), "output": str(result.output), "ok": True,
            "error": None, "copied": result.copied, "warnings": result.warnings,
            "behaviors": [{"folder": str(exported.folder), "xar": str(exported.xar),
                           "scripts": exported.scripts, "restored": exported.restored,
                           "edited": exported.edited}
                          for exported in result.behaviors]}


def main(argv: Sequence[str]) -> int:
    """Run ``xar_convert --to-xar`` with ``argv`` (what follows ``--to-xar``); returns the
    exit status: 0 written, 1 failed, 2 usage error, 128 + the signal number when
    interrupted by SIGINT or SIGTERM (nothing is left of OUT being written)."""
    try:
        options = _parser().parse_args(list(argv))
    except SystemExit as exit_request:
        return EXIT_OK if exit_request.code == 0 else EXIT_USAGE
    try:
        with stop_signals_raise():
            report = _report(export_xar(options.converted, options.output, options.force))
    except Interrupted as interruption:
        print("xar_convert --to-xar: interrupted (%s), nothing left of %s"
              % (signal.Signals(interruption.signum).name, options.output), file=sys.stderr)
        return 128 + interruption.signum
    except (XarError, OutputError, OSError) as error:
        message = str(error) if not isinstance(error, OSError) else "%s: %s" % (
            error.filename or options.converted, error.strerror or error)
        if isinstance(error, OutputExistsError):
            message += " (use --force to replace it)"
        report = {"input": options.converted, "output": options.output, "ok": False,
                  "error": message}
    except Exception as error:  # a bug must not show the user a traceback either
        report = {"input": options.converted, "output": options.output, "ok": False,
                  "error": "%s: internal error: %s: %s" % (options.converted,
                                                           type(error).__name__, error)}
    if not report["ok"]:
        print(report["error"], file=sys.stderr)
    elif not (options.quiet or options.json):
        for warning in report["warnings"]:
            print("warning: " + warning, file=sys.stderr)
        print("%s -> %s (%s)" % (options.converted, options.output,
                                 _summary(report["behaviors"])))
    if options.json:
        json.dump(report, sys.stdout, indent=2, sort_keys=True)
        sys.stdout.write("\n")
    return EXIT_OK if report["ok"] else EXIT_FAILED
