"""``xar_convert_node``: the converter as a ROS 2 service, ``~/convert`` (Convert).

Each input (a .xar, .pml, .crg, .pkg or .cbl file, or a folder holding one) is converted
into ``output_dir/<name>``; the answer lists the folders written and every warning.  An
input that cannot be converted makes the answer fail with its error; the others are still
converted.
"""
from pathlib import Path
from typing import Any, List, Optional

from rclpy.node import Node

from naoqi_qicore.ros.behavior_cache import behavior_name, convert_behavior
from naoqi_qicore.ros.spin import run_node
from naoqi_qicore.srv import Convert


class ConvertNode(Node):
    """Serves ``~/convert``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("xar_convert", **kwargs)
        self.create_service(Convert, "~/convert", self._convert)

    def _convert(self, request: Convert.Request, response: Convert.Response):
        errors: List[str] = []
        if not request.inputs:
            errors.append("no inputs")
        if not request.output_dir:
            errors.append("output_dir is empty")
        output_dir = Path(request.output_dir).expanduser()
        for source in request.inputs if not errors else []:
            target = output_dir / behavior_name(source)
            try:
                if not Path(source).expanduser().exists():
                    raise ValueError("%s: no such file or folder" % source)
                response.warnings.extend(convert_behavior(Path(source).expanduser(), target))
            except (ValueError, OSError) as error:
                errors.append(str(error))
                continue
            response.outputs.append(str(target))
        response.success = not errors
        response.message = "; ".join(errors) if errors else "converted %d behavior(s) into %s" % (
            len(response.outputs), output_dir)
        for error in errors:
            self.get_logger().error(error)
        return response


def main(args: Optional[List[str]] = None) -> int:
    """Console entry point of ``xar_convert_node``."""
    return run_node(lambda: ConvertNode(), args, threads=1)
