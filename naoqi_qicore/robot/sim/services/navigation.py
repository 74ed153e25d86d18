"""Simulated ALNavigation and ALVisualCompass: moves go through ALMotion.moveTo.

Maps are simulated too: ``explore`` makes an empty map around the robot, localization
reports the odometry pose (ALMotion.getRobotPosition) relative to where the map started.
"""
import json
import math
from typing import Any, List, Optional, Tuple

from naoqi_qicore.robot.robot_files import HOME
from naoqi_qicore.robot.sim.services.module import SimModule, check_range

#: where the robot keeps its explorations
EXPLORATIONS = HOME + "/.local/share/Explorer"

MAP_RESOLUTION = 0.05  # m per cell


def trajectory_end(trajectory: Any) -> Tuple[float, float, float]:
    """(x, y, theta) reached by an ALNavigation trajectory (Holonomic/Composed, Line/Circle)."""
    kind = trajectory[0] if isinstance(trajectory, list) and trajectory else None
    if kind == "Composed":
        x = y = theta = 0.0
        for part in trajectory[1:]:
            dx, dy, dtheta = trajectory_end(part)
            x += dx * math.cos(theta) - dy * math.sin(theta)
            y += dx * math.sin(theta) + dy * math.cos(theta)
            theta += dtheta
        return x, y, theta
    if kind == "Holonomic" and len(trajectory) >= 3:
        x, y, _ = trajectory_end(trajectory[1])
        return x, y, float(trajectory[2])
    if kind == "Line" and len(trajectory) == 2 and len(trajectory[1]) == 2:
        return float(trajectory[1][0]), float(trajectory[1][1]), 0.0
    if kind == "Circle" and len(trajectory) == 3 and len(trajectory[1]) == 2:
        cx, cy = map(float, trajectory[1])
        angle = float(trajectory[2])
        return (cx - cx * math.cos(angle) + cy * math.sin(angle),
                cy - cx * math.sin(angle) - cy * math.cos(angle), angle)
    raise ValueError("unknown trajectory %r" % (trajectory,))


class ALNavigation(SimModule):
    """Safe moves, trajectories, exploration and localization."""

    NAME = "ALNavigation"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._security_distance = 0.4
        self._map: Optional[dict] = None
        self._localized = False
        self._map_origin = [0.0, 0.0, 0.0]

    def _motion(self) -> Any:
        return self._sim.service("ALMotion")

    def _move(self, x: float, y: float, theta: float) -> bool:
        with self._activity() as activity:
            self._motion().moveTo(x, y, theta)
            return not activity.interrupted

    def navigateTo(self, x: float, y: float, theta: float = 0.0, *config: Any) -> bool:
        """Go to (x, y) m in the robot frame (then turn by ``theta``); True if reached."""
        if math.hypot(x, y) > 3.0:
            raise self._error("navigateTo", "the target must be less than 3 m away")
        return self._move(x, y, theta)

    def moveAlong(self, trajectory: List[Any]) -> bool:
        """Follow a trajectory, e.g. ["Holonomic", ["Line", [1.0, 0.0]], 0.0, 5.0]."""
        try:
            x, y, theta = trajectory_end(trajectory)
        except (ValueError, TypeError) as error:
            raise self._error("moveAlong", str(error))
        return self._move(x, y, theta)

    def stopNavigateTo(self) -> None:
        """Stop the current move."""
        if self._interrupt_all():
            self._motion().stopMove()

    def setSecurityDistance(self, arg1: float) -> None:
        """Distance (m) kept from obstacles."""
        self._security_distance = check_range(self, "setSecurityDistance", "distance", arg1,
                                              0.0, 2.0)

    def getSecurityDistance(self) -> float:
        """Distance (m) kept from obstacles."""
        return self._security_distance

    def _pose(self) -> List[float]:
        return list(self._motion().getRobotPosition(False))

    def explore(self, radius: float) -> int:
        """Map the area within ``radius`` m; returns 0 on success."""
        cells = int(2 * radius / MAP_RESOLUTION)
        self._map_origin = self._pose()
        self._map = {"resolution": MAP_RESOLUTION, "size": cells, "radius": radius}
        return 0

    def saveExploration(self) -> str:
        """Write the map to a file of the robot's files; returns its robot path."""
        if self._map is None:
            raise self._error("saveExploration", "nothing explored")
        place = self._file("saveExploration", EXPLORATIONS)
        try:
            with place.folder(create=True) as folder:
                name = "exploration_%d.explo" % len(folder.names())
                folder.write_bytes(name, json.dumps(self._map).encode("utf-8"))
        except OSError as error:
            raise self._file_failed("saveExploration", "write", EXPLORATIONS, error) from None
        return EXPLORATIONS + "/" + name

    def loadExploration(self, path: str) -> bool:
        """Load a map written by saveExploration (a file of the robot's files)."""
        place = self._file("loadExploration", path)
        try:
            with place.open_read() as source:
                loaded = json.load(source)
        except (OSError, ValueError):
            return False
        if not isinstance(loaded, dict) or not {"resolution", "size", "radius"} <= set(loaded):
            return False
        self._map = loaded
        self._map_origin = self._pose()
        return True

    def getMetricalMap(self) -> List[Any]:
        """[resolution, width, height, [origin x, origin y], cells] (free space)."""
        if self._map is None:
            raise self._error("getMetricalMap", "no map loaded")
        size = self._map["size"]
        origin = [-self._map["radius"], self._map["radius"]]
        return [self._map["resolution"], size, size, origin, [0] * (size * size)]

    def startLocalization(self) -> None:
        """Start localizing in the loaded map."""
        if self._map is None:
            raise self._error("startLocalization", "no map loaded")
        self._localized = True

    def stopLocalization(self) -> None:
        """Stop localizing."""
        self._localized = False

    def relocalizeInMap(self, estimatedPose: List[float]) -> None:
        """Tell where the robot is in the map ([x, y, theta])."""
        if len(estimatedPose) != 3:
            raise self._error("relocalizeInMap", "expected [x, y, theta]")
        x, y, theta = self._pose()
        ex, ey, etheta = estimatedPose
        otheta = theta - etheta
        self._map_origin = [x - ex * math.cos(otheta) + ey * math.sin(otheta),
                            y - ex * math.sin(otheta) - ey * math.cos(otheta), otheta]

    def getRobotPositionInMap(self) -> List[List[float]]:
        """[[x, y, theta], [uncertainties]] in the map."""
        if not self._localized:
            raise self._error("getRobotPositionInMap", "localization is not started")
        x, y, theta = self._pose()
        ox, oy, otheta = self._map_origin
        dx, dy = x - ox, y - oy
        return [[dx * math.cos(otheta) + dy * math.sin(otheta),
                 -dx * math.sin(otheta) + dy * math.cos(otheta), theta - otheta],
                [0.05, 0.05, 0.02]]

    def navigateToInMap(self, target: List[float]) -> int:
        """Go to [x, y(, theta)] of the map; returns 0 when reached."""
        if len(target) not in (2, 3):
            raise self._error("navigateToInMap", "expected [x, y] or [x, y, theta]")
        (x, y, theta), _ = self.getRobotPositionInMap()
        dx, dy = target[0] - x, target[1] - y
        local = (dx * math.cos(theta) + dy * math.sin(theta),
                 -dx * math.sin(theta) + dy * math.cos(theta))
        turn = (target[2] - theta) if len(target) == 3 else 0.0
        return 0 if self._move(local[0], local[1], turn) else 1




class ALVisualCompass(SimModule):
    """Moves corrected by the camera: ALMotion.moveTo in simulation."""

    NAME = "ALVisualCompass"

    def moveTo(self, x: float, y: float, theta: float) -> bool:
        """Move by (x, y, theta) in the robot frame."""
        with self._activity() as activity:
            self._sim.service("ALMotion").moveTo(x, y, theta)
            return not activity.interrupted
