"""Reading a ``format_version="4"`` project from its box files (Choregraphe's split format).

Its ``.xar`` holds one ``<BoxInstance path="root_1.xml">``.  The box itself is in that file,
a ``<BoxInterface>`` (``Bitmap``, ``Input``/``Output`` typed by a ``signature``,
``Parameter`` typed by a letter, ``Resource`` with a ``lock_type``, ``Contents``), and what
it contains is in files next to it, by content type: ``.py`` (0) and ``.top`` (1) scripts,
``.fld`` flow diagrams (2) whose ``<BoxInstance>`` children are boxes with box files of
their own, ``.bhs`` behavior sequences (3) whose keyframes name their ``.fld`` and ``.anim``
motions (4).  They are read into the same model as a ``xar_version="3"`` document
(reference §1.12): an instance's ``<ParameterValue>`` is the value of its parameter, a
flow diagram is a timeline ``enable="0"`` with one layer ``behavior_layer1`` holding the
keyframe ``keyframe1`` at frame 1, and the behavior is written back as xar_version 3.

File paths are relative to the ``.xar``'s folder: absolute paths and ``..`` are refused,
so is a box file that contains itself, and the files of one project may not total more
than :data:`~naoqi_qicore.xar.elements.MAX_DOCUMENT_BYTES`.  A missing file is an error
naming the file, line and element that refer to it.
"""
from __future__ import annotations

import posixpath
import re
from pathlib import PurePath
from typing import Dict, List, Optional, Set, Tuple

from naoqi_qicore.xar.elements import (MAX_DOCUMENT_BYTES, ElementReader, SiblingReader,
                                       parse_document, serialize)
from naoqi_qicore.xar.model import (BehaviorKeyframe, BehaviorLayer, Box, Extras, IOType,
                                    Parameter, ParameterType, Port, Resource, Script,
                                    ScriptLanguage, Timeline)

#: ``signature`` of a port -> its ``type`` (one value; ``(x...x)`` repeats it ``type_size`` times)
SIGNATURE_TYPES = {"m": IOType.DYNAMIC, "d": IOType.NUMBER, "s": IOType.STRING,
                   "s<Bitmap>": IOType.BITMAP, "s<Sound>": IOType.SOUND}
#: ``type`` of a parameter -> its ``content_type``
PARAMETER_TYPES = {"b": ParameterType.BOOL, "i": ParameterType.INT, "d": ParameterType.DOUBLE,
                   "s": ParameterType.STRING, "s<Resource>": ParameterType.RESOURCE}
#: ``<Content type>``: what the file it names holds
PYTHON_SCRIPT, QICHAT_SCRIPT, FLOW_DIAGRAM, BEHAVIOR_SEQUENCE, ANIMATION = range(5)

_SIGNATURE_ITEM = re.compile(r"[mds](?:<\w+>)?")
_FLOW_LAYER, _FLOW_KEYFRAME = "behavior_layer1", "keyframe1"
_INTERFACE_ATTRIBUTES = ("name", "localization", "tooltip", "plugin", "format_version")
_PORT_ATTRIBUTES = ("name", "signature", "nature", "stm_value_name", "inner", "tooltip", "id")
_PARAMETER_ATTRIBUTES = ("name", "inherits_from_parent", "type", "default_value", "min", "max",
                         "custom_choice", "password", "tooltip", "id")


def signature_type(signature: str) -> Optional[Tuple[int, int]]:
    """``(type, type_size)`` of a port signature (``()``/``_`` bang, ``(s)``, ``((dd))``...)."""
    text = signature.strip()
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    if text in ("", "_"):
        return int(IOType.BANG), 1
    items = [text]
    if text.startswith("(") and text.endswith(")"):
        items = _SIGNATURE_ITEM.findall(text[1:-1])
        if "".join(items) != text[1:-1]:
            return None
    if not items or len(set(items)) != 1 or items[0] not in SIGNATURE_TYPES:
        return None
    return int(SIGNATURE_TYPES[items[0]]), len(items)


def _relative_path(path: str) -> Optional[str]:
    """``path`` normalised, or None when it is absolute or leaves the folder."""
    normal = posixpath.normpath(path.replace("\\", "/"))
    if (not path or normal.startswith("/") or normal == ".." or normal.startswith("../")
            or ":" in normal):
        return None
    return normal


class BoxFileReader(ElementReader):
    """Reads the box files of a project next to its ``.xar`` (``sibling`` reads them)."""

    diagram_box_tag = "BoxInstance"

    def __init__(self, source: str, sibling: SiblingReader) -> None:
        super().__init__(source, sibling)
        self.project_source = source
        self.budget = MAX_DOCUMENT_BYTES
        self.loading: Set[str] = set()

    def document(self, element, attribute: str, tag: str):
        """The root ``<tag>`` of the file named by ``element``'s ``attribute``; reading it
        makes it the current source of errors (the caller restores the previous one)."""
        path = self.required(element, attribute)
        relative = _relative_path(path)
        if relative is None:
            raise self.error(element, "refusing the path %r: outside the behavior's folder"
                             % path)
        data = self.sibling(relative)
        if data is None:
            raise self.error(element, "%s file %s is missing" % (tag, path))
        self.budget -= len(data)
        if self.budget < 0:
            raise self.error(element, "the files of this project total more than %d MB"
                             % (MAX_DOCUMENT_BYTES >> 20))
        self.source = str(PurePath(self.project_source).parent / relative)
        root, _ = parse_document(data, self.source)
        if root.tag != tag:
            raise self.error(root, "expected <%s>" % tag)
        root.attrib.pop("format_version", None)
        return root

    def text_file(self, element) -> str:
        """The text of the script file named by ``element``'s ``path``."""
        source = self.source
        relative = _relative_path(self.required(element, "path"))
        data = self.sibling(relative) if relative is not None else None
        if data is None:
            raise self.error(element, "script file %s is missing or outside the behavior's "
                             "folder" % element.get("path"))
        self.budget -= len(data)
        try:
            if self.budget < 0:
                raise self.error(element, "the files of this project total more than %d MB"
                                 % (MAX_DOCUMENT_BYTES >> 20))
            return data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise self.error(element, "script file %s is not UTF-8 text (byte %d)"
                             % (element.get("path"), error.start)) from None
        finally:
            self.source = source

    # -- boxes ------------------------------------------------------------------------------
    def diagram_box(self, element) -> Box:
        """A ``<BoxInstance>``: the box of its box file with the instance's values."""
        relative = _relative_path(self.required(element, "path"))
        if relative in self.loading:
            raise self.error(element, "box file %s contains itself" % relative)
        extras = self.extras(element, "BoxInstance")
        extras.attributes.pop("path", None)
        box = Box(name=self.required(element, "name"), id=self.required_int(element, "id"),
                  x=element.get("x"), y=element.get("y"), extras=extras)
        values: Dict[int, object] = {}
        for child in element:
            if child.tag == "ParameterValue":
                values[self.required_int(child, "id")] = child
            elif child.tag == "pluginContent":
                box.plugin_content = serialize(child)
            else:
                extras.elements.append(serialize(child))
        source = self.source
        self.loading.add(relative)
        interface = self.document(element, "path", "BoxInterface")
        self.interface(box, interface)
        self.loading.discard(relative)
        self.source = source
        for parameter in box.parameters:
            if parameter.id in values:
                parameter.value = self.required(values.pop(parameter.id), "value")
        if values:
            port_id, value = next(iter(values.items()))
            raise self.error(value, "id %d is not a parameter of box %r" % (port_id, box.name))
        return box

    def interface(self, box: Box, element) -> None:
        """Fill ``box`` from its ``<BoxInterface>`` and the files it names."""
        get = element.get
        box.localization, box.tooltip, box.plugin = (get("localization"), get("tooltip"),
                                                     get("plugin"))
        box.extras.attributes.update((name, value) for name, value in element.items()
                                     if name not in _INTERFACE_ATTRIBUTES)
        contents = []
        for child in element:
            tag = child.tag
            if tag == "Bitmap":
                box.bitmaps.append(self.required(child, "path"))
            elif tag in ("Input", "Output"):
                (box.inputs if tag == "Input" else box.outputs).append(self.port(child))
            elif tag == "Parameter":
                box.parameters.append(self.parameter(child))
            elif tag == "Resource":
                box.resources.append(Resource(
                    self.required(child, "name"), self.required(child, "lock_type"),
                    child.get("timeout"), self.other_attributes(child, ("name", "lock_type",
                                                                        "timeout"))))
            elif tag == "Contents":
                contents.extend(content for content in child if content.tag == "Content")
                box.extras.elements.extend(serialize(c) for c in child if c.tag != "Content")
            else:
                box.extras.elements.append(serialize(child))
        self.contents(box, contents)
        self.check_links(box)

    @staticmethod
    def other_attributes(element, known) -> Extras:
        return Extras({k: v for k, v in element.items() if k not in known}, [])

    def port(self, element) -> Port:
        if element.get("signature") is None and element.get("type") is not None:
            # the first format 4 files typed ports as xar_version 3 does
            kind = (self.required_int(element, "type"), self.required_int(element, "type_size"))
            extras = self.other_attributes(element, _PORT_ATTRIBUTES + ("type", "type_size"))
        else:
            signature = self.required(element, "signature")
            kind = signature_type(signature)
            if kind is None:
                raise self.error(element, "unknown signature %r" % signature)
            extras = self.other_attributes(element, _PORT_ATTRIBUTES)
        return Port(self.required(element, "name"), kind[0], kind[1],
                    self.required_int(element, "nature"), self.required_int(element, "id"),
                    inner=self.optional_int(element, "inner", extras),
                    tooltip=element.get("tooltip"),
                    stm_value_name=element.get("stm_value_name"), extras=extras)

    def parameter(self, element) -> Parameter:
        if element.get("type") is None and element.get("content_type") is not None:
            # the first format 4 files typed parameters as xar_version 3 does
            content_type = self.required_int(element, "content_type")
            if content_type not in {int(kind) for kind in PARAMETER_TYPES.values()}:
                raise self.error(element, "unknown parameter content_type %d" % content_type)
            extras = self.other_attributes(element, _PARAMETER_ATTRIBUTES + ("content_type",))
        else:
            kind = self.required(element, "type")
            if kind not in PARAMETER_TYPES:
                raise self.error(element, "unknown parameter type %r" % kind)
            content_type = int(PARAMETER_TYPES[kind])
            extras = self.other_attributes(element, _PARAMETER_ATTRIBUTES)
        get, opt = element.get, self.optional_int
        default = self.required(element, "default_value")
        parameter = Parameter(
            name=self.required(element, "name"), content_type=content_type,
            value=default, default_value=default, id=self.required_int(element, "id"),
            inherits_from_parent=opt(element, "inherits_from_parent", extras),
            min=get("min"), max=get("max"), tooltip=get("tooltip"),
            custom_choice=opt(element, "custom_choice", extras),
            password=opt(element, "password", extras), extras=extras)
        parameter.choices = self.gather(element, "Choice",
                                        lambda choice: self.required(choice, "value"), extras)
        return parameter

    # -- contents ---------------------------------------------------------------------------
    def contents(self, box: Box, contents: List) -> None:
        """The script and timeline of ``box`` from its ``<Content>`` files."""
        found: Dict[int, object] = {}
        for content in contents:
            kind = self.required_int(content, "type")
            if kind in found:
                raise self.error(content, "a second content of type %d" % kind)
            if kind not in range(5):
                raise self.error(content, "unknown content type %d" % kind)
            found[kind] = content
        for kind, language in ((PYTHON_SCRIPT, ScriptLanguage.PYTHON),
                               (QICHAT_SCRIPT, ScriptLanguage.QICHAT)):
            if kind in found:
                if box.script is not None:
                    raise self.error(found[kind], "a box has one script")
                box.script = Script(int(language), self.text_file(found[kind]))
        source = self.source
        if FLOW_DIAGRAM in found:
            diagram = self.flow_diagram(found[FLOW_DIAGRAM])
            box.timeline = Timeline(enable=0, layers=[BehaviorLayer(_FLOW_LAYER, [
                BehaviorKeyframe(_FLOW_KEYFRAME, 1, diagram)])])
        elif BEHAVIOR_SEQUENCE in found:
            box.timeline = self.timeline(self.document(found[BEHAVIOR_SEQUENCE], "path",
                                                       "BehaviorSequence"), "BehaviorSequence")
            box.timeline.enable = 1
        self.source = source
        if ANIMATION in found:
            motion = self.timeline(self.document(found[ANIMATION], "path", "Animation"),
                                   "Animation")
            self.source = source
            if box.timeline is None:
                motion.enable = 1
                box.timeline = motion
            else:
                box.timeline.actuator_list = motion.actuator_list

    def flow_diagram(self, element):
        """The diagram of the ``.fld`` file named by ``element``'s ``path``."""
        source = self.source
        diagram = self.diagram(self.document(element, "path", "FlowDiagram"))
        self.source = source
        return diagram

    def keyframe(self, element) -> BehaviorKeyframe:
        """A keyframe of a ``.bhs``: its diagram is the ``.fld`` its ``path`` names."""
        keyframe = super().keyframe(element)
        if keyframe.extras.attributes.pop("path", None) is not None:
            keyframe.diagram = self.flow_diagram(element)
        return keyframe


def read_root_instance(reader: ElementReader, instance) -> Optional[Box]:
    """The root box of a project from the box file its ``<BoxInstance>`` names, or None
    when that file is not next to the ``.xar`` (or no reader of files was given)."""
    path = instance.get("path")
    relative = _relative_path(path) if path else None
    if reader.sibling is None or relative is None or reader.sibling(relative) is None:
        return None
    box_reader = BoxFileReader(reader.source, reader.sibling)
    box = box_reader.diagram_box(instance)
    reader.warnings.extend(box_reader.warnings)
    return box
