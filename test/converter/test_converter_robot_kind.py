"""The robot a behavior was written for: manifest, joints, timeline models, services."""
from pathlib import Path

from naoqi_qicore.converter.robot_kind import (NAO, PEPPER, input_robot_kind,
                                               simulated_robot_for)

_TIMELINE = ('<Timeline enable="1" fps="25" start_frame="1" end_frame="50" size="50">'
             '<ActuatorList model="%s">%s</ActuatorList></Timeline>')
_CURVE = ('<ActuatorCurve name="value" actuator="%s" recordable="0" mute="0" unit="0">'
          '<Key frame="10" value="1" /></ActuatorCurve>')


def _write(folder: Path, project, box, timeline: str = "", script: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    xar = folder / "behavior.xar"
    xar.write_bytes(project(box("Move", 1, script=script, extra=timeline)))
    return xar


def test_the_manifest_decides(tmp_path, project, box) -> None:
    xar = _write(tmp_path / "app" / "behavior_1", project, box,
                 timeline=_TIMELINE % ("nao", _CURVE % "LAnklePitch"))
    (tmp_path / "app" / "manifest.xml").write_text(
        '<package uuid="app"><requirements><robotRequirement model="JULIETTE_Y20"/>'
        '</requirements></package>')
    kind = input_robot_kind(xar)
    assert kind.kind == PEPPER and "JULIETTE_Y20" in kind.reason


def test_joints_then_models_then_services(tmp_path, project, box) -> None:
    legs = _write(tmp_path / "legs", project, box,
                  timeline=_TIMELINE % ("", _CURVE % "KneePitch" + _CURVE % "HeadYaw"))
    assert input_robot_kind(legs).kind == PEPPER
    assert "KneePitch" in input_robot_kind(legs).reason
    nao = _write(tmp_path / "nao", project, box, timeline=_TIMELINE % ("", _CURVE % "LKneePitch"))
    assert input_robot_kind(nao).kind == NAO
    model = _write(tmp_path / "model", project, box,
                   timeline=_TIMELINE % ("juliette", _CURVE % "HeadYaw"))
    assert input_robot_kind(model).kind == PEPPER
    tablet = _write(tmp_path / "tablet", project, box,
                    script='self.tablet = ALProxy("ALTabletService")')
    assert input_robot_kind(tablet).reason == "its boxes call ALTabletService"
    plain = _write(tmp_path / "plain", project, box)
    assert input_robot_kind(plain).kind == NAO


def test_an_explicit_robot_or_an_unreadable_behavior(tmp_path) -> None:
    assert simulated_robot_for(str(tmp_path / "x.xar"), "pepper") == (PEPPER, "asked for pepper")
    (tmp_path / "broken.xar").write_text("<oops")
    kind, reason = simulated_robot_for(str(tmp_path / "broken.xar"))
    assert kind == NAO and "cannot be read" in reason


def test_corpus_pepper_projects_are_picked_as_pepper(corpus_dir) -> None:
    projects = corpus_dir / "projects"
    assert input_robot_kind(projects / "pepper-dance-sample-cf72616b").kind == PEPPER
    assert input_robot_kind(projects / "reading-buddy-8993fc6b").kind == PEPPER
    assert input_robot_kind(projects / "478-breathing-85d97d99").kind == NAO


def test_a_tablet_call_decides_over_nao_leg_keys(tmp_path, project, box) -> None:
    """A NAO has no tablet: a behavior showing pages is a Pepper one, even with timelines
    recorded on a NAO (Pepper leaves their leg keys out)."""
    xar = _write(tmp_path / "mixed", project, box,
                 timeline=_TIMELINE % ("nao", _CURVE % "LAnklePitch" + _CURVE % "HeadYaw"),
                 script='tablet = self.session().service("ALTabletService")')
    kind = input_robot_kind(xar)
    assert kind.kind == PEPPER and kind.reason == "its boxes call ALTabletService"
