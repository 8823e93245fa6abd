"""The gradient's own algebra across the lines of a function (issue 16): a
value the backward pass shares is read through where every reader's doing so
cancels it (a softmax written as probabilities then a log: ``Y / p`` times
``p`` is ``Y``), a monomial times a sum is written term by term where a
factor cancels, a forward power meets the gradient's factors (``ell ** 2``
over ``ell * ell``), and a negated placed value carries its sign in its
number. Each gradient is checked against central differences, its
specialised source for what it must not contain."""
import numpy as np
import pytest

import symdiff
from check_grads import check_grads
from numeric import numeric_grad

RNG = np.random.default_rng(7)


def softmax_probs_shifted(z, Y):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    return -np.mean(np.sum(Y * np.log(p), axis=1))


def softmax_probs_function_sum(z, Y):
    e = np.exp(z)
    p = e / np.sum(e, axis=1, keepdims=True)
    return -np.sum(Y * np.log(p))


def softmax_probs_named_sum(z, Y):
    e = np.exp(z)
    total = np.sum(e, axis=1, keepdims=True)
    p = e / total
    return -np.sum(Y * np.log(p)) / z.shape[0]


def _specialised(f, *args, wrt=0):
    df = symdiff.grad(f, wrt=wrt)
    return df, symdiff.source(df, *args)


def _backward(source):
    """The assignments after the first ``# Lnn`` comment: the backward pass."""
    lines = source.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("# L"))
    return [line for line in lines[start:] if " = " in line and not line.strip().startswith("#")]


@pytest.mark.parametrize("f", [softmax_probs_shifted, softmax_probs_function_sum,
                               softmax_probs_named_sum])
def test_a_softmax_written_as_probabilities_then_a_log_is_p_times_sum_minus_y(f):
    z = RNG.normal(size=(5, 4))
    Y = RNG.random((5, 4))  # soft labels: rows need not sum to 1
    df, source = _specialised(f, z, Y)
    np.testing.assert_allclose(df(z, Y), numeric_grad(f, [z, Y]), rtol=1e-6, atol=1e-8)
    check_grads(f, (z, Y), wrt=(0,))
    # (was Y / p, read by a sum of p times it and by the gradient: a division
    # by a probability, and two passes, where the gradient is p * sum(Y) - Y)
    backward = _backward(source)
    assert not any("/ p" in line or "/ total" in line or "/ sum_e" in line
                   for line in backward), source
    assert len(backward) <= 2 and backward[-1].strip().startswith("z_bar = "), source


def kernel_lengthscale(theta, D):
    ell = np.exp(theta[0])
    K = np.exp(-0.5 * D / ell ** 2)
    return np.sum(K * D)


def kernel_scaled(theta, D, s):
    ell, sf2 = np.exp(theta[0]), np.exp(2 * theta[1])
    K = sf2 * np.exp(-0.5 * D / ell ** 2) + s * np.eye(D.shape[0])
    return np.sum(K * D)


def kernel_direct(a, D):
    K = np.exp(-0.5 * D / a ** 2)
    return np.sum(K)


@pytest.mark.parametrize("f, args", [
    (kernel_lengthscale, (RNG.normal(size=2), RNG.random((4, 4)))),
    (kernel_scaled, (RNG.normal(size=2), RNG.random((4, 4)), 0.3)),
    (kernel_direct, (1.3, RNG.random((4, 4)))),
])
def test_a_forward_power_meets_the_gradient_s_factors(f, args):
    df, source = _specialised(f, *args)
    np.testing.assert_allclose(df(*args), numeric_grad(f, list(args)), rtol=1e-6, atol=1e-8)
    check_grads(f, args, wrt=(0,))
    # d/d log(ell) of exp(-D / (2 ell**2)) is (D / ell**2) K: ell's factor and
    # ell**2's cancel (was ``t * ... / t`` with t = ell ** 2)
    last = [line for line in _backward(source)
            if line.strip().startswith(("theta_bar[0] = ", "a_bar = "))]
    assert len(last) == 1 and last[0].count("/") == (f is kernel_direct), source
    assert f is not kernel_direct or last[0].endswith("/ a"), source  # (a / a**2 is 1 / a)
    assert "-(" not in source, source  # (-2.0 * ..., not -(2.0 * ...))


def entropy_of_softmax(z):
    p = np.exp(z) / np.sum(np.exp(z))
    return np.sum(p * np.log(p))


def attention_energy(Q, K, V):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    S = S - S.max(axis=1, keepdims=True)
    A = np.exp(S)
    A = A / A.sum(axis=1, keepdims=True)
    return np.sum((A @ V) ** 2)


@pytest.mark.parametrize("f, args", [
    (entropy_of_softmax, (RNG.normal(size=5),)),
    (attention_energy, (RNG.normal(size=(4, 3)), RNG.normal(size=(4, 3)),
                        RNG.normal(size=(4, 2)))),
])
def test_a_forward_quotient_is_read_where_a_term_has_its_factors(f, args):
    """``e * (g - c) / s`` with ``p = e / s`` computed is ``p * (g - c)``: one
    product, where it was a product and a division."""
    df, source = _specialised(f, *args, wrt=0)
    np.testing.assert_allclose(df(*args), numeric_grad(f, list(args)), rtol=1e-6, atol=1e-8)
    check_grads(f, args, wrt=(0,))
    backward = _backward(source)
    assert any(line.strip().startswith(("z_bar = p * (", "t = A * (")) for line in backward), \
        source
    assert not any("/ sum" in line or "sum_A" in line for line in backward), source


def gaussian_nll(mu, log_sigma, x):
    var = np.exp(2 * log_sigma)
    return np.sum(0.5 * np.log(2 * np.pi * var) + (x - mu) ** 2 / (2 * var))


def test_a_gradient_the_algebra_rewrites_keeps_its_name():
    """A product the builder folds while the algebra writes (``0.5 * (2.0 *
    t)``) was left behind unread: the rewritten gradient lost the name
    ``log_sigma_bar`` (it was returned as ``t_1``)."""
    args = (RNG.normal(size=6), 0.1 * RNG.normal(size=6), RNG.normal(size=6))
    df, source = _specialised(gaussian_nll, *args, wrt=(0, 1))
    for k in (0, 1):
        np.testing.assert_allclose(df(*args)[k], numeric_grad(gaussian_nll, list(args), wrt=k),
                                   rtol=1e-6, atol=1e-8)
    assert "return mu_bar, log_sigma_bar" in source, source
    assert "log_sigma_bar = 1.0 - t ** 2 / var" in source, source


def soft_threshold_energy(x, lam):
    s = np.sign(x) * np.maximum(np.abs(x) - lam, 0)
    return np.sum(s ** 2)


def test_an_odd_power_of_a_sign_is_the_sign():
    """A soft threshold's energy: the gradient ``2 s * sign(x) ** 2 *
    share`` (one sign from the function, one from |x|'s rule, one from s) is
    ``2 s``: sign(x) ** 3 is sign(x), for -1, 0, 1 and NaN alike."""
    x = np.array([-1.2, -0.25, 0.0, 0.1, 0.7, 2.0, np.nan])
    df, source = _specialised(soft_threshold_energy, x, 0.3)
    got = df(x, 0.3)
    assert np.isnan(got[-1]), got  # (NaN stays NaN)
    np.testing.assert_allclose(got[:-1], numeric_grad(soft_threshold_energy, [x[:-1], 0.3]),
                               rtol=1e-6, atol=1e-8)
    check_grads(soft_threshold_energy, (x[[0, 1, 4, 5]], 0.3), wrt=(0,))
    assert [line.strip() for line in _backward(source)] == ["x_bar = 2.0 * s"], source


def huber_with_delta(r, d):
    a = np.abs(r)
    return np.sum(np.where(a <= d, 0.5 * r ** 2, d * (a - 0.5 * d)))


def test_a_parameter_read_twice_is_summed_once_under_one_comment():
    """``d * (a - 0.5 * d)``: d's two contributions, each summed over the
    array, are added before one sum (one pass, not two), and the statements
    of that line stay together under one ``# Lnn`` (the sum of the two was
    written after the clip's ``if``, under the line's comment again)."""
    r = np.array([-2.0, -0.3, 0.1, 0.5, 1.7, -1.1])
    df, source = _specialised(huber_with_delta, r, 0.8, wrt=(0, 1))
    for k in (0, 1):
        np.testing.assert_allclose(df(r, 0.8)[k],
                                   numeric_grad(huber_with_delta, [r, 0.8], wrt=k),
                                   rtol=1e-6, atol=1e-8)
    assert source.count(".sum()") == 1, source
    comments = [line.strip() for line in source.splitlines() if line.strip().startswith("# L")]
    assert len(comments) == len(set(comments)), source


def _gaussian_log_density_terms(s, w):
    S = s * s + 1.0
    return np.sum(w * np.log(2 * np.pi * S))


def test_a_constant_that_divides_the_coefficient_exactly_cancels():
    """``2 pi s w / (pi S)``-like terms (a log-density's ``log(2 pi S)``):
    the coefficient over the constant is the exact quotient (``2.0 * (s * w)
    / S``, not ``12.566... * (s * w) / (6.283... * S)``); a division by a
    constant that does not divide it exactly stays one."""
    rng = np.random.default_rng(4)
    s, w = rng.normal(size=3), rng.normal(size=3)
    text = symdiff.source(symdiff.grad(_gaussian_log_density_terms, wrt=0), s, w)
    assert "6.283" not in text.split('"""')[-1] and "12.566" not in text, text
    check_grads(_gaussian_log_density_terms, (s, w), wrt=(0,))


def _log_density_in_a_loop(s, y):
    ll = 0.0
    for v in y:
        S = s * s + v
        ll = ll - 0.5 * np.log(2 * np.pi * S)
    return ll


def test_product_rule_terms_of_a_number_a_loop_handed_on_are_merged():
    """``s * s`` outside the loop gets ``s * t_bar`` twice from the product
    rule, ``t_bar`` the gradient the loop gathered (a Python float before its
    first iteration, an np.float64 after): ``2.0 * (s * t_bar)``, not
    ``s_bar = s * t_bar; s_bar = s_bar + s_bar``."""
    args = (0.7, np.array([1.0, 1.5, 1.2]))
    text = symdiff.source(symdiff.grad(_log_density_in_a_loop, wrt=0), *args)
    assert "s_bar + s_bar" not in text and "2.0 * (s * " in text, text
    check_grads(_log_density_in_a_loop, args, wrt=(0,))


def _batch_norm_cubed(x, gamma, beta):
    mu = x.mean(axis=0)
    var = ((x - mu) ** 2).mean(axis=0)
    xhat = (x - mu) / np.sqrt(var + 1e-5)
    return np.sum((gamma * xhat + beta) ** 3)


def test_sums_over_one_axis_added_are_one_sum():
    """A mean's gradient gets ``-t_bar.sum(axis=0)`` from ``x - mu`` and
    ``(-t_3).sum(axis=0)`` through the variance: added, they are one sum of
    the two (``mu_bar = (t_3 - t_bar).sum(axis=0)``), no negated array."""
    rng = np.random.default_rng(12)
    args = (rng.normal(size=(5, 3)), rng.normal(size=3), rng.normal(size=3))
    text = symdiff.source(symdiff.grad(_batch_norm_cubed, wrt=(0, 1, 2)), *args)
    assert text.count(".sum(axis=0)") == 2 and "(-" not in text, text  # (beta_bar's, mu_bar's)
    check_grads(_batch_norm_cubed, args, wrt=(0, 1, 2))
