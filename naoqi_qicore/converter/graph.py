"""Diagrams of a behavior that read like Choregraphe's, laid out by Graphviz's ``dot``.

One page per diagram: ``"root"`` for the root box's content, then one page per box that
has its own flow diagram or timeline, named by the box's object name (``l1_Say``, see
:func:`~naoqi_qicore.converter.naming.assign_names`), in the order of :meth:`Box.walk`.
Page names are safe file stems; a box owning a page names it, and in SVG links to
``<page>.svg`` (the pages saved side by side).

On a page (``rankdir=LR``) each box is a table: its name, its parameters in small type,
its input ports on the left and output ports on the right (the inner ports Choregraphe
does not show outside a box, such as ``onLoad``, in faint italics).  Links go from
an output port to an input port.  The owner's own ports, inner ones included, sit on the
page's borders: inputs on the left, outputs on the right.  A flow diagram (timeline
``enable=0`` with one keyframe) is drawn as it is; any other timeline as its states in
order (:func:`compute_states`), each a frame labelled with its keyframe names and frames
(``Wave [30,70]``) around the boxes of the keyframes starting there (a dashed frame per
keyframe when several start together).  A Comment box is a note showing its text.

API:

* :func:`render_pages` ``(behavior, fmt="svg", ran=None) -> Dict[str, bytes]``: every
  page, ``fmt`` one of :data:`PAGE_FORMATS` (``"dot"`` is the Graphviz source and needs no
  Graphviz); the boxes named in ``ran`` (object names) are drawn filled.
* :func:`page_sources` ``(behavior, ran=None) -> Dict[str, str]``: the DOT source of each page.
* :class:`PageWriter` ``(behavior)`` and :func:`render_page` ``(writer, page, fmt="svg")``:
  one page drawn when asked (the live view draws the page in view only).
* :func:`graph_files` ``(behavior, stem, suffix, ran=None) -> Dict[str, bytes]``: every page
  as a file to save side by side (``<stem>.svg``, ``<stem>_<page>.svg``...), for
  ``xar_convert --graph``.

Stable SVG ids, for a live view: a box is ``<g id="box-<object name>" class="node box">``
(``"node box ran"`` when in ``ran``, ``"node box comment"`` for a Comment box), a port
cell ``<g id="port-<object name>-<port id>" class="port">`` (on the owner's page the
border port of the same id), a parameter cell
``id="param-<object name>-<parameter id>" class="param"``, a state
``<g id="state-<owner object name>-<state index>" class="cluster state">`` (a keyframe frame
``id="keyframe-<owner object name>-<layer index>-<keyframe index>"``) and every link an
edge of class ``link``.  All text from the behavior is escaped; runs of white space
(new lines included) become one space.

Rendering runs ``dot`` (Graphviz) once per page; :class:`GraphvizError` (an ``OSError``)
says when it is missing or fails.
"""
from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import textwrap
from concurrent.futures import ThreadPoolExecutor
from typing import AbstractSet, Callable, Dict, List, Optional, Tuple, Union

from lxml import etree

from naoqi_qicore.converter.naming import assign_names
from naoqi_qicore.converter.states import StateSpec
from naoqi_qicore.xar.elements import safe_xml_parser
from naoqi_qicore.xar.model import Behavior, Box, Diagram, Link, Parameter, Port

#: what a link end may be: an input, an output or a parameter of a box
Connector = Union[Port, Parameter]

#: graph file suffixes :func:`graph_files` writes
GRAPH_FORMATS = (".svg", ".png", ".dot")
#: the stem of the graph files ``xar_convert --graph`` writes inside a converted folder
FOLDER_GRAPH_STEM = "graph"
#: output formats of :func:`render_pages`
PAGE_FORMATS = ("svg", "png", "dot")
#: name of the page of the root box's content
ROOT_PAGE = "root"
#: longest time ``dot`` may take to lay out one page, in seconds
DOT_TIMEOUT_S = 120.0
#: what to do when ``dot`` cannot be found
DOT_MISSING = "Graphviz's dot program is needed for --graph: apt-get install graphviz"

_TITLE_LIMIT = 60
_PARAMETER_LIMIT = 40
_BOX_COLOR = "#dbe8f6"
_RAN_COLOR = "#b6e3a8"
#: the text of inner ports (onLoad...), which Choregraphe does not show outside a box
_INNER_PORT_COLOR = "#8a8a8a"
_STATE_COLOR = "#fff6d5"
#: the plugin of Choregraphe's Comment box (its text in ``<pluginContent><text>``)
COMMENT_PLUGIN = "textedit_plugin"
_COMMENT_COLOR = "#fff9c4"
_COMMENT_LINE_COLOR = "#c9b458"
_COMMENT_WIDTH = 48
_COMMENT_LINES = 16
_SVG = "{http://www.w3.org/2000/svg}"
_XLINK_TITLE = "{http://www.w3.org/1999/xlink}title"
_WHITE_SPACE = re.compile(r"[\s\x00-\x1f\x7f]+")


def comment_lines(box: Box) -> List[str]:
    """The text of a Comment box (its ``<pluginContent><text>``) as escaped lines of at most
    :data:`_COMMENT_WIDTH` characters, at most :data:`_COMMENT_LINES` of them."""
    text = ""
    if box.plugin_content:
        try:
            element = etree.fromstring(box.plugin_content.encode("utf-8"), safe_xml_parser())
        except etree.XMLSyntaxError:
            element = None
        found = element.find("text") if element is not None else None
        text = (found.text or "") if found is not None else ""
    lines: List[str] = []
    for paragraph in text.splitlines():
        lines.extend(textwrap.wrap(_WHITE_SPACE.sub(" ", paragraph).strip(), _COMMENT_WIDTH)
                     or [""])
    while lines and not lines[-1]:
        lines.pop()
    if len(lines) > _COMMENT_LINES:
        lines = lines[:_COMMENT_LINES - 1] + ["\u2026"]
    return [html.escape(line, quote=True) for line in lines]


class GraphvizError(OSError):
    """``dot`` is missing, failed or took too long (one line, names the page)."""


def _text(value: Optional[str], limit: int = _TITLE_LIMIT) -> str:
    """``value`` for an HTML-like label: on one line (runs of white space and control
    characters -> one space), cut to ``limit`` characters, escaped."""
    line = _WHITE_SPACE.sub(" ", value or "").strip()
    if len(line) > limit:
        line = line[:limit - 1] + "\u2026"
    return html.escape(line, quote=True)


def _quoted(value: str) -> str:
    """``value`` as a DOT double-quoted string (ids and names are ASCII already)."""
    return '"%s"' % value.replace("\\", "\\\\").replace('"', '\\"')


def _connector(box: Box, port_id: int) -> Optional[Connector]:
    """The input, output or parameter ``port_id`` of ``box`` (None when it has none)."""
    for connectors in (box.inputs, box.outputs, box.parameters):
        for connector in connectors:
            if connector.id == port_id:
                return connector
    return None


def _tooltip(connector: Connector) -> str:
    return connector.tooltip or connector.name


def _page_link(page: str) -> str:
    return page + ".svg"


class PageWriter:
    """Builds the DOT source of the pages of one behavior, page by page (a live view asks
    for the page in view only)."""

    def __init__(self, behavior: Behavior, ran: AbstractSet[str] = frozenset(),
                 link: Callable[[str], str] = _page_link) -> None:
        self.behavior = behavior
        self.ran = ran
        #: page name -> what a box owning that page links to
        self.link = link
        self.states: Dict[int, List[StateSpec]] = {}
        self.order: List[Box] = []
        self.names = assign_names(behavior, self.states, self.order)
        #: id(box) -> the diagram holding it
        self.parents: Dict[int, Diagram] = {id(child): diagram for box in self.order
                                            for diagram in box.diagrams()
                                            for child in diagram.boxes}
        #: id(box) -> name of its page, for the boxes owning one
        self.pages: Dict[int, str] = {}
        for box in self.order:
            if box is behavior.root:
                self.pages[id(box)] = ROOT_PAGE
            elif any(True for _ in box.diagrams()):
                self.pages[id(box)] = self.names[id(box)]
        #: page name -> the box owning it, the root page first
        self.owners: Dict[str, Box] = {self.pages[id(box)]: box for box in self.order
                                       if id(box) in self.pages}

    def sources(self) -> Dict[str, str]:
        """Page name -> DOT source, the root page first."""
        return {page: self.page(owner) for page, owner in self.owners.items()}

    def source(self, page: str) -> str:
        """The DOT source of ``page`` (KeyError when the behavior has no such page)."""
        return self.page(self.owners[page])

    # -- one page ---------------------------------------------------------------------
    def page(self, owner: Box) -> str:
        name = self.names[id(owner)]
        page = self.pages[id(owner)]
        lines = ["digraph %s {" % _quoted(page),
                 "  id=%s; rankdir=LR; labelloc=t; "
                 "fontname=Helvetica; fontsize=16; nodesep=0.3; ranksep=0.6;"
                 % _quoted("page-" + page),
                 "  label=<<B>%s</B> (%s)<BR/><FONT POINT-SIZE=\"11\">%s</FONT>>;"
                 % (_text(owner.name), name, _text(self.describe(owner), 200)),
                 "  node [shape=plain, fontname=Helvetica, fontsize=10];",
                 "  edge [arrowsize=0.6];"]
        diagrams = list(owner.diagrams())
        links = [(diagram, link) for diagram in diagrams for link in diagram.links]
        lines.extend(self.border(owner, name, links))
        if not diagrams:
            lines.append("  empty [shape=none, label=<<I>no diagram</I>>];")
        elif self.is_flow_diagram(owner):
            lines.extend(self.box_node(box, "  ") for box in diagrams[0].boxes)
        else:
            lines.extend(self.timeline(owner, name))
        lines.extend(self.link_edge(owner, diagram, link) for diagram, link in links)
        lines.append("}")
        return "\n".join(lines) + "\n"

    @staticmethod
    def is_flow_diagram(box: Box) -> bool:
        """A plain flow diagram box (drawn without states)."""
        timeline = box.timeline
        return (timeline is not None and not timeline.enable and len(timeline.layers) == 1
                and len(timeline.layers[0].keyframes) == 1)

    def describe(self, box: Box) -> str:
        """What ``box`` holds, in a few words: flow diagram, timeline, motion."""
        timeline = box.timeline
        if timeline is None:
            return "no diagram"
        parts = []
        if self.is_flow_diagram(box):
            parts.append("flow diagram")
        elif timeline.layers:
            count = len(self.states.get(id(box), []))
            parts.append("timeline, %d state%s" % (count, "" if count == 1 else "s"))
            if timeline.fps:
                parts.append("%d fps" % timeline.fps)
        curves = timeline.actuator_list.curves if timeline.actuator_list is not None else []
        if curves:
            joints = len({curve.actuator for curve in curves})
            parts.append("motion on %d joint%s" % (joints, "" if joints == 1 else "s"))
        return ", ".join(parts) or "empty timeline"

    def border(self, owner: Box, name: str, links: List[Tuple[Diagram, Link]]) -> List[str]:
        """The owner's ports as nodes on the left (inputs) and right (outputs) borders."""
        left: List[Connector] = list(owner.inputs)
        right: List[Connector] = list(owner.outputs)
        for _, link in links:  # a parameter (or a port used the other way) a link uses
            for owner_id, port_id, side in ((link.outputowner, link.indexofoutput, left),
                                            (link.inputowner, link.indexofinput, right)):
                if owner_id == 0 and not any(port.id == port_id for port in side):
                    side.append(self.connector(owner, owner, port_id))
        lines = []
        for rank, ports in (("source", left), ("sink", right)):
            if not ports:
                continue
            nodes = ["%s%d" % (rank, port.id) for port in ports]
            lines.append("  { rank=%s;" % rank)
            lines.extend(
                "    %s [shape=cds, style=filled, fillcolor=\"#eeeeee\", margin=\"0.08,0.02\", "
                "id=%s, class=\"port\", label=<%s>];"
                % (_quoted(node), _quoted("port-%s-%d" % (name, port.id)), _text(port.name))
                for node, port in zip(nodes, ports))
            if len(nodes) > 1:  # keeps the file order, top to bottom
                lines.append("    %s [style=invis];" % " -> ".join(map(_quoted, nodes)))
            lines.append("  }")
        return lines

    def connector(self, owner: Box, box: Box, port_id: int) -> Connector:
        """Port ``port_id`` of ``box``, a box of ``owner``'s diagrams or ``owner``."""
        found = _connector(box, port_id)
        if found is None:
            raise ValueError("%s: a link in box %r uses port %d of box %r, which has none"
                             % (self.behavior.source or "<behavior>", owner.name, port_id,
                                box.name))
        return found

    def timeline(self, owner: Box, name: str) -> List[str]:
        """One frame per state, around the boxes of the keyframes starting in it."""
        assert owner.timeline is not None
        layers = owner.timeline.layers
        homes: Dict[Tuple[int, int], int] = {}  # keyframe -> the first state loading it
        for state in self.states.get(id(owner), []):
            for keyframe in state.keyframes:
                homes.setdefault(keyframe, state.index)
        lines = []
        for state in self.states.get(id(owner), []):
            starting = [key for key in state.keyframes if homes[key] == state.index]
            going_on = [layers[layer].keyframes[index].name for layer, index in state.keyframes
                        if homes[(layer, index)] != state.index]
            label = "%s[%d,%d]" % (_text(", ".join(state.labels)) + " " if state.labels else "",
                                   state.begin, state.end)
            if going_on:
                label += "<BR/><FONT POINT-SIZE=\"9\">still loaded: %s</FONT>" % _text(
                    ", ".join(going_on), 120)
            lines.append("  subgraph %s {" % _quoted("cluster_state_%d" % state.index))
            lines.append("    id=%s; class=\"state\"; style=\"filled,rounded\"; "
                         "fillcolor=\"%s\"; fontsize=12; label=<%s>;"
                         % (_quoted("state-%s-%d" % (name, state.index)), _STATE_COLOR, label))
            if not starting:
                lines.append("    %s [shape=none, label=<<I>no new box</I>>];"
                             % _quoted("state_%d" % state.index))
            for layer, index in starting:
                keyframe = layers[layer].keyframes[index]
                if len(starting) > 1:  # which keyframe each box belongs to
                    lines.append("    subgraph %s { id=%s; class=\"keyframe\"; style=dashed; "
                                 "fontsize=10; label=<%s: %s>;"
                                 % (_quoted("cluster_keyframe_%d_%d" % (layer, index)),
                                    _quoted("keyframe-%s-%d-%d" % (name, layer, index)),
                                    _text(layers[layer].name), _text(keyframe.name)))
                lines.extend(self.box_node(box, "      ") for box in keyframe.diagram.boxes)
                if not keyframe.diagram.boxes:
                    lines.append("      %s [shape=none, label=<<I>%s: no box</I>>];"
                                 % (_quoted("keyframe_%d_%d" % (layer, index)),
                                    _text(keyframe.name)))
                if len(starting) > 1:
                    lines.append("    }")
            lines.append("  }")
        return lines

    # -- boxes and links --------------------------------------------------------------
    def box_node(self, box: Box, indent: str) -> str:
        """``box`` as a node whose label is a table: title, parameters, ports, inner page;
        a Comment box as a note showing its text."""
        name = self.names[id(box)]
        if box.plugin == COMMENT_PLUGIN:
            lines = comment_lines(box)
            text = "".join(line + "<BR ALIGN=\"LEFT\"/>" for line in lines) or "<I>(empty)</I>"
            return ("%s%s [id=%s, class=\"box comment\", shape=note, style=filled, "
                    "fillcolor=\"%s\", color=\"%s\", margin=\"0.15,0.08\", label=<%s>];"
                    % (indent, _quoted(name), _quoted("box-" + name), _COMMENT_COLOR,
                       _COMMENT_LINE_COLOR, text))
        ran = name in self.ran
        rows = ["<TR><TD COLSPAN=\"2\" BGCOLOR=\"%s\"><B>%s</B></TD></TR>"
                % (_RAN_COLOR if ran else _BOX_COLOR, _text(box.name))]
        rows.extend(
            "<TR><TD COLSPAN=\"2\" PORT=\"p%d\" ID=\"param-%s-%d\" HREF=\"#\" TOOLTIP=\"%s\" "
            "ALIGN=\"LEFT\"><FONT POINT-SIZE=\"8\">%s = %s</FONT></TD></TR>"
            % (parameter.id, name, parameter.id, _text(_tooltip(parameter), 200),
               _text(parameter.name, 30), _text(parameter.value, _PARAMETER_LIMIT))
            for parameter in box.parameters)
        inputs, outputs = box.inputs, box.outputs
        for row in range(max(len(inputs), len(outputs))):
            rows.append("<TR>%s%s</TR>" % (
                self.port_cell(name, inputs[row] if row < len(inputs) else None, "LEFT"),
                self.port_cell(name, outputs[row] if row < len(outputs) else None, "RIGHT")))
        page = self.pages.get(id(box))
        if page is not None:
            rows.append("<TR><TD COLSPAN=\"2\" HREF=\"%s\" TOOLTIP=\"open page %s\">"
                        "<FONT POINT-SIZE=\"9\"><I>%s: page %s</I></FONT></TD></TR>"
                        % (html.escape(self.link(page)), page, _text(self.describe(box)), page))
        elif box.timeline is not None:
            rows.append("<TR><TD COLSPAN=\"2\"><FONT POINT-SIZE=\"9\"><I>%s</I></FONT></TD></TR>"
                        % _text(self.describe(box)))
        table = ("<TABLE BORDER=\"1\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"3\" "
                 "BGCOLOR=\"%s\">%s</TABLE>" % (_RAN_COLOR if ran else "white", "".join(rows)))
        return "%s%s [id=%s, class=%s, label=<%s>];" % (
            indent, _quoted(name), _quoted("box-" + name), _quoted("box ran" if ran else "box"),
            table)

    @staticmethod
    def port_cell(name: str, port: Optional[Port], align: str) -> str:
        if port is None:
            return "<TD></TD>"
        label = _text(port.name, 30)
        if port.inner:  # not shown outside the box in Choregraphe: drawn faint
            label = "<FONT COLOR=\"%s\"><I>%s</I></FONT>" % (_INNER_PORT_COLOR, label)
        return ("<TD PORT=\"p%d\" ID=\"port-%s-%d\" HREF=\"#\" TOOLTIP=\"%s\" ALIGN=\"%s\">%s</TD>"
                % (port.id, name, port.id, _text(_tooltip(port), 200), align, label))

    def link_edge(self, owner: Box, diagram: Diagram, link: Link) -> str:
        """A link as an edge from an output port (east side) to an input port (west side)."""
        return "  %s -> %s [class=\"link\"];" % (
            self.link_end(owner, diagram, link.outputowner, link.indexofoutput, "source", "e"),
            self.link_end(owner, diagram, link.inputowner, link.indexofinput, "sink", "w"))

    def link_end(self, owner: Box, diagram: Diagram, box_id: int, port_id: int, border: str,
                 side: str) -> str:
        """Where a link end is drawn: a border node of the page or a port of a box's table."""
        if box_id == 0:
            return _quoted("%s%d" % (border, port_id))
        box = next((box for box in diagram.boxes if box.id == box_id), None)
        if box is None:
            raise ValueError("%s: a link in box %r uses box %d, which its diagram does not "
                             "have" % (self.behavior.source or "<behavior>", owner.name, box_id))
        self.connector(owner, box, port_id)
        return "%s:p%d:%s" % (_quoted(self.names[id(box)]), port_id, side)


def page_sources(behavior: Behavior, ran: Optional[AbstractSet[str]] = None,
                 link: Callable[[str], str] = _page_link) -> Dict[str, str]:
    """Page name -> the page's Graphviz DOT source, the root page (:data:`ROOT_PAGE`) first.

    ``ran``: object names of the boxes to draw filled (names not in the behavior are ignored);
    ``link``: what a box owning a page links to, from the page's name (``<page>.svg``).
    """
    return PageWriter(behavior, ran or frozenset(), link).sources()


def _dot_program() -> str:
    program = shutil.which("dot")
    if program is None:
        raise GraphvizError(DOT_MISSING)
    return program


def _run_dot(program: str, page: str, source: str, fmt: str) -> bytes:
    """``source`` laid out by ``dot`` as ``fmt`` (SVG ids finished)."""
    try:
        process = subprocess.run([program, "-T" + fmt], input=source.encode("utf-8"),
                                 capture_output=True, timeout=DOT_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise GraphvizError("dot took more than %g s on page %s" % (DOT_TIMEOUT_S, page)) from None
    if process.returncode != 0:
        message = process.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GraphvizError("dot failed on page %s: %s" % (
            page, message[0] if message else "exit status %d" % process.returncode))
    return _finish_svg(process.stdout) if fmt == "svg" else process.stdout


def _finish_svg(svg: bytes) -> bytes:
    """Gives the port and parameter cells their own ids.

    ``dot`` writes a table cell's ``ID`` only for a cell with an ``HREF``: as ``a_<ID>``, the
    id of a group around the cell's link (``<a>``).  That group gets the ID itself and a
    class, and the link is replaced by its content and a ``<title>`` (the cell's tooltip).
    """
    tree = etree.ElementTree(etree.fromstring(svg, etree.XMLParser(resolve_entities=False,
                                                                    no_network=True)))
    for group in tree.getroot().iter(_SVG + "g"):
        group_id = group.get("id", "")
        if not group_id.startswith(("a_port-", "a_param-")):
            continue
        kind = group_id[2:].split("-", 1)[0]
        group.set("id", group_id[2:])
        group.set("class", kind)
        for anchor in group.findall(_SVG + "a"):
            title = etree.Element(_SVG + "title")
            title.text = anchor.get(_XLINK_TITLE, "")
            position = group.index(anchor)
            group[position:position + 1] = [title, *anchor]
    return etree.tostring(tree, xml_declaration=True, encoding="UTF-8")


def render_page(writer: PageWriter, page: str, fmt: str = "svg") -> bytes:
    """One page of ``writer``'s behavior as ``fmt`` (``"svg"``, ``"png"`` or ``"dot"``):
    a live view draws the page in view only.  KeyError for a page the behavior does not
    have; otherwise raises as :func:`render_pages`."""
    if fmt not in PAGE_FORMATS:
        raise ValueError("diagram pages are %s, not %r" % (", ".join(PAGE_FORMATS), fmt))
    source = writer.source(page)
    if fmt == "dot":
        return source.encode("utf-8")
    return _run_dot(_dot_program(), page, source, fmt)


def render_pages(behavior: Behavior, fmt: str = "svg",
                 ran: Optional[AbstractSet[str]] = None,
                 link: Callable[[str], str] = _page_link) -> Dict[str, bytes]:
    """Page name -> the page as ``fmt`` (``"svg"``, ``"png"`` or ``"dot"``), root page first.

    ``ran``: object names of the boxes to draw filled; ``link`` as for
    :func:`page_sources`.  Raises :class:`GraphvizError` when ``dot`` is missing or fails
    (not for ``"dot"``, which is the source itself), and ``ValueError`` for another format
    or a link to a port the model does not have.
    """
    if fmt not in PAGE_FORMATS:
        raise ValueError("diagram pages are %s, not %r" % (", ".join(PAGE_FORMATS), fmt))
    sources = page_sources(behavior, ran, link)
    if fmt == "dot":
        return {page: source.encode("utf-8") for page, source in sources.items()}
    program = _dot_program()
    with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1)) as pool:  # one dot each
        rendered = {page: pool.submit(_run_dot, program, page, source, fmt)
                    for page, source in sources.items()}
        return {page: future.result() for page, future in rendered.items()}


def graph_files(behavior: Behavior, stem: str, suffix: str,
                ran: Optional[AbstractSet[str]] = None) -> Dict[str, bytes]:
    """The pages of ``behavior`` as files to save side by side (:data:`GRAPH_FORMATS`):
    file name -> content, the root page as ``<stem><suffix>`` first, every other page as
    ``<stem>_<page><suffix>``, the links of SVG pages pointing at those names."""
    if suffix not in GRAPH_FORMATS:
        raise ValueError("graph files must end with %s" % " or ".join(GRAPH_FORMATS))
    pages = render_pages(behavior, suffix[1:], ran,
                         lambda page: os.path.basename(graph_file_name(stem, page, suffix)))
    return {graph_file_name(stem, page, suffix): content for page, content in pages.items()}


def graph_file_name(stem: str, page: str, suffix: str) -> str:
    """The file :func:`graph_files` saves ``page`` in: ``<stem><suffix>`` for the root
    page, ``<stem>_<page><suffix>`` for the others."""
    return stem + suffix if page == ROOT_PAGE else "%s_%s%s" % (stem, page, suffix)
