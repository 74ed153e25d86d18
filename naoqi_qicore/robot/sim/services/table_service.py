"""Simulated services built from NAOqi's API reference alone (see
:mod:`naoqi_qicore.robot.sim.services.api`), for the services with no class of their own."""
from typing import Tuple

from naoqi_qicore.robot.sim.services.api import documented_services, groups
from naoqi_qicore.robot.sim.services.extractor import Extractor
from naoqi_qicore.robot.sim.services.module import SimModule


def table_service(name: str, robots: Tuple[str, ...] = ("nao", "pepper")) -> type:
    """A simulated service built from its table lines alone (an extractor when the table
    says so): its settings keep their values, the rest answers as the table says."""
    if name not in documented_services():
        raise ValueError("%s is not in the API table" % name)
    base = Extractor if "ALExtractor" in groups(name) else SimModule
    return type(name, (base,), {
        "NAME": name, "ROBOTS": robots, "__module__": __name__,
        "__doc__": "NAOqi's %s as its API reference documents it." % name})
