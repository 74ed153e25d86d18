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
from typing import Any, Dict, Iterator, List, Optional, Tuple


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


class Record:
    """A plain record: fields in ``__slots__``, equal when of the same class with equal fields.

    The model's many small objects are built by hand-written ``__init__`` methods rather
    than dataclasses, whose machinery (``dataclasses`` and ``inspect``) would be imported
    and run by every ``xar_convert`` process before its first file.
    """

    __slots__ = ()
    #: fields left out of comparisons
    _not_compared: Tuple[str, ...] = ()

    def _compared(self) -> Tuple[object, ...]:
        skip = self._not_compared
        return tuple(getattr(self, name) for name in self.__slots__ if name not in skip)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._compared() == other._compared()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  # mutable, as a dataclass

    def __repr__(self) -> str:
        return "%s(%s)" % (self.__class__.__name__, ", ".join(
            "%s=%r" % (name, getattr(self, name)) for name in self.__slots__))


class Extras(Record):
    """What a file carries beyond the modelled fields, kept verbatim."""

    __slots__ = ("attributes", "elements")

    def __init__(self, attributes: Optional[Dict[str, str]] = None,
                 elements: Optional[List[str]] = None) -> None:
        #: attribute name -> value, for attributes without a field of their own
        self.attributes: Dict[str, str] = {} if attributes is None else attributes
        #: serialized XML of child elements without a field of their own, in order
        self.elements: List[str] = [] if elements is None else elements


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


def own_extras(record: Any) -> Extras:
    """The extras of ``record`` (a box, a curve...) to add to: its own, given one first when
    it has the shared :data:`NO_EXTRAS`."""
    if record.extras is NO_EXTRAS:
        record.extras = Extras()
    return record.extras


class Port(Record):
    """An input or an output of a box."""

    __slots__ = ("name", "type", "type_size", "nature", "id", "inner", "tooltip", "stm_value_name",
                 "extras")

    def __init__(self, name: str, type: int, type_size: int, nature: int, id: int,
                 inner: Optional[int] = None, tooltip: Optional[str] = None,
                 stm_value_name: Optional[str] = None, extras: Optional[Extras] = None) -> None:
        self.name: str = name
        self.type: int = type
        self.type_size: int = type_size
        self.nature: int = nature
        self.id: int = id
        self.inner: Optional[int] = inner
        self.tooltip: Optional[str] = tooltip
        #: ALMemory key of an STMValue input (nature 4)
        self.stm_value_name: Optional[str] = stm_value_name
        self.extras: Extras = Extras() if extras is None else extras


class Parameter(Record):
    """A box parameter (``<Parameter>``) with its allowed choices."""

    __slots__ = ("name", "content_type", "value", "default_value", "id", "inherits_from_parent",
                 "min", "max", "tooltip", "custom_choice", "password", "choices", "extras")

    def __init__(self, name: str, content_type: int, value: str, default_value: Optional[str],
                 id: int, inherits_from_parent: Optional[int] = None, min: Optional[str] = None,
                 max: Optional[str] = None, tooltip: Optional[str] = None,
                 custom_choice: Optional[int] = None, password: Optional[int] = None,
                 choices: Optional[List[str]] = None, extras: Optional[Extras] = None) -> None:
        self.name: str = name
        self.content_type: int = content_type
        self.value: str = value
        self.default_value: Optional[str] = default_value
        self.id: int = id
        self.inherits_from_parent: Optional[int] = inherits_from_parent
        self.min: Optional[str] = min
        self.max: Optional[str] = max
        self.tooltip: Optional[str] = tooltip
        self.custom_choice: Optional[int] = custom_choice
        self.password: Optional[int] = password
        self.choices: List[str] = [] if choices is None else choices
        self.extras: Extras = Extras() if extras is None else extras


class Resource(Record):
    """A robot resource a box acquires (``type`` is e.g. "Lock", "Stop on demand")."""

    __slots__ = ("name", "type", "timeout", "extras")

    def __init__(self, name: str, type: str, timeout: Optional[str] = None,
                 extras: Optional[Extras] = None) -> None:
        self.name: str = name
        self.type: str = type
        self.timeout: Optional[str] = timeout
        self.extras: Extras = Extras() if extras is None else extras


class Script(Record):
    """The code of a box: the CDATA payload of ``<content>`` only."""

    __slots__ = ("language", "content", "extras")

    def __init__(self, language: int, content: str = "", extras: Optional[Extras] = None) -> None:
        self.language: int = language
        self.content: str = content
        self.extras: Extras = Extras() if extras is None else extras


class Tangent(Record):
    """A Bezier handle of a motion key (abscissa in frames, ordinate in curve unit)."""

    __slots__ = ("side", "interp_type", "abscissa", "ordinate", "extras")

    def __init__(self, side: str, interp_type: str, abscissa: float, ordinate: float,
                 extras: Optional[Extras] = None) -> None:
        self.side: str = side
        self.interp_type: str = interp_type
        self.abscissa: float = abscissa
        self.ordinate: float = ordinate
        self.extras: Extras = Extras() if extras is None else extras


class Key(Record):
    """A motion key: ``value`` of the actuator at ``frame`` (curve unit)."""

    __slots__ = ("frame", "value", "smooth", "symmetrical", "tangents", "extras")

    def __init__(self, frame: int, value: float, smooth: Optional[int] = None,
                 symmetrical: Optional[int] = None, tangents: Optional[List[Tangent]] = None,
                 extras: Optional[Extras] = None) -> None:
        self.frame: int = frame
        self.value: float = value
        self.smooth: Optional[int] = smooth
        self.symmetrical: Optional[int] = symmetrical
        self.tangents: List[Tangent] = [] if tangents is None else tangents
        self.extras: Extras = Extras() if extras is None else extras


class ActuatorCurve(Record):
    """The keys of one actuator (joint). ``unit``: -1/None legacy, 0 degree, 1 percent."""

    __slots__ = ("actuator", "name", "mute", "unit", "recordable", "always_visible", "keys",
                 "extras")

    def __init__(self, actuator: str, name: str = "value", mute: Optional[int] = None,
                 unit: Optional[int] = None, recordable: Optional[int] = None,
                 always_visible: Optional[int] = None, keys: Optional[List[Key]] = None,
                 extras: Optional[Extras] = None) -> None:
        self.actuator: str = actuator
        self.name: str = name
        self.mute: Optional[int] = mute
        self.unit: Optional[int] = unit
        self.recordable: Optional[int] = recordable
        self.always_visible: Optional[int] = always_visible
        self.keys: List[Key] = [] if keys is None else keys
        self.extras: Extras = Extras() if extras is None else extras


class ActuatorList(Record):
    """The motion curves of a timeline."""

    __slots__ = ("model", "curves", "extras", "implicit")

    def __init__(self, model: Optional[str] = None, curves: Optional[List[ActuatorCurve]] = None,
                 extras: Optional[Extras] = None, implicit: bool = False) -> None:
        self.model: Optional[str] = model
        self.curves: List[ActuatorCurve] = [] if curves is None else curves
        self.extras: Extras = Extras() if extras is None else extras
        #: True when the file had its curves directly under ``<Timeline>`` (no ``<ActuatorList>``)
        self.implicit: bool = implicit


class Link(Record):
    """A signal link from (outputowner, indexofoutput) to (inputowner, indexofinput).

    Owner ``0`` is the box that owns the diagram.
    """

    __slots__ = ("inputowner", "indexofinput", "outputowner", "indexofoutput", "extras")

    def __init__(self, inputowner: int, indexofinput: int, outputowner: int, indexofoutput: int,
                 extras: Optional[Extras] = None) -> None:
        self.inputowner: int = inputowner
        self.indexofinput: int = indexofinput
        self.outputowner: int = outputowner
        self.indexofoutput: int = indexofoutput
        self.extras: Extras = Extras() if extras is None else extras


class Diagram(Record):
    """A flow diagram: boxes and the links between them."""

    __slots__ = ("boxes", "links", "scale", "extras")

    def __init__(self, boxes: Optional[List["Box"]] = None, links: Optional[List[Link]] = None,
                 scale: Optional[str] = None, extras: Optional[Extras] = None) -> None:
        self.boxes: List["Box"] = [] if boxes is None else boxes
        self.links: List[Link] = [] if links is None else links
        self.scale: Optional[str] = scale
        self.extras: Extras = Extras() if extras is None else extras


class BehaviorKeyframe(Record):
    """A keyframe of a behavior layer: its diagram starts at frame ``index``."""

    __slots__ = ("name", "index", "diagram", "bitmap", "extras")

    def __init__(self, name: str, index: int, diagram: Optional[Diagram] = None,
                 bitmap: Optional[str] = None, extras: Optional[Extras] = None) -> None:
        self.name: str = name
        self.index: int = index
        self.diagram: Diagram = Diagram() if diagram is None else diagram
        self.bitmap: Optional[str] = bitmap
        self.extras: Extras = Extras() if extras is None else extras


class BehaviorLayer(Record):
    """A layer of keyframes in a timeline."""

    __slots__ = ("name", "keyframes", "mute", "extras")

    def __init__(self, name: str, keyframes: Optional[List[BehaviorKeyframe]] = None,
                 mute: Optional[int] = None, extras: Optional[Extras] = None) -> None:
        self.name: str = name
        self.keyframes: List[BehaviorKeyframe] = [] if keyframes is None else keyframes
        self.mute: Optional[int] = mute
        self.extras: Extras = Extras() if extras is None else extras


class Timeline(Record):
    """A box timeline: ``enable=0`` means a plain flow diagram box."""

    __slots__ = ("enable", "fps", "start_frame", "end_frame", "size", "resources_acquisition",
                 "scale", "layers", "actuator_list", "watches", "extras")

    def __init__(self, enable: int = 0, fps: Optional[int] = None,
                 start_frame: Optional[int] = None, end_frame: Optional[int] = None,
                 size: Optional[int] = None, resources_acquisition: Optional[int] = None,
                 scale: Optional[str] = None, layers: Optional[List[BehaviorLayer]] = None,
                 actuator_list: Optional[ActuatorList] = None, watches: Optional[str] = None,
                 extras: Optional[Extras] = None) -> None:
        self.enable: int = enable
        self.fps: Optional[int] = fps
        self.start_frame: Optional[int] = start_frame
        self.end_frame: Optional[int] = end_frame
        self.size: Optional[int] = size
        self.resources_acquisition: Optional[int] = resources_acquisition
        self.scale: Optional[str] = scale
        self.layers: List[BehaviorLayer] = [] if layers is None else layers
        self.actuator_list: Optional[ActuatorList] = actuator_list
        #: serialized ``<watches>`` element, if any
        self.watches: Optional[str] = watches
        self.extras: Extras = Extras() if extras is None else extras


class Box(Record):
    """A Choregraphe box."""

    __slots__ = ("name", "id", "inputs", "outputs", "parameters", "resources", "script",
                 "timeline", "tooltip", "x", "y", "localization", "plugin", "robot",
                 "bitmap_expanded", "bitmaps", "plugin_content", "dialog_files", "extras")

    def __init__(self, name: str, id: int, inputs: Optional[List[Port]] = None,
                 outputs: Optional[List[Port]] = None,
                 parameters: Optional[List[Parameter]] = None,
                 resources: Optional[List[Resource]] = None, script: Optional[Script] = None,
                 timeline: Optional[Timeline] = None, tooltip: Optional[str] = None,
                 x: Optional[str] = None, y: Optional[str] = None,
                 localization: Optional[str] = None, plugin: Optional[str] = None,
                 robot: Optional[str] = None, bitmap_expanded: Optional[str] = None,
                 bitmaps: Optional[List[str]] = None, plugin_content: Optional[str] = None,
                 dialog_files: Optional[List[str]] = None,
                 extras: Optional[Extras] = None) -> None:
        self.name: str = name
        self.id: int = id
        self.inputs: List[Port] = [] if inputs is None else inputs
        self.outputs: List[Port] = [] if outputs is None else outputs
        self.parameters: List[Parameter] = [] if parameters is None else parameters
        self.resources: List[Resource] = [] if resources is None else resources
        self.script: Optional[Script] = script
        self.timeline: Optional[Timeline] = timeline
        self.tooltip: Optional[str] = tooltip
        self.x: Optional[str] = x
        self.y: Optional[str] = y
        self.localization: Optional[str] = localization
        self.plugin: Optional[str] = plugin
        self.robot: Optional[str] = robot
        self.bitmap_expanded: Optional[str] = bitmap_expanded
        self.bitmaps: List[str] = [] if bitmaps is None else bitmaps
        #: serialized ``<pluginContent>`` element (localized texts, dialog...), if any
        self.plugin_content: Optional[str] = plugin_content
        #: text of each ``<dialogFile>`` child, in order
        self.dialog_files: List[str] = [] if dialog_files is None else dialog_files
        self.extras: Extras = Extras() if extras is None else extras

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


class Behavior(Record):
    """A whole behavior: a ``ChoregrapheProject`` with its root box."""

    __slots__ = ("root", "source", "xar_version", "format_version", "name", "namespace",
                 "root_tag", "extras", "bare_root", "warnings")
    _not_compared = ("warnings"),

    def __init__(self, root: Box, source: str = "", xar_version: Optional[str] = None,
                 format_version: Optional[str] = None, name: Optional[str] = None,
                 namespace: str = "", root_tag: str = "ChoregrapheProject",
                 extras: Optional[Extras] = None, bare_root: bool = False,
                 warnings: Optional[List[str]] = None) -> None:
        self.root: Box = root
        #: where it was read from (file path, possibly ``archive.crg!behavior.xar``)
        self.source: str = source
        self.xar_version: Optional[str] = xar_version
        self.format_version: Optional[str] = format_version
        self.name: Optional[str] = name
        #: XML namespace of the root element ("" when none)
        self.namespace: str = namespace
        #: tag of the root element of the source file (ChoregrapheProject, Animation, ...)
        self.root_tag: str = root_tag
        self.extras: Extras = Extras() if extras is None else extras
        #: True when the file held the root box's content directly under its root element
        #: (no ``<Box>``): the root box was synthesized, as for Animation/Timeline roots
        self.bare_root: bool = bare_root
        #: what reading the file noticed without refusing it (not part of the behavior itself)
        self.warnings: List[str] = [] if warnings is None else warnings

