"""Simulated ALPythonBridge: Python code evaluated inside the robot.

As NAOqi's, the code runs in one interpreter namespace that lives as long as the robot (names a
call defines are there for the next calls):

* ``eval(code)`` runs statements; returns "" when they ran, else the error (its traceback);
* ``evalReturn(expression)`` returns the value of an expression (an error when it fails);
* ``evalFull(code)`` returns ``[value, exception, stdout, stderr]``: the value of ``code`` when
  it is an expression (else None), the error text ("" when none) and what ``print`` wrote to
  standard output and to standard error.

Here the namespace is private to the simulated robot's process.  Any process that reaches
the robot could run code with the rights of the robot's process, so code is evaluated only
when whoever started the robot allowed it (``allow_eval``: ``naoqi_sim --allow-eval``,
``main.py --allow-eval``, ``run_behavior --allow-eval``, behavior_runner's ``allow_eval``
parameter), and only while every address the robot listens on is loopback.  ``print`` is
what the evaluated code prints with (writes to ``sys.stdout`` itself go to the robot
process's output).  ALDialog runs the ``%script`` blocks of QiChat topics in the same
interpreter, under the same permission, the robot's services defined by their names.
"""
import builtins
import threading
import traceback
from typing import Any, Dict, List, Optional, Tuple

from naoqi_qicore.robot.sim.listen import endpoints_problem
from naoqi_qicore.robot.sim.services.module import SimModule


class _Output:
    """What one evaluation printed."""

    def __init__(self) -> None:
        self.stdout: List[str] = []
        self.stderr: List[str] = []


def _value(value: Any, path: str = "the result") -> Any:
    """``value`` as libqi can send it (None, bool, numbers, text, bytes, lists, dicts)."""
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return value
    if isinstance(value, (list, tuple)):
        return [_value(item, "%s[%d]" % (path, index)) for index, item in enumerate(value)]
    if isinstance(value, dict):
        return {key: _value(item, "%s[%r]" % (path, key)) for key, item in value.items()}
    raise TypeError("%s (a %s) cannot be sent back as a NAOqi value"
                    % (path, type(value).__name__))


_FILE = "<ALPythonBridge>"
#: the answer of an evaluation while evaluating is off
EVAL_OFF = ("evaluating Python code is off on this simulated robot (any local process could "
            "run code with its rights); turn it on when a behavior needs it: naoqi_sim "
            "--allow-eval, main.py --allow-eval, run_behavior --allow-eval, or the "
            "allow_eval parameter of behavior_runner")


def _traceback(error: Optional[BaseException]) -> str:
    """The traceback of an error of evaluated code (its own frames only); "" for None."""
    if error is None:
        return ""
    frames = [frame for frame in traceback.extract_tb(error.__traceback__)
              if frame.filename == _FILE]
    text = "".join(traceback.format_exception_only(type(error), error))
    if not frames:
        return text
    return "Traceback (most recent call last):\n" + "".join(traceback.format_list(frames)) + text


class ALPythonBridge(SimModule):
    """Evaluates Python code sent by clients."""

    NAME = "ALPythonBridge"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._running = threading.Lock()  # one evaluation at a time, as one interpreter
        self._output: Optional[_Output] = None
        names = dict(vars(builtins))
        names["print"] = self._print
        self._namespace: Dict[str, Any] = {"__name__": "__main__", "__builtins__": names}

    def _print(self, *values: Any, sep: Optional[str] = " ", end: Optional[str] = "\n",
               file: Any = None, flush: bool = False) -> None:
        import sys
        output = self._output
        if output is None or file not in (None, sys.stdout, sys.stderr):
            print(*values, sep=sep, end=end, file=file, flush=flush)
            return
        text = (" " if sep is None else sep).join(str(v) for v in values) + \
            ("\n" if end is None else end)
        (output.stderr if file is sys.stderr else output.stdout).append(text)

    def _check_allowed(self, method: str) -> None:
        if not self._sim.allow_eval:
            raise self._error(method, EVAL_OFF)
        endpoints = self._sim.endpoints
        if endpoints and endpoints_problem(endpoints):
            raise self._error(method, "the simulated robot listens on %s, not only on "
                                      "loopback: it evaluates no code" % ", ".join(endpoints))

    def _run(self, method: str, code: str, mode: str
             ) -> Tuple[Any, Optional[BaseException], _Output]:
        """(value, exception or None, output) of ``code`` compiled in ``mode`` ("exec",
        "eval" or "auto": an expression's value, else statements)."""
        self._check_allowed(method)
        output = _Output()
        with self._running:
            self._output = output
            try:
                if mode == "auto":
                    try:
                        compiled = compile(code, _FILE, "eval")
                    except SyntaxError:
                        compiled = compile(code, _FILE, "exec")
                else:
                    compiled = compile(code, _FILE, mode)
                return eval(compiled, self._namespace), None, output  # noqa: S307 (its purpose)
            except Exception as error:
                return None, error, output
            finally:
                self._output = None

    def _run_script(self, code: str, names: Dict[str, Any]) -> str:
        """Run the statements of a QiChat ``%script`` block in the interpreter, ``names``
        defined there unless they are already (the robot's services, by name); what they
        printed.  A NAOqi-style error when evaluating is off or the code fails (its
        traceback)."""
        self._check_allowed("%script")
        for name, value in names.items():
            self._namespace.setdefault(name, value)
        _, error, output = self._run("%script", code, "exec")
        if error is not None:
            raise self._error("%script", _traceback(error).strip())
        return "".join(output.stdout)

    def eval(self, stringToEvaluate: str) -> str:
        """Run Python statements; "" when they ran, else the error."""
        _, error, _ = self._run("eval", stringToEvaluate, "exec")
        return _traceback(error)

    def evalReturn(self, stringToEvaluate: str) -> Any:
        """The value of a Python expression (``evalReturn("2+2")`` is 4)."""
        value, error, _ = self._run("evalReturn", stringToEvaluate, "eval")
        if error is not None:
            raise self._error("evalReturn", "".join(
                traceback.format_exception_only(type(error), error)).strip())
        try:
            return _value(value)
        except TypeError as problem:
            raise self._error("evalReturn", str(problem))

    def evalFull(self, stringToEvaluate: str) -> List[Any]:
        """[value (None for statements), error text, printed standard output, standard
        error]."""
        value, error, output = self._run("evalFull", stringToEvaluate, "auto")
        text = _traceback(error)
        try:
            value = _value(value)
        except TypeError as problem:
            value, text = None, "TypeError: %s\n" % problem
        return [value, text, "".join(output.stdout), "".join(output.stderr)]
