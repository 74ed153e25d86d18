"""Writing a :class:`~naoqi_qicore.xar.model.Behavior` back to a ``.xar`` Choregraphe opens.

The text follows Choregraphe's own layout (4-space indentation, scripts in CDATA,
newlines in attributes as ``&#x0A;``).  Attributes that are ``None`` in the model are
left out, extra attributes and elements kept by the parser are written back, so
``parse(write(parse(file)))`` equals ``parse(file)``.  Behaviors read from a bare
``<Animation>``/``<Timeline>``/``<ChoregrapheBox>`` are written back under that root.

:class:`XarWriter` writes element by element; the file-per-object writer of the
converter reuses it and overrides how a box opens and how a diagram is written.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable, List, Optional, Tuple, Union

from naoqi_qicore.xar.model import (NO_EXTRAS, NO_TANGENTS, ActuatorCurve, ActuatorList,
                                    Behavior, Box, Diagram, Extras, Key, Parameter, Port,
                                    Resource, Script, Timeline)

INDENT = "    "
_XML_NAMESPACE = "http://www.w3.org/XML/1998/namespace"

_ATTRIBUTE_ESCAPES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"),
                      ("\n", "&#x0A;"), ("\r", "&#x0D;"), ("\t", "&#x09;"))
_ATTRIBUTE_SPECIAL = re.compile('[&<>"\n\r\t]')
_TEXT_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "\r": "&#x0D;"})

Attributes = Iterable[Tuple[str, object]]
AttributeTuple = Tuple[Tuple[str, object], ...]


def escape_attribute(value: str) -> str:
    """``value`` ready to stand between double quotes (newlines kept as character references)."""
    if _ATTRIBUTE_SPECIAL.search(value):
        for special, reference in _ATTRIBUTE_ESCAPES:
            value = value.replace(special, reference)
    return value


def escape_text(value: str) -> str:
    """``value`` as XML character data."""
    return value.translate(_TEXT_ESCAPES)


def cdata(value: str) -> str:
    """``value`` in CDATA sections (escaped text when it holds a carriage return)."""
    if "\r" in value:
        return escape_text(value)
    return "<![CDATA[%s]]>" % value.replace("]]>", "]]]]><![CDATA[>")


def format_number(value: float) -> str:
    """Shortest text giving back ``value`` (integral values without ``.0``)."""
    text = repr(value)
    return text[:-2] if text.endswith(".0") else text


def _extra_attributes(extras: Extras) -> List[str]:
    """The extra attributes; namespaced ones (``{uri}name``) with their own declaration."""
    parts, declared = [], {}
    for name, value in extras.attributes.items():
        if name.startswith("{"):
            uri, local = name[1:].split("}", 1)
            if uri == _XML_NAMESPACE:
                name = "xml:" + local
            else:
                if uri not in declared:
                    declared[uri] = "ns%d" % len(declared)
                    parts.append('xmlns:%s="%s"' % (declared[uri], escape_attribute(uri)))
                name = "%s:%s" % (declared[uri], local)
        parts.append('%s="%s"' % (name, escape_attribute(value)))
    return parts


def attributes(pairs: Attributes, extras: Optional[Extras] = None) -> str:
    """`` name="value"`` for each pair whose value is not None, then the extra attributes."""
    special, parts = _ATTRIBUTE_SPECIAL.search, []
    for name, value in pairs:
        if value is not None:
            if value.__class__ is str and special(value):
                value = escape_attribute(value)
            parts.append(f' {name}="{value}"')
    text = "".join(parts)
    if extras is not None and extras.attributes:
        text += "".join(" " + part for part in _extra_attributes(extras))
    return text


class XarWriter:
    """Appends the XML of model objects to :attr:`lines`, indented by nesting level."""

    def __init__(self) -> None:
        self.lines: List[str] = []

    def text(self) -> str:
        """Everything written so far, one line each."""
        return "\n".join(self.lines) + "\n"

    # -- generic ----------------------------------------------------------------------------
    def element(self, level: int, tag: str, pairs: Attributes, extras: Optional[Extras] = None,
                children=None) -> None:
        """``<tag .../>``, or ``<tag ...>`` + ``children(level + 1)`` + extras + ``</tag>``."""
        head = INDENT * level + "<" + tag + attributes(pairs, extras)
        if children is None and (extras is None or not extras.elements):
            self.lines.append(head + " />")
            return
        self.lines.append(head + ">")
        if children is not None:
            children(level + 1)
        self.raw(level + 1, extras.elements if extras is not None else [])
        self.lines.append(INDENT * level + "</" + tag + ">")

    def start(self, level: int, tag: str, pairs: Attributes,
              extras: Optional[Extras] = None) -> None:
        """``<tag ...>`` of an element whose children follow (closed by :meth:`end`)."""
        self.lines.append(INDENT * level + "<" + tag + attributes(pairs, extras) + ">")

    def end(self, level: int, tag: str, extras: Optional[Extras] = None) -> None:
        """The extra elements of an element opened by :meth:`start`, then ``</tag>``."""
        if extras is not None and extras.elements:
            self.raw(level + 1, extras.elements)
        self.lines.append(INDENT * level + "</" + tag + ">")

    def raw(self, level: int, fragments: Iterable[str]) -> None:
        """Serialized XML kept verbatim (extras, pluginContent, watches)."""
        for fragment in fragments:
            self.lines.append(INDENT * level + fragment)

    # -- boxes ------------------------------------------------------------------------------
    def box_attributes(self, box: Box) -> AttributeTuple:
        """The attributes of ``<Box>`` (overridden by the converter's writer)."""
        return (("name", box.name), ("robot", box.robot), ("id", box.id),
                ("localization", box.localization), ("tooltip", box.tooltip),
                ("bitmap_expanded", box.bitmap_expanded), ("plugin", box.plugin),
                ("x", box.x), ("y", box.y))

    def box(self, level: int, box: Box, tag: str = "Box") -> None:
        """A whole box with its diagrams and motion."""
        self.start(level, tag, self.box_attributes(box), box.extras)
        self.box_content(level + 1, box)
        self.end(level, tag, box.extras)

    def box_content(self, level: int, box: Box) -> None:
        """The children of ``<Box>`` in Choregraphe's order."""
        pad = INDENT * level
        for bitmap in box.bitmaps:
            self.lines.append("%s<bitmap>%s</bitmap>" % (pad, escape_text(bitmap)))
        if box.script is not None:
            self.script(level, box, box.script)
        if box.plugin_content is not None:
            self.raw(level, [box.plugin_content])
        if box.inputs:
            self.ports(level, "Input", box.inputs)
        if box.outputs:
            self.ports(level, "Output", box.outputs)
        for parameter in box.parameters:
            self.parameter(level, parameter)
        if box.timeline is not None:
            self.timeline(level, box.timeline)
        for resource in box.resources:
            self.resource(level, resource)
        for dialog in box.dialog_files:
            self.lines.append("%s<dialogFile>%s</dialogFile>" % (pad, escape_text(dialog)))

    def script_content(self, box: Box, script: Script) -> Optional[str]:
        """The text of ``<content>`` (None: no ``<content>``; overridden by the converter)."""
        return script.content

    def script(self, level: int, box: Box, script: Script) -> None:
        content = self.script_content(box, script)
        extras = script.extras
        if script.language.__class__ is int and not extras.attributes and not extras.elements:
            pad = INDENT * level  # the usual layout, written directly
            if content is None:
                self.lines.append('%s<script language="%d" />' % (pad, script.language))
            else:
                self.lines += ('%s<script language="%d">' % (pad, script.language),
                               pad + INDENT + "<content>", pad + INDENT * 2 + cdata(content),
                               "</content>", pad + "</script>")
            return

        def children(inner: int) -> None:
            if content is not None:
                self.lines.append(INDENT * inner + "<content>")
                self.lines.append(INDENT * (inner + 1) + cdata(content))
                self.lines.append("</content>")
        self.element(level, "script", (("language", script.language),), script.extras,
                     children if content is not None else None)

    def ports(self, level: int, tag: str, ports: List[Port]) -> None:
        """Inputs or outputs; those of the usual layout written directly."""
        usual = INDENT * level + "<" + tag + (' name="%s" type="%d" type_size="%d" nature="%d" '
                                              'inner="%d" tooltip="%s" id="%d" />')
        append, special = self.lines.append, _ATTRIBUTE_SPECIAL.search
        for port in ports:
            extras, name, tooltip = port.extras, port.name, port.tooltip
            if (port.stm_value_name is None and port.inner is not None and tooltip is not None
                    and not extras.attributes and not extras.elements):
                if special(name + tooltip):  # rare: one search for both texts
                    name, tooltip = escape_attribute(name), escape_attribute(tooltip)
                append(usual % (name, port.type, port.type_size, port.nature, port.inner,
                                tooltip, port.id))
            else:
                self.port(level, tag, port)

    def port(self, level: int, tag: str, port: Port) -> None:
        """One input or output, whatever its attributes."""
        self.element(level, tag, (("name", port.name), ("type", port.type),
                                  ("type_size", port.type_size), ("nature", port.nature),
                                  ("stm_value_name", port.stm_value_name), ("inner", port.inner),
                                  ("tooltip", port.tooltip), ("id", port.id)), port.extras)

    def parameter(self, level: int, parameter: Parameter) -> None:
        pairs = (("name", parameter.name), ("inherits_from_parent", parameter.inherits_from_parent),
                 ("content_type", parameter.content_type), ("value", parameter.value),
                 ("default_value", parameter.default_value), ("min", parameter.min),
                 ("max", parameter.max), ("tooltip", parameter.tooltip), ("id", parameter.id),
                 ("custom_choice", parameter.custom_choice), ("password", parameter.password))

        extras = parameter.extras
        if not parameter.choices and not extras.elements:
            self.lines.append(INDENT * level + "<Parameter" + attributes(pairs, extras) + " />")
            return

        def choices(inner: int) -> None:
            pad = INDENT * inner
            self.lines.extend(['%s<Choice value="%s" />' % (pad, escape_attribute(choice))
                               for choice in parameter.choices])
        self.element(level, "Parameter", pairs, extras, choices if parameter.choices else None)

    def resource(self, level: int, resource: Resource) -> None:
        self.element(level, "Resource", (("name", resource.name), ("type", resource.type),
                                         ("timeout", resource.timeout)), resource.extras)

    # -- timelines --------------------------------------------------------------------------
    @staticmethod
    def timeline_attributes(timeline: Timeline) -> Attributes:
        return (("enable", timeline.enable), ("fps", timeline.fps),
                ("resources_acquisition", timeline.resources_acquisition),
                ("size", timeline.size), ("start_frame", timeline.start_frame),
                ("end_frame", timeline.end_frame), ("scale", timeline.scale))

    def timeline(self, level: int, timeline: Timeline, tag: str = "Timeline") -> None:
        self.start(level, tag, self.timeline_attributes(timeline), timeline.extras)
        self.timeline_content(level + 1, timeline)
        self.end(level, tag, timeline.extras)

    def timeline_content(self, level: int, timeline: Timeline) -> None:
        if timeline.watches is not None:
            self.raw(level, [timeline.watches])
        for layer in timeline.layers:
            self.start(level, "BehaviorLayer", (("name", layer.name), ("mute", layer.mute)),
                       layer.extras)
            for keyframe in layer.keyframes:
                self.start(level + 1, "BehaviorKeyframe",
                           (("name", keyframe.name), ("index", keyframe.index),
                            ("bitmap", keyframe.bitmap)), keyframe.extras)
                self.diagram(level + 2, keyframe.diagram)
                self.end(level + 1, "BehaviorKeyframe", keyframe.extras)
            self.end(level, "BehaviorLayer", layer.extras)
        if timeline.actuator_list is not None:
            self.actuator_list(level, timeline.actuator_list)

    def diagram(self, level: int, diagram: Diagram) -> None:
        """A diagram with its boxes (overridden by the converter: boxes by name)."""
        self.start(level, "Diagram", (("scale", diagram.scale),), diagram.extras)
        for box in diagram.boxes:
            self.box(level + 1, box)
        self.links(level + 1, diagram)
        self.end(level, "Diagram", diagram.extras)

    def links(self, level: int, diagram: Diagram) -> None:
        plain = INDENT * level + ('<Link inputowner="%d" indexofinput="%d" outputowner="%d" '
                                  'indexofoutput="%d" />')
        for link in diagram.links:
            if not link.extras.attributes and not link.extras.elements:
                self.lines.append(plain % (link.inputowner, link.indexofinput, link.outputowner,
                                           link.indexofoutput))
                continue
            self.element(level, "Link", (("inputowner", link.inputowner),
                                         ("indexofinput", link.indexofinput),
                                         ("outputowner", link.outputowner),
                                         ("indexofoutput", link.indexofoutput)), link.extras)

    def actuator_list(self, level: int, actuators: ActuatorList) -> None:
        if actuators.implicit:  # curves directly under the timeline, as read
            for curve in actuators.curves:
                self.curve(level, curve)
            return
        self.element(level, "ActuatorList", (("model", actuators.model),), actuators.extras,
                     lambda inner: [self.curve(inner, curve) for curve in actuators.curves])

    def curve(self, level: int, curve: ActuatorCurve) -> None:
        extras = curve.extras
        if (extras is NO_EXTRAS and curve.name == "value" and curve.recordable is not None
                and curve.mute is not None and curve.unit is not None
                and curve.always_visible is None
                and not _ATTRIBUTE_SPECIAL.search(curve.actuator)):  # what Choregraphe writes
            self.lines.append('%s<ActuatorCurve name="value" actuator="%s" recordable="%d" '
                              'mute="%d" unit="%d">' % (INDENT * level, curve.actuator,
                                                        curve.recordable, curve.mute, curve.unit))
            self.keys(level + 1, curve.keys)
            self.lines.append(INDENT * level + "</ActuatorCurve>")
            return
        pairs = (("name", curve.name), ("actuator", curve.actuator),
                 ("recordable", curve.recordable), ("mute", curve.mute), ("unit", curve.unit),
                 ("alwaysVisible", curve.always_visible))
        self.start(level, "ActuatorCurve", pairs, extras)
        self.keys(level + 1, curve.keys)
        self.end(level, "ActuatorCurve", extras)

    def keys(self, level: int, keys: List[Key]) -> None:
        """The keys of a curve; the usual ``<Key frame value />`` written directly."""
        head = INDENT * level + '<Key frame="%d" value="%s" />'
        if all(key.extras is NO_EXTRAS and key.tangents is NO_TANGENTS and key.smooth is None
               and key.symmetrical is None for key in keys):  # as the reader makes them
            self.lines += [head % (key.frame, format_number(key.value)) for key in keys]
            return
        append = self.lines.append
        for key in keys:
            if (key.smooth is None and key.symmetrical is None and not key.tangents
                    and not key.extras.attributes and not key.extras.elements):
                append(head % (key.frame, format_number(key.value)))
            else:
                self.key(level, key)

    def key(self, level: int, key: Key) -> None:
        pad = INDENT * level
        head = '%s<Key frame="%d" value="%s"' % (pad, key.frame, format_number(key.value))
        if key.smooth is not None:
            head += ' smooth="%d"' % key.smooth
        if key.symmetrical is not None:
            head += ' symmetrical="%d"' % key.symmetrical
        head += attributes((), key.extras)
        if not key.tangents and not key.extras.elements:
            self.lines.append(head + " />")
            return
        self.lines.append(head + ">")
        for tangent in key.tangents:
            self.element(level + 1, "Tangent", (
                ("side", tangent.side), ("interpType", tangent.interp_type),
                ("abscissaParam", format_number(tangent.abscissa)),
                ("ordinateParam", format_number(tangent.ordinate))), tangent.extras)
        self.raw(level + 1, key.extras.elements)
        self.lines.append(pad + "</Key>")

    # -- whole documents --------------------------------------------------------------------
    def behavior(self, behavior: Behavior) -> None:
        """The document of ``behavior`` under the root element it was read from."""
        self.lines.append('<?xml version="1.0" encoding="UTF-8" ?>')
        namespace = (("xmlns", behavior.namespace),) if behavior.namespace else ()
        root = behavior.root
        if behavior.root_tag in ("Animation", "Timeline"):
            self.timeline(0, root.timeline or Timeline(), behavior.root_tag)
        elif behavior.root_tag == "ChoregrapheBox":
            inner = next(root.children(), None)
            self.element(0, "ChoregrapheBox", namespace + (("xar_version", behavior.xar_version),),
                         behavior.extras,
                         (lambda level: self.box(level, inner)) if inner is not None else None)
        elif behavior.format_version is not None:
            pairs = (("name", behavior.name), ("format_version", behavior.format_version))
            self.element(0, "ChoregrapheProject", namespace + pairs, behavior.extras,
                         lambda level: self.element(level, "BoxInstance", (
                             ("name", root.name), ("id", root.id), ("x", root.x), ("y", root.y)),
                             root.extras, None))
        else:
            pairs = namespace + (("name", behavior.name),
                                 ("xar_version", behavior.xar_version or "3"))
            content = ((lambda level: self.box_content(level, root)) if behavior.bare_root
                       else (lambda level: self.box(level, root)))
            self.element(0, "ChoregrapheProject", pairs, behavior.extras, content)


def behavior_to_xar(behavior: Behavior) -> str:
    """The ``.xar`` text of ``behavior``."""
    writer = XarWriter()
    writer.behavior(behavior)
    return writer.text()


def write_xar(behavior: Behavior, path: Union[str, Path]) -> None:
    """Write ``behavior`` to the ``.xar`` file ``path``."""
    Path(path).write_text(behavior_to_xar(behavior), encoding="utf-8")
