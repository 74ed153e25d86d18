"""Cameras, tablet, DCM and touch of the simulated robot."""
import os
import sys
import time

import numpy
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from test_sim_services_context import pepper, sim, wait_until  # noqa: E402,F401  (fixtures)


def test_video_device_image_array(sim):
    video = sim.service("ALVideoDevice")
    handle = video.subscribeCamera("cam", 0, 1, 11, 15)
    assert video.subscribeCamera("cam", 1, 0, 0, 5) == "cam_0"
    image = video.getImageRemote(handle)
    width, height, layers, colorspace, seconds, micros, pixels, camera = image[:8]
    assert (width, height, layers, colorspace, camera) == (320, 240, 3, 11, 0)
    assert len(pixels) == width * height * layers and isinstance(seconds, int)
    later = video.getImageRemote(handle)
    assert later[6] != pixels or later[4:6] != [seconds, micros]
    assert len(video.getImageRemote("cam_0")[6]) == 160 * 120
    video.setResolution(handle, 2)
    assert video.getImageRemote(handle)[:2] == [640, 480]
    with pytest.raises(RuntimeError, match="unknown resolution 42"):
        video.subscribeCamera("x", 0, 42, 11, 5)
    with pytest.raises(TypeError, match="ALVideoDevice::subscribeCamera: takes 5"):
        video.subscribeCamera("camName", 0, 1)
    with pytest.raises(RuntimeError, match="no camera 2"):
        video.setActiveCamera(2)
    video.unsubscribeAllInstances("cam")
    assert video.getSubscribers() == []
    with pytest.raises(RuntimeError, match="no subscriber 'cam'"):
        video.getImageRemote("cam")


def test_video_device_answers_its_resolutions_and_cameras(sim, pepper):
    """What an application computes its image sizes and cameras from."""
    video = sim.service("ALVideoDevice")
    assert video.resolutionToSizes(1) == [320, 240]
    assert video.resolutionToSizes(8) == [40, 30]
    assert video.sizesToResolution(640, 480) == 2
    assert video.sizesToResolution(641, 480) == -1
    assert all(video.sizesToResolution(*video.resolutionToSizes(index)) == index
               for index in (0, 1, 2, 3, 4, 7, 8))
    with pytest.raises(RuntimeError, match="resolutionToSizes: unknown resolution 42"):
        video.resolutionToSizes(42)
    assert video.getCameraIndexes() == [0, 1]
    assert pepper.service("ALVideoDevice").getCameraIndexes() == [0, 1, 2]


def test_photo_capture_writes_images(sim):
    photo = sim.service("ALPhotoCapture")
    photo.setResolution(0)
    photo.setPictureFormat("png")
    photo.setCameraID(1)
    (path,) = photo.takePicture("/home/nao/pictures", "shot")  # a folder made when missing
    assert path == "/home/nao/pictures/shot.png"
    assert os.path.getsize(sim.files.local(path).path) > 100
    with pytest.raises(RuntimeError, match="'/home/nao/pictures/shot.png' exists"):
        photo.takePicture("/home/nao/pictures", "shot", False)
    with pytest.raises(RuntimeError, match="'/etc/shot.png' is outside the robot's files"):
        photo.takePicture("/etc", "shot")
    photo.setPictureFormat("jpg")
    photo.setCaptureInterval(10)
    paths = photo.takePictures(2, "/home/nao/recordings/cameras/", "burst")
    assert paths == ["/home/nao/recordings/cameras/burst_0.jpg",
                     "/home/nao/recordings/cameras/burst_1.jpg"]
    assert all(sim.files.local(p).path.is_file() for p in paths)
    with pytest.raises(RuntimeError, match="unsupported format 'gif'"):
        photo.setPictureFormat("gif")
    photo.close()
    assert not os.path.exists(paths[0])


def test_tablet_exists_only_on_pepper(sim, pepper):
    with pytest.raises(RuntimeError, match="Cannot find service"):
        sim.service("ALTabletService")
    assert "ALTabletService" in __import__(
        "naoqi_qicore.robot.sim.services", fromlist=["services_for"]).services_for("pepper")


def test_tablet_web_images_video_and_signals(pepper):
    tablet = pepper.service("ALTabletService")
    events = []
    tablet.onTouchDown.connect(lambda x, y: events.append(("down", x, y)))
    tablet.onTouch.connect(lambda x, y: events.append(("touch", x, y)))
    tablet.onTouchMove.connect(lambda x, y: events.append(("move", x, y)))
    tablet.onInputText.connect(lambda button, text: events.append(("text", button, text)))
    assert tablet.showWebview("http://198.18.0.1/apps/my_app/index.html")
    assert tablet.isWebviewVisible()
    assert not tablet.loadUrl("javascript:alert(1)")
    assert not tablet.loadApplication("my_app")  # not installed
    (pepper.files.apps / "my_app" / "html").mkdir(parents=True)
    (pepper.files.apps / "my_app" / "html" / "index.html").write_text("<html/>")
    assert tablet.loadApplication("my_app") and tablet.getCurrentUrl().endswith("/my_app/")
    assert tablet.loadApplication("my_app/") and tablet.getCurrentUrl().endswith("/my_app/")
    assert tablet.robotIp() == tablet.getRobotIp() == "198.18.0.1"
    assert tablet.showImage("http://198.18.0.1/img/a.png")
    assert tablet.getShownImage().endswith("a.png")
    tablet.hideImage()
    assert tablet.playVideo("http://198.18.0.1/v.mp4")
    time.sleep(0.05)
    assert tablet.pauseVideo()
    paused_at = tablet.getVideoPosition()
    time.sleep(0.02)
    assert tablet.getVideoPosition() == paused_at >= 40
    assert tablet.resumeVideo() and tablet.stopVideo() and not tablet.stopVideo()
    with pytest.raises(RuntimeError, match="newBrightness must be in"):
        tablet.setBrightness(2.0)
    tablet.simulateTouch(100.0, 200.0)
    tablet.showInputTextDialog("Name?", "OK", "Cancel")
    tablet.simulateInputText(1, "Ada")
    assert wait_until(lambda: len(events) == 3)
    assert sorted(events) == [("down", 100.0, 200.0), ("text", 1, "Ada"),
                              ("touch", 100.0, 200.0)]  # a tap does not move
    with pytest.raises(RuntimeError, match="no input dialog is open"):
        tablet.simulateInputText(1, "again")


def test_pages_load_as_in_the_tablets_web_view(pepper):
    """ALTabletService relays the tablet's Android web view: loadUrl hands the URL over, then
    onPageStarted, onLoadPageError (WebViewClient.onReceivedError's (errorCode, description,
    failingUrl): a page that cannot be reached, not an HTTP error) and onPageFinished."""
    tablet = pepper.service("ALTabletService")
    signals = []
    assert tablet.loadUrl("http://198.18.0.1/apps/quiz/index.html")
    # the tablet tells how the load went after the call: a box connecting then hears it
    tablet.onPageStarted.connect(lambda: signals.append("started"))
    tablet.onLoadPageError.connect(lambda *error: signals.append(error))
    tablet.onPageFinished.connect(lambda: signals.append("finished"))
    # both: libqi may deliver them in any order, and one still on its way would be counted
    # as the next load's
    assert wait_until(lambda: {"started", "finished"} <= set(signals))

    def load(url, count=2):
        """The ``count`` signals of loading ``url`` (libqi may deliver them in any order:
        sorted, after a moment for any other), and the page's error."""
        signals.clear()
        assert tablet.loadUrl(url)
        assert wait_until(lambda: len(signals) >= count)
        time.sleep(0.05)
        return sorted(signals, key=str), tablet.getPageError()

    missing = "http://198.18.0.1/apps/quiz/index.html"  # the robot serves its 404 page
    assert load(missing) == (["finished", "started"], "404 Not Found")
    assert tablet.getCurrentUrl() == missing
    (pepper.files.apps / "quiz" / "html").mkdir(parents=True)
    (pepper.files.apps / "quiz" / "html" / "index.html").write_text("<html/>")
    assert load(missing) == (["finished", "started"], "")
    assert load("https://example.org/") == (["finished", "started"], "")
    tablet.disableWifi()  # the tablet reaches only the robot
    try:
        assert load("https://example.org/", 3) == (
            [(-2, "net::ERR_NAME_NOT_RESOLVED", "https://example.org/"), "finished",
             "started"], "net::ERR_NAME_NOT_RESOLVED")
        assert not tablet.showImage("https://example.org/a.png")
        assert load(missing) == (["finished", "started"], "")
    finally:
        tablet.enableWifi()
    signals.clear()
    assert not tablet.loadUrl("javascript:alert(1)")
    assert wait_until(lambda: signals == [(-10, "net::ERR_UNKNOWN_URL_SCHEME",
                                           "javascript:alert(1)")])


def test_dcm_time_and_timed_led_commands(sim):
    dcm = sim.service("DCM")
    leds = sim.service("ALLeds")
    start = dcm.getTime(0)
    assert dcm.getTime(1000) - start >= 1000
    device = "Head/Led/Front/Left/0/Actuator/Value"
    # a fade long enough to be seen half-way on a loaded machine
    dcm.set([device, "ClearAll", [[1.0, dcm.getTime(1000)]]])
    assert wait_until(lambda: 0.0 < leds.getIntensity(device) < 1.0)
    assert wait_until(lambda: leds.getIntensity(device) == 1.0, timeout=5.0)
    dcm.set(["ChestBoard/Button/Sensor/Value", "Merge", [[0.5, dcm.getTime(10)]]])
    assert wait_until(lambda: sim.memory.data.get(
        "Device/SubDeviceList/ChestBoard/Button/Sensor/Value") == 0.5)
    with pytest.raises(RuntimeError, match="'Replace' is not one of"):
        dcm.set([device, "Replace", [[0.0, 0]]])
    dcm.createAlias(["Brain", [device, "Head/Led/Rear/Right/2/Actuator/Value"]])
    dcm.setAlias(["Brain", "ClearAll", "time-separate", 0, [dcm.getTime(20)], [[0.0], [1.0]]])
    assert wait_until(lambda: leds.getIntensity("Head/Led/Rear/Right/2/Actuator/Value") == 1.0)
    assert wait_until(lambda: leds.getIntensity(device) == 0.0)
    with pytest.raises(RuntimeError, match="has 2 devices, got 1"):
        dcm.setAlias(["Brain", "Merge", "time-mixed", [[[1.0, 0]]]])


def test_touch_status_and_events(sim, pepper):
    touch = sim.service("ALTouch")
    assert "LFoot/Bumper/Left" in touch.getSensorList()
    touch.simulateTouch("Head/Touch/Front", True)
    assert sim.memory.getData("FrontTactilTouched") == 1.0
    assert ["Head/Touch/Front", True, []] in touch.getStatus()
    assert sim.memory.getData("TouchChanged") == [["Head/Touch/Front", True]]
    assert "Bumper/Back" in pepper.service("ALTouch").getSensorList()
    with pytest.raises(RuntimeError, match="no sensor 'Nose'"):
        touch.simulateTouch("Nose", True)


def test_synthetic_image_moves_with_time():
    from naoqi_qicore.robot.sim.services.camera import synthetic_image
    first, later = synthetic_image(40, 30, 3, 0.0), synthetic_image(40, 30, 3, 0.5)
    assert first.shape == (30, 40, 3) and not numpy.array_equal(first, later)
