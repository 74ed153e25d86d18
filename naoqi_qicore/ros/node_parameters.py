"""A node's parameters as data: declared on the node from here, and described by the
program's ``--help`` without starting the node."""
import json
import re
import textwrap
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Sequence

from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node


@dataclass(frozen=True)
class NodeParameter:
    """One parameter: its name, default value and description; read only unless said.

    ``constraints`` are the other fields of its ``ParameterDescriptor`` (ranges...).
    """

    name: str
    default: Any
    description: str
    read_only: bool = True
    constraints: Dict[str, Any] = field(default_factory=dict)

    def descriptor(self) -> ParameterDescriptor:
        return ParameterDescriptor(description=self.description, read_only=self.read_only,
                                   **self.constraints)

    def declare(self, node: Node) -> None:
        node.declare_parameter(self.name, self.default, self.descriptor())

    def declare_in_effect(self, node: Node, in_effect: Callable[[Any], Any]) -> Any:
        """Declare the parameter, then leave in it the value in effect, ``in_effect(given
        value)`` (the default worked out, paths resolved...), so that reading the parameter
        back says what the node does; returns that value."""
        given = node.declare_parameter(self.name, self.default, ParameterDescriptor(
            description=self.description, **self.constraints)).value
        value = in_effect(given)
        node.undeclare_parameter(self.name)
        node.declare_parameter(self.name, value, self.descriptor(), ignore_override=True)
        return value


def declare_parameters(node: Node, parameters: Sequence[NodeParameter]) -> None:
    """Declare each of ``parameters`` on ``node``."""
    for parameter in parameters:
        parameter.declare(node)


#: reStructuredText a docstring uses: ``literal``, :role:`~module.Name` or :role:`text`
_LITERAL = re.compile(r"``(.+?)``", re.S)
_ROLE = re.compile(r":[a-z]+:`~?([^`]+?)`")


def plain_text(rst: str) -> str:
    """A docstring's reStructuredText as a terminal shows it: literals without their
    backquotes, cross-references as the name they point to (its last part for ``~``)."""
    text = _ROLE.sub(lambda m: m.group(1).rsplit(".", 1)[-1] if m.group(0).find("~") > 0
                     else m.group(1), rst)
    return _LITERAL.sub(r"\1", text)


@dataclass(frozen=True)
class NodeProgram:
    """What ``--help`` says about a node's program: its name, what it does (a module's
    docstring) and its parameters."""

    program: str
    node_name: str
    description: str
    parameters: Sequence[NodeParameter] = ()

    def help_text(self) -> str:
        lines: List[str] = [
            "usage: %s [--help] [--ros-args [-r __ns:=/NAMESPACE] [-p NAME:=VALUE]... "
            "[--params-file FILE] [--log-level LEVEL]]" % self.program, "",
            plain_text(textwrap.dedent(self.description).strip()), ""]
        if self.parameters:
            lines.append("parameters of the node %s (-p NAME:=VALUE, or a --params-file):"
                         % self.node_name)
            for parameter in self.parameters:
                lines.append("  %s (default %s)" % (parameter.name,
                                                    json.dumps(parameter.default)))
                lines += textwrap.wrap(plain_text(parameter.description), 88, initial_indent=" " * 6,
                                       subsequent_indent=" " * 6)
        return "\n".join(lines)
