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

import functools
import re
import string
from typing import Dict, List, Optional, Set

from naoqi_qicore.converter.states import StateSpec, compute_states
from naoqi_qicore.xar.model import Behavior, Box

#: longest formatted display name kept in an object name
MAX_NAME_LENGTH = 80

_PRINTABLE = frozenset(string.printable)
_NOT_WORD = re.compile(r"[\W_]+", re.ASCII)


@functools.lru_cache(maxsize=4096)  # boxes of a library share their names
def format_name(name: Optional[str]) -> str:
    """The 2012 ``format_name``: printable ASCII only, runs of non-word characters -> ``_``."""
    if not name:
        return "unnamed_object"
    if name.isascii() and name.isprintable():
        kept = name
    else:
        kept = "".join(char for char in name if char in _PRINTABLE)
    return _NOT_WORD.sub("_", kept)[:MAX_NAME_LENGTH]


def _derived_names(name: str, box: Box, state_count: int) -> List[str]:
    """The other file bases written for ``box`` (``state_count`` states) named ``name``."""
    if box.timeline is None:
        return []
    return ([name + "_timeline", name + "_state_machine"]
            + ["%s_state_%d" % (name, index) for index in range(state_count)])


class _NameSet:
    """Names in use, compared ignoring case."""

    def __init__(self) -> None:
        self._used: Set[str] = set()
        #: name -> a suffix k such that every ``name_<j>``, j < k, is in use
        self._floor: Dict[str, int] = {}

    def take(self, name: str, box: Optional[Box] = None, state_count: int = 0) -> str:
        """``name``, or the first free ``name_<k>``; reserved with the box's file bases."""
        used = self._used
        folded = name.casefold()
        if folded not in used:  # the usual case: free, and so are its file bases
            if box is None or box.timeline is None:
                used.add(folded)
                return name
            derived = [base.casefold() for base in _derived_names(name, box, state_count)]
            if used.isdisjoint(derived):
                used.add(folded)
                used.update(derived)
                return name
        candidate, suffix = name, 1
        if folded in used:
            suffix = self._floor.get(name, 1)
            candidate = "%s_%d" % (name, suffix)
        while True:
            taken = [candidate.casefold()]
            if box is not None:
                taken.extend(derived.casefold()
                             for derived in _derived_names(candidate, box, state_count))
            if used.isdisjoint(taken):
                break
            suffix += 1
            candidate = "%s_%d" % (name, suffix)
        used.update(taken)
        if candidate is not name:  # a collision: skip past the suffixes now in use
            floor = self._floor.get(name, 1)
            while ("%s_%d" % (name, floor)).casefold() in used:
                floor += 1
            self._floor[name] = floor
        return candidate


def assign_names(behavior: Behavior, states: Optional[Dict[int, List[StateSpec]]] = None,
                 order: Optional[List[Box]] = None) -> Dict[int, str]:
    """``id(box) -> object name`` for every box of ``behavior`` (root: ``l0_root``).

    ``states``, when given, is filled with ``id(box) -> compute_states(box.timeline)`` for
    every box having a timeline, and ``order`` with the boxes in the order of
    :meth:`Box.walk`, so that callers do not compute them again.
    """
    names: Dict[int, str] = {}
    _name_boxes(behavior.root, 0, names, _NameSet(), {} if states is None else states, order)
    return names


def _name_boxes(box: Box, depth: int, names: Dict[int, str], used: _NameSet,
                states: Dict[int, List[StateSpec]], order: Optional[List[Box]]) -> None:
    """Name ``box`` and the boxes inside it (a plain function: a closure calling itself
    would be a reference cycle, keeping what it holds until the collector runs)."""
    timeline = box.timeline
    count = 0
    if timeline is not None:
        box_states = states[id(box)] = compute_states(timeline) if timeline.layers else []
        count = len(box_states)
    name = used.take("l%d_%s" % (depth, format_name(box.name)), box, count)
    names[id(box)] = name
    if order is not None:
        order.append(box)
    for diagram in box.diagrams():
        for child in diagram.boxes:  # recursion depth is bounded by lxml's XML depth limit
            _name_boxes(child, depth + 1, names, used, states, order)
        used.take(name + "_diagram")
