"""The program an application's service runs in on the simulated robot.

The simulated ALServiceManager starts a service an application's ``manifest.xml`` declares
(``<service name="Main" execStart="scripts/main.py"/>``) as NAOqi does: a process of its
own, in the application's folder, connected to the robot (``--qi-url``).  It starts it in
that folder (``--app .``: the folder it was started in, as opened by the robot) as

    python -I -B -u -m naoqi_qicore.robot.app_service_host --app FOLDER --root ROOT \\
        --qi-url URL SCRIPT [ARGUMENT...]

so that only installed code can be imported (``-I``: no current folder, no
``PYTHONPATH``, no user site), then this program puts the script's own folder first on
``sys.path`` (as ``python scripts/main.py`` does on the robot) and runs the script as
``__main__`` with ``sys.argv`` ``[SCRIPT, ARGUMENT..., "--qi-url", URL]``.

Service scripts were written for the robot's Python 2.7, like box scripts, and so are the
libraries applications ship beside them (Aldebaran's "Studio Toolkit" ``stk``, usually in
``scripts/stk/``).  They get what box code gets (:mod:`naoqi_qicore.core.project_modules`):
a script or a module of the application that does not compile under Python 3 is ported
(cached, never written back), runs with Python 2's builtins and module names, and imports
``naoqi`` (``ALProxy``, ``ALModule``... over a session connected to the robot), ``qi`` and
``almath``; the robot's paths it opens (``/home/nao/...``) are the simulated robot's files
under ROOT (:mod:`naoqi_qicore.core.box_paths`).
"""
from __future__ import annotations

import argparse
import os
import sys
import threading
import traceback
import types
import warnings
from typing import Any, Dict, List, Optional

#: the option libqi's ``qi.Application`` (and stk's runner) read the robot's URL from
QI_URL_OPTION = "--qi-url"
#: the files of naoqi_qicore's imports for ported code (frames a service's author did not
#: write: left out of its tracebacks)
_IMPORT_MACHINERY = tuple(os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "core", name) for name in ("script.py", "project_modules.py"))


class RobotSession:
    """A qi session to the robot at ``url``, connected when first used (what the service's
    ``naoqi`` module reaches the robot with)."""

    def __init__(self, url: str) -> None:
        self._url = url
        self._lock = threading.Lock()
        self._session: Any = None

    def _connected(self) -> Any:
        with self._lock:
            if self._session is None:
                import qi
                session = qi.Session()
                session.connect(self._url)
                self._session = session
            return self._session

    def service(self, name: str) -> Any:
        return self._connected().service(name)

    def registerService(self, name: str, service: Any) -> Any:  # noqa: N802 (libqi's name)
        return self._connected().registerService(name, service)

    def unregisterService(self, service_id: int) -> Any:  # noqa: N802 (libqi's name)
        return self._connected().unregisterService(service_id)

    def url(self) -> str:
        return self._url


def service_modules(app_folder: str, url: str) -> Dict[str, types.ModuleType]:
    """``naoqi``, ``qi`` and ``almath`` as the service's Python 2 code imports them."""
    import qi

    from naoqi_qicore.core.environment import BehaviorContext
    from naoqi_qicore.robot.naoqi_compat import almath
    from naoqi_qicore.robot.naoqi_compat.box_session import LocalSubscriptions
    from naoqi_qicore.robot.naoqi_compat.naoqi import naoqi_module

    session = RobotSession(url)
    context = BehaviorContext(session, None, os.path.basename(app_folder), app_folder)
    naoqi = naoqi_module(context, session, LocalSubscriptions(context))  # type: ignore[arg-type]
    return {"naoqi": naoqi, "qi": qi, "almath": almath}


def _search_path(script: str) -> List[str]:
    """``sys.path`` of the service: the script's folder, then what ``-I`` left (the standard
    library and the installed packages)."""
    return [os.path.dirname(os.path.abspath(script))] + [
        entry for entry in sys.path if entry and os.path.isabs(entry)]


def run_service(app_folder: str, root: str, url: str, script: str,
                arguments: List[str]) -> None:
    """Run the service ``script`` of the application in ``app_folder`` (module doc)."""
    from naoqi_qicore.core.box_paths import box_path_builtins, box_path_modules
    from naoqi_qicore.core.ported_source import python3_source
    from naoqi_qicore.core.project_modules import install_project_modules
    from naoqi_qicore.core.py2_text import rewrite_text_methods
    from naoqi_qicore.core.script import box_builtins
    from naoqi_qicore.robot.robot_files import RobotFiles

    mapper = RobotFiles(root).box_path
    modules = service_modules(app_folder, url)
    builtins = box_builtins(dict(modules, **box_path_modules(mapper)),
                            box_path_builtins(mapper))
    sys.path[:] = _search_path(script)
    project = install_project_modules([app_folder], builtins, modules, mapper)
    try:
        # the script itself, not a link put in its place (the folder is the application's)
        with os.fdopen(os.open(script, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC),
                       "rb") as stream:
            source = stream.read().decode("utf-8", "surrogateescape")
        text = python3_source(source, script)
        ported = text is not source
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes etc. of old scripts
            code = compile(rewrite_text_methods(text, script) if ported else text, script,
                           "exec", dont_inherit=True)
        main = types.ModuleType("__main__")
        main.__dict__.update(__file__=script, __builtins__=project.builtins if ported
                             else project.plain_builtins)
        sys.modules["__main__"] = main
        sys.argv = [script] + arguments + [QI_URL_OPTION, url]
        exec(code, main.__dict__)
    except (SystemExit, KeyboardInterrupt):
        raise
    except BaseException as error:
        sys.stderr.write(service_traceback(error, script))
        raise SystemExit(1) from None


def service_traceback(error: BaseException, script: str) -> str:
    """The traceback of ``error`` as the service's author would read it: from its script
    on, without the frames naoqi_qicore's imports add."""
    frames = error.__traceback__
    while frames is not None and frames.tb_frame.f_code.co_filename != script:
        frames = frames.tb_next
    kept = [frame for frame in traceback.extract_tb(frames)
            if not frame.filename.startswith(_IMPORT_MACHINERY)]
    return "".join((["Traceback (most recent call last):\n"] if kept else [])
                   + traceback.format_list(kept)
                   + traceback.format_exception_only(type(error), error))


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="app_service_host", description="Run an application's service for the "
        "simulated robot (started by its ALServiceManager).")
    parser.add_argument("--app", required=True, help="the application's folder")
    parser.add_argument("--root", required=True, help="the simulated robot's files")
    parser.add_argument(QI_URL_OPTION, dest="url", required=True, help="the robot's URL")
    parser.add_argument("script", help="the service's Python script")
    parser.add_argument("arguments", nargs=argparse.REMAINDER,
                        help="what execStart gives the script")
    options = parser.parse_args(argv)
    run_service(os.path.abspath(options.app), options.root, options.url,
                os.path.abspath(options.script), options.arguments)
    return 0


def _end(status: int) -> None:
    """End the process at once with ``status``: the qi objects a service leaves behind can
    block Python's own end (their collection waits for libqi threads that are gone)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


if __name__ == "__main__":
    try:
        code = main()
    except SystemExit as ended:
        code = ended.code if isinstance(ended.code, int) else (0 if ended.code is None else 1)
        if not isinstance(ended.code, (int, type(None))):
            sys.stderr.write("%s\n" % ended.code)
    _end(code)
