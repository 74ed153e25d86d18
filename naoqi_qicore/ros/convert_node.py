"""``xar_convert_node``: the converter as a ROS 2 service, ``~/convert`` (Convert).

Each input (a .xar, .pml, .crg, .pkg or .cbl file, or a folder holding one) is converted
into ``output_dir/<name>``; the answer lists the folders written and every warning.  An
input that cannot be converted makes the answer fail with its error; the others are still
converted.  An existing, non-empty ``output_dir/<name>`` is replaced only when the node
was started with the parameter ``force`` true (read only: a peer cannot turn it on), and
even then only when it is a folder the converter wrote holding nothing else
(:mod:`naoqi_qicore.converter.ownership`).

Any peer of the ROS domain can call the service, so inputs must be inside the folders of
the parameter ``behavior_roots`` and each input's output folder, resolved, strictly
inside those of ``output_roots`` (default for both: the folder the node was started in;
the behavior cache is also an output root); other paths, and inputs whose path names no
folder of its own (``proj/sub/..``), are refused with the answer ``success=false``.  The
output is then written from a handle of its output root
(:mod:`naoqi_qicore.file_root`): a folder on the way that becomes a symbolic link leading
out of the root meanwhile makes the conversion fail, never write outside.
"""
import os
from pathlib import Path
from typing import Any, List, Optional, Tuple

from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node

from naoqi_qicore.converter.api import convert
from naoqi_qicore.converter.writer import OutputExistsError, output_folder_name
from naoqi_qicore.file_root import FileRoot, RootedPath
from naoqi_qicore.ros.behavior_cache import default_cache_dir
from naoqi_qicore.ros.path_roots import is_under, outside_message, resolve_roots
from naoqi_qicore.ros.node_parameters import NodeProgram
from naoqi_qicore.ros.spin import run_node
from naoqi_qicore.srv import Convert


#: what xar_convert_node --help says (the parameters are described above)
PROGRAM = NodeProgram("xar_convert_node", "xar_convert", __doc__)


class ConvertNode(Node):
    """Serves ``~/convert``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("xar_convert", **kwargs)
        self.declare_parameter("force", False, ParameterDescriptor(
            description="replace output folders that already exist, when the converter "
                        "wrote them and they hold nothing else (else such an input fails "
                        "with an error; read only)", read_only=True))
        here = os.getcwd()
        self.declare_parameter("behavior_roots", [here], ParameterDescriptor(
            description="folders whose behaviors the service may convert (read only)",
            read_only=True))
        self.declare_parameter("output_roots", [here, str(default_cache_dir())],
                               ParameterDescriptor(
            description="folders the service may write into (read only)", read_only=True))
        self._force = bool(self.get_parameter("force").value)
        self._behavior_roots = resolve_roots(self.get_parameter("behavior_roots").value)
        self._output_roots = resolve_roots(self.get_parameter("output_roots").value)
        self.create_service(Convert, "~/convert", self._convert)

    def _target(self, output_dir: Path, source: str) -> Tuple[Path, str]:
        """The output root and the folder below it ``source`` is converted into;
        ValueError unless it is a folder of its own strictly inside an output root once
        resolved (resolved only to know which: it is then reached from the root's
        handle)."""
        target = output_dir / output_folder_name(source)
        try:
            resolved = target.resolve()
        except (OSError, RuntimeError):  # a link changing while it is read, a loop
            resolved = None
        for root in self._output_roots:
            if resolved is not None and resolved != root and resolved.is_relative_to(root):
                return root, resolved.relative_to(root).as_posix()
        raise ValueError(outside_message(str(target), self._output_roots, "output_roots"))

    def _convert(self, request: Convert.Request, response: Convert.Response):
        errors: List[str] = []
        if not request.inputs:
            errors.append("no inputs")
        if not request.output_dir:
            errors.append("output_dir is empty")
        output_dir = Path(request.output_dir).expanduser()
        if not errors and not is_under(output_dir, self._output_roots):
            errors.append(outside_message(request.output_dir, self._output_roots,
                                          "output_roots"))
        for source in request.inputs if not errors else []:
            try:
                if not is_under(Path(source), self._behavior_roots):
                    raise ValueError(outside_message(source, self._behavior_roots,
                                                     "behavior_roots"))
                if not Path(source).expanduser().exists():
                    raise ValueError("%s: no such file or folder" % source)
                root, relative = self._target(output_dir, source)
                with FileRoot(root, "the output root %s" % root, create=True) as files:
                    target = RootedPath(files, relative)
                    response.warnings.extend(convert(Path(source).expanduser(), target,
                                                     force=self._force).warnings)
            except OutputExistsError as error:
                errors.append("%s (the node replaces it only when started with the "
                              "parameter force:=true)" % error)
                continue
            except (ValueError, OSError) as error:
                errors.append(str(error))
                continue
            response.outputs.append(str(target.path))
        response.success = not errors
        response.message = "; ".join(errors) if errors else "converted %d behavior(s) into %s" % (
            len(response.outputs), output_dir)
        for error in errors:
            self.get_logger().error(error)
        return response


def main(args: Optional[List[str]] = None) -> int:
    """Console entry point of ``xar_convert_node``."""
    return run_node(lambda: ConvertNode(), PROGRAM, args)
