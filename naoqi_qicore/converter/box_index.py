"""Reading a converted folder's box index (``box_index.xml``, format ``naoqi_qicore/2``).

The converter writes every distinct element of the folder's box files (the attributes of
a box file's root ``<Box>``, each of its children: script, port, parameter, timeline...)
and every distinct motion file element once, as a part, and one entry per box naming the
parts its files are made of.  The loader reads a box through its entry only when the
box's file is, byte for byte, what the entry's parts make (:func:`~naoqi_qicore.converter.
writer.box_file_head` and ``box_file_tail``); an edited box file is read as it is.  So the box files stay what
the behavior is, and an index that no longer matches them is never used for them.

Each part is parsed once, by the loader's own element reader, and every box gets its
own copy of what the part holds (:func:`copier`): a model read through the index equals
the one the box files give, and shares no mutable object between boxes.  A box whose
diagrams name boxes holds a timeline no other box has: the converter gives it no parts
(its entry names its motion only, if any), and it is read from its box file, parsed once
there rather than in the index and again for the box.  An index written before that holds
such timelines: each is read for its box from its part.
"""
from __future__ import annotations

import functools
from typing import Callable, Dict, Iterable, List, Optional, Tuple

from lxml import etree

from naoqi_qicore.converter.writer import (BOX_INDEX, FORMAT, box_file_head, box_file_tail,
                                           motion_file_text)
from naoqi_qicore.xar.elements import ElementReader, safe_pull_parser, safe_xml_parser
from naoqi_qicore.xar.errors import XarError
from naoqi_qicore.xar.model import (NO_EXTRAS, NO_TANGENTS, ActuatorList, Box, Extras,
                                    Record, own_extras)

#: the fields of a box holding what its child elements give, in a box file's order
_LIST_FIELDS = ("bitmaps", "inputs", "outputs", "parameters", "resources", "dialog_files")


def copier(value: object) -> Callable[[], object]:
    """A function returning copies of ``value`` (a model record, list, dict or plain value)
    equal to it and sharing nothing mutable with it or with each other: texts and numbers
    are shared, as are the model's immutable empty values (``NO_EXTRAS``...), which an
    empty ``Extras`` becomes (what gets extras later gives itself its own, as the readers
    do: a box and its script seldom have any).

    Records are made by their constructors, whose parameters are their fields in order,
    and which make a new empty list of None."""
    if value is NO_EXTRAS or value is NO_TANGENTS:
        return functools.partial(_same, value)
    if isinstance(value, Record):
        cls = type(value)
        fields = [getattr(value, name) for name in cls.__slots__]
        mutable = []
        for index, field in enumerate(fields):
            if field.__class__ is Extras and not field.attributes and not field.elements:
                fields[index] = NO_EXTRAS
            elif field.__class__ is list and not field:
                fields[index] = None  # the constructor makes a new one
            elif isinstance(field, (Record, list, dict)) and field is not NO_EXTRAS \
                    and field is not NO_TANGENTS:
                mutable.append((index, copier(field)))
        if not mutable:
            return functools.partial(cls, *fields)

        def copy_record() -> object:
            arguments = list(fields)
            for index, copy in mutable:
                arguments[index] = copy()
            return cls(*arguments)
        return copy_record
    if isinstance(value, list):
        items = [copier(item) for item in value]
        if all(isinstance(item, functools.partial) and item.func is _same for item in items):
            return functools.partial(list, value)
        return lambda: [copy() for copy in items]
    if isinstance(value, dict):
        return functools.partial(dict, value)  # attribute names -> texts
    return functools.partial(_same, value)


def _same(value: object) -> object:
    return value


#: what an index entry says of a box: (the numbers of its root part and of its other parts,
#: one tuple shared by the entries naming the same parts), whether it has a code file, the
#: number of its motion file's part (None: no motion file)
_Entry = Tuple[Tuple[Optional[str], Optional[str]], bool, Optional[str]]

#: what a memo holds for a key it was never asked
_UNKNOWN = object()


def holds_content(script) -> bool:
    """Whether a box file's ``<script>`` element holds the script's text (``<content>``:
    the original of a ported script); else the box's ``.py`` is the text."""
    return script.find("content") is not None


class _Part:
    """One part of the index: its text and its nodes, parsed once."""

    __slots__ = ("number", "text", "nodes", "names_boxes", "one_box")

    def __init__(self, number: str, text: str, nodes: list) -> None:
        self.number = number
        self.text = text
        #: the elements (and comments) the part holds, children of a box file's root
        self.nodes = nodes
        #: whether it holds a timeline, whose diagrams name boxes: read for each box
        self.names_boxes = any(node.tag == "Timeline" for node in nodes)
        #: whether its diagrams name boxes, which only one box holds: it serves one box
        self.one_box = any(next(node.iter("Object"), None) is not None for node in nodes
                           if node.tag == "Timeline")


class _Kind:
    """The boxes whose entries name the same parts: the end of their box files and how to
    make each one."""

    __slots__ = ("tail", "make", "fill", "for_each_box", "has_content", "one_box")

    def __init__(self, tail: bytes, make: Callable[[], Box], fill: Callable[[Box], None],
                 for_each_box: list, has_content: bool, one_box: bool) -> None:
        #: their box files after the object's own attributes (:func:`box_file_tail`)
        self.tail = tail
        #: makes such a box with its attributes, without children
        self.make = make
        #: gives a box copies of what the parts read once hold
        self.fill = fill
        #: the nodes read for each box (timelines)
        self.for_each_box = for_each_box
        #: whether the script element holds its ``<content>`` (else the ``.py`` is its text)
        self.has_content = has_content
        #: whether one box only is made so (its diagrams name boxes): not kept once used
        self.one_box = one_box


class BoxIndex:
    """The box index of one converted folder; :meth:`read` it, then ask it for boxes."""

    def __init__(self, path: str, parts: List[str], entries: Dict[str, "_Entry"]) -> None:
        self.path = path
        #: the text of each part, by number
        self.parts = parts
        #: object name -> what its ``<Box>`` entry says (the parsed index is not kept)
        self.entries = entries
        self._parser = safe_xml_parser()
        self._parts: Dict[str, _Part] = {}
        self._kinds: Dict[Tuple[Optional[str], Optional[str]], Optional[_Kind]] = {}
        #: root part -> what makes a box with those attributes
        self._makers: Dict[str, Callable[[], Box]] = {}
        self._fillers: Dict[Tuple[str, ...], Tuple[Callable[[Box], None], bool]] = {}
        self._motions: Dict[str, Callable[[], object]] = {}

    @classmethod
    def read(cls, folder: str, pieces: Iterable[bytes]) -> "BoxIndex":
        """The index read from ``folder``'s :data:`BOX_INDEX`, whose bytes are ``pieces``
        (fed to the parser one by one); XarError when it is not one."""
        path = folder + BOX_INDEX
        # each part and entry is read once whole, then dropped from the tree: the tree of
        # a large behavior's index is tens of megabytes, which would only be made to be freed
        parser = safe_pull_parser(("Part", "Box"))
        parts: List[str] = []
        entries: Dict[str, _Entry] = {}
        kinds: Dict[Tuple[Optional[str], Optional[str]], Tuple[Optional[str], Optional[str]]] = {}
        root = None
        try:
            for piece in pieces:
                parser.feed(piece)
                for _, element in parser.read_events():
                    parent = element.getparent()
                    if parent is None or parent.getparent() is not None:
                        continue  # the root, or not a child of the root
                    if root is None:
                        root = cls._checked_root(parent, path)
                    if element.tag == "Part":
                        parts.append(element.text or "")
                    else:
                        get = element.get
                        name = get("object")
                        if name is None or name in entries:
                            raise XarError("box entry without an object name or named twice",
                                           path, element.sourceline, "Box")
                        kind = get("root"), get("parts")
                        entries[name] = (kinds.setdefault(kind, kind), get("code") is not None,
                                         get("motion"))
                    parent.remove(element)
            cls._checked_root(parser.close(), path)
        except etree.XMLSyntaxError as error:
            raise XarError("not well-formed XML: %s" % error.msg, path,
                           error.position[0] if error.position else None) from None
        return cls(path, parts, entries)

    @staticmethod
    def _checked_root(root, path: str):
        """``root``, the root element of the index ``path``; XarError when it is not that of
        a box index."""
        if root.tag != "BoxIndex" or root.get("format") != FORMAT:
            raise XarError("not a %s box index" % FORMAT, path, root.sourceline)
        return root

    # -- boxes ------------------------------------------------------------------------------
    def box(self, reader: ElementReader, name: str, data: bytes
            ) -> Optional[Tuple[Box, bool, bool]]:
        """The box ``name`` whose box file holds ``data``, read with ``reader``, whether it
        has a code file and whether its script element holds the script's text; None when
        the index has no entry for ``name`` or its file is not what the entry makes (it
        was edited)."""
        entry = self.entries.get(name)
        if entry is None:
            return None
        key, has_code, _ = entry
        kind = self._kinds.get(key, _UNKNOWN)
        if kind is _UNKNOWN:
            kind = self._kind(reader, *key)
            if kind is None or not kind.one_box:  # else its parsed parts are freed after use
                self._kinds[key] = kind
        if kind is None:
            return None
        head = box_file_head(name, has_code).encode("utf-8")
        tail = kind.tail
        if (len(data) != len(head) + len(tail) or not data.startswith(head)
                or not data.endswith(tail)):
            return None
        box = kind.make()
        kind.fill(box)
        for node in kind.for_each_box:
            reader.box_child(box, node)
        if box.timeline is not None:
            reader.check_links(box)
        return box, has_code, kind.has_content

    def motion(self, reader: ElementReader, name: str, data: bytes) -> Optional[ActuatorList]:
        """The motion of the box ``name`` whose motion file holds ``data``; None when the
        index does not know it or the file is not what the entry makes."""
        entry = self.entries.get(name)
        number = entry[2] if entry is not None else None
        part = self._part(number) if number is not None else None
        if part is None or data != motion_file_text(name, part.text).encode("utf-8"):
            return None
        make = self._motions.get(number)
        if make is None:
            make = self._motions[number] = copier(reader.timeline(part.nodes[0]).actuator_list)
        return make()

    # -- parts ------------------------------------------------------------------------------
    def _part(self, number: str) -> Optional[_Part]:
        """The part ``number`` (None when there is none)."""
        part = self._parts.get(number)
        if part is None:
            try:
                text = self.parts[int(number)]
            except (ValueError, IndexError):
                return None
            try:
                nodes = list(etree.fromstring("<Part>%s</Part>" % text, self._parser))
            except etree.XMLSyntaxError as error:
                raise XarError("part %s not well-formed: %s" % (number, error.msg),
                               self.path) from None
            part = _Part(number, text, nodes)
            if not part.one_box:  # else parsed for its one box, and freed after
                self._parts[number] = part
        return part

    def _kind(self, reader: ElementReader, root: Optional[str], numbers: Optional[str]
              ) -> Optional[_Kind]:
        """The boxes whose entry names the part ``root`` (their attributes) and the parts
        ``numbers`` (their children); None when the entry names parts the index lacks."""
        if root is None or numbers is None:
            return None
        parts = [self._part(number) for number in [root] + numbers.split()]
        if None in parts:
            return None
        text = parts[0].text
        if not (text.startswith("<Box") and text.endswith(" />")):
            return None
        children = parts[1:]
        tail = box_file_tail(text[len("<Box"):-len(" />")],
                             "".join([part.text + "\n" for part in children]))
        fill, has_content = self._filler(reader, tuple(part.number for part in children
                                                       if not part.names_boxes))
        make = self._makers.get(root)
        if make is None:
            make = self._makers[root] = copier(reader.box(parts[0].nodes[0]))
        return _Kind(tail.encode("utf-8"), make, fill,
                     [node for part in children if part.names_boxes for node in part.nodes],
                     has_content, any(part.one_box for part in children))

    def _filler(self, reader: ElementReader, numbers: Tuple[str, ...]
                ) -> Tuple[Callable[[Box], None], bool]:
        """A function giving a box copies of what the parts ``numbers`` hold (read once),
        and whether the script element they hold holds its text."""
        found = self._fillers.get(numbers)
        if found is not None:
            return found
        template = Box("", 0)
        scripts = []
        for number in numbers:
            for node in self._parts[number].nodes:
                reader.box_child(template, node)
                if node.tag == "script":
                    scripts.append(node)
        lists = [(field, copier(getattr(template, field))) for field in _LIST_FIELDS
                 if getattr(template, field)]
        script = copier(template.script) if template.script is not None else None
        plugin_content, elements = template.plugin_content, list(template.extras.elements)

        def fill(box: Box) -> None:
            for field, copy in lists:
                getattr(box, field).extend(copy())
            if script is not None:
                box.script = script()
            if plugin_content is not None:
                box.plugin_content = plugin_content
            if elements:
                own_extras(box).elements.extend(elements)
        found = self._fillers[numbers] = (fill, bool(scripts) and holds_content(scripts[-1]))
        return found
