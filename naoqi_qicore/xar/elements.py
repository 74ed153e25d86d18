"""Reading the XML documents of a behavior and their elements into the
:mod:`naoqi_qicore.xar.model`.

The XML is parsed by lxml with entity expansion, DTD loading and network access disabled; a
document declaring entities is refused (:func:`parse_document`, :func:`safe_xml_parser`).
:class:`ElementReader` reads boxes, ports, timelines, diagrams and motions, each error an
:class:`~naoqi_qicore.xar.errors.XarError` naming file, line and element; the readers of whole
documents (:mod:`naoqi_qicore.xar.parser`, :mod:`naoqi_qicore.xar.box_files`) build on it.
"""
from __future__ import annotations

import contextlib
import gc
import io
import re
from typing import Callable, Dict, FrozenSet, Iterator, List, Optional, Set, Tuple, TypeVar

from lxml import etree

from naoqi_qicore.xar.errors import XarError
from naoqi_qicore.xar.model import (NO_EXTRAS, NO_TANGENTS, ActuatorCurve, ActuatorList,
                                    BehaviorKeyframe, BehaviorLayer, Box, Diagram, Extras, Key,
                                    Link, Parameter, Port, Resource, Script, Tangent, Timeline,
                                    own_extras)

#: refuse larger documents (the biggest real behaviors are a few MB)
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024

_TEXT_NODES = etree.XPath("text()", smart_strings=False)
_FIRST_TAG = re.compile(rb"<[A-Za-z_][^>]*>")
_DEFAULT_NAMESPACE = re.compile(rb"(\s)xmlns\s*=\s*(\"[^\"]*\"|'[^']*')")

_KNOWN = {
    "Box": {"name", "id", "localization", "tooltip", "x", "y", "plugin", "robot",
            "bitmap_expanded"},
    "Input": {"name", "type", "type_size", "nature", "stm_value_name", "inner", "tooltip", "id"},
    "Parameter": {"name", "inherits_from_parent", "content_type", "value", "default_value", "min",
                  "max", "tooltip", "id", "custom_choice", "password"},
    "Resource": {"name", "type", "timeout"},
    "script": {"language"},
    "Timeline": {"enable", "fps", "start_frame", "end_frame", "size", "resources_acquisition",
                 "scale"},
    "BehaviorLayer": {"name", "mute"},
    "BehaviorKeyframe": {"name", "index", "bitmap"},
    "Diagram": {"scale"},
    "Link": {"inputowner", "indexofinput", "outputowner", "indexofoutput"},
    "ActuatorList": {"model"},
    "ActuatorCurve": {"name", "actuator", "recordable", "mute", "unit", "alwaysVisible"},
    "Key": {"frame", "value", "smooth", "symmetrical"},
    "Tangent": {"side", "interpType", "abscissaParam", "ordinateParam"},
    "ChoregrapheProject": {"xar_version", "format_version", "name"},
    "BoxInstance": {"name", "id", "x", "y"},
}
_KNOWN["Output"] = _KNOWN["Input"]
_KNOWN["FlowDiagram"] = _KNOWN["Diagram"]
_KNOWN["BehaviorSequence"] = _KNOWN["Timeline"]
_PARAMETER_ATTRIBUTES = frozenset(_KNOWN["Parameter"])
_CURVE_ATTRIBUTES = frozenset(_KNOWN["ActuatorCurve"])
_BOX_ATTRIBUTES = frozenset(_KNOWN["Box"])
#: attributes of the most frequent elements, in the order Choregraphe writes them
_PORT_LAYOUT = ["name", "type", "type_size", "nature", "inner", "tooltip", "id"]
_KEY_LAYOUT = ["frame", "value"]
_CHOICE_LAYOUT = ["value"]
_SCRIPT_LAYOUT = ["language"]
_LINK_LAYOUT = ["inputowner", "indexofinput", "outputowner", "indexofoutput"]
_TANGENT_LAYOUT = ["side", "interpType", "abscissaParam", "ordinateParam"]
_KNOWN["Animation"] = _KNOWN["Timeline"]
_KNOWN["ChoregrapheBox"] = {"xar_version"}


def _optional_int(text: Optional[str]) -> Optional[int]:
    """``text`` as an int, None when absent (ValueError when it is not an integer)."""
    return None if text is None else int(text)


#: what :func:`_read_plain` reads
_Read = TypeVar("_Read")


def _read_plain(element, known: frozenset, build: Callable[[Dict[str, str]], _Read]
                ) -> Optional[_Read]:
    """``build(attributes)`` when the attributes of ``element`` are all ``known`` and read
    well; else None, and the general path keeps the unknown ones or says which is wrong."""
    values = dict(element.items())
    if not known.issuperset(values):
        return None
    try:
        return build(values)
    except (KeyError, ValueError):
        return None


def _plain_box(values: Dict[str, str]) -> Box:
    get = values.get
    return Box(values["name"], int(values["id"]), tooltip=get("tooltip"), x=get("x"),
               y=get("y"), localization=get("localization"), plugin=get("plugin"),
               robot=get("robot"), bitmap_expanded=get("bitmap_expanded"))


def _plain_parameter(values: Dict[str, str], choices: List[str]) -> Parameter:
    get = values.get
    return Parameter(values["name"], int(values["content_type"]), values["value"],
                     get("default_value"), int(values["id"]),
                     _optional_int(get("inherits_from_parent")), get("min"), get("max"),
                     get("tooltip"), _optional_int(get("custom_choice")),
                     _optional_int(get("password")), choices, NO_EXTRAS)


def _plain_curve(values: Dict[str, str]) -> ActuatorCurve:
    get = values.get
    return ActuatorCurve(values["actuator"], get("name", "value"), _optional_int(get("mute")),
                         _optional_int(get("unit")), _optional_int(get("recordable")),
                         _optional_int(get("alwaysVisible")), [], NO_EXTRAS)


def _plain_choices(element) -> Optional[List[str]]:
    """The values of the children of ``element`` when all are ``<Choice value/>``, else None."""
    choices = []
    for child in element:
        if child.tag != "Choice" or child.keys() != _CHOICE_LAYOUT or len(child):
            return None
        choices.append(child.get("value"))
    return choices


def serialize(element) -> str:
    """The XML text of ``element`` alone (without its tail)."""
    return etree.tostring(element, encoding="unicode", with_tail=False)


class ElementReader:
    """Reads the elements of one document into model objects.

    Knows the document's name (for errors) and collects what it noticed in ``warnings``.
    """

    def __init__(self, source: str, sibling: Optional["SiblingReader"] = None) -> None:
        self.source = source
        self.sibling = sibling
        self.warnings: List[str] = []
        #: id(diagram) -> (file, line of each of its links' elements in order), for the
        #: errors of :meth:`check_links`
        self.link_lines: Dict[int, Tuple[str, List[int]]] = {}
        #: the boxes of diagrams read while the document was parsed (:meth:`read_early`),
        #: by their (emptied) element
        self.read_boxes: Dict[object, Box] = {}
        #: each script text once: behaviors repeat library boxes, and a large behavior
        #: would otherwise hold thousands of copies of the same few scripts
        self.texts: Dict[str, str] = {}

    # -- errors and attributes -------------------------------------------------------------
    def error(self, element, message: str) -> XarError:
        tag = element.tag if isinstance(element.tag, str) else None
        return XarError(message, self.source, element.sourceline, tag)

    def required(self, element, name: str) -> str:
        value = element.get(name)
        if value is None:
            raise self.error(element, "missing required attribute %r" % name)
        return value

    def integer(self, element, name: str, text: str) -> int:
        try:
            return int(text)
        except ValueError:
            try:
                number = float(text)
            except ValueError:
                number = float("nan")
            if number.is_integer():
                return int(number)
            raise self.error(element, "attribute %r: %r is not an integer" % (name, text)) from None

    def required_int(self, element, name: str) -> int:
        return self.integer(element, name, self.required(element, name))

    def required_float(self, element, name: str) -> float:
        text = self.required(element, name)
        try:
            return float(text)
        except ValueError:
            raise self.error(element, "attribute %r: %r is not a number" % (name, text)) from None

    @staticmethod
    def optional_int(element, name: str, extras: Extras) -> Optional[int]:
        """The attribute as an int; a value that is not one is kept verbatim in ``extras``."""
        text = element.get(name)
        if text is None:
            return None
        try:
            return int(text)
        except ValueError:
            extras.attributes[name] = text
            return None

    @staticmethod
    def extras(element, known_as: Optional[str] = None) -> Extras:
        known = _KNOWN[known_as or element.tag]
        names = element.keys()
        if known.issuperset(names):
            return Extras()
        return Extras({k: element.get(k) for k in names if k not in known}, [])

    @staticmethod
    def gather(element, tag: str, read, extras: Extras) -> list:
        """``read(child)`` for the children named ``tag``; the others go to ``extras``."""
        found = []
        for child in element:
            if child.tag == tag:
                found.append(read(child))
            else:
                extras.elements.append(serialize(child))
        return found

    # -- boxes ------------------------------------------------------------------------------
    def box(self, element) -> Box:
        box = _read_plain(element, _BOX_ATTRIBUTES, _plain_box)
        if box is None:
            get = element.get
            box = Box(name=self.required(element, "name"), id=self.required_int(element, "id"),
                      tooltip=get("tooltip"), x=get("x"), y=get("y"),
                      localization=get("localization"), plugin=get("plugin"), robot=get("robot"),
                      bitmap_expanded=get("bitmap_expanded"), extras=self.extras(element, "Box"))
        self.box_content(box, element)
        return box

    def box_content(self, box: Box, element) -> None:
        """Read the children of ``element`` into ``box`` (unknown ones into its extras)."""
        for child in element:
            self.box_child(box, child)
        self.check_links(box)

    def box_child(self, box: Box, child) -> None:
        """Read one child element of a ``<Box>`` into ``box``."""
        tag = child.tag
        if tag == "Input":
            box.inputs.append(self.port(child))
        elif tag == "Output":
            box.outputs.append(self.port(child))
        elif tag == "Parameter":
            box.parameters.append(self.parameter(child))
        elif tag == "Resource":
            box.resources.append(Resource(self.required(child, "name"),
                                          self.required(child, "type"), child.get("timeout"),
                                          self.extras(child)))
        elif tag == "bitmap":
            box.bitmaps.append(child.text or "")
        elif tag == "script":
            box.script = self.script(child)
        elif tag == "Timeline":
            if box.timeline is not None:
                raise self.error(child, "box %r has a second <Timeline>" % box.name)
            box.timeline = self.timeline(child)
        elif tag == "pluginContent":
            box.plugin_content = serialize(child)
        elif tag == "dialogFile":
            box.dialog_files.append(child.text or "")
        else:
            own_extras(box).elements.append(serialize(child))  # copied boxes share NO_EXTRAS

    def port(self, element) -> Port:
        if element.keys() == _PORT_LAYOUT:  # what Choregraphe writes: no check to do
            name, kind, size, nature, inner, tooltip, port_id = element.values()
            try:
                return Port(name, int(kind), int(size), int(nature), int(port_id), int(inner),
                            tooltip, None, NO_EXTRAS)
            except ValueError:
                pass  # the general path says which attribute
        extras = self.extras(element)
        return Port(name=self.required(element, "name"), type=self.required_int(element, "type"),
                    type_size=self.required_int(element, "type_size"),
                    nature=self.required_int(element, "nature"),
                    id=self.required_int(element, "id"),
                    inner=self.optional_int(element, "inner", extras),
                    tooltip=element.get("tooltip"),
                    stm_value_name=element.get("stm_value_name"), extras=extras)

    def parameter(self, element) -> Parameter:
        choices = _plain_choices(element)
        if choices is not None:
            parameter = _read_plain(element, _PARAMETER_ATTRIBUTES,
                                    lambda values: _plain_parameter(values, choices))
            if parameter is not None:
                return parameter
        extras = self.extras(element)
        get = element.get
        parameter = Parameter(
            name=self.required(element, "name"),
            content_type=self.required_int(element, "content_type"),
            value=self.required(element, "value"), default_value=get("default_value"),
            id=self.required_int(element, "id"),
            inherits_from_parent=self.optional_int(element, "inherits_from_parent", extras),
            min=get("min"), max=get("max"), tooltip=get("tooltip"),
            custom_choice=self.optional_int(element, "custom_choice", extras),
            password=self.optional_int(element, "password", extras), extras=extras)
        parameter.choices = self.gather(element, "Choice",
                                        lambda choice: self.required(choice, "value"), extras)
        return parameter

    def script(self, element) -> Script:
        content = element[0] if len(element) == 1 else None
        if element.keys() == _SCRIPT_LAYOUT and (
                not len(element) or content is not None and content.tag == "content"):
            try:  # the usual <script language>, with or without <content>: no check to do
                language = int(element.get("language"))
            except ValueError:
                pass  # the general path says which attribute
            else:
                return Script(language, "" if content is None else self.script_text_once(content),
                              Extras())
        extras = self.extras(element)
        script = Script(language=self.required_int(element, "language"), extras=extras)
        contents = self.gather(element, "content", self.script_text_once, extras)
        if len(contents) > 1:
            raise self.error(element, "a script has %d <content>" % len(contents))
        script.content = contents[0] if contents else ""
        return script

    @staticmethod
    def script_text(element) -> str:
        """The CDATA payload of ``<content>``: its text nodes but the blank ones around the
        CDATA sections (a lone text node is taken whole unless it is blank)."""
        nodes = _TEXT_NODES(element)
        if len(nodes) == 1:
            return nodes[0] if not nodes[0].isspace() else ""
        return "".join(node for node in nodes if not node.isspace())

    def script_text_once(self, element) -> str:
        """:meth:`script_text`, the same text object for every equal script."""
        return self.shared(self.script_text(element))

    def shared(self, text: str) -> str:
        """``text``, as the one string of this reader equal to it (:attr:`texts`)."""
        return self.texts.setdefault(text, text)

    # -- timelines --------------------------------------------------------------------------
    def timeline(self, element, known_as: str = "Timeline") -> Timeline:
        extras = self.extras(element, known_as)
        opt = self.optional_int
        timeline = Timeline(enable=self.integer(element, "enable", element.get("enable", "0")),
                            fps=opt(element, "fps", extras),
                            start_frame=opt(element, "start_frame", extras),
                            end_frame=opt(element, "end_frame", extras),
                            size=opt(element, "size", extras),
                            resources_acquisition=opt(element, "resources_acquisition", extras),
                            scale=element.get("scale"), extras=extras)
        if timeline.fps is not None and timeline.fps < 0:
            raise self.error(element, "negative fps %d" % timeline.fps)
        for child in element:
            tag = child.tag
            if tag == "BehaviorLayer":
                timeline.layers.append(self.layer(child))
            elif tag == "ActuatorList":
                if timeline.actuator_list is not None:
                    raise self.error(child, "a timeline has a second <ActuatorList>")
                timeline.actuator_list = self.actuator_list(child)
            elif tag == "ActuatorCurve":
                if timeline.actuator_list is None:
                    timeline.actuator_list = ActuatorList(implicit=True)
                elif not timeline.actuator_list.implicit:
                    raise self.error(child, "curve outside the timeline's <ActuatorList>")
                timeline.actuator_list.curves.append(self.curve(child))
            elif tag == "watches":
                timeline.watches = serialize(child)
            else:
                extras.elements.append(serialize(child))
        if timeline.size is not None and timeline.actuator_list is not None:
            self.check_key_frames(element, timeline)
        return timeline

    def check_key_frames(self, element, timeline: Timeline) -> None:
        """No motion key is outside ``timeline``: after its ``size`` and its fixed
        ``end_frame`` (an error).  With no fixed end (-1: the timeline ends at its last key,
        as NAOqi played it) a key after ``size`` plays: it is kept, with a warning."""
        size, end = timeline.size, timeline.end_frame
        fixed_end = end is not None and end >= 0
        last = max(size, end) if fixed_end else size
        if all(key.frame <= last for curve in timeline.actuator_list.curves
               for key in curve.keys):
            return
        for key in element.iter("Key"):
            frame = self.integer(key, "frame", key.get("frame", "0"))
            if frame <= last:
                continue
            if fixed_end:
                raise self.error(key, "key at frame %d is outside its timeline (size %d, "
                                 "end_frame %d)" % (frame, size, end))
            self.warnings.append("%s:%s: <Key>: key at frame %d is after the timeline's size "
                                 "(%d); kept: the timeline plays to its last key"
                                 % (self.source, key.sourceline, frame, size))
            return

    def layer(self, element) -> BehaviorLayer:
        extras = self.extras(element)
        layer = BehaviorLayer(name=self.required(element, "name"),
                              mute=self.optional_int(element, "mute", extras), extras=extras)
        layer.keyframes = self.gather(element, "BehaviorKeyframe", self.keyframe, extras)
        return layer

    def keyframe(self, element) -> BehaviorKeyframe:
        extras = self.extras(element)
        keyframe = BehaviorKeyframe(name=self.required(element, "name"),
                                    index=self.required_int(element, "index"),
                                    bitmap=element.get("bitmap"), extras=extras)
        if keyframe.index < 0:
            raise self.error(element, "keyframe %r starts at negative frame %d"
                             % (keyframe.name, keyframe.index))
        diagrams = 0
        for child in element:
            if child.tag == "Diagram":
                diagrams += 1
                if diagrams > 1:
                    raise self.error(child, "keyframe %r has a second <Diagram>" % keyframe.name)
                keyframe.diagram = self.diagram(child)
            else:
                extras.elements.append(serialize(child))
        return keyframe

    def diagram(self, element) -> Diagram:
        extras = self.extras(element)
        diagram = Diagram(scale=element.get("scale"), extras=extras)
        seen: Set[int] = set()
        # one diagram holds the thousands of boxes and links of the largest behaviors
        box_tag, read_box, boxes = self.diagram_box_tag, self.diagram_box, diagram.boxes
        links, lines = diagram.links, []
        self.link_lines[id(diagram)] = (self.source, lines)
        for child in element:
            tag = child.tag
            if tag == box_tag:
                box = read_box(child)
                if box.id in seen:
                    raise self.error(child, "duplicate box id %d in one diagram" % box.id)
                seen.add(box.id)
                boxes.append(box)
            elif tag == "Link":
                link = None
                if child.keys() == _LINK_LAYOUT:
                    inputowner, indexofinput, outputowner, indexofoutput = child.values()
                    try:
                        link = Link(int(inputowner), int(indexofinput), int(outputowner),
                                    int(indexofoutput), NO_EXTRAS)
                    except ValueError:
                        pass  # the general path says which attribute
                if link is None:
                    link = Link(*(self.required_int(child, name) for name in _LINK_LAYOUT),
                                extras=self.extras(child))
                lines.append(child.sourceline)
                links.append(link)
            else:
                extras.elements.append(serialize(child))
        return diagram

    #: tag of the elements of a <Diagram> that are its boxes
    diagram_box_tag = "Box"

    def diagram_box(self, element) -> Box:
        """The box a diagram child stands for (the converted format refers to box files)."""
        box = self.read_boxes.pop(element, None)
        return box if box is not None else self.box(element)

    def read_early(self, element) -> None:
        """Read the box of a diagram as soon as the parser has its whole element (its own
        nested boxes were read the same way), then free the element's content: the model
        grows while the document's tree stays small, whatever the size of the behavior."""
        self.read_boxes[element] = self.box(element)
        element.clear()

    def check_links(self, owner: Box) -> None:
        """Every link of ``owner``'s diagrams joins existing boxes and ports."""
        if owner.timeline is None:  # most boxes: no diagram
            return
        owner_ports = _port_ids(owner)
        for diagram in owner.diagrams():
            if not diagram.links:
                continue
            # box id -> its port ids (the owner is box 0)
            ports = {box.id: _port_ids(box) for box in diagram.boxes}
            ports[0] = owner_ports
            for index, link in enumerate(diagram.links):
                if (link.indexofoutput in ports.get(link.outputowner, _NO_PORTS)
                        and link.indexofinput in ports.get(link.inputowner, _NO_PORTS)):
                    continue
                for box_id, port_id, role in ((link.outputowner, link.indexofoutput, "output"),
                                              (link.inputowner, link.indexofinput, "input")):
                    if box_id not in ports:
                        raise self.link_error(diagram, index, "link %s owner %d is not a "
                                              "box of this diagram" % (role, box_id))
                    if port_id not in ports[box_id]:
                        raise self.link_error(diagram, index, "link %s port %d is not a port "
                                              "of box %d" % (role, port_id, box_id))

    def link_error(self, diagram: Diagram, index: int, message: str) -> XarError:
        """The error about the link ``index`` of ``diagram``, located at its element (when
        this reader read it)."""
        source, lines = self.link_lines.get(id(diagram), (self.source, []))
        return XarError(message, source, lines[index] if index < len(lines) else None, "Link")

    def actuator_list(self, element) -> ActuatorList:
        extras = self.extras(element)
        actuators = ActuatorList(model=element.get("model"), extras=extras)
        actuators.curves = self.gather(element, "ActuatorCurve", self.curve, extras)
        return actuators

    def curve(self, element) -> ActuatorCurve:
        curve = _read_plain(element, _CURVE_ATTRIBUTES, _plain_curve)
        if curve is None:
            extras = self.extras(element)
            opt = self.optional_int
            curve = ActuatorCurve(actuator=self.required(element, "actuator"),
                                  name=element.get("name", "value"),
                                  mute=opt(element, "mute", extras),
                                  unit=opt(element, "unit", extras),
                                  recordable=opt(element, "recordable", extras),
                                  always_visible=opt(element, "alwaysVisible", extras),
                                  extras=extras)
        append = curve.keys.append
        for child in element:
            if child.tag != "Key":
                own_extras(curve).elements.append(serialize(child))
            elif child.keys() == _KEY_LAYOUT and not len(child):  # the usual <Key frame value/>
                frame, value = child.values()
                try:
                    frame, value = int(frame), float(value)
                except ValueError:
                    frame = -1  # the general path says which attribute
                append(Key(frame, value, None, None, NO_TANGENTS, NO_EXTRAS) if frame >= 0
                       else self.key(child))
            else:
                append(self.key(child))
        return curve

    def key(self, element) -> Key:
        extras = self.extras(element)
        get = element.get
        frame, smooth, symmetrical = get("frame"), get("smooth"), get("symmetrical")
        try:
            key = Key(int(frame), float(get("value")),
                      None if smooth is None else int(smooth),
                      None if symmetrical is None else int(symmetrical), extras=extras)
        except (TypeError, ValueError):  # missing or malformed: say which, or keep verbatim
            opt = self.optional_int
            key = Key(frame=self.required_int(element, "frame"),
                      value=self.required_float(element, "value"),
                      smooth=opt(element, "smooth", extras),
                      symmetrical=opt(element, "symmetrical", extras), extras=extras)
        if key.frame < 0:
            raise self.error(element, "key at negative frame %d" % key.frame)
        if not len(element):
            return key
        key.tangents = self.gather(element, "Tangent", self.tangent, extras)
        if len(key.tangents) not in (0, 2):
            self.warnings.append("%s:%s: <Key>: %d tangents (expected 0 or 2)"
                                 % (self.source, element.sourceline, len(key.tangents)))
        return key

    def tangent(self, element) -> Tangent:
        if element.keys() == _TANGENT_LAYOUT:  # what Choregraphe writes: no check to do
            side, interp_type, abscissa, ordinate = element.values()
            try:
                return Tangent(side, interp_type, float(abscissa), float(ordinate), Extras())
            except ValueError:
                pass  # the general path says which attribute
        return Tangent(side=self.required(element, "side"),
                       interp_type=self.required(element, "interpType"),
                       abscissa=self.required_float(element, "abscissaParam"),
                       ordinate=self.required_float(element, "ordinateParam"),
                       extras=self.extras(element))


#: the port ids of what is not a box of the diagram
_NO_PORTS: FrozenSet[int] = frozenset()


def _port_ids(box: Box) -> Set[int]:
    return {port.id for ports in (box.inputs, box.outputs, box.parameters) for port in ports}


#: the options of the parsers of :func:`safe_xml_parser` and :func:`safe_pull_parser`
_SAFE_PARSING = dict(resolve_entities=False, no_network=True, load_dtd=False,
                     dtd_validation=False, huge_tree=False, strip_cdata=False,
                     remove_comments=False, remove_blank_text=True)


def safe_xml_parser() -> etree.XMLParser:
    """An lxml parser that expands no entity, loads no DTD, touches no network, keeps CDATA
    (whitespace-only text between elements, the indentation, is dropped)."""
    return etree.XMLParser(**_SAFE_PARSING)


def safe_pull_parser(tags: Tuple[str, ...]) -> etree.XMLPullParser:
    """A parser as :func:`safe_xml_parser`, fed in pieces, whose ``read_events()`` gives
    each element named one of ``tags`` once it is whole (``("end", element)``)."""
    return etree.XMLPullParser(events=("end",), tag=tags, **_SAFE_PARSING)


def _refuse_entities(tree, source: str) -> None:
    dtd = tree.docinfo.internalDTD
    if dtd is not None and (list(dtd.iterentities()) or tree.docinfo.system_url):
        raise XarError("documents declaring entities or external DTDs are refused", source, 1,
                       "!DOCTYPE")


def _drop_root_namespace(data: bytes) -> Tuple[bytes, str]:
    """``data`` without the default namespace declared on its root element, and that namespace.

    Element names are then compared literally, as Choregraphe's own readers do, and the
    serialized ``pluginContent`` carries no namespace declaration.
    """
    start = _FIRST_TAG.search(data)
    if start is None:
        return data, ""
    declaration = _DEFAULT_NAMESPACE.search(data, start.start(), start.end())
    if declaration is None:
        return data, ""
    namespace = declaration.group(2)[1:-1].decode("utf-8", "replace")
    return data[:declaration.start()] + declaration.group(1) + data[declaration.end():], namespace


def _strip_namespaces(root) -> None:
    """Remove namespaces left on elements (documents that were not plain UTF-8 bytes)."""
    for element in root.iter():
        tag = element.tag
        if isinstance(tag, str) and tag[0] == "{":
            element.tag = tag.split("}", 1)[1]
    etree.cleanup_namespaces(root)


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector (restored as it was) while building a model.

    A model is a tree of many small objects: collections while it grows would only cost.
    When the collector is enabled again, what was allocated meanwhile goes straight to the
    oldest generation (``gc.freeze`` then ``gc.unfreeze``, unless something else froze
    objects) instead of being scanned at once by the next young collection.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


#: reads a file next to the ``.xar`` by its relative path (None when it is not there)
SiblingReader = Callable[[str], Optional[bytes]]


#: roots whose documents hold diagrams of boxes
_BOX_ROOTS = (b"ChoregrapheProject", b"ChoregrapheBox")
#: documents from this size on are read as they are parsed (:func:`parse_document`): the
#: tree of a whole document takes about four times its size, which for the largest
#: behaviors would dwarf the model; smaller ones are parsed whole, which is faster
STREAMED_DOCUMENT_BYTES = 8 * 1024 * 1024


def parse_document(data: bytes, source: str,
                   diagram_box: Optional[Callable[[object], None]] = None) -> Tuple[object, str]:
    """The root element of an XML document of a behavior and the namespace its root declared.

    Entities are refused and never expanded; namespaces are dropped from element names.
    ``diagram_box``, when given, is called for a document of
    :data:`STREAMED_DOCUMENT_BYTES` or more with each ``<Box>`` of a ``<Diagram>`` as soon
    as the parser has its whole element, inner boxes first (see
    :meth:`ElementReader.read_early`): a large document is then never whole in memory.
    """
    if len(data) > MAX_DOCUMENT_BYTES:
        raise XarError("document larger than %d MB" % (MAX_DOCUMENT_BYTES >> 20), source)
    if not data or data.isspace():
        raise XarError("not an XML document: the file is empty", source, 1)
    root_tag = _FIRST_TAG.search(data)
    prolog = (data[:root_tag.start()] if root_tag else data).upper()
    if b"<!ENTITY" in prolog:
        raise XarError("documents declaring entities are refused", source,
                       prolog.count(b"\n", 0, prolog.find(b"<!ENTITY")) + 1, "!DOCTYPE")
    data, namespace = _drop_root_namespace(data)
    root_name = root_tag.group()[1:].split(None, 1)[0].rstrip(b"/>") if root_tag else b""
    try:
        if (diagram_box is not None and len(data) >= STREAMED_DOCUMENT_BYTES
                and root_name in _BOX_ROOTS):
            tree = _parse_streaming(data, diagram_box)
        else:
            tree = etree.ElementTree(etree.fromstring(data, safe_xml_parser()))
    except etree.XMLSyntaxError as error:
        line = error.position[0] if error.position else None
        raise XarError("not well-formed XML: %s" % error.msg, source, line) from None
    _refuse_entities(tree, source)
    root = tree.getroot()
    if isinstance(root.tag, str) and root.tag[0] == "{":
        namespace = namespace or etree.QName(root).namespace
        _strip_namespaces(root)
    return root, namespace


def _parse_streaming(data: bytes, diagram_box: Callable[[object], None]):
    """The tree of ``data``, each ``<Box>`` of a ``<Diagram>`` handed to ``diagram_box`` at
    its end tag (same parser settings as :func:`safe_xml_parser`)."""
    # every end event, filtered here: lxml's own tag filter leaves a reference cycle
    # holding the document until the next garbage collection
    events = etree.iterparse(io.BytesIO(data), events=("end",),
                             resolve_entities=False, no_network=True, load_dtd=False,
                             dtd_validation=False, huge_tree=False, strip_cdata=False,
                             remove_comments=False, remove_blank_text=True)
    for _, element in events:
        if element.tag == "Box":
            parent = element.getparent()
            if parent is not None and parent.tag == "Diagram":
                diagram_box(element)
    return events.root.getroottree()
