"""Forward values only the gradient reads, computed as the gradient likes
(optimize/gradient_only.py): SciPy's logsumexp as NumPy operations, a solve
with a matrix whose inverse is at hand as a product (tests/test_linalg_code.py).
The user's own values (returned, branched on) stay as written."""
import warnings

import numpy as np
import pytest
import scipy.special

import symdiff
from check_grads import check_grads

RNG = np.random.default_rng(11)


def cross_entropy(logits, Y):
    log_probs = logits - scipy.special.logsumexp(logits, axis=1, keepdims=True)
    return -np.mean(np.sum(Y * log_probs, axis=1))


def mixture(a):
    return -np.sum(scipy.special.logsumexp(a, axis=-1))


def whole(a):
    return scipy.special.logsumexp(a) * 2.0 + np.sum(a ** 2)


def branched(a):
    lse = scipy.special.logsumexp(a, axis=0)
    if lse[0] > 1.0:
        return np.sum(lse ** 2)
    return np.sum(lse)


def _central(f, args, i, h=1e-6):
    x = args[i]
    out = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        up, down = [a.copy() for a in args], [a.copy() for a in args]
        up[i][k] += h
        down[i][k] -= h
        out[k] = (f(*up) - f(*down)) / (2 * h)
    return out


@pytest.mark.parametrize("f, args", [
    (cross_entropy, (RNG.normal(size=(5, 4)), np.eye(4)[RNG.integers(0, 4, 5)])),
    (mixture, (RNG.normal(size=(6, 3)),)),
    (whole, (RNG.normal(size=(3, 2)),)),
    (branched, (RNG.normal(size=(3, 2)) + 2.0,)),
    (branched, (RNG.normal(size=(3, 2)) - 3.0,)),
])
def test_gradients_through_logsumexp_agree_with_differences(f, args):
    got = symdiff.grad(f)(*args)
    assert np.allclose(got, _central(f, args, 0), rtol=1e-6, atol=1e-8)
    check_grads(f, args, wrt=(0,))


@pytest.mark.parametrize("f, args", [
    (cross_entropy, (RNG.normal(size=(5, 4)), np.eye(4)[RNG.integers(0, 4, 5)])),
    (mixture, (RNG.normal(size=(6, 3)),)),
    (whole, (RNG.normal(size=(3, 2)),)),
])
def test_the_gradient_computes_logsumexp_with_numpy(f, args):
    source = _code(symdiff.source(symdiff.grad(f), *args))
    assert "logsumexp(" not in source and "scipy" not in source, source


def test_a_logsumexp_the_user_sees_stays_scipys():
    a = RNG.normal(size=(4, 3))
    value_and_grad = symdiff.value_and_grad(mixture)
    assert "scipy.special.logsumexp(" in _code(symdiff.source(value_and_grad, a))
    assert value_and_grad(a)[0] == mixture(a)
    assert "scipy.special.logsumexp(" in _code(symdiff.source(symdiff.grad(branched), a))


def _code(source):
    """The function's statements, without docstring and comments (which
    quote the user's lines)."""
    body = source.split('"""')[-1]
    return "\n".join(line.split("#")[0] for line in body.splitlines())


def test_minus_infinity_entries_get_no_gradient():
    a = np.array([[0.5, -np.inf, 1.0], [-np.inf, 2.0, 0.0]])
    got = symdiff.grad(mixture)(a)
    weights = np.exp(a - scipy.special.logsumexp(a, axis=-1, keepdims=True))
    assert np.array_equal(got == 0, np.isinf(a)) and np.allclose(got, -weights)


def test_a_slice_all_minus_infinity_gets_no_gradient():
    # (its value is -inf however its entries move; the chain rule's weights
    # exp(a - logsumexp) are NaN there, through SciPy's value or NumPy's)
    a = np.array([[0.5, 1.0], [-np.inf, -np.inf]])
    with warnings.catch_warnings():  # (NumPy's max-shifted value warns: -inf - -inf)
        warnings.simplefilter("ignore")
        got = symdiff.grad(mixture)(a)
    expected = -np.exp(a[0] - scipy.special.logsumexp(a[0]))
    assert np.allclose(got[0], expected) and np.array_equal(got[1], [0.0, 0.0])


def straight_through(x, y):  # the estimator as JAX and PyTorch users write it
    q = x + symdiff.stop_gradient(np.floor(x * 8.0) / 8.0 - x)
    return np.sum((q - y) ** 2)


def straight_through_minus(x, y):
    q = x - symdiff.stop_gradient(x - np.round(x * 4.0) / 4.0)
    return np.sum(np.sin(q) * y)


@pytest.mark.parametrize("f, q, dq", [
    (straight_through, lambda x: np.floor(x * 8.0) / 8.0, lambda q, y: 2.0 * (q - y)),
    (straight_through_minus, lambda x: np.round(x * 4.0) / 4.0, lambda q, y: np.cos(q) * y),
])
def test_a_straight_through_value_only_the_gradient_reads_is_its_quantized_value(f, q, dq):
    """x + (q - x) is q up to rounding: the gradient reads q, and computes
    neither the sum nor the difference (optimize/algebra.py)."""
    x, y = RNG.normal(size=7), RNG.normal(size=7)
    code = _code(symdiff.source(symdiff.grad(f), x, y))
    assert "x + (" not in code and "x - (" not in code, code
    assert np.allclose(symdiff.grad(f)(x, y), dq(q(x), y), rtol=1e-12, atol=1e-12)
    value_and_grad = symdiff.value_and_grad(f)
    assert value_and_grad(x, y)[0] == f(x, y)  # (the caller's value: as written)


def half_square_norm(v):
    return 0.5 * v @ v


def test_a_gradient_equal_to_an_argument_is_a_copy_of_it():
    """The algebra leaves ``v`` for 0.5 * v @ v's gradient: returned as a copy,
    which the caller may change in place without changing ``v``."""
    v = RNG.normal(size=4)
    g = symdiff.grad(half_square_norm)(v)
    assert np.array_equal(g, v) and g is not v and not np.shares_memory(g, v)
    g *= 2.0
    assert not np.array_equal(g, v)
