"""Object names: the 2012 rule, made safe as file names."""
import re

from naoqi_qicore.converter.naming import MAX_NAME_LENGTH, assign_names, format_name
from naoqi_qicore.xar.model import (Behavior, BehaviorKeyframe, BehaviorLayer, Box, Diagram,
                                    Timeline)


def flow(*boxes):
    return Timeline(enable=0, layers=[BehaviorLayer("behavior_layer1", [
        BehaviorKeyframe("keyframe1", 1, Diagram(boxes=list(boxes)))])])


def test_format_name_is_the_2012_rule():
    assert format_name("Say Text") == "Say_Text"
    assert format_name("Voice shaping (%)") == "Voice_shaping_"
    assert format_name("") == "unnamed_object"
    assert format_name(None) == "unnamed_object"
    assert format_name("Olá mundo") == "Ol_mundo"
    assert format_name("日本") == ""
    assert format_name("../../etc/passwd") == "_etc_passwd"
    assert format_name("a\x00b\tc") == "ab_c"


def test_depth_prefix_collisions_and_diagram_names():
    inner = Box("Say", 1, timeline=flow(Box("Say Text", 2)))
    twin = Box("Say", 2, timeline=flow(Box("Say Text", 2)))
    root = Box("root", -1, timeline=flow(inner, twin, Box("Say diagram", 3)))
    names = assign_names(Behavior(root))
    assert [names[id(b)] for _, b in root.walk()] == [
        "l0_root", "l1_Say", "l2_Say_Text", "l1_Say_1", "l2_Say_Text_1", "l1_Say_diagram_1"]


def test_names_are_safe_file_names_and_unique_ignoring_case():
    weird = [Box(name, i + 1) for i, name in enumerate(
        ["CON", "con", "..", "a/b\\c", "x" * 500, "", "nul.txt", "Con"])]
    root = Box("root", -1, timeline=flow(*weird))
    names = list(assign_names(Behavior(root)).values())
    assert len({n.casefold() for n in names}) == len(names)
    for name in names:
        assert re.fullmatch(r"l\d+_[A-Za-z0-9_]*", name), name
        assert len(name) <= MAX_NAME_LENGTH + 10


def test_a_box_name_never_takes_another_box_file():
    timed = Box("A", 1, timeline=Timeline(enable=1, layers=[BehaviorLayer("l", [
        BehaviorKeyframe("k", 1)])]))
    clash = Box("A state 0", 2)
    root = Box("root", -1, timeline=flow(timed, clash))
    names = assign_names(Behavior(root))
    assert names[id(timed)] == "l1_A"
    assert names[id(clash)] == "l1_A_state_0_1"


def test_assign_names_gives_the_boxes_in_walk_order():
    inner = Box("Inner", 2)
    outer = Box("Outer", 1, timeline=Timeline(layers=[BehaviorLayer("l", [BehaviorKeyframe(
        "k", 1, Diagram(boxes=[inner]))])]))
    root = Box("root", -1, timeline=Timeline(layers=[BehaviorLayer("l", [BehaviorKeyframe(
        "k", 1, Diagram(boxes=[outer, Box("Other", 3)]))])]))
    order = []
    assign_names(Behavior(root), order=order)
    assert [id(box) for box in order] == [id(box) for _, box in root.walk()]
    assert [box.name for box in order] == ["root", "Outer", "Inner", "Other"]
