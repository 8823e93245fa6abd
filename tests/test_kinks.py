"""The kink policy, checked at the exact kink: ties split the gradient evenly.

`where` has no kink of its own: it follows its condition literally.
"""
import numpy as np
import pytest

import symdiff


def grad_at(f, x, **kw):
    return symdiff.grad(f, **kw)(np.asarray(x, dtype=float))


@pytest.mark.parametrize("f, x, expected", [
    (lambda x: np.sum(np.maximum(x, 0.0)), [-1.0, 0.0, 2.0], [0.0, 0.5, 1.0]),
    (lambda x: np.sum(np.maximum(0.0, x)), [-1.0, 0.0, 2.0], [0.0, 0.5, 1.0]),
    (lambda x: np.sum(np.minimum(x, 1.0)), [0.0, 1.0, 2.0], [1.0, 0.5, 0.0]),
    (lambda x: np.sum(np.abs(x)), [-1.0, 0.0, 2.0], [-1.0, 0.0, 1.0]),
    (lambda x: np.sum(np.clip(x, -1.0, 1.0)), [-2.0, -1.0, 0.0, 1.0, 3.0],
     [0.0, 0.5, 1.0, 0.5, 0.0]),
    (lambda x: np.max(x), [1.0, 3.0, 3.0], [0.0, 0.5, 0.5]),
    (lambda x: np.min(x), [2.0, 2.0, 2.0, 5.0], [1 / 3, 1 / 3, 1 / 3, 0.0]),
    (lambda x: np.sum(np.max(x.reshape(2, 2), axis=1)), [1.0, 1.0, 0.0, 4.0],
     [0.5, 0.5, 0.0, 1.0]),
    (lambda x: np.sum(np.where(x > 0, x, 0.0)), [-1.0, 0.0, 2.0], [0.0, 0.0, 1.0]),
    (lambda x: np.sum(np.where(x >= 0, x, 0.0)), [-1.0, 0.0, 2.0], [0.0, 1.0, 1.0]),
    (lambda x: np.sum(x * (x > 0)), [-1.0, 0.0, 2.0], [0.0, 0.0, 1.0]),
])
def test_kinks_at_the_exact_point(f, x, expected):
    grad = grad_at(f, x)
    np.testing.assert_array_equal(grad, expected)


def test_maximum_of_a_value_with_itself_has_slope_one():
    grad = grad_at(lambda x: np.sum(np.maximum(x, x)), [-1.0, 0.0, 2.0])
    np.testing.assert_array_equal(grad, [1.0, 1.0, 1.0])


def test_generated_code_states_the_policy():
    text = symdiff.source(symdiff.grad(lambda x: np.sum(np.maximum(x, 0.0))))
    assert "# kink policy: ties split the gradient evenly" in text
