"""What keeps loading a large behavior linear: each distinct script compiled and read for
its imports once (and kept as one string), the boxes running one script sharing its code
(and still told apart: by the box object a frame runs, else by the box whose code called
it), loggers made on first use, the cyclic collector paused while the model and the boxes
are built, no audit hook slowing the load down before box code runs, and the converted
folder read with clear errors (the speed itself is measured
by bench/bench_scale.py)."""
import gc
import logging
import os
import subprocess
import sys
import textwrap
import threading
import time
import types
import weakref

import pytest
from core_builders import (RECORD, Harness, behavior, flow_box, inputs, link, script_box,
                           stopped)

from naoqi_qicore.converter import loader
from naoqi_qicore.converter.loader import load_converted
from naoqi_qicore.converter.writer import write_converted
from naoqi_qicore.core import dependencies, script
from naoqi_qicore.core.guard import BoxCodeGuard
from naoqi_qicore.xar.errors import XarError
from naoqi_qicore.xar.model import Box, Script

#: a script with code objects nested at every depth (methods, a nested function, a
#: lambda, a comprehension, a generator expression); its unique comment keeps it out of
#: what other tests compiled
NESTED = """# load scale test script
class MyClass(GeneratedClass):
    def onLoad(self):
        def twice(value):
            return [value * 2 for _ in range(1)][0]
        self.scale = lambda value: twice(value)

    def onInput_onStart(self):
        if sum(x for x in range(3)) == 3:
            raise ValueError("failed at line 10")
"""


def _chain(count, code):
    """A root holding ``count`` boxes running ``code``, chained onStopped -> onStart."""
    boxes = [script_box("Box%d" % index, index, code) for index in range(1, count + 1)]
    links = [link(0, 2, 1, 2)] + [link(index, 4, index + 1, 2) for index in range(1, count)]
    return flow_box("root", -1, boxes, links)


def _code_objects(code):
    yield code
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            yield from _code_objects(constant)


def test_identical_scripts_compile_once_and_their_boxes_share_the_code(make_harness,
                                                                       monkeypatch):
    compiled = []
    real_compile = script._compile
    monkeypatch.setattr(script, "_compile",
                        lambda source: compiled.append(source) or real_compile(source))
    root = _chain(6, NESTED)
    root.timeline.layers[0].keyframes[0].diagram.boxes.append(
        script_box("Alone", 7, NESTED.replace("# load scale", "# alone: load scale")))
    harness = make_harness(root)
    harness.player.load()
    assert compiled == [NESTED, NESTED.replace("# load scale", "# alone: load scale")]
    guard, behavior_id = harness.player.guard, harness.player.behavior_id
    boxes = {box.path: box for box in harness.player.boxes() if box.parent is not None}
    shared = "<box script %s (%s)>" % (script.script_key(NESTED), behavior_id)
    methods = {path: sorted((value.__code__ for value in vars(type(box.instance)).values()
                             if isinstance(value, types.FunctionType)),
                            key=lambda code: code.co_name)
               for path, box in boxes.items()}
    alone = methods.pop("root/Alone")
    assert len(methods) == 6 and all(len(codes) == 2 for codes in methods.values())
    first = methods["root/Box1"]
    for codes in methods.values():
        assert all(code is code_of_first for code, code_of_first in zip(codes, first))
    assert {code.co_filename for method in first for code in _code_objects(method)} == {shared}
    # a script of one box keeps the box's own file name
    assert {code.co_filename for method in alone for code in _code_objects(method)} == {
        guard.script_filename("root/Alone")}
    # the cached code keeps its own name: the next behavior renames it again
    assert script.compile_box_script(NESTED).co_filename.startswith("<box script ")


#: a script whose code asks which box runs it, from a method, a lambda without ``self``
#: and a function of the script called by the method
WHERE = """# load scale test: which box runs
def helper():
    return where()

class MyClass(GeneratedClass):
    def onInput_onStart(self):
        self.seen = (where(), (lambda: where())(), helper())
"""


def test_the_boxes_sharing_a_script_are_told_apart_in_their_code(make_harness):
    harness = make_harness(_chain(3, WHERE))
    harness.player.load()
    guard = harness.player.guard
    harness.player._scripts.globals["where"] = guard.current_box
    boxes = [box for box in harness.player.boxes() if box.parent is not None]
    for box in boxes:  # called outside guard.run: the frames alone tell the box
        box.instance.onInput_onStart()
    assert [box.instance.seen for box in boxes] == [(box.path,) * 3 for box in boxes]
    # run as the box's code (a callback), a function of the script is that box's code
    helper = harness.player._scripts.globals["helper"]
    assert guard.run("root/Box2", helper) == "root/Box2"
    assert helper() is None


def test_a_load_error_in_a_shared_script_names_each_box(make_harness):
    failing = "# load scale test: failing at load\nclass MyClass(GeneratedClass):\n" \
              "    def __init__(self):\n        raise ValueError('no ' + self.boxName)\n"
    harness = make_harness(_chain(2, failing))
    harness.player.load()
    errors = sorted(harness.player.errors, key=lambda error: error.box_path)
    assert [error.box_path for error in errors] == ["root/Box1", "root/Box2"]
    for error in errors:
        assert '<box %s (%s)>", line 4, in __init__' % (
            error.box_path, harness.player.behavior_id) in error.traceback
        assert "raise ValueError('no ' + self.boxName)" in error.traceback


def test_a_failure_in_a_shared_script_names_its_box_and_line(make_harness):
    harness = make_harness(_chain(3, NESTED))
    harness.player.load()
    harness.player.play()
    harness.settle()
    error = harness.player.errors[0]
    assert error.box_path == "root/Box1"
    assert '<box root/Box1 (%s)>", line 10' % harness.player.behavior_id in error.traceback
    assert 'raise ValueError("failed at line 10")' in error.traceback


def test_each_box_gets_the_class_its_own_script_defines(make_harness):
    """The ``MyClass`` its script binds, else the last class deriving from its
    GeneratedClass that it defines, else its GeneratedClass; never a class an earlier
    box's script left in the shared globals (found without copying the globals)."""
    scripts = {
        "Mine": "class MyClass(GeneratedClass):\n    kind = 'mine'\n",
        "Named": "class Helper(object):\n    pass\n\n"
                 "class Greeter(GeneratedClass):\n    kind = 'named'\n",
        "Alias": "class Impl(GeneratedClass):\n    kind = 'alias'\n\nMyClass = Impl\n",
        "Plain": "def helper():\n    return 1\n",
    }
    boxes = [Box(name, number, inputs=inputs(), outputs=[stopped()], script=Script(4, code))
             for number, (name, code) in enumerate(scripts.items(), 1)]
    harness = make_harness(flow_box("root", -1, boxes, []))
    harness.player.load()
    classes = {box.name: (type(box.instance).__name__, getattr(box.instance, "kind", None))
               for box in harness.player.boxes() if box.parent is not None}
    assert classes == {"l1_Mine": ("MyClass", "mine"), "l1_Named": ("Greeter", "named"),
                       "l1_Alias": ("Impl", "alias"), "l1_Plain": ("GeneratedClass", None)}


def test_missing_dependencies_reads_each_distinct_script_once(monkeypatch):
    read = []
    real_imported_names = dependencies.imported_names
    monkeypatch.setattr(dependencies, "imported_names",
                        lambda source: read.append(source) or real_imported_names(source))
    scripts = ["import yaml\n"] * 40 + ["import cv2.aruco\n"] * 40
    missing = dependencies.missing_dependencies(scripts, installed=lambda name: False,
                                                distribution_installed=lambda name: False)
    assert sorted(read) == ["import cv2.aruco\n", "import yaml\n"]
    assert missing.modules == ("cv2", "yaml")
    assert missing.packages == ("opencv-python", "PyYAML")


def test_box_loggers_are_made_when_first_used(make_harness):
    root = _chain(2, RECORD)
    root.timeline.layers[0].keyframes[0].diagram.boxes[0].name = "LoggerScaleBox"
    harness = make_harness(root)
    harness.player.load()
    box = harness.player.box_named("l1_LoggerScaleBox")
    assert box is not None
    assert "logger" not in vars(box)
    logger = box.instance.logger
    assert logger is box.logger and logger.name == "naoqi_qicore.box.l1_LoggerScaleBox"
    # one per box of each behavior (two behaviors may have boxes of one name), under the
    # boxes' logger of logging's registry
    assert logger.name not in logging.Logger.manager.loggerDict
    assert logger.parent is logging.getLogger("naoqi_qicore.box")


def test_a_diagram_makes_its_routes_when_it_first_routes_a_signal(make_harness):
    """Loading builds every diagram of a behavior, which runs a few: the table of where
    each link leads is made by the diagram's first signal, and the signals follow it."""
    harness = make_harness(_chain(3, RECORD))
    harness.player.load()
    diagram = harness.player.box_named("l1_Box1").diagram
    assert "routes" not in vars(diagram)
    harness.player.play()
    harness.settle()
    assert "routes" in vars(diagram)
    assert diagram.routes[(1, 4)] == [(2, 2)] and diagram.routes[(0, 2)] == [(1, 2)]
    assert [entry[:2] for entry in harness.log if entry[1] == "onStart"] == [
        ("l1_Box1", "onStart"), ("l1_Box2", "onStart"), ("l1_Box3", "onStart")]


@pytest.mark.parametrize("enabled", [True, False])
def test_building_the_boxes_pauses_the_collector_and_restores_it(make_harness, enabled):
    seen = []
    root = _chain(3, "def __init__(self):\n    GeneratedClass.__init__(self)\n"
                     "    record(gc_enabled())\n")
    harness = make_harness(root)
    harness.player._environment = lambda context: _with_names(
        harness._environment(context), gc_enabled=gc.isenabled)
    (gc.enable if enabled else gc.disable)()
    try:
        harness.player.load()
        seen = [entry[0] for entry in harness.log]
        assert gc.isenabled() is enabled
    finally:
        gc.enable()
    assert seen == [False, False, False]


def test_a_behavior_loaded_after_another_frees_the_one_before():
    """The collector pause moves what a load allocated to the oldest generation, which
    Python collects only now and then: unloading collects, so that a process loading
    behavior after behavior (behavior/load) keeps none of those it unloaded."""
    boxes = []
    for _ in range(4):
        harness = Harness(_chain(3, NESTED))
        harness.player.load()
        boxes.append(weakref.ref(harness.player.root))
        harness.player.unload()
        del harness
    assert [box() is None for box in boxes] == [True, True, True, False]


def _with_names(environment, **names):
    environment.names.update(names)
    return environment


@pytest.mark.parametrize("enabled", [True, False])
def test_reading_a_folder_pauses_the_collector_and_restores_it(tmp_path, monkeypatch, enabled):
    write_converted(behavior(_chain(3, NESTED)), tmp_path / "out")
    seen = []
    for reader in ("_read_open", "_read_pieces"):  # the box index is read in pieces
        real = getattr(loader, reader)
        monkeypatch.setattr(loader, reader, lambda *args, real=real:
                            seen.append(gc.isenabled()) or real(*args))
    (gc.enable if enabled else gc.disable)()
    try:
        loaded = load_converted(tmp_path / "out")
        assert gc.isenabled() is enabled
    finally:
        gc.enable()
    # the box index, the manifest, the root's .xml (it has no script), three .xml and .py
    assert len(seen) == 9 and not any(seen)
    assert sorted(loaded.code) == ["l0_root", "l1_Box1", "l1_Box2", "l1_Box3"]


def test_a_folder_keeps_one_string_per_distinct_script(tmp_path):
    write_converted(behavior(_chain(3, NESTED)), tmp_path / "out")
    loaded = load_converted(tmp_path / "out")
    boxes = list(loaded.behavior.root.children())
    assert [box.script.content for box in boxes] == [NESTED] * 3
    assert boxes[0].script.content is boxes[1].script.content is boxes[2].script.content
    assert loaded.code["l1_Box1"] is loaded.code["l1_Box2"] is loaded.code["l1_Box3"]


def test_a_too_large_box_file_is_refused_by_name(tmp_path, monkeypatch):
    write_converted(behavior(_chain(2, NESTED)), tmp_path / "out")
    path = tmp_path / "out" / "l1_Box2.xml"
    path.write_text(path.read_text() + "\n" * 5000)  # blank lines after the root element
    limit = path.stat().st_size - 1
    assert all(other.stat().st_size <= limit for other in (tmp_path / "out").glob("*.xml")
               if other != path)
    monkeypatch.setattr(loader, "MAX_DOCUMENT_BYTES", limit)
    with pytest.raises(XarError, match=r"l1_Box2\.xml: file too large"):
        load_converted(tmp_path / "out")
    monkeypatch.setattr(loader, "MAX_DOCUMENT_BYTES", limit + 1)
    assert "l1_Box2" in load_converted(tmp_path / "out").code


def test_a_missing_code_file_is_named(tmp_path):
    write_converted(behavior(_chain(2, NESTED)), tmp_path / "out")
    (tmp_path / "out" / "l1_Box2.py").unlink()
    with pytest.raises(XarError, match=r"l1_Box2\.py: cannot read: No such file"):
        load_converted(tmp_path / "out")


def test_box_files_keep_their_lines_for_errors(tmp_path):
    write_converted(behavior(_chain(2, NESTED)), tmp_path / "out")
    path = tmp_path / "out" / "l1_Box1.xml"
    lines = path.read_text().splitlines()
    index = next(number for number, line in enumerate(lines) if "<Input " in line)
    lines[index] = lines[index].replace(' id="', ' id="x')
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(XarError, match=r"l1_Box1\.xml:%d: <Input>: .*'id'" % (index + 1)):
        load_converted(tmp_path / "out")


def test_boxes_of_one_path_run_their_own_scripts(make_harness):
    """Two boxes of one name in one diagram hold boxes of one path: their scripts, one
    file name, are each run as written."""
    texts = [script_box("Text", 1, "class MyClass(GeneratedClass):\n    text = %r\n" % text)
             for text in ("Un", "Deux")]
    groups = [flow_box("Say", number, [text], []) for number, text in enumerate(texts, 1)]
    harness = make_harness(flow_box("root", -1, groups, []))
    harness.player.load()
    assert [box.instance.text for box in harness.player.boxes()
            if box.path == "root/Say/Text"] == ["Un", "Deux"]


#: shared code failing in a method (its ``self`` tells the box) with a cause raised in a
#: function of the script (no ``self``: the box whose code failed is named)
CHAINED = """class Thing(object):
    def __init__(self, path):
        self.path = path

    def fail(self):
        try:
            helper()
        except KeyError as error:
            raise ValueError(self.path) from error

def helper():
    raise KeyError("x")
"""


def test_a_traceback_of_shared_code_names_the_box_each_frame_runs():
    guard = BoxCodeGuard("behavior-9", box_of=lambda thing: getattr(thing, "path", None))
    filename = guard.shared_script_filename("k1", "root/A")
    assert guard.shared_script_filename("k1", "root/B") == filename
    namespace = {}
    exec(script.compile_box_script(CHAINED, filename), namespace)
    with pytest.raises(ValueError) as failure:
        namespace["Thing"]("root/B").fail()
    text = guard.format_exception(failure.value, "root/A")
    assert '"<box root/B (behavior-9)>", line 9, in fail' in text
    assert '"<box root/B (behavior-9)>", line 7, in fail' in text  # the cause's stack
    assert '"<box root/A (behavior-9)>", line 12, in helper' in text
    assert 'raise KeyError("x")' in text and filename not in text
    script.forget_box_scripts([filename])


BLOCKING = """import os

def block(gate):
    os.read(gate, 1)
"""


def test_a_straggler_in_shared_code_is_located_in_its_box():
    guard = BoxCodeGuard("behavior-8")
    filename = guard.shared_script_filename("k2", "root/A")
    guard.shared_script_filename("k2", "root/B")
    namespace = {}
    exec(script.compile_box_script(BLOCKING, filename), namespace)
    gate = os.pipe()
    thread = threading.Thread(target=guard.run, args=("root/B", namespace["block"], gate[0]))
    thread.start()
    try:
        deadline = time.monotonic() + 5
        while "root/B" not in guard.box_threads() or not guard._lines:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        stragglers = guard.close(time.monotonic() + 0.2)
        assert [(straggler.box_path, straggler.location) for straggler in stragglers] == [
            ("root/B", "<box root/B (behavior-8)>:4: os.read(gate, 1)")]
    finally:
        os.write(gate[1], b"x")
        thread.join(5)
        for end in gate:
            os.close(end)
        script.forget_box_scripts([filename])


def test_no_audit_hook_is_installed_before_box_code_runs_through_a_guard():
    """The guard's audit hook runs for every audited event of the process (each ``exec``
    of a box script, each ``id()``, each file opened): a guard installs it when box code
    first runs through it, where a socket it opens still belongs to the behavior."""
    code = textwrap.dedent("""
        import socket
        from naoqi_qicore.core import guard
        box_guard = guard.BoxCodeGuard("behavior-1")
        assert not guard._audit_installed
        opened = box_guard.run("root/Server", socket.socket)
        assert guard._audit_installed
        assert opened in box_guard._sockets
        opened.close()
    """)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    environment = dict(os.environ, PYTHONPATH=root)
    subprocess.run([sys.executable, "-c", code], check=True, env=environment, timeout=60)
