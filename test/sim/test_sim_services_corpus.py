"""Every (service, method) that at least two corpus behaviors call on a proxy is served.

Proxies are found as ``x = ALProxy("S")`` / ``x = <...>.service("S")`` assignments (then
``x.m(`` and ``x.post.m(`` calls), direct ``ALProxy("S").m(`` calls, and the globals NAOqi
gives box scripts (ALFrameManager, ALLeds, ALMemory, ALMotion).
"""
import collections
import re
from typing import Dict, Iterator, Set, Tuple

from lxml import etree

from naoqi_qicore.robot.sim.services import SERVICE_CLASSES

# Served by the simulated robot's core, not by these services.
CORE_SERVICES = {"ALMemory", "ALMotion", "ALAutonomousLife"}
BOX_GLOBALS = ("ALFrameManager", "ALLeds", "ALMemory", "ALMotion")

_NAME = r"""\(\s*["'](\w+)["']"""
_ASSIGNED = re.compile(r"([\w.]+)\s*=\s*(?:ALProxy|[\w.()]*\.service)" + _NAME)
_DIRECT = re.compile(r"(?:ALProxy|\.service)" + _NAME + r"[^)]*\)\s*\.\s*(?:post\s*\.\s*)?(\w+)\s*\(")


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
    proxies = [(m.group(1), m.group(2)) for m in _ASSIGNED.finditer(script)]
    proxies += [(name, name) for name in BOX_GLOBALS]
    found = {(m.group(1), m.group(2)) for m in _DIRECT.finditer(script)}
    for variable, service in proxies:
        call = re.compile(r"(?<![\w.])" + re.escape(variable) +
                          r"\s*\.\s*(?:post\s*\.\s*)?(\w+)\s*\(")
        found.update((service, m.group(1)) for m in call.finditer(script))
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
"""
    assert _calls(script) == {
        ("ALTextToSpeech", "say"), ("ALTextToSpeech", "wait"), ("ALLeds", "fadeRGB"),
        ("ALTabletService", "showWebview"), ("ALFrameManager", "getBehaviorPath")}


def test_methods_used_by_two_corpus_files_are_served(corpus_dir):
    users = corpus_calls(corpus_dir / "files")
    assert users, "the corpus scan found no proxy calls"
    missing = sorted("%s.%s (%d files)" % (service, method, len(files))
                     for (service, method), files in users.items()
                     if len(files) >= 2 and service not in CORE_SERVICES
                     and not callable(getattr(SERVICE_CLASSES.get(service), method, None)))
    assert missing == []
