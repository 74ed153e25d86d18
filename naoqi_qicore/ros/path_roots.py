"""Which folders a node reads behaviors from and writes into, as configured.

Services take paths from any peer of the ROS domain: a node only accepts paths inside the
folders its parameters list (``behavior_roots``, ``output_roots``).  Paths are resolved
(symbolic links and ``..`` followed) before they are compared, so a link inside a root
that leads out of it is refused.

Without ``behavior_roots``, behavior_runner accepts the folders of
:func:`default_behavior_roots`: the folder it was started in (where ``ros2 launch``,
``ros2 run`` or ``run_behavior`` was typed), the package's installed examples, the folder
of the behavior it was started with and its cache of converted behaviors.  The working
folder is left out when it is the file system's root or a folder other users may write
into (``/tmp``): a peer could then have it load code anyone put there.
"""
import os
import stat
from pathlib import Path
from typing import Iterable, List, Optional, Tuple

PACKAGE = "naoqi_qicore"


def resolve_roots(values: Iterable[str]) -> List[Path]:
    """The non-empty entries of ``values`` as resolved folders."""
    return [Path(value).expanduser().resolve() for value in values if value]


def split_roots(text: str) -> List[str]:
    """Folders written as one string, separated by ``:`` (as in ``PATH``), made absolute
    from the working folder; empty entries are dropped."""
    return [os.path.abspath(os.path.expanduser(part)) for part in text.split(os.pathsep)
            if part.strip()]


def is_under(path: Path, roots: Iterable[Path]) -> bool:
    """True when ``path`` (resolved) is one of ``roots`` or inside one; False when it cannot
    be resolved (a link that vanishes while it is read)."""
    try:
        resolved = Path(path).expanduser().resolve()
    except (OSError, RuntimeError):
        return False
    return any(resolved == root or resolved.is_relative_to(root) for root in roots)


def outside_message(path: str, roots: List[Path], parameter: str) -> str:
    """The answer to a path outside ``roots``."""
    return ("%s: outside the folders this node accepts (%s); list its folder in the "
            "parameter %s" % (path, ", ".join(str(root) for root in roots) or "none",
                              parameter))


def installed_examples() -> Optional[Path]:
    """``share/naoqi_qicore/examples`` of the install the ament index points at, if any."""
    try:
        from ament_index_python.packages import (PackageNotFoundError,
                                                 get_package_share_directory)
    except ImportError:
        return None
    try:
        folder = Path(get_package_share_directory(PACKAGE)) / "examples"
    except (PackageNotFoundError, OSError):  # not installed, or no AMENT_PREFIX_PATH
        return None
    return folder if folder.is_dir() else None


def shared_folder_problem(folder: Path) -> str:
    """Why ``folder`` is not a safe default root ("" when it is): the file system's root,
    or writable by other users."""
    if folder == Path(folder.anchor):
        return "it is the file system's root"
    try:
        mode = folder.stat().st_mode
    except OSError as error:
        return "it cannot be read (%s)" % (error.strerror or error)
    if mode & stat.S_IWOTH:
        return "other users may write into it"
    return ""


def default_behavior_roots(behavior: str, cache_dir: Path,
                           working_folder: Optional[Path] = None) -> Tuple[List[Path], str]:
    """The folders peers may load behaviors from when none are given, and a note saying why
    the working folder is not one of them ("" when it is); see the module."""
    here = Path(working_folder or os.getcwd()).resolve()
    problem = shared_folder_problem(here)
    roots = [] if problem else [here]
    examples = installed_examples()
    if examples is not None:
        roots.append(examples)
    if behavior:
        roots.append(Path(behavior).expanduser().resolve().parent)
    roots.append(cache_dir)
    unique: List[Path] = []
    for root in resolve_roots(str(root) for root in roots):
        if root not in unique:
            unique.append(root)
    note = ("the working folder %s is not one of them: %s" % (here, problem)) if problem else ""
    return unique, note
