"""An application's own files, as the standard boxes reach them on the robot: its tablet
page by its package id (the "Show App" box, with or without a trailing slash), its images
and pages, its project read and imported from the web server's folder of applications
(``/usr/local/var/www/apps/``), and the data files the standard boxes read (the Choice
box's sentences) provided when the project lacks them."""
import os
import sys
from textwrap import dedent

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from app_service_projects import PACKAGE_ID, AppRun, service_project  # noqa: E402
from naoqi_qicore.robot.box_data import CHOICE_SENTENCES  # noqa: E402
from naoqi_qicore.robot.robot_files import RobotFiles  # noqa: E402

#: a Python 2 module of the project's lib/
TICTAC = '''# -*- coding: utf-8 -*-
def name():
    print "tictac imported"
    return u"tictac"
'''

USES_THE_APPS_FILES = '''
def onInput_onStart(self):
    import sys
    import xml.dom.minidom
    memory = ALProxy("ALMemory")
    www = "/usr/local/var/www/apps/.lastUploadedChoregrapheBehavior/"
    sys.path.append(www + "lib")
    import tictac
    memory.insertData("Test/Lib", tictac.name())
    with open(www + "html/index.html") as page:
        memory.insertData("Test/Page", page.read().strip())
    with open(www + "html/made.html", "w") as page:  # a page made for the tablet
        page.write("<html>made</html>")
    tablet = self.session().service("ALTabletService")
    app = self.packageUid()
    memory.insertData("Test/ShowApp", [tablet.loadApplication(app),
                                       tablet.loadApplication(app + "/"),
                                       tablet.loadApplication("no-such-app")])
    tablet.showWebview()
    memory.insertData("Test/AppUrl", tablet.getCurrentUrl())
    tablet.showWebview("http://198.18.0.1/apps/%%s/pages/info.html?heading=Hi" %% app)
    memory.insertData("Test/PageUrl", tablet.getCurrentUrl())
    image = "http://%%s/apps/%%s/img/pic.png" %% (tablet.robotIp(), app)
    memory.insertData("Test/Image", [tablet.preLoadImage(image), tablet.showImage(image),
                                     tablet.getShownImage()])
    tablet.showWebview("http://localhost/apps/.lastUploadedChoregrapheBehavior/made.html")
    path = ALProxy("ALFrameManager").getBehaviorPath(self.behaviorId) + "/%s"
    dom = xml.dom.minidom.parseString(open(path).read())
    memory.insertData("Test/Choice", [translation.getAttribute("language") for translation
                                      in dom.getElementsByTagName("translation")])
    self.onStopped()
''' % CHOICE_SENTENCES


@pytest.fixture
def app(tmp_path):
    project = service_project(tmp_path, dedent(USES_THE_APPS_FILES), {})
    (project / "lib").mkdir()
    (project / "lib" / "tictac.py").write_text(TICTAC)
    (project / "html" / "pages").mkdir()
    (project / "html" / "pages" / "info.html").write_text("<html>info</html>\n")
    (project / "html" / "img").mkdir()
    (project / "html" / "img" / "pic.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    run = AppRun(project, tmp_path / "out")
    yield run
    run.close()


def test_boxes_reach_their_applications_files_as_on_the_robot(app, tmp_path, caplog):
    player = app.play()
    assert (player.status, player.errors) == ("FINISHED", [])
    assert app.memory("Test/Lib") == "tictac"  # imported from the web server's folder
    assert app.memory("Test/Page") == "<html>hello</html>"
    # "Show App": the application's page by its package id, a trailing slash or not
    assert app.memory("Test/ShowApp") == [True, True, False]
    assert app.memory("Test/AppUrl") == "http://198.18.0.1/apps/%s/" % PACKAGE_ID
    assert app.memory("Test/PageUrl") == (
        "http://198.18.0.1/apps/%s/pages/info.html?heading=Hi" % PACKAGE_ID)
    image = "http://198.18.0.1/apps/%s/img/pic.png" % PACKAGE_ID
    assert app.memory("Test/Image") == [True, True, image]
    tablet = app.robot.service("ALTabletService")
    assert tablet.isWebviewVisible()
    assert tablet.getCurrentUrl() == (
        "http://localhost/apps/.lastUploadedChoregrapheBehavior/made.html")
    # every page shown was one of the application's: the tablet found each
    assert not [record for record in caplog.records if "is no file" in record.getMessage()]
    # the Choice box's sentences were provided where it reads them, not in the project
    assert app.memory("Test/Choice") == ["English", "French"]
    assert not (tmp_path / "project" / "behavior_1" / "Aldebaran").exists()
    assert not (tmp_path / "project" / "html" / "made.html").exists()


def test_a_projects_own_box_data_is_kept(tmp_path):
    project = service_project(tmp_path, dedent(USES_THE_APPS_FILES), {})
    (project / "behavior_1" / "Aldebaran").mkdir()
    (project / "behavior_1" / CHOICE_SENTENCES).write_text("<sentences/>")
    run = AppRun(project, tmp_path / "out")
    try:
        installed, _ = run.install()
        assert (installed.loaded.folder / CHOICE_SENTENCES).read_text() == "<sentences/>"
    finally:
        run.close()


def test_the_web_servers_folder_of_applications_is_the_applications_folder(tmp_path):
    files = RobotFiles(tmp_path)
    www = "/usr/local/var/www/apps/.lastUploadedChoregrapheBehavior/lib"
    apps = "/home/nao/.local/share/PackageManager/apps/.lastUploadedChoregrapheBehavior/lib"
    assert files.box_path(www) == files.box_path(apps) == str(tmp_path) + apps
    assert files.robot_path(www) == apps
    assert files.local("/usr/local/var/www/apps/x/../y/a.wav").path == files.local(
        "/home/nao/.local/share/PackageManager/apps/y/a.wav").path
    # the rest of the web server's files are not the robot's files
    assert files.box_path("/usr/local/var/www/index.html") == "/usr/local/var/www/index.html"
    with pytest.raises(ValueError, match="outside the robot's files"):
        files.robot_path("/usr/local/var/www/apps/../../etc/passwd")
