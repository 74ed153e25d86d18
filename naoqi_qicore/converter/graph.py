"""The structure of a behavior as a graph: boxes, states, links (networkx), as .dot or .svg.

Nodes are the boxes (by object name) and the states of their timelines; edges are the
links between boxes (labelled ``output -> input``), each state's objects (``loads``) and
the order of states (``next``).  ``.dot`` is written by pydot (text only) and ``.svg`` by
matplotlib with a layout by nesting depth: no Graphviz program is needed.
"""
from __future__ import annotations

import io
from typing import Dict, List, Tuple

import networkx as nx

from naoqi_qicore.converter.naming import assign_names
from naoqi_qicore.converter.states import compute_states
from naoqi_qicore.converter.writer import link_port_name
from naoqi_qicore.xar.model import Behavior

#: graph file formats :func:`render_graph` writes
GRAPH_FORMATS = (".svg", ".dot")


def behavior_graph(behavior: Behavior) -> nx.MultiDiGraph:
    """Boxes, states, links and state contents of ``behavior``."""
    names = assign_names(behavior)
    graph = nx.MultiDiGraph(name=behavior.root.name)
    for depth, box in behavior.root.walk():
        name = names[id(box)]
        graph.add_node(name, kind="box", label=box.name, depth=2 * depth)
        if box.timeline is None:
            continue
        states = compute_states(box.timeline)
        previous = name
        for state in states:
            state_name = "%s_state_%d" % (name, state.index)
            graph.add_node(state_name, kind="state", depth=2 * depth + 1,
                           label="[%d,%d] %s" % (state.begin, state.end, " ".join(state.labels)))
            graph.add_edge(previous, state_name, kind="next", label="")
            previous = state_name
            for layer, index in state.keyframes:
                for child in box.timeline.layers[layer].keyframes[index].diagram.boxes:
                    graph.add_edge(state_name, names[id(child)], kind="loads", label="")
        for diagram in box.diagrams():
            boxes = {child.id: child for child in diagram.boxes}
            for link in diagram.links:
                source = box if link.outputowner == 0 else boxes[link.outputowner]
                target = box if link.inputowner == 0 else boxes[link.inputowner]
                graph.add_edge(names[id(source)], names[id(target)], kind="link", label="%s -> %s" % (
                    link_port_name(source, link.indexofoutput),
                    link_port_name(target, link.indexofinput)))
    return graph


def _dot_text(graph: nx.MultiDiGraph) -> str:
    dot = nx.nx_pydot.to_pydot(_quoted(graph))
    return dot.to_string()


def _quoted(graph: nx.MultiDiGraph) -> nx.MultiDiGraph:
    """A copy whose attribute values are quoted for the DOT language."""
    quoted = nx.MultiDiGraph()
    for node, data in graph.nodes(data=True):
        quoted.add_node(node, label='"%s"' % data["label"].replace('"', "'"),
                        shape="box" if data["kind"] == "box" else "ellipse")
    for source, target, data in graph.edges(data=True):
        quoted.add_edge(source, target, label='"%s"' % data["label"].replace('"', "'"),
                        style={"link": "solid", "loads": "dashed", "next": "bold"}[data["kind"]])
    return quoted


def _rows_layout(graph: nx.MultiDiGraph) -> Dict[str, Tuple[float, float]]:
    """One row per depth (boxes, then their states), nodes in file order, centred."""
    rows: Dict[int, List[str]] = {}
    for node, data in graph.nodes(data=True):
        rows.setdefault(data["depth"], []).append(node)
    return {node: ((index - (len(nodes) - 1) / 2.0) / max(len(nodes), 1), -float(depth))
            for depth, nodes in rows.items() for index, node in enumerate(nodes)}


def _svg_text(graph: nx.MultiDiGraph) -> str:
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "naoqi_qicore"  # same input, same bytes
    from matplotlib import pyplot
    from matplotlib.figure import Figure

    positions = _rows_layout(graph)
    width = max(8.0, min(60.0, graph.number_of_nodes() * 0.35))
    figure = Figure(figsize=(width, 8.0))
    axes = figure.add_subplot()
    axes.set_axis_off()
    boxes = [n for n, d in graph.nodes(data=True) if d["kind"] == "box"]
    states = [n for n, d in graph.nodes(data=True) if d["kind"] == "state"]
    nx.draw_networkx_nodes(graph, positions, nodelist=boxes, node_shape="s", node_color="#cfe2f3",
                           ax=axes, node_size=300)
    nx.draw_networkx_nodes(graph, positions, nodelist=states, node_color="#fff2cc", ax=axes,
                           node_size=200)
    for kind, style, color in (("link", "solid", "#333333"), ("loads", "dashed", "#999999"),
                               ("next", "solid", "#bf9000")):
        edges = [(s, t) for s, t, d in graph.edges(data=True) if d["kind"] == kind]
        nx.draw_networkx_edges(graph, positions, edgelist=edges, style=style, edge_color=color,
                               ax=axes, arrows=True, node_size=300)
    labels: Dict[str, str] = {n: d["label"] for n, d in graph.nodes(data=True)}
    nx.draw_networkx_labels(graph, positions, labels=labels, font_size=6, ax=axes)
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None})
    pyplot.close("all")
    return buffer.getvalue()


def render_graph(behavior: Behavior, suffix: str) -> str:
    """The graph of ``behavior`` as ``.dot`` or ``.svg`` text."""
    graph = behavior_graph(behavior)
    if suffix == ".dot":
        return _dot_text(graph)
    if suffix == ".svg":
        return _svg_text(graph)
    raise ValueError("graph files must end with %s" % " or ".join(GRAPH_FORMATS))
