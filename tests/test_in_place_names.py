"""Generated code's names: a sum written in place (``x_bar = _unindex(...)``
then ``x_bar[i] += g``) must not take the name of the ``g`` its second line
reads (emit/names.py). Found while adding np.diff, whose gradient is such a
sum; user code that reuses a name shows it too."""
import numpy as np

import symdiff

RNG = np.random.default_rng(5)
WEIGHTS = np.arange(1.0, 4.0)


def second_differences(x):
    t = x * 2.0
    t = t[1:] - t[:-1]
    t = t[1:] - t[:-1]
    return np.sum(t * WEIGHTS)


def test_a_sum_written_in_place_does_not_take_the_name_of_what_it_adds():
    """``t_bar = _unindex(...)`` then ``t_bar[1:] += t_bar``: the second line read
    the new array, not the gradient it was to add (emit/names.py)."""
    x = RNG.normal(size=5)
    expected = 2.0 * np.diff(np.diff(WEIGHTS, prepend=0.0, append=0.0), prepend=0.0, append=0.0)
    assert np.allclose(symdiff.grad(second_differences)(x), expected)


def _three_parameters(theta):
    a, b = np.exp(theta[0]), np.exp(2 * theta[1])
    return a * b + theta[2] ** 2


def _and_the_last(theta):
    return _three_parameters(theta) + theta[-1]


def test_entries_of_a_zero_buffer_are_assigned_once_each():
    """theta_bar[2] = ..., theta_bar[1] = ...: each position written first is
    assigned, not added to zero; with a negative index, which may be any
    entry, the others are added."""
    theta = np.array([0.3, -0.2, 0.5, 1.5])
    body = symdiff.source(symdiff.grad(_three_parameters), theta).split('"""')[-1]
    for k in range(3):
        assert f"theta_bar[{k}] = " in body, body
    assert "a * b" in body and "b * a" not in body, body  # one product, read twice
    a, b = np.exp(theta[0]), np.exp(2 * theta[1])
    expected = np.array([a * b, 2 * a * b, 2 * theta[2], 0.0])
    assert np.allclose(symdiff.grad(_three_parameters)(theta), expected)
    body = symdiff.source(symdiff.grad(_and_the_last), theta).split('"""')[-1]
    assert "theta_bar[0] += " in body and "theta_bar[-1] = " in body, body
    assert np.allclose(symdiff.grad(_and_the_last)(theta), expected + [0, 0, 0, 1])
    assert np.allclose(symdiff.grad(_and_the_last)(theta[:3]), [a * b, 2 * a * b,
                                                                2 * theta[2] + 1])
