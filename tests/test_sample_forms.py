"""np.linspace of values known at run time and sliding_window_view, written
as arithmetic and indexing (frontend/sample_forms.py): NumPy's values, and
derivatives against the analytic ones and central differences."""
import numpy as np
import pytest

import symdiff
from check_grads import check_grads
from symdiff.errors import NoDerivativeRuleError

windows = np.lib.stride_tricks.sliding_window_view


def spaced(a, b):
    return np.sum(np.linspace(a, b, 4) ** 2)


def horizon(T):
    return np.sum(np.sin(np.linspace(0.0, T, 6, endpoint=False)))


def filtered(x, w):
    return np.sum((windows(x, len(w)) @ w) ** 2)


def rows_filtered(X, w):
    return np.sum(np.tanh(windows(X, 3, axis=-1) @ w))


def test_linspace_of_its_ends():
    value, (a_bar, b_bar) = symdiff.value_and_grad(spaced, wrt=(0, 1))(0.3, 1.9)
    assert value == spaced(0.3, 1.9)
    points, k = np.linspace(0.3, 1.9, 4), np.arange(4)
    np.testing.assert_allclose([a_bar, b_bar], [np.sum(2 * points * (1 - k / 3)),
                                                np.sum(2 * points * k / 3)], rtol=1e-14)
    value, T_bar = symdiff.value_and_grad(horizon)(2.0)
    assert value == horizon(2.0)
    np.testing.assert_allclose(T_bar, np.sum(np.cos(np.arange(6) * 2.0 / 6) * np.arange(6) / 6),
                               rtol=1e-14)
    check_grads(spaced, (0.3, 1.9))
    check_grads(horizon, (2.0,))


def test_linspace_of_constants_stays_numpy_s_call():
    source = symdiff.source(symdiff.grad(lambda x: np.sum(np.linspace(0, 1, 5) * x)))
    assert "np.linspace(0, 1, 5)" in source


def test_sliding_windows():
    x, w = np.arange(6.0) ** 1.3, np.array([0.5, -1.0, 0.3])
    value, (x_bar, w_bar) = symdiff.value_and_grad(filtered, wrt=(0, 1))(x, w)
    assert value == filtered(x, w)
    y = np.convolve(x, w[::-1], mode="valid")            # the windows' products
    np.testing.assert_allclose(w_bar, 2 * windows(x, 3).T @ y, rtol=1e-13)
    np.testing.assert_allclose(x_bar, 2 * np.convolve(y, w, mode="full"), rtol=1e-13)
    check_grads(filtered, (x, w))
    X = np.stack([x, x[::-1] - 1.0])
    check_grads(rows_filtered, (X, w))


def test_windows_along_another_axis_are_refused():
    with pytest.raises(symdiff.SymdiffError, match="along the last axis"):
        symdiff.grad(lambda X: np.sum(windows(X, 2, axis=0)))(np.ones((3, 4)))


def test_linspace_of_a_count_known_at_run_time_is_numpy_s_call():
    def f(x, T, n):
        return np.sum(x * np.linspace(0.0, T, n))
    x = np.array([0.5, 2.0, 1.0])
    value, grad = symdiff.value_and_grad(f)(x, 2.0, 3)
    assert value == f(x, 2.0, 3)
    np.testing.assert_allclose(grad, [0.0, 1.0, 2.0], rtol=1e-15)
    with pytest.raises(NoDerivativeRuleError, match="linspace"):   # as before
        symdiff.grad(f, wrt=1)(x, 2.0, 3)
