"""ALLeds of the simulated robot."""
import os
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from test_sim_services_context import pepper, sim, wait_until  # noqa: F401  (fixtures)


def test_groups_depend_on_the_robot(sim, pepper):
    nao_groups = sim.service("ALLeds").listGroups()
    assert {"FaceLeds", "EarLeds", "ChestLeds", "FeetLeds", "BrainLeds", "AllLeds",
            "FaceLed0", "LeftFaceLed1", "RightEarLed10"} <= set(nao_groups)
    assert "FeetLeds" not in pepper.service("ALLeds").listGroups()
    assert len(sim.service("ALLeds").listGroup("FaceLeds")) == 48


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
    assert leds.getIntensity("LeftFoot/Led/Green/Actuator/Value") == 1.0


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
    assert leds.getIntensity("Face/Led/Green/Left/0Deg/Actuator/Value") == 1.0
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
