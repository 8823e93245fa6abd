"""A shift that later cancels (``x - max(x)`` before a softmax) gets no
gradient: its true derivative is exactly zero, so only rounding noise and
the tie-splitting code are left out. Where the proof does not go through, the
max keeps its gradient (ties split evenly)."""
import numpy as np
import pytest

import symdiff
from numeric import assert_grad, numeric_grad

NOTE = "np.max(...) gets no gradient: the result does not change with it"


def log_softmax_loss(z, Y):
    z = z - np.max(z, axis=1, keepdims=True)
    log_probs = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.sum(Y * log_probs) / z.shape[0]


def softmax_loss(z, Y):
    e = np.exp(z - np.max(z, axis=-1, keepdims=True))
    p = e / np.sum(e, axis=-1, keepdims=True)
    return np.sum(Y * p)


def log_softmax(z):
    s = z - np.max(z, axis=1, keepdims=True)
    return s - np.log(np.sum(np.exp(s), axis=1, keepdims=True))


# the max does not cancel in these
def shifted_sum(z):
    return np.sum(z - np.max(z, axis=1, keepdims=True))


def scaled_before_softmax(z):
    s = 2.0 * (z - np.max(z, axis=1, keepdims=True))
    return np.sum(s - np.log(np.sum(np.exp(s), axis=1, keepdims=True)))


def other_axis(z):
    s = z - np.max(z, axis=1, keepdims=True)
    return np.sum(s - np.log(np.sum(np.exp(s), axis=0, keepdims=True)))


def shift_also_returned(z):
    s = z - np.max(z, axis=1, keepdims=True)
    return s - np.log(np.sum(np.exp(s), axis=1, keepdims=True)), s


def in_a_branch(z, flag):
    s = z - np.max(z, axis=1, keepdims=True)
    if flag:
        s = s * 1.5
    return np.sum(s - np.log(np.sum(np.exp(s), axis=1, keepdims=True)))


Z = np.array([[0.3, -1.2, 2.0], [1.0, 1.0, -0.5], [4.0, 4.0, 4.0]])  # ties in rows 2, 3
Y = np.array([[0.0, 1.0, 0.0], [0.2, 0.3, 0.5], [1.0, 0.0, 0.0]])


@pytest.mark.parametrize("f", [log_softmax_loss, softmax_loss])
def test_a_cancelled_max_gets_no_gradient(f):
    df = symdiff.grad(f)
    text = symdiff.source(df)
    assert NOTE in text and "_ties" not in text and "is_max" not in text
    assert_grad(f, df, (Z, Y))  # at ties too: the function is smooth there
    assert_grad(f, df, (np.array([[1e3, -1e3, 0.0]]), np.array([[0.5, 0.25, 0.25]])))


def test_a_cancelled_max_keeps_nan_and_float32():
    df = symdiff.grad(log_softmax_loss)
    z = np.array([[0.3, np.nan, 2.0], [1.0, np.inf, -0.5], [0.0, 1.0, 2.0]])
    with np.errstate(invalid="ignore"):
        got = df(z, Y)
    assert np.isnan(got[:2]).all() and np.isfinite(got[2]).all()
    assert df(Z.astype(np.float32), Y.astype(np.float32)).dtype == np.float32


def test_a_cancelled_max_in_vjp_and_hessian():
    J = symdiff.jacobian(log_softmax)(Z[:2])
    assert "_ties" not in symdiff.source(symdiff.vjp(log_softmax))
    numeric = np.stack([numeric_grad(lambda z, i=i: log_softmax(z).ravel()[i], (Z[:2],))
                        for i in range(6)]).reshape(2, 3, 2, 3)
    np.testing.assert_allclose(J, numeric, rtol=1e-6, atol=1e-8)
    H = symdiff.hessian(log_softmax_loss)(Z, Y)
    df = symdiff.grad(log_softmax_loss)
    numeric = np.stack([numeric_grad(lambda z, i=i: df(z, Y).ravel()[i], (Z,))
                        for i in range(9)]).reshape(3, 3, 3, 3)
    np.testing.assert_allclose(H, numeric, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("f", [shifted_sum, scaled_before_softmax, other_axis])
def test_a_max_that_does_not_cancel_keeps_its_gradient(f):
    df = symdiff.grad(f)
    assert "_ties" in symdiff.source(df) and NOTE not in symdiff.source(df)
    z = np.array([[0.3, -1.2, 2.0], [1.0, 1.5, -0.5]])  # no ties: differentiable
    assert_grad(f, df, (z,))
    if f is shifted_sum:  # at a tie the max's gradient is split evenly
        np.testing.assert_allclose(df(np.array([[1.0, 1.0, 0.0]])), [[-0.5, -0.5, 1.0]])


def test_no_cancelling_through_returned_shifts_or_branches():
    text = symdiff.source(symdiff.vjp(shift_also_returned))
    assert "_ties" in text and NOTE not in text
    df = symdiff.grad(in_a_branch)
    assert "_ties" in symdiff.source(df)
    z = np.array([[0.3, -1.2, 2.0], [1.0, 1.5, -0.5]])
    assert_grad(lambda z: in_a_branch(z, True), lambda z: df(z, True), (z,))


def test_no_cancelling_through_an_overridden_gradient():
    df = symdiff.grad(log_softmax_loss, overrides={"exp": "identity"})
    text = symdiff.source(df)
    assert "_ties" in text and NOTE not in text and "overridden" in text
