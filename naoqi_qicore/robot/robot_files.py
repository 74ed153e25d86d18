"""The robot's files: NAOqi's folder layout under a folder of this machine, and the paths
boxes and clients give to the robot, mapped into it.

On a NAO or Pepper, boxes and services name files by the robot's paths: an application
lives in ``/home/nao/.local/share/PackageManager/apps/<package id>/`` (Choregraphe's play
uses ``.lastUploadedChoregrapheBehavior``), recordings go to ``/home/nao/recordings/...``,
a relative path is taken from ``/home/nao``.  :class:`RobotFiles` is that tree under a
*root* folder of this machine: the robot's ``/home/nao/x`` is ``<root>/home/nao/x``.  The
mapped part of the robot's tree is :data:`MAPPED` (the nao user's home and ``/tmp``); no
other robot path exists there.

Two mappings, for two kinds of callers:

* :meth:`RobotFiles.local` for what a *client* asks a robot service to read or write
  (the simulated robot's services): the path is normalized (``..`` collapsed) and must name
  a place in the mapped tree (or be a file of this machine already inside the root),
  otherwise :class:`RobotPathError`, whose message names the path and nothing of any
  file's content.  It hands back a place below the root's handle
  (:class:`~naoqi_qicore.file_root.RootedPath`, see :mod:`naoqi_qicore.file_root`), never a
  path: every read, write and removal is made from the handle the root was opened with
  once, a symbolic link is followed only while it stays in the root, a file read has one
  link and a file written replaces what was there (a link leading out, or a hard link to a
  file outside, is refused or replaced, never written through);
* :meth:`RobotFiles.box_path` for the files *box code* opens itself (it runs with the
  rights of its process anyway): a path in the nao user's home (:data:`BOX_MAPPED`) goes to
  the root, any other is left as it is (box code's ``/tmp`` is this machine's: box code
  runs here, not on the robot, as it does with a real robot).

Both take ``/usr/local/var/www/apps/...`` (:data:`WWW_APPS`, where the robot's web server
finds the applications, and where box code of older NAOqi versions reads and imports its
project from) as the applications' folder.
"""
from __future__ import annotations

import os
import posixpath
from pathlib import Path
from typing import Optional, Tuple, Union

from naoqi_qicore.file_root import FileRoot, RootedPath

#: the nao user's home, NAOqi's working folder (where relative paths start)
HOME = "/home/nao"
#: where installed applications live
APPS = HOME + "/.local/share/PackageManager/apps"
#: the application folder Choregraphe's "play" uploads to
LAST_UPLOADED = ".lastUploadedChoregrapheBehavior"
#: the robot's web server's folder of applications: another name of :data:`APPS` (box code
#: of older NAOqi versions reads and imports its project from there)
WWW_APPS = "/usr/local/var/www/apps"
#: where NAOqi's recordings go
RECORDINGS = HOME + "/recordings"
#: the robot folders that exist under a root
MAPPED = (HOME, "/tmp")
#: the robot folders box code's own paths name (the others are this machine's)
BOX_MAPPED = (HOME, WWW_APPS)
#: the folders a new root is given (NAOqi's layout)
LAYOUT = (APPS, RECORDINGS + "/microphones", RECORDINGS + "/cameras",
          HOME + "/.local/share/Aldebaran", HOME + "/.config", "/tmp")

#: the file in a simulated robot's root holding the token its ``NaoqiSimFiles`` service
#: tells (a client finding it knows the root is on its machine)
SIM_TOKEN_FILE = ".naoqi_sim_root"


class RobotPathError(ValueError):
    """A path that names no place among the robot's files."""


def _in_tree(robot_path: str, tops: Tuple[str, ...] = MAPPED) -> bool:
    return any(robot_path == top or robot_path.startswith(top + "/") for top in tops)


def _unaliased(robot_path: str) -> str:
    """A normalized robot path with :data:`WWW_APPS` written as :data:`APPS`."""
    if _in_tree(robot_path, (WWW_APPS,)):
        return APPS + robot_path[len(WWW_APPS):]
    return robot_path


class RobotFiles:
    """The robot's files under ``root`` (a folder of this machine, opened once; created with
    NAOqi's layout when missing).  ``OSError`` (:class:`~naoqi_qicore.file_root.
    OutsideRootError`) when a folder of the layout is a symbolic link leading out of it."""

    def __init__(self, root: Union[str, Path]) -> None:
        self.root = Path(root).resolve()
        #: the root's handle, every file of the robot is reached from
        self.tree = FileRoot(self.root, "the robot's files", display="/", create=True)
        for folder in LAYOUT:
            self.tree.make_dirs(folder.lstrip("/"))

    def close(self) -> None:
        """Close the root's handle."""
        self.tree.close()

    # -- paths -------------------------------------------------------------------------------
    def robot_path(self, path: str, base: str = HOME) -> str:
        """The robot's absolute, normalized path of ``path`` as a service takes it: ``~``
        is the nao user's home, a relative path starts at ``base``, a file of this machine
        inside the root is its robot path.  :class:`RobotPathError` when it names no place
        in the mapped tree."""
        if not isinstance(path, str) or not path or "\0" in path:
            raise RobotPathError("%r is not a file path" % (path,))
        if path == "~" or path.startswith("~/"):
            path = HOME + path[1:]
        robot = self.robot_path_of(path) if path.startswith("/") else None
        if robot is None:
            if not path.startswith("/") and base != HOME:
                base = self.robot_path(base)
            robot = posixpath.normpath(posixpath.join(base, path))
            if robot.startswith("//"):
                robot = robot[1:]
        robot = _unaliased(robot)
        if not _in_tree(robot):
            raise RobotPathError("'%s' is outside the robot's files (%s)"
                                 % (path, ", ".join(top + "/..." for top in MAPPED)))
        return robot

    def local(self, path: str, base: str = HOME) -> RootedPath:
        """The place below the root that the robot's ``path`` is (see :meth:`robot_path`),
        reached from the root's handle; :class:`RobotPathError` when it is outside the
        mapped tree.  Its errors show robot paths; a symbolic link leading out of the root
        is refused when the place is used (:class:`~naoqi_qicore.file_root.
        OutsideRootError`)."""
        return RootedPath(self.tree, self.robot_path(path, base).lstrip("/"))

    def robot_path_of(self, local: Union[str, Path]) -> Optional[str]:
        """The robot's path of a file of this machine inside the root (normalized), else
        None."""
        text = os.path.normpath(os.path.abspath(str(local)))
        root = str(self.root)
        if text != root and not text.startswith(root + os.sep):
            return None
        robot = "/" + os.path.relpath(text, root).replace(os.sep, "/")
        return "/" if robot == "/." else robot

    def box_path(self, path: str) -> str:
        """Where box code's ``path`` is on this machine: a path of :data:`BOX_MAPPED`
        (``/home/nao/...``) in the root, any other as it is."""
        if not path.startswith("/"):
            return path
        robot = posixpath.normpath(path)
        if robot.startswith("//"):
            robot = robot[1:]
        if not _in_tree(robot, BOX_MAPPED):
            return path
        return str(self.root) + _unaliased(robot)

    @property
    def temporary(self) -> Path:
        """The robot's ``/tmp`` on this machine."""
        return self.root / "tmp"

    # -- applications ------------------------------------------------------------------------
    @property
    def apps(self) -> Path:
        """The folder of installed applications on this machine (to load an application's
        behavior from; its files are written through :meth:`apps_folder`)."""
        return self.root / APPS.lstrip("/")

    def apps_folder(self) -> FileRoot:
        """The folder of installed applications, open (from the root's handle)."""
        return self.tree.folder(APPS.lstrip("/"), create=True)
