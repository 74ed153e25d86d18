"""Which robot a behavior was written for: NAO or Pepper, and why we think so.

In order of authority: the project's ``manifest.xml`` (``<robotRequirement model>``:
``NAO``..., ``JULIETTE``... for Pepper), then the services its boxes call that only one
robot has (``ALTabletService`` on Pepper: a NAO has no tablet, so a behavior that shows
pages is a Pepper one even when its timelines were recorded with a NAO's legs, keys a
Pepper leaves out), then the joints its timelines move (Pepper has ``HipPitch``,
``KneePitch`` and wheels, NAO has legs) or the model its timelines were made on
(``<ActuatorList model>``).  With no evidence the robot is NAO.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, List, Optional, Tuple

from lxml import etree

from naoqi_qicore.xar.elements import safe_xml_parser
from naoqi_qicore.xar.model import Behavior

NAO, PEPPER = "nao", "pepper"
#: joints only one of the two robots has
_PEPPER_JOINTS = {"HipPitch", "HipRoll", "KneePitch", "WheelFL", "WheelFR", "WheelB"}
_NAO_JOINTS = {side + joint for side in "LR"
               for joint in ("HipYawPitch", "HipRoll", "HipPitch", "KneePitch", "AnklePitch",
                             "AnkleRoll")}
_PEPPER_SERVICES = re.compile(r"\bAL(TabletService|TabletTouch)\b")
#: how far above a behavior its manifest.xml may be
_MANIFEST_DEPTH = 4


@dataclass
class RobotKind:
    """The robot a behavior was written for, and the evidence."""

    kind: str
    reason: str

    def __str__(self) -> str:
        return "%s (%s)" % ("Pepper" if self.kind == PEPPER else "NAO", self.reason)


def _model_kind(model: str) -> Optional[str]:
    model = model.lower()
    if model.startswith(("juliette", "pepper")):
        return PEPPER
    if model.startswith("nao"):
        return NAO
    return None


def manifest_kind(folder: Path) -> Optional[RobotKind]:
    """The robot the nearest ``manifest.xml`` at or above ``folder`` requires, if any."""
    probe = folder.resolve()
    for _ in range(_MANIFEST_DEPTH):
        manifest = probe / "manifest.xml"
        if manifest.is_file():
            try:
                root = etree.parse(str(manifest), safe_xml_parser()).getroot()
            except (etree.XMLSyntaxError, OSError):
                return None
            for requirement in root.iter("robotRequirement"):
                kind = _model_kind(requirement.get("model", ""))
                if kind is not None:
                    return RobotKind(kind, "%s requires robot model %s"
                                     % (manifest, requirement.get("model")))
            return None
        if probe.parent == probe:
            return None
        probe = probe.parent
    return None


def behavior_kind(behaviors: Iterable[Behavior]) -> Optional[RobotKind]:
    """The robot the timelines and box scripts of ``behaviors`` point to, if any."""
    pepper_joints: List[str] = []
    nao_joints: List[str] = []
    models: List[str] = []
    services: List[str] = []
    for behavior in behaviors:
        for _, box in behavior.root.walk():
            timeline = box.timeline
            actuators = timeline.actuator_list if timeline is not None else None
            if actuators is not None:
                if actuators.model:
                    models.append(actuators.model)
                for curve in actuators.curves:
                    if curve.actuator in _PEPPER_JOINTS:
                        pepper_joints.append(curve.actuator)
                    elif curve.actuator in _NAO_JOINTS:
                        nao_joints.append(curve.actuator)
            if box.script is not None and box.script.content:
                services.extend(_PEPPER_SERVICES.findall(box.script.content))
    if services:
        return RobotKind(PEPPER, "its boxes call AL%s" % sorted(set(services))[0])
    if pepper_joints and not nao_joints:
        return RobotKind(PEPPER, "its timelines move %s" % ", ".join(sorted(set(pepper_joints))))
    if nao_joints and not pepper_joints:
        return RobotKind(NAO, "its timelines move %s" % ", ".join(sorted(set(nao_joints))[:3]))
    kinds = {_model_kind(model) for model in models} - {None}
    if len(kinds) == 1:
        kind = kinds.pop()
        return RobotKind(kind, "its timelines were made on %s" % ("Pepper" if kind == PEPPER
                                                                   else "NAO"))
    return None


def robot_kind(behaviors: Iterable[Behavior], folder: Optional[Path]) -> RobotKind:
    """The robot the behaviors (found in ``folder``, if known) were written for."""
    found = manifest_kind(folder) if folder is not None else None
    return (found or behavior_kind(behaviors)
            or RobotKind(NAO, "nothing in the behavior asks for a Pepper"))


def input_robot_kind(path: Path) -> RobotKind:
    """The robot the behavior at ``path`` was written for: any input the converter reads,
    a converted behavior or a converted project.  Raises XarError when it cannot be read."""
    from naoqi_qicore.converter.loader import load_converted
    from naoqi_qicore.converter.project import read_project_index
    from naoqi_qicore.converter.writer import MANIFEST
    from naoqi_qicore.xar.sources import read_behaviors

    path = path.resolve()
    project = read_project_index(path)
    folder = project[0][1] if project else path
    if (folder / MANIFEST).is_file():
        return robot_kind([load_converted(folder).behavior], folder)
    behaviors = [entry.behavior for entry in read_behaviors(path)]
    return robot_kind(behaviors, path if path.is_dir() else path.parent)


def simulated_robot_for(behavior: str, requested: str = "auto") -> Tuple[str, str]:
    """``(kind, why)`` of the simulated robot to start for ``behavior``: ``requested``
    unless it is "auto", else the robot the behavior was written for (NAO when the
    behavior cannot be read; loading it will say why)."""
    from naoqi_qicore.xar.errors import XarError
    if requested != "auto":
        return requested, "asked for %s" % requested
    try:
        kind = input_robot_kind(Path(behavior))
    except (XarError, OSError) as error:
        return NAO, "the behavior cannot be read (%s)" % error
    return kind.kind, kind.reason
