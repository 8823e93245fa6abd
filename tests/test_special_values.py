"""scipy.special's derivatives at their special points, and against autograd's.

The rows (rows_special.py) check every mode against central differences
inside each function's domain; here: near gammaln's poles, logsumexp with
-inf entries (as JAX: 0 for an entry at -inf, NaN for a slice all -inf),
log_ndtr far in both tails (against mpmath), xlogy at x = 0, sinc at 0, and
the gradients of the functions autograd also has, against autograd's.
"""
import autograd
import autograd.numpy as anp
import autograd.scipy.special as asp
import mpmath
import numpy as np
import pytest
import scipy.special as sc

import symdiff
from check_grads import check_grads


def total(f):
    """The gradient of sum(f(x)) (f elementwise: its derivative, entry by entry)."""
    return symdiff.grad(lambda x: np.sum(f(x)))


def second(f):
    """The second derivative of an elementwise f, entry by entry."""
    slope = total(f)
    return lambda x: symdiff.jvp(slope)(x, np.ones_like(x))[1]


# ---- gammaln near its poles -------------------------------------------------------------
def gammaln(x):
    return sc.gammaln(x)


NEAR_POLES = np.array([1e-8, 1e-4, 0.01, -1e-4, -1 + 1e-5, -1 - 1e-5, -2.5, -3 + 1e-3,
                       -7.5, 171.0])


def test_gammaln_near_its_poles_is_digamma_and_trigamma():
    np.testing.assert_allclose(total(gammaln)(NEAR_POLES), sc.digamma(NEAR_POLES),
                               rtol=1e-13)
    np.testing.assert_allclose(second(gammaln)(NEAR_POLES), sc.polygamma(1, NEAR_POLES),
                               rtol=1e-13)


def test_gammaln_between_poles_in_every_mode():
    check_grads(lambda x: sc.gammaln(x), (np.array([-0.3, -1.7, -2.2, -4.9]),))


# ---- logsumexp with -inf entries ------------------------------------------------------------
def lse_rows(a):
    return sc.logsumexp(a, axis=1)


WITH_INF = np.array([[0.0, -np.inf, 1.0], [-np.inf, -np.inf, -np.inf], [2.0, 2.0, -np.inf]])


def test_logsumexp_with_minus_inf_entries():
    """An entry at -inf: gradient 0 (exp(-inf - out)); a slice all -inf: the
    value -inf and gradient 0, since the value stays -inf however its entries
    move (jax.scipy.special.logsumexp gives NaN: exp(-inf + inf))."""
    value, grad = symdiff.vjp(lse_rows)(WITH_INF, np.ones(3))
    np.testing.assert_array_equal(value, sc.logsumexp(WITH_INF, axis=1))
    np.testing.assert_allclose(grad[0], [1 / (1 + np.e), 0.0, np.e / (1 + np.e)])
    np.testing.assert_array_equal(grad[1], [0.0, 0.0, 0.0])
    np.testing.assert_allclose(grad[2], [0.5, 0.5, 0.0])
    _, tangent = symdiff.jvp(lse_rows)(WITH_INF, np.ones((3, 3)))
    np.testing.assert_allclose(tangent, [1.0, 0.0, 1.0])


def hmm_left_to_right(log_pi, log_A, obs_ll):  # a hunt's HMM: states no path reaches yet
    alpha = log_pi + obs_ll[0]
    for t in range(1, obs_ll.shape[0]):
        alpha = sc.logsumexp(alpha[:, None] + log_A, axis=0) + obs_ll[t]
    return sc.logsumexp(alpha)


def test_an_hmm_with_structural_zeros_has_finite_gradients():
    # alpha at t = 0 is -inf for the states 1 and 2, and the column of state 2
    # at t = 1 is all -inf: its NaN reached every gradient of the forward pass
    with np.errstate(divide="ignore"):
        log_pi = np.log(np.array([1.0, 0.0, 0.0]))
        log_A = np.log(np.array([[0.9, 0.1, 0.0], [0.0, 0.8, 0.2], [0.0, 0.0, 1.0]]))
    obs_ll = np.log(np.array([[0.5, 0.2, 0.3], [0.1, 0.6, 0.3], [0.3, 0.3, 0.4],
                              [0.2, 0.2, 0.6]]))
    grad = symdiff.grad(hmm_left_to_right, wrt=2)(log_pi, log_A, obs_ll)
    step = 1e-6
    for index in np.ndindex(obs_ll.shape):
        e = np.zeros_like(obs_ll)
        e[index] = step
        expected = (hmm_left_to_right(log_pi, log_A, obs_ll + e)
                    - hmm_left_to_right(log_pi, log_A, obs_ll - e)) / (2 * step)
        assert np.isclose(grad[index], expected, atol=1e-8), index


def test_logsumexp_of_large_values_is_stable():
    a = np.array([1000.0, 1000.0, -1000.0])
    grad = symdiff.grad(lambda a: sc.logsumexp(a))(a)
    np.testing.assert_allclose(grad, [0.5, 0.5, 0.0], atol=1e-300)


def test_softmaxes_with_minus_inf_entries():
    x = np.array([[0.0, -np.inf, 1.0]])
    weights = np.array([[1.0, 2.0, 3.0]])
    grad = symdiff.grad(lambda x: np.sum(weights * sc.softmax(x, axis=1)))(x)
    p = sc.softmax(x, axis=1)
    np.testing.assert_allclose(grad, p * (weights - np.sum(weights * p)))
    assert grad[0, 1] == 0.0


# ---- log_ndtr far in both tails -----------------------------------------------------------------
TAILS = np.array([-1e5, -1e3, -40.0, -10.0, 0.0, 10.0, 30.0, 40.0, 1e3])


def mills(t):
    """pdf/cdf of the standard normal, and its derivative, to 17 digits."""
    mpmath.mp.dps = 60
    r = mpmath.npdf(t) / mpmath.ncdf(t)
    return float(r), float(-r * (t + r))


def test_log_ndtr_is_finite_and_exact_far_in_both_tails():
    slope = total(sc.log_ndtr)(TAILS)
    curvature = second(sc.log_ndtr)(TAILS)
    expected = np.array([mills(mpmath.mpf(t)) for t in TAILS])
    assert np.all(np.isfinite(slope)) and np.all(np.isfinite(curvature))
    np.testing.assert_allclose(slope, expected[:, 0], rtol=1e-13, atol=1e-290)
    # 2x erfcx(x) - 2/sqrt(pi) cancels for large x: 1e-6 relative at x = -1e5
    np.testing.assert_allclose(curvature, expected[:, 1], rtol=1e-6, atol=1e-290)


# ---- xlogy, entropies and sinc at 0 ------------------------------------------------------------
def test_xlogy_at_x_zero():
    y = np.array([0.5, 2.0])
    x = np.zeros(2)
    gx, gy = symdiff.grad(lambda x, y: np.sum(sc.xlogy(x, y)), wrt=(0, 1))(x, y)
    np.testing.assert_allclose(gx, np.log(y))
    np.testing.assert_array_equal(gy, [0.0, 0.0])
    check_grads(lambda x, y: sc.xlogy(x, y), (x, y))


@pytest.mark.parametrize("f, where_x_is_zero", [
    (sc.xlogy, 0.0), (sc.xlog1py, 0.0), (sc.rel_entr, 0.0), (sc.kl_div, 1.0)],
    ids=lambda v: getattr(v, "__name__", ""))
def test_the_slope_in_y_where_x_is_zero_is_the_function_s_even_at_y_s_edge(f, where_x_is_zero):
    # f(0, y) does not change with y (xlogy(0, y) = 0): its partial in y is a
    # number there, also at y = 0 (y = -1 for xlog1py), where x / y was 0 / 0.
    edge = -1.0 if f is sc.xlog1py else 0.0
    x, y = np.array([0.0, 0.0, 0.7]), np.array([edge, 0.4, 1.3])
    gy = symdiff.grad(lambda x, y: np.sum(f(x, y)), wrt=1)(x, y)
    assert np.all(np.isfinite(gy)), gy
    h = 1e-6
    np.testing.assert_allclose(gy[:2], [where_x_is_zero] * 2)
    np.testing.assert_allclose(gy[2], (f(0.7, 1.3 + h) - f(0.7, 1.3 - h)) / (2 * h), rtol=1e-7)
    check_grads(lambda y: f(x[1:], y), (y[1:],))  # (x = 0 with y inside: in y, every order)
    if f in (sc.xlogy, sc.xlog1py):  # (log(x / y)'s slope in x is infinite at x = 0)
        check_grads(lambda x, y: f(x, y), (x[1:], y[1:]), wrt=(0, 1))


def test_sinc_at_zero():
    x = np.array([0.0, 1e-12, -1e-7, 0.5])
    def sinc(x):
        return np.sinc(x)
    np.testing.assert_allclose(total(sinc)(x)[:3], [0.0, 0.0, 0.0], atol=1e-6)
    np.testing.assert_allclose(second(sinc)(x)[:3], -np.pi ** 2 / 3, rtol=1e-6)
    check_grads(sinc, (x,))


# ---- against autograd -----------------------------------------------------------------

POSITIVE = np.array([0.3, 1.1, 2.7, 6.0])
UNIT = np.array([0.05, 0.3, 0.6, 0.95])
REAL = np.array([-2.5, -0.4, 0.7, 3.0])

AGAINST_AUTOGRAD = [
    ("gammaln", sc.gammaln, asp.gammaln, POSITIVE),
    ("digamma", sc.digamma, asp.digamma, POSITIVE),
    ("gamma", sc.gamma, asp.gamma, POSITIVE),
    ("polygamma", lambda x: sc.polygamma(2, x), lambda x: asp.polygamma(2, x), POSITIVE),
    ("erf", sc.erf, asp.erf, REAL),
    ("erfc", sc.erfc, asp.erfc, REAL),
    ("erfinv", sc.erfinv, asp.erfinv, UNIT * 2 - 1),
    ("erfcinv", sc.erfcinv, asp.erfcinv, UNIT * 2),
    ("expit", sc.expit, asp.expit, REAL),
    ("logit", sc.logit, asp.logit, UNIT),
    ("i0", sc.i0, asp.i0, REAL),
    ("i1", sc.i1, asp.i1, REAL),
    ("iv", lambda x: sc.iv(3, x), lambda x: asp.iv(3, x), REAL),
    ("ive", lambda x: sc.ive(2, x), lambda x: asp.ive(2, x), POSITIVE),
    ("multigammaln", lambda x: sc.multigammaln(x, 3), lambda x: asp.multigammaln(x, 3),
     POSITIVE + 1.5),
]


@pytest.mark.parametrize("name, ours, theirs, x", AGAINST_AUTOGRAD,
                         ids=[case[0] for case in AGAINST_AUTOGRAD])
def test_elementwise_derivative_as_autograd(name, ours, theirs, x):
    if name == "multigammaln":  # autograd's takes a scalar
        expected = [autograd.grad(theirs)(float(v)) for v in x]
        got = [symdiff.grad(ours)(float(v)) for v in x]
    else:
        expected = autograd.elementwise_grad(theirs)(x)
        got = total(ours)(x)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-14)


def test_logsumexp_as_autograd():
    a = np.array([[0.3, -1.2, 2.0], [1.5, 0.1, -0.7]])
    c = np.array([1.0, -2.0])
    ours = symdiff.grad(lambda a: np.sum(c * sc.logsumexp(a, axis=1)))(a)
    theirs = autograd.grad(lambda a: anp.sum(c * asp.logsumexp(a, axis=1)))(a)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    b = np.array([[1.0, 0.5, 2.0], [0.2, 3.0, 1.0]])
    ours_a, ours_b = symdiff.grad(lambda a, b: np.sum(c * sc.logsumexp(a, axis=1, b=b)),
                                  wrt=(0, 1))(a, b)
    theirs_a = autograd.grad(lambda a: anp.sum(c * asp.logsumexp(a, axis=1, b=b)))(a)
    np.testing.assert_allclose(ours_a, theirs_a, rtol=1e-12)
    # (autograd has no derivative in b: d/db = exp(a - logsumexp))
    lse = sc.logsumexp(a, axis=1, b=b, keepdims=True)
    np.testing.assert_allclose(ours_b, c[:, None] * np.exp(a - lse), rtol=1e-12)
