"""Diagram pages drawn by Graphviz: every box, port, link and state is there, with stable ids."""
import html
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Dict, List

import pytest
from lxml import etree

from naoqi_qicore.converter.graph import (COMMENT_PLUGIN, DOT_MISSING, GraphvizError, ROOT_PAGE,
                                          PageWriter, comment_lines, graph_files, page_sources,
                                          render_page, render_pages)
from naoqi_qicore.converter.naming import assign_names
from naoqi_qicore.converter.states import StateSpec
from naoqi_qicore.xar.model import Behavior, Box
from naoqi_qicore.xar.parser import parse_xar_bytes, parse_xar_file

REPO = Path(__file__).resolve().parents[2]
SVG = "{http://www.w3.org/2000/svg}"
XLINK_HREF = "{http://www.w3.org/1999/xlink}href"

needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="Graphviz's dot program is not installed "
                                      "(apt-get install graphviz)")

PORTS = """
  <Input name="onLoad" type="1" type_size="1" nature="0" inner="1" tooltip="" id="1"/>
  <Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="Go &lt;now&gt;"
    id="2"/>
  <Input name="onStop" type="1" type_size="1" nature="3" inner="0" tooltip="" id="3"/>
  <Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="" id="4"/>"""

#: a root flow diagram holding a box with hostile text and an inner flow diagram
HOSTILE = ("""<?xml version="1.0" encoding="UTF-8" ?>
<ChoregrapheProject xmlns="http://www.aldebaran-robotics.com/schema/choregraphe/project.xsd"
  xar_version="3">
 <Box name="root" id="-1">%(ports)s
  <Timeline enable="0"><BehaviorLayer name="layer"><BehaviorKeyframe name="k" index="1"><Diagram>
   <Box name="a&quot;&lt;&amp;b" id="1">%(ports)s
    <Parameter name="Text" inherits_from_parent="0" content_type="3" id="5"
      value="line one&#10;l&lt;ine &quot;two&quot; &amp;amp; é ✓ 😀" default_value=""/>
    <Timeline enable="0"><BehaviorLayer name="layer"><BehaviorKeyframe name="k" index="1">
     <Diagram>
      <Box name="Inner" id="1">%(ports)s</Box>
      <Link inputowner="1" indexofinput="2" outputowner="0" indexofoutput="2"/>
      <Link inputowner="0" indexofinput="4" outputowner="1" indexofoutput="4"/>
     </Diagram>
    </BehaviorKeyframe></BehaviorLayer></Timeline>
   </Box>
   <Box name="Plain" id="2">%(ports)s
    <Parameter name="Speed" content_type="1" value="3" default_value="3" id="5"/>
   </Box>
   <Link inputowner="1" indexofinput="2" outputowner="0" indexofoutput="2"/>
   <Link inputowner="2" indexofinput="2" outputowner="1" indexofoutput="4"/>
   <Link inputowner="2" indexofinput="5" outputowner="1" indexofoutput="4"/>
   <Link inputowner="0" indexofinput="4" outputowner="2" indexofoutput="4"/>
  </Diagram></BehaviorKeyframe></BehaviorLayer></Timeline>
 </Box>
</ChoregrapheProject>
""" % {"ports": PORTS}).encode("utf-8")


def hostile() -> Behavior:
    return parse_xar_bytes(HOSTILE, "hostile.xar")


def shown(drawn: str, text: str) -> bool:
    """Whether ``drawn`` is ``text`` on one line, possibly cut short with an ellipsis."""
    line = " ".join(text.split())
    return drawn == line or (drawn.endswith("\u2026") and line.startswith(drawn[:-1]))


def bounds(group: etree._Element) -> tuple:
    """(left, top, right, bottom) of the polygons and paths drawn in ``group``."""
    numbers = [float(number) for shape in group.iter(SVG + "polygon", SVG + "path")
               for number in re.findall(r"-?[\d.]+", shape.get("points") or shape.get("d"))]
    xs, ys = numbers[0::2], numbers[1::2]
    return min(xs), min(ys), max(xs), max(ys)


def inside(inner: etree._Element, outer: etree._Element) -> bool:
    (left, top, right, bottom), (left2, top2, right2, bottom2) = bounds(inner), bounds(outer)
    return left >= left2 and top >= top2 and right <= right2 and bottom <= bottom2


def groups_by_id(svg: bytes) -> Dict[str, etree._Element]:
    """The SVG's groups by id (every id appears once)."""
    groups = [group for group in etree.fromstring(svg).iter(SVG + "g") if group.get("id")]
    ids = Counter(group.get("id") for group in groups)
    assert [name for name, count in ids.items() if count > 1] == []
    return {group.get("id"): group for group in groups}


def texts(group: etree._Element) -> List[str]:
    return [text.text for text in group.iter(SVG + "text")]


def classes(group: etree._Element) -> List[str]:
    return (group.get("class") or "").split()


def check_page(svg: bytes, owner: Box, names: Dict[int, str], states: List[StateSpec],
               is_flow_diagram: bool) -> None:
    """``svg`` draws every box, port, parameter, link and state of ``owner``'s page."""
    groups = groups_by_id(svg)
    owner_name = names[id(owner)]
    for port in owner.inputs + owner.outputs:  # on the page's borders
        border = groups["port-%s-%d" % (owner_name, port.id)]
        assert "port" in classes(border) and shown(texts(border)[0], port.name)
    diagrams = list(owner.diagrams())
    expected_links = Counter()
    for diagram in diagrams:
        by_id = {box.id: names[id(box)] for box in diagram.boxes}
        for box in diagram.boxes:
            name = names[id(box)]
            node = groups["box-" + name]
            assert "box" in classes(node)
            if box.plugin == COMMENT_PLUGIN:  # a note showing its text, no port
                assert "comment" in classes(node)
                lines = [html.unescape(line) for line in comment_lines(box) if line]
                assert texts(node) == (lines or ["(empty)"])
                continue
            assert shown(texts(node)[0], box.name)
            for port in box.inputs + box.outputs:
                cell = groups["port-%s-%d" % (name, port.id)]
                assert classes(cell) == ["port"] and shown(texts(cell)[0], port.name)
            for parameter in box.parameters:
                assert "param" in classes(groups["param-%s-%d" % (name, parameter.id)])
        for link in diagram.links:
            expected_links[(by_id.get(link.outputowner, "source%d" % link.indexofoutput),
                            by_id.get(link.inputowner, "sink%d" % link.indexofinput))] += 1
    drawn_links = Counter()
    for edge in groups.values():
        if "link" in classes(edge):
            tail, head = edge.find(SVG + "title").text.split("->")
            drawn_links[(tail.split(":")[0], head.split(":")[0])] += 1
    assert drawn_links == expected_links
    state_ids = sorted(key for key in groups if key.startswith("state-"))
    if is_flow_diagram:
        assert state_ids == []
        return
    assert state_ids == sorted("state-%s-%d" % (owner_name, state.index) for state in states)
    for state in states:
        frame = groups["state-%s-%d" % (owner_name, state.index)]
        assert "state" in classes(frame)
        interval = "[%d,%d]" % (state.begin, state.end)
        assert texts(frame)[0].endswith(interval)
        assert shown(texts(frame)[0][:-len(interval)].rstrip(), ", ".join(state.labels))


def check_behavior(behavior: Behavior, pages: Dict[str, bytes]) -> None:
    """Every page of ``behavior`` is there and draws its diagram; every box is drawn once."""
    states: Dict[int, List[StateSpec]] = {}
    order: List[Box] = []
    names = assign_names(behavior, states, order)
    owners = [box for box in order if box is behavior.root or any(True for _ in box.diagrams())]
    assert list(pages) == [ROOT_PAGE] + [names[id(box)] for box in owners[1:]]
    drawn = Counter()
    for box, svg in zip(owners, pages.values()):
        timeline = box.timeline
        flow = timeline is None or (not timeline.enable and len(timeline.layers) == 1
                                    and len(timeline.layers[0].keyframes) == 1)
        check_page(svg, box, names, states.get(id(box), []), flow)
        drawn.update(key for key in groups_by_id(svg) if key.startswith("box-"))
    assert drawn == Counter("box-" + names[id(box)] for box in order[1:])


@needs_dot
def test_wave_hello_draws_every_box_port_link_and_state():
    behavior = parse_xar_file(REPO / "examples" / "wave_hello" / "behavior.xar")
    pages = render_pages(behavior)
    assert list(pages) == [ROOT_PAGE]
    check_behavior(behavior, pages)
    groups = groups_by_id(pages[ROOT_PAGE])
    assert [texts(groups["state-l0_root-%d" % index])[0] for index in range(4)] == [
        "Hello [1,30]", "Wave [30,70]", "Skip [70,90]", "Bow [90,91]"]
    frames = [groups["state-l0_root-%d" % index] for index in range(4)]
    for box, state in (("l1_Say_Hello", 0), ("l1_Mark_Wave", 1), ("l1_Skip_To_Bow", 2),
                       ("l1_Mark_Bow", 3), ("l1_Say_Goodbye", 3)):
        assert [inside(groups["box-" + box], frame) for frame in frames] == [
            index == state for index in range(4)], box
    assert texts(groups["param-l1_Say_Hello-5"]) == ["Text = Hello, I am NAO. Watch me wave!"]


@needs_dot
def test_a_box_with_a_diagram_has_its_own_page_and_names_it():
    behavior = hostile()
    pages = render_pages(behavior)
    assert list(pages) == [ROOT_PAGE, "l1_a_b"]
    check_behavior(behavior, pages)
    box = groups_by_id(pages[ROOT_PAGE])["box-l1_a_b"]
    assert "flow diagram: page l1_a_b" in texts(box)
    assert [anchor.get(XLINK_HREF) for anchor in box.iter(SVG + "a")] == ["l1_a_b.svg"]
    inner = groups_by_id(pages["l1_a_b"])
    assert texts(inner["port-l1_a_b-1"]) == ["onLoad"]  # on its own page's border too
    assert "box-l2_Inner" in inner and "box-l1_Plain" not in inner


@needs_dot
def test_text_from_the_behavior_is_escaped():
    behavior = hostile()
    source = page_sources(behavior)[ROOT_PAGE]
    assert "<B>a&quot;&lt;&amp;b</B>" in source and 'a"<&b' not in source
    groups = groups_by_id(render_pages(behavior)[ROOT_PAGE])  # well-formed XML
    box = groups["box-l1_a_b"]
    assert texts(box)[0] == 'a"<&b'
    assert texts(groups["param-l1_a_b-5"]) == ['Text = line one l<ine "two" &amp; é ✓ 😀']
    assert groups["port-l1_a_b-2"].find(SVG + "title").text == "Go <now>"
    assert texts(groups["param-l1_Plain-5"]) == ["Speed = 3"]


@needs_dot
def test_boxes_that_ran_are_drawn_filled():
    pages = render_pages(hostile(), ran={"l1_Plain", "l9_not_a_box"})
    groups = groups_by_id(pages[ROOT_PAGE])
    assert classes(groups["box-l1_Plain"]) == ["node", "box", "ran"]
    assert classes(groups["box-l1_a_b"]) == ["node", "box"]

    def fills(group):
        return {polygon.get("fill") for polygon in group.iter(SVG + "polygon")}
    assert fills(groups["box-l1_Plain"]) - fills(groups["box-l1_a_b"])
    png = render_pages(hostile(), "png", ran={"l1_Plain"})
    assert list(png) == [ROOT_PAGE, "l1_a_b"]
    assert all(page.startswith(b"\x89PNG\r\n\x1a\n") for page in png.values())


@needs_dot
def test_graph_files_are_pages_side_by_side_for_xar_convert():
    behavior = hostile()
    files = graph_files(behavior, "g", ".svg")
    assert list(files) == ["g.svg", "g_l1_a_b.svg"]
    root = files["g.svg"].decode("utf-8")
    assert "box-l1_a_b" in groups_by_id(files["g.svg"]) and "box-l2_Inner" not in root
    assert 'href="g_l1_a_b.svg"' in root  # the box owning a page links to its file
    assert "box-l2_Inner" in groups_by_id(files["g_l1_a_b.svg"])
    assert graph_files(behavior, "g", ".dot")["g.dot"].decode() == page_sources(
        behavior, link=lambda page: "g_%s.dot" % page)[ROOT_PAGE]
    assert graph_files(behavior, "g", ".png")["g.png"].startswith(b"\x89PNG")
    with pytest.raises(ValueError, match="graph files must end with .svg or .png or .dot"):
        graph_files(behavior, "g", ".pdf")
    with pytest.raises(ValueError, match="diagram pages are svg, png, dot"):
        render_pages(behavior, "pdf")


#: a root flow diagram with a Comment box (its text in the plugin content) and an empty one
COMMENTED = ("""<?xml version="1.0" encoding="UTF-8" ?>
<ChoregrapheProject xmlns="http://www.aldebaran-robotics.com/schema/choregraphe/project.xsd"
  xar_version="3">
 <Box name="root" id="-1">%(ports)s
  <Timeline enable="0"><BehaviorLayer name="layer"><BehaviorKeyframe name="k" index="1"><Diagram>
   <Box name="Comment" id="1" plugin="textedit_plugin" x="66" y="100">
    <pluginContent><text><![CDATA[start with "Hey Nao" <b>&amp;</b>
then touch my head: I will wave, say hello and bow to everyone standing around me]]></text>
    </pluginContent>
    <Input name="onLoad" type="1" type_size="1" nature="0" inner="1" tooltip="" id="1"/>
   </Box>
   <Box name="Comment" id="2" plugin="textedit_plugin" x="66" y="200">
    <Input name="onLoad" type="1" type_size="1" nature="0" inner="1" tooltip="" id="1"/>
   </Box>
  </Diagram></BehaviorKeyframe></BehaviorLayer></Timeline>
 </Box>
</ChoregrapheProject>
""" % {"ports": PORTS}).encode("utf-8")


def test_a_comment_box_is_a_note_with_its_text():
    behavior = parse_xar_bytes(COMMENTED, "commented.xar")
    comment = behavior.root.timeline.layers[0].keyframes[0].diagram.boxes[0]
    assert comment_lines(comment) == [
        "start with &quot;Hey Nao&quot; &lt;b&gt;&amp;amp;&lt;/b&gt;",
        "then touch my head: I will wave, say hello and",
        "bow to everyone standing around me"]
    source = page_sources(behavior)[ROOT_PAGE]
    assert "shape=note" in source and "Hey Nao" in source and "onLoad" not in source.split(
        "l1_Comment")[1].split("];")[0]
    if shutil.which("dot") is not None:
        groups = groups_by_id(render_pages(behavior)[ROOT_PAGE])
        assert texts(groups["box-l1_Comment"]) == [
            'start with "Hey Nao" <b>&amp;</b>', "then touch my head: I will wave, say hello and",
            "bow to everyone standing around me"]
        assert classes(groups["box-l1_Comment"]) == ["node", "box", "comment"]
        assert texts(groups["box-l1_Comment_1"]) == ["(empty)"]


@needs_dot
def test_one_page_is_drawn_when_asked():
    behavior = hostile()
    writer = PageWriter(behavior)
    assert list(writer.owners) == [ROOT_PAGE, "l1_a_b"]
    assert writer.owners["l1_a_b"].name == 'a"<&b'
    inner = render_page(writer, "l1_a_b")
    assert inner == render_pages(behavior)["l1_a_b"]
    assert render_page(writer, ROOT_PAGE, "dot").decode() == page_sources(behavior)[ROOT_PAGE]
    with pytest.raises(KeyError):
        render_page(writer, "l9_nowhere")


def test_links_join_ports_in_the_source():
    source = page_sources(hostile())[ROOT_PAGE]
    edges = re.findall(r"^  (.*) -> (.*) \[class=\"link\"\];$", source, re.MULTILINE)
    assert sorted(edges) == sorted([
        ('"source2"', '"l1_a_b":p2:w'), ('"l1_a_b":p4:e', '"l1_Plain":p2:w'),
        ('"l1_a_b":p4:e', '"l1_Plain":p5:w'), ('"l1_Plain":p4:e', '"sink4"')])


def test_without_dot_the_error_says_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    behavior = hostile()
    with pytest.raises(GraphvizError) as raised:
        render_pages(behavior, "svg")
    assert str(raised.value) == DOT_MISSING
    assert DOT_MISSING == "Graphviz's dot program is needed for --graph: apt-get install graphviz"
    with pytest.raises(GraphvizError, match="apt-get install graphviz"):
        graph_files(behavior, "g", ".svg")
    assert render_pages(behavior, "dot")[ROOT_PAGE].startswith(b'digraph "root" {')


def largest_corpus_behavior(corpus_dir: Path) -> Path:
    """The corpus file with the most boxes."""
    return max(sorted((corpus_dir / "files").glob("*.xar")),
               key=lambda path: path.read_bytes().count(b"<Box "))


@needs_dot
@pytest.mark.slow
def test_the_largest_corpus_behavior_renders_every_page(corpus_dir):
    behavior = parse_xar_file(largest_corpus_behavior(corpus_dir))
    pages = render_pages(behavior)
    assert len(pages) > 100
    check_behavior(behavior, pages)
