"""Where the simulated robot listens (the URL as libqi reads it, the endpoints it really
bound) and ALPythonBridge off unless the user turns it on (issue 21, point 2)."""
import os
import signal
import subprocess
import sys
import time

import pytest

qi = pytest.importorskip("qi")

from naoqi_qicore.robot.sim import SimulatedRobot, robot as robot_module  # noqa: E402
from naoqi_qicore.robot.sim.listen import ListenRefused  # noqa: E402
from naoqi_qicore.robot.sim.recorder import read_calls  # noqa: E402
from naoqi_qicore.ros.launcher import parse_arguments  # noqa: E402

from naoqi_qicore.converter.api import convert  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from robot_projects import ENV, REPO, script_behavior  # noqa: E402

pytestmark = pytest.mark.long_running(minutes=0.4)

READY = "naoqi_sim: listening on "
EVAL_OFF = "evaluating Python code is off on this simulated robot"


def naoqi_sim(*arguments: str, timeout: float = 30):
    """Run naoqi_sim until it exits by itself (killed after ``timeout``: then it listened);
    (exit code, stdout, stderr)."""
    process = subprocess.Popen([sys.executable, "-m", "naoqi_qicore.robot.sim", *arguments],
                               cwd=str(REPO), env=ENV, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
    return process.returncode, out, err


# -- the listen URL ----------------------------------------------------------------------------
@pytest.mark.slow  # real processes: left out of make check
def test_naoqi_sim_refuses_a_url_that_libqi_reads_as_another_address():
    # Python's URL parser sees the host 127.0.0.1; libqi binds 0.0.0.0 (every interface)
    code, out, err = naoqi_sim("--listen", "tcp://0.0.0.0:0\\@127.0.0.1", timeout=20)
    assert code == 2, (out, err)
    assert READY not in out
    assert err.strip() == ("naoqi_sim: refusing to listen on tcp://0.0.0.0:0\\@127.0.0.1 "
                           "(expected tcp://HOST:PORT (or tcps://) with a plain host name or "
                           "address: no user, path, backslash, space or escape)")


@pytest.mark.slow  # real processes: left out of make check
@pytest.mark.parametrize("host", ["127.0.0.01", "127.0.0.001", "127.00.0.1", "127.1",
                                  "localhost"])
def test_naoqi_sim_hands_libqi_the_canonical_address(host):
    """Forms of a loopback address the resolver accepts and libqi's parser does not (it
    crashed the process, exit 139): libqi is given the canonical address."""
    process = subprocess.Popen([sys.executable, "-m", "naoqi_qicore.robot.sim", "--listen",
                                "tcp://%s:0" % host], cwd=str(REPO), env=ENV,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready = process.stdout.readline()
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    assert ready.startswith(READY + "tcp://127.0.0.1:"), (ready, process.returncode, err)
    assert process.returncode == 0, err


@pytest.mark.slow  # real processes: left out of make check
def test_naoqi_sim_refuses_ipv6_which_libqi_cannot_listen_on():
    code, out, err = naoqi_sim("--listen", "tcp://[::1]:0", timeout=20)
    assert code == 2 and READY not in out
    assert err.strip() == ("naoqi_sim: refusing to listen on tcp://[::1]:0 (libqi cannot listen "
                           "on an IPv6 address ([::1]): give an IPv4 address or a host name, "
                           "such as tcp://127.0.0.1:0)")


@pytest.mark.parametrize("url", [
    "tcp://0.0.0.0:0\\@127.0.0.1", "tcp://user@127.0.0.1:0", "tcp://user:pw@127.0.0.1:0",
    "tcp://127.0.0.1:0/path", "tcp://127.0.0.1:0 ", " tcp://127.0.0.1:0", "tcp://127.0.0.1 :0",
    "tcp://127.0.0.1:0?x=1", "tcp://127.0.0.1:0#x", "tcp://127%2e0.0.1:0", "tcp://127.0.0.1",
    "tcp://127.0.0.1:99999", "udp://127.0.0.1:0", "tcp://127.0.0.1:0\n", "tcp://[::1]:0%lo",
    "tcp://127.0.0.1\\:0"])
def test_listen_urls_with_parts_libqi_may_read_otherwise_are_refused(url):
    robot = SimulatedRobot(listen=url, allow_remote=True)
    with pytest.raises(ListenRefused) as refused:
        robot.start()
    assert not refused.value.remote
    with pytest.raises(RuntimeError, match="not started"):
        robot.url


class _WideSession:
    """A qi session whose endpoints also say what a 0.0.0.0 bind reports: another
    interface's address."""

    opened = []
    real = qi.Session

    def __init__(self):
        self._session = _WideSession.real()
        self.closed = False
        self.listened = False
        _WideSession.opened.append(self)

    def listen(self, url):
        self._session.listen(url)
        self.listened = True

    def endpoints(self):
        endpoints = list(self._session.endpoints())
        if self.listened:  # what the public listen bound, as libqi reports 0.0.0.0
            endpoints.append(endpoints[-1].replace("127.0.0.1", "192.0.2.7"))
        return endpoints

    def close(self):
        self.closed = True
        self._session.close()
        # dropped, as the robot drops its own: libqi then lets go of the registered objects
        # (the robot's stop waits for that)
        self._session = None

    def __getattr__(self, name):
        return getattr(self._session, name)


def test_the_robot_checks_what_libqi_really_bound(monkeypatch):
    monkeypatch.setattr(robot_module.qi, "Session", _WideSession)
    _WideSession.opened = []
    robot = SimulatedRobot(listen="tcp://127.0.0.1:0", allow_eval=True)
    started = time.monotonic()
    with pytest.raises(ListenRefused) as refused:
        robot.start()
    # told at once: the refusal's traceback holds none of the services libqi must let go of
    assert time.monotonic() - started < robot_module.RELEASE_TIMEOUT_S
    assert refused.value.remote
    assert "libqi listens on tcp://127.0.0.1:" in refused.value.problem
    assert "192.0.2.7 is not loopback" in refused.value.problem
    assert [session.closed for session in _WideSession.opened] == [True]
    # the user allowed it: the robot serves, but evaluates no code beyond loopback
    with SimulatedRobot(listen="tcp://127.0.0.1:0", allow_remote=True, allow_eval=True) as wide:
        client = qi.Session()
        client.connect(wide.url)
        with pytest.raises(RuntimeError, match="tcp://192.0.2.7:.*not only on loopback"):
            client.service("ALPythonBridge").evalReturn("6 * 7")
        client.close()


@pytest.mark.slow  # real processes: left out of make check
def test_naoqi_sim_on_every_interface_needs_allow_remote():
    code, out, err = naoqi_sim("--listen", "tcp://0.0.0.0:0", timeout=20)
    assert code == 2 and READY not in out
    assert "refusing to listen on tcp://0.0.0.0:0 (0.0.0.0 is not loopback); pass " \
           "--allow-remote" in err


# -- ALPythonBridge --------------------------------------------------------------------------
def test_eval_is_off_unless_the_robot_allows_it():
    for allowed in (False, True):
        with SimulatedRobot(listen="tcp://127.0.0.1:0", allow_eval=allowed) as robot:
            client = qi.Session()
            client.connect(robot.url)
            bridge = client.service("ALPythonBridge")
            try:
                if allowed:
                    assert bridge.eval("answer = 6 * 7") == ""
                    assert bridge.evalReturn("answer") == 42
                    continue
                for method in ("eval", "evalReturn", "evalFull"):
                    with pytest.raises(RuntimeError) as refused:
                        getattr(bridge, method)("open('/tmp/owned', 'w')")
                    assert "ALPythonBridge::%s: %s" % (method, EVAL_OFF) in str(refused.value)
                    assert "naoqi_sim --allow-eval" in str(refused.value)
                assert not os.path.exists("/tmp/owned")
            finally:
                client.close()


#: the root evaluates code in the robot and says what it computed
USES_THE_BRIDGE = """
def onInput_onStart(self):
    bridge = ALProxy("ALPythonBridge")
    bridge.eval("greeting = 'hello from ' + 'the bridge'")
    ALProxy("ALTextToSpeech").say(bridge.evalReturn("greeting"))
    self.onStopped()
"""


@pytest.mark.slow  # real processes: left out of make check
def test_a_behavior_using_the_bridge_runs_when_the_user_turns_eval_on(tmp_path):
    out = tmp_path / "converted"
    convert(script_behavior(tmp_path, "bridge", "", root_code=USES_THE_BRIDGE), out)
    record = tmp_path / "calls.jsonl"
    done = subprocess.run([sys.executable, str(out / "main.py"), "--robot", "nao",
                           "--allow-eval", "--record", str(record)], env=ENV,
                          capture_output=True, text=True, timeout=90)
    assert done.returncode == 0, done.stderr
    said = [call["args"][0] for call in read_calls(record) if call["method"] == "say"]
    assert said == ["hello from the bridge"]
    # off (the default): the box's call fails with the way to turn it on
    done = subprocess.run([sys.executable, str(out / "main.py"), "--robot", "nao"], env=ENV,
                          capture_output=True, text=True, timeout=90)
    assert done.returncode == 1, done.stderr
    assert "box error: root: onStart: RuntimeError: " in done.stderr
    assert "ALPythonBridge::eval: %s" % EVAL_OFF in done.stderr
    assert "main.py --allow-eval" in done.stderr


def test_run_behavior_passes_allow_eval_to_the_simulated_robot():
    assert "--allow-eval" not in parse_arguments(["b.xar"]).simulator_command("u", "nao")
    plan = parse_arguments(["b.xar", "--allow-eval"])
    assert plan.simulator_command("tcp://127.0.0.1:1", "nao")[-1] == "--allow-eval"
