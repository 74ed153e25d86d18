"""Object names of the boxes of a behavior (the base of their files).

The 2012 converter's rule (reference §2.2): a box is named ``l<depth>_<format_name(name)>``
(root = ``l0_root``), boxes are visited depth first in file order, a diagram consumes
``<owner>_diagram`` after its boxes, and one global set resolves collisions with ``_1``,
``_2``...  The names only ever hold ASCII letters, digits and ``_`` and start with ``l``,
so they are safe file names everywhere; on top of the 2012 rule:

* collisions are found ignoring case (the files must not clash on macOS or Windows);
* the formatted display name is cut to :data:`MAX_NAME_LENGTH` characters;
* a name is never one of another box's file names (``<name>_timeline``,
  ``<name>_state_machine``, ``<name>_state_<i>``).
"""
from __future__ import annotations

import re
import string
from typing import Dict, Iterable, List, Optional, Set

from naoqi_qicore.converter.states import compute_states
from naoqi_qicore.xar.model import Behavior, Box

#: longest formatted display name kept in an object name
MAX_NAME_LENGTH = 80

_PRINTABLE = frozenset(string.printable)
_NOT_WORD = re.compile(r"[\W_]+", re.ASCII)


def format_name(name: Optional[str]) -> str:
    """The 2012 ``format_name``: printable ASCII only, runs of non-word characters -> ``_``."""
    if not name:
        return "unnamed_object"
    kept = "".join(char for char in name if char in _PRINTABLE)
    return _NOT_WORD.sub("_", kept)[:MAX_NAME_LENGTH]


def derived_names(name: str, box: Box) -> List[str]:
    """The other file bases written for ``box`` when it is named ``name``."""
    if box.timeline is None:
        return []
    states = compute_states(box.timeline) if box.timeline.layers else []
    return ([name + "_timeline", name + "_state_machine"]
            + ["%s_state_%d" % (name, state.index) for state in states])


class _NameSet:
    """Names in use, compared ignoring case."""

    def __init__(self) -> None:
        self._used: Set[str] = set()

    def _free(self, names: Iterable[str]) -> bool:
        return not any(name.casefold() in self._used for name in names)

    def take(self, name: str, box: Optional[Box] = None) -> str:
        """``name``, or the first free ``name_<k>``; reserved with the box's file bases."""
        candidate, suffix = name, 1
        while not self._free([candidate] + (derived_names(candidate, box) if box else [])):
            candidate = "%s_%d" % (name, suffix)
            suffix += 1
        self._used.add(candidate.casefold())
        if box is not None:
            self._used.update(derived.casefold() for derived in derived_names(candidate, box))
        return candidate


def assign_names(behavior: Behavior) -> Dict[int, str]:
    """``id(box) -> object name`` for every box of ``behavior`` (root: ``l0_root``)."""
    names: Dict[int, str] = {}
    used = _NameSet()

    def visit(box: Box, depth: int) -> None:
        name = used.take("l%d_%s" % (depth, format_name(box.name)), box)
        names[id(box)] = name
        for diagram in box.diagrams():
            for child in diagram.boxes:
                visit(child, depth + 1)
            used.take(name + "_diagram")

    visit(behavior.root, 0)  # recursion depth is bounded by lxml's XML depth limit
    return names
