"""Simulated ALTabletService (Pepper only): web view, images, video, dialogs, touch signals.

Nothing is displayed; the tablet's state (URL, image, video position, brightness...) evolves
as on the robot, and ``simulateTouch`` / ``simulateInputText`` stand for the user's fingers.
The robot serves its applications' ``html`` folders to the tablet
(``http://198.18.0.1/apps/<package id>/<file>`` is ``<file>`` in the ``html`` folder of the
application in the robot's files, a folder's page its ``index.html``): an image or a video
there that is missing is not shown, and such a URL leading out of the robot's files is
refused.  ``loadApplication(package id)`` shows an installed application's page (its id
with or without a trailing slash, as the standard "Show App" box gives it).

Pages load as in the tablet's Android web view, whose ``WebViewClient`` callbacks the
signals relay (``onLoadPageError(errorCode, description, failingUrl)`` is
``onReceivedError``'s signature): ``loadUrl`` hands the URL over and returns True, then
(:data:`PAGE_LOAD_S` later: a box may connect to them after the call)
``onPageStarted``, ``onLoadPageError`` for a page that cannot be reached (Android's
``ERROR_*`` code and Chromium's ``net::`` description) and ``onPageFinished`` follow, an
unreachable page ending with the web view's error page.  A robot's URL with no file behind
it is reached: the robot's web server answers "404 Not Found" and the tablet shows that
page (an HTTP error is no ``onReceivedError``).  With its wifi off the tablet reaches only
the robot.  ``getPageError`` (a simulation query) tells what the page shown is instead of
the one asked for.
"""
import itertools
import posixpath
import threading
from typing import Any, Callable, List, Optional
from urllib.parse import unquote, urlsplit

import qi

from naoqi_qicore.robot.robot_apps import is_package_id
from naoqi_qicore.robot.robot_files import APPS, LAST_UPLOADED
from naoqi_qicore.robot.sim.services.module import SimModule, check_range

ROBOT_IP_FOR_TABLET = "198.18.0.1"
KEYBOARDS = ["English", "French", "German", "Italian", "Japanese", "Spanish", "Chinese"]
_WEB = ("http://", "https://", "file://")
#: the robot's address as the tablet (and a box asking ``robotIp()``) knows it
_ROBOT_HOSTS = (ROBOT_IP_FOR_TABLET, "127.0.0.1", "localhost")
#: Android's WebViewClient error codes, with Chromium's descriptions
_UNSUPPORTED_SCHEME = (-10, "net::ERR_UNKNOWN_URL_SCHEME")
_HOST_LOOKUP = (-2, "net::ERR_NAME_NOT_RESOLVED")
#: what the robot's web server answers for a file it does not have
NOT_FOUND = "404 Not Found"
#: how long after ``loadUrl`` returns the tablet, another device, tells how the load went (s)
PAGE_LOAD_S = 0.1


class ALTabletService(SimModule):
    """Pepper's tablet."""

    NAME = "ALTabletService"
    ROBOTS = ("pepper",)

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._url = ""
        self._page_error = ""
        self._loading: Optional[threading.Timer] = None
        self._webview_visible = False
        self._image = ""
        self._preloaded: List[str] = []
        self._background = "#000000"
        self._brightness = 1.0
        self._screen_on = True
        self._video: Optional[List[Any]] = None  # [url, position s, started_at or None]
        self._wifi = True
        self._keyboard = "English"
        self._dialogs = itertools.count(1)
        self._open_dialog = 0
        self.scripts: List[str] = []
        self.onTouchDown = qi.Signal("(ff)")
        self.onTouchUp = qi.Signal("(ff)")
        self.onTouchMove = qi.Signal("(ff)")  # a finger dragged (a tap does not move)
        self.onTouch = qi.Signal("(ff)")  # the older name of onTouchDown, still raised
        self.onTouchDownRatio = qi.Signal("(ffs)")
        self.onPageStarted = qi.Signal("()")
        self.onPageFinished = qi.Signal("()")
        self.onLoadPageError = qi.Signal("(iss)")
        self.onInputText = qi.Signal("(is)")
        self.onJSEvent = qi.Signal("(s)")
        self.onConsoleMessage = qi.Signal("(s)")
        self.videoStarted = qi.Signal("()")
        self.videoFinished = qi.Signal("()")
        self.onImageLoaded = qi.Signal("()")

    def _app_file(self, method: str, url: str) -> Optional[bool]:
        """For the URL of a file the robot serves from an application
        (``http://<robot>/apps/<package id>/<file>``): whether the file is in that
        application's ``html`` folder; None for any other URL.  A NAOqi-style error when
        it leads out of the robot's files."""
        parts = urlsplit(url)
        if parts.scheme != "http" or parts.hostname not in _ROBOT_HOSTS \
                or not parts.path.startswith("/apps/"):
            return None
        app, _, rest = unquote(parts.path[len("/apps/"):]).partition("/")
        rest = rest.lstrip("/")
        if rest == "" or rest.endswith("/"):
            rest += "index.html"  # a folder's page
        html = posixpath.join(APPS, app, "html")
        robot_path = posixpath.normpath(posixpath.join(html, rest))
        local = self._file(method, robot_path)
        if app not in ("", ".", "..") and robot_path.startswith(html + "/") \
                and local.exists():
            return True
        self._sim.log.warning("ALTabletService.%s: %s is no file of the application's html "
                             "folder in the robot's files", method, url)
        return False

    def _offline(self, url: str, robot_file: Optional[bool]) -> bool:
        """Whether the tablet cannot reach ``url`` (not the robot's) with its wifi off."""
        return robot_file is None and not self._wifi and urlsplit(url).scheme != "file"

    def _fetchable(self, method: str, url: str) -> bool:
        """Whether the tablet can fetch the image or video at ``url``."""
        if not url.startswith(_WEB):
            return False
        robot_file = self._app_file(method, url)
        return robot_file is not False and not self._offline(url, robot_file)

    # -- web view ---------------------------------------------------------------------------
    def loadUrl(self, url: str) -> bool:
        """Load a page (http, https or file URL; False and onLoadPageError otherwise): the
        page signals follow as the web view loads it (see the module's documentation)."""
        if not url.startswith(_WEB):
            self._after_load(lambda: self.onLoadPageError(*_UNSUPPORTED_SCHEME, url))
            return False
        try:
            robot_file = self._app_file("loadUrl", url)
        except RuntimeError as error:
            refused = str(error)
            self._after_load(lambda: self.onLoadPageError(-1, refused, url))
            return False
        unreachable = self._offline(url, robot_file)
        self._url = url
        self._page_error = NOT_FOUND if robot_file is False else \
            _HOST_LOOKUP[1] if unreachable else ""

        def signals() -> None:
            self.onPageStarted()
            if unreachable:
                self.onLoadPageError(*_HOST_LOOKUP, url)
            self.onPageFinished()
        self._after_load(signals)
        return True

    def _after_load(self, signals: Callable[[], None]) -> None:
        """Raise a load's ``signals`` once the call returned, as the tablet does; a newer
        load abandons the one still under way."""
        with self._lock:
            if self._loading is not None:
                self._loading.cancel()
            self._loading = threading.Timer(PAGE_LOAD_S, signals)
            self._loading.daemon = True
            self._loading.start()

    def close(self) -> None:
        """Abandon the load under way (the robot shuts down)."""
        with self._lock:
            if self._loading is not None:
                self._loading.cancel()
        super().close()

    def getPageError(self) -> str:
        """Why the page shown is not the one asked for: "404 Not Found" (the robot's web
        server has no such file), a ``net::`` error (the tablet could not reach it), ""
        when it is (simulation query)."""
        return self._page_error

    def showWebview(self, url: Optional[str] = None) -> bool:
        """Show the web view (after loading ``url`` when given)."""
        if url is not None and not self.loadUrl(url):
            return False
        self._webview_visible = True
        return True

    def hideWebview(self) -> bool:
        """Hide the web view."""
        self._webview_visible = False
        return True

    def reloadPage(self, bypassCache: bool) -> None:
        """Reload the current page."""
        if self._url:
            self.loadUrl(self._url)

    def getCurrentUrl(self) -> str:
        """URL of the page loaded in the web view ("" when none)."""
        return self._url

    def isWebviewVisible(self) -> bool:
        """Whether the web view is shown (simulation query)."""
        return self._webview_visible

    def executeJS(self, script: str) -> None:
        """Run JavaScript in the page (recorded in ``scripts``)."""
        self.scripts.append(script)

    def loadApplication(self, name: str) -> bool:
        """Load the page of an installed application (its ``html/index.html``), named by
        its package id (a trailing slash allowed); False when no such application is
        installed."""
        package = name.strip("/")
        if not (is_package_id(package) or package == LAST_UPLOADED) \
                or not (self._sim.files.apps / package).is_dir():
            self._sim.log.warning("ALTabletService.loadApplication: no application '%s' is "
                                  "installed", name)
            return False
        return self.loadUrl("http://%s/apps/%s/" % (ROBOT_IP_FOR_TABLET, package))

    def getRobotIp(self) -> str:
        """Address of the robot as seen from the tablet."""
        return ROBOT_IP_FOR_TABLET

    def robotIp(self) -> str:
        """Address of the robot as seen from the tablet."""
        return ROBOT_IP_FOR_TABLET

    # -- images -----------------------------------------------------------------------------
    def preLoadImage(self, url: str) -> bool:
        """Fetch an image in advance."""
        if not self._fetchable("preLoadImage", url):
            return False
        self._preloaded.append(url)
        return True

    def showImage(self, url: str) -> bool:
        """Show an image (False when it cannot be fetched)."""
        if not self._fetchable("showImage", url):
            return False
        self._image = url
        self.onImageLoaded()
        return True

    def showImageNoCache(self, url: str) -> bool:
        """Show an image, fetching it again."""
        return self.showImage(url)

    def hideImage(self) -> None:
        """Hide the image."""
        self._image = ""

    def getShownImage(self) -> str:
        """URL of the image shown ("" when none; simulation query)."""
        return self._image

    def setBackgroundColor(self, color: str) -> bool:
        """Background color "#RRGGBB"."""
        hex_digits = color[1:]
        if not (color.startswith("#") and len(hex_digits) == 6
                and all(c in "0123456789abcdefABCDEF" for c in hex_digits)):
            return False
        self._background = color
        return True

    # -- video ------------------------------------------------------------------------------
    def playVideo(self, url: str) -> bool:
        """Play a video (False when it cannot be fetched)."""
        if not self._fetchable("playVideo", url):
            return False
        self._video = [url, 0.0, self._sim.clock()]
        self.videoStarted()
        return True

    def _video_position(self) -> float:
        if self._video is None:
            return 0.0
        _, position, started_at = self._video
        return position + (self._sim.clock() - started_at if started_at is not None else 0.0)

    def pauseVideo(self) -> bool:
        """Pause the video."""
        if self._video is None:
            return False
        self._video = [self._video[0], self._video_position(), None]
        return True

    def resumeVideo(self) -> bool:
        """Resume the video."""
        if self._video is None or self._video[2] is not None:
            return False
        self._video[2] = self._sim.clock()
        return True

    def stopVideo(self) -> bool:
        """Stop the video."""
        if self._video is None:
            return False
        self._video = None
        self.videoFinished()
        return True

    def getVideoPosition(self) -> int:
        """Position in the video, in ms."""
        return int(self._video_position() * 1000)

    # -- screen, wifi, keyboard, dialogs ------------------------------------------------------
    def setBrightness(self, newBrightness: float) -> bool:
        """Screen brightness in [0, 1]."""
        self._brightness = check_range(self, "setBrightness", "newBrightness", newBrightness,
                                       0.0, 1.0)
        return True

    def getBrightness(self) -> float:
        """Screen brightness."""
        return self._brightness

    def turnScreenOn(self, turnOn: bool) -> None:
        """Switch the screen on or off."""
        self._screen_on = turnOn

    def goToSleep(self) -> None:
        """Switch the screen off."""
        self._screen_on = False

    def wakeUp(self) -> None:
        """Switch the screen on."""
        self._screen_on = True

    def resetTablet(self) -> None:
        """Hide everything and stop the video."""
        self.hideWebview()
        self.hideImage()
        if self._video is not None:
            self.stopVideo()
        self._url = ""
        self._page_error = ""

    def hide(self) -> None:
        """Hide the web view and the image."""
        self.hideWebview()
        self.hideImage()

    def enableWifi(self) -> None:
        """Switch the tablet's wifi on."""
        self._wifi = True

    def disableWifi(self) -> None:
        """Switch the tablet's wifi off."""
        self._wifi = False

    def getWifiStatus(self) -> str:
        """"CONNECTED" or "DISCONNECTED"."""
        return "CONNECTED" if self._wifi else "DISCONNECTED"

    def getAvailableKeyboards(self) -> List[str]:
        """Keyboard languages."""
        return list(KEYBOARDS)

    def setKeyboard(self, keyboard: str) -> bool:
        """Choose the keyboard language."""
        if keyboard not in KEYBOARDS:
            return False
        self._keyboard = keyboard
        return True

    def showInputTextDialog(self, title: str, ok: str, cancel: str, initialInput: str = "",
                            maxLength: int = -1) -> None:
        """Open a text input dialog; the answer comes through onInputText."""
        self._open_dialog = next(self._dialogs)

    def hideDialog(self) -> None:
        """Close the open dialog."""
        self._open_dialog = 0

    def simulateTouch(self, x: float, y: float) -> None:
        """Simulation only: a finger taps the screen at (x, y) pixels."""
        self.onTouchDown(x, y)
        self.onTouch(x, y)
        self.onTouchDownRatio(x / 1280.0, y / 800.0, "webview" if self._webview_visible else "")
        self.onTouchUp(x, y)

    def simulateInputText(self, button: int, text: str) -> None:
        """Simulation only: the user answers the open dialog (button 1 = OK, 0 = cancel)."""
        if not self._open_dialog:
            raise self._error("simulateInputText", "no input dialog is open")
        self._open_dialog = 0
        self.onInputText(button, text)
