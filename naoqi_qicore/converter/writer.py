"""Writing a behavior in the file-per-object format (``naoqi_qicore/1``, see docs/format.md).

One folder per behavior.  For every box, named by :mod:`naming` (``l1_Say``):

* ``<name>.xml`` — the box as in the ``.xar`` (attributes, bitmaps, script, pluginContent,
  ports, parameters with choices, resources, dialog files, kept extras) with its timeline's
  layers and keyframes, whose diagrams list their boxes as ``<Object Name=".."/>``;
  the root element also carries ``format``, ``object`` and ``code``;
* ``<name>.py`` — the Python 3 code of the box (ported when needed; a script that cannot
  be ported is commented out, see :func:`unported_code`); the original script is kept in
  ``<name>.xml`` when it differs;
* ``<name>_timeline.xml`` — the motion: ActuatorList, curves (with unit), keys, tangents;
* ``<name>_state_machine.xml`` and ``<name>_state_<i>.xml`` — states of the behavior layers
  (the 2012 converter's files: objects, interval, labels, links by name).

Plus ``behavior.xml`` (format marker, root object, project attributes, porting report),
``box_index.xml`` (what the box and motion files hold, each distinct element once, for
the loader; see :func:`_box_index`) and ``main.py`` (runs the folder with
``naoqi_qicore.robot.standalone``).  The folder is
built next to the destination and renamed into place: on error nothing is left.  Every
folder written lists its files in ``.written_by_xar_convert.json``: only such a folder,
holding nothing else, is ever replaced (:mod:`naoqi_qicore.converter.ownership`).
"""
from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path
from typing import Dict, List, Optional, Tuple, Union

try:
    import fcntl
except ImportError:  # not POSIX: no locks, a running conversion's folder may be removed
    fcntl = None  # type: ignore[assignment]

from naoqi_qicore.converter.interrupts import stop_signals_held
from naoqi_qicore.converter.naming import assign_names
from naoqi_qicore.converter.ownership import (WRITTEN_LIST, not_written_by_converter,
                                              written_list)
from naoqi_qicore.converter.pyport import port_scripts
from naoqi_qicore.converter.states import StateSpec, state_timeout_ms
from naoqi_qicore.file_root import FileRoot, RootedPath
from naoqi_qicore.xar.errors import XarError
from naoqi_qicore.xar.model import (Behavior, Box, Diagram, Record, Script, ScriptLanguage,
                                    Timeline)
from naoqi_qicore.xar.writer import INDENT, XarWriter, attributes, cdata, escape_attribute

#: version marker written on the root element of every file
FORMAT = "naoqi_qicore/2"
#: the version markers a reader accepts: /2 adds the box index to /1
READABLE_FORMATS = ("naoqi_qicore/1", FORMAT)
#: the behavior's own file (format, root object, project attributes, porting report)
MANIFEST = "behavior.xml"
#: the box index: the box and motion files' elements, each distinct one once
BOX_INDEX = "box_index.xml"
#: the entry point of a converted folder
ENTRY_POINT = "main.py"
#: its name in a behavior's folder whose project ships a ``main.py`` there (a Pepper
#: application's service, started from the manifest's ``execStart="main.py"``: the
#: project's file is kept)
PROJECT_ENTRY_POINT = "naoqi_main.py"
#: attributes the format adds to the root ``<Box>`` of a box file
BOX_FILE_ATTRIBUTES = ("format", "object", "code")
#: fps used for state time-outs when a timeline has none (as the 2012 converter)
DEFAULT_FPS = 25

#: file names written: one optional sub-folder (behaviors of a multi-behavior input)
#: names of the files a conversion writes (inside a behavior's folder)
_SAFE_FILE = re.compile(r"[A-Za-z0-9_]+\.(xml|py|svg|dot)")
XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" ?>'
#: line breaks as Python reads them
_NEWLINE = re.compile(r"\r\n|\r|\n")
_UNPORTED_FOOTER = """

# naoqi_qicore: the lines above are this box's script, commented out: it does not compile
# under Python 3 and could not be ported (%s).
# Its original text is also in the box's .xml file. Fix it, uncomment it, remove the raise.
raise SyntaxError(%r)
"""

MAIN_PY = '''#!/usr/bin/env python3
"""Runs this converted behavior with naoqi_qicore (--help says how)."""
import os
import sys

from naoqi_qicore.robot.standalone import main

if __name__ == "__main__":
    sys.exit(main(os.path.dirname(os.path.abspath(__file__)), sys.argv[1:]))
'''


class OutputError(ValueError):
    """The destination folder cannot be written (exists, unsafe name...)."""


class OutputExistsError(OutputError):
    """The destination folder exists and is not empty (replaced only when forced)."""


class NotConvertedOutputError(OutputError):
    """The destination exists and is not a folder the converter wrote holding nothing
    else: never replaced, even when forced (see :mod:`~naoqi_qicore.converter.ownership`)."""


class ConversionReport(Record):
    """What converting one behavior did."""

    __slots__ = ("output", "objects", "files", "ported", "failed", "warnings")

    def __init__(self, output: Optional[Path], objects: int = 0, files: int = 0,
                 warnings: Optional[List[str]] = None) -> None:
        self.output = output
        self.objects = objects
        self.files = files
        #: object names of boxes whose script was ported to Python 3
        self.ported: List[str] = []
        #: object name -> why its script does not compile under Python 3 (commented out)
        self.failed: Dict[str, str] = {}
        self.warnings: List[str] = [] if warnings is None else warnings


def has_python(script: Optional[Script]) -> bool:
    """True when ``script`` is Python code with something in it."""
    return (script is not None and script.language == ScriptLanguage.PYTHON
            and script.content != "" and not script.content.isspace())


def unported_code(source: str, error: str) -> str:
    """The ``.py`` of a script that does not compile under Python 3 and could not be ported:
    its lines commented out (same line numbers), then a ``raise SyntaxError`` saying why,
    so that the file compiles and the box reports the reason when it is loaded."""
    error = " ".join(error.split())
    lines = _NEWLINE.split(source.replace("\0", "\\x00"))
    code = "\n".join("# " + line if line else "#" for line in lines)
    return code + _UNPORTED_FOOTER % (error, "the box script does not compile under Python 3 "
                                      "and could not be ported: " + error)


def link_port_name(box: Box, port_id: int) -> str:
    """Name of the input, output or parameter ``port_id`` of ``box`` ("" when none)."""
    for port in box.inputs:
        if port.id == port_id:
            return port.name
    for port in box.outputs:
        if port.id == port_id:
            return port.name
    for parameter in box.parameters:
        if parameter.id == port_id:
            return parameter.name
    return ""


def box_identity(name: str, has_code: bool) -> str:
    """The attributes that make a ``<Box>`` the root of the box file of ``name`` (format
    marker, object name, code file), written before the box's own attributes."""
    return ' format="%s" object="%s"%s' % (FORMAT, name, ' code="%s.py"' % name if has_code
                                           else "")


def box_file_head(name: str, has_code: bool) -> str:
    """The start of the box file of ``name``, up to the box's own attributes."""
    return "%s\n<Box%s" % (XML_DECLARATION, box_identity(name, has_code))


def box_file_tail(box_attributes: str, children: str) -> str:
    """The rest of a box file: the box's attributes (their text), then ``children`` (the
    text of the child elements of its ``<Box>``)."""
    return "%s>\n%s</Box>\n" % (box_attributes, children)


def motion_file_text(name: str, motion: str) -> str:
    """The motion file of ``name`` holding the ``<Timeline>`` element text ``motion``."""
    return "%s\n<Timeline%s%s" % (XML_DECLARATION, box_identity(name, False),
                                  motion[len("<Timeline"):])


class _BoxFileWriter(XarWriter):
    """Writes the content of one box file: diagrams by object name, no motion."""

    def __init__(self, names: Dict[int, str], codes: Dict[str, str]) -> None:
        super().__init__()
        self.names = names
        self.codes = codes

    def box_parts(self, box: Box) -> Tuple[str, List[str]]:
        """The text of ``box``'s attributes and of each child element of its ``<Box>``."""
        if box.extras.attributes:
            taken = [key for key in BOX_FILE_ATTRIBUTES if key in box.extras.attributes]
            if taken:
                raise OutputError("box %r has an attribute %r that the converted format reserves"
                                  % (box.name, taken[0]))
        self.lines = []
        self.box_content(1, box)
        self.raw(1, box.extras.elements)
        # each item of lines is one line or one verbatim block: a child starts at level 1
        starts = [index for index, item in enumerate(self.lines)
                  if item.startswith(_CHILD_START) and not item.startswith(_CHILD_END)]
        children = ["\n".join(self.lines[start:end])
                    for start, end in zip(starts, starts[1:] + [len(self.lines)])]
        return attributes(self.box_attributes(box), box.extras), children

    def script_content(self, box: Box, script: Script) -> Optional[str]:
        code = self.codes.get(self.names[id(box)])
        return None if code == script.content else script.content

    def diagram(self, level: int, diagram: Diagram) -> None:
        self.start(level, "Diagram", (("scale", diagram.scale),), diagram.extras)
        pad, names = INDENT * (level + 1), self.names  # object names need no escaping
        self.lines += ['%s<Object Name="%s" />' % (pad, names[id(box)]) for box in diagram.boxes]
        self.links(level + 1, diagram)
        self.end(level, "Diagram", diagram.extras)

    def actuator_list(self, level: int, actuators) -> None:
        """Motion goes to ``<name>_timeline.xml``."""


#: how the lines of a box's child elements start (opening, closing)
_CHILD_START, _CHILD_END = INDENT + "<", INDENT + "</"


def _motion_element(timeline: Timeline) -> str:
    """The ``<Timeline>`` element of a motion file, without the attributes naming its box."""
    writer = XarWriter()
    writer.element(0, "Timeline", tuple(XarWriter.timeline_attributes(timeline)), None,
                   lambda level: writer.actuator_list(level, timeline.actuator_list))
    return writer.text()


class _BoxIndexWriter:
    """Collects the box index of a folder (:data:`BOX_INDEX`): each distinct element of its
    box and motion files once (a part), and per box the parts that make its files."""

    def __init__(self) -> None:
        #: part text -> its number
        self.parts: Dict[str, int] = {}
        self.entries: List[str] = []

    def part(self, text: str) -> int:
        number = self.parts.get(text)
        if number is None:
            number = self.parts[text] = len(self.parts)
        return number

    def add(self, name: str, has_code: bool, box_file: Optional[Tuple[str, List[str]]],
            motion: Optional[str]) -> None:
        """The entry of the box ``name`` whose files :func:`box_file_head`,
        :func:`box_file_tail` (of ``box_file``: its attributes and its children's texts)
        and :func:`motion_file_text` make of these texts.  Without ``box_file`` (a box
        whose diagrams name boxes: no other box has its timeline) the entry names its
        motion only, and the loader parses its box file once, rather than once in the
        index and again for that one box."""
        if box_file is None:
            if motion is not None:
                self.entries.append('%s<Box object="%s" motion="%d" />'
                                    % (INDENT, name, self.part(motion)))
            return
        box_attributes, children = box_file
        self.entries.append('%s<Box object="%s"%s root="%d" parts="%s"%s />' % (
            INDENT, name, ' code="%s.py"' % name if has_code else "",
            self.part("<Box%s />" % box_attributes),
            " ".join([str(self.part(child)) for child in children]),
            ' motion="%d"' % self.part(motion) if motion is not None else ""))

    def text(self) -> str:
        lines = [XML_DECLARATION, '<BoxIndex format="%s">' % FORMAT]
        lines += ["%s<Part>%s</Part>" % (INDENT, cdata(part)) for part in self.parts]
        lines += self.entries
        lines.append("</BoxIndex>")
        return "\n".join(lines) + "\n"


def _state_machine_file(name: str, timeline: Timeline, states: List[StateSpec]) -> str:
    fps = timeline.fps if timeline.fps is not None else DEFAULT_FPS
    lines = [XML_DECLARATION, '<StateMachine%s>' % attributes(
        (("format", FORMAT), ("object", name), ("fps", fps)))]
    lines.extend('%s<State Name="%s_state_%d" />' % (INDENT, name, state.index)
                 for state in states)
    lines.append('%s<InitialState Name="%s_state_%d" />' % (INDENT, name, states[0].index))
    lines.append('%s<FinalState Name="%s_state_%d" />' % (INDENT, name, states[-1].index))
    for state, following in zip(states, states[1:]):
        lines.append('%s<Transition From="%s_state_%d" To="%s_state_%d" TimeOut="%d" />'
                     % (INDENT, name, state.index, name, following.index,
                        state_timeout_ms(state, fps)))
    lines.append("</StateMachine>")
    return "\n".join(lines) + "\n"


def _state_file(owner: Box, name: str, state: StateSpec, names: Dict[int, str]) -> str:
    timeline = owner.timeline
    diagrams = [timeline.layers[layer].keyframes[index].diagram
                for layer, index in state.keyframes]
    lines = [XML_DECLARATION, "<State%s>" % attributes((("format", FORMAT),
                                                         ("Name", "%s_state_%d" % (name, state.index))))]
    for diagram in diagrams:
        lines.extend('%s<Object Name="%s" />' % (INDENT, names[id(box)]) for box in diagram.boxes)
    lines.append('%s<Interval begin="%d" end="%d" />' % (INDENT, state.begin, state.end))
    lines.extend('%s<Label Name="%s" />' % (INDENT, escape_attribute(label))
                 for label in state.labels)
    lines.extend('%s<Keyframe layer="%d" index="%d" />' % (INDENT, layer, index)
                 for layer, index in state.keyframes)
    for diagram in diagrams:
        boxes = {box.id: box for box in diagram.boxes}
        for link in diagram.links:
            target = owner if link.inputowner == 0 else boxes[link.inputowner]
            source = owner if link.outputowner == 0 else boxes[link.outputowner]
            lines.append('%s<Link InputObject="%s" InputName="%s" OutputObject="%s" '
                         'OutputName="%s" />' % (
                             INDENT, names[id(target)],
                             escape_attribute(link_port_name(target, link.indexofinput)),
                             names[id(source)],
                             escape_attribute(link_port_name(source, link.indexofoutput))))
    lines.append("</State>")
    return "\n".join(lines) + "\n"


def _manifest(behavior: Behavior, root_name: str, report: ConversionReport) -> str:
    writer = XarWriter()
    writer.lines.append(XML_DECLARATION)
    project = (("tag", behavior.root_tag), ("name", behavior.name),
               ("xar_version", behavior.xar_version),
               ("format_version", behavior.format_version),
               ("namespace", behavior.namespace or None),
               ("bare_root", 1 if behavior.bare_root else None))

    def children(level: int) -> None:
        writer.element(level, "Project", project, behavior.extras)
        for name in report.ported:
            writer.element(level, "Script", (("object", name), ("ported", 1)))
        for name, error in report.failed.items():
            writer.element(level, "Script", (("object", name), ("ported", 0), ("error", error)))
    writer.element(0, "Behavior", (("format", FORMAT), ("root", root_name),
                                   ("source", behavior.source)), None, children)
    return writer.text()


def render(behavior: Behavior) -> Tuple[Dict[str, str], ConversionReport]:
    """Every file of the converted folder (name -> text) and the report, in memory."""
    states_of: Dict[int, List[StateSpec]] = {}
    boxes: List[Box] = []
    names = assign_names(behavior, states_of, boxes)
    report = ConversionReport(output=None, warnings=list(behavior.warnings))
    codes: Dict[str, str] = {}
    scripted = [box for box in boxes if has_python(box.script)]
    for box, result in zip(scripted, port_scripts(box.script.content for box in scripted)):
        name = names[id(box)]
        codes[name] = result.code
        if result.ported:
            report.ported.append(name)
        elif result.error:
            report.failed[name] = result.error
            codes[name] = unported_code(result.code, result.error)
    files: Dict[str, str] = {}
    box_writer = _BoxFileWriter(names, codes)
    index = _BoxIndexWriter()
    for box in boxes:
        name = names[id(box)]
        has_code = name in codes
        box_attributes, children = box_writer.box_parts(box)
        files[name + ".xml"] = box_file_head(name, has_code) + box_file_tail(
            box_attributes, "".join([child + "\n" for child in children]))
        if has_code:
            files[name + ".py"] = codes[name]
        timeline = box.timeline
        motion = None
        if timeline is not None and timeline.actuator_list is not None:
            motion = _motion_element(timeline)
            files[name + "_timeline.xml"] = motion_file_text(name, motion)
        holds_boxes = next(box.children(), None) is not None
        index.add(name, has_code, None if holds_boxes else (box_attributes, children), motion)
        if timeline is None:
            continue
        states = states_of[id(box)]
        if states:
            files[name + "_state_machine.xml"] = _state_machine_file(name, timeline, states)
            for state in states:
                files["%s_state_%d.xml" % (name, state.index)] = _state_file(box, name, state,
                                                                              names)
    files[BOX_INDEX] = index.text()
    root_name = names[id(behavior.root)]
    files[MANIFEST] = _manifest(behavior, root_name, report)
    files[ENTRY_POINT] = MAIN_PY
    report.objects, report.files = len(boxes), len(files)
    return files, report


def is_safe_relative(name: str) -> bool:
    """True for a relative path that stays inside the folder it is relative to."""
    parts = name.split("/")
    return (bool(name) and "\\" not in name and "\0" not in name
            and all(part not in ("", ".", "..") and len(part.encode("utf-8", "replace")) <= 255
                    for part in parts))


def _is_safe_output(name: str) -> bool:
    """A converted file's name: ``[folder/...]name.xml|py|svg|dot``."""
    folder, _, base = name.rpartition("/")
    return bool(_SAFE_FILE.fullmatch(base)) and (not folder or is_safe_relative(folder))


def _write_all(descriptor: int, data: bytes) -> None:
    written = os.write(descriptor, data)
    while written < len(data):  # a short write (not seen on local file systems)
        written += os.write(descriptor, data[written:])


def _write_files(files: Dict[str, str], copies: Dict[str, Path], folder: FileRoot) -> None:
    """Create every file of ``files`` (text) and ``copies`` (copied from the given paths)
    in the new, empty ``folder``; names checked safe, symbolic links never followed.

    Files are created relative to a handle of their folder (``openat``), one folder after
    the other: no path is looked up again for each of the thousands of files of a large
    behavior.
    """
    flags = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
             | getattr(os, "O_NOFOLLOW", 0))
    by_folder: Dict[str, List[Tuple[str, Union[str, Path]]]] = {}
    for name, content in list(files.items()) + list(copies.items()):
        sub_folder, _, base = name.rpartition("/")
        by_folder.setdefault(sub_folder, []).append((base, content))
    texts = set(files)
    for sub_folder, entries in by_folder.items():
        target = folder.folder(sub_folder, create=True) if sub_folder else None
        handle = (target or folder).fileno()
        try:
            for base, content in entries:
                name = "%s/%s" % (sub_folder, base) if sub_folder else base
                try:
                    descriptor = os.open(base, flags, 0o644, dir_fd=handle)
                except OSError as error:  # named by its whole path, as errors of the folder are
                    raise OSError(error.errno, error.strerror,
                                  os.path.join(str(folder.path), name)) from None
                try:
                    if name in texts:
                        _write_all(descriptor, str(content).encode("utf-8"))
                    else:
                        _copy_into(Path(content), descriptor)
                finally:
                    os.close(descriptor)
        finally:
            if target is not None:
                target.close()


def _copy_into(source: Path, descriptor: int) -> None:
    """Write the content of the file ``source`` (not a symbolic link) into ``descriptor``."""
    with open(os.open(source, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)), "rb") as stream:
        for chunk in iter(lambda: stream.read(1 << 20), b""):
            _write_all(descriptor, chunk)


def _is_empty_folder(parent: FileRoot, name: str) -> bool:
    """True for a folder (not a link to one) ``name`` of ``parent`` holding nothing."""
    info = parent.stat(name, follow=False)
    if info is None or not stat.S_ISDIR(info.st_mode):
        return False
    with parent.folder(name) as folder:
        return not os.listdir(folder.fileno())


#: the staging folders :func:`install_files` builds beside a destination, and the old
#: destination it moves aside while renaming (:func:`~naoqi_qicore.file_root.unique_name`
#: suffixes; 8 letters in older versions)
_STAGING_SUFFIX = re.compile(r"[a-z0-9_]{8}(?:[a-z0-9]{4})?(\.previous)?")


def _remove_quietly(parent: FileRoot, name: str) -> None:
    """Remove ``name`` of ``parent`` and everything in it, ignoring errors."""
    try:
        parent.remove(name)
    except OSError:
        pass


def _is_staging_name(entry: str, prefix: str) -> bool:
    """True for ``<prefix>XXXXXXXX`` and ``<prefix>XXXXXXXX.previous``."""
    return entry.startswith(prefix) and _STAGING_SUFFIX.fullmatch(entry, len(prefix)) is not None


def _lock_folder(parent: FileRoot, name: str) -> Optional[FileRoot]:
    """The folder ``name`` of ``parent`` (not a symbolic link) open with an exclusive lock
    on it; None when another process holds it (or it is gone)."""
    try:
        info = parent.stat(name, follow=False)
        if info is None or not stat.S_ISDIR(info.st_mode):
            return None
        folder = parent.folder(name)
    except OSError:
        return None
    if fcntl is not None:
        try:
            fcntl.flock(folder.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            folder.close()
            return None
    return folder


def _destination_parent(destination: Union[str, Path, RootedPath]) -> Tuple[FileRoot, str]:
    """The folder holding ``destination`` (made when missing), open, and its last name: a
    path of this machine's is opened as it is (its user chose it), a place below a root
    from that root's handle."""
    if isinstance(destination, RootedPath):
        if destination.name in ("", ".."):
            raise OutputError("%s: names no folder of its own" % destination.path)
        return destination.parent.folder(create=True), destination.name
    path = Path(os.path.abspath(destination))
    path.parent.mkdir(parents=True, exist_ok=True)
    return FileRoot(path.parent), path.name


def remove_leftovers(destination: Union[str, Path, RootedPath]) -> List[Path]:
    """Remove the staging folders of ``destination`` that interrupted conversions left
    beside it (``.<name>.converting-XXXXXXXX`` and their ``.previous``); returns them.

    Only folders of exactly that name, owned by this user and not symbolic links, are
    removed, and never one that a running conversion holds (each holds a lock on its
    staging folder while it works)."""
    try:
        parent, name = _destination_parent(destination)
    except (OSError, OutputError):
        return []
    with parent:
        return _remove_leftovers(parent, name)


def _remove_leftovers(parent: FileRoot, name: str) -> List[Path]:
    prefix = ".%s.converting-" % name
    try:
        names = [entry for entry in parent.names() if _is_staging_name(entry, prefix)]
    except OSError:
        return []
    removed = []
    for entry in sorted(names, key=lambda entry: entry.endswith(".previous")):  # staging first
        try:
            info = parent.stat(entry, follow=False)
        except OSError:
            continue
        if info is None or not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            continue
        if entry.endswith(".previous"):  # moved aside by a conversion that may be running
            staging = entry[:-len(".previous")]
            if parent.stat(staging, follow=False) is not None:
                lock = _lock_folder(parent, staging)
                if lock is None:
                    continue
                lock.close()
                if parent.stat(staging, follow=False) is not None:  # not ours, or no folder
                    continue
            _remove_quietly(parent, entry)
        else:
            lock = _lock_folder(parent, entry)
            if lock is None:
                continue
            try:
                _remove_quietly(parent, entry)
            finally:
                lock.close()
        if parent.stat(entry, follow=False) is None:
            removed.append(parent.path / entry)
    return removed


def _output_error(error: OSError, given: Union[str, Path], staging: Optional[Path]) -> OSError:
    """``error`` (raised while writing) as an OutputError naming the destination the user
    gave rather than the staging folder; other files' errors are returned as they are."""
    reason = error.strerror or str(error)
    filename = error.filename
    if staging is not None and filename is not None:
        text = os.fsdecode(filename)
        root = str(staging)
        if text == root or text.startswith(root + os.sep) or text.startswith(root + ".previous"):
            inside = os.path.relpath(text, root) if text.startswith(root + os.sep) else ""
            shown = os.path.join(str(given), inside) if inside else str(given)
            return OutputError("%s: cannot write %s: %s" % (given, shown, reason))
        return error
    if filename is None or ".converting-" in os.path.basename(os.fsdecode(filename)):
        return OutputError("%s: cannot write: %s" % (given, reason))  # the staging folder
    return error


def output_folder_name(source: Union[str, Path]) -> str:
    """The name of the folder an input is converted into when several are converted into
    one folder: ``dance`` for ``dance.xar``, ``dance/behavior.xar`` or the folder
    ``dance/``.  OutputError for a path naming no folder of its own (ending in ``..``,
    ``.`` or ``/``), whose output would be a folder above or the output folder itself."""
    text = str(source).rstrip("/") or "/"
    path = Path(text)
    name = path.parent.name if path.stem == "behavior" and path.parent.name else path.stem
    if name in ("", ".", ".."):
        named = Path(os.path.abspath(text))
        raise OutputError("%s: cannot name an output folder after this path (it ends in %r)%s"
                          % (source, text.rsplit("/", 1)[-1] or "/", "; give the input by "
                             "its own name, as %s" % named if named.name else ""))
    return name


def install_files(files: Dict[str, str], destination: Union[str, Path, RootedPath],
                  force: bool = False, copies: Optional[Dict[str, Path]] = None) -> Path:
    """Write ``files`` (name -> text) and ``copies`` (name -> file to copy) as the folder
    ``destination``, atomically (temp folder, then rename); returns where it is.

    ``destination`` is a path of this machine, or a place below a root
    (:class:`~naoqi_qicore.file_root.RootedPath`: the folder is then reached from the root's
    handle, never leaving it, whatever the folders on the way become meanwhile).  Every
    step works from a handle of the folder holding it.  An existing non-empty
    ``destination`` is replaced only with ``force``, and only when it is a folder the
    converter wrote holding nothing else (see :mod:`~naoqi_qicore.converter.ownership`;
    :data:`WRITTEN_LIST` is written in every folder, listing its files).  The staging
    folders interrupted runs left beside ``destination`` are removed first
    (:func:`remove_leftovers`); the one of this run is removed on any error or
    interruption (KeyboardInterrupt included).  Errors while writing are OutputErrors
    naming ``destination`` as given.
    """
    copies = copies or {}
    given = destination.path if isinstance(destination, RootedPath) else destination
    unsafe = [entry for entry in files if not _is_safe_output(entry)]
    unsafe += [entry for entry in copies if not is_safe_relative(entry) or entry == WRITTEN_LIST]
    if unsafe:
        shown = given if isinstance(given, Path) else os.path.abspath(given)
        raise OutputError("%s: refusing to write the unsafe file name %r" % (shown, unsafe[0]))
    try:
        parent, name = _destination_parent(destination)
    except OSError as error:
        raise OutputError("%s: cannot write: %s" % (given, error.strerror or error)) from None
    with parent:
        return _install(files, copies, parent, name, given, force)


def _install(files: Dict[str, str], copies: Dict[str, Path], parent: FileRoot, name: str,
             given: Union[str, Path], force: bool) -> Path:
    """:func:`install_files` into the folder ``name`` of ``parent``."""
    shown = parent.path / name
    _remove_leftovers(parent, name)
    try:
        existing = parent.stat(name, follow=False) is not None
        if existing and not _is_empty_folder(parent, name):
            if not force:
                raise OutputExistsError("%s: already exists" % shown)
            reason = not_written_by_converter(RootedPath(parent, name))
            if reason is not None:
                raise NotConvertedOutputError("%s: not replaced: %s" % (shown, reason))
    except OSError as error:
        raise OutputError("%s: cannot write: %s" % (given, error.strerror or error)) from None
    files = dict(files)
    files[WRITTEN_LIST] = written_list(list(files) + list(copies))
    staging: Optional[str] = None
    lock: Optional[FileRoot] = None
    previous: Optional[str] = None
    try:
        try:
            with stop_signals_held():  # interrupted, nothing may be left unnamed
                staging = parent.make_unique_dir(".%s.converting-" % name)
            lock = _lock_folder(parent, staging)
            if lock is None:
                raise OSError(errno.EBUSY, "the staging folder was taken",
                              str(parent.path / staging))
            _write_files(files, copies, lock)
            os.chmod(lock.fileno(), 0o755)
            if _is_empty_folder(parent, name):
                parent.remove(name)
            elif parent.stat(name, follow=False) is not None:
                previous = staging + ".previous"
                parent.rename(name, previous)
            parent.rename(staging, name)
        except BaseException:
            if staging is not None:
                _remove_quietly(parent, staging)
            if previous is not None and parent.stat(name, follow=False) is None:
                try:  # put the old destination back
                    parent.rename(previous, name)
                except OSError:
                    pass
            raise
        finally:
            if lock is not None:
                lock.close()
        if previous is not None:
            _remove_quietly(parent, previous)
    except OSError as error:
        converted = _output_error(error, given, parent.path / staging if staging else None)
        if converted is error:
            raise
        raise converted from None
    return shown


def write_converted(behavior: Behavior, destination: Union[str, Path, RootedPath],
                    force: bool = False) -> ConversionReport:
    """Convert ``behavior`` into the folder ``destination``; see the module doc."""
    try:
        files, report = render(behavior)
    except XarError as error:
        raise error.located(behavior.source) from None
    report.output = install_files(files, destination, force)
    return report
