"""Generated gradients of small arrays: at a few entries per array, every
Python-level call costs more than the arithmetic, so the generated code and its
helpers skip NumPy's Python wrappers where that computes the same values."""
import numpy as np
import pytest

import symdiff
from numeric import assert_grad
from symdiff.ir.shapes import is_numpy_value
from symdiff.ir.nodes import Const, Op, Var
from symdiff.runtime.helpers import _sum_to, _ties


def softmax_loss(W, b, X, Y):
    logits = X @ W + b
    logits = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.sum(Y * log_probs) / X.shape[0]


def _softmax_args(dtype=np.float64):
    rng = np.random.default_rng(3)
    X = rng.standard_normal((5, 4))
    Y = np.eye(3)[[0, 2, 1, 1, 0]]
    return (rng.standard_normal((4, 3)).astype(dtype), (0.1 * rng.standard_normal(3)).astype(dtype),
            X.astype(dtype), Y.astype(dtype))


# ---- a sum the gradient needs, of an array, is the array's method ------------------------
def test_backward_sums_of_arrays_are_methods():
    df = symdiff.grad(softmax_loss, wrt=(0, 1))
    text = symdiff.source(df)
    assert "= log_probs_bar.sum(axis=1, keepdims=True)" in text  # (its sign: in a difference)
    # the forward pass too: the same values, fewer Python calls
    assert "logits.max(axis=1, keepdims=True)" in text
    assert "exp_logits.sum(axis=1, keepdims=True)" in text
    args = _softmax_args()
    assert_grad(softmax_loss, df, args, wrt=(0, 1))


def column_weighted(w, X):
    return np.sum(w * np.sum(X, axis=0)) + np.max(X, axis=1)[0] * np.sum(w ** 2)


def test_reductions_of_parameters_stay_numpy_calls():
    # X may be a list (and w ** 2 then a number): only np.sum takes any of them
    df = symdiff.grad(column_weighted)
    text = symdiff.source(df)
    assert "np.sum(X, axis=0)" in text and "np.max(X, axis=1)" in text
    X = [[1.0, 2.0], [3.0, -4.0]]
    np.testing.assert_allclose(df(np.array([0.5, -1.0]), X), [4.0 + 2.0, -2.0 - 4.0])
    assert df(2.0, [[1.0], [3.0]]) == 4.0 + 1.0 * 4.0


def test_backward_sum_methods_keep_float32():
    gW, gb = symdiff.grad(softmax_loss, wrt=(0, 1))(*_softmax_args(np.float32))
    assert gW.dtype == gb.dtype == np.float32


def test_backward_sum_methods_are_differentiated_again():
    W, b, X, Y = _softmax_args()
    H = symdiff.hessian(softmax_loss, wrt=1)(W, b, X, Y)
    eps = 1e-6
    df = symdiff.grad(softmax_loss, wrt=1)
    numeric = np.array([(df(W, b + eps * e, X, Y) - df(W, b - eps * e, X, Y)) / (2 * eps)
                        for e in np.eye(3)])
    np.testing.assert_allclose(H, numeric, rtol=1e-6, atol=1e-9)


def test_only_values_that_are_surely_numpy_values_count():
    x, y, z, w, s = Var("x"), Var("y"), Var("z"), Var("w"), Var("s")
    defs = {y: Op(y, "exp", (x,)), z: Op(z, "multiply", (Const(2.0), y)),
            w: Op(w, "multiply", (Const(2.0), x)), s: Op(s, "shape", (y,))}
    assert is_numpy_value(y, defs) and is_numpy_value(z, defs)
    assert not is_numpy_value(x, defs)  # a parameter may be a list
    assert not is_numpy_value(w, defs)  # 2.0 * a list is an error, not an array
    assert not is_numpy_value(s, defs) and not is_numpy_value(Const(1.0), defs)
    u = Var("u")  # _sum_to(x, 0.5) is x when x is a number: only sized values
    defs[u] = Op(u, "sum_to", (x, Const(0.5)))
    assert not is_numpy_value(u, defs) and is_numpy_value(u, defs, sized=True)


# ---- ties of a max or min ----------------------------------------------------------------
@pytest.mark.parametrize("x, axis, expected", [
    (np.array([[1.0, 3.0, 3.0], [2.0, 0.0, -1.0]]), 1, [[2.0], [1.0]]),
    (np.array([[1.0, np.nan, 3.0], [2.0, 2.0, -1.0]]), 1, [[np.nan], [2.0]]),
    (np.array([[np.inf, np.inf], [1.0, 0.0]]), 0, [[1.0, 1.0]]),
    (np.array([1.0, 1.0, 0.5]), None, [2.0]),
    (np.array([1.0, np.nan]), None, [np.nan]),
])
def test_ties_counts_and_nan_where_none_ties(x, axis, expected):
    extremum = np.max(x, axis=axis, keepdims=True)
    got = _ties(x == extremum, x, axis=axis)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("like, dtype", [
    (np.zeros(3, np.float32), np.float32), (np.zeros(3), np.float64),
    (np.zeros(3, int), np.float64), (np.zeros(3, np.float16), np.float16),
    (np.float32(0.0), np.float32), (0.0, np.float64),
])
def test_ties_takes_the_precision_of_the_values(like, dtype):
    hits = np.ones(np.shape(like), dtype=bool)
    assert np.asarray(_ties(hits, like)).dtype == dtype


def test_ties_of_scalars_are_scalars():
    assert _ties(True, 1.5) == 1.0 and np.ndim(_ties(True, 1.5)) == 0
    assert np.isnan(_ties(np.False_, np.float64(np.nan)))
    assert np.ndim(_ties(np.array(False), np.array(np.nan))) == 0


def test_max_gradient_of_a_nan_row_is_nan_and_others_split_ties():
    df = symdiff.grad(lambda A: np.sum(np.max(A, axis=1) * np.array([1.0, 2.0, 3.0])))
    A = np.array([[1.0, 3.0, 3.0], [np.nan, 2.0, 0.0], [0.0, -1.0, 5.0]])
    got = df(A)
    np.testing.assert_array_equal(got[0], [0.0, 0.5, 0.5])
    assert np.isnan(got[1]).all()
    np.testing.assert_array_equal(got[2], [0.0, 0.0, 3.0])


# ---- summing a gradient back to an operand's shape ---------------------------------------
@pytest.mark.parametrize("g, like, expected", [
    (np.arange(6.0).reshape(2, 3), np.zeros(3), [3.0, 5.0, 7.0]),
    (np.arange(6.0).reshape(2, 3), np.zeros((2, 1)), [[3.0], [12.0]]),
    (np.arange(6.0).reshape(2, 3), np.zeros((1, 3)), [[3.0, 5.0, 7.0]]),
    (np.arange(12.0).reshape(2, 2, 3), np.zeros((2, 1)), [[24.0], [42.0]]),
    (np.arange(12.0).reshape(2, 2, 3), np.zeros((2, 3)), [[6.0, 8.0, 10.0], [12.0, 14.0, 16.0]]),
    (np.arange(6.0).reshape(2, 3), np.zeros(()), 15.0),
    (np.arange(3.0), np.zeros((2, 3)), [[0.0, 1.0, 2.0], [0.0, 1.0, 2.0]]),
    ([1.0, 2.0], np.zeros(2, np.float32), [1.0, 2.0]),
    (2.0, np.zeros((2, 2), np.float32), [[2.0, 2.0], [2.0, 2.0]]),
])
def test_sum_to_sums_leading_axes_and_ones(g, like, expected):
    got = _sum_to(g, like)
    assert np.shape(got) == np.shape(like)
    np.testing.assert_array_equal(got, expected)
    if np.ndim(g) == 0:  # a number takes the precision of what it meets
        assert got.dtype == like.dtype


@pytest.mark.parametrize("g, expected", [
    (np.arange(4.0), np.float64(6.0)), (np.arange(4.0, dtype=np.float32), np.float32(6.0)),
    (np.float32(1.5), np.float32(1.5)), ([1.0, 2.0], np.float64(3.0)),
    (2.0, 2.0),
])
def test_sum_to_a_python_number_gives_a_scalar(g, expected):
    got = _sum_to(g, 0.5)
    assert got == expected and np.ndim(got) == 0 and type(got) is type(expected)
