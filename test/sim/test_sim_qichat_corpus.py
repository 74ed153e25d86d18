"""Every QiChat topic of the corpus projects reads and loads into the simulated ALDialog."""
import os
import shutil
import sys
from pathlib import Path
from typing import List

import pytest

from naoqi_qicore.robot.sim.services import qichat
from naoqi_qicore.robot.sim.services.dialog import ALDialog
from naoqi_qicore.robot.sim.services.qichat import TopicError, parse_topic

sys.path.insert(0, os.path.dirname(__file__))
from test_sim_services_context import FakeSim  # noqa: E402  (the services' test context)


def corpus_topics(corpus_dir: Path) -> List[Path]:
    projects = corpus_dir / "projects"
    if not projects.is_dir():
        pytest.skip("no projects in the corpus at %s" % corpus_dir)
    topics = sorted(projects.rglob("*.top"))
    if not topics:
        pytest.skip("the corpus projects hold no .top file")
    return topics


def test_every_corpus_topic_is_read(corpus_dir):
    failures = []
    for path in corpus_topics(corpus_dir):
        try:
            topic = parse_topic(path.read_text(encoding="utf-8-sig"), str(path))
        except (TopicError, UnicodeDecodeError) as error:
            failures.append(str(error))
            continue
        concept = qichat.topic_concept([topic], lambda name: [], topic)
        for rule in topic.all_rules():  # every input compiles to a valid matcher
            if rule.kind != "proposal":
                qichat.match_input(rule, "", concept, lambda name: None)
    assert failures == []


def test_every_corpus_topic_loads_into_the_simulated_dialog(corpus_dir):
    context = FakeSim("pepper")
    dialog = context.service("ALDialog")
    assert isinstance(dialog, ALDialog)
    failures, loaded = [], 0
    topics = corpus_topics(corpus_dir)
    for path in topics:  # the topics go to the robot's files (with those they include)
        copy = context.files.local("/home/nao/corpus/%s" % path.relative_to(corpus_dir)).path
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, copy)
    for path in topics:
        robot_path = "/home/nao/corpus/%s" % path.relative_to(corpus_dir)
        try:
            name = dialog.loadTopic(robot_path)
        except RuntimeError as error:
            failures.append(str(error))
            continue
        loaded += 1
        dialog.unloadTopic(name)
    context.close()
    assert failures == [] and loaded > 0
