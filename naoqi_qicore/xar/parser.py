"""Reading a ``.xar`` document into the :mod:`naoqi_qicore.xar.model`.

The XML is parsed by lxml with entity expansion, DTD loading and network access
disabled; a document declaring entities is refused.  Accepted roots:

* ``<ChoregrapheProject xar_version="3">`` (with or without Choregraphe's namespace);
* ``<ChoregrapheProject format_version="4">`` whose ``<BoxInstance>`` box files are
  absent (the instance itself is converted, with a warning);
* ``<ChoregrapheProject xar_version="3">`` holding the root box's content without a
  ``<Box>`` (old libqicore tests): a root box with the usual ports is made for it;
* ``<Animation>`` / ``<Timeline>`` (a bare motion timeline) and ``<ChoregrapheBox>``
  (a single box), each wrapped into a behavior with a root box.

Every error is an :class:`~naoqi_qicore.xar.errors.XarError` naming file, line and element.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional, Union

from naoqi_qicore.xar.box_files import read_root_instance
from naoqi_qicore.xar.elements import (MAX_DOCUMENT_BYTES, ElementReader, SiblingReader,
                                       collector_paused, parse_document, serialize)
from naoqi_qicore.xar.errors import XarError
from naoqi_qicore.xar.model import (Behavior, BehaviorKeyframe, BehaviorLayer, Box, Diagram,
                                    Extras, InputNature, IOType, Link, OutputNature, Port,
                                    Timeline)

#: the only xar_version this reader understands
SUPPORTED_XAR_VERSIONS = ("3",)
#: roots wrapped into a behavior with a synthetic root box
WRAPPED_ROOTS = ("Animation", "Timeline", "ChoregrapheBox")
#: children of a <Box> that make a project without <Box> a bare root box
_BOX_CONTENT = ("Timeline", "Resource", "Input", "Output", "Parameter", "script")
_WRAPPED_LAYER = "behavior_layer1"
_WRAPPED_KEYFRAME = "keyframe1"


class XarReader(ElementReader):
    """Reads a whole ``.xar`` document: a project (``format_version="4"`` ones from their
    box files) or a wrapped ``<Animation>``/``<Timeline>``/``<ChoregrapheBox>``."""

    def project(self, element, namespace: str) -> Behavior:
        behavior = Behavior(root=Box("root", -1), source=self.source,
                            xar_version=element.get("xar_version"),
                            format_version=element.get("format_version"),
                            name=element.get("name"), namespace=namespace,
                            extras=self.extras(element, "ChoregrapheProject"))
        if behavior.format_version is not None:
            return self.project_v4(element, behavior)
        self.check_version(element, behavior.xar_version)
        roots = [child for child in element if child.tag == "Box"]
        if not roots and any(child.tag in _BOX_CONTENT for child in element):
            # the root box's content directly under the project (old libqicore tests)
            behavior.root = Box("root", -1)
            behavior.bare_root = True
            self.box_content(behavior.root, element)
            if not behavior.root.inputs and not behavior.root.outputs:
                usual = wrapper_root()
                behavior.root.inputs, behavior.root.outputs = usual.inputs, usual.outputs
            return behavior
        if len(roots) != 1:
            raise self.error(element, "expected exactly one root <Box>, found %d" % len(roots))
        behavior.extras.elements.extend(serialize(c) for c in element if c.tag != "Box")
        behavior.root = self.box(roots[0])
        return behavior

    def check_version(self, element, version: Optional[str]) -> None:
        if version is None:
            raise self.error(element, "missing required attribute 'xar_version'")
        if version not in SUPPORTED_XAR_VERSIONS:
            raise self.error(element, "unsupported xar_version %r (supported: %s)"
                             % (version, ", ".join(SUPPORTED_XAR_VERSIONS)))

    def project_v4(self, element, behavior: Behavior) -> Behavior:
        """A ``format_version="4"`` project: read from its box files when they are next to
        it (:mod:`~naoqi_qicore.xar.box_files`), else its root instance alone."""
        if behavior.format_version != "4":
            raise self.error(element, "unsupported format_version %r (supported: 4)"
                             % behavior.format_version)
        instances = self.gather(element, "BoxInstance", lambda instance: instance,
                                behavior.extras)
        if len(instances) != 1:
            raise self.error(element, "expected exactly one <BoxInstance>, found %d"
                             % len(instances))
        instance = instances[0]
        loaded = read_root_instance(self, instance)
        if loaded is not None:
            behavior.root, behavior.format_version, behavior.xar_version = loaded, None, "3"
            return behavior
        root = Box(name=self.required(instance, "name"), id=self.required_int(instance, "id"),
                   x=instance.get("x"), y=instance.get("y"), extras=self.extras(instance))
        root.extras.elements.extend(serialize(child) for child in instance)
        path = instance.get("path")
        self.warnings.append("%s: format_version 4 project: its box file %s is not there, "
                             "only the root instance is converted" % (self.source, path))
        behavior.root = root
        return behavior

    def wrapped(self, element, namespace: str) -> Behavior:
        """A bare ``<Animation>``/``<Timeline>`` or a ``<ChoregrapheBox>`` under a root box."""
        tag = element.tag
        behavior = Behavior(root=wrapper_root(), source=self.source, namespace=namespace,
                            root_tag=tag, extras=self.extras(element, tag)
                            if tag == "ChoregrapheBox" else Extras())
        if tag != "ChoregrapheBox":
            behavior.root.timeline = self.timeline(element, tag)
            return behavior
        behavior.xar_version = element.get("xar_version")
        if behavior.xar_version is not None:
            self.check_version(element, behavior.xar_version)
        boxes = [child for child in element if child.tag == "Box"]
        if len(boxes) != 1:
            raise self.error(element, "expected exactly one <Box>, found %d" % len(boxes))
        behavior.extras.elements.extend(serialize(c) for c in element if c.tag != "Box")
        box = self.box(boxes[0])
        if box.id == 0:
            raise self.error(boxes[0], "box id 0 is reserved for the owner of a diagram")
        diagram = Diagram(boxes=[box])
        start = next((p.id for p in box.inputs if p.nature == InputNature.ON_START), None)
        stopped = next((p.id for p in box.outputs if p.nature == OutputNature.STOPPED), None)
        if start is not None:
            diagram.links.append(Link(box.id, start, 0, 2))
        if stopped is not None:
            diagram.links.append(Link(0, 4, box.id, stopped))
        behavior.root.timeline = Timeline(enable=0, layers=[BehaviorLayer(
            _WRAPPED_LAYER, [BehaviorKeyframe(_WRAPPED_KEYFRAME, 1, diagram)])])
        return behavior


def wrapper_root() -> Box:
    """The root box Choregraphe gives a new behavior (onLoad, onStart, onStop, onStopped)."""
    def bang(name: str, nature: int, port_id: int, inner: int = 0) -> Port:
        return Port(name, int(IOType.BANG), 1, nature, port_id, inner=inner)
    return Box(name="root", id=-1,
               inputs=[bang("onLoad", InputNature.ON_LOAD, 1, inner=1),
                       bang("onStart", InputNature.ON_START, 2),
                       bang("onStop", InputNature.ON_STOP, 3)],
               outputs=[bang("onStopped", OutputNature.STOPPED, 4)])


def parse_xar_bytes(data: bytes, source: str = "<input>",
                    sibling: Optional[SiblingReader] = None) -> Behavior:
    """Read a behavior from the bytes of a ``.xar`` document; ``source`` names it in errors.

    ``sibling`` reads the files next to it (the box files of a ``format_version="4"``
    project); without it, such a project converts its root instance only.
    """
    reader = XarReader(source, sibling)
    with collector_paused():
        root, namespace = parse_document(data, source, reader.read_early)
    if root.tag == "ChoregrapheProject":
        read = reader.project
    elif root.tag in WRAPPED_ROOTS:
        read = reader.wrapped
    else:
        raise reader.error(root, "not a Choregraphe behavior: root element must be "
                           "ChoregrapheProject, %s" % ", ".join(WRAPPED_ROOTS))
    with collector_paused():
        behavior = read(root, namespace)
    behavior.warnings.extend(reader.warnings)
    return behavior


def _read_file(path: Path, name: str) -> bytes:
    try:
        if path.stat().st_size > MAX_DOCUMENT_BYTES:
            raise XarError("document larger than %d MB" % (MAX_DOCUMENT_BYTES >> 20), name)
        return path.read_bytes()
    except OSError as error:
        raise XarError("cannot read: %s" % (error.strerror or error), name) from None


def folder_reader(folder: Path) -> SiblingReader:
    """Reads files by relative path inside ``folder`` (never outside it, symbolic links
    included); None when there is no such file."""
    base = folder.resolve()

    def read(relative: str) -> Optional[bytes]:
        path = (base / relative).resolve()
        if not path.is_relative_to(base):
            raise XarError("refusing the path %r: outside the behavior's folder" % relative,
                           str(folder / relative))
        return _read_file(path, str(folder / relative)) if path.is_file() else None
    return read


def parse_xar_file(path: Union[str, Path], source: Optional[str] = None) -> Behavior:
    """Read the ``.xar`` file at ``path`` (``source`` overrides the name used in errors)."""
    path = Path(path)
    name = source or str(path)
    return parse_xar_bytes(_read_file(path, name), name, folder_reader(path.parent))
