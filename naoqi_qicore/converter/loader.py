"""A behavior ready for the engine: its model, object names and Python 3 box code.

:func:`load_converted` reads a folder written by :mod:`naoqi_qicore.converter.writer`
back into the same model (through its box index, :mod:`~naoqi_qicore.converter.box_index`,
for the boxes whose files it matches); :func:`prepare` does in memory what the converter does
(naming and porting) for a behavior read from a ``.xar``.  Scripts that the converter
which wrote a folder could not port are ported again when the current one can.
"""
from __future__ import annotations

import errno
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Set, Tuple

from lxml import etree

from naoqi_qicore.converter.box_index import BoxIndex, holds_content
from naoqi_qicore.converter.naming import assign_names
from naoqi_qicore.converter.pyport import port_script, port_scripts
from naoqi_qicore.converter.writer import (BOX_FILE_ATTRIBUTES, BOX_INDEX, ENTRY_POINT, FORMAT,
                                           MAIN_PY, MANIFEST, PROJECT_ENTRY_POINT,
                                           READABLE_FORMATS, has_python, unported_code)
from naoqi_qicore.xar.elements import (MAX_DOCUMENT_BYTES, ElementReader, collector_paused,
                                       safe_xml_parser)
from naoqi_qicore.xar.errors import XarError
from naoqi_qicore.xar.model import ActuatorList, Behavior, Box, Extras

_PROJECT_ATTRIBUTES = ("tag", "name", "xar_version", "format_version", "namespace", "bare_root")


@dataclass
class LoadedBehavior:
    """A behavior with what the engine needs to run its boxes."""

    behavior: Behavior
    #: id(box) -> object name / file base, e.g. "l0_root", "l1_Say_1"
    names: Dict[int, str]
    #: object name -> Python 3 source to run for that box ("" when the box has no script)
    code: Dict[str, str]
    #: converted folder, or None when prepared in memory
    folder: Optional[Path]
    #: object name -> why its script does not compile under Python 3
    port_errors: Dict[str, str] = field(default_factory=dict)
    warnings: List[str] = field(default_factory=list)


def prepare(behavior: Behavior) -> LoadedBehavior:
    """Name the boxes of ``behavior`` and port their scripts, in memory."""
    names = assign_names(behavior)
    loaded = LoadedBehavior(behavior, names, {}, None, warnings=list(behavior.warnings))
    boxes = [box for _, box in behavior.root.walk()]
    loaded.code.update((names[id(box)], "") for box in boxes)
    scripted = [box for box in boxes if has_python(box.script)]
    for box, result in zip(scripted, port_scripts(box.script.content for box in scripted)):
        loaded.code[names[id(box)]] = result.code
        if result.error:
            loaded.port_errors[names[id(box)]] = result.error
            loaded.code[names[id(box)]] = unported_code(result.code, result.error)
    return loaded


class _FolderReader(ElementReader):
    """Reads the box files of a converted folder, following ``<Object Name>`` references,
    through the folder's box index (``index``) for the boxes whose files it matches.

    The folder is opened once (:meth:`close` closes it) and its files are opened in it by
    name, never following a link: a path is resolved once, not once per file."""

    diagram_box_tag = "Object"

    def __init__(self, folder: Path, index: Optional[BoxIndex] = None) -> None:
        super().__init__(str(folder))
        self.folder = folder
        #: the folder's path ending with a separator: file paths are built as plain strings
        self.prefix = os.path.join(str(folder), "")
        try:
            self.folder_fd = os.open(self.prefix, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError as error:
            raise XarError("cannot read: %s" % (error.strerror or error), str(folder)) from None
        self.index = index
        self.names: Dict[int, str] = {}
        self.code: Dict[str, str] = {}
        self.loading: Set[str] = set()
        #: the bytes of each distinct box script file read -> its text
        self.code_texts: Dict[bytes, str] = {}
        self.parser = safe_xml_parser()

    def close(self) -> None:
        os.close(self.folder_fd)

    def read(self, file_name: str) -> bytes:
        """The bytes of the folder's file ``file_name`` (XarError when it cannot be read)."""
        data = self.read_if_there(file_name)
        if data is None:
            raise XarError("cannot read: %s" % os.strerror(errno.ENOENT),
                           self.prefix + file_name)
        return data

    def read_if_there(self, file_name: str) -> Optional[bytes]:
        """The bytes of the folder's file ``file_name``, None when it is not there
        (XarError when it cannot be read)."""
        try:
            descriptor = os.open(file_name, _READ_IN_FOLDER, dir_fd=self.folder_fd)
        except FileNotFoundError:
            return None
        except OSError as error:
            raise XarError("cannot read: %s" % (error.strerror or error),
                           self.prefix + file_name) from None
        return _read_open(descriptor, file_name, self.prefix)

    def code_text(self, file_name: str) -> str:
        """The text of the folder's box script file ``file_name`` (see
        :func:`read_code_file`), one string for all equal files: boxes repeat library
        scripts, read once as text."""
        data = self.read(file_name)
        text = self.code_texts.get(data)
        if text is None:
            text = self.code_texts[data] = self.shared(_code_text(data,
                                                                  self.prefix + file_name))
        return text

    def document(self, file_name: str):
        """The root element of a file of the folder (XarError when missing or broken)."""
        return self.parse(self.prefix + file_name, self.read(file_name))

    def parse(self, path: str, data: bytes):
        """The root element of the file ``path`` holding ``data``."""
        self.source = path
        try:
            root = etree.fromstring(data, self.parser, base_url=path)
        except etree.XMLSyntaxError as error:
            line = error.position[0] if error.position else None
            raise XarError("not well-formed XML: %s" % error.msg, path, line) from None
        if root.get("format") not in READABLE_FORMATS:
            raise self.error(root, "not a %s file (format=%r)" % (FORMAT, root.get("format")))
        return root

    def load_box(self, name: str, element=None) -> Box:
        """The box of the file ``<name>.xml`` with its nested boxes."""
        if not name or not name.replace("_", "").isalnum():
            raise self.error(element, "invalid object name %r" % name)
        if name in self.loading:
            raise self.error(element, "object %r contains itself" % name)
        if name in self.code:
            raise self.error(element, "object %r is referenced twice" % name)
        self.loading.add(name)
        path = self.prefix + name + ".xml"
        data = self.read(name + ".xml")
        self.source = path
        indexed = self.index.box(self, name, data) if self.index is not None else None
        box, has_code, has_content = indexed or self.parse_box(name, path, data)
        code = ""
        if has_code:
            code = self.code_text(name + ".py")
            if box.script is not None and not has_content:
                box.script.content = code
        if box.timeline is not None:
            motion = self.read_if_there(name + "_timeline.xml")
            if motion is not None:  # else a timeline without motion: no motion file
                box.timeline.actuator_list = self.motion(name, motion)
        self.names[id(box)] = name
        self.code[name] = code
        self.loading.discard(name)
        return box

    def parse_box(self, name: str, path: str, data: bytes) -> Tuple[Box, bool, bool]:
        """The box of the box file ``path`` holding ``data``, whether it has a code file
        and whether its script element holds the script's text."""
        root = self.parse(path, data)
        if root.tag != "Box" or root.get("object") != name:
            raise self.error(root, "expected <Box object=%r>" % name)
        code_file = root.get("code")
        attributes = root.attrib
        for attribute in BOX_FILE_ATTRIBUTES:
            attributes.pop(attribute, None)
        box = self.box(root)
        if code_file is not None and code_file != name + ".py":
            raise self.error(root, "unexpected code file %r" % code_file)
        scripts = root.findall("script")  # the box's script is its last one
        return box, code_file is not None, bool(scripts) and holds_content(scripts[-1])

    def motion(self, name: str, data: bytes) -> Optional[ActuatorList]:
        """The motion of the box ``name`` from its motion file, which holds ``data``."""
        path = self.prefix + name + "_timeline.xml"
        self.source = path
        indexed = self.index.motion(self, name, data) if self.index is not None else None
        if indexed is not None:
            return indexed
        motion = self.parse(path, data)
        for attribute in ("format", "object"):
            motion.attrib.pop(attribute, None)
        return self.timeline(motion).actuator_list

    def diagram_box(self, element) -> Box:
        source = self.source
        box = self.load_box(self.required(element, "Name"), element)
        self.source = source
        return box


#: the first read of a file: a box file is a few kilobytes, read whole by one call
_FIRST_READ = 1 << 16
#: how the files of a converted folder are opened in it: never through a link
_READ_IN_FOLDER = os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW


def read_code_file(path: str, flags: int = 0) -> str:
    """The text of the box script file ``path`` (UTF-8, any line ending read as ``"\\n"``,
    as text files are read); XarError when it cannot be read, is too large or not UTF-8.
    ``flags`` are added to those ``path`` is opened with (``os.O_NOFOLLOW``...)."""
    return _code_text(_read_file(path, flags), path)


def _code_text(data: bytes, path: str) -> str:
    """The text of a box script file holding ``data`` (see :func:`read_code_file`)."""
    try:
        code = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise XarError("not UTF-8 text: %s" % error.reason, path) from None
    if "\r" in code:
        code = code.replace("\r\n", "\n").replace("\r", "\n")
    return code


def _read_file(path: str, flags: int = 0) -> bytes:
    """The bytes of the file ``path`` (XarError when it cannot be read or is too large).

    Plain system calls, and no ``fstat``: a behavior of thousands of boxes is thousands of
    small files, for which file objects and size queries cost more than the reading."""
    return _read_open(_open(path, flags), path)


def _open(path: str, flags: int = 0) -> int:
    """A descriptor of the file ``path`` open for reading with ``flags`` added (XarError
    when it cannot be opened)."""
    try:
        return os.open(path, os.O_RDONLY | os.O_CLOEXEC | flags)
    except OSError as error:
        raise XarError("cannot read: %s" % (error.strerror or error), path) from None


def _read_open(descriptor: int, path: str, folder: str = "") -> bytes:
    """The bytes of the file open as ``descriptor`` (``folder + path``: joined only for an
    error), which this closes."""
    try:
        data = os.read(descriptor, _FIRST_READ)
        if len(data) < _FIRST_READ and len(data) <= MAX_DOCUMENT_BYTES:
            return data  # read whole: a regular file reads short only at its end
        return b"".join(_pieces(descriptor, folder + path, data))
    except OSError as error:
        raise XarError("cannot read: %s" % (error.strerror or error), folder + path) from None
    finally:
        os.close(descriptor)


def _pieces(descriptor: int, path: str, first: bytes = b"") -> Iterator[bytes]:
    """``first``, then the rest of the file open as ``descriptor`` (``path``) in pieces of
    :data:`_FIRST_READ` bytes; XarError when it is longer than ``MAX_DOCUMENT_BYTES``,
    OSError when it cannot be read."""
    data, size = first, len(first)
    while True:
        if size > MAX_DOCUMENT_BYTES:
            raise XarError("file too large", path)
        if data:
            yield data
        data = os.read(descriptor, _FIRST_READ)
        if not data:
            return
        size += len(data)


def _read_pieces(path: str, flags: int = 0) -> Iterator[bytes]:
    """The bytes of the file ``path`` (opened with ``flags`` added) in pieces, which a parser
    is fed without ever holding the whole file (XarError when it cannot be read or is too
    large)."""
    descriptor = _open(path, flags)
    try:
        yield from _pieces(descriptor, path)
    except OSError as error:
        raise XarError("cannot read: %s" % (error.strerror or error), path) from None
    finally:
        os.close(descriptor)


def load_converted(folder: Path) -> LoadedBehavior:
    """Read the converted behavior in ``folder``; raises XarError when it is not one.

    The box index, when the folder has one, gives the boxes whose files it matches;
    a read through it that fails or warns is done again from the files alone, whose
    errors and warnings name the file and line concerned.  An entry point written by an
    older converter, which no longer runs, is a warning too."""
    folder = Path(folder)
    loaded = _load_folder(folder)
    outdated = outdated_entry_point(folder)
    if outdated is not None:
        loaded.warnings.append(outdated)
    return loaded


def _load_folder(folder: Path) -> LoadedBehavior:
    with collector_paused():
        index, warning = _box_index(folder)
        if index is not None:
            try:
                loaded = _read_converted(folder, index)
                if not loaded.warnings:
                    return loaded
            except XarError:
                pass
        loaded = _read_converted(folder, None)
        if warning is not None:
            loaded.warnings.append(warning)
        return loaded


#: how every entry point the converter writes begins, whatever its version
_ENTRY_POINT_HEADER = (MAIN_PY.split('"""\n', 2)[0] + '"""').encode("utf-8")


def outdated_entry_point(folder: Path) -> Optional[str]:
    """Why the entry point a conversion wrote in ``folder`` does not run any more (written by
    an older converter: it imports what has moved since), or None when it is current (or
    not the converter's)."""
    current = MAIN_PY.encode("utf-8")
    for name in (PROJECT_ENTRY_POINT, ENTRY_POINT):
        try:
            descriptor = os.open(os.path.join(str(folder), name),
                                 os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
        except OSError:
            continue
        try:  # an entry point of ours is short: what is longer is not one of the current
            start = os.read(descriptor, len(current) + 1)
        except OSError:
            return None
        finally:
            os.close(descriptor)
        if start.startswith(_ENTRY_POINT_HEADER) and start != current:
            return ("%s: written by an older xar_convert, it does not run with this version: "
                    "convert the behavior again (xar_convert SOURCE %s --force)"
                    % (os.path.join(str(folder), name), folder))
        return None
    return None


def _box_index(folder: Path) -> Tuple[Optional[BoxIndex], Optional[str]]:
    """The box index of ``folder`` (None when it has none), or None and why it is not
    used (a broken one)."""
    prefix = os.path.join(str(folder), "")
    if not os.path.isfile(prefix + BOX_INDEX):
        return None, None
    # read in pieces: the index of a large behavior is megabytes
    pieces = _read_pieces(prefix + BOX_INDEX, os.O_NOFOLLOW)  # as the box files: no link
    try:
        return BoxIndex.read(prefix, pieces), None
    except XarError as error:
        return None, "%s (not used: the box files are read instead)" % error
    finally:
        pieces.close()


def _read_converted(folder: Path, index: Optional[BoxIndex]) -> LoadedBehavior:
    reader = _FolderReader(folder, index)
    try:
        return _read_with(reader, folder)
    finally:
        reader.close()


def _read_with(reader: _FolderReader, folder: Path) -> LoadedBehavior:
    manifest = reader.document(MANIFEST)
    root_name = reader.required(manifest, "root")
    behavior = Behavior(root=Box("root", -1), source=manifest.get("source", ""))
    port_errors: Dict[str, str] = {}
    for child in manifest:
        if child.tag == "Script" and child.get("ported") == "0":
            port_errors[reader.required(child, "object")] = child.get("error", "")
        elif child.tag == "Project":
            get = child.get
            behavior.root_tag = get("tag", behavior.root_tag)
            behavior.name, behavior.xar_version = get("name"), get("xar_version")
            behavior.format_version = get("format_version")
            behavior.namespace = get("namespace", "")
            behavior.bare_root = get("bare_root") == "1"
            behavior.extras = Extras({k: v for k, v in child.attrib.items()
                                      if k not in _PROJECT_ATTRIBUTES},
                                     [etree.tostring(c, encoding="unicode", with_tail=False)
                                      for c in child])
    behavior.root = reader.load_box(root_name, manifest)
    if port_errors:
        _port_again(behavior, reader.names, reader.code, port_errors)
    return LoadedBehavior(behavior, reader.names, reader.code, folder, port_errors,
                          warnings=reader.warnings)


def _port_again(behavior: Behavior, names: Dict[int, str], code: Dict[str, str],
                port_errors: Dict[str, str]) -> None:
    """Port again the scripts an older converter could not port (their ``.py`` is still
    the original commented out): what porting learnt since (indentation mixing tabs and
    spaces...) makes them run.  A ``.py`` edited since is left as it is."""
    for _, box in behavior.root.walk():
        name = names.get(id(box))
        if name not in port_errors or box.script is None:
            continue
        original = box.script.content
        if code.get(name) != unported_code(original, port_errors[name]):
            continue
        result = port_script(original)
        if result.error is None:
            code[name] = result.code
            del port_errors[name]
