"""Typed model of a Choregraphe behavior (the content of a ``.xar`` file).

The model mirrors the XML of Choregraphe's ``xar_version="3"`` format: a project
holds one root :class:`Box`; a box has ports, parameters, resources, a script and
optionally a :class:`Timeline` made of behavior layers (whose keyframes hold flow
:class:`Diagram` objects) and an actuator list (motion curves).

Optional attributes are ``None`` when the XML does not carry them, so a model
written back produces the same attributes.  Attributes and child elements that
have no field of their own are kept in ``extra_attributes`` / ``extra_elements``
(serialized XML) so that nothing read from a file is lost.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Tuple


class IOType(enum.IntEnum):
    """Type of the value carried by an input or output (``type`` attribute)."""

    DYNAMIC = 0
    BANG = 1
    NUMBER = 2
    STRING = 3
    BITMAP = 4
    SOUND = 5


class InputNature(enum.IntEnum):
    """What an input does to its box (``nature`` attribute of ``<Input>``)."""

    ON_LOAD = 0
    EVENT = 1
    ON_START = 2
    ON_STOP = 3
    STM_VALUE = 4


class OutputNature(enum.IntEnum):
    """What an output does to its box (``nature`` attribute of ``<Output>``)."""

    UNDEF = 0
    STOPPED = 1
    PUNCTUAL = 2
    RECURRENT = 3


class ParameterType(enum.IntEnum):
    """``content_type`` of a ``<Parameter>``."""

    BOOL = 0
    INT = 1
    DOUBLE = 2
    STRING = 3
    RESOURCE = 4
    COLOR = 5


class ScriptLanguage(enum.IntEnum):
    """``language`` attribute of ``<script>``."""

    CPP = 0
    URBI = 1
    RUBY = 2
    DYNAMIC_LIBRARY = 3
    PYTHON = 4
    QICHAT = 5
    NONE = 6


@dataclass(slots=True)
class Extras:
    """What a file carries beyond the modelled fields, kept verbatim."""

    #: attribute name -> value, for attributes without a field of their own
    attributes: Dict[str, str] = field(default_factory=dict)
    #: serialized XML of child elements without a field of their own, in order
    elements: List[str] = field(default_factory=list)


def _refuse_change(*_: object) -> None:
    raise TypeError("this empty value is shared (NO_EXTRAS, NO_TANGENTS): give the object "
                    "one of its own before changing it")


class _EmptyDict(dict):
    """An empty dict that refuses changes."""

    __setitem__ = __delitem__ = update = setdefault = pop = popitem = clear = __ior__ = (
        _refuse_change)


class _EmptyList(list):
    """An empty list that refuses changes."""

    __setitem__ = __delitem__ = append = extend = insert = remove = pop = clear = sort = (
        _refuse_change)
    reverse = __iadd__ = __imul__ = _refuse_change


#: the extras of the many objects read without any (motion keys, ports, links), shared
#: instead of one empty Extras each; equal to ``Extras()``, it refuses to be changed
NO_EXTRAS = Extras(_EmptyDict(), _EmptyList())
#: the tangents of the many motion keys read without any, shared the same way
NO_TANGENTS: List["Tangent"] = _EmptyList()


@dataclass(slots=True)
class Port:
    """An input or an output of a box."""

    name: str
    type: int
    type_size: int
    nature: int
    id: int
    inner: Optional[int] = None
    tooltip: Optional[str] = None
    #: ALMemory key of an STMValue input (nature 4)
    stm_value_name: Optional[str] = None
    extras: Extras = field(default_factory=Extras)


@dataclass(slots=True)
class Parameter:
    """A box parameter (``<Parameter>``) with its allowed choices."""

    name: str
    content_type: int
    value: str
    default_value: Optional[str]
    id: int
    inherits_from_parent: Optional[int] = None
    min: Optional[str] = None
    max: Optional[str] = None
    tooltip: Optional[str] = None
    custom_choice: Optional[int] = None
    password: Optional[int] = None
    choices: List[str] = field(default_factory=list)
    extras: Extras = field(default_factory=Extras)


@dataclass(slots=True)
class Resource:
    """A robot resource a box acquires (``type`` is e.g. "Lock", "Stop on demand")."""

    name: str
    type: str
    timeout: Optional[str] = None
    extras: Extras = field(default_factory=Extras)


@dataclass(slots=True)
class Script:
    """The code of a box: the CDATA payload of ``<content>`` only."""

    language: int
    content: str = ""
    extras: Extras = field(default_factory=Extras)


@dataclass(slots=True)
class Tangent:
    """A Bezier handle of a motion key (abscissa in frames, ordinate in curve unit)."""

    side: str
    interp_type: str
    abscissa: float
    ordinate: float
    extras: Extras = field(default_factory=Extras)


@dataclass(slots=True)
class Key:
    """A motion key: ``value`` of the actuator at ``frame`` (curve unit)."""

    frame: int
    value: float
    smooth: Optional[int] = None
    symmetrical: Optional[int] = None
    tangents: List[Tangent] = field(default_factory=list)
    extras: Extras = field(default_factory=Extras)


@dataclass(slots=True)
class ActuatorCurve:
    """The keys of one actuator (joint). ``unit``: -1/None legacy, 0 degree, 1 percent."""

    actuator: str
    name: str = "value"
    mute: Optional[int] = None
    unit: Optional[int] = None
    recordable: Optional[int] = None
    always_visible: Optional[int] = None
    keys: List[Key] = field(default_factory=list)
    extras: Extras = field(default_factory=Extras)


@dataclass(slots=True)
class ActuatorList:
    """The motion curves of a timeline."""

    model: Optional[str] = None
    curves: List[ActuatorCurve] = field(default_factory=list)
    extras: Extras = field(default_factory=Extras)
    #: True when the file had its curves directly under ``<Timeline>`` (no ``<ActuatorList>``)
    implicit: bool = False


@dataclass(slots=True)
class Link:
    """A signal link from (outputowner, indexofoutput) to (inputowner, indexofinput).

    Owner ``0`` is the box that owns the diagram.
    """

    inputowner: int
    indexofinput: int
    outputowner: int
    indexofoutput: int
    extras: Extras = field(default_factory=Extras)


@dataclass(slots=True)
class Diagram:
    """A flow diagram: boxes and the links between them."""

    boxes: List["Box"] = field(default_factory=list)
    links: List[Link] = field(default_factory=list)
    scale: Optional[str] = None
    extras: Extras = field(default_factory=Extras)


@dataclass(slots=True)
class BehaviorKeyframe:
    """A keyframe of a behavior layer: its diagram starts at frame ``index``."""

    name: str
    index: int
    diagram: Diagram = field(default_factory=Diagram)
    bitmap: Optional[str] = None
    extras: Extras = field(default_factory=Extras)


@dataclass(slots=True)
class BehaviorLayer:
    """A layer of keyframes in a timeline."""

    name: str
    keyframes: List[BehaviorKeyframe] = field(default_factory=list)
    mute: Optional[int] = None
    extras: Extras = field(default_factory=Extras)


@dataclass(slots=True)
class Timeline:
    """A box timeline: ``enable=0`` means a plain flow diagram box."""

    enable: int = 0
    fps: Optional[int] = None
    start_frame: Optional[int] = None
    end_frame: Optional[int] = None
    size: Optional[int] = None
    resources_acquisition: Optional[int] = None
    scale: Optional[str] = None
    layers: List[BehaviorLayer] = field(default_factory=list)
    actuator_list: Optional[ActuatorList] = None
    #: serialized ``<watches>`` element, if any
    watches: Optional[str] = None
    extras: Extras = field(default_factory=Extras)


@dataclass(slots=True)
class Box:
    """A Choregraphe box."""

    name: str
    id: int
    inputs: List[Port] = field(default_factory=list)
    outputs: List[Port] = field(default_factory=list)
    parameters: List[Parameter] = field(default_factory=list)
    resources: List[Resource] = field(default_factory=list)
    script: Optional[Script] = None
    timeline: Optional[Timeline] = None
    tooltip: Optional[str] = None
    x: Optional[str] = None
    y: Optional[str] = None
    localization: Optional[str] = None
    plugin: Optional[str] = None
    robot: Optional[str] = None
    bitmap_expanded: Optional[str] = None
    bitmaps: List[str] = field(default_factory=list)
    #: serialized ``<pluginContent>`` element (localized texts, dialog...), if any
    plugin_content: Optional[str] = None
    #: text of each ``<dialogFile>`` child, in order
    dialog_files: List[str] = field(default_factory=list)
    extras: Extras = field(default_factory=Extras)

    def diagrams(self) -> Iterator[Diagram]:
        """Every diagram directly owned by this box (one per keyframe)."""
        if self.timeline is not None:
            for layer in self.timeline.layers:
                for keyframe in layer.keyframes:
                    yield keyframe.diagram

    def children(self) -> Iterator["Box"]:
        """Every box directly inside this box's diagrams."""
        for diagram in self.diagrams():
            yield from diagram.boxes

    def walk(self) -> Iterator[Tuple[int, "Box"]]:
        """This box and all nested boxes, depth first, with their level (self = 0)."""
        stack: List[Tuple[int, Box]] = [(0, self)]
        while stack:
            level, box = stack.pop()
            yield level, box
            stack.extend((level + 1, child) for child in reversed(list(box.children())))


@dataclass(slots=True)
class Behavior:
    """A whole behavior: a ``ChoregrapheProject`` with its root box."""

    root: Box
    #: where it was read from (file path, possibly ``archive.crg!behavior.xar``)
    source: str = ""
    xar_version: Optional[str] = None
    format_version: Optional[str] = None
    name: Optional[str] = None
    #: XML namespace of the root element ("" when none)
    namespace: str = ""
    #: tag of the root element of the source file (ChoregrapheProject, Animation, ...)
    root_tag: str = "ChoregrapheProject"
    extras: Extras = field(default_factory=Extras)
    #: True when the file held the root box's content directly under its root element
    #: (no ``<Box>``): the root box was synthesized, as for Animation/Timeline roots
    bare_root: bool = False
    #: what reading the file noticed without refusing it (not part of the behavior itself)
    warnings: List[str] = field(default_factory=list, compare=False)
