"""Simulated cameras: ALVideoDevice (image buffers) and ALPhotoCapture (image files).

Images are synthetic: a color gradient with a bar that moves with the clock. Photos go to
the requested folder of the robot's files (``/home/nao/recordings/cameras``...; created when
missing); answers name them by the robot's paths.
"""
import math
import posixpath
from typing import TYPE_CHECKING, Any, Dict, List

import qi

if TYPE_CHECKING:
    import numpy

from naoqi_qicore.robot.sim.services.module import SimModule

# NAOqi resolution index -> (width, height)
RESOLUTIONS = {8: (40, 30), 7: (80, 60), 0: (160, 120), 1: (320, 240), 2: (640, 480),
               3: (1280, 960), 4: (2560, 1920)}
# NAOqi color space index -> layers
COLOR_SPACES = {0: 1, 9: 2, 10: 3, 11: 3, 12: 3, 13: 3}
CAMERAS = {"nao": {0: "Top", 1: "Bottom"}, "pepper": {0: "Top", 1: "Bottom", 2: "Depth"}}
FIELD_OF_VIEW = (math.radians(60.9), math.radians(47.6))  # horizontal, vertical
# The image array as a typed struct, so that the pixels cross libqi as a raw buffer.
IMAGE_SIGNATURE = "(iiiiiiriffff)"
PICTURE_FORMATS = {"jpg": "jpeg", "jpeg": "jpeg", "png": "png", "bmp": "bmp", "tiff": "tiff",
                   "tif": "tiff"}


def synthetic_image(width: int, height: int, layers: int, now: float) -> "numpy.ndarray":
    """height x width x layers uint8: a gradient and a vertical bar moving with ``now``."""
    import numpy  # on the first image: a robot started for anything else does without it
    xs = numpy.linspace(0, 255, width, dtype=numpy.float32)
    ys = numpy.linspace(0, 255, height, dtype=numpy.float32)
    image = numpy.empty((height, width, 3), dtype=numpy.uint8)
    image[..., 0] = xs[None, :]
    image[..., 1] = ys[:, None]
    image[..., 2] = 128
    bar = int((now * 0.5 % 1.0) * width)
    image[:, bar:bar + max(1, width // 20), :] = 255
    return image[..., :layers] if layers < 3 else image


class ALVideoDevice(SimModule):
    """Camera subscriptions and synthetic image buffers in NAOqi's image array format."""

    NAME = "ALVideoDevice"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._cameras = CAMERAS.get(sim.robot, CAMERAS["nao"])
        self._active_camera = 0
        self._handles: Dict[str, List[int]] = {}  # handle -> [camera, resolution, colorspace, fps]

    def _check(self, method: str, camera: int, resolution: int, colorSpace: int,
               fps: int) -> None:
        if camera not in self._cameras:
            raise self._error(method, "no camera %d (cameras: %s)" % (camera, sorted(self._cameras)))
        if resolution not in RESOLUTIONS:
            raise self._error(method, "unknown resolution %d" % resolution)
        if colorSpace not in COLOR_SPACES:
            raise self._error(method, "unknown color space %d" % colorSpace)
        if not 1 <= fps <= 30:
            raise self._error(method, "fps must be in [1, 30], got %d" % fps)

    def _handle(self, method: str, handle: str) -> List[int]:
        if handle not in self._handles:
            raise self._error(method, "no subscriber '%s'" % handle)
        return self._handles[handle]

    def subscribeCamera(self, name: str, cameraIndex: int, resolution: int, colorSpace: int,
                        fps: int) -> str:
        """Subscribe to a camera; returns the handle to use (``name`` made unique)."""
        self._check("subscribeCamera", cameraIndex, resolution, colorSpace, fps)
        with self._lock:
            handle, suffix = name, 0
            while handle in self._handles:
                handle, suffix = "%s_%d" % (name, suffix), suffix + 1
            self._handles[handle] = [cameraIndex, resolution, colorSpace, fps]
        return handle

    def subscribe(self, name: str, resolution: int, colorSpace: int, fps: int) -> str:
        """Subscribe to the active camera (deprecated form)."""
        return self.subscribeCamera(name, self._active_camera, resolution, colorSpace, fps)

    def unsubscribe(self, handle: str) -> bool:
        """Release a handle."""
        with self._lock:
            return self._handles.pop(handle, None) is not None

    def unsubscribeAllInstances(self, name: str) -> None:
        """Release every handle made from ``name``."""
        with self._lock:
            for handle in [h for h in self._handles if h == name or h.startswith(name + "_")]:
                del self._handles[handle]

    def getSubscribers(self) -> List[str]:
        """Current handles."""
        with self._lock:
            return sorted(self._handles)

    @qi.bind(returnType=IMAGE_SIGNATURE)
    def getImageRemote(self, handle: str) -> List[Any]:
        """[width, height, layers, colorspace, seconds, microseconds, bytes, camera id,
        left, top, right, bottom angles (rad)]."""
        camera, resolution, color_space, _ = self._handle("getImageRemote", handle)
        width, height = RESOLUTIONS[resolution]
        layers = COLOR_SPACES[color_space]
        now = self._sim.clock()
        pixels = synthetic_image(width, height, layers, now).tobytes()
        half_h, half_v = FIELD_OF_VIEW[0] / 2, FIELD_OF_VIEW[1] / 2
        return [width, height, layers, color_space, int(now), int(now % 1 * 1e6), pixels,
                camera, half_h, half_v, -half_h, -half_v]

    @qi.bind(returnType=IMAGE_SIGNATURE)
    def getImageLocal(self, handle: str) -> List[Any]:
        """Same as getImageRemote in simulation."""
        return self.getImageRemote(handle)

    def releaseImage(self, handle: str) -> bool:
        """Give an image back (nothing to free in simulation)."""
        self._handle("releaseImage", handle)
        return True

    def getActiveCamera(self) -> int:
        """Camera used by ``subscribe``."""
        return self._active_camera

    def setActiveCamera(self, activeCamera: int) -> bool:
        """Choose the camera used by ``subscribe``."""
        if activeCamera not in self._cameras:
            raise self._error("setActiveCamera", "no camera %d" % activeCamera)
        self._active_camera = activeCamera
        return True

    def _set(self, method: str, handle: str, index: int, value: int) -> bool:
        settings = list(self._handle(method, handle))
        settings[index] = value
        self._check(method, *settings)
        self._handles[handle] = settings
        return True

    def setResolution(self, handle: str, resolution: int) -> bool:
        """Change a handle's resolution."""
        return self._set("setResolution", handle, 1, resolution)

    def setColorSpace(self, handle: str, colorSpace: int) -> bool:
        """Change a handle's color space."""
        return self._set("setColorSpace", handle, 2, colorSpace)

    def setFrameRate(self, handle: str, frameRate: int) -> bool:
        """Change a handle's frame rate."""
        return self._set("setFrameRate", handle, 3, frameRate)

    def getResolution(self, handle: str) -> int:
        """A handle's resolution."""
        return self._handle("getResolution", handle)[1]

    def getColorSpace(self, handle: str) -> int:
        """A handle's color space."""
        return self._handle("getColorSpace", handle)[2]

    def getCameraIndexes(self) -> List[int]:
        """The indexes of the robot's cameras."""
        return sorted(self._cameras)

    def resolutionToSizes(self, resolution: int) -> List[int]:
        """``[width, height]`` of the images of resolution index ``resolution``."""
        if resolution not in RESOLUTIONS:
            raise self._error("resolutionToSizes", "unknown resolution %d" % resolution)
        return list(RESOLUTIONS[resolution])

    def sizesToResolution(self, width: int, height: int) -> int:
        """The resolution index of ``width`` x ``height`` images, -1 for none."""
        found = [index for index, sizes in RESOLUTIONS.items() if sizes == (width, height)]
        return found[0] if found else -1


class ALPhotoCapture(SimModule):
    """Pictures written as image files (synthetic content)."""

    NAME = "ALPhotoCapture"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._resolution = 2
        self._format = "jpg"
        self._camera = 0
        self._interval_ms = 200

    def _write(self, folder: str, name: str, overwrite: bool, index: int) -> str:
        """Write one picture; its robot path."""
        from matplotlib import image as matplotlib_image  # slow import, only when used

        width, height = RESOLUTIONS[self._resolution]
        stem = name if index < 0 else "%s_%d" % (name, index)
        place = self._file("takePicture", posixpath.join(folder or ".", "%s.%s"
                                                         % (stem, self._format)))
        robot = place.shown  # the robot's path
        if place.exists() and not overwrite:
            raise self._error("takePicture", "'%s' exists (overwrite is off)" % robot)
        pixels = synthetic_image(width, height, 3, self._sim.clock() + index)
        try:
            place.parent.make_dirs()
            with place.replace() as stream:
                matplotlib_image.imsave(stream, pixels, format=PICTURE_FORMATS[self._format])
        except OSError as error:
            raise self._file_failed("takePicture", "write", robot, error) from None
        return robot

    def takePicture(self, folderPath: str, fileName: str, overwrite: bool = True) -> List[str]:
        """Write one picture; returns [path]."""
        return [self._write(folderPath, fileName, overwrite, -1)]

    def takePictures(self, numberOfPictures: int, folderPath: str, fileName: str,
                     overwrite: bool = True) -> List[Any]:
        """Write a burst of pictures ``fileName_i``; returns [paths]."""
        if numberOfPictures < 1:
            raise self._error("takePictures", "numberOfPictures must be at least 1")
        paths = []
        with self._activity() as activity:
            for index in range(numberOfPictures):
                paths.append(self._write(folderPath, fileName, overwrite, index))
                if index + 1 < numberOfPictures and not activity.sleep(self._interval_ms / 1e3):
                    break
        return paths

    def setResolution(self, resolution: int) -> None:
        """Picture resolution (NAOqi resolution index)."""
        if resolution not in RESOLUTIONS:
            raise self._error("setResolution", "unknown resolution %d" % resolution)
        self._resolution = resolution

    def getResolution(self) -> int:
        """Picture resolution index."""
        return self._resolution

    def setPictureFormat(self, pictureFormat: str) -> None:
        """jpg, png, bmp or tiff."""
        if pictureFormat.lower() not in PICTURE_FORMATS:
            raise self._error("setPictureFormat", "unsupported format '%s' (supported: %s)"
                              % (pictureFormat, ", ".join(PICTURE_FORMATS)))
        self._format = pictureFormat.lower()

    def getPictureFormat(self) -> str:
        """Picture file format."""
        return self._format

    def setCameraID(self, cameraID: int) -> None:
        """0 top, 1 bottom."""
        if cameraID not in CAMERAS.get(self._sim.robot, CAMERAS["nao"]):
            raise self._error("setCameraID", "no camera %d" % cameraID)
        self._camera = cameraID

    def getCameraID(self) -> int:
        """Camera taking the pictures."""
        return self._camera

    def setCaptureInterval(self, captureInterval: int) -> None:
        """Milliseconds between the pictures of a burst."""
        self._interval_ms = max(0, captureInterval)

    def getCaptureInterval(self) -> int:
        """Milliseconds between the pictures of a burst."""
        return self._interval_ms
