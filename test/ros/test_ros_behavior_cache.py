"""Where behavior_runner runs a behavior from: projects converted as projects, once."""
from pathlib import Path

from naoqi_qicore.ros.behavior_cache import load_behavior

from script_behaviors import script_behavior


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / "behavior_1").mkdir(parents=True)
    xar = script_behavior(project / "behavior_1", "behavior", "def onInput_onStart(self):\n"
                          "    self.onStopped()\n")
    (project / "behavior_1" / "topic_enu.top").write_text("topic: ~t()\nlanguage: enu\n")
    (project / "p.pml").write_text(
        '<Package name="p" format_version="4"><BehaviorDescriptions><BehaviorDescription '
        'name="behavior" src="behavior_1" xar="behavior.xar" /></BehaviorDescriptions>'
        '</Package>')
    assert xar == project / "behavior_1" / "behavior.xar"
    return project


def test_a_project_and_a_behavior_in_it_load_with_the_project_files(tmp_path) -> None:
    project = _project(tmp_path)
    cache = tmp_path / "cache"
    for source in (project, project / "p.pml", project / "behavior_1" / "behavior.xar"):
        loaded, _ = load_behavior(str(source), cache)
        assert loaded.folder.name == "behavior_1", source
        assert (loaded.folder / "topic_enu.top").is_file(), source
    converted = loaded.folder.parent
    again, _ = load_behavior(str(converted), cache)  # a converted project: its first behavior
    assert again.folder == loaded.folder


def test_a_changed_project_file_is_converted_again(tmp_path) -> None:
    project = _project(tmp_path)
    cache = tmp_path / "cache"
    behavior = project / "behavior_1" / "behavior.xar"
    first, _ = load_behavior(str(behavior), cache)
    same, _ = load_behavior(str(behavior), cache)
    assert same.folder == first.folder
    (project / "behavior_1" / "topic_enu.top").write_text("topic: ~t()\nlanguage: enu\n"
                                                          "u:(hi) hello\n")
    changed, _ = load_behavior(str(behavior), cache)
    assert changed.folder != first.folder
    assert "hello" in (changed.folder / "topic_enu.top").read_text()


def test_a_conversion_by_another_converter_version_is_done_again(tmp_path, monkeypatch) -> None:
    """The cache's folders hold what the converter wrote (its entry point, its format): a
    conversion made when it wrote them otherwise is not reused."""
    from naoqi_qicore.ros import behavior_cache
    project = _project(tmp_path)
    cache = tmp_path / "cache"
    behavior = project / "behavior_1" / "behavior.xar"
    first, _ = load_behavior(str(behavior), cache)
    monkeypatch.setattr(behavior_cache, "MAIN_PY",
                        behavior_cache.MAIN_PY.replace("robot.standalone", "core.standalone"))
    older, _ = load_behavior(str(behavior), cache)
    assert older.folder != first.folder
