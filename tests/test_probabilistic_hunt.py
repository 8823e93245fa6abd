"""Defects a hunt over probabilistic and sequence models found (HMMs, Kalman
filters, GARCH, ARMA, CRFs, Sinkhorn, densities of scipy.special, survival
models): each as the reduced program, against central differences."""
import numpy as np
import scipy.special

import symdiff
from check_grads import check_grads


def ema_variance(lam, r):  # an exponentially weighted variance, written into an array
    v = r[0] ** 2
    out = np.empty_like(r)
    for t, x in enumerate(r):
        v = lam * v + (1 - lam) * x ** 2
        out[t] = v
    return np.sum(np.log(out) + r ** 2 / out)


def test_second_derivative_of_a_loop_whose_number_starts_as_zeros_like():
    # the reverse loop's adjoint of `v` starts as np.zeros_like(v), a NumPy
    # number, written 0.0 in specialised code; the loop's facts kept it a
    # NumPy value, and the Hessian's code read `v_bar.shape` of a Python
    # float (AttributeError)
    r = np.array([0.1, -0.3, 0.2, 0.5])
    check_grads(ema_variance, (0.9, r), wrt=(0,))
    h = symdiff.hessian(ema_variance)(0.9, r)
    df = symdiff.grad(ema_variance)
    step = 1e-5
    assert np.isclose(h, (df(0.9 + step, r) - df(0.9 - step, r)) / (2 * step), rtol=1e-6)


def sinkhorn_in_place(C, eps):  # scalings written into their arrays, `u[:] = ...`
    K = np.exp(-C / eps)
    u = np.ones(K.shape[0])
    v = np.ones(K.shape[1])
    a = np.full(K.shape[0], 1.0 / K.shape[0])
    b = np.full(K.shape[1], 1.0 / K.shape[1])
    for _ in range(2):
        u[:] = a / (K @ v)
        v[:] = b / (K.T @ u)
    return np.sum(u[:, None] * K * v[None, :] * C)


def test_an_array_a_loop_writes_into_and_saves_is_copied_per_iteration():
    # `u[:] = ...` was written in place, and the loop's tape saved `u` in each
    # iteration: every entry was the last iteration's array, and K's gradient
    # (a product of the saved u's) was wrong by 0.06, with no error
    C = np.array([[0.8, 2.1, 0.3, 1.7], [2.9, 0.4, 1.1, 0.6], [1.5, 2.2, 0.9, 2.6]])
    check_grads(sinkhorn_in_place, (C, 0.5))


def hmm_scaled_rows(pi, A, B, obs):  # the scaled forward pass, written into rows
    T, K = len(obs), len(pi)
    alpha = np.zeros((T, K))
    c = np.zeros(T)
    alpha[0] = pi * B[:, obs[0]]
    c[0] = alpha[0].sum()
    alpha[0] /= c[0]
    for t in range(1, T):
        alpha[t] = (alpha[t - 1] @ A) * B[:, obs[t]]
        c[t] = alpha[t].sum()
        alpha[t] /= c[t]
    return -np.sum(np.log(c))


def test_second_derivatives_of_a_scaled_hmm_written_into_rows():
    # the gradient saved `c`, which its loop writes into, for its shape only
    # (the second derivative refused that tape: a list of views of an array
    # written into); then its `c[t]`, a number, was taken for a view; then
    # `np.full(shape, g)` had no derivative, and `if A_bar_rows:` (is the
    # list empty) was read as an array
    pi = np.array([0.3, 0.3, 0.4])
    A = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.25, 0.25, 0.5]])
    B = np.array([[0.5, 0.2, 0.2, 0.1], [0.1, 0.4, 0.4, 0.1], [0.3, 0.3, 0.1, 0.3]])
    obs = np.array([0, 2, 1, 3, 3, 0])
    check_grads(hmm_scaled_rows, (pi, A, B, obs), wrt=(0, 1, 2))
    text = symdiff.source(symdiff.grad(hmm_scaled_rows, wrt=1), pi, A, B, obs)
    assert ", c," not in text.split("tape.append(")[1].split("\n")[0]  # (not saved)


def spread_of_a_number(x, v):
    return np.sum(np.sin(np.full(len(v), x) * v)) + np.sum(np.full((2, 3), x ** 2))


def test_np_full_of_a_differentiated_number():
    check_grads(spread_of_a_number, (0.7, np.array([0.3, 1.2, -0.5])))


K0 = np.array([[0.8, 2.1, 0.3, 1.7], [2.9, 0.4, 1.1, 0.6], [1.5, 2.2, 0.9, 2.6]])


def zeroed_in_place(eps):  # (the Sinkhorn gradient's own reverse loop, reduced)
    K = K0 * eps
    v = np.ones(4) * eps
    u = np.ones(3) * eps ** 2
    for _ in range(2):
        t1 = v.copy()
        v[:] = 0.0
        u = u + t1 @ K.T
        t2 = u.copy()
        u[:] = 0.0
        v = v + t2 @ K
    return np.sum(v) + np.sum(u ** 2)


def test_an_array_saved_for_a_matrix_gradient_is_not_zeroed_by_the_next_iteration():
    # `u = u + t1 @ K.T` is saved (K's gradient is one product of the saved
    # values after the loop) and is the `u` the next iteration zeroes in
    # place with `u[:] = 0.0`: the saved entry was zeroed too (gradient 798,
    # not 997, with no error)
    check_grads(zeroed_in_place, (0.5,))


def clipped_cross_entropy(z, y):  # NumPy 2's names for clip's bounds
    p = (1 / (1 + np.exp(-z))).clip(min=1e-3, max=1 - 1e-3)
    return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)) + np.sum(np.clip(z, min=0.5) ** 2)


def test_clip_with_numpy_2s_min_and_max():
    # (`p.clip(min=..., max=...)` was refused: "clip needs the argument a_min")
    z = np.array([-8.0, -0.3, 0.4, 7.5, 1.2])
    y = np.array([1.0, 0.0, 1.0, 1.0, 0.0])
    check_grads(clipped_cross_entropy, (z, y), wrt=(0,))
    p = 1 / (1 + np.exp(-z))
    inside = (p > 1e-3) & (p < 1 - 1e-3)
    expected = np.where(inside, (p - y) / len(z), 0.0) + np.where(z > 0.5, 2 * z, 0.0)
    np.testing.assert_allclose(symdiff.grad(clipped_cross_entropy)(z, y), expected)


def signed_log_sum(x, w):  # one result of a function of several, read under a where
    v, s = scipy.special.logsumexp(x, b=w, return_sign=True)
    return np.where(v > 0.0, v, 0.0) * s


def logdet_under_a_where(a):
    sign, logdet = np.linalg.slogdet(a @ a.T + np.eye(2))
    return np.where(logdet > 0.5, logdet, 0.0) * sign


def test_one_result_of_several_read_only_under_a_scalar_where():
    # the `output` that reads v out of (v, s) had its backward placed under
    # the where's condition, and the branches' join merged the tuple's part
    # as a value: AttributeError inside symdiff (the second derivative of the
    # logsumexp's gradient, which guards a slice all -inf so, raised it too)
    check_grads(signed_log_sum, (np.array([0.1, 0.2, -0.4]), np.array([0.5, 1.0, -0.2])))
    check_grads(logdet_under_a_where, (np.array([[1.0, 0.3], [-0.2, 0.8]]),))
    check_grads(lambda x, w: scipy.special.logsumexp(x, b=w, return_sign=True)[0],
                (np.array([0.1, 0.2, -0.4]), np.array([0.5, 1.0, -0.2])))
