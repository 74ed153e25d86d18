"""Python 2 as Python 2 ran it, beyond box scripts: indentation tabs, the Python 2 modules a
project ships (imported through the engine's import hook), and the packages box code
needs that the machine lacks."""
import json
import os
import sys
from pathlib import Path
from typing import List

import pytest

from naoqi_qicore.converter import pyport
from naoqi_qicore.converter.loader import load_converted, prepare
from naoqi_qicore.converter.writer import write_converted
from naoqi_qicore.core import BehaviorPlayer, FakeClock
from naoqi_qicore.core import dependencies
from naoqi_qicore.core.dependencies import (imported_modules, imported_names,
                                            missing_dependencies, read_requirements)
from naoqi_qicore.core.environment import ScriptEnvironment
from naoqi_qicore.core.ported_source import port_cache_dir, python3_source
from naoqi_qicore.core.project_modules import (ProjectModules, finder_installed, package_folder,
                                               python2_reason)

from core_builders import FakeSession, RecordingSink, behavior, flow_box, link, script_box

#: a box script whose indentation mixes tabs and spaces as Python 2 allowed (TabError in
#: Python 3); the tab inside the string is the string's
TABBED_BOX = ('class MyClass(GeneratedClass):\n'
              '    def onInput_onStart(self):\n'
              '\tif True:\n'
              '\t    record("tabs", "a\\tb", len("\t"))\n'
              '        self.onStopped()\n')

#: a module written for Python 2, as projects ship them in lib/
MOVECONTROL = '''# -*- coding: utf-8 -*-
import urllib2
from naoqi import ALProxy

steps = []

def walk(count):
    try:
        total = 0L
        for step in xrange(count):
            total += step
            steps.append(step)
    except ValueError, error:
        print "cannot walk", error
        raise
    print >>sys_stream(), "walked", count
    return u"%d steps, %d" % (count, total), isinstance(u"x", basestring)

def sys_stream():
    import sys
    return sys.stderr

def greeting():
\tif True:
\t    return "hé".decode("utf-8")
        return None
'''

#: a box putting its project's lib/ on sys.path, as real boxes do, and using the module
USES_MOVECONTROL = '''
import sys
def onLoad(self):
    self.folder = self.behaviorAbsolutePath().replace(self.behaviorRelativePath(), "") + "/lib"
    sys.path.append(self.folder)
def onUnload(self):
    sys.path.remove(self.folder)
def onInput_onStart(self):
    import movecontrol
    record(movecontrol.walk(4), movecontrol.greeting(), movecontrol.ALProxy.__name__,
           movecontrol.urllib2.__name__)
    self.onStopped()
'''


def one_box_root(code: str):
    box = script_box("User", 1, code)
    return flow_box("root", -1, [box], [link(0, 2, 1, 2), link(1, 4, 0, 4)])


def play(loaded, log: List, *, naoqi: bool = False, unload: bool = True) -> BehaviorPlayer:
    """Load and play ``loaded`` on an in-memory robot until it ends; box code's
    ``record(...)`` appends to ``log``."""
    def environment(context):
        if naoqi:
            from naoqi_qicore.robot.naoqi_compat import box_environment
            env = box_environment(context)
        else:
            env = ScriptEnvironment()
        env.names["record"] = lambda *entry: log.append(entry)
        return env
    player = BehaviorPlayer(loaded, FakeSession(), clock=FakeClock(), motion=RecordingSink(),
                            environment=environment)
    player.load()
    try:
        player.play()
        assert player.wait(10)
        assert player.status == "FINISHED", player.errors
    finally:
        if unload:
            player.unload()
    return player


# -- tabs ------------------------------------------------------------------------------------
def test_a_box_mixing_tabs_and_spaces_is_converted_and_runs(tmp_path):
    with pytest.raises(TabError):
        compile(TABBED_BOX, "<test>", "exec")
    out = tmp_path / "converted"
    report = write_converted(behavior(one_box_root(TABBED_BOX)), out)
    assert report.failed == {}
    code = (out / "l1_User.py").read_text()
    compile(code, "l1_User.py", "exec")
    assert 'record("tabs", "a\\tb", len("\t"))' in code  # the string's tab is kept
    log: List = []
    play(load_converted(out), log)
    assert log == [("tabs", "a\tb", 1)]


def test_a_converted_script_still_holding_tabs_runs(tmp_path):
    """A .py written by a converter that kept the script as it was (or edited by hand)."""
    out = tmp_path / "converted"
    write_converted(behavior(one_box_root("def onInput_onStart(self):\n    pass\n")), out)
    (out / "l1_User.py").write_text(TABBED_BOX)
    log: List = []
    play(load_converted(out), log)
    assert log == [("tabs", "a\tb", 1)]


def test_a_script_an_older_converter_commented_out_is_ported_again(tmp_path, monkeypatch):
    script = TABBED_BOX.replace('"tabs"', '"older"')
    out = tmp_path / "converted"
    with monkeypatch.context() as older:  # a porter that did not expand tabs
        older.setattr(pyport, "_cache", {})
        older.setattr(pyport, "expand_indentation_tabs", lambda source: source)
        report = write_converted(behavior(one_box_root(script)), out)
    assert "TabError" in report.failed["l1_User"]
    assert (out / "l1_User.py").read_text().startswith("# class MyClass")
    loaded = load_converted(out)
    assert loaded.port_errors == {}
    log: List = []
    play(loaded, log)
    assert log == [("older", "a\tb", 1)]


# -- modules shipped with the project ----------------------------------------------------------
@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project folder (manifest.xml) with behavior_1/ and lib/movecontrol.py (Python 2);
    ported modules are cached under tmp_path."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / "project"
    (folder / "behavior_1").mkdir(parents=True)
    (folder / "lib").mkdir()
    (folder / "manifest.xml").write_text('<package uuid="project-1" version="1.0"/>\n')
    (folder / "lib" / "movecontrol.py").write_text(MOVECONTROL, encoding="utf-8")
    yield folder
    for name in ("movecontrol", "modern", "broken"):
        sys.modules.pop(name, None)


def project_behavior(folder: Path, code: str):
    model = behavior(one_box_root(code))
    model.source = str(folder / "behavior_1" / "behavior.xar")
    return prepare(model)


def test_a_box_imports_a_python2_module_of_its_project(project):
    log: List = []
    player = play(project_behavior(project, USES_MOVECONTROL), log, naoqi=True, unload=False)
    assert player.project_folder == str(project)
    try:
        assert finder_installed()
        assert log == [(("4 steps, 6", True), "hé", "ALProxy", "urllib2")]
        module = sys.modules["movecontrol"]
        assert Path(module.__file__) == project / "lib" / "movecontrol.py"
        assert module.steps == [0, 1, 2, 3]
        cached = list(port_cache_dir().glob("*.py"))
        assert len(cached) == 1 and "except ValueError as error:" in cached[0].read_text()
    finally:
        player.unload()
    assert not finder_installed()
    assert "movecontrol" not in sys.modules


def test_a_ported_module_is_cached_and_not_ported_again(project, monkeypatch):
    ported: List[str] = []
    real_port = pyport.port_script

    def counting(source):
        ported.append(source)
        return real_port(source)
    monkeypatch.setattr(pyport, "port_script", counting)
    log: List = []
    play(project_behavior(project, USES_MOVECONTROL), log, naoqi=True)
    assert len(ported) == 1
    # another load, another process's porter: the cache on disk answers
    monkeypatch.setattr(pyport, "port_script", lambda source: pytest.fail("ported again"))
    play(project_behavior(project, USES_MOVECONTROL), log, naoqi=True)
    assert len(log) == 2 and log[0] == log[1]


def test_a_module_that_compiles_is_imported_as_it_is(project):
    """Python 3's builtins (a 2/3 library keeps its Python 3 paths), and the box
    environment's modules where Python has none."""
    source = ("from naoqi import ALProxy\n"
              "try:\n    text_type = unicode\nexcept NameError:\n    text_type = str\n"
              "def kinds():\n    return type(map(str, [1])).__name__, text_type.__name__\n")
    (project / "lib" / "modern.py").write_text(source)
    assert python3_source(source, "modern.py") is source
    log: List = []
    play(project_behavior(project, USES_MOVECONTROL.replace(
        "import movecontrol", "import movecontrol, modern").replace(
        "movecontrol.urllib2.__name__", "modern.kinds(), modern.ALProxy.__name__")), log,
        naoqi=True)
    assert log[0][-2:] == (("map", "str"), "ALProxy")
    assert "modern" not in sys.modules  # gone with the behavior
    assert len(list(port_cache_dir().glob("*.py"))) == 1  # movecontrol's only


def test_a_module_that_cannot_be_ported_fails_its_import_naming_file_and_line(project):
    (project / "lib" / "broken.py").write_text("import os\n\ndef f(:\n    print 'x'\n")
    log: List = []
    play(project_behavior(project, USES_MOVECONTROL.replace("""    import movecontrol
    record(movecontrol.walk(4), movecontrol.greeting(), movecontrol.ALProxy.__name__,
           movecontrol.urllib2.__name__)""", """    try:
        import broken
    except SyntaxError as error:
        record(str(error), error.filename, error.lineno)""")), log)
    [(message, filename, line)] = log
    assert Path(filename) == project / "lib" / "broken.py" and line == 3
    assert "broken.py" in message and "line 3" in message and "cannot be ported" in message


#: a box putting its project's lib/ first on sys.path and importing ``textkit``
USES_TEXTKIT = '''
import sys
def onLoad(self):
    self.folder = self.behaviorAbsolutePath().replace(self.behaviorRelativePath(), "") + "/lib"
    sys.path.insert(0, self.folder)
def onUnload(self):
    sys.path.remove(self.folder)
def onInput_onStart(self):
    import textkit
    record(textkit.VERSION, textkit.shout("hi"))
    self.onStopped()
'''


@pytest.fixture
def installed_textkit(tmp_path):
    """``textkit`` 2.1, installed for Python 3 in a site folder on sys.path (with its
    distribution's metadata, as pip leaves it)."""
    site_folder = tmp_path / "site"
    (site_folder / "textkit").mkdir(parents=True)
    (site_folder / "textkit" / "__init__.py").write_text(
        "from collections.abc import Mapping\nVERSION = 'installed'\n"
        "def shout(text):\n    return text.upper() + '!'\n")
    metadata = site_folder / "textkit-2.1.dist-info"
    metadata.mkdir()
    (metadata / "METADATA").write_text("Metadata-Version: 2.1\nName: textkit\nVersion: 2.1\n")
    (metadata / "top_level.txt").write_text("textkit\n")
    sys.path.append(str(site_folder))
    yield site_folder
    sys.path.remove(str(site_folder))
    for name in [name for name in sys.modules if name.partition(".")[0] == "textkit"]:
        del sys.modules[name]


def ship_textkit(project, vendored_line):
    """lib/textkit as an old project ships it: its vendored helper does ``vendored_line``."""
    package = project / "lib" / "textkit"
    (package / "packages").mkdir(parents=True)
    (package / "__init__.py").write_text(
        "from .packages import helpers\nVERSION = 'shipped'\n"
        "def shout(text):\n    return text.upper()\n")
    (package / "packages" / "__init__.py").write_text("")
    (package / "packages" / "helpers.py").write_text(vendored_line + "\n")


@pytest.mark.parametrize("vendored_line, why", [
    ("from collections import Mapping, MutableMapping", "(collections.Mapping)"),
    ("import urllib2", "(urllib2)"),
    ("text_type = unicode", "(unicode)")])
def test_a_python2_library_the_project_ships_gives_way_to_the_installed_one(
        project, installed_textkit, caplog, vendored_line, why):
    ship_textkit(project, vendored_line)
    caplog.set_level("WARNING", logger="naoqi_qicore.core.project_modules")
    log: List = []
    play(project_behavior(project, USES_TEXTKIT), log)
    assert log == [("installed", "HI!")]
    [line] = [record.getMessage() for record in caplog.records]
    assert line.startswith("project lib/textkit is Python 2 only %s" % why)
    assert line.endswith("; using the installed textkit 2.1")


def test_a_shipped_library_that_works_is_the_one_used(project, installed_textkit, caplog):
    ship_textkit(project, "from collections.abc import Mapping")
    log: List = []
    play(project_behavior(project, USES_TEXTKIT), log)
    assert log == [("shipped", "HI")] and "installed" not in caplog.text


def test_a_python2_library_with_no_installed_one_is_ported_and_runs(project):
    ship_textkit(project, "from collections import Mapping")
    log: List = []
    play(project_behavior(project, USES_TEXTKIT), log)
    assert log == [("shipped", "HI")]
    assert [name for name in sys.modules if name.partition(".")[0] == "textkit"] == []


#: a library written for Python 2 that compiles under Python 3 but uses what Python 3 took
#: out of the standard modules it kept, or moved
OLD_STDLIB = '''import base64, cgi, collections, inspect, itertools, os, string, sys, time, types
from collections import Mapping
import HTMLParser
import xml.etree.cElementTree as ET
from email.MIMEText import MIMEText
import email.Utils

def check(settings):
    assert isinstance(settings, Mapping) and isinstance({}, collections.MutableMapping)
    assert settings.has_key("speed") and not settings.has_key("angle")
    assert sorted(key for key, value in settings.iteritems()) == ["speed"]
    assert string.letters[:3] == "abc" and string.maketrans("a", "b")
    assert os.getcwdu() == os.getcwd() and sys.maxint == sys.maxsize
    assert base64.decodestring(base64.encodestring("nao:pepper")) == "nao:pepper"
    assert "Basic " + base64.b64encode("nao:pepper") == "Basic bmFvOnBlcHBlcg=="
    assert inspect.getargspec(check).args == ["settings"]
    assert cgi.escape("<a & 'b'>") == "&lt;a &amp; 'b'&gt;"
    assert time.clock() >= 0 and list(itertools.izip([1], [2])) == [(1, 2)]
    assert isinstance("text", types.StringTypes) and types.IntType is int
    assert HTMLParser.HTMLParser().unescape("&eacute;") == u"\\u00e9"
    assert ET.fromstring("<a><b/></a>").find("b") is not None
    assert MIMEText("hello")["Content-Type"].startswith("text/plain")
    assert email.Utils.parseaddr("NAO <nao@example.org>") == ("NAO", "nao@example.org")
    return "checked"
'''


def test_a_python2_library_using_what_python3_removed_runs(project):
    """The names fissix's fixers leave (``collections.Mapping``, ``string.letters``,
    ``dict.has_key``, ``base64.encodestring``...) in a library that compiles under Python 3:
    it is Python 2 code all the same, and runs as such."""
    (project / "lib" / "oldstdlib.py").write_text(OLD_STDLIB)
    log: List = []
    play(project_behavior(project, USES_MOVECONTROL.replace("""    import movecontrol
    record(movecontrol.walk(4), movecontrol.greeting(), movecontrol.ALProxy.__name__,
           movecontrol.urllib2.__name__)""", """    import oldstdlib
    record(oldstdlib.check({"speed": 1}))""")), log)
    assert log == [("checked",)]


@pytest.mark.parametrize("line, reason", [
    ("import urllib2", "urllib2"), ("from email.MIMEText import MIMEText", "email.MIMEText"),
    ("from collections import Mapping", "collections.Mapping"),
    ("import string\nLETTERS = string.letters", "string.letters"),
    ("import os as system\ndef here():\n    return system.getcwdu()", "os.getcwdu"),
    ("def text(value):\n    return unicode(value)", "unicode"),
    ("def known(d):\n    return d.has_key('x')", "has_key"),
    ("print 'hello'", "Python 2 syntax, line 1")])
def test_what_makes_a_module_python2(line, reason):
    assert python2_reason(line + "\n") == reason


@pytest.mark.parametrize("line", [
    "try:\n    import urllib2\nexcept ImportError:\n    import urllib.request as urllib2",
    "try:\n    text_type = unicode\nexcept NameError:\n    text_type = str",
    "unicode = str\ndef text(value):\n    return unicode(value)",
    "from collections.abc import Mapping\nimport string\nLETTERS = string.ascii_letters",
    "def items(d):\n    return d.items()"])
def test_python3_and_python2_3_modules_are_python3(line):
    assert python2_reason(line + "\n") is None


def test_execfile_of_a_python2_file(tmp_path, monkeypatch):
    from naoqi_qicore.core.script import box_builtins, compile_box_script
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    settings = tmp_path / "settings.py"
    settings.write_text("def speed():\n        if True:\n\t    return 0755L\n"
                        "print 'settings read'\n")
    namespace = {"__builtins__": box_builtins({}), "__name__": "box"}
    exec(compile_box_script("scope = {}\nexecfile(%r, scope)\nspeed = scope['speed']()\n"
                            % str(settings)), namespace)
    assert namespace["speed"] == 0o755


def test_standard_and_installed_modules_are_never_taken_over(tmp_path):
    owner = ProjectModules(["/"], {})
    assert not owner.covers(json.__file__)
    assert not owner.covers(pytest.__file__)
    assert not owner.covers(pyport.__file__)
    assert owner.covers(str(tmp_path / "lib" / "movecontrol.py"))


def test_behaviors_without_a_folder_install_no_hook():
    player = BehaviorPlayer(prepare(behavior(one_box_root(USES_MOVECONTROL))), FakeSession(),
                            clock=FakeClock(), motion=RecordingSink())
    player.load()
    try:
        assert player.project_folder is None and not finder_installed()
    finally:
        player.unload()


def test_package_folder_is_the_nearest_project_folder(tmp_path):
    behavior_folder = tmp_path / "project" / "behaviors" / "behavior_1"
    behavior_folder.mkdir(parents=True)
    assert package_folder(str(behavior_folder)) == str(behavior_folder)
    (tmp_path / "project" / "app.pml").write_text("<Package/>")
    assert package_folder(str(behavior_folder)) == str(tmp_path / "project")


# -- dependencies --------------------------------------------------------------------------
def test_imports_found_in_scripts():
    assert imported_modules(
        "import os.path, requests as r\nfrom yaml import load\nfrom . import sibling\n"
        "try:\n    import simplejson as json\nexcept ImportError:\n    import json\n"
        "def f():\n    serial = __import__('serial')\n    import cv2\n") == {
        "os", "requests", "yaml", "json", "serial", "cv2"}
    # a Python 2 script that was not ported: read line by line
    assert imported_modules("import ws4py, md5\nprint 'x'\nfrom bs4 import X\n") == {
        "ws4py", "md5", "bs4"}
    # with the names a from-import takes: a namespace package is named by them
    assert imported_names("print 'x'\nfrom google.cloud import (speech as s, vision)\n"
                          "from os import *\n") == {"google.cloud.speech",
                                                     "google.cloud.vision", "os"}


def test_missing_dependencies_of_a_behavior_and_its_project(tmp_path):
    (tmp_path / "lib" / "helpers").mkdir(parents=True)
    (tmp_path / "lib" / "movecontrol.py").write_text(
        "import bs4\nfrom helpers import tools\nprint 'Python 2'\n")
    (tmp_path / "lib" / "helpers" / "__init__.py").write_text("")
    (tmp_path / "lib" / "helpers" / "tools.py").write_text("import zmq\n")
    (tmp_path / "requirements.txt").write_text(
        "# what the boxes need\nPyYAML>=5.1\npython-xlib ; python_version >= '3'\n"
        "-r other.txt\nsome-tool==1.0  # a command line tool\n")
    scripts = [
        "import requests, os, json\nimport yaml\nimport naoqi, almath, qi, numpy\n",
        "import cv2, ws4py\nimport urllib2, thread, Queue, mutex\nimport md5\n"
        "from vision_definitions import kVGA\nfrom Xlib import display\n",
        "import sys\nsys.path.append('lib')\nimport movecontrol\n"
        "def f():\n    return __import__('serial')\n",
    ]
    found = missing_dependencies(scripts, provided=["naoqi", "almath"],
                                 project_folder=str(tmp_path),
                                 installed=lambda name: name in ("qi", "numpy"),
                                 distribution_installed=lambda name: name == "some-tool")
    assert found.modules == ("bs4", "cv2", "requests", "serial", "ws4py", "Xlib", "yaml",
                             "zmq")
    assert found.unavailable == ("vision_definitions",)  # md5: the engine gives it
    assert found.requirements == ("PyYAML", "python-xlib")
    assert found.packages == ("beautifulsoup4", "opencv-python", "pyserial", "python-xlib",
                              "PyYAML", "pyzmq", "requests", "ws4py")
    warning = found.warning()
    assert warning.count("missing Python dependencies") == 1
    assert ("pip install beautifulsoup4 opencv-python pyserial python-xlib PyYAML pyzmq "
            "requests ws4py") in warning
    assert "vision_definitions" in warning
    assert str(tmp_path / "requirements.txt") in warning


def test_project_modules_are_found_in_its_folders_until_too_many_files(tmp_path,
                                                                       monkeypatch):
    """Modules and packages are looked for top-down in name order, leaving out skipped and
    hidden folders and not following links; the listing stops at MAX_PROJECT_FILES
    files and folders seen, without listing the rest of a larger folder."""
    for folder in ("project/b/pkg", "project/a", "project/.hidden", "project/node_modules/x",
                   "elsewhere"):
        (tmp_path / folder).mkdir(parents=True)
    for name in ("b/pkg/__init__.py", "b/pkg/util.py", "a/tool.py", "main.py", "fast.so",
                 ".hidden/secret.py", "node_modules/x/n.py", "../elsewhere/far.py"):
        (tmp_path / "project" / name).write_text("")
    (tmp_path / "project" / "linked").symlink_to(tmp_path / "elsewhere")
    project = str(tmp_path / "project")
    assert list(dependencies.project_module_files(project).items()) == [
        ("fast", []), ("main", [project + "/main.py"]),
        ("tool", [project + "/a/tool.py"]), ("a", [project + "/a/tool.py"]),
        ("__init__", [project + "/b/pkg/__init__.py"]), ("util", [project + "/b/pkg/util.py"]),
        ("pkg", [project + "/b/pkg/__init__.py", project + "/b/pkg/util.py"])]
    listed = []
    scandir = dependencies.os.scandir

    class CountingListing:
        def __init__(self, path):
            self.entries = scandir(path)

        def __enter__(self):
            return self

        def __exit__(self, *error):
            self.entries.close()

        def __iter__(self):
            return self

        def __next__(self):
            entry = next(self.entries)
            listed.append(entry.name)
            return entry

    monkeypatch.setattr(dependencies.os, "scandir", CountingListing)
    monkeypatch.setattr(dependencies, "MAX_PROJECT_FILES", 3)  # the top folder holds 5
    assert dependencies.project_module_files(project) == {}
    assert len(listed) < len(os.listdir(project))  # 7 entries: the listing stopped


def test_namespace_packages_are_named_by_what_is_imported_from_them():
    found = missing_dependencies(
        ["from google.cloud import speech\nfrom google.api_core.exceptions import RetryError\n"
         "import google.cloud.texttospeech_v1\n"], installed=lambda name: False)
    assert found.modules == ("google",)
    assert found.packages == ("google-api-core", "google-cloud-speech",
                              "google-cloud-texttospeech")
    # the namespace alone names no distribution (pip's "google" is a search client)
    found = missing_dependencies(["import google\n"], installed=lambda name: False)
    assert found.unknown == ("google",) and found.packages == ()


def test_the_advice_names_only_distributions_that_provide_the_import():
    """An import name is no distribution name: a module no known distribution provides is
    named with no command; Python 2's old names are advised by their Python 3 module."""
    found = missing_dependencies(
        ["import Image, ImageDraw\nimport semantic_word\nfrom lib import helpers\n"
         "from openhab import openHAB\nimport speech_recognition as sr\n"],
        installed=lambda name: False)
    assert found.modules == ("openhab", "PIL", "speech_recognition")
    assert found.packages == ("Pillow", "python-openhab", "SpeechRecognition")
    assert found.unknown == ("lib", "semantic_word")
    warning = found.warning()
    assert "pip install Pillow python-openhab SpeechRecognition" in warning
    assert "no known package provides (modules of the project it does not ship?): lib, " \
        "semantic_word" in warning


def test_python2_standard_and_dotnet_modules_get_no_pip_command():
    found = missing_dependencies(
        ["import xmllib, popen2, dummy_threading, md5, sets\nimport clr\nfrom System import "
         "String\nfrom vision_definitions import kVGA\n"],
        installed=lambda name: name in ("threading",))
    assert found.packages == () and found.modules == () and found.unknown == ()
    assert found.unavailable == ("clr", "popen2", "System", "vision_definitions", "xmllib")
    warning = found.warning()
    assert "pip install" not in warning
    assert ("xmllib (Python 2's standard library, gone from Python 3: xml.sax or xml.etree "
            "replaces it)") in warning
    assert "popen2 (Python 2's standard library, gone from Python 3: subprocess" in warning
    assert "clr (.NET's, for IronPython: no Python package has it)" in warning
    assert "vision_definitions (NAOqi's SDK" in warning


def test_standard_modules_later_pythons_removed_are_advised_their_distributions(
        monkeypatch):
    from naoqi_qicore.core import dependencies
    monkeypatch.setattr(dependencies, "_standard_modules", lambda: frozenset({"os"}))
    found = missing_dependencies(["import asyncore, imp, distutils.core\n"],
                                 installed=lambda name: False)
    assert found.packages == ("setuptools", "standard-asyncore")
    assert found.unavailable == ("imp",)
    assert "imp (a standard module this Python removed: importlib replaces it)" in \
        found.warning()


def test_the_distribution_map_agrees_with_the_installed_distributions():
    """Each import whose distribution is installed here is one of its top-level modules."""
    import importlib.metadata
    from naoqi_qicore.core.distributions import DISTRIBUTIONS

    def normalized(name):
        return name.lower().replace("_", "-").replace(".", "-")
    provided = importlib.metadata.packages_distributions()
    checked = 0
    for module, names in DISTRIBUTIONS.items():
        for name in names:
            try:
                importlib.metadata.distribution(name)
            except importlib.metadata.PackageNotFoundError:
                continue
            checked += 1
            assert normalized(name) in map(normalized, provided.get(module, [])), (module, name)
    assert checked >= 4  # numpy, lxml, PyYAML, Pillow, python-dateutil... are installed


def test_nothing_missing_says_nothing():
    found = missing_dependencies(["import os\nimport naoqi\n"], provided=["naoqi"],
                                 installed=lambda name: False)
    assert not found and found.warning() == "" and found.pip_command == ""


def test_requirements_file_is_read_as_pip_reads_names(tmp_path):
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("# comment\n\nrequests[socks]>=2.0,<3  # http\n-e ./local\n"
                            "--index-url https://example.org/simple\n"
                            "ws4py ; python_version >= '3'\nhttps://example.org/x.whl\n"
                            "Requests\npython-xlib==0.33\n")
    assert read_requirements(str(requirements)) == ["requests", "ws4py", "python-xlib"]
    assert read_requirements(str(tmp_path / "none.txt")) == []


def test_a_loaded_behavior_tells_what_its_boxes_lack(project):
    (project / "requirements.txt").write_text("naoqi-qicore-test-absent-package\n")
    code = USES_MOVECONTROL + "def later(self):\n    import nqtest_absent_module\n"
    log: List = []
    player = play(project_behavior(project, code), log, naoqi=True, unload=False)
    try:
        found = player.missing_dependencies()
    finally:
        player.unload()
    # naoqi and almath come from the box environment; movecontrol is the project's
    assert found.unknown == ("nqtest_absent_module",) and found.modules == ()
    assert found.pip_command == "pip install naoqi-qicore-test-absent-package"
