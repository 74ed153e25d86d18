"""A small Pepper application of our own whose logic is a service, as real ones are: its
``manifest.xml`` declares services, an stk-style library ("Studio Toolkit", shipped in
``scripts/stk/``) registers the service and runs it, everything written for Python 2, and
a behavior whose "Run App Script"-like box starts the service and waits for its end."""
import functools
import sys
from pathlib import Path
from textwrap import dedent
from typing import Dict

import qi

from naoqi_qicore.converter.api import convert_in_project
from naoqi_qicore.converter.loader import load_converted
from naoqi_qicore.core import BehaviorPlayer
from naoqi_qicore.robot.naoqi_compat import box_environment
from naoqi_qicore.robot.robot_apps import install_on_robot
from naoqi_qicore.robot.sim import SimulatedRobot

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "test" / "ros"))
from script_behaviors import script_behavior  # noqa: E402

PACKAGE_ID = "greeter-app"

STK_RUNNER = '''\
"""Runs a service class the way Aldebaran's stk.runner does (Python 2)."""
import sys
import qi

def init(qi_url=None):
    if qi_url:
        sys.argv.extend(["--qi-url", qi_url])
    return qi.Application()

def run_service(service_class, service_name=None):
    qiapp = init()
    qiapp.start()
    instance = service_class(qiapp)
    name = service_name or service_class.__name__
    service_id = qiapp.session.registerService(name, instance)
    print "registered %s" % name
    qiapp.run()
    print "run returned"
    if hasattr(instance, "on_stop"):
        instance.on_stop()
    qiapp.session.unregisterService(service_id)
    print "unregistered"
'''

STK_SERVICES = '''\
"""Services by attribute, as stk.services.ServiceCache (Python 2)."""

class ServiceCache(object):
    def __init__(self, session):
        self.session = session
        self.services = {}

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if not self.services.has_key(name):
            try:
                self.services[name] = self.session.service(name)
            except RuntimeError, error:
                print "no service %s: %s" % (name, error)
                return None
        return self.services[name]
'''

#: the application's main service: registers ALGreeter, which speaks and shows a page;
#: its ``stop()`` ends the service (it exits by itself)
GREETER = '''\
# -*- coding: utf-8 -*-
import os
import subprocess
import sys

import qi
import stk.runner
import stk.services
from naoqi import ALProxy

class ALGreeter(object):
    def __init__(self, qiapp):
        self.qiapp = qiapp
        self.s = stk.services.ServiceCache(qiapp.session)
        memory = ALProxy("ALMemory")
        memory.insertData("Greeter/Folder", os.getcwd())
        memory.insertData("Greeter/Path", [entry for entry in sys.path if "site-packages" not in entry
                                           and "python3" not in entry])
        try:
            import planted
            memory.insertData("Greeter/Planted", planted.__file__)
        except ImportError, error:
            memory.insertData("Greeter/Planted", "")
        # a process of its own, which the service's end must end too
        helper = subprocess.Popen(["sleep", "60"])
        memory.insertData("Greeter/Helper", helper.pid)

    @qi.bind(returnType=qi.Bool, paramsType=[qi.String])
    def greet(self, name):
        self.s.ALTextToSpeech.say("hello %s" % name)
        self.s.ALTabletService.showWebview("http://198.18.0.1/apps/greeter-app/index.html")
        print "greeted", name
        return True

    @qi.bind(returnType=qi.Void, paramsType=[])
    def stop(self):
        self.qiapp.stop()

if __name__ == "__main__":
    print "starting greeter"
    stk.runner.run_service(ALGreeter)
'''

#: a service that fails while it starts: a module of the application missing
CRASHING = '''\
import stk.runner
print "about to fail"
import missing_module_of_the_app
'''

#: a service started with the application, registering a service the boxes call
ANNOUNCER = '''\
import qi
import stk.runner

class ALAnnouncer(object):
    def __init__(self, qiapp):
        self.qiapp = qiapp

    @qi.bind(returnType=qi.String, paramsType=[])
    def motto(self):
        return "always greet"

if __name__ == "__main__":
    stk.runner.run_service(ALAnnouncer)
'''

#: a service reacting to people with ALPeoplePerception's own qi signal (NAOqi 2.5+) and
#: picking its topic by the QiChat code of the robot's language; it ends once it greeted
WELCOMER = '''\
import qi
import stk.runner
import stk.services

class ALWelcomer(object):
    def __init__(self, qiapp):
        self.qiapp = qiapp
        self.s = stk.services.ServiceCache(qiapp.session)
        dialog = self.s.ALDialog
        self.topic = "welcome_%s.top" % dialog.convertLongToNU(dialog.getLanguage())
        self.s.ALPeoplePerception.justArrived.connect(self.on_arrival)

    @qi.nobind
    def on_arrival(self, person):
        self.s.ALMemory.insertData("Welcomer/Arrived", [person, self.topic])
        self.qiapp.stop()

if __name__ == "__main__":
    stk.runner.run_service(ALWelcomer)
'''

#: the box that starts a service of its application and ends when the service ends (as
#: Choregraphe's "Run App Script" box), then greets through the service it registered
RUNS_THE_SERVICE = '''
def onLoad(self):
    self.manager = self.session().service("ALServiceManager")
    self.name = self.packageUid() + "." + "%(service)s"
    self.link = None
def onInput_onStart(self):
    self.link = self.manager.serviceStopped.connect(self.onServiceStopped)
    if not self.manager.startService(self.name):
        self.logger.info("Failed to start App Script %%s" %% self.name)
        self.onStopped()
        return
    %(then)s
def onServiceStopped(self, name, reason):
    if name == self.name:
        ALProxy("ALMemory").insertData("Test/StopReason", reason)
        self.onStopped()
def onUnload(self):
    if self.link is not None:
        self.manager.serviceStopped.disconnect(self.link)
'''

GREETS = '''for attempt in range(200):
        if "ALGreeter" in [info["name"] for info in self.session().services()]:
            break
        time.sleep(0.05)
    greeter = self.session().service("ALGreeter")
    greeter.greet("Ada")
    # its stop() ends its process: the answer may never come (as on a robot), so the box
    # does not wait for it; the end of the service is what it waits for
    greeter.stop(_async=True)'''

#: once the service registered, someone comes to the robot
WELCOMES = '''for attempt in range(200):
        if "ALWelcomer" in [info["name"] for info in self.session().services()]:
            break
        time.sleep(0.05)
    self.session().service("ALPeoplePerception").simulatePersonArrives(1.0)'''

#: a box calling, when the behavior loads, a service the application's autorun service
#: registered
CALLS_THE_ANNOUNCER = '''
def onInput_onStart(self):
    ALProxy("ALMemory").insertData("Test/Motto", self.session().service("ALAnnouncer").motto())
    self.onStopped()
'''


def _manifest(services: Dict[str, str]) -> str:
    declared = "".join('<service name="%s" execStart="%s" autorun="%s"/>' % (
        name, command.split("|")[0], "true" if command.endswith("|autorun") else "false")
        for name, command in services.items())
    return ('<?xml version="1.0" encoding="UTF-8" ?>\n<package uuid="%s" version="1.0.0">'
            '<names><name lang="en_US">Greeter</name></names><contents><behaviorContent '
            'path="behavior_1"><nature>interactive</nature></behaviorContent></contents>'
            '<services>%s</services></package>\n' % (PACKAGE_ID, declared))


def python_app_project(folder: Path, box_code: str) -> Path:
    """``folder/app/``: Choregraphe's "Python App" layout: the behavior in the project's
    own folder, beside the application's service ``main.py`` (:data:`GREETER`, declared
    as ``PythonAppMain``) and its ``stk``; returns the project folder."""
    project = folder / "app"
    (project / "stk").mkdir(parents=True)
    (project / "manifest.xml").write_text(_manifest({"PythonAppMain": "main.py"}).replace(
        'path="behavior_1"', 'path="."'))
    (project / "app.pml").write_text(
        '<?xml version="1.0" encoding="UTF-8" ?>\n<Package name="app" format_version="4">'
        '<BehaviorDescriptions><BehaviorDescription name="behavior" src="." '
        'xar="behavior.xar" /></BehaviorDescriptions></Package>\n')
    (project / "stk" / "__init__.py").write_text('"""stk"""\n')
    (project / "stk" / "runner.py").write_text(STK_RUNNER)
    (project / "stk" / "services.py").write_text(STK_SERVICES)
    (project / "main.py").write_text(GREETER)
    script_behavior(project, "behavior", dedent(box_code))
    return project


def service_project(folder: Path, box_code: str, services: Dict[str, str]) -> Path:
    """``folder/project/``: the application :data:`PACKAGE_ID` declaring ``services``
    (name -> execStart, ``|autorun`` appended for an autorun one), with the scripts above
    in ``scripts/`` (``main.py``: :data:`GREETER`, ``crash.py``: :data:`CRASHING`,
    ``announcer.py``: :data:`ANNOUNCER`, ``welcomer.py``: :data:`WELCOMER`) and stk in ``scripts/stk/``, and behavior_1
    whose Script box runs ``box_code``; returns the project folder."""
    project = folder / "project"
    (project / "scripts" / "stk").mkdir(parents=True)
    (project / "html").mkdir()
    (project / "html" / "index.html").write_text("<html>hello</html>\n")
    (project / "manifest.xml").write_text(_manifest(services))
    (project / "greeter.pml").write_text(
        '<?xml version="1.0" encoding="UTF-8" ?>\n<Package name="greeter" format_version="4">'
        '<BehaviorDescriptions><BehaviorDescription name="behavior" src="behavior_1" '
        'xar="behavior.xar" /></BehaviorDescriptions></Package>\n')
    (project / "scripts" / "stk" / "__init__.py").write_text('"""stk"""\n')
    (project / "scripts" / "stk" / "runner.py").write_text(STK_RUNNER)
    (project / "scripts" / "stk" / "services.py").write_text(STK_SERVICES)
    (project / "scripts" / "main.py").write_text(GREETER)
    (project / "scripts" / "crash.py").write_text(CRASHING)
    (project / "scripts" / "announcer.py").write_text(ANNOUNCER)
    (project / "scripts" / "welcomer.py").write_text(WELCOMER)
    (project / "behavior_1").mkdir()
    script_behavior(project / "behavior_1", "behavior", dedent(box_code))
    return project


def runs_the_service(service: str, then: str = "") -> str:
    """:data:`RUNS_THE_SERVICE` for ``service``, doing ``then`` once it started."""
    return RUNS_THE_SERVICE % {"service": service, "then": then or "pass"}


class AppRun:
    """The behavior ``behavior`` of the application ``project`` (converted into ``out``),
    installed on a simulated Pepper and played as the runner plays it."""

    def __init__(self, project: Path, out: Path,
                 behavior: str = "behavior_1/behavior.xar") -> None:
        converted = convert_in_project(project / behavior, out)
        self.loaded = load_converted(converted.behaviors[0].output)
        self.robot = SimulatedRobot(robot="pepper", listen="tcp://127.0.0.1:0").start()
        self.session = qi.Session()
        self.session.connect(self.robot.url)
        self.player = None

    def install(self):
        installed, files, warnings = install_on_robot(self.session, self.robot.url,
                                                      self.loaded)
        assert warnings == []
        return installed, files

    def play(self, seconds: float = 30.0) -> BehaviorPlayer:
        installed, files = self.install()
        self.player = BehaviorPlayer(installed.loaded, self.session, environment=functools.
                                     partial(box_environment, files=files))
        self.player.load()
        self.player.play()
        assert self.player.wait(seconds), "the run did not end"
        return self.player

    def said(self):
        return [call["args"][0] for call in self.robot.calls()
                if call["service"] == "ALTextToSpeech" and call["method"] == "say"]

    def memory(self, key):
        return self.robot.service("ALMemory").getData(key)

    def close(self) -> None:
        if self.player is not None:
            self.player.unload()
        self.session.close()
        self.robot.stop()
