"""Which folders a node reads behaviors from and writes into, as configured.

Services take paths from any peer of the ROS domain: a node only accepts paths inside the
folders its parameters list (``behavior_roots``, ``output_roots``).  Paths are resolved
(symbolic links and ``..`` followed) before they are compared, so a link inside a root
that leads out of it is refused.
"""
from pathlib import Path
from typing import Iterable, List


def resolve_roots(values: Iterable[str]) -> List[Path]:
    """The non-empty entries of ``values`` as resolved folders."""
    return [Path(value).expanduser().resolve() for value in values if value]


def is_under(path: Path, roots: Iterable[Path]) -> bool:
    """True when ``path`` (resolved) is one of ``roots`` or inside one."""
    resolved = Path(path).expanduser().resolve()
    return any(resolved == root or resolved.is_relative_to(root) for root in roots)


def outside_message(path: str, roots: List[Path], parameter: str) -> str:
    """The answer to a path outside ``roots``."""
    return ("%s: outside the folders this node accepts (%s); list its folder in the "
            "parameter %s" % (path, ", ".join(str(root) for root in roots) or "none",
                              parameter))
