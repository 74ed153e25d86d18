"""Applications in the robot's files: which are installed with their behaviors, and
installing a converted behavior's project as one.

A robot keeps each application in ``/home/nao/.local/share/PackageManager/apps/<package
id>/`` (its project: ``manifest.xml``, behavior folders, ``lib/``, ``html/``, sounds...);
Choregraphe's "play" uploads the project as ``.lastUploadedChoregrapheBehavior`` and runs
it from there.  Boxes depend on it: the standard tablet boxes find their application's
name in the behavior's path (``PackageManager/apps/<id>/<behavior>``), scripts import
modules from ``.../apps/.lastUploadedChoregrapheBehavior/lib``.

:func:`install_behavior` copies the converted project of a behavior (or, for a lone
``.xar``, its converted folder and the files next to the ``.xar``) into
``apps/<package id>/``, with the data files the standard boxes read that the project lacks
(:mod:`naoqi_qicore.robot.box_data`), points ``.lastUploadedChoregrapheBehavior`` at it,
and gives the behavior back as loaded from there, so that its path is the robot's.  The package id is
the ``uuid`` of the project's ``manifest.xml``, else derived from the project's (or the
``.xar``'s) name.  An unchanged project is not copied again.  The applications' folder is
written, read and listed from the robot files' handle (:mod:`naoqi_qicore.file_root`): a
symbolic link there leading out of the robot's files is never followed.

:func:`robot_files` says where a robot's files are for this process: the simulated
robot's own root when the robot is a simulated one on this machine (``NaoqiSimFiles``),
else a folder of this machine that mirrors what this process installed (a real robot's
files are on the robot: boxes read their project there from the mirror, and the robot's
services get the robot's paths, which exist once the application is installed on the
robot too).
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
import posixpath
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, List, Optional, Tuple

from lxml import etree

from naoqi_qicore.converter.loader import LoadedBehavior
from naoqi_qicore.robot.box_data import provide_box_data
from naoqi_qicore.converter.project import (MAX_PROJECT_DEPTH, PROJECT_INDEX,
                                            is_project_folder, project_files, project_index,
                                            project_index_entries, tree_paths)
from naoqi_qicore.file_root import FileRoot, OutsideRootError
from naoqi_qicore.robot.robot_files import LAST_UPLOADED, SIM_TOKEN_FILE, RobotFiles
from naoqi_qicore.xar.elements import safe_xml_parser
from naoqi_qicore.xar.errors import XarError

MANIFEST = "manifest.xml"
#: where the behavior of an application made from a lone ``.xar`` is: the application's
#: folder itself (its files beside it, as they were beside the ``.xar``)
LONE_BEHAVIOR = "."
#: written in an application folder this module installed: what it was copied from
INSTALL_STAMP = ".naoqi_qicore_installed"
#: the simulated robot's service that says where its files are
SIM_FILES_SERVICE = "NaoqiSimFiles"
#: the simulated robot's service told of the applications installed in its files
SIM_APPS_SERVICE = "NaoqiSimApps"
_PACKAGE_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")
_OTHER = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass
class InstalledApp:
    """An application in the robot's files."""

    #: its folder's name (``.lastUploadedChoregrapheBehavior`` for Choregraphe's upload)
    package_id: str
    folder: Path
    #: its behaviors: folders relative to the application's (``behavior_1``, ``.``)
    behaviors: List[str]


@dataclass(frozen=True)
class AppService:
    """A service an application declares in its ``manifest.xml``
    (``<services><service name=".." execStart=".." autorun=".."/></services>``)."""

    package_id: str
    #: its name in the manifest; NAOqi knows it as ``<package id>.<name>``
    name: str
    #: the command line that starts it, run in the application's folder
    exec_start: str
    #: started when the application is installed (and kept running)
    autorun: bool

    @property
    def full_name(self) -> str:
        """``<package id>.<name>``, the name ALServiceManager knows it by."""
        return "%s.%s" % (self.package_id, self.name)


@dataclass
class InstalledBehavior:
    """A behavior installed by :func:`install_behavior`."""

    package_id: str
    #: ``<package id>/<behavior>``, as ALBehaviorManager names it
    name: str
    #: the behavior as loaded from the robot's files
    loaded: LoadedBehavior


def app_behaviors(app: FileRoot) -> List[str]:
    """The behaviors of the application in the folder ``app``: those of its converted
    project (:data:`PROJECT_INDEX`), else those its ``manifest.xml`` lists."""
    try:
        with app.open_read(PROJECT_INDEX) as stream:
            converted = project_index_entries(stream)
    except OSError:
        converted = []
    if converted:
        return [posixpath.normpath(path) for _, path in converted]
    try:
        with app.open_read(MANIFEST) as stream:
            root = etree.parse(stream, safe_xml_parser()).getroot()
    except (OSError, etree.XMLSyntaxError):
        return []
    paths = [element.get("path", "") for element in root.iter("behavior")]
    return [path for path in paths if path and ".." not in path.split("/")
            and not path.startswith("/")]


def app_services(package: str, folder: Path) -> List[AppService]:
    """The services the ``manifest.xml`` in ``folder`` (the application ``package``)
    declares, in its order; none when it has no readable manifest.  A declaration without
    a name or an ``execStart`` is left out (NAOqi cannot start it either)."""
    try:
        root = etree.parse(str(folder / MANIFEST), safe_xml_parser()).getroot()
    except (OSError, etree.XMLSyntaxError):
        return []
    services = []
    for element in root.iter("service"):
        name, command = element.get("name", "").strip(), element.get("execStart", "").strip()
        if name and command:
            services.append(AppService(package, name, command,
                                       element.get("autorun", "").strip().lower() == "true"))
    return services


def _relative(path: Path, folder: Path) -> str:
    return os.path.relpath(path, folder).replace(os.sep, "/")


def installed_apps(files: RobotFiles) -> List[InstalledApp]:
    """Every application in the robot's files, by package id (links followed only while
    they stay in the robot's files)."""
    apps = []
    with files.apps_folder() as folder:
        for name in folder.names():
            if name.startswith(".") and name != LAST_UPLOADED:
                continue
            try:
                with folder.folder(name) as app:
                    apps.append(InstalledApp(name, files.apps / name, app_behaviors(app)))
            except (NotADirectoryError, FileNotFoundError, OutsideRootError):
                continue
    return apps


def is_package_id(name: str) -> bool:
    """Whether ``name`` can be a package id: the name of a folder of the applications'
    folder (letters, digits, ``_.-``, not starting or ending with a dot)."""
    return bool(_PACKAGE_ID.fullmatch(name)) and name.strip(".") == name


def package_id(project: Path, fallback: str) -> str:
    """The package id of the project in ``project``: its ``manifest.xml``'s ``uuid`` when it
    can name a folder, else ``fallback`` made into one."""
    try:
        uuid = etree.parse(str(project / MANIFEST), safe_xml_parser()).getroot().get("uuid")
    except (OSError, etree.XMLSyntaxError):
        uuid = None
    if uuid and is_package_id(uuid):
        return uuid
    name = _OTHER.sub("_", fallback).strip("._-")[:128]
    return name or "behavior"


def _project_of(folder: Path) -> Optional[Path]:
    """The project around the converted behavior in ``folder``: the nearest folder at most
    :data:`MAX_PROJECT_DEPTH` levels up that is a converted project or holds a
    ``manifest.xml`` or ``.pml``."""
    for parent in [folder, *folder.parents][:MAX_PROJECT_DEPTH + 1]:
        if (parent / PROJECT_INDEX).is_file() or is_project_folder(parent):
            return parent
    return None


def _lone_name(loaded: LoadedBehavior, folder: Path) -> str:
    """The name of a behavior without a project: its ``.xar``'s (``dance`` for
    ``dance.xar`` or ``dance/behavior.xar``), else its converted folder's."""
    source = str(loaded.behavior.source or "").split("!")[0]
    if source:
        path = Path(source)
        return path.parent.name if path.stem == "behavior" and path.parent.name else path.stem
    return folder.name


def _stamp(sources: List[Path]) -> str:
    """What a copy of ``sources`` depends on: every file's name, size and time."""
    sha = hashlib.sha256()
    for source in sources:
        sha.update(("%s\0" % source).encode("utf-8", "surrogateescape"))
        for path in [str(source)] if source.is_file() else tree_paths(str(source)):
            try:
                info = os.stat(path)
            except OSError:  # gone since it was listed, or a dangling link
                continue
            sha.update(("%s %d %d\0" % (path, info.st_size, info.st_mtime_ns)).encode(
                "utf-8", "surrogateescape"))
    return sha.hexdigest()


#: what is not copied into the robot's files (Python's compiled modules)
_NOT_COPIED = ("__pycache__",)


def _write_lone_project(apps: FileRoot, target: str, package: str, name: str) -> None:
    """The ``manifest.xml`` and converted project index of an application made from a lone
    behavior, in the folder ``target`` of ``apps``."""
    manifest = etree.Element("package", uuid=package, version="0.0.0", format_version="5")
    names = etree.SubElement(manifest, "names")
    etree.SubElement(names, "name", lang="en_US").text = name
    behaviors = etree.SubElement(manifest, "behaviors")
    etree.SubElement(behaviors, "behavior", name=name, path=LONE_BEHAVIOR, nature="interactive")
    apps.write_bytes(target + "/" + MANIFEST, etree.tostring(
        manifest, xml_declaration=True, encoding="UTF-8", pretty_print=True))
    apps.write_bytes(target + "/" + PROJECT_INDEX,
                     project_index(name, [(name, LONE_BEHAVIOR)]).encode("utf-8"))


def _lone_neighbours(loaded: LoadedBehavior, converted: Path) -> Tuple[Optional[Path], List[str]]:
    """The folder of a lone behavior's ``.xar`` (whose files the behavior opens) and the
    relative names in it not to copy (the ``.xar``, a converted folder inside it)."""
    source = str(loaded.behavior.source or "")
    if not source or "!" in source:
        return None, []
    xar = Path(source)
    if not xar.is_file():
        return None, []
    folder = xar.resolve().parent
    skipped = [xar.name]
    if folder in converted.parents:
        skipped.append(_relative(converted, folder))
    return folder, skipped


def install_behavior(files: RobotFiles, loaded: LoadedBehavior) -> Tuple[InstalledBehavior,
                                                                         List[str]]:
    """Install the project of the converted behavior ``loaded`` into the robot's files
    (see the module's documentation); the installed behavior and the warnings.
    ``ValueError`` when ``loaded`` has no converted folder."""
    if loaded.folder is None:
        raise ValueError("a behavior made in memory has no files to install")
    converted = Path(loaded.folder).resolve()
    warnings: List[str] = []
    project = _project_of(converted)
    if project is not None:
        package = package_id(project, project.name)
        behavior = _relative(converted, project)
        sources: List[Path] = [project]
        neighbours, skipped = None, []
    else:
        name = _lone_name(loaded, converted)
        package, behavior = package_id(converted, name), LONE_BEHAVIOR
        neighbours, skipped = _lone_neighbours(loaded, converted)
        sources = [converted] + ([neighbours] if neighbours is not None else [])
    stamp = _stamp(sources)
    with files.apps_folder() as apps:
        try:
            with apps.open_read(package + "/" + INSTALL_STAMP) as stream:
                current = stream.read(4096).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            current = ""
        if current != stamp:
            staging = apps.make_unique_dir(".installing-")
            try:
                if project is not None:
                    apps.copy_in(project, staging, _NOT_COPIED)
                    if not apps.is_file(staging + "/" + PROJECT_INDEX):  # converted by parts
                        apps.write_bytes(staging + "/" + PROJECT_INDEX, project_index(
                            package, [(converted.name, behavior)]).encode("utf-8"))
                else:
                    apps.copy_in(converted, staging, _NOT_COPIED)
                    if neighbours is not None:
                        warnings += _copy_neighbours(neighbours, skipped, apps, staging)
                    _write_lone_project(apps, staging, package, _lone_name(loaded, converted))
                with apps.folder(staging) as staged:
                    for folder in app_behaviors(staged):  # what the standard boxes read
                        with staged.folder(folder) as behavior_folder:
                            provide_box_data(behavior_folder)
                apps.write_bytes(staging + "/" + INSTALL_STAMP, stamp.encode("utf-8"))
                _replace(apps, staging, package)
            finally:
                try:
                    apps.remove(staging)  # left only when the copy failed
                except OSError:
                    pass
        _point_last_uploaded(apps, package)
    app = files.apps / package
    folder = app / behavior if behavior != "." else app
    relocated = dataclasses.replace(loaded, folder=folder)
    name = package + "/" + (behavior if behavior != "." else ".")
    return InstalledBehavior(package, name, relocated), warnings


def _copy_neighbours(folder: Path, skipped: List[str], apps: FileRoot,
                     target: str) -> List[str]:
    """Copy the files next to a lone ``.xar`` (the converter's rules for a project's files)
    into its application's behavior folder ``target`` of ``apps``; the warnings."""
    try:
        found = project_files(folder, skipped)
    except XarError as error:
        return ["%s: the files next to the behavior are not installed on the robot: %s"
                % (folder, error)]
    for relative, path in found.files.items():
        destination = target + "/" + relative
        if apps.stat(destination, follow=False) is not None:
            continue  # a converted file of the same name wins
        apps.make_dirs(posixpath.dirname(destination))
        try:
            apps.copy_in(path, destination)
        except FileNotFoundError:  # gone since it was listed (a folder others write in)
            continue
    return list(found.warnings)


def _replace(apps: FileRoot, staging: str, package: str) -> None:
    """Put the application copied in ``staging`` in the place of ``package``."""
    info = apps.stat(package, follow=False)
    if info is not None and stat.S_ISDIR(info.st_mode):
        old = apps.make_unique_dir(".removing-")
        apps.rename(package, old + "/app")
        apps.remove(old)
    elif info is not None:  # a file, or a link (removed, not followed)
        apps.remove(package)
    apps.rename(staging, package)


def _point_last_uploaded(apps: FileRoot, package: str) -> None:
    """Make ``.lastUploadedChoregrapheBehavior`` the application ``package`` (a link)."""
    if apps.read_link(LAST_UPLOADED) == package:
        return
    temporary = ".link-%s-%d" % (package, os.getpid())
    apps.remove(temporary)
    apps.symlink(package, temporary)
    info = apps.stat(LAST_UPLOADED, follow=False)
    if info is not None and stat.S_ISDIR(info.st_mode):
        apps.remove(LAST_UPLOADED)
    apps.rename(temporary, LAST_UPLOADED)


def mirror_folder(url: str) -> Path:
    """The folder of this machine mirroring the files of the robot at ``url``:
    ``$XDG_CACHE_HOME/naoqi_qicore/robot_files/<host_port>``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    address = _OTHER.sub("_", url.split("://", 1)[-1].rsplit("@", 1)[-1]).strip("._-")
    return Path(base) / "naoqi_qicore" / "robot_files" / (address or "robot")


def robot_files(session: Any, mirror: Path) -> RobotFiles:
    """The files of ``session``'s robot for this process: a simulated robot's own root
    when it is on this machine, else ``mirror``."""
    try:
        service = session.service(SIM_FILES_SERVICE)
        root, token = Path(service.root()), service.token()
    except RuntimeError:
        return RobotFiles(mirror)
    try:
        with FileRoot(root) as folder, folder.open_read(SIM_TOKEN_FILE) as stream:
            same = stream.read(len(token) + 1).decode("utf-8") == token
    except (OSError, UnicodeDecodeError):
        same = False
    return RobotFiles(root if same else mirror)


def install_on_robot(session: Any, url: str, loaded: LoadedBehavior
                     ) -> Tuple[InstalledBehavior, RobotFiles, List[str]]:
    """Install ``loaded`` into the files of ``session``'s robot (at ``url``) as this process
    has them (:func:`robot_files`); the installed behavior, the files and the warnings.
    A simulated robot whose own files these are is told (``NaoqiSimApps.installed``): it
    starts the application's autorun services, as NAOqi does once an application is
    installed."""
    mirror = mirror_folder(url)
    files = robot_files(session, mirror)
    installed, warnings = install_behavior(files, loaded)
    if files.root != mirror.resolve():
        try:
            session.service(SIM_APPS_SERVICE).installed(installed.package_id)
        except RuntimeError as error:
            warnings.append("the simulated robot does not run the services of %s: %s"
                            % (installed.package_id, error))
    return installed, files, warnings
