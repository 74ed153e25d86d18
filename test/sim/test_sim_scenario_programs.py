"""Scenarios from the command line: ``naoqi_sim --scenario/--interactive`` and a converted
behavior's ``main.py --scenario/--record``, as real processes on loopback."""
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

qi = pytest.importorskip("qi")

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "test" / "ros"))
from script_behaviors import WAITS_FOR_YES, script_behavior  # noqa: E402

from naoqi_qicore.converter.api import convert, convert_in_project  # noqa: E402
from naoqi_qicore.robot.sim.recorder import read_calls  # noqa: E402

#: real processes: left out of make check
pytestmark = [pytest.mark.slow, pytest.mark.long_running(minutes=1)]

READY = "naoqi_sim: listening on "
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO)] + [
    p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]), PYTHONUNBUFFERED="1")


class Lines:
    """A stream read line by line in the background."""

    def __init__(self, stream) -> None:
        self.queue: "queue.Queue[str]" = queue.Queue()
        self.seen: list = []
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream) -> None:
        for line in stream:
            self.queue.put(line.rstrip("\n"))

    def wait_for(self, start: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.queue.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                pytest.fail("no line starting with %r; seen: %s" % (start, self.seen))
            self.seen.append(line)
            if line.startswith(start):
                return line


def naoqi_sim(*arguments: str, stdin=subprocess.DEVNULL) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "naoqi_qicore.robot.sim", "--listen",
                             "tcp://127.0.0.1:0", *arguments], cwd=str(REPO), env=ENV,
                            stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def stop(process: subprocess.Popen) -> int:
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
    return process.returncode


# -- naoqi_sim ---------------------------------------------------------------------------------
def test_naoqi_sim_refuses_an_invalid_scenario(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("- after_say: hello\n  heer: hi\n")
    process = naoqi_sim("--scenario", str(bad))
    out, err = process.communicate(timeout=30)
    assert process.returncode == 2
    assert err.strip().startswith("naoqi_sim: %s:2: step 1: unknown key 'heer'" % bad)
    assert READY not in out
    pepper_only = tmp_path / "tablet.yaml"
    pepper_only.write_text("- tablet_touch: [1, 2]\n")
    process = naoqi_sim("--robot", "nao", "--scenario", str(pepper_only))
    out, err = process.communicate(timeout=30)
    assert process.returncode == 2 and "step 1: tablet_touch: NAO has no tablet" in err


def alias_bomb() -> str:
    """About 400 bytes of YAML whose aliases expand to 9**9 strings."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for previous, name in zip("abcdefgh", "bcdefghi"):
        lines.append("%s: &%s [%s]" % (name, name, ",".join(["*" + previous] * 9)))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("text, line, message", [
    (alias_bomb(), 1, "anchor &a: a scenario cannot use anchors and aliases"),
    ("- hear: hi\n- hear: *word\n", 2, "alias *word: a scenario cannot use anchors"),
    ("- hear: &word hello\n- hear: *word\n", 1, "anchor &word: a scenario cannot use"),
    ("steps:\n  - hear: " + "[" * 5000 + "]" * 5000 + "\n", 2,
     "nested more than 20 levels deep"),
    ("- " * 5000 + "hi\n", 1, "nested more than 20 levels deep"),
    ("".join("  " * depth + "-\n" for depth in range(100)), 21,
     "nested more than 20 levels deep"),
])
def test_naoqi_sim_refuses_alias_bombs_and_deep_nesting_at_once(tmp_path, text, line, message):
    path = tmp_path / "hostile.yaml"
    path.write_text(text)
    process = naoqi_sim("--scenario", str(path))
    try:
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 2, err[-2000:]
    assert err.startswith("naoqi_sim: %s:%d: %s" % (path, line, message)), err[-2000:]
    assert "Traceback" not in err and READY not in out


def test_naoqi_sim_refuses_a_scenario_too_large_to_be_one(tmp_path):
    path = tmp_path / "huge.yaml"
    path.write_text("- hear: hi\n" * 200_000)
    process = naoqi_sim("--scenario", str(path))
    out, err = process.communicate(timeout=30)
    assert process.returncode == 2
    assert err.strip() == ("naoqi_sim: %s: the scenario is larger than 1 MB (a scenario is "
                           "a short list of steps)" % path)


def test_naoqi_sim_plays_a_scenario_file(tmp_path):
    path = tmp_path / "talk.yaml"
    path.write_text("- on_event: Test/Go\n  hear: yes\n  raise: {key: Test/Done, value: 7}\n")
    process = naoqi_sim("--scenario", str(path))
    errors = Lines(process.stderr)
    session = qi.Session()
    try:
        session.connect(Lines(process.stdout).wait_for(READY)[len(READY):])
        asr = session.service("ALSpeechRecognition")
        asr.setVocabulary(["yes", "no"], False)
        asr.subscribe("Test")
        memory = session.service("ALMemory")
        memory.raiseEvent("Test/Go", 1)
        errors.wait_for("naoqi_sim: scenario %s: done" % path)
        assert memory.getData("WordRecognized") == ["yes", 0.75]
        assert memory.getData("Test/Done") == 7
        assert "naoqi_sim: step 1 (on_event Test/Go): hear 'yes' -> ALSpeechRecognition " \
               "recognised 'yes'" in errors.seen
    finally:
        session.close()
        assert stop(process) == 0


def test_naoqi_sim_interactive_reads_what_a_person_says_and_does():
    process = naoqi_sim("--robot", "nao", "--interactive", stdin=subprocess.PIPE)
    out = Lines(process.stdout)
    session = qi.Session()

    def type_line(text: str) -> str:
        process.stdin.write(text + "\n")
        process.stdin.flush()
        return out.wait_for("-> ")
    try:
        session.connect(out.wait_for(READY)[len(READY):])
        out.wait_for("interactive: type what the person says")
        memory = session.service("ALMemory")
        asr = session.service("ALSpeechRecognition")
        asr.setVocabulary(["yes", "no"], False)
        asr.subscribe("Test")
        assert type_line("yes") == "-> ALSpeechRecognition recognised 'yes'"
        assert memory.getData("WordRecognized") == ["yes", 0.75]
        session.service("ALTextToSpeech").say("Touch my head")
        out.wait_for('robot says: "Touch my head"')
        assert type_line("/touch head").startswith("-> touched head (Head/Touch/Front")
        assert memory.getData("FrontTactilTouched") == 0.0  # pressed, then released
        assert memory.getData("TouchChanged") in ([["Head/Touch/Rear", False]],
                                                  [["Head/Touch/Front", False]],
                                                  [["Head/Touch/Middle", False]])
        assert type_line("/raise My/Key [1, two]") == "-> ALMemory event My/Key = [1, 'two']"
        assert memory.getData("My/Key") == [1, "two"]
        assert type_line("/face Ada").startswith("-> Ada's face is in view")
        assert type_line("/tablet 10 20") == \
            "-> error: NaoqiSimPerception::tabletTouch: NAO has no tablet"
        assert type_line("/dance").startswith("-> unknown command /dance")
        assert type_line("/landmark 64") == "-> marks [64] in view (ALLandMarkDetection is " \
            "not started: reported once it is)"
        assert type_line("/sound 0.5") == \
            "-> a sound from 0.5 rad: ALSoundLocalization"  # basic awareness listens
        assert type_line("/battery 15") == \
            "-> battery at 15%: BatteryChargeChanged, BatteryLowDetected"
        assert memory.getData("ALBasicAwareness/StimulusDetected") == "Sound"
        asr.unsubscribe("Test")
        assert "nobody listens" in type_line("hello?")
        process.stdin.close()
        out.wait_for("interactive: end of input (the robot keeps running")
        assert memory.getData("My/Key") == [1, "two"]  # still serving
    finally:
        session.close()
        assert stop(process) == 0


# -- main.py -----------------------------------------------------------------------------------

WAITS_FOR_A_HEAD_TOUCH = """
def onInput_onStart(self):
    self.memory = ALProxy("ALMemory")
    self.memory.subscribeToEvent("MiddleTactilTouched", self.getName(), "onTouched")
    ALProxy("ALTextToSpeech").say("Touch my head to finish")
def onTouched(self, key, value, message):
    if value:
        self.memory.unsubscribeToEvent("MiddleTactilTouched", self.getName())
        self.onStopped()
"""


def converted(tmp_path: Path, name: str, code: str) -> Path:
    out = tmp_path / (name + "_converted")
    convert(script_behavior(tmp_path, name, code), out)
    return out / "main.py"


def run_main(main: Path, *arguments: str, timeout: float = 90):
    process = subprocess.run([sys.executable, str(main), "--robot", "nao", *arguments],
                             env=ENV, capture_output=True, text=True, timeout=timeout)
    return process.returncode, process.stderr


def test_a_scenario_answers_a_behavior_waiting_for_a_word(tmp_path):
    main = converted(tmp_path, "ask", WAITS_FOR_YES)
    scenario = tmp_path / "answers.yaml"
    scenario.write_text("- after_say: shall we go on\n  hear: maybe\n"
                        "- after_say: shall we go on\n  hear: yes\n")
    record = tmp_path / "calls.jsonl"
    code, err = run_main(main, "--scenario", str(scenario), "--record", str(record))
    assert code == 0, err
    assert "scenario: step 1 (after_say 'shall we go on'): hear 'maybe' -> " \
           "ALSpeechRecognition: 'maybe' is not in its vocabulary" in err
    assert "scenario: step 2 (after_say 'shall we go on'): the robot said " \
           "'Sorry. Shall we go on?'" in err
    calls = read_calls(record)
    said = [call["args"][0] for call in calls if call["service"] == "ALTextToSpeech"
            and call["method"] == "say"]
    assert said == ["Shall we go on?", "Sorry. Shall we go on?", "Good, goodbye"]


def test_a_scenario_touches_the_head_of_a_behavior_waiting_for_it(tmp_path):
    main = converted(tmp_path, "touch", WAITS_FOR_A_HEAD_TOUCH)
    scenario = tmp_path / "touch.yaml"
    scenario.write_text("- after_say: touch my head\n  touch: head\n")
    code, err = run_main(main, "--scenario", str(scenario))
    assert code == 0, err
    assert "touch 'head' -> touched head" in err


ORDER_TOPIC = """topic: ~order()
language: enu
concept:(drink) ["hot chocolate" tea coffee]
u:([hello hi] {robot}) Hello! Would you like a drink?
    u1:(yes) Which one?
        u2:(~drink) Here is your drink $onStopped=1
    u1:(no) Goodbye $onStopped=1
"""


def dialog_project(tmp_path: Path) -> Path:
    """A project whose behavior is one Dialog box running ORDER_TOPIC."""
    (tmp_path / "project" / "order").mkdir(parents=True)
    (tmp_path / "project" / "order" / "order.dlg").write_text(
        "multilanguage:order\n  enu:order_enu.top\n")
    (tmp_path / "project" / "order" / "order_enu.top").write_text(ORDER_TOPIC)
    xar = script_behavior(tmp_path / "project", "behavior", "pass")
    text = xar.read_text().replace('<Box name="Script" id="1" localization="8" tooltip="" '
                                   'x="0" y="0">',
                                   '<Box name="Order" id="1" localization="8" tooltip="" x="0" '
                                   'y="0">\n<dialogFile>order/order.dlg</dialogFile>')
    text = text.replace("class MyClass(GeneratedClass):\n    pass\n", "")
    assert "<dialogFile>" in text
    xar.write_text(text)
    return xar


def test_the_generic_scenario_carries_a_dialog_to_its_end(tmp_path):
    out = tmp_path / "converted"
    convert(dialog_project(tmp_path), out)
    code, err = run_main(out / "main.py", "--scenario", "generic")
    assert code == 0, err
    heard = [line.split("generic: hear ", 1)[1] for line in err.splitlines()
             if "generic: hear " in line]
    assert heard == ["'hello' -> ALDialog answered 'hello'", "'yes' -> ALDialog answered 'yes'",
                     "'hot chocolate' -> ALDialog answered 'hot chocolate'"]


def test_main_refuses_a_bad_scenario_and_scenarios_on_a_real_robot(tmp_path):
    main = converted(tmp_path, "ask", WAITS_FOR_YES)
    bad = tmp_path / "bad.yaml"
    bad.write_text("- hear: [unclosed\n")
    code, err = run_main(main, "--scenario", str(bad))
    assert code == 2 and err.strip().startswith("error: %s:2: not valid YAML"
                                                % bad)
    code, err = run_main(main, "--scenario", "generic", "--url", "tcp://127.0.0.1:1")
    assert code == 2 and "need the simulated robot" in err


# -- real behaviors of the corpus ---------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("project, heard", [
    # a Speech Reco. box (yes;yeah;yup;nope;nah;no): any word ends it
    ("robot-2aa72a34", "ALSpeechRecognition recognised"),
    # a Dialog box whose topic waits for "start" before the countdown that ends the behavior
    ("commencement-ceremony-20-c3a3a670", "ALDialog answered 'start'"),
])
def test_the_generic_scenario_carries_corpus_behaviors_to_their_end(corpus_dir, tmp_path,
                                                                    project, heard):
    rows = [line.split("\t") for line in
            (corpus_dir / "projects" / "projects.tsv").read_text().splitlines()[1:]]
    path = next(row[5] for row in rows if row[0] == project)
    convert_in_project(corpus_dir / "projects" / project / path, tmp_path / "out")
    main = next((tmp_path / "out").rglob("main.py"))
    process = subprocess.run([sys.executable, str(main), "--scenario", "generic"], env=ENV,
                             capture_output=True, text=True, timeout=120)
    assert process.returncode == 0, process.stderr
    assert "generic: hear " in process.stderr and heard in process.stderr


@pytest.mark.slow
def test_the_generic_scenario_answers_a_corpus_choice_box_to_its_end(corpus_dir, tmp_path):
    """humanoid-robotics asks with Choregraphe's Choice box. Its repository has the
    box's choice_sentences.xml at the project's root while the box reads
    <project>/Aldebaran/choice_sentences.xml (its own bug: on a robot too it fails); with
    the file where the box reads it, the generic person answers the choices and the
    behavior finishes."""
    source = corpus_dir / "projects" / "humanoid-robotics-422d8142"
    project = tmp_path / "project"
    shutil.copytree(source, project)
    for path in [project, *project.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)  # the corpus is read-only
    (project / "Aldebaran").mkdir()
    shutil.copy(project / "choice_sentences.xml", project / "Aldebaran")
    convert_in_project(project / "behavior.xar", tmp_path / "out")
    process = subprocess.run([sys.executable, str(tmp_path / "out" / "main.py"), "--scenario",
                              "generic"], env=ENV, capture_output=True, text=True, timeout=120)
    assert process.returncode == 0, process.stderr
    heard = [line for line in process.stderr.splitlines() if "generic: hear " in line]
    assert heard and all("ALSpeechRecognition recognised" in line for line in heard), heard
