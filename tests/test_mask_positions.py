"""A boolean mask index: its gradient is placed (a mask picks each entry at
most once), and in a gradient specialised for NumPy arrays a one-axis mask is
read as its positions, ``m.nonzero()[0]``, found once for the gather of the
forward pass and the scatter of the backward one (NumPy's boolean indexing
branches on every entry). Reference derivatives: central differences."""
import numpy as np
import pytest

import symdiff
from numeric import numeric_grad

RNG = np.random.default_rng(7)
V = RNG.choice([-1.0, 1.0], 9) * RNG.uniform(0.2, 2.0, 9)
W = RNG.normal(size=(5, 4))
Y = RNG.normal(size=9)


def sqrt_of_positive(x):
    return np.sum(np.sqrt(x[x > 0]))


def rows(w):
    return np.sum(np.sin(w[w[:, 0] > 0, :]) ** 2)


def columns(w):
    return np.sum(np.sin(w[:, w[0] > 0]) ** 2)


def row_of_columns(w):
    return np.sum(w[1:, w[0] < 0.5] * w[0, w[0] < 0.5])


def two_masks(x, y):
    keep = (y > 0) & ~(x < -1.5)
    return np.sum(np.sin(x[keep]) * y[keep]) + np.sum(x[x > 0] ** 2)


def mask_argument(x, keep):
    return np.sum(np.exp(x[keep]))


def mask_and_repeats(x):
    return np.sum(x[x > 0] ** 2) + np.sum(x[[0, 1, 1]])


CASES = [(sqrt_of_positive, (V,)), (rows, (W,)), (columns, (W,)), (row_of_columns, (W,)),
         (two_masks, (V, Y)), (mask_argument, (V, Y > 0)), (mask_and_repeats, (V,))]


@pytest.mark.parametrize("f, args", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradient_matches_central_differences(f, args):
    df = symdiff.grad(f)
    expected = numeric_grad(f, args)
    np.testing.assert_allclose(df(*args), expected, rtol=1e-6, atol=1e-8)
    if f not in (mask_argument, mask_and_repeats):  # (generic code: `keep` may be integers)
        assert "_unindex_add" not in symdiff.source(df)


@pytest.mark.parametrize("f, args", CASES[:6], ids=[c[0].__name__ for c in CASES[:6]])
def test_a_one_axis_mask_is_read_as_its_positions_once(f, args):
    source = symdiff.source(symdiff.grad(f), *args)
    assert ".nonzero()[0]" in source
    assert "add.at" not in source and "_unindex" not in source
    for line in source.splitlines():
        assert line.count(".nonzero()") <= 1


def test_a_mask_of_two_axes_stays_a_mask():
    def f(w):
        return np.sum(np.sqrt(w[w > 0]))
    w = np.abs(W) * np.sign(W)
    df = symdiff.grad(f)
    source = symdiff.source(df, w)
    assert "nonzero" not in source
    np.testing.assert_allclose(df(w), numeric_grad(f, (w,)), rtol=1e-6, atol=1e-8)


def test_repeated_integer_positions_still_add_up():
    def f(x):
        idx = np.array([2, 2, 5])
        return np.sum(x[idx] ** 2)
    df = symdiff.grad(f)
    expected = np.zeros_like(V)
    expected[2], expected[5] = 4 * V[2], 2 * V[5]
    np.testing.assert_allclose(df(V), expected, rtol=1e-12)
    assert "nonzero" not in symdiff.source(df, V)


def test_an_empty_mask_and_a_full_one():
    df = symdiff.grad(sqrt_of_positive)
    np.testing.assert_array_equal(df(-np.abs(V)), np.zeros_like(V))
    np.testing.assert_allclose(df(np.abs(V)), 0.5 / np.sqrt(np.abs(V)), rtol=1e-12)


def test_value_is_the_users_and_second_derivatives_hold():
    f = sqrt_of_positive
    value, _ = symdiff.value_and_grad(f)(V)
    assert value == f(V)
    h = symdiff.hessian(f)(V)
    positive = V > 0
    expected = np.diag(np.where(positive, -0.25 * np.abs(V) ** -1.5, 0.0))
    np.testing.assert_allclose(h, expected, rtol=1e-10, atol=1e-12)


def test_a_mask_of_another_length_still_raises():
    def f(x, y):
        return np.sum(x[y > 0] ** 2)
    df = symdiff.grad(f)
    with pytest.raises(IndexError):
        f(V, Y[:5])
    with pytest.raises(IndexError):
        df(V, Y[:5])
    assert "nonzero" not in symdiff.source(df, V, Y[:5])
    assert "nonzero" in symdiff.source(df, V, Y)
