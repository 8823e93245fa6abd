"""The kink policy, checked at the exact kink: ties split the gradient evenly.

`where` has no kink of its own: it follows its condition literally.
"""
import warnings

import numpy as np
import pytest

import symdiff
from numeric import numeric_grad


def grad_at(f, x, **kw):
    return symdiff.grad(f, **kw)(np.asarray(x, dtype=float))


@pytest.mark.parametrize("f, x, expected", [
    (lambda x: np.sum(np.maximum(x, 0.0)), [-1.0, 0.0, 2.0], [0.0, 0.5, 1.0]),
    (lambda x: np.sum(np.maximum(0.0, x)), [-1.0, 0.0, 2.0], [0.0, 0.5, 1.0]),
    (lambda x: np.sum(np.minimum(x, 1.0)), [0.0, 1.0, 2.0], [1.0, 0.5, 0.0]),
    (lambda x: np.sum(np.abs(x)), [-1.0, 0.0, 2.0], [-1.0, 0.0, 1.0]),
    (lambda x: np.sum(np.clip(x, -1.0, 1.0)), [-2.0, -1.0, 0.0, 1.0, 3.0],
     [0.0, 0.5, 1.0, 0.5, 0.0]),
    (lambda x: np.max(x), [1.0, 3.0, 3.0], [0.0, 0.5, 0.5]),
    (lambda x: np.min(x), [2.0, 2.0, 2.0, 5.0], [1 / 3, 1 / 3, 1 / 3, 0.0]),
    (lambda x: np.sum(np.max(x.reshape(2, 2), axis=1)), [1.0, 1.0, 0.0, 4.0],
     [0.5, 0.5, 0.0, 1.0]),
    (lambda x: np.sum(np.where(x > 0, x, 0.0)), [-1.0, 0.0, 2.0], [0.0, 0.0, 1.0]),
    (lambda x: np.sum(np.where(x >= 0, x, 0.0)), [-1.0, 0.0, 2.0], [0.0, 1.0, 1.0]),
    (lambda x: np.sum(x * (x > 0)), [-1.0, 0.0, 2.0], [0.0, 0.0, 1.0]),
])
def test_kinks_at_the_exact_point(f, x, expected):
    grad = grad_at(f, x)
    np.testing.assert_array_equal(grad, expected)


def test_maximum_of_a_value_with_itself_has_slope_one():
    grad = grad_at(lambda x: np.sum(np.maximum(x, x)), [-1.0, 0.0, 2.0])
    np.testing.assert_array_equal(grad, [1.0, 1.0, 1.0])


def test_generated_code_states_the_policy():
    text = symdiff.source(symdiff.grad(lambda x: np.sum(np.maximum(x, 0.0))))
    assert "# kink policy: ties split the gradient evenly" in text


# ---- every spelling keeps float32, and propagates NaN -----------------------------------
# float32 constants: float64 ones would promote, in the function as in its gradient
Y = np.array([[1.0, 0.25, 2.0], [-1.0, 0.5, -0.5]], np.float32)
LO, HI = np.array([-0.5, 0.0, 1.0], np.float32), np.array([[0.5], [1.5]], np.float32)

SPELLINGS = {
    "maximum": lambda x: np.sum(np.maximum(x, 0.0) * Y),
    "maximum(x, y)": lambda x: np.sum(np.maximum(x, Y) * Y),
    "minimum": lambda x: np.sum(np.minimum(x, 0.5) * Y),
    "minimum(x, y)": lambda x: np.sum(np.minimum(Y, x) * Y),
    "fmax": lambda x: np.sum(np.fmax(x, Y) * Y),
    "fmin": lambda x: np.sum(np.fmin(x, 0.25) * Y),
    "clip": lambda x: np.sum(np.clip(x, -0.75, 0.75) * Y),
    "clip(x, lo, hi)": lambda x: np.sum(np.clip(x, LO, HI) * Y),
    "clip(x, None, hi)": lambda x: np.sum(np.clip(x, None, 0.75) * Y),
    "abs": lambda x: np.sum(np.abs(x) * Y),
    "hypot": lambda x: np.sum(np.hypot(x, Y) * Y),
    "max": lambda x: np.max(x * Y),
    "min(axis=0)": lambda x: np.sum(np.min(x, axis=0) * Y[0]),
    "max(axis=1, keepdims)": lambda x: np.sum(np.max(x, axis=1, keepdims=True) * Y),
    "norm": lambda x: np.linalg.norm(x),
    "norm(axis=1)": lambda x: np.sum(np.linalg.norm(x, axis=1) * Y[:, 0]),
}
X = np.array([[0.3, -1.2, 2.1], [1.4, 0.2, -0.7]])


@pytest.mark.parametrize("f", SPELLINGS.values(), ids=SPELLINGS.keys())
def test_every_spelling_keeps_float32(f):
    x32 = X.astype(np.float32)
    g = symdiff.grad(f)(x32)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, numeric_grad(f, (X,)), rtol=1e-5, atol=1e-6)
    value, tangent = symdiff.jvp(f)(x32, np.ones_like(x32))
    assert np.result_type(tangent) == np.float32
    np.testing.assert_allclose(tangent, np.sum(g), rtol=1e-5)


@pytest.mark.parametrize("kind", [float, np.float32, np.array])
def test_a_scalar_of_the_kink_policy_stays_a_scalar(kind):
    df = symdiff.grad(lambda x, y: np.maximum(x, y) + np.clip(x, 0.0, y), wrt=(0, 1))
    gx, gy = df(kind(1.5), kind(1.5))
    assert (gx, gy) == (1.0, 1.0) and np.ndim(gx) == 0 and np.ndim(gy) == 0
    assert isinstance(gx, float) if kind is float else np.result_type(gx) == np.result_type(
        kind(1.5))
    gx, gy = df(kind(NAN), kind(1.0))
    assert np.isnan(gx) and np.isnan(gy)


NAN, INF = np.nan, np.inf
SPECIAL = np.array([NAN, INF, -INF, 2.0, 0.0, -1.5])
OTHER = np.array([1.0, INF, -INF, 2.0, NAN, 0.0])
NAN_CASES = {
    # maximum(nan, y) is nan, and so is its slope: no tie, no winner
    "maximum": (lambda x: np.sum(np.maximum(x, 0.0)), [NAN, 1, 0, 1, 0.5, 0]),
    "maximum(x, y)": (lambda x: np.sum(np.maximum(x, OTHER)), [NAN, 0.5, 0.5, 0.5, NAN, 0]),
    "minimum(y, x)": (lambda x: np.sum(np.minimum(OTHER, x)), [NAN, 0.5, 0.5, 0.5, NAN, 1]),
    "maximum(x, x)": (lambda x: np.sum(np.maximum(x, x)), [NAN, 1, 1, 1, 1, 1]),
    # fmax and fmin ignore a NaN operand: the other one gets the whole gradient
    "fmax": (lambda x: np.sum(np.fmax(x, 0.0)), [0, 1, 0, 1, 0.5, 0]),
    "fmin(x, y)": (lambda x: np.sum(np.fmin(x, OTHER)), [0, 0.5, 0.5, 0.5, 1, 1]),
    "fmax(y, x)": (lambda x: np.sum(np.fmax(OTHER, x)), [0, 0.5, 0.5, 0.5, 1, 0]),
    "fmin(x, nan)": (lambda x: np.sum(np.fmin(x, NAN)), [NAN, 1, 1, 1, 1, 1]),
    "clip": (lambda x: np.sum(np.clip(x, -1.5, 2.0)), [NAN, 0, 0, 0.5, 1, 0.5]),
    "clip to infinity": (lambda x: np.sum(np.clip(x, 0.0, INF)), [NAN, 0.5, 0, 1, 0.5, 0]),
    "abs": (lambda x: np.sum(np.abs(x)), [NAN, 1, -1, 1, 0, -1]),
    "max": (lambda x: np.max(x), [NAN] * 6),
    "min": (lambda x: np.min(x[1:]), [0, 0, 1, 0, 0, 0]),
    "norm": (lambda x: np.linalg.norm(x[3:]), [0, 0, 0, 2 / np.sqrt(6.25), 0, -1.5 / 2.5]),
    "norm with NaN": (lambda x: np.linalg.norm(x[::3]), [NAN, 0, 0, NAN, 0, 0]),
    "hypot": (lambda x: np.sum(np.hypot(x[::3], 1.0)), [NAN, 0, 0, 2 / np.sqrt(5.0), 0, 0]),
    "hypot(x, nan)": (lambda x: np.sum(np.hypot(x[3:], OTHER[3:])),
                      [0, 0, 0, 2 / np.hypot(2.0, 2.0), NAN, -1]),
}


@pytest.mark.parametrize("f, expected", NAN_CASES.values(), ids=NAN_CASES.keys())
def test_nan_propagates_and_infinities_tie_without_warnings(f, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # f does not warn here, nor may its gradient
        g = symdiff.grad(f)(SPECIAL)
    np.testing.assert_array_equal(g, expected)


def test_nan_gives_nan_only_to_its_own_slice_of_a_reduction():
    x = np.array([[NAN, 1.0, 2.0], [3.0, 3.0, 0.0]])
    for f in (lambda x: np.sum(np.max(x, axis=1)), lambda x: np.sum(np.min(-x, axis=-1))):
        g = symdiff.grad(f)(x)
        np.testing.assert_array_equal(g[0], [NAN] * 3)
        np.testing.assert_array_equal(np.abs(g[1]), [0.5, 0.5, 0.0])


def test_differences_that_overflow_still_have_a_sign():
    big = np.float32(3e38)
    x, y = np.array([big, -big, big], np.float32), np.array([-big, big, big], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gx, gy = symdiff.grad(lambda x, y: np.sum(np.maximum(x, y) * 1e-30),
                              wrt=(0, 1))(x, y)
    np.testing.assert_array_equal(gx / np.float32(1e-30), [1, 0, 0.5])
    np.testing.assert_array_equal(gy / np.float32(1e-30), [0, 1, 0.5])


def test_generated_code_writes_the_shares_as_steps():
    text = symdiff.source(symdiff.grad(lambda x: np.sum(np.maximum(x, 0.0) +
                                                        np.clip(x, -0.5, 0.5))))
    # (each share one pass: np.heaviside with 1/2 at the tie)
    assert "np.heaviside(x, 0.5)" in text and "np.heaviside(x + 0.5, 0.5)" in text \
        and "np.heaviside(x - 0.5, 0.5)" in text
    assert "_step" not in text and "np.where" not in text and "np.sign" not in text
    x = np.array([-1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 1.0])
    np.testing.assert_array_equal(
        symdiff.grad(lambda x: np.sum(np.maximum(x, 0.0) + np.clip(x, -0.5, 0.5)))(x),
        [0.0, 0.5, 1.0, 1.5, 2.0, 1.5, 1.0])


def test_heaviside_has_a_zero_gradient():
    g = symdiff.grad(lambda x: np.sum(np.heaviside(x, 0.5) * x))(np.array([-1.0, 0.0, 2.0]))
    np.testing.assert_array_equal(g, [0.0, 0.5, 1.0])


@pytest.mark.parametrize("lo, hi", [(1.0, 1.0), (1.0, -1.0), (-INF, INF)])
def test_clip_with_bounds_that_do_not_bracket(lo, hi):
    """NumPy's clip is minimum(maximum(x, lo), hi) whatever the bounds."""
    x = np.array([-2.0, -1.0, 0.0, 1.0, 2.0, INF])
    got = symdiff.grad(lambda x: np.sum(np.clip(x, lo, hi)))(x)
    want = symdiff.grad(lambda x: np.sum(np.minimum(np.maximum(x, lo), hi)))(x)
    np.testing.assert_array_equal(got, want)
    assert np.all((got >= 0) & (got <= 1))
