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
