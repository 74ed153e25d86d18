"""The behavior and the scenarios of the expectation tests of ``main.py`` and
``run_behavior``: a Pepper behavior that does something of every kind an expectation can
check, and waits for a head touch before its goodbye."""
from pathlib import Path
from typing import Dict, List, Tuple

from script_behaviors import chain_behavior

#: a box that ends at once (a box that runs between two behavior/state messages)
QUICK = """
def onInput_onStart(self):
    self.onStopped()
"""

#: speech, the tablet, a joint, then a head touch awaited before the goodbye
GREET = """
def onLoad(self):
    self.memory = ALProxy("ALMemory")
    self.tts = ALProxy("ALTextToSpeech")
def onInput_onStart(self):
    self.tts.say("Hello")
    ALProxy("ALTabletService").showImage("http://198.18.0.1/apps/greet/welcome.png")
    ALProxy("ALMotion").angleInterpolation("RShoulderPitch", -1.0, 0.5, True)
    self.memory.subscribeToEvent("MiddleTactilTouched", self.getName(), "onTouched")
    self.tts.say("Touch my head")
def onTouched(self, key, value, message):
    if value:
        self.memory.unsubscribeToEvent("MiddleTactilTouched", self.getName())
        self.tts.say("Goodbye")
        self.onStopped()
"""

#: every kind of expectation, met
ALL_KINDS = """
- expect: {state: keyframe1, within: 5}
- expect: {box: Quick, within: 5}
- expect: {box: Greet, within: 5}
- expect: {say: hello, within: 5}
- expect: {tablet: "*.png", within: 5}
- expect: {joint: {RShoulderPitch: -1.0}, tolerance: 0.05, within: 5}
- expect: {say: touch my head, within: 5}
  touch: head
- expect: {say: goodbye, within: 5}
- expect: {ends: FINISHED, within: 5}
"""

#: once the robot asks for the touch, the behavior waits: nothing more happens
ASKED = "- expect: {say: touch my head, within: 30}\n"

#: kind -> (a scenario where it fails, what the failure line holds): in time while the
#: behavior waits for its touch, or at the end of the run
FAILING: Dict[str, Tuple[str, List[str]]] = {
    "say": (ASKED + "- expect: {say: goodbye, within: 0.5}\n",
            [':2: step 2: expected the robot to say /goodbye/ within 0.5 s; it said nothing '
             'since step 1 (before: "Hello", "Touch my head")']),
    "box": (ASKED + "- expect: {box: Dance, within: 0.5}\n",
            ["expected box 'Dance' to start within 0.5 s; no box started since step 1 "
             "(before: root, root/Quick, root/Greet)"]),
    "state": (ASKED + "- expect: {state: Wave, within: 0.5}\n",
              ["expected the behavior's timeline to reach keyframe 'Wave' within 0.5 s; no "
               "keyframe of its timeline was reached since step 1 (before: keyframe1)"]),
    "joint": (ASKED + "- expect: {joint: {HeadYaw: 1.0}, within: 0.5}\n",
              ["expected the joints to reach HeadYaw 1.00 rad (± 0.05 rad) within 0.5 s; "
               "they are at HeadYaw 0.00 rad"]),
    "tablet": (ASKED + "- expect: {tablet: '*.mp4', within: 0.5}\n",
               ["expected the tablet to show '*.mp4' within 0.5 s; the tablet showed nothing "
                "since step 1 (before: http://198.18.0.1/apps/greet/welcome.png)"]),
    "ends": (ASKED + "  touch: head\n- expect: {ends: ERROR}\n",
             [":3: step 2: expected the behavior to end ERROR within 10 s; it ended FINISHED"]),
}


def greet_behavior(folder: Path) -> Path:
    """``folder/greet.xar``: the root runs Quick, then Greet (with ``html/welcome.png``
    beside it, the image Greet shows on the tablet)."""
    (folder / "html").mkdir(exist_ok=True)
    (folder / "html" / "welcome.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    return chain_behavior(folder, "greet", [("Quick", QUICK), ("Greet", GREET)])


def scenario_file(folder: Path, text: str) -> Path:
    """``folder/check.yaml`` holding ``text``."""
    path = folder / "check.yaml"
    path.write_text(text, encoding="utf-8")
    return path
