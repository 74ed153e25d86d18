"""Every (service, member) that at least two corpus behaviors use on a proxy is served.

Proxies are found as ``x = ALProxy("S")`` / ``x = <...>.service("S")`` assignments (then
``x.m(`` and ``x.post.m(`` calls and ``x.signal.connect(`` signal connections), direct
``ALProxy("S").m(`` calls, and the globals NAOqi gives box scripts (ALFrameManager, ALLeds,
ALMemory, ALMotion).  Comment lines and text inside triple-quoted strings (HTML and
JavaScript pages a box writes) are not box code and are skipped.
"""
import collections
import re
from typing import Dict, Iterator, Set, Tuple

import pytest
import qi
from lxml import etree

from naoqi_qicore.robot.sim.context import SimContext
from naoqi_qicore.robot.sim.robot import core_service_classes
from naoqi_qicore.robot.sim.services import SERVICE_CLASSES

BOX_GLOBALS = ("ALFrameManager", "ALLeds", "ALMemory", "ALMotion")
ALL_CLASSES = {**SERVICE_CLASSES, **core_service_classes()}

_NAME = r"""\(\s*["'](\w+)["']"""
_ASSIGNED = re.compile(r"([\w.]+)\s*=\s*(?:ALProxy|[\w.()]*\.service)" + _NAME
                       + r"[^)\n]*\)\s*;?\s*(?:#.*)?$", re.MULTILINE)
_DIRECT = re.compile(r"(?:ALProxy|\.service)" + _NAME + r"[^)]*\)\s*\.\s*(?:post\s*\.\s*)?(\w+)\s*\(")
_NOT_CODE = re.compile(r'""".*?"""|\'\'\'.*?\'\'\'|^[ \t]*#[^\n]*', re.DOTALL | re.MULTILINE)


def _scripts(path) -> Iterator[str]:
    try:
        root = etree.parse(str(path), etree.XMLParser(recover=True, huge_tree=True)).getroot()
    except etree.XMLSyntaxError:
        return
    for element in root.iter():
        parent = element.getparent()
        if (isinstance(element.tag, str) and etree.QName(element).localname == "content"
                and parent is not None and etree.QName(parent).localname == "script"
                and element.text):
            yield element.text


def _calls(script: str) -> Set[Tuple[str, str]]:
    script = _NOT_CODE.sub("", script)
    proxies = [(m.group(1), m.group(2)) for m in _ASSIGNED.finditer(script)]
    proxies += [(name, name) for name in BOX_GLOBALS]
    found = {(m.group(1), m.group(2)) for m in _DIRECT.finditer(script)}
    for variable, service in proxies:
        use = re.compile(r"(?<![\w.])" + re.escape(variable) + r"\s*\.\s*(?:post\s*\.\s*)?"
                         r"(\w+)\s*(?:\(|\.\s*connect\s*\()")
        found.update((service, m.group(1)) for m in use.finditer(script))
    return found


def corpus_calls(files_dir) -> Dict[Tuple[str, str], Set[str]]:
    """(service, method) -> names of the corpus files calling it."""
    users: Dict[Tuple[str, str], Set[str]] = collections.defaultdict(set)
    for path in sorted(files_dir.glob("*.xar")):
        for script in _scripts(path):
            for pair in _calls(script):
                users[pair].add(path.name)
    return users


def test_scanner_finds_assigned_direct_posted_and_global_calls():
    script = """
self.tts = ALProxy("ALTextToSpeech")
id = self.tts.post.say("hi")
self.tts.wait(id, 0)
ALProxy("ALLeds").fadeRGB("FaceLeds", 0xff, 1)
tablet = self.session().service("ALTabletService")
tablet.showWebview()
ALFrameManager.getBehaviorPath(self.behaviorId)
self.manager = self.session().service("ALServiceManager")
self.link = self.manager.serviceStopped.connect(self.onStopped)
# self.manager.serviceStarted.connect(self.onStarted)
self.signal = self.session().service("ALMemory").subscriber("Key").signal
self.signal.connect(self.onKey)
page = '''session.service("ALMemory").done(function (m) { m.raiseEvent("a", 1); });'''
"""
    assert _calls(script) == {
        ("ALTextToSpeech", "say"), ("ALTextToSpeech", "wait"), ("ALLeds", "fadeRGB"),
        ("ALTabletService", "showWebview"), ("ALFrameManager", "getBehaviorPath"),
        ("ALServiceManager", "serviceStopped"), ("ALMemory", "subscriber")}


@pytest.fixture(scope="module")
def served_services():
    """Every simulated service of NAO and of Pepper, built in-process (name -> object)."""
    contexts = [SimContext(robot, {name: cls for name, cls in ALL_CLASSES.items()
                                   if robot in cls.ROBOTS}) for robot in ("pepper", "nao")]
    services = {}
    for context in contexts:
        services.update(context.build_all())
    yield services
    for context in contexts:
        context.close()


def _serves(services, service: str, member: str) -> bool:
    """True when the simulated ``service`` has a method or a signal named ``member``."""
    instance = services.get(service)
    return instance is not None and (callable(getattr(type(instance), member, None))
                                     or isinstance(vars(instance).get(member), qi.Signal))


def test_methods_and_signals_used_by_two_corpus_files_are_served(corpus_dir, served_services):
    users = corpus_calls(corpus_dir / "files")
    assert users, "the corpus scan found no proxy calls"
    assert ("ALServiceManager", "serviceStopped") in users
    missing = sorted("%s.%s (%d files)" % (service, member, len(files))
                     for (service, member), files in users.items()
                     if len(files) >= 2 and not _serves(served_services, service, member))
    assert missing == []


_SERVICE_NAMED = re.compile(r"""(?:ALProxy|\.service)\(\s*u?["'](\w+)["']""")
_QICHAT_CALL = re.compile(r"\^p?[cC]all\(\s*([\w.-]+?)\.\w+\s*\(")


def corpus_services(corpus_dir) -> Dict[str, Set[str]]:
    """Service name -> the corpus projects naming it in box scripts (``ALProxy("S")``,
    ``....service("S")``) or calling it from QiChat (``^call(S.method(...))``)."""
    users: Dict[str, Set[str]] = collections.defaultdict(set)
    for path in sorted((corpus_dir / "files").glob("*.xar")):
        for script in _scripts(path):
            for name in _SERVICE_NAMED.findall(_NOT_CODE.sub("", script)):
                users[name].add(path.stem)
    projects = corpus_dir / "projects"
    for path in sorted(projects.rglob("*.xar")) + sorted(projects.rglob("*.top")):
        project = path.relative_to(projects).parts[0]
        if path.suffix == ".xar":
            names = [n for s in _scripts(path) for n in _SERVICE_NAMED.findall(
                _NOT_CODE.sub("", s))]
        else:
            names = _QICHAT_CALL.findall(path.read_text(encoding="utf-8-sig", errors="replace"))
        for name in names:
            users[name].add(project)
    return users


def test_services_named_by_two_corpus_projects_are_simulated(corpus_dir):
    users = corpus_services(corpus_dir)
    assert len(users["ALTextToSpeech"]) >= 2
    missing = sorted("%s (%d projects)" % (name, len(projects))
                     for name, projects in users.items()
                     if len(projects) >= 2 and name not in ALL_CLASSES)
    assert missing == []
