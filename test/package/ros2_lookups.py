"""Where ``ros2 run`` and ``ros2 launch`` (launch_ros) find this package's programs, done
the way they do it, for machines without ros2cli and the launch packages.

* ``ros2 run PACKAGE NAME`` (ros2pkg's ``get_executable_paths``): the package's prefix is
  the first of ``AMENT_PREFIX_PATH`` whose ament index lists the package
  (``ament_index_python.get_package_prefix``); its programs are the files with the
  executable bit under ``<prefix>/lib/<package>/``.
* launch_ros's ``Node(package=P, executable=E)`` runs ``<prefix of P>/lib/P/E``;
  ``FindPackagePrefix(P)`` is the same prefix.  :func:`launch_processes` runs a launch
  file's ``generate_launch_description()`` and its ``OpaqueFunction`` against a small
  stand-in of the ``launch``/``launch_ros`` API that records what the file builds, and
  returns the paths its processes resolve to.
"""
import ast
import contextlib
import importlib.metadata
import importlib.util
import os
import sys
import types
from pathlib import Path
from typing import Any, Dict, Iterator, List, Sequence, Tuple

from ament_index_python.packages import get_package_prefix

PACKAGE = "naoqi_qicore"
#: what each program's --help must mention: its parameters or options
HELP_MENTIONS = {
    "behavior_runner": ["robot_url", "nao_ip", "behavior_roots", "cache_dir", "view_port"],
    "naoqi_bridge": ["robot_url", "nao_ip", "password_file", "max_retry_delay"],
    "xar_convert_node": ["behavior_roots", "output_roots", "force"],
    "run_behavior": ["--roots", "--stay", "--autoplay", "exit status"],
    "naoqi_sim": ["--listen", "--scenario"],
    "xar_convert": ["--to-xar", "--graph"],
}


def console_scripts() -> List[str]:
    """The programs the package declares (its console scripts)."""
    return sorted(entry.name for entry in importlib.metadata.distribution(PACKAGE).entry_points
                  if entry.group == "console_scripts")


@contextlib.contextmanager
def ament_prefix_path(prefixes: Sequence[Path]) -> Iterator[None]:
    """``AMENT_PREFIX_PATH`` set to ``prefixes`` (first wins) for the duration."""
    before = os.environ.get("AMENT_PREFIX_PATH")
    os.environ["AMENT_PREFIX_PATH"] = os.pathsep.join(str(prefix) for prefix in prefixes)
    try:
        yield
    finally:
        if before is None:
            del os.environ["AMENT_PREFIX_PATH"]
        else:
            os.environ["AMENT_PREFIX_PATH"] = before


def package_prefix(prefixes: Sequence[Path]) -> Path:
    """The prefix ``ros2 run`` and launch_ros use for the package."""
    with ament_prefix_path(prefixes):
        return Path(get_package_prefix(PACKAGE))


def ros2_run_executables(prefixes: Sequence[Path]) -> Dict[str, Path]:
    """What ``ros2 run PACKAGE <Tab>`` lists: name -> path (ros2pkg's walk)."""
    base = package_prefix(prefixes) / "lib" / PACKAGE
    found: Dict[str, Path] = {}
    for folder, subfolders, files in os.walk(base):
        subfolders[:] = sorted(d for d in subfolders if not d.startswith("."))
        for name in sorted(files):
            path = Path(folder) / name
            if os.access(path, os.X_OK):
                found[name] = path
    return found


class _Recorded:
    """What a launch API class was built with."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args = args
        self.kwargs = kwargs


class _LaunchConfiguration(_Recorded):
    def perform(self, context: Dict[str, str]) -> str:
        return context[self.args[0]]


def _fake_launch_api(launch_file: Path) -> Dict[str, types.ModuleType]:
    """Modules standing for the ``launch``/``launch_ros`` ones the file imports, each name
    it imports a recording class."""
    modules: Dict[str, types.ModuleType] = {}
    for node in ast.parse(launch_file.read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.module.split(".")[0] in ("launch",
                                                                              "launch_ros"):
            parts = node.module.split(".")
            for depth in range(1, len(parts) + 1):
                name = ".".join(parts[:depth])
                modules.setdefault(name, types.ModuleType(name))
            for alias in node.names:
                recorded = type(alias.name, (_LaunchConfiguration if alias.name
                                             == "LaunchConfiguration" else _Recorded,), {})
                setattr(modules[node.module], alias.name, recorded)
    return modules


def launch_description(launch_file: Path) -> Tuple[types.ModuleType, List[Any]]:
    """The launch file loaded against the stand-in API: its module, and the entities of the
    ``LaunchDescription`` it generates (recorded)."""
    modules = _fake_launch_api(launch_file)
    saved = {name: sys.modules.get(name) for name in modules}
    sys.modules.update(modules)
    try:
        spec = importlib.util.spec_from_file_location("launch_file_under_test", launch_file)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        description = module.generate_launch_description()
    finally:
        for name, previous in saved.items():
            if previous is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = previous
    return module, list(description.args[0])


def launch_actions(launch_file: Path, arguments: Dict[str, str]) -> List[Any]:
    """What the launch file's ``OpaqueFunction`` returns with these arguments (the others at
    their default): recorded actions, ``type(action).__name__`` naming their class and
    ``action.kwargs`` what they were made with."""
    _, entities = launch_description(launch_file)
    context = {entity.args[0] if entity.args else entity.kwargs["name"]:
               entity.kwargs.get("default_value", "") for entity in entities
               if type(entity).__name__ == "DeclareLaunchArgument"}
    unknown = set(arguments) - set(context)
    if unknown:
        raise KeyError("the launch file declares no argument %s" % ", ".join(sorted(unknown)))
    context.update(arguments)
    return [action for entity in entities if type(entity).__name__ == "OpaqueFunction"
            for action in entity.kwargs["function"](context)]


def launch_processes(launch_file: Path, arguments: Dict[str, str],
                     prefixes: Sequence[Path]) -> List[Tuple[str, Path]]:
    """``(name, path)`` of each process the launch file starts with these arguments,
    resolved as launch_ros resolves them with ``AMENT_PREFIX_PATH`` set to ``prefixes``."""
    actions = launch_actions(launch_file, arguments)
    with ament_prefix_path(prefixes):
        return [_resolve(action) for action in actions
                if type(action).__name__ in ("Node", "ExecuteProcess")]


def _resolve(action: _Recorded) -> Tuple[str, Path]:
    """A launch_ros Node or an ExecuteProcess whose command starts with a path made of
    ``FindPackagePrefix`` and strings: its name and the program it runs."""
    if type(action).__name__ == "Node":
        package = action.kwargs["package"]
        return (action.kwargs["executable"],
                Path(get_package_prefix(package)) / "lib" / package / action.kwargs["executable"])
    program = action.kwargs["cmd"][0]
    parts = [Path(get_package_prefix(part.args[0])) if type(part).__name__ == "FindPackagePrefix"
             else part for part in program.args[0]]
    return action.kwargs["name"], Path(*parts)
