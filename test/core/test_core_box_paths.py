"""Box code's own files by the robot's paths: the environment's path mapper applies to
``open``, ``os``, ``os.path``, ``io``, ``codecs``, ``glob``, ``shutil`` and ``sys.path``
imports, and its temporary folder to ``tempfile`` (issue 23 point 1)."""
from typing import Any, List

from naoqi_qicore.converter.loader import prepare
from naoqi_qicore.core.environment import ScriptEnvironment
from naoqi_qicore.core.player import BehaviorPlayer

from core_builders import FakeSession, behavior, flow_box, link, script_box

USES_ROBOT_PATHS = """
def onInput_onStart(self):
    import os.path, glob, io, codecs, shutil, tempfile, sys
    from os.path import isfile
    os.makedirs("/home/nao/data/sub")
    with open("/home/nao/data/a.txt", "w") as out:
        out.write("alpha")
    record("open", io.open("/home/nao/data/a.txt").read(), codecs.open(
        "/home/nao/data/a.txt", encoding="utf-8").read())
    shutil.copy("/home/nao/data/a.txt", "/home/nao/data/sub/b.txt")
    record("listdir", sorted(os.listdir("/home/nao/data")), isfile("/home/nao/data/sub/b.txt"),
           os.path.exists("/home/nao/data/none"), os.path.getsize("/home/nao/data/a.txt"))
    record("glob", [os.path.basename(p) for p in glob.glob("/home/nao/data/*.txt")])
    record("expanduser", os.path.expanduser("~/data/a.txt") == os.path.realpath(
        "/home/nao/data/a.txt"))
    folder = tempfile.mkdtemp(prefix="rec")
    record("tempfile", folder, tempfile.gettempdir())
    with open("/home/nao/lib/shipped.py", "w") as module:
        module.write("VALUE = 42\\n")
    sys.path.append("/home/nao/lib")
    import shipped
    record("import", shipped.VALUE)
    sys.path.remove("/home/nao/lib")
    self.onStopped()
"""


def test_box_code_opens_the_robots_files_where_the_environment_maps_them(tmp_path):
    robot_home = tmp_path / "robot" / "home" / "nao"
    (robot_home / "lib").mkdir(parents=True)
    temporary = tmp_path / "robot" / "tmp"
    temporary.mkdir()
    log: List[Any] = []

    def robot_path(path: str) -> str:
        return str(tmp_path / "robot") + path if path.startswith("/home/nao/") else path

    def environment(context: Any) -> ScriptEnvironment:
        return ScriptEnvironment(names={"record": lambda *entry: log.append(entry)},
                                 paths=robot_path, temporary_folder=str(temporary))
    box = script_box("Files", 1, USES_ROBOT_PATHS)
    root = flow_box("root", -1, [box], [link(0, 2, 1, 2), link(1, 4, 0, 4)])
    player = BehaviorPlayer(prepare(behavior(root)), FakeSession(), environment=environment)
    player.load()
    player.play()
    assert player.wait(30) and player.status == "FINISHED", player.last_error
    player.unload()
    entries = {entry[0]: entry[1:] for entry in log}
    assert entries["open"] == ("alpha", "alpha")
    assert entries["listdir"] == (["a.txt", "sub"], True, False, 5)
    assert entries["glob"] == (["a.txt"],)
    assert entries["expanduser"] == (True,)
    folder, gettempdir = entries["tempfile"]
    assert gettempdir == str(temporary) and folder.startswith(str(temporary) + "/rec")
    assert entries["import"] == (42,)
    assert (robot_home / "data" / "sub" / "b.txt").read_text() == "alpha"
