"""naoqi_qicore's modules import no circle and no higher layer.

Layers, each depending only on those before it: ``xar`` -> ``converter`` -> ``core`` ->
``robot`` -> ``ros``.  Below them, the base utilities: the modules directly in the package
(``naoqi_qicore/file_root.py``: files reached by handle below a root, which every layer
writes through), which import no layer.  The graph is read from every module's own source with ``ast``: every
``import`` statement counts, wherever it is (module level, inside a function, under
``if TYPE_CHECKING:``).  A type-only import is still a dependency of the design: a lower layer
must not name a higher layer's types either, and two modules that name each other's types are
one concept split in two.  An edge goes to the module named (``from a import b`` goes to
``a.b`` when that is a module, else to ``a``); the package ``__init__`` files Python runs on
the way there are not edges, so a package's ``__init__`` re-exporting its modules is no circle.
"""
import ast
from pathlib import Path
from typing import Dict, FrozenSet, List, Optional, Set, Tuple

LAYERS = ("xar", "converter", "core", "robot", "ros")
#: what the modules directly in the package are: below every layer
BASE = "base"
PACKAGE = "naoqi_qicore"

Edge = Tuple[str, str, int]  # importer, imported, line

#: circles not yet broken (each group of modules importing one another, exactly): a new
#: circle, or a module joining one of these, fails; so does one of these once it is broken,
#: so that it leaves this list
KNOWN_CIRCLES: Set[FrozenSet[str]] = set()
#: modules that still import a higher layer
KNOWN_UPWARD: FrozenSet[str] = frozenset()


def _module_files(package_dir: Path) -> Dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    modules = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _absolute(module: str, is_package: bool, level: int, name: Optional[str]) -> str:
    """The absolute name a (possibly relative) ``from`` import refers to."""
    if level == 0:
        return name or ""
    base = module.split(".")
    if not is_package:
        base.pop()
    base = base[:len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _imports(module: str, path: Path, modules: Dict[str, Path]) -> List[Edge]:
    """The package modules ``module`` imports, with the line of each import."""
    edges = []
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        targets = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, is_package, node.level, node.module)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                targets.append(submodule if submodule in modules else base)
        for target in targets:
            while target and target not in modules and target.startswith(PACKAGE):
                target = target.rpartition(".")[0]
            if target in modules and target != module:
                edges.append((module, target, node.lineno))
    return edges


def _graph(package_dir: Path) -> List[Edge]:
    modules = _module_files(package_dir)
    return [edge for module, path in modules.items() for edge in _imports(module, path, modules)]


def _layer(module: str) -> Optional[int]:
    """The rank of ``module``'s layer (0: a base utility), None for the package itself."""
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in LAYERS:
        return LAYERS.index(parts[1]) + 1
    if len(parts) == 2:
        return 0
    return None


def _layer_name(rank: int) -> str:
    return ((BASE,) + LAYERS)[rank]


def _upward_imports(edges: List[Edge], files: Dict[str, Path],
                    known: FrozenSet[str] = frozenset()) -> List[str]:
    found: List[str] = []
    for importer, imported, line in edges:
        if importer in known:
            continue
        low, high = _layer(importer), _layer(imported)
        if low is not None and high is not None and high > low:
            message = (f"{files[importer]}:{line}: {importer} ({_layer_name(low)}) imports "
                       f"{imported} ({_layer_name(high)})")
            if message not in found:
                found.append(message)
    return found


def _cycles(edges: List[Edge], known: Set[FrozenSet[str]] = frozenset()) -> List[str]:
    """Each group of modules importing one another (but the ``known`` ones): one shortest
    circle and all members."""
    graph = _adjacency(edges)
    return [" -> ".join(_shortest_circle(graph, group)) + f" (all of: {', '.join(sorted(group))})"
            for group in _circle_groups(graph) if group not in known]


def _adjacency(edges: List[Edge]) -> Dict[str, Set[str]]:
    graph: Dict[str, Set[str]] = {}
    for importer, imported, _ in edges:
        graph.setdefault(importer, set()).add(imported)
        graph.setdefault(imported, set())
    return graph


def _circle_groups(graph: Dict[str, Set[str]]) -> List[FrozenSet[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    groups: List[FrozenSet[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph[node]):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(frozenset(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def _shortest_circle(graph: Dict[str, Set[str]], group: FrozenSet[str]) -> List[str]:
    start = min(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for successor in sorted(graph[node] & group):
                if successor == start:
                    return paths[node] + [start]
                if successor not in paths:
                    paths[successor] = paths[node] + [successor]
                    following.append(successor)
        frontier = following
    raise AssertionError(f"no circle through {start}")


def test_the_graph_sees_function_level_and_relative_imports(tmp_path: Path) -> None:
    package = tmp_path / PACKAGE
    (package / "core").mkdir(parents=True)
    (package / "robot").mkdir()
    for name in ("__init__.py", "core/__init__.py", "robot/__init__.py"):
        (package / name).write_text("")
    (package / "core" / "a.py").write_text("def f():\n    from . import b\n")
    (package / "core" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import naoqi_qicore.core.a\n")
    (package / "core" / "c.py").write_text("from ..robot.r import thing\n"
                                           "from naoqi_qicore import util\n")
    (package / "robot" / "r.py").write_text("thing = 1\n")
    (package / "util.py").write_text("from naoqi_qicore.robot import r\n")
    edges = _graph(package)
    assert _cycles(edges) == ["naoqi_qicore.core.a -> naoqi_qicore.core.b -> naoqi_qicore.core.a"
                              " (all of: naoqi_qicore.core.a, naoqi_qicore.core.b)"]
    files = _module_files(package)
    assert _upward_imports(edges, files) == [
        f"{package / 'core' / 'c.py'}:1: naoqi_qicore.core.c (core) imports "
        "naoqi_qicore.robot.r (robot)",
        f"{package / 'util.py'}:1: naoqi_qicore.util (base) imports "
        "naoqi_qicore.robot.r (robot)"]


def test_no_module_imports_a_higher_layer(repo_root: Path) -> None:
    package_dir = repo_root / PACKAGE
    edges = _graph(package_dir)
    upward = _upward_imports(edges, _module_files(package_dir), KNOWN_UPWARD)
    assert not upward, "imports reaching up a layer:\n" + "\n".join(upward)
    still_upward = {importer for importer, imported, _ in edges if importer in KNOWN_UPWARD
                    and (_layer(imported) or 0) > (_layer(importer) or 0)}
    assert still_upward == KNOWN_UPWARD, "no longer imports a higher layer (drop it from " \
        "KNOWN_UPWARD): %s" % ", ".join(sorted(KNOWN_UPWARD - still_upward))


def test_no_import_circles(repo_root: Path) -> None:
    edges = _graph(repo_root / PACKAGE)
    circles = _cycles(edges, KNOWN_CIRCLES)
    assert not circles, "import circles:\n" + "\n".join(circles)
    broken = KNOWN_CIRCLES - set(_circle_groups(_adjacency(edges)))
    assert not broken, "broken circles (drop them from KNOWN_CIRCLES): %s" % "; ".join(
        ", ".join(sorted(group)) for group in broken)
