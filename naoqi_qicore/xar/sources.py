"""The containers behaviors come in, read without extracting anything to disk.

* ``.xar`` — one behavior;
* a folder — the project (``.pml``) it holds, else its ``behavior.xar``;
* ``.pml`` — a Choregraphe project: every ``BehaviorDescription`` it lists;
* ``.crg`` / ``.cbl`` — an ``ar`` archive whose ``data.tar.gz`` holds the ``.xar`` files
  (a behavior, or the ``ChoregrapheBox`` files of a box library);
* ``.pkg`` — a zip package whose ``manifest.xml`` lists its behaviors.

Archive members are read in memory with size limits (no member larger than the parser
accepts, bounded totals, no absolute or ``..`` paths); truncated or malformed archives
give an :class:`~naoqi_qicore.xar.errors.XarError`.  Compressed data is decompressed as a
stream with a running count, and refused as soon as it grows past
:data:`MAX_COMPRESSION_RATIO` times its compressed size (when that is more than
:data:`RATIO_FREE_BYTES`): a decompression bomb costs no more memory than that limit.
"""
from __future__ import annotations

import io
import posixpath
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional, Union

from lxml import etree

from naoqi_qicore.xar.elements import MAX_DOCUMENT_BYTES, SiblingReader, safe_xml_parser
from naoqi_qicore.xar.errors import XarError
from naoqi_qicore.xar.model import Behavior, Record
from naoqi_qicore.xar.parser import parse_xar_bytes, parse_xar_file

#: file suffixes this module reads
SUFFIXES = (".xar", ".pml", ".crg", ".cbl", ".pkg")
#: the most an archive may hold, uncompressed, and the most members it may list
MAX_ARCHIVE_BYTES = 512 * 1024 * 1024
MAX_ARCHIVE_MEMBERS = 100_000
#: the most compressed data may grow when decompressed (times its compressed size) ...
MAX_COMPRESSION_RATIO = 100
#: ... once it is larger than this (small, highly compressible XML is fine)
RATIO_FREE_BYTES = 8 * 1024 * 1024
_CHUNK = 1 << 20

_AR_MAGIC = b"!<arch>\n"
_AR_HEADER = 60


class NamedBehavior(Record):
    """A behavior and its name inside its container ("behavior_1", "Database/box")."""

    __slots__ = ("name", "behavior", "path")

    def __init__(self, name: str, behavior: Behavior, path: Optional[str] = None) -> None:
        self.name = name
        self.behavior = behavior
        #: the behavior file's path inside a project folder (``behavior_1/behavior.xar``)
        self.path = path


def _safe_member(name: str, container: str) -> str:
    """``name`` normalised; refuses absolute paths and ``..`` (XarError)."""
    normal = posixpath.normpath(name.replace("\\", "/"))
    if normal.startswith("/") or normal == ".." or normal.startswith("../") or ":" in normal:
        raise XarError("refusing the member path %r" % name, container)
    return normal


def ar_members(data: bytes, source: str) -> Dict[str, bytes]:
    """The members of an ``ar`` archive (name -> bytes)."""
    if not data.startswith(_AR_MAGIC):
        raise XarError("not an ar archive", source)
    members: Dict[str, bytes] = {}
    offset = len(_AR_MAGIC)
    while offset < len(data):
        header = data[offset:offset + _AR_HEADER]
        if len(header) < _AR_HEADER or header[58:60] != b"`\n":
            raise XarError("truncated or corrupt ar archive (member header at byte %d)" % offset,
                           source)
        name = header[:16].decode("utf-8", "replace").strip()
        try:
            size = int(header[48:58].decode("ascii").strip())
        except ValueError:
            raise XarError("corrupt ar archive (size of %r)" % name, source) from None
        start = offset + _AR_HEADER
        if size < 0 or start + size > len(data):
            raise XarError("truncated ar archive (member %r)" % name, source)
        members[name.rstrip("/")] = data[start:start + size]
        offset = start + size + (size & 1)
        if len(members) > MAX_ARCHIVE_MEMBERS:
            raise XarError("ar archive with too many members", source)
    return members


def decompressed_limit(compressed: int) -> int:
    """The most ``compressed`` bytes may decompress to (ratio and total limits)."""
    return min(MAX_ARCHIVE_BYTES, max(RATIO_FREE_BYTES, MAX_COMPRESSION_RATIO * compressed))


def _bomb(source: str, member: str, compressed: int, inner: str = "") -> XarError:
    return XarError("%s decompresses to more than %d MB, over %d times its compressed size "
                    "(%d bytes)%s: refusing a likely decompression bomb"
                    % (member, decompressed_limit(compressed) >> 20, MAX_COMPRESSION_RATIO,
                       compressed, " (at %s)" % inner if inner else ""), source)


class _CountedReader(io.RawIOBase):
    """Reads a decompressing stream, raising ``refuse()`` (an XarError) once more than
    ``limit`` bytes came out."""

    def __init__(self, stream, limit: int, refuse: Callable[[], XarError]) -> None:
        super().__init__()
        self.stream, self.limit, self.refuse, self.count = stream, limit, refuse, 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0 or size > _CHUNK:
            size = _CHUNK  # never more than a chunk at once: the count stays ahead
        data = self.stream.read(size)
        self.count += len(data)
        if self.count > self.limit:
            raise self.refuse()
        return data

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)


def tar_members(data: bytes, source: str, name: str = "data.tar.gz") -> Dict[str, bytes]:
    """The regular files of a gzip-compressed tar (path -> bytes), in archive order,
    decompressed as a stream (at most :func:`decompressed_limit` bytes)."""
    import gzip  # archive modules: imported by the inputs that need them
    import tarfile
    import zlib

    found: Dict[str, bytes] = {}
    total = 0
    current = [""]
    counted = _CountedReader(gzip.GzipFile(fileobj=io.BytesIO(data), mode="rb"),
                             decompressed_limit(len(data)),
                             lambda: _bomb(source, name, len(data), current[0]))
    try:
        with tarfile.open(fileobj=counted, mode="r|") as archive:
            for count, member in enumerate(archive):
                current[0] = member.name
                if count > MAX_ARCHIVE_MEMBERS:
                    raise XarError("archive with too many members", source)
                total += max(member.size, 0)
                if total > MAX_ARCHIVE_BYTES:
                    raise XarError("archive larger than %d MB uncompressed"
                                   % (MAX_ARCHIVE_BYTES >> 20), source)
                if not member.isfile():
                    continue
                path = _safe_member(member.name, source)
                if member.size > MAX_DOCUMENT_BYTES:
                    raise XarError("%s is larger than %d MB" % (path, MAX_DOCUMENT_BYTES >> 20),
                                   source)
                stream = archive.extractfile(member)
                found[path] = stream.read() if stream is not None else b""
    except (tarfile.TarError, EOFError, OSError, zlib.error) as error:
        raise XarError("truncated or corrupt %s: %s" % (name, error), source) from None
    return found


def _member_reader(folder: str, read: Callable[[str], Optional[bytes]]) -> SiblingReader:
    """Reads the archive members next to a behavior in ``folder`` by relative path."""
    def read_sibling(relative: str) -> Optional[bytes]:
        return read(posixpath.normpath(posixpath.join(folder, relative)))
    return read_sibling


def _read_limited(path: Path) -> bytes:
    try:
        if path.stat().st_size > MAX_ARCHIVE_BYTES:
            raise XarError("file larger than %d MB" % (MAX_ARCHIVE_BYTES >> 20), str(path))
        return path.read_bytes()
    except OSError as error:
        raise XarError("cannot read: %s" % (error.strerror or error), str(path)) from None


def _stem(path: str) -> str:
    """``a/b/behavior.xar`` -> ``a/b``; ``Database/box.xar`` -> ``Database/box``."""
    head, tail = posixpath.split(path)
    stem = posixpath.splitext(tail)[0]
    return head if stem == "behavior" and head else posixpath.join(head, stem)


def read_ar_container(path: Path) -> Iterator[NamedBehavior]:
    """The behaviors of a ``.crg`` or the boxes of a ``.cbl`` (ar + data.tar.gz)."""
    source = str(path)
    members = ar_members(_read_limited(path), source)
    if "data.tar.gz" not in members:
        raise XarError("no data.tar.gz in the archive", source)
    files = tar_members(members["data.tar.gz"], source)
    xars = [member for member in files if member.lower().endswith(".xar")]
    if not xars:
        raise XarError("no .xar file in data.tar.gz", source)
    for member in xars:
        yield NamedBehavior(_stem(member), parse_xar_bytes(
            files[member], "%s!%s" % (source, member),
            _member_reader(posixpath.dirname(member), files.get)))


def read_pml(path: Path, missing: Optional[List[str]] = None) -> Iterator[NamedBehavior]:
    """Every behavior a Choregraphe project file lists.

    With a ``missing`` list, behaviors whose file is absent are added to it (their
    relative paths) instead of failing the whole project.
    """
    source = str(path)
    try:
        root = etree.fromstring(_read_limited(path), safe_xml_parser())
    except etree.XMLSyntaxError as error:
        raise XarError("not well-formed XML: %s" % error.msg, source,
                       error.position[0] if error.position else None) from None
    descriptions = root.findall(".//BehaviorDescription")
    if not descriptions:
        raise XarError("the project lists no BehaviorDescription", source, root.sourceline,
                       root.tag if isinstance(root.tag, str) else None)
    for description in descriptions:
        folder = _safe_member(description.get("src", "."), source)
        xar = _safe_member(posixpath.join(folder, description.get("xar", "behavior.xar")), source)
        if not (path.parent / xar).resolve().is_relative_to(path.parent.resolve()):
            raise XarError("refusing %s: a symbolic link leads it outside the project's "
                           "folder" % xar, source, description.sourceline, "BehaviorDescription")
        if missing is not None and not (path.parent / xar).exists():
            missing.append(xar)
            continue
        yield NamedBehavior(folder if folder != "." else path.stem,
                            parse_xar_file(path.parent / xar), xar)


def read_pkg(path: Path) -> Iterator[NamedBehavior]:
    """Every behavior of a ``.pkg`` (zip) listed by its ``manifest.xml``."""
    import zipfile  # imported by the inputs that need it

    source = str(path)
    try:
        with zipfile.ZipFile(path) as archive:
            infos = {_safe_member(info.filename, source): info for info in archive.infolist()}
            if sum(info.file_size for info in infos.values()) > MAX_ARCHIVE_BYTES:
                raise XarError("package larger than %d MB uncompressed"
                               % (MAX_ARCHIVE_BYTES >> 20), source)

            total = [0, decompressed_limit(path.stat().st_size)]

            def read(name: str) -> bytes:
                info = infos.get(name)
                if info is None:
                    raise XarError("%s is not in the package" % name, source)
                if info.file_size > MAX_DOCUMENT_BYTES:
                    raise XarError("%s is larger than %d MB" % (name, MAX_DOCUMENT_BYTES >> 20),
                                   source)
                limit = min(decompressed_limit(info.compress_size), total[1] - total[0])
                if info.file_size > limit:
                    raise _bomb(source, name, info.compress_size)
                chunks = []
                with archive.open(info) as stream:  # stops at file_size, checks the CRC
                    counted = _CountedReader(stream, limit,
                                             lambda: _bomb(source, name, info.compress_size))
                    for chunk in iter(counted.read, b""):
                        chunks.append(chunk)
                total[0] += counted.count
                return b"".join(chunks)

            manifest = parse_manifest(read("manifest.xml"), "%s!manifest.xml" % source)
            behaviors = [(folder, _safe_member(posixpath.join(folder, "behavior.xar"), source))
                         for folder in manifest]
            def read_present(name: str) -> Optional[bytes]:
                return read(name) if name in infos else None

            for folder, member in behaviors:
                yield NamedBehavior(folder, parse_xar_bytes(read(member),
                                                            "%s!%s" % (source, member),
                                                            _member_reader(folder, read_present)))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError,
            zipfile.zlib.error) as error:
        raise XarError("truncated or corrupt package: %s" % error, source) from None


def parse_manifest(data: bytes, source: str) -> List[str]:
    """The behavior folders a package ``manifest.xml`` lists (``<behavior path>``)."""
    try:
        root = etree.fromstring(data, safe_xml_parser())
    except etree.XMLSyntaxError as error:
        raise XarError("not well-formed XML: %s" % error.msg, source,
                       error.position[0] if error.position else None) from None
    folders = [behavior.get("path") for behavior in root.iter("behavior")
               if behavior.get("path") is not None]
    if not folders:
        raise XarError("the manifest lists no <behavior path=...>", source, root.sourceline)
    return [_safe_member(folder, source) for folder in folders]


def read_behaviors(path: Union[str, Path],
                   missing: Optional[List[str]] = None) -> List[NamedBehavior]:
    """Every behavior in ``path`` (a file of :data:`SUFFIXES` or a folder); XarError if none.

    ``missing``: see :func:`read_pml`.
    """
    path = Path(path)
    if path.is_dir():
        projects = sorted(path.glob("*.pml"))
        if len(projects) == 1:
            return read_behaviors(projects[0], missing)
        if (path / "behavior.xar").is_file():
            return [NamedBehavior(path.name, parse_xar_file(path / "behavior.xar"))]
        raise XarError("a folder to convert must hold one .pml project or behavior.xar",
                       str(path))
    if not path.exists():
        raise XarError("no such file or folder", str(path))
    suffix = path.suffix.lower()
    if suffix == ".xar":
        return [NamedBehavior(path.stem, parse_xar_file(path))]
    if suffix == ".pml":
        behaviors = list(read_pml(path, missing))
        if not behaviors:
            raise XarError("none of the behaviors the project lists is there (%s)"
                           % ", ".join(missing or []), str(path))
        return behaviors
    if suffix in (".crg", ".cbl"):
        return list(read_ar_container(path))
    if suffix == ".pkg":
        return list(read_pkg(path))
    raise XarError("unsupported input (expected %s or a folder)" % ", ".join(SUFFIXES), str(path))
