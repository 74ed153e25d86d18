"""ROS 2 message types as rosbag2 and Foxglove describe them: the name
``package/msg/Type`` and the ``ros2msg`` schema, the ``.msg`` text followed by those of its
dependencies, each after a line of 80 ``=`` and ``MSG: package/Type``, as rosbag2 assembles
them from the ament index; the messages themselves travel as the CDR bytes DDS carries
(message encoding ``cdr``).

A recording (:mod:`~naoqi_qicore.ros.bag_recorder`) and Foxglove's live view
(:mod:`~naoqi_qicore.ros.foxglove_relay`) describe their channels with these.
"""
import os
import re
import sys
from pathlib import Path
from typing import Any, List, Set, Tuple

SCHEMA_ENCODING = "ros2msg"
MESSAGE_ENCODING = "cdr"
#: what separates a message definition from each of its dependencies
DEFINITION_SEPARATOR = "=" * 80 + "\n"
_PRIMITIVE_TYPES = {"bool", "byte", "char", "float32", "float64", "int8", "uint8", "int16",
                    "uint16", "int32", "uint32", "int64", "uint64", "string"}
#: the field types of a .msg text (rosbag2's expression)
_FIELD_TYPE = re.compile(r"(?:^|\n)\s*([a-zA-Z0-9_/]+)(?:\[[^\]]*\])?\s+")
_TYPE_NAME = re.compile(r"^([a-zA-Z0-9_]+)(?:/[a-zA-Z0-9_]+)*/(?:msg/)?([a-zA-Z0-9_]+)$")


def type_name(message_type: Any) -> str:
    """``package/msg/Type`` of a generated message class."""
    return "%s/msg/%s" % (message_type.__module__.split(".")[0], message_type.__name__)


def _prefixes() -> List[Path]:
    """Where interface packages are installed: ``AMENT_PREFIX_PATH``, then this
    interpreter's prefix (a virtual environment of ROS 2 wheels)."""
    paths = [Path(p) for p in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep) if p]
    return paths + [Path(sys.prefix)] if Path(sys.prefix) not in paths else paths


def _definition_file(name: str) -> Tuple[Path, str]:
    """The ``.msg`` file of ``package/Type`` or ``package/msg/Type``, and its package."""
    match = _TYPE_NAME.match(name)
    if match is None:
        raise ValueError("%r is not a message type name" % name)
    package, file_name = match.group(1), match.group(2) + ".msg"
    for prefix in _prefixes():
        index = prefix / "share" / "ament_index" / "resource_index" / "rosidl_interfaces" / package
        if not index.is_file():
            continue
        for line in index.read_text(encoding="utf-8").splitlines():
            if line and Path(line).name == file_name:
                return prefix / "share" / package / line, package
    raise ValueError("no definition of %s in the ament index of %s"
                     % (name, os.pathsep.join(str(p) for p in _prefixes())))


def message_definition(name: str) -> str:
    """The ``ros2msg`` schema text of message type ``name``, with its dependencies;
    ``ValueError`` when a definition is not found."""
    seen: Set[str] = set()

    def text_with_dependencies(type_name: str, depth: int) -> str:
        if depth <= 0:
            raise ValueError("the definition of %s nests too deep" % name)
        path, package = _definition_file(type_name)
        text = path.read_text(encoding="utf-8")
        dependencies = set()
        for field_type in _FIELD_TYPE.findall(text):
            if field_type not in _PRIMITIVE_TYPES:
                dependencies.add(field_type if "/" in field_type else package + "/" + field_type)
        for dependency in sorted(dependencies):
            if dependency not in seen:
                seen.add(dependency)
                text += "\n" + DEFINITION_SEPARATOR + "MSG: " + dependency + "\n" + \
                    text_with_dependencies(dependency, depth - 1)
        return text
    return text_with_dependencies(name, 50)
