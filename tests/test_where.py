"""np.where: masked derivatives that never leak NaN from the branch not taken."""
import warnings

import numpy as np
import pytest

import symdiff
from numeric import assert_grad

EDGE = np.array([-2.0, -0.5, 0.0, 1e-300, 0.25, 4.0])


def sqrt_where(x):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0))


def log_where(x):
    return np.sum(np.where(x > 0, np.log(x), -1.0))


def div_where(x):
    return np.sum(np.where(x != 0, np.sin(x) / x, 1.0))


def arcsin_where(x):
    return np.sum(np.where(np.abs(x) < 1, np.arcsin(x), 0.0))


def arccos_where(x):
    return np.sum(np.where((x > -1) & (x < 1), np.arccos(x), 0.0))


def power_where(x):
    return np.sum(np.where(x > 0, x ** 1.5, -x))


def chained_where(x):
    return np.sum(np.where(x > 1, np.sqrt(np.log(x)), x))


def else_branch_where(x):
    return np.sum(np.where(x <= 0, 0.0, np.sqrt(x)))


def _strict(df, x):
    """df(x) with every floating-point warning an error."""
    with warnings.catch_warnings(), np.errstate(divide="raise", invalid="raise",
                                                over="raise"):
        warnings.simplefilter("error")
        return df(x)


@pytest.mark.parametrize("f, expected", [
    (sqrt_where, lambda x: np.where(x > 0, 0.5 / np.sqrt(np.abs(x) + (x <= 0)), 0.0)),
    (log_where, lambda x: np.where(x > 0, 1 / np.where(x > 0, x, 1), 0.0)),
    (power_where, lambda x: np.where(x > 0, 1.5 * np.sqrt(np.abs(x)), -1.0)),
    (else_branch_where, lambda x: np.where(x > 0, 0.5 / np.sqrt(np.abs(x) + (x <= 0)), 0.0)),
])
def test_branch_not_taken_gets_exact_zero_and_no_warning(f, expected):
    x = EDGE.copy()
    grad = _strict(symdiff.grad(f), x)
    assert np.all(np.isfinite(grad))
    np.testing.assert_allclose(grad, expected(x), rtol=1e-12)
    assert np.all(grad[x <= 0][expected(x)[x <= 0] == 0] == 0.0)


@pytest.mark.parametrize("f", [div_where, arcsin_where, arccos_where, chained_where])
def test_domain_edges_are_finite_and_warning_free(f):
    x = np.array([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 3.0])
    grad = _strict(symdiff.grad(f), x)
    assert np.all(np.isfinite(grad))


@pytest.mark.parametrize("f", [sqrt_where, log_where, div_where, arcsin_where,
                               arccos_where, power_where, chained_where])
def test_interior_points_match_finite_differences(f):
    x = np.array([-1.7, -0.6, 0.3, 0.7, 2.5])
    if f in (arcsin_where, arccos_where):
        x = np.array([-1.7, -0.6, 0.3, 0.7, 2.5])
    assert_grad(f, symdiff.grad(f), (x,))


def test_masked_value_flowing_through_products_reductions_and_matmul():
    W = np.array([[1.0, -2.0], [0.5, 3.0], [2.0, 1.0]])

    def f(x, W):
        s = np.where(x > 0, np.sqrt(x), 0.0)
        h = np.tanh(s * 2.0 + x) @ W
        return np.sum(h ** 2) + np.max(s * x)

    x = np.array([-1.0, 0.0, 2.0])
    df = symdiff.grad(f, wrt=(0, 1))
    gx, gW = _strict(lambda v: df(v, W), x)
    assert np.all(np.isfinite(gx)) and np.all(np.isfinite(gW))
    assert_grad(f, df, (np.array([-1.0, 0.4, 2.0]), W), wrt=(0, 1))


def test_condition_combinations_and_broadcasting():
    def f(x, y):
        c = np.logical_and(x > -1, ~(x > 1)) | (y > 2)
        return np.sum(np.where(c, x * y, y ** 2))

    x = np.array([[-2.0, 0.3, 1.5], [0.1, -0.4, 2.0]])
    y = np.array([1.0, 3.0, -1.5])          # broadcasts against rows of x
    df = symdiff.grad(f, wrt=(0, 1))
    gx, gy = df(x, y)
    assert gx.shape == x.shape and gy.shape == y.shape
    assert_grad(f, df, (x, y), wrt=(0, 1))


def test_condition_gets_no_gradient_and_scalar_branches_broadcast():
    def f(a, x):
        return np.sum(np.where(x > 0, a, 2.0 * a))

    x = np.array([1.0, -1.0, 2.0])
    grad = symdiff.grad(f)(0.7, x)
    assert np.ndim(grad) == 0 and grad == pytest.approx(1 + 2 + 1)


def test_generated_where_is_a_masked_derivative_with_one_mask():
    text = symdiff.source(symdiff.grad(sqrt_where))
    code = [line for line in text.splitlines() if not line.strip().startswith("#")]
    assert sum(line.count("x > 0") for line in code) == 1
    assert "np.where(x_positive, x, 1.0)" in text          # the safe input
    assert "x_bar = np.where(x_positive" in text            # select after multiply
