"""Rewrites that make generated gradients faster: each one must compute the
same values (special points included) and show in the generated code."""
import numpy as np
import pytest

import symdiff
from numeric import assert_grad


# ---- where(|x| <= c, x, c * sign(x)) is clip(x, -c, c) ---------------------------------
def huber(r):
    a = np.abs(r)
    return np.sum(np.where(a <= 1.0, 0.5 * r ** 2, a - 0.5))


def huber_mean_strict(r):
    a = np.abs(r)
    return np.mean(np.where(a < 2.0, 0.5 * r ** 2, 2.0 * (a - 1.0)))


def huber_flipped(r):
    a = np.abs(r)
    return np.sum(np.where(1.5 < a, 1.5 * (a - 0.75), 0.5 * r ** 2))


def not_huber(r):  # the outer branch's slope (1) is not the bound (2): no clip
    a = np.abs(r)
    return np.sum(np.where(a <= 2.0, 0.5 * r ** 2, a))


SPECIAL = np.array([-3.0, -2.0, -1.5, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0,
                    np.inf, -np.inf, np.nan])


def _where_reference(r, c, scale=1.0, strict=False):
    inside = np.abs(r) < c if strict else np.abs(r) <= c
    return scale * np.where(inside, r, c * np.sign(r))


@pytest.mark.parametrize("f, c, scale, strict", [
    (huber, 1.0, 1.0, False), (huber_flipped, 1.5, 1.0, True),
])
def test_huber_gradient_is_a_clip_with_the_same_values(f, c, scale, strict):
    df = symdiff.grad(f)
    assert "np.clip(r, " in symdiff.source(df) and "np.where" not in symdiff.source(df)
    with np.errstate(invalid="ignore"):
        got = df(SPECIAL.copy())
    np.testing.assert_array_equal(got, _where_reference(SPECIAL, c, scale, strict))
    assert np.signbit(got[5]) and not np.signbit(got[6])  # -0.0 stays -0.0
    assert_grad(f, df, (np.linspace(-3.3, 3.1, 13),))


def test_a_common_factor_leaves_the_where_before_the_clip():
    df = symdiff.grad(huber_mean_strict)
    text = symdiff.source(df)
    assert "np.clip(r, -2.0, 2.0)" in text and "np.sign" not in text
    r = SPECIAL[np.isfinite(SPECIAL)]
    np.testing.assert_allclose(df(r), _where_reference(r, 2.0, 1.0 / r.size, strict=True),
                               rtol=1e-15)
    assert_grad(huber_mean_strict, df, (np.linspace(-3.3, 3.1, 13),))


def test_clip_keeps_float32():
    g = symdiff.grad(huber)(np.array([-2.0, 0.5, 3.0], dtype=np.float32))
    assert g.dtype == np.float32
    np.testing.assert_array_equal(g, [-1.0, 0.5, 1.0])


def test_a_slope_other_than_the_bound_is_not_a_clip():
    df = symdiff.grad(not_huber)
    assert "np.clip" not in symdiff.source(df)
    r = np.array([-3.0, -2.0, 0.5, 2.0, 2.5])
    np.testing.assert_array_equal(df(r), [-1.0, -2.0, 0.5, 2.0, 1.0])


def scaled_branches(x):
    # where(c, 2 * h, 0.2 * h) may become h * where(c, 2, 0.2) only if that keeps
    # float32: it does not (a where of two Python floats is float64), so it stays
    h = np.where(x > 0, x, 0.1 * x)
    return np.sum(h ** 2)


def test_factoring_a_where_keeps_the_dtype():
    g = symdiff.grad(scaled_branches)(np.array([-1.0, 2.0], dtype=np.float32))
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, [-0.02, 4.0], rtol=1e-6)


# ---- constants meet across a gradient passed on as is (overrides={"floor": "identity"})
def quantize(x, y):
    q = np.floor(x * 8.0) / 8.0
    return np.sum((q - y) ** 2) + 0.01 * np.sum(x ** 2)


def test_constants_fold_across_an_identity_override():
    df = symdiff.grad(quantize, overrides={"floor": "identity"})
    text = symdiff.source(df)
    assert "# gradient of floor overridden by 'identity'" in text
    assert "8.0" not in text.split("overridden")[1]  # no `/ 8.0` then `8.0 *`
    x, y = np.array([-1.3, 0.0, 0.06, 2.5]), np.array([0.5, -0.2, 0.1, 2.0])
    q = np.floor(x * 8.0) / 8.0
    np.testing.assert_allclose(df(x, y), 2.0 * (q - y) + 0.02 * x, rtol=1e-15)
