"""Pepper's tablet as the live view shows it: what the behavior shows there, from its own
project's files.

A robot serves each installed application's ``html`` folder to its tablet:
``http://198.18.0.1/apps/<package id>/<file>`` is ``<file>`` in the ``html`` folder of the
package (Choregraphe's Show Image and Show App boxes build such URLs).  For the behavior
the runner plays, the package is its project (``package id``: the player's
``package_uid``, folder: its ``project_folder``): :func:`app_file` tells which file of
``html`` such a URL names, :func:`project_file` reads it from a handle of that folder
(:mod:`naoqi_qicore.file_root`), never outside it.
"""
import os
import posixpath
from typing import Optional, Tuple
from urllib.parse import unquote, urlsplit

from naoqi_qicore.file_root import FileRoot

#: the robot as its tablet reaches it (ALTabletService.robotIp()), or the robot itself
ROBOT_HOSTS = ("198.18.0.1", "127.0.0.1", "localhost")
#: the folder of a package served to the tablet
HTML_FOLDER = "html"
#: largest file served (bytes)
MAX_FILE_BYTES = 32 * 1024 * 1024
#: what a file served may be, by suffix (anything else is not served)
CONTENT_TYPES = {
    ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
    ".webp": "image/webp", ".svg": "image/svg+xml", ".bmp": "image/bmp",
    ".html": "text/html; charset=utf-8", ".htm": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8",
    ".json": "application/json", ".txt": "text/plain; charset=utf-8",
    ".woff": "font/woff", ".woff2": "font/woff2", ".ttf": "font/ttf",
    ".mp4": "video/mp4", ".webm": "video/webm", ".ogg": "audio/ogg", ".mp3": "audio/mpeg",
    ".wav": "audio/wav",
}


def app_file(url: str, package_uid: str) -> Optional[str]:
    """The file of the package's ``html`` folder (``/``-separated, relative) that the
    robot's ``url`` names; None for a URL of another package or of another site."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or parts.hostname not in ROBOT_HOSTS:
        return None
    path = unquote(parts.path)
    prefix = "/apps/%s/" % package_uid
    if not package_uid or not path.startswith(prefix):
        return None
    relative = posixpath.normpath(path[len(prefix):])
    if relative in (".", "") or relative.startswith("../") or relative == "..":
        return None
    return relative


def project_file(project_folder: str, relative: str) -> Tuple[bytes, str]:
    """The content of the file ``relative`` of the project's ``html`` folder and what it is
    served as, read from a handle of that folder (links followed only while they stay in
    it); ``LookupError`` when it is not a regular file with one link inside that folder
    (a hard link's content may live outside), is too large, or is of a kind that is not
    served (:data:`CONTENT_TYPES`)."""
    if "\x00" in relative or "\\" in relative:
        raise LookupError("no such file")
    suffix = posixpath.splitext(relative)[1].lower()
    try:
        with FileRoot(project_folder) as project, \
                project.folder(HTML_FOLDER) as html, html.open_read(relative) as stream:
            if os.fstat(stream.fileno()).st_size > MAX_FILE_BYTES:
                raise LookupError("larger than %d MB" % (MAX_FILE_BYTES >> 20))
            if suffix not in CONTENT_TYPES:
                raise LookupError("%s files are not served" % (suffix or "extension-less"))
            return stream.read(MAX_FILE_BYTES + 1), CONTENT_TYPES[suffix]
    except OSError:
        raise LookupError("no such file in the project's %s folder" % HTML_FOLDER) from None
