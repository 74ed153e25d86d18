"""Fixtures of the converter tests: the 2012 reference outputs and small behaviors."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # converter_archives

REFERENCE_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "reference" / \
    "reference-converter-2012"

ROOT_PORTS = """
        <Input name="onLoad" type="1" type_size="1" nature="0" inner="1" tooltip="" id="1" />
        <Input name="onStart" type="1" type_size="1" nature="2" inner="0" tooltip="" id="2" />
        <Input name="onStop" type="1" type_size="1" nature="3" inner="0" tooltip="" id="3" />
        <Output name="onStopped" type="1" type_size="1" nature="1" inner="0" tooltip="" id="4" />
"""


def _project(diagram: str = "", namespace: bool = True, version: str = "3",
            timeline_attributes: str = 'enable="0"', layers: str = "") -> bytes:
    """A small xar_version 3 project whose root diagram is ``diagram``."""
    xmlns = ' xmlns="http://www.aldebaran-robotics.com/schema/choregraphe/project.xsd"' \
        if namespace else ""
    if not layers:
        layers = ('<BehaviorLayer name="behavior_layer1"><BehaviorKeyframe name="keyframe1" '
                  'index="1"><Diagram>%s</Diagram></BehaviorKeyframe></BehaviorLayer>' % diagram)
    return ("""<?xml version="1.0" encoding="UTF-8" ?>
<ChoregrapheProject%s xar_version="%s">
    <Box name="root" id="-1" localization="8" tooltip="Root" x="0" y="0">
        <bitmap>media/images/box/root.png</bitmap>
        <script language="4"><content><![CDATA[]]></content></script>%s
        <Timeline %s>%s</Timeline>
    </Box>
</ChoregrapheProject>
""" % (xmlns, version, ROOT_PORTS, timeline_attributes, layers)).encode()


def _box(name: str, box_id: int, script: str = "", extra: str = "") -> str:
    """A box with the four usual ports and ``script``."""
    return """<Box name="%s" id="%d" x="1" y="2">
        <script language="4"><content><![CDATA[%s]]></content></script>%s%s
    </Box>""" % (name, box_id, script, ROOT_PORTS, extra)


@pytest.fixture(scope="session")
def reference_dir() -> Path:
    """The 2012 converter's outputs; tests using them skip when absent."""
    if not REFERENCE_DIR.is_dir():
        pytest.skip("reference outputs not available at %s" % REFERENCE_DIR)
    return REFERENCE_DIR


@pytest.fixture(scope="session")
def project():
    """``project(diagram, namespace=True, version="3", timeline_attributes, layers)`` -> bytes."""
    return _project


@pytest.fixture(scope="session")
def box():
    """``box(name, id, script="", extra="")`` -> the XML of a box with the usual ports."""
    return _box


def _container(name: str, box_id: int, diagram: str) -> str:
    """A box with the usual ports whose flow diagram holds ``diagram`` (boxes and links)."""
    return _box(name, box_id, "pass", extra=(
        '<Timeline enable="0"><BehaviorLayer name="l"><BehaviorKeyframe name="k" index="1">'
        '<Diagram>%s</Diagram></BehaviorKeyframe></BehaviorLayer></Timeline>' % diagram))


@pytest.fixture(scope="session")
def container():
    """``container(name, id, diagram)`` -> the XML of a box holding a flow diagram."""
    return _container
