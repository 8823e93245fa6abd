"""np.polyval and np.vander, written as the powers they are
(frontend/polynomial_forms.py): NumPy's values, derivatives against the
polynomial's own (numpy.polynomial) and central differences, at x = 0 too."""
import numpy as np
import pytest

import symdiff
from check_grads import check_grads

C = np.array([0.3, 0.5, -2.0, 1.0])      # highest power first, as np.polyval
X = np.array([0.0, 1.5, -1.0, 0.25])


def fitted(c, x, y):
    return np.sum((np.polyval(c, x) - y) ** 2)


def listed(x):
    return np.sum(np.polyval([1.0, -2.0, 0.5], x) ** 2)


def least_squares(x, y):
    V = np.vander(x, 3)
    coef = np.linalg.solve(V.T @ V, V.T @ y)
    return np.sum((V @ coef - y) ** 2)


def increasing(x, c):
    return np.mean((np.vander(x, c.shape[0], increasing=True) @ c) ** 2)


def of_a_matrix(x, c):
    return np.sum(np.sin(np.polyval(c, x)))


@pytest.mark.parametrize("f, args", [
    (fitted, (C, X, np.array([0.1, -0.4, 2.0, 0.7]))),
    (listed, (X,)),
    (least_squares, (np.array([0.2, 1.1, -0.7, 0.5, 1.6]), np.array([1.0, 0.3, -0.2, 0.8, 2.0]))),
    (increasing, (X, C)),
    (of_a_matrix, (X.reshape(2, 2), C)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_values_are_numpy_s_and_derivatives_match_central_differences(f, args):
    value, _ = symdiff.value_and_grad(f)(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-13)
    check_grads(f, args)


def test_the_derivative_is_the_polynomial_s_at_zero_too():
    p = np.polynomial.Polynomial(C[::-1])
    c_bar, x_bar = symdiff.grad(lambda c, x: np.sum(np.polyval(c, x)), wrt=(0, 1))(C, X)
    np.testing.assert_allclose(x_bar, p.deriv()(X), rtol=1e-13)   # 0.5 at x = 0, not NaN
    np.testing.assert_allclose(c_bar, np.sum(np.vander(X, 4), axis=0), rtol=1e-13)
    hessian = symdiff.hessian(lambda x: np.sum(np.polyval(C, x)))(X)
    np.testing.assert_allclose(hessian, np.diag(p.deriv(2)(X)), rtol=1e-13)
    V_bar = symdiff.grad(lambda x: np.sum(np.vander(x, 4) * np.arange(4.0)))(X)
    # columns x^3, x^2, x, 1 weighted 0, 1, 2, 3: x^2 + 2x + 3, slope 2x + 2
    np.testing.assert_allclose(V_bar, 2 * X + 2, rtol=1e-13)


def test_a_number_and_a_default_length():
    slope = symdiff.grad(lambda x: np.polyval(C, x))
    np.testing.assert_allclose(slope(2.0), np.polyval(np.polyder(C), 2.0), rtol=1e-13)
    g = symdiff.grad(lambda x: np.sum(np.vander(x)))(X)   # N = len(x) columns
    np.testing.assert_allclose(g, 3 * X ** 2 + 2 * X + 1, rtol=1e-13)


XP = np.array([0.0, 1.0, 2.5, 3.0])
FP = np.array([1.0, 3.0, 2.0, 5.0])
AT = np.array([-1.0, 0.0, 0.5, 1.0, 2.5, 2.9, 3.0, 4.0])   # out of range, knots, between


def interpolated(x, xp, fp):
    return np.sum(np.interp(x, xp, fp) ** 2)


def bounded(x, fp):
    return np.sum(np.interp(x, XP, fp, left=-1.0, right=0.5 * fp[0]))


def test_interp_is_numpy_s_value_and_its_segments_slopes():
    value, (x_bar, fp_bar) = symdiff.value_and_grad(interpolated, wrt=(0, 2))(AT, XP, FP)
    assert value == interpolated(AT, XP, FP)
    y = np.interp(AT, XP, FP)
    # the slope of the segment to the right of a knot; 0 out of range and at xp[-1]
    slopes = np.array([0.0, 2.0, 2.0, -2 / 3, 6.0, 6.0, 0.0, 0.0])
    np.testing.assert_allclose(x_bar, 2 * y * slopes, rtol=1e-14)
    weights = np.zeros((len(AT), len(FP)))      # y = weights @ fp
    for k in range(len(FP)):
        weights[:, k] = np.interp(AT, XP, np.eye(len(FP))[k])
    np.testing.assert_allclose(fp_bar, 2 * y @ weights, rtol=1e-14)
    inside = np.array([0.1, 0.5, 1.7, 2.6, 2.95])
    check_grads(interpolated, (inside, XP, FP))            # x, the knots and the values
    value, fp_bar = symdiff.value_and_grad(bounded, wrt=1)(AT, FP)
    assert value == bounded(AT, FP)
    np.testing.assert_allclose(fp_bar, np.sum(weights[1:-1], axis=0) + [0.5, 0, 0, 0],
                               rtol=1e-14)


def test_interp_with_a_period_is_refused():
    with pytest.raises(symdiff.SymdiffError, match="period"):
        symdiff.grad(lambda x: np.sum(np.interp(x, XP, FP, period=3.0)))(AT)


def test_dtypes_are_numpy_s():
    # polyval is NumPy's loop: float32 in, float32 out (a power of an integer
    # exponent array would be float64); interp computes in float64, as NumPy's
    c, x = C.astype(np.float32), X.astype(np.float32)
    value, (c_bar, x_bar) = symdiff.value_and_grad(
        lambda c, x: np.sum(np.polyval(c, x)), wrt=(0, 1))(c, x)
    assert value == np.sum(np.polyval(c, x)) and value.dtype == np.float32
    assert c_bar.dtype == x_bar.dtype == np.float32
    value, x_bar = symdiff.value_and_grad(lambda x: np.sum(np.interp(x, XP, FP)))(x)
    assert value.dtype == np.float64 and x_bar.dtype == np.float32
    assert value == np.sum(np.interp(x, XP, FP))


def test_interp_of_a_number_is_a_number():
    value, slope = symdiff.value_and_grad(lambda t: 2.0 * np.interp(t, XP, FP))(1.7)
    assert isinstance(value, np.float64) and value == 2.0 * np.interp(1.7, XP, FP)
    assert isinstance(slope, np.float64) and np.isclose(slope, 2.0 * (2.0 - 3.0) / 1.5)
