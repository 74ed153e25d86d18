"""A file named with another letter case than it has: the error says which one was meant
and where it was looked up (core.letter_case, core.box_paths, core.dialog_box), and the
corpus report counts it as the behavior's."""
import errno
import sys
from pathlib import Path

import pytest

from naoqi_qicore.core.box_paths import box_path_builtins, box_path_modules
from naoqi_qicore.core.letter_case import LETTER_CASE_DIFFERS, case_twin, missing_file_error

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def robot_home(tmp_path):
    """``tmp_path/home/nao/Sounds/Bell.wav``, and a mapper of ``/home/nao/...`` there."""
    (tmp_path / "home" / "nao" / "Sounds").mkdir(parents=True)
    (tmp_path / "home" / "nao" / "Sounds" / "Bell.wav").write_bytes(b"RIFF")
    return tmp_path, lambda path: str(tmp_path) + path if path.startswith("/home/") else path


def test_the_twin_of_a_path_differs_only_in_letter_case(robot_home):
    root, _ = robot_home
    sounds = root / "home" / "nao" / "Sounds"
    assert case_twin(str(root / "home" / "nao" / "sounds" / "bell.WAV")) == \
        str(sounds / "Bell.wav")
    assert case_twin(str(sounds / "Bell.wav")) is None  # it exists
    assert case_twin(str(sounds / "Gong.wav")) is None
    assert case_twin(str(root / "home" / "nao" / "sounds" / "new" / "x.wav")) is None
    assert case_twin("relative/Bell.wav") is None


def test_the_error_names_the_file_where_it_was_looked_up_and_the_one_meant(robot_home):
    root, _ = robot_home
    looked_up = str(root / "home" / "nao" / "sounds" / "bell.wav")
    error = missing_file_error("/home/nao/sounds/bell.wav", looked_up)
    assert isinstance(error, FileNotFoundError) and error.errno == errno.ENOENT
    assert str(error) == (
        "[Errno 2] No such file or directory: '/home/nao/sounds/bell.wav' (looked up at %s); "
        "did you mean '/home/nao/Sounds/Bell.wav'? (letter case differs)" % looked_up)
    assert missing_file_error("Gong.wav", str(root / "Gong.wav")) is None


def test_box_code_opening_a_file_with_another_letter_case_is_told_so(robot_home):
    root, mapper = robot_home
    builtins, modules = box_path_builtins(mapper), box_path_modules(mapper)
    with pytest.raises(FileNotFoundError, match=r"did you mean '/home/nao/Sounds/Bell\.wav'\? "
                       r"\(letter case differs\)$"):
        builtins["open"]("/home/nao/sounds/bell.wav", "rb")
    with pytest.raises(FileNotFoundError, match="did you mean '/home/nao/Sounds'"):
        modules["os"].listdir("/home/nao/sounds")
    with pytest.raises(FileNotFoundError) as missing:  # no twin: the error as it was
        builtins["open"]("/home/nao/Sounds/Gong.wav")
    assert missing.value.filename == str(root / "home" / "nao" / "Sounds" / "Gong.wav")
    assert builtins["open"]("/home/nao/Sounds/Bell.wav", "rb").read() == b"RIFF"


def test_a_dialog_file_named_with_another_letter_case_says_which_was_meant(
        make_harness, robot, tmp_path):
    from core_builders import flow_box, inputs, link, stopped
    from naoqi_qicore.xar.model import Box, Script
    simulated, session = robot
    (tmp_path / "behavior_1").mkdir()
    (tmp_path / "museo").mkdir()
    (tmp_path / "museo" / "Museo.dlg").write_text("multilanguage:Museo\n  enu:Museo_enu.top\n")
    (tmp_path / "museo" / "Museo_enu.top").write_text("topic: ~Museo()\nlanguage: enu\n")
    dialog = Box("Dialog", 1, inputs=inputs(), outputs=[stopped(4)], script=Script(4, ""),
                 dialog_files=["../Museo/Museo.dlg"])
    harness = make_harness(flow_box("root", -1, [dialog], [link(0, 2, 1, 2)]),
                           session=session, naoqi=True)
    harness.player.behavior_path = str(tmp_path / "behavior_1")
    harness.player.load()
    harness.player.play()
    harness.settle()
    [error] = harness.player.errors
    assert (error.box_path, error.exception_type) == ("root/Dialog", "FileNotFoundError")
    assert error.message == (
        "[Errno 2] No such file or directory: '../Museo/Museo.dlg' (looked up at %s); did "
        "you mean '../museo/Museo.dlg'? (letter case differs)" % (tmp_path / "Museo" /
                                                                  "Museo.dlg"))
    assert session.service("ALDialog").getAllLoadedTopics() == []


def test_the_corpus_report_counts_a_file_named_with_another_letter_case_as_the_behaviors():
    sys.path.insert(0, str(REPO / "bench"))
    from corpus_report import BEHAVIOR, OURS, classify
    looked_up = "/tmp/naoqi_sim_root_x/home/nao/.local/share/PackageManager/apps/app/Museo"
    detail = ("Traceback (most recent call last):\n  File \"naoqi_qicore/core/dialog_box.py\", "
              "line 120, in _load_topics\nFileNotFoundError: [Errno 2] No such file or "
              "directory: '../Museo/Museo.dlg' (looked up at %s/Museo.dlg); did you mean "
              "'../museo/Museo.dlg'? %s" % (looked_up, LETTER_CASE_DIFFERS))
    assert classify(detail, "onStart", shipped={"Museo.dlg"}) == (
        BEHAVIOR, "letter-case", "a file named with another letter case than the project's")
    plain = detail.rpartition(" (looked up")[0]  # the same file, just missing
    assert classify(plain, "onStart", shipped={"Museo.dlg"})[0] == OURS
