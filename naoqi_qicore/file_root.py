"""Files inside a root folder, reached by directory handles: nothing outside the root is
written, replaced, removed, read for a client or served through it.

A :class:`FileRoot` opens its folder once (that path is trusted: the user or the program
chose it) and reaches every file below it from that handle, one name at a time
(``openat``/``fstatat``/``mkdirat``/``renameat``/``unlinkat`` with ``O_NOFOLLOW``), never
by a path looked up again:

* a symbolic link below the root is followed only while it stays beneath it: the walk
  reads the link (``readlinkat``) and goes on from the folder handles it holds, so an
  absolute link, or one whose ``..`` climbs above the root, is refused
  (:class:`OutsideRootError`), whatever the link or the folders around it become
  meanwhile (a folder swapped for a link between two steps is seen by ``O_NOFOLLOW``);
* a file read (:meth:`FileRoot.open_read`) is a regular file with one link: the content
  of a hard link planted in the root may be a file that lives outside it;
* a file written is a new file renamed into place (:meth:`FileRoot.replace`): a link or
  a hard link that was there is replaced, never written through;
* a tree is removed from handles, never following a link (:meth:`FileRoot.remove`).

Calls hand back handles (file objects; a :class:`FileRoot` of a folder below), never a path
to open again; a :class:`RootedPath` names a place below a root for code that passes
places around.  Paths in errors are shown under the root's ``display`` name (the robot's
files show robot paths); :attr:`FileRoot.path` is for messages of the root's owner only.
"""
from __future__ import annotations

import errno
import os
import stat
import weakref
from contextlib import contextmanager
from pathlib import Path, PurePath
from typing import BinaryIO, ContextManager, Iterator, List, Optional, Sequence, Tuple, Union

#: links followed in one walk (Linux's own limit)
MAX_LINKS = 40
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW | _CLOEXEC
#: a FIFO planted where a file is read must not block the open
_READ_FLAGS = os.O_RDONLY | _NOFOLLOW | _CLOEXEC | getattr(os, "O_NONBLOCK", 0)
_NEW_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC

Relative = Union[str, PurePath]


class OutsideRootError(OSError):
    """A place below a root that leads out of it (a symbolic link), or a file whose
    content may live outside it (a hard link)."""

    def __init__(self, shown: str, reason: str) -> None:
        super().__init__(errno.EPERM, reason, shown)


def _names(relative: Relative) -> List[str]:
    """The names of a ``/``-separated relative path (``.`` and empty names dropped, ``..``
    kept: the walk climbs its own handles)."""
    text = relative.as_posix() if isinstance(relative, PurePath) else relative
    if "\0" in text:
        raise OSError(errno.EINVAL, "a file name cannot hold a NUL character", text)
    return [name for name in text.split("/") if name not in ("", ".")]


def unique_name(prefix: str) -> str:
    """``prefix`` and 12 random letters or digits (what ``tempfile`` makes, without
    importing it)."""
    letters = "abcdefghijklmnopqrstuvwxyz0123456789"
    return prefix + "".join(letters[byte % len(letters)] for byte in os.urandom(12))


class FileRoot:
    """A folder opened once, and the files below it reached from that handle (see the
    module).  ``label`` names the root in errors (``the robot's files``); ``display`` is
    the path a place below it is shown under (default: the folder's own path).  ``create``:
    make the folder (and its parents) first.  Close it (or use it as a context manager);
    an unreferenced root closes its handle."""

    def __init__(self, path: Union[str, PurePath], label: str = "", display: str = "",
                 create: bool = False) -> None:
        if create:
            os.makedirs(path, exist_ok=True)
        self._adopt(os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _CLOEXEC),
                    Path(os.path.abspath(path)), label, display)

    def _adopt(self, handle: int, path: Path, label: str, display: str) -> None:
        self._handle = handle
        self._close = weakref.finalize(self, os.close, handle)
        #: the folder's path on this machine, for its owner's messages only
        self.path = path
        self.label = label or "the folder %s" % path
        self.display = display or str(path)

    def _below(self, handle: int, relative: str) -> "FileRoot":
        """A root of the folder ``handle`` (taken over), at ``relative`` below this one."""
        folder = FileRoot.__new__(FileRoot)
        folder._adopt(handle, self.path / relative if relative else self.path, self.label,
                      self.shown(relative))
        return folder

    def close(self) -> None:
        """Close the folder's handle (a later use fails: its number is forgotten)."""
        self._handle = -1
        self._close()

    def __enter__(self) -> "FileRoot":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def fileno(self) -> int:
        """The folder's handle (valid while this root is open)."""
        return self._handle

    def shown(self, relative: Relative = "") -> str:
        """How ``relative`` is shown in messages: under :attr:`display`."""
        text = "/".join(_names(relative))
        if not text:
            return self.display
        return self.display.rstrip("/") + "/" + text

    # -- walking ---------------------------------------------------------------------------
    def _walk(self, relative: Relative, *, to_folder: bool, follow_last: bool,
              create: bool = False) -> Tuple[int, str]:
        """A new handle of the folder holding the last name of ``relative``, and that name
        (``to_folder``: every name is opened as a folder, the name returned is "").  Links
        are followed beneath the root only; the last name's when ``follow_last``;
        ``create`` makes missing folders on the way."""
        pending = _names(relative)[::-1]
        stack = [os.dup(self._handle)]
        hops = 0
        try:
            while pending:
                name = pending.pop()
                if name == "..":
                    if len(stack) == 1:
                        raise OutsideRootError(self.shown(relative), "leads out of %s (..)"
                                               % self.label)
                    os.close(stack.pop())
                    continue
                last = not pending
                if last and not to_folder and not follow_last:
                    return stack.pop(), name
                try:
                    info = os.stat(name, dir_fd=stack[-1], follow_symlinks=False)
                except FileNotFoundError:
                    if last and not to_folder:
                        return stack.pop(), name
                    if not create:
                        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT),
                                                self.shown(relative)) from None
                    try:
                        os.mkdir(name, 0o777, dir_fd=stack[-1])
                    except FileExistsError:  # made meanwhile: looked at again
                        hops += 1
                        pending.append(name)
                        continue
                    stack.append(os.open(name, _FOLDER_FLAGS, dir_fd=stack[-1]))
                    continue
                if stat.S_ISLNK(info.st_mode):
                    hops += 1
                    if hops > MAX_LINKS:
                        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), self.shown(relative))
                    target = os.readlink(name, dir_fd=stack[-1])
                    if target.startswith("/"):
                        raise OutsideRootError(self.shown(relative), "a symbolic link leads "
                                               "out of %s" % self.label)
                    pending.extend(part for part in reversed(target.split("/"))
                                   if part not in ("", "."))
                    continue
                if last and not to_folder:
                    return stack.pop(), name
                try:
                    stack.append(os.open(name, _FOLDER_FLAGS, dir_fd=stack[-1]))
                except OSError as error:
                    if error.errno == errno.ENOTDIR:
                        raise NotADirectoryError(errno.ENOTDIR, "not a folder",
                                                 self.shown(relative)) from None
                    if error.errno != errno.ELOOP or hops >= MAX_LINKS:
                        raise
                    hops += 1  # made a link since it was looked at: looked at again
                    pending.append(name)
            return stack.pop(), ""
        finally:
            for handle in stack:
                os.close(handle)

    def folder(self, relative: Relative, create: bool = False) -> "FileRoot":
        """The folder ``relative`` as a root of its own (links beneath this root followed);
        ``create`` makes it and the folders on the way."""
        handle, _ = self._walk(relative, to_folder=True, follow_last=True, create=create)
        return self._below(handle, "/".join(_names(relative)))

    def make_dirs(self, relative: Relative) -> None:
        """Make the folder ``relative`` and the folders on the way (as ``mkdir -p``)."""
        os.close(self._walk(relative, to_folder=True, follow_last=True, create=True)[0])

    @contextmanager
    def _parent(self, relative: Relative, follow_last: bool) -> Iterator[Tuple[int, str]]:
        """The handle of the folder holding ``relative`` and its last name (not "")."""
        handle, name = self._walk(relative, to_folder=False, follow_last=follow_last)
        try:
            if not name:
                raise IsADirectoryError(errno.EISDIR, "is a folder", self.shown(relative))
            yield handle, name
        except OSError as error:  # named by the name alone: named as shown
            if error.filename != name or isinstance(error, OutsideRootError):
                raise
            raise type(error)(error.errno, error.strerror, self.shown(relative)) from None
        finally:
            os.close(handle)

    # -- reading ---------------------------------------------------------------------------
    def stat(self, relative: Relative, follow: bool = True) -> Optional[os.stat_result]:
        """The status of ``relative`` (its link's own with ``follow`` false); None when
        nothing is there that can be reached below the root (missing, a name too long, or
        behind a link leading out of it or looping)."""
        try:
            handle, name = self._walk(relative, to_folder=False, follow_last=follow)
        except (FileNotFoundError, NotADirectoryError, OutsideRootError):
            return None
        except OSError as error:
            if error.errno in (errno.ELOOP, errno.ENAMETOOLONG):
                return None
            raise
        try:
            return os.stat(name or ".", dir_fd=handle, follow_symlinks=False)
        except (FileNotFoundError, NotADirectoryError):
            return None
        finally:
            os.close(handle)

    def exists(self, relative: Relative) -> bool:
        return self.stat(relative) is not None

    def is_file(self, relative: Relative) -> bool:
        info = self.stat(relative)
        return info is not None and stat.S_ISREG(info.st_mode)

    def is_dir(self, relative: Relative) -> bool:
        info = self.stat(relative)
        return info is not None and stat.S_ISDIR(info.st_mode)

    def names(self, relative: Relative = "") -> List[str]:
        """The names in the folder ``relative``, sorted."""
        with self.folder(relative) as folder:
            return sorted(os.listdir(folder.fileno()))

    def open_read(self, relative: Relative) -> BinaryIO:
        """The regular file ``relative`` open for reading; :class:`OutsideRootError` when a
        link leads out or it has other hard links (its content may live outside)."""
        with self._parent(relative, follow_last=True) as (handle, name):
            descriptor = os.open(name, _READ_FLAGS, dir_fd=handle)
        try:
            info = os.fstat(descriptor)
            if not stat.S_ISREG(info.st_mode):
                raise OSError(errno.EINVAL, "not a regular file", self.shown(relative))
            if info.st_nlink > 1:
                raise OutsideRootError(self.shown(relative), "a hard link: its content may "
                                       "live outside %s" % self.label)
            return open(descriptor, "rb")
        except BaseException:
            os.close(descriptor)
            raise

    def read_link(self, relative: Relative) -> Optional[str]:
        """The target of the symbolic link ``relative``, None when it is none."""
        try:
            with self._parent(relative, follow_last=False) as (handle, name):
                return os.readlink(name, dir_fd=handle)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as error:
            if error.errno == errno.EINVAL:  # not a link
                return None
            raise

    # -- writing ---------------------------------------------------------------------------
    @contextmanager
    def replace(self, relative: Relative, mode: int = 0o666) -> Iterator[BinaryIO]:
        """A new file to write, put in the place of ``relative`` when the block ends
        without error (removed otherwise): whatever was there (a file, a link, a hard
        link) is replaced, never written through; the folders on the way must exist."""
        with self._parent(relative, follow_last=False) as (handle, name):
            temporary = unique_name(".replacing-")
            descriptor = os.open(temporary, _NEW_FILE_FLAGS, mode, dir_fd=handle)
            try:
                with open(descriptor, "wb") as stream:
                    yield stream
                os.replace(temporary, name, src_dir_fd=handle, dst_dir_fd=handle)
            except BaseException:
                try:
                    os.unlink(temporary, dir_fd=handle)
                except OSError:
                    pass
                raise

    def write_bytes(self, relative: Relative, data: bytes) -> None:
        """Replace ``relative`` by a file holding ``data``."""
        with self.replace(relative) as stream:
            stream.write(data)

    def make_unique_dir(self, prefix: str, mode: int = 0o700) -> str:
        """A new empty folder ``<prefix>XXXXXXXXXXXX`` in this root; its name."""
        for _ in range(100):
            name = unique_name(prefix)
            try:
                os.mkdir(name, mode, dir_fd=self._handle)
            except FileExistsError:
                continue
            return name
        raise FileExistsError(errno.EEXIST, "no free folder name", self.shown(prefix))

    def rename(self, source: Relative, target: Relative) -> None:
        """Move ``source`` to ``target`` (replacing a file, a link or an empty folder
        there); neither last name is followed."""
        with self._parent(source, follow_last=False) as (source_handle, source_name), \
                self._parent(target, follow_last=False) as (target_handle, target_name):
            os.replace(source_name, target_name, src_dir_fd=source_handle,
                       dst_dir_fd=target_handle)

    def symlink(self, target: str, relative: Relative) -> None:
        """Make ``relative`` a symbolic link to ``target`` (relative to its folder)."""
        with self._parent(relative, follow_last=False) as (handle, name):
            os.symlink(target, name, dir_fd=handle)

    def remove(self, relative: Relative) -> bool:
        """Remove ``relative``: a file, a link (not what it points to) or a whole folder,
        from handles; False when nothing was there."""
        with self._parent(relative, follow_last=False) as (handle, name):
            try:
                info = os.stat(name, dir_fd=handle, follow_symlinks=False)
            except FileNotFoundError:
                return False
            if stat.S_ISDIR(info.st_mode):
                _remove_tree(handle, name)
            else:
                os.unlink(name, dir_fd=handle)
            return True

    def copy_in(self, source: Union[str, PurePath], relative: Relative,
                skipped: Sequence[str] = ()) -> None:
        """Copy the file or folder ``source`` of this machine (its links followed, dangling
        ones and files that are not regular left out, names in ``skipped`` too) to
        ``relative``, merged into what is there; files keep their mode and times."""
        info = os.stat(source)
        if stat.S_ISDIR(info.st_mode):
            with self.folder(relative, create=True) as folder:
                _copy_folder(str(source), folder.fileno(), frozenset(skipped))
            return
        with self._parent(relative, follow_last=False) as (handle, name):
            _copy_file(str(source), handle, name)


def _remove_tree(parent: int, name: str) -> None:
    """Remove the folder ``name`` of the folder ``parent`` and all it holds (no link is
    followed: a folder swapped for a link meanwhile fails to open)."""
    handle = os.open(name, _FOLDER_FLAGS, dir_fd=parent)
    try:
        with os.scandir(handle) as scan:
            entries = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in scan]
        for entry, is_folder in entries:
            if is_folder:
                _remove_tree(handle, entry)
            else:
                os.unlink(entry, dir_fd=handle)
    finally:
        os.close(handle)
    os.rmdir(name, dir_fd=parent)


def _copy_file(source: str, folder: int, name: str) -> None:
    """Copy the regular file ``source`` (else nothing) to a new file ``name`` of
    ``folder`` (replacing what was there)."""
    try:
        reader = os.open(source, os.O_RDONLY | _CLOEXEC | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:  # a dangling link
        return
    with open(reader, "rb") as stream:
        info = os.fstat(reader)
        if not stat.S_ISREG(info.st_mode):
            return
        try:
            os.unlink(name, dir_fd=folder)
        except FileNotFoundError:
            pass
        writer = os.open(name, _NEW_FILE_FLAGS, stat.S_IMODE(info.st_mode), dir_fd=folder)
        with open(writer, "wb") as out:
            while True:
                chunk = stream.read(1 << 20)
                if not chunk:
                    break
                out.write(chunk)
            out.flush()
            os.utime(writer, ns=(info.st_atime_ns, info.st_mtime_ns))


def _copy_folder(source: str, folder: int, skipped: frozenset) -> None:
    try:
        with os.scandir(source) as scan:
            entries = sorted(scan, key=lambda entry: entry.name)
    except FileNotFoundError:  # gone while its folder was copied
        return
    for entry in entries:
        if entry.name in skipped:
            continue
        path = os.path.join(source, entry.name)
        try:
            is_folder = entry.is_dir()
        except OSError:
            continue
        if not is_folder:
            _copy_file(path, folder, entry.name)
            continue
        try:
            os.mkdir(entry.name, 0o777, dir_fd=folder)
        except FileExistsError:
            pass
        handle = os.open(entry.name, _FOLDER_FLAGS, dir_fd=folder)
        try:
            _copy_folder(path, handle, skipped)
        finally:
            os.close(handle)


class RootedPath:
    """A place below a :class:`FileRoot`: the root (its handle) and a relative path."""

    __slots__ = ("root", "relative")

    def __init__(self, root: FileRoot, relative: Relative = "") -> None:
        self.root = root
        self.relative = "/".join(_names(relative))

    def __repr__(self) -> str:
        return "RootedPath(%r)" % self.shown

    def __truediv__(self, name: Relative) -> "RootedPath":
        other = name.as_posix() if isinstance(name, PurePath) else name
        return RootedPath(self.root, self.relative + "/" + other)

    @property
    def shown(self) -> str:
        """How it is shown in messages (under its root's ``display``)."""
        return self.root.shown(self.relative)

    @property
    def path(self) -> Path:
        """Where it is on this machine, for messages of the root's owner (never opened)."""
        return self.root.path / self.relative if self.relative else self.root.path

    @property
    def name(self) -> str:
        return self.relative.rpartition("/")[2]

    @property
    def parent(self) -> "RootedPath":
        return RootedPath(self.root, self.relative.rpartition("/")[0])

    def stat(self, follow: bool = True) -> Optional[os.stat_result]:
        return self.root.stat(self.relative, follow)

    def exists(self) -> bool:
        return self.root.exists(self.relative)

    def is_file(self) -> bool:
        return self.root.is_file(self.relative)

    def is_dir(self) -> bool:
        return self.root.is_dir(self.relative)

    def open_read(self) -> BinaryIO:
        return self.root.open_read(self.relative)

    def read_bytes(self, limit: int = -1) -> bytes:
        """The file's content (at most ``limit`` bytes when not -1)."""
        with self.open_read() as stream:
            return stream.read(limit)

    def replace(self, mode: int = 0o666) -> ContextManager[BinaryIO]:
        return self.root.replace(self.relative, mode)

    def write_bytes(self, data: bytes) -> None:
        self.root.write_bytes(self.relative, data)

    def folder(self, create: bool = False) -> FileRoot:
        return self.root.folder(self.relative, create)

    def make_dirs(self) -> None:
        self.root.make_dirs(self.relative)

    def remove(self) -> bool:
        return self.root.remove(self.relative)
