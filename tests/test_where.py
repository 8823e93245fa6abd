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
    # the safe input: x where x > 0, else 1.0 (selects.py)
    assert "x_safe = np.fmax(x, 0.0) + np.logical_not(x_positive)" in text
    # select after multiply, as a product: 0.5 / sqrt(1.0) is finite (masks.py)
    assert "x_bar = 0.5 / np.sqrt(x_safe) * x_positive" in text


# ---- the guard comes after its mask (the mask may be computed after the branch) ------
def mask_after_branch(x, y):
    b = np.sqrt(np.log(x))      # computed before the mask
    m = (y > 0) & (x > 1)
    return np.sum(np.where(m, b, -y))


def else_mask_after_branch(x, y):
    r = np.sqrt(x)
    return np.sum(np.where(y <= 0, y, r * 2.0))


def mask_after_branch_in_loop(x, y):
    acc = 0.0
    for i in range(2):
        a = np.sqrt(x + i)
        m = y > i
        acc = acc + np.sum(np.where(m, a, 0.0))
    return acc


def mask_after_branch_in_if(x, y):
    if np.sum(y) > 0:
        a = np.log(x)
        m = y > 0
        out = np.sum(np.where(m, a, 0.0))
    else:
        out = np.sum(x)
    return out


def _strict_grad(f, args):
    """Every gradient of ``f`` at ``args``, with every floating-point warning an error."""
    df = symdiff.grad(f, wrt=(0, 1))
    with warnings.catch_warnings(), np.errstate(all="raise"):
        warnings.simplefilter("error")
        grads = df(*args)
    assert all(np.all(np.isfinite(g)) for g in grads)
    return grads


@pytest.mark.parametrize("f, edge, inside", [
    (mask_after_branch, ([-1.0, 0.0, 1.0, 2.0], [1.0, 1.0, 1.0, -1.0]),
     ([-1.0, 0.5, 1.5, 2.0], [1.0, 1.0, 1.0, -1.0])),
    (else_mask_after_branch, ([-1.0, 0.0, 4.0], [-1.0, 0.0, 2.0]),
     ([-1.0, 0.5, 4.0], [-1.0, -0.5, 2.0])),
    (mask_after_branch_in_loop, ([-3.0, -1.0, 2.0], [-1.0, -1.0, 1.5]),
     ([-3.0, 0.5, 2.0], [-1.0, 3.0, 0.5])),
    (mask_after_branch_in_if, ([-1.0, 0.0, 2.0], [0.0, -1.0, 2.0]),
     ([-1.0, 0.5, 2.0], [-0.5, -1.0, 2.0])),
])
def test_a_mask_computed_after_its_branch(f, edge, inside):
    _strict_grad(f, tuple(map(np.array, edge)))
    args = tuple(map(np.array, inside))
    assert_grad(f, symdiff.grad(f, wrt=(0, 1)), args, wrt=(0, 1))


def test_the_guard_reads_the_mask_after_it_is_computed():
    text = symdiff.source(symdiff.grad(mask_after_branch, wrt=(0, 1)))
    assert text.index("m = ") < text.index("np.where(m, ")


# ---- a branch computed at a smaller shape than the where: one mask, one sum ----------
def scalar_branch(s, c):
    return np.sum(np.where(c > 0, np.sqrt(s * 2.0), 0.0))


def scalar_else_branch(s, c):
    return np.sum(np.where(c > 0, c, np.log(s + 1.0) * s))


def row_branch(r, X):
    return np.sum(np.where(X > 0, np.log(r + 1.0) * 2.0, X))


def row_mask(X, r):
    return np.sum(np.where(r > 0, np.sqrt(X) * r, r))


def scalar_branch_in_loop(s, c):
    acc = 0.0
    for i in range(2):
        acc = acc + np.sum(np.where(c > i, np.sqrt(s * s + i), 0.0))
    return acc


def nested_scalar_branch(s, c):
    inner = np.where(c > 1, np.sqrt(s), 1.0)
    return np.sum(np.where(c > 0, inner * s, 0.0))


ROWS = np.array([[1.0, -2.0, 0.5], [-1.0, 3.0, 2.0]])


@pytest.mark.parametrize("f, args, expected", [
    (scalar_branch, (0.125, np.array([1.0, 2.0, -1.0])), 2 * 2.0),
    (scalar_branch, (-1.0, np.array([-1.0, 0.0, -2.0])), 0.0),
    (scalar_else_branch, (0.5, np.array([1.0, -2.0, -1.0])), 2 * (0.5 / 1.5 + np.log(1.5))),
    (scalar_else_branch, (-2.0, np.array([1.0, 2.0, 0.5])), 0.0),
    (row_branch, (np.array([0.5, -1.0, 2.0]), ROWS * [1, 0, 1]),
     [2 / 1.5, 0.0, 2 * 2 / 3.0]),
    (row_mask, (np.array([[4.0, -1.0, 1.0], [1.0, -4.0, 9.0]]), np.array([1.0, -1.0, 2.0])),
     [[0.25, 0.0, 1.0], [0.5, 0.0, 1 / 3]]),
    (nested_scalar_branch, (4.0, np.array([2.0, 0.5, -1.0])), 1.5 * 2.0 + 1.0),
    (nested_scalar_branch, (-1.0, np.array([0.5, 0.5, -1.0])), 2.0),
])
def test_a_branch_smaller_than_the_where_gets_its_gradient_once(f, args, expected):
    df = symdiff.grad(f)
    with warnings.catch_warnings(), np.errstate(all="raise"):
        warnings.simplefilter("error")
        grad = df(*args)
    assert np.shape(grad) == np.shape(args[0])
    np.testing.assert_allclose(grad, expected, rtol=1e-12)


@pytest.mark.parametrize("f, args", [
    (scalar_branch, (0.7, np.array([1.0, 2.0, -1.0]))),
    (scalar_else_branch, (0.7, np.array([1.0, -2.0, -1.0]))),
    (row_branch, (np.array([0.5, 1.5, 2.0]), ROWS)),
    (row_mask, (np.array([[4.0, 1.0, 1.0], [1.0, 4.0, 9.0]]), np.array([1.0, -1.0, 2.0]))),
    (scalar_branch_in_loop, (0.7, np.array([1.5, 0.5, -1.0]))),
    (nested_scalar_branch, (0.7, np.array([2.0, 0.5, -1.0]))),
])
def test_a_branch_smaller_than_the_where_matches_finite_differences(f, args):
    assert_grad(f, symdiff.grad(f, wrt=(0, 1)), args, wrt=(0, 1))


# ---- cones the simplifier shares -------------------------------------------------------
def same_branch_twice(x):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0) * np.where(x > 0, np.sqrt(x), 1.0))


def nested_wheres(x):
    return np.sum(np.where(x > -1, np.where(x > 0, np.sqrt(x), 0.0), np.log(-x)))


def test_the_same_guarded_branch_twice_is_computed_once():
    text = symdiff.source(symdiff.grad(same_branch_twice))
    code = "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))
    assert code.count("np.sqrt(") == 1 and code.count("x > 0") == 1
    np.testing.assert_allclose(_strict(symdiff.grad(same_branch_twice), EDGE),
                               np.where(EDGE > 0, 1.0, 0.0))


def test_nested_wheres_guard_both_branches():
    x = np.array([-2.0, -1.0, -0.5, 0.0, 1e-300, 4.0])
    grad = _strict(symdiff.grad(nested_wheres), x)
    expected = np.where(x > 0, 0.5 / np.sqrt(np.abs(x) + (x <= 0)), 0.0)
    np.testing.assert_allclose(grad, np.where(x <= -1, 1 / np.where(x < 0, x, 1), expected))
    assert_grad(nested_wheres, symdiff.grad(nested_wheres), (np.array([-2.0, -0.5, 0.5]),))


def one_branch_two_wheres(x):
    r = np.sqrt(x * x - 1.0)
    return np.sum(np.where(x > 1, r, 0.0) + np.where(x > 2, r * x, 1.0))


def one_branch_two_wheres_in_if(x, y):
    out = 0.0
    if np.sum(y) > 0:
        r = np.log(x)
        out = np.sum(np.where(y > 0, r, 0.0) * np.where(x > 0, r, 2.0))
    return out


def test_a_branch_only_wheres_read_is_guarded_for_each():
    x = np.array([-2.0, -1.0, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0])
    grad = _strict(symdiff.grad(one_branch_two_wheres), x)
    d = x / np.sqrt(np.where(x > 1, x * x - 1.0, 1.0))
    expected = np.where(x > 1, d, 0.0) + np.where(x > 2, d * x + np.sqrt(np.abs(x * x - 1)), 0.0)
    np.testing.assert_allclose(grad, expected, rtol=1e-12)
    assert_grad(one_branch_two_wheres, symdiff.grad(one_branch_two_wheres),
                (np.array([-2.0, 0.5, 1.5, 3.0]),))


def test_a_branch_two_wheres_read_inside_an_if():
    f = one_branch_two_wheres_in_if
    x, y = np.array([-1.0, 0.0, 2.0, 3.0]), np.array([-1.0, -1.0, 1.0, 2.0])
    _strict_grad(f, (x, y))
    assert_grad(f, symdiff.grad(f, wrt=(0, 1)), (np.array([-1.0, 0.5, 2.0, 3.0]), y),
                wrt=(0, 1))
