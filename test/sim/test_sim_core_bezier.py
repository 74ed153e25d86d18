"""The Bezier maths of ALMotion.angleInterpolationBezier, against points computed by hand."""
import pytest

from naoqi_qicore.robot.sim.bezier import (BezierCurve, auto_keys, evaluate_segment,
                                           segment_control_points)

FLAT = [3, 0.0, 0.0]


def test_control_points_are_key_plus_handles():
    points = segment_control_points(1.0, 0.2, [3, 0.3, 0.1], 2.0, 0.8, [3, -0.25, -0.05])
    assert points == ((1.0, 0.2), (1.3, pytest.approx(0.3)), (1.75, pytest.approx(0.75)),
                      (2.0, 0.8))


def test_thirds_handles_give_the_smoothstep():
    # control times 0, 1/3, 2/3, 1 make time linear in u; angles 0, 0, 1, 1 give 3u^2 - 2u^3
    points = segment_control_points(0.0, 0.0, [3, 1 / 3, 0.0], 1.0, 1.0, [3, -1 / 3, 0.0])
    assert evaluate_segment(points, 0.5) == pytest.approx(0.5)
    assert evaluate_segment(points, 0.25) == pytest.approx(0.15625)
    assert evaluate_segment(points, 0.75) == pytest.approx(0.84375)


def test_sloped_handle():
    # angles 0, 1/3, 1, 1 at u = 0.5: 0.125 + 0.375 + 0.125
    points = segment_control_points(0.0, 0.0, [3, 1 / 3, 1 / 3], 1.0, 1.0, [3, -1 / 3, 0.0])
    assert evaluate_segment(points, 0.5) == pytest.approx(0.625)


def test_time_is_solved_for_the_parameter():
    # times 0, 0.5, 0.9, 1: t(0.5) = 0.1875 + 0.3375 + 0.125 = 0.65, where the angle is 0.5
    points = segment_control_points(0.0, 0.0, [3, 0.5, 0.0], 1.0, 1.0, [3, -0.1, 0.0])
    assert evaluate_segment(points, 0.65) == pytest.approx(0.5, abs=1e-9)


def test_handles_are_shortened_to_the_segment():
    points = segment_control_points(0.0, 0.0, [3, 2.0, 0.4], 1.0, 1.0, [3, 0.5, 0.3])
    assert points[1] == (1.0, pytest.approx(0.2))  # right handle halved, direction kept
    assert points[2] == (1.0, 1.0)  # a left handle pointing forward is ignored


def test_curve_starts_from_the_current_angle():
    # from (0, 0) with a flat start to the key (1, 1) with a left handle of -1/3:
    # t(u) = 2u^2 - u^3, a(u) = 3u^2 - 2u^3; u = 0.5 gives t = 0.375, a = 0.5
    curve = BezierCurve([1.0], [[1.0, [3, -1 / 3, 0.0], [3, 1 / 3, 0.0]]], start_angle=0.0)
    assert curve.angle_at(0.0) == 0.0
    assert curve.angle_at(0.375) == pytest.approx(0.5, abs=1e-9)
    assert curve.angle_at(1.0) == 1.0 and curve.angle_at(5.0) == 1.0
    assert curve.duration == 1.0 and curve.final_angle == 1.0


def test_curve_through_several_keys_passes_each_key():
    keys = [[0.5, FLAT, [3, 0.2, 0.0]], [-0.5, [3, -0.2, 0.0], [3, 0.2, 0.0]],
            [0.0, [3, -0.2, 0.0], FLAT]]
    curve = BezierCurve([0.0, 1.0, 2.0], keys, start_angle=3.0)
    assert [curve.angle_at(t) for t in (0.0, 1.0, 2.0)] == [0.5, -0.5, 0.0]
    assert -0.5 < curve.angle_at(1.5) < 0.0


@pytest.mark.parametrize("times, keys", [
    ([1.0, 1.0], [[0.0, FLAT, FLAT], [1.0, FLAT, FLAT]]),
    ([1.0], []),
    ([1.0], [[0.0, FLAT]]),
    ([-1.0], [[0.0, FLAT, FLAT]]),
])
def test_bad_curves_are_refused(times, keys):
    with pytest.raises(ValueError):
        BezierCurve(times, keys, 0.0)


def test_auto_keys_slope_between_neighbours_and_flat_at_extrema():
    keys = auto_keys([1.0, 2.0, 3.0, 4.0], [0.0, 1.0, 2.0, 0.0])
    assert keys[0][1][2] == 0.0 and keys[0][2][2] == 0.0  # first key: flat
    assert keys[1][2] == [3, pytest.approx(1 / 3), pytest.approx(1 / 3)]  # slope (2-0)/(3-1)=1
    assert keys[2][2][2] == 0.0  # the maximum is flat
    curve = BezierCurve([1.0, 2.0, 3.0, 4.0], keys, 0.0)
    samples = [curve.angle_at(t / 10) for t in range(10, 31)]
    assert samples == sorted(samples)  # monotonic up to the maximum: no overshoot
