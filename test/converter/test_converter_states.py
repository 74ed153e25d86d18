"""The §2.8 state sweep, on the worked examples of the reference table."""
import pytest

from naoqi_qicore.converter.states import compute_states, state_timeout_ms
from naoqi_qicore.xar.model import BehaviorKeyframe, BehaviorLayer, Timeline


def timeline(*layers):
    return Timeline(enable=1, fps=25, layers=[
        BehaviorLayer("L%d" % i, [BehaviorKeyframe(name, index) for name, index in layer])
        for i, layer in enumerate(layers)])


def summary(states):
    return [(s.begin, s.end, list(s.labels)) for s in states]


@pytest.mark.parametrize("layers, expected", [
    ([[("k1", 1)]], [(1, 2, ["k1"])]),
    ([[("a", 1), ("b", 10), ("c", 20)]], [(1, 10, ["a"]), (10, 20, ["b"]), (20, 21, ["c"])]),
    ([[("a", 5), ("b", 10)]], [(1, 5, []), (5, 10, ["a"]), (10, 11, ["b"])]),
    ([[("Deux", 121)], [("Un", 1)]], [(1, 121, ["Un"]), (121, 122, ["Deux"])]),
    ([[("a", 1), ("b", 20)], [("x", 10), ("y", 30)]],
     [(1, 10, ["a"]), (10, 20, ["x"]), (20, 30, ["b"]), (30, 31, ["y"])]),
    ([[("a", 1), ("b", 20)], [("x", 1), ("y", 20)]], [(1, 20, ["a", "x"]), (20, 21, ["b", "y"])]),
    ([[("a", 1), ("b", 20)], [("x", 10), ("y", 15)]],
     [(1, 10, ["a"]), (10, 15, ["x"]), (15, 20, ["y"]), (20, 21, ["b"])]),
])
def test_reference_table(layers, expected):
    assert summary(compute_states(timeline(*layers))) == expected


def test_objects_are_the_keyframes_loaded_during_each_state():
    states = compute_states(timeline([("a", 1), ("b", 20)], [("x", 10), ("y", 30)]))
    assert [s.keyframes for s in states] == [
        ((0, 0),), ((0, 0), (1, 0)), ((1, 0), (0, 1)), ((0, 1), (1, 1))]
    assert [s.index for s in states] == [0, 1, 2, 3]
    un_wait_deux = compute_states(timeline([("Deux", 121)], [("Un", 1)]))
    assert [s.keyframes for s in un_wait_deux] == [((1, 0),), ((1, 0), (0, 0))]


def test_leading_empty_state_has_no_objects():
    first = compute_states(timeline([("a", 5), ("b", 10)]))[0]
    assert (first.labels, first.keyframes) == ((), ())


def test_timeouts_are_the_2012_ones():
    states = compute_states(timeline([("Deux", 121)], [("Un", 1)]))
    assert [state_timeout_ms(s, 25) for s in states] == [4800, 40]
    assert state_timeout_ms(states[0], 0) == -1
    assert [state_timeout_ms(s, 25) for s in compute_states(
        timeline([("a", 1), ("b", 10), ("c", 20)]))] == [360, 400, 40]


def test_no_keyframes_no_states():
    assert compute_states(Timeline()) == []
    assert compute_states(timeline([])) == []
