"""Shared by the test_sim_core_* files: the simulated robot in its own process, and waiting."""
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, List, Optional, Tuple

REPO = Path(__file__).resolve().parents[2]
READY_PREFIX = "naoqi_sim: listening on "


def wait_until(predicate: Callable[[], object], timeout: float = 3.0) -> object:
    """The first truthy value of ``predicate()`` within ``timeout`` s (else its last value)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.005)
    return predicate()


class SimProcess:
    """``python -m naoqi_qicore.robot.sim`` on a free loopback port, in another process."""

    def __init__(self, robot: str = "nao", record: Optional[Path] = None,
                 extra: Optional[List[str]] = None) -> None:
        command = [sys.executable, "-m", "naoqi_qicore.robot.sim", "--robot", robot,
                   "--listen", "tcp://127.0.0.1:0"]
        if record is not None:
            command += ["--record", str(record)]
        env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self.process = subprocess.Popen(command + list(extra or []), cwd=str(REPO), env=env,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.url = ""
        self.stderr = ""

    def wait_ready(self, timeout: float = 30.0) -> str:
        """Read stdout until the URL line; returns the URL."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("naoqi_sim exited: %s" % self.process.stderr.read())
            if line.startswith(READY_PREFIX):
                self.url = line[len(READY_PREFIX):].strip()
                return self.url
        raise RuntimeError("naoqi_sim printed no URL in %s s" % timeout)

    def interrupt(self, timeout: float = 10.0) -> int:
        """SIGINT, then the exit code (killed after ``timeout``)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout)
        self.stderr = self.process.stderr.read()
        self.process.stdout.close()
        self.process.stderr.close()
        return self.process.returncode


def start_sim(robot: str = "nao", record: Optional[Path] = None) -> SimProcess:
    sim = SimProcess(robot, record)
    try:
        sim.wait_ready()
    except Exception:
        sim.interrupt()
        raise
    return sim


def run_client(url: str, code: str, timeout: float = 30.0) -> str:
    """Run ``code`` in another Python process with ``session`` connected to ``url``;
    returns what it printed (fails the test with its stderr when it fails)."""
    script = ("import qi, sys\nqi.logging.setLevel(qi.logging.ERROR)\n"
              "session = qi.Session()\nsession.connect(sys.argv[1])\n" + code +
              "\nsession.close()\n")
    done = subprocess.run([sys.executable, "-c", script, url], capture_output=True, text=True,
                          timeout=timeout, cwd=str(REPO))
    assert done.returncode == 0, done.stderr
    return done.stdout


@contextmanager
def sim_session(robot: str = "nao") -> Iterator[Tuple[SimProcess, Any]]:
    """A simulated robot in another process and a qi.Session connected to it; the robot must
    exit with code 0 on SIGINT at the end."""
    import qi
    sim = start_sim(robot)
    session = qi.Session()
    try:
        session.connect(sim.url)
        yield sim, session
    finally:
        session.close()
        code = sim.interrupt()
    assert code == 0, sim.stderr
