"""A gradient computed into the array it is written to, one operation at a
time (emit/destinations.py): the same operations on the same operands as
the expression it replaces, so the same bits, with one temporary fewer; and
only where every step keeps the destination's shape and dtype. Reference:
the hand-written formula, evaluated out of place, bit for bit."""
import numpy as np
import pytest

import symdiff
from numeric import numeric_grad


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rosenbrock_params(x, a, b):
    return np.sum(b * (x[1:] - x[:-1] ** 2) ** 2 + (a - x[:-1]) ** 2)


def rows_scaled(X, v):  # the second operand broadcasts along rows: no chain there
    return np.sum((X[1:] - X[:-1] ** 2) * v + (2.0 - X[:-1]) ** 2)


def _expected(x):
    head, t = x[:-1], x[1:] - x[:-1] ** 2
    g = np.zeros_like(x)
    g[:-1] = -2.0 * (1.0 - head) - 400.0 * (head * t)
    g[1:] += 200.0 * t
    return g


SPECIAL = np.array([0.0, -0.0, 1.5, -1.2, 1e154, -3e-308, np.inf, np.nan, 0.7, 2.0])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_the_same_bits_as_the_expression_with_one_temporary_fewer(dtype):
    df = symdiff.grad(rosenbrock)
    with np.errstate(all="ignore"):
        for x in (SPECIAL.astype(dtype), np.random.default_rng(0).normal(size=50).astype(dtype)):
            got = df(x)
            assert got.dtype == dtype
            np.testing.assert_array_equal(got, _expected(x))
    source = symdiff.source(df, np.ones(4, dtype))
    assert "x_head_bar = x_bar[:-1]" in source and "x_head_bar *= -2.0" in source


def test_parameters_and_second_derivatives_stay_right():
    x = np.random.default_rng(1).normal(size=6)
    df = symdiff.grad(rosenbrock_params)
    np.testing.assert_allclose(df(x, 1.5, 30.0),
                               numeric_grad(lambda x: rosenbrock_params(x, 1.5, 30.0), (x,)),
                               rtol=1e-6, atol=1e-6)
    H = symdiff.hessian(rosenbrock_params)(x, 1.5, 30.0)
    rows = [numeric_grad(lambda x: df(x, 1.5, 30.0)[i], (x,)) for i in range(6)]
    np.testing.assert_allclose(H, np.array(rows), rtol=1e-5, atol=1e-5)


def test_an_operand_that_broadcasts_keeps_the_expression():
    X = np.random.default_rng(2).normal(size=(5, 3))
    v = np.array([0.5, -1.0, 2.0])
    df = symdiff.grad(rows_scaled)
    np.testing.assert_allclose(df(X, v), numeric_grad(rows_scaled, (X, v)), rtol=1e-6,
                               atol=1e-8)
    source = symdiff.source(df, X, v)
    assert "*= v" not in source and "-= v" not in source
