"""The corpus report (bench/corpus_report.py) as a test: every corpus behavior, with its
project, played on the simulated robot it was written for, and its box errors classed as
the behavior's own, the environment's or ours; the counts the report prints are the ones
asserted here."""
import collections
import importlib.util
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.long_running(minutes=2.5)

_BENCH = Path(__file__).resolve().parents[2] / "bench" / "corpus_report.py"
_SPEC = importlib.util.spec_from_file_location("corpus_report", _BENCH)
corpus_report = importlib.util.module_from_spec(_SPEC)
sys.modules["corpus_report"] = corpus_report
_SPEC.loader.exec_module(corpus_report)
BEHAVIOR, ENVIRONMENT, OURS = corpus_report.BEHAVIOR, corpus_report.ENVIRONMENT, corpus_report.OURS
classify = corpus_report.classify

#: what the corpus reaches today, run 10 s each with the generic scenario (the full report:
#: bench/corpus_report.py), and its sample here: these floors only go up (targets: 98% with
#: no error of ours, 90% making progress)
NO_ERROR_OF_OURS_FLOOR = 0.90
PROGRESS_FLOOR = 0.80
#: the sample played by test_corpus_report: one behavior in SAMPLE_EVERY, SAMPLE_SECONDS each
SAMPLE_EVERY, SAMPLE_SECONDS = 3, 5.0


def test_error_classes() -> None:
    """The classification itself: what is ours, the environment's, the behavior's, and the
    rule that says so."""
    assert classify("b: script: ModuleNotFoundError: No module named 'requests'") == (
        ENVIRONMENT, "package", "Python package not installed: requests")
    assert classify("b: ModuleNotFoundError: No module named 'vision_definitions'")[:2] == (
        OURS, "robot-module")
    assert classify("b: ModuleNotFoundError: No module named 'cookielib'")[0] == OURS
    assert classify("b: onStart: AttributeError: 'dict' object has no attribute "
                    "'iteritems'") == (OURS, "python2", "Python 2 semantics")
    assert classify("b: script: TypeError: 'range' object does not support item "
                    "assignment")[0] == OURS
    assert classify("b: onStart: NameError: name 'reload' is not defined")[:2] == (
        OURS, "given-name")
    assert classify("b: onStart: NameError: name 'onUnload' is not defined") == (
        BEHAVIOR, "behavior", "NameError")
    assert classify("b: script: SyntaxError: x (line 3)", invalid_script=True) == (
        BEHAVIOR, "not-python2", "not valid Python 2 either")
    assert classify("b: script: SyntaxError: x (line 3)")[:2] == (OURS, "port")
    assert classify("b: script: TabError: inconsistent use of tabs")[:2] == (OURS, "tabs")
    assert corpus_report.valid_python2("print 'a', 0755\nexec 'x = 1'\n")
    assert not corpus_report.valid_python2("x = >F40\n")
    assert classify("b: onStop: RuntimeError: ALMemory::unsubscribeToEvent: no\n"
                    "  /x/naoqi_qicore/robot/sim/memory.py(206): _unsubscribe")[0] == OURS
    assert classify('b: failed: Traceback (most recent call last):\n  File '
                    '"/x/naoqi_qicore/core/generated.py", line 3, in f\nKeyError: 1') == (
        OURS, "our-code", "raised inside naoqi_qicore")
    assert classify("b: onStart: FileNotFoundError: [Errno 2] No such file") == (
        ENVIRONMENT, "unshipped-file", "a file the author did not ship")
    missing = "b: onStart: FileNotFoundError: [Errno 2] No such file or directory: '%s'"
    assert classify(missing % "/home/nao/recordings/microphones/a.wav")[:2] == (
        OURS, "robot-path")
    assert classify(missing % "/opt/aldebaran/share/x.wav")[:2] == (OURS, "robot-path")
    # the applications' folders are the robot's files, where the project is installed
    for app in ("/usr/local/var/www/apps/.lastUploadedChoregrapheBehavior/lib",
                "/tmp/r/home/nao/.local/share/PackageManager/apps/my-app/lib"):
        assert classify(missing % app)[:2] == (ENVIRONMENT, "unshipped-file")
        assert classify(missing % app, shipped={"lib"})[:2] == (OURS, "shipped-file")
    assert classify(missing % "/tmp/x/converted/sounds/bell.ogg",
                    shipped={"bell.ogg", "behavior.xar"})[:2] == (OURS, "shipped-file")
    assert classify(missing % "/tmp/x/converted/sounds/bell.ogg",
                    shipped={"behavior.xar"})[:2] == (ENVIRONMENT, "unshipped-file")
    assert classify("b: onStart: URLError: <urlopen error [Errno -3] Temporary failure in "
                    "name resolution>") == (ENVIRONMENT, "network",
                                            "a network peer of the author's")
    program = ("root: app service: my-app.Main: execStart 'scripts/main.py' names "
               "scripts/main.py, which the application does not have (no file /home/nao/.local"
               "/share/PackageManager/apps/my-app/scripts/main.py)")
    assert classify(program, where="app service")[:2] == (ENVIRONMENT, "unshipped-file")
    assert classify(program, where="app service", shipped={"main.py"})[:2] == (
        OURS, "shipped-file")
    assert classify("root: app service: ModuleNotFoundError: my-app.Main: crashed (exit "
                    "status 1)\nTraceback (most recent call last):\n  File \"main.py\", line "
                    "1\nModuleNotFoundError: No module named 'flask'", where="app service")[:2] \
        == (ENVIRONMENT, "package")
    assert classify("b: robot call: AttributeError: ALTabletService has no method x()")[:2] \
        == (OURS, "simulator")
    assert classify("b: stop: box code still runs", where="stop")[:2] == (OURS, "stop")
    assert classify("b: onStart: Exception: the language is not supported") == (
        BEHAVIOR, "behavior", "Exception")


def _trace(**fields):
    trace = corpus_report.Trace()
    for name, value in fields.items():
        setattr(trace, name, value)
    return trace


def test_why_a_run_did_not_reach_its_end() -> None:
    """The rules of why_not_ended, each on the run that meets it (played at 0, stopped at
    60: idle means nothing done after 55)."""
    def why(status="PLAYING", trace=None, calls=(), errors=0):
        return corpus_report.why_not_ended(status, trace or _trace(last_engine=10.0),
                                           list(calls), errors, 0.0, 60.0)[1]
    reads = [{"service": "ALMemory", "method": "getData", "time": 58.0, "end": 58.001}]
    says = [{"service": "ALTextToSpeech", "method": "say", "time": 50.0, "end": 57.0}]
    moving = [{"service": "ALMotion", "method": "angleInterpolation", "time": 10.0}]  # runs
    loop = collections.Counter({"root/Say": 4})
    assert why("FINISHED") == ""
    assert why("ERROR") == "error"
    assert why(errors=1, trace=_trace(speech=["ALDialog"])) == "stuck-after-error"
    assert why(trace=_trace(speech=["ALDialog"], keys=["FrontTactilTouched"])) == \
        "waits-speech"
    assert why(trace=_trace(keys=["MiddleTactilTouched", "x/y"])) == "waits-touch"
    assert why(trace=_trace(keys=["Game/Score"])) == "waits-event"
    assert why(calls=reads) == "polls"
    assert why(calls=says, trace=_trace(box_starts=loop)) == "loops"
    assert why(calls=says, trace=_trace(keyframes=collections.Counter({"Dance": 2}))) == "loops"
    assert why(calls=says) == "long"
    assert why(calls=moving) == "long"
    assert why(trace=_trace(last_engine=59.0)) == "long"
    assert why(trace=_trace(active_boxes=["root/Wait"])) == "own-code"


@pytest.mark.slow
def test_every_corpus_behavior_converts_with_its_project(corpus_dir, tmp_path) -> None:
    """Every public behavior converts with its project (libqicore's test data may not) and
    the robot it was written for is found."""
    from naoqi_qicore.xar.errors import XarError
    kinds, failed = collections.Counter(), []
    for name, path in corpus_report.corpus_behaviors(corpus_dir):
        try:
            kinds[corpus_report.convert_one(path, tmp_path / name)[1].kind] += 1
        except XarError:
            failed.append(name)
    assert all(name.startswith("libqicore-") for name in failed), failed
    assert sum(kinds.values()) >= 120
    assert kinds["pepper"] >= 30


@pytest.mark.slow
def test_corpus_report(corpus_dir, capsys) -> None:
    """The report on a sample across the corpus (one behavior in 3, 5 s each): the counts
    it prints, and the floors."""
    pytest.importorskip("qi")
    report = corpus_report.run_corpus(corpus_dir, seconds=SAMPLE_SECONDS,
                                      workers=corpus_report.WORKERS, scenario="generic",
                                      every=SAMPLE_EVERY)
    with capsys.disabled():
        print()
        corpus_report.print_report(report, SAMPLE_SECONDS)
    totals = report.totals()
    converted = totals["converted"]
    assert converted >= 120 // SAMPLE_EVERY
    assert {outcome.robot for outcome in report.converted} == {"nao", "pepper"}
    assert totals["no error of ours"] == sum(not o.ours for o in report.converted)
    assert totals["no error of ours"] >= NO_ERROR_OF_OURS_FLOOR * converted
    assert totals["progress"] >= PROGRESS_FLOOR * converted
    assert totals["ended"] == sum(o.why_not == ("", "", "") for o in report.converted)
    assert totals["service ran"] + totals["service not asked"] <= totals["service apps"]
    assert sum(totals["not ended"].values()) == converted - totals["ended"]
