"""ALLeds of the simulated robot."""
import os
import sys
import threading
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from test_sim_services_context import pepper, sim, wait_until  # noqa: F401  (fixtures)


def test_groups_depend_on_the_robot(sim, pepper):
    nao_groups = sim.service("ALLeds").listGroups()
    assert {"FaceLeds", "EarLeds", "ChestLeds", "FeetLeds", "BrainLeds", "AllLeds",
            "FaceLed0"} <= set(nao_groups)
    assert "FeetLeds" not in pepper.service("ALLeds").listGroups()
    assert len(sim.service("ALLeds").listGroup("FaceLeds")) == 48


# What ``listGroups()`` returned on a real Pepper (NAOqi 2.5).
REAL_PEPPER_GROUPS = (
    ["AllLeds", "AllLedsBlue", "AllLedsGreen", "AllLedsRed", "ChestLeds", "EarLeds", "FaceLeds",
     "FaceLedsBottom", "FaceLedsExternal", "FaceLedsInternal", "FaceLedsTop"]
    + ["EarLed%d" % n for n in range(1, 11)] + ["FaceLed%d" % n for n in range(8)]
    + ["FaceLed%s%d" % (side, n) for side in ("Left", "Right") for n in range(8)]
    + ["FaceLeds%s%s" % (side, part) for side in ("Left", "Right")
       for part in ("Bottom", "External", "Internal", "Top")]
    + ["%sEarLeds%s" % (side, part) for side in ("Left", "Right")
       for part in ("", "Back", "Even", "Front", "Odd")]
    + ["%sFaceLeds%s" % (side, color) for side in ("Left", "Right")
       for color in ("", "Blue", "Green", "Red")])


def led(color, side, degrees):
    return "Face/Led/%s/%s/%dDeg/Actuator/Value" % (color, side, degrees)


def test_groups_and_short_names_of_the_documentation(sim, pepper):
    assert sorted(pepper.service("ALLeds").listGroups()) == sorted(REAL_PEPPER_GROUPS)
    leds = sim.service("ALLeds")
    assert set(leds.listGroups()) - set(REAL_PEPPER_GROUPS) == {
        "BrainLeds", "BrainLedsBack", "BrainLedsMiddle", "BrainLedsFront", "BrainLedsLeft",
        "BrainLedsRight", "FeetLeds", "LeftFootLeds", "RightFootLeds"}
    # short names are not groups, but every method takes them
    assert {"RightFaceLed1", "LeftEarLed10", "ChestLedsRed", "Brain11",
            "LeftFootLedsBlue"} <= set(leds.listLEDs())
    assert leds.listLED("ChestLedsRed") == ["ChestBoard/Led/Red/Actuator/Value"]
    assert leds.listLED("FaceLeds") == []
    # NAO V5 eye LED locations: group numbers mirror the eyes, short names do not
    assert leds.listGroup("FaceLed0") == [led(c, "Left", 45) for c in ("Red", "Green", "Blue")] \
        + [led(c, "Right", 315) for c in ("Red", "Green", "Blue")]
    assert leds.listGroup("FaceLedRight3") == leds.listGroup("RightFaceLed5") == [
        led(c, "Right", 180) for c in ("Red", "Green", "Blue")]
    assert leds.listGroup("LeftFaceLed8") == [led(c, "Left", 90) for c in ("Red", "Green", "Blue")]
    assert leds.listGroup("Brain0") == ["Head/Led/Front/Right/1/Actuator/Value"]
    assert leds.listGroup("RightFootLedsGreen") == ["RFoot/Led/Green/Actuator/Value"]
    assert len(leds.listGroup("BrainLedsBack")) == 6 and len(leds.listGroup("EarLed3")) == 2
    # the four quarters of the eyes split FaceLeds, both eyes alike
    quarters = [leds.listGroup("FaceLeds" + q) for q in ("Top", "External", "Bottom", "Internal")]
    assert sorted(sum(quarters, [])) == sorted(leds.listGroup("FaceLeds"))
    assert all(len(quarter) == 12 for quarter in quarters)
    assert leds.listGroup("FaceLedsTop") == leds.listGroup("FaceLedsLeftTop") + leds.listGroup(
        "FaceLedsRightTop")
    assert sorted(leds.listGroup("LeftEarLedsOdd") + leds.listGroup("LeftEarLedsEven")) == sorted(
        leds.listGroup("LeftEarLedsFront") + leds.listGroup("LeftEarLedsBack"))


def test_a_quarter_of_the_eyes_takes_its_own_color(sim):
    leds = sim.service("ALLeds")
    leds.fadeRGB("FaceLeds", 0x000000, 0.0)
    leds.fadeRGB("FaceLedsExternal", 0xFF0000, 0.0)
    assert leds.getIntensity("FaceLedsExternal") == pytest.approx(1 / 3)
    assert leds.getIntensity("FaceLedsTop") == 0.0
    assert leds.getIntensity(leds.listGroup("FaceLedsLeftExternal")[0]) == 1.0


def test_fade_rgb_takes_its_duration_and_sets_channels(sim):
    leds = sim.service("ALLeds")
    started = time.monotonic()
    leds.fadeRGB("FaceLeds", 0xFF0000, 0.1)
    assert time.monotonic() - started >= 0.1
    assert leds.getIntensity("LeftFaceLedsRed") == 1.0
    assert leds.getIntensity("LeftFaceLedsGreen") == 0.0
    leds.fadeRGB("ChestLeds", "blue", 0.0)
    assert leds.getIntensity("ChestBoard/Led/Blue/Actuator/Value") == 1.0
    leds.fadeRGB("FeetLeds", 0.0, 1.0, 0.0, 0.0)
    assert leds.getIntensity("LFoot/Led/Green/Actuator/Value") == 1.0


def test_intensity_evolves_during_a_fade_and_stop_freezes_it(sim):
    leds = sim.service("ALLeds")
    leds.off("ChestLeds")
    task = leds.pCall("fade", "ChestLeds", 1.0, 0.4)
    assert wait_until(lambda: leds.getIntensity("ChestLeds") > 0.2)
    leds.stop(task)
    assert leds.wait(task, 1000) is False
    frozen = leds.getIntensity("ChestLeds")
    time.sleep(0.05)
    assert 0.2 < leds.getIntensity("ChestLeds") == frozen < 1.0


def test_on_off_reset_and_bad_names(sim):
    leds = sim.service("ALLeds")
    leds.off("AllLeds")
    assert leds.getIntensity("AllLeds") == 0.0
    leds.reset("AllLeds")
    assert leds.getIntensity("FaceLeds") == 1.0 and leds.getIntensity("FeetLeds") == 0.0
    with pytest.raises(RuntimeError, match="ALLeds::on: 'Nose' is neither"):
        leds.on("Nose")
    with pytest.raises(RuntimeError, match="intensity must be in"):
        leds.setIntensity("FaceLeds", 2.0)
    with pytest.raises(TypeError, match="ALLeds::fadeRGB: takes"):
        leds.fadeRGB("FaceLeds", 0xFF)
    with pytest.raises(RuntimeError, match="unknown color 'mauve'"):
        leds.fadeRGB("FaceLeds", "mauve", 0.0)


def test_create_group_and_animations(sim):
    leds = sim.service("ALLeds")
    leds.createGroup("MyEyes", leds.listGroup("FaceLed0"))
    leds.fadeRGB("MyEyes", 0x00FF00, 0.0)
    assert leds.getIntensity("Face/Led/Green/Left/45Deg/Actuator/Value") == 1.0
    with pytest.raises(RuntimeError, match="unknown LEDs: Nose"):
        leds.createGroup("Bad", ["Nose"])
    started = time.monotonic()
    leds.rasta(0.2)
    leds.rotateEyes(0x0000FF, 0.08, 0.1)
    leds.randomEyes(0.1)
    assert 0.35 < time.monotonic() - started < 1.0
    leds.earLedsSetAngle(180, 0.0, True)
    assert leds.getIntensity("Ears/Led/Left/180Deg/Actuator/Value") == 1.0
    assert leds.getIntensity("Ears/Led/Left/216Deg/Actuator/Value") == 0.0
    leds.fadeListRGB("FaceLeds", [0xFF0000, 0x0000FF], [0.02, 0.04])
    assert leds.getIntensity("FaceLedsBottom") == pytest.approx(1 / 3)


def test_reset_ends_the_animations_of_its_leds(sim):
    leds = sim.service("ALLeds")
    ended = {"feet": threading.Event(), "eyes": threading.Event()}
    threading.Thread(target=lambda: (leds.fadeRGB("FeetLeds", 0xFF0000, 30.0),
                                     ended["feet"].set()), daemon=True).start()
    threading.Thread(target=lambda: (leds.rotateEyes(0x00FF00, 1.0, 30.0),
                                     ended["eyes"].set()), daemon=True).start()
    time.sleep(0.2)
    leds.reset("FaceLeds")
    assert ended["eyes"].wait(1.0)
    assert not ended["feet"].is_set()
    assert leds.getIntensity("FaceLeds") == 1.0  # back to the default
    leds.reset("AllLeds")
    assert ended["feet"].wait(1.0)
