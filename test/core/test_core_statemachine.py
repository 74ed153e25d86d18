"""libqicore's tests/test_statemachine.cpp (reference §6.1), on the engine's state machine."""
import pytest

from naoqi_qicore.core.statemachine import StateMachine


@pytest.fixture
def machine():
    changes = []
    made = StateMachine(lambda old, new: changes.append((old, new)))
    made.changes = changes
    yield made
    made.close()


def states(machine, count):
    for index in range(count):
        machine.add_state("s%d" % index)
    return ["s%d" % index for index in range(count)]


def test_create_state_machine(machine):
    assert machine.current is None and not machine.running


def test_one_state_is_final_at_once(machine):
    (s0,) = states(machine, 1)
    assert machine.set_initial_state(s0) and machine.set_final_state(s0)
    machine.run()
    assert machine.current == s0 and machine.is_on_final_state()


def test_two_states(machine):
    s0, s1 = states(machine, 2)
    machine.set_initial_state(s0)
    machine.set_final_state(s1)
    to_s1 = machine.transition(s0, s1)
    machine.run()
    assert not machine.is_on_final_state()
    to_s1.trigger()
    assert machine.wait_idle(5)
    assert machine.current == s1 and machine.is_on_final_state()
    assert machine.changes == [(None, s0), (s0, s1)]


def test_twenty_linear_states(machine):
    names = states(machine, 20)
    machine.set_initial_state(names[0])
    machine.set_final_state(names[-1])
    transitions = [machine.transition(a, b) for a, b in zip(names, names[1:])]
    machine.run()
    for transition in transitions:  # all queued at once: applied in order of arrival
        transition.trigger()
    assert machine.wait_idle(5)
    assert machine.current == "s19" and machine.is_on_final_state()


def test_final_in_the_middle(machine):
    s0, s1, s2 = states(machine, 3)
    machine.set_initial_state(s0)
    machine.set_final_state(s1)
    machine.transition(s1, s2)
    machine.run()
    machine.transition(s0, s1).trigger()
    assert machine.wait_idle(5)
    assert machine.current == s1 and machine.is_on_final_state()


def test_remove_final(machine):
    s0, s1, s2 = states(machine, 3)
    assert machine.set_initial_state(s0)
    assert machine.set_final_state(s1) and machine.set_final_state(s2)
    assert machine.remove_final_state(s1)
    machine.run()
    machine.transition(s0, s1).trigger()
    assert machine.wait_idle(5)
    assert not machine.is_on_final_state()
    machine.transition(s1, s2).trigger()
    assert machine.wait_idle(5)
    assert machine.current == s2 and machine.is_on_final_state()


def test_change_initial(machine):
    s0, s1 = states(machine, 2)
    assert machine.set_initial_state(s0) and machine.set_initial_state(s1)
    machine.run()
    assert machine.current == s1


def test_change_states_after_start(machine):
    s0, s1 = states(machine, 2)
    machine.set_initial_state(s0)
    machine.run()
    machine.transition(s0, s1).trigger()
    assert machine.wait_idle(5)
    assert machine.set_final_state(s1)
    assert machine.is_on_final_state()


def test_unknown_states_are_refused(machine):
    states(machine, 1)
    assert not machine.set_initial_state("nope")
    assert not machine.set_final_state("nope")
    assert not machine.remove_final_state("s0")
    with pytest.raises(ValueError):
        machine.go_to("nope")


def test_transition_applies_only_from_its_source(machine):
    s0, s1, s2 = states(machine, 3)
    machine.set_initial_state(s0)
    machine.run()
    machine.transition(s1, s2).trigger()  # s1 is not current when its turn comes
    assert machine.wait_idle(5)
    assert machine.current == s0


def test_stop_leaves_the_current_state(machine):
    s0, s1 = states(machine, 2)
    machine.set_initial_state(s0)
    machine.run()
    machine.stop()
    assert machine.wait_idle(5)
    assert machine.current is None and not machine.running
    assert machine.changes[-1] == (s0, None)
    machine.go_to(s1)  # not running any more: ignored
    assert machine.wait_idle(5)
    assert machine.current is None
    machine.run()  # a stopped machine can run again
    assert machine.current == s0


def test_second_run_does_nothing(machine):
    s0, s1 = states(machine, 2)
    machine.set_initial_state(s0)
    machine.run()
    machine.go_to(s1)
    assert machine.wait_idle(5)
    machine.run()
    assert machine.current == s1
