"""The robot services a behavior's box code calls, read from its scripts (never run).

Box code reaches NAOqi's services by name: ``ALProxy("ALTextToSpeech")`` or a session's
``service("ALTextToSpeech")`` (``self.session()``, ``qi.Session()``).  A robot that is
starting registers its services one after the other, so whoever plays a behavior waits for
those its boxes call before loading them (``BehaviorPlayer``'s ``await_services``).

Only literal names of NAOqi's kind (``AL...``) count; names the behavior serves itself are
left out: the engine's ``ALFrameManager``, and what the scripts register
(``ALModule("ALMine")``, an instance of an ``ALModule`` subclass, ``registerService``).
A script that does not parse (Python 2 left as written) is read line by line.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import FrozenSet, Set

#: services the engine serves to box code itself (the behavior's frame manager)
ENGINE_SERVICES = frozenset(("ALFrameManager",))
#: what a NAOqi service name looks like
SERVICE_NAME = re.compile(r"AL\w+\Z")
_CALLED_BY_LINE = re.compile(r"""(?:\bALProxy|\.service)\s*\(\s*[rRuU]?(["'])(AL\w+)\1""")
#: calls taking the name of a service to reach, and of one the behavior registers
_REACHING = ("ALProxy", "service")
_REGISTERING = ("ALModule", "registerService")


@dataclass(frozen=True)
class ServiceNames:
    """The service names one script reaches and those it registers itself."""

    called: FrozenSet[str] = frozenset()
    registered: FrozenSet[str] = frozenset()


def service_names(source: str) -> ServiceNames:
    """The services ``source`` reaches and registers (see the module doc)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return ServiceNames(frozenset(match.group(2)
                                      for match in _CALLED_BY_LINE.finditer(source)))
    modules = {node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
               and any(_name(base) == "ALModule" for base in node.bases)}
    called: Set[str] = set()
    registered: Set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        first = node.args[0]
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str)
                and SERVICE_NAME.match(first.value)):
            continue
        function = _name(node.func)
        if function in _REACHING:
            called.add(first.value)
        elif function in _REGISTERING or function in modules:
            registered.add(first.value)
    return ServiceNames(frozenset(called), frozenset(registered))


def _name(node: ast.expr) -> str:
    """``f`` for ``f(...)`` and ``a.b.f(...)``; "" for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else ""
