"""Box-facing compatibility modules: ``naoqi`` and ``almath`` for scripts written for NAOqi.

:func:`box_environment` is the engine's box environment for a behavior played on a qi
session: inside box code ``import naoqi``, ``from naoqi import *`` and ``import almath``
work without a NAOqi SDK, and ``ALProxy``, ``ALModule``, ``ALBroker``, ``ALBehavior``, ``qi`` and the
global proxies of old scripts (``ALMemory``, ``ALMotion``, ``ALLeds``, ``ALLogger``,
``ALSensors``) are already defined.  A real ``naoqi`` or ``almath`` module installed on the
machine wins over ours.  ``self.session()`` and ``qi.Session()`` give box code sessions
that behave as on the robot (:mod:`~naoqi_qicore.robot.naoqi_compat.box_session`).  When a
run ends, what box code left running on the robot is stopped
(:mod:`~naoqi_qicore.robot.naoqi_compat.robot_work`).  Given the robot's files
(:class:`~naoqi_qicore.robot.robot_files.RobotFiles`), the paths box code opens itself
(``/home/nao/...``) are those files (:mod:`naoqi_qicore.core.box_paths`), and on a
simulated robot the failures of the services of the behavior's application are errors of
its runs (:mod:`~naoqi_qicore.robot.naoqi_compat.app_services`) and the failures of the
calls box code posted are warnings of them
(:mod:`~naoqi_qicore.robot.naoqi_compat.posted_calls`).
"""
from __future__ import annotations

import importlib.util
from types import ModuleType
from typing import Dict, Optional

from naoqi_qicore.core.environment import BehaviorContext, ScriptEnvironment
from naoqi_qicore.robot.naoqi_compat import almath
from naoqi_qicore.robot.naoqi_compat.app_services import AppServiceFailures
from naoqi_qicore.robot.naoqi_compat.box_session import (BoxSession, LocalSubscriptions,
                                                         PeriodicTasks, box_qi_module)
from naoqi_qicore.robot.naoqi_compat.naoqi import global_proxies, naoqi_module
from naoqi_qicore.robot.naoqi_compat.posted_calls import PostedCallFailures
from naoqi_qicore.robot.naoqi_compat.robot_work import RobotWork
from naoqi_qicore.robot.robot_files import RobotFiles


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def box_environment(context: BehaviorContext,
                    files: Optional[RobotFiles] = None) -> ScriptEnvironment:
    """The ``naoqi``/``almath``/``qi`` environment of one behavior (a
    ``BoxEnvironmentFactory``, with ``files`` bound: the robot's files box code's paths
    are mapped into)."""
    import qi

    local = LocalSubscriptions(context)
    periodic = PeriodicTasks(qi, context)
    # what ends the environment when the behavior is unloaded
    closers = [periodic.stop_all, local.close]
    posted = None
    if files is not None:  # a robot whose files are known: it may be a simulated one
        failures, posted = AppServiceFailures(context), PostedCallFailures(context)
        closers += [failures.close, posted.close]
    work = RobotWork(context.session, context.guard,
                     posted.posted if posted is not None else None)
    session = BoxSession(context.session, context, local, work)
    box_qi = box_qi_module(qi, context, local, periodic, work)
    modules: Dict[str, ModuleType] = {"qi": box_qi}
    if _installed("naoqi"):
        naoqi = importlib.import_module("naoqi")
    else:
        naoqi = naoqi_module(context, session, local)
        modules["naoqi"] = naoqi
    if not _installed("almath"):
        modules["almath"] = almath
    names = {name: getattr(naoqi, name) for name in ("ALProxy", "ALModule", "ALBroker",
                                                     "ALBehavior") if hasattr(naoqi, name)}
    names["qi"] = box_qi
    if "ALProxy" in names:
        names.update(global_proxies(names["ALProxy"]))

    def close() -> None:
        for closer in closers:
            closer()
    if files is None:
        return ScriptEnvironment(modules=modules, names=names, session=session, close=close,
                                 stop=work.stop)
    return ScriptEnvironment(modules=modules, names=names, session=session, close=close,
                             stop=work.stop, paths=files.box_path,
                             temporary_folder=str(files.temporary))
