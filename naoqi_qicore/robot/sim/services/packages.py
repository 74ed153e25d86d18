"""Simulated PackageManager: the applications installed in the robot's files, one folder
each in ``/home/nao/.local/share/PackageManager/apps/`` named by its package id."""
from naoqi_qicore.robot.sim.services.module import SimModule


class PackageManager(SimModule):
    """The installed applications, by package id; the rest of its API answers as NAOqi's
    reference documents it (:mod:`~naoqi_qicore.robot.sim.services.api`)."""

    NAME = "PackageManager"

    def hasPackage(self, uuid: str) -> bool:
        """Whether the application ``uuid`` (a package id) is installed."""
        apps = self._sim.files.apps
        return apps.is_dir() and any(entry.name == uuid and entry.is_dir()
                                     and not entry.is_symlink() for entry in apps.iterdir())
