"""NumPy's functions of Python floats in a gradient: computed with `math`
(a loop over numbers computes in floats, not NumPy scalars), and with
NumPy's functions where math raises (specialise.py's fallback): the same
numbers up to rounding, NumPy's inf and NaN where math would raise."""
import math
import warnings

import numpy as np
import pytest

import symdiff
from check_grads import check_grads


def stepper(theta0, k):
    theta, omega = theta0, 0.0
    for _ in range(30):
        omega = omega + 0.01 * (-k * np.sin(theta) - 0.1 * omega)
        theta = theta + 0.01 * omega
    return theta


def root_plus(x):
    return np.sqrt(x) + np.log(x) * x


def power_of_a_sine(x):  # a float ** 1.3 is complex for a negative base, NumPy's NaN
    return np.sin(x) ** 1.3 + x


def root_of_a_sine(x):  # the derivative's sin(x) ** 0.5 is a square root: it raises
    return np.sin(x) ** 1.5 + x


def _code(source):
    body = source.split('"""')[-1]
    return "\n".join(line.split("#")[0] for line in body.splitlines())


def test_numpy_functions_of_floats_are_math_calls_in_the_gradient():
    df = symdiff.grad(stepper, wrt=(0, 1))
    code = _code(symdiff.source(df, 0.7, 1.3))
    assert "math.sin(theta)" in code and "math.cos(theta)" in code, code
    assert "np." not in code, code
    theta_bar, k_bar = df(0.7, 1.3)
    assert type(theta_bar) is float and type(k_bar) is float
    check_grads(stepper, (0.7, 1.3), wrt=(0, 1))
    exact = symdiff.specialised(df, 0.7, 1.3).__symdiff_exact__(0.7, 1.3)
    assert np.allclose((theta_bar, k_bar), exact, rtol=1e-14, atol=0)


def test_where_math_raises_the_gradient_is_numpys():
    df = symdiff.grad(root_plus)
    assert df(4.0) == pytest.approx(0.25 + math.log(4.0) + 1.0, rel=1e-14)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.isnan(root_plus(-1.0))        # NumPy's NaN, not math's ValueError
        assert np.isnan(df(-1.0))
        assert df(0.0) == np.inf or np.isnan(df(0.0))  # (log(0) * 0: NumPy's answer)
        expected = symdiff.specialised(df, 0.0).__symdiff_exact__(0.0)
        assert np.array_equal(df(0.0), expected, equal_nan=True)


@pytest.mark.parametrize("f, power", [(power_of_a_sine, 1.3), (root_of_a_sine, 1.5)])
def test_a_fractional_power_of_a_float_is_numpys_nan_never_complex(f, power):
    df = symdiff.grad(f)
    if power == 1.3:
        assert "math." not in _code(symdiff.source(df, 4.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = df(4.0)   # sin(4) < 0: NaN as in NumPy, never a complex number
    assert isinstance(g, float) and np.isnan(g)
    expected = power * np.sin(1.0) ** (power - 1) * np.cos(1.0) + 1.0
    assert df(1.0) == pytest.approx(expected, rel=1e-13)


def test_value_and_grad_and_numba_plain_functions_keep_numpys_functions():
    value, grads = symdiff.value_and_grad(stepper, wrt=(0, 1))(0.7, 1.3)
    assert value == stepper(0.7, 1.3) and type(value) is np.float64
    plain = symdiff.grad(stepper, wrt=(0, 1), checks=False)
    assert "math." not in _code(symdiff.source(plain, 0.7, 1.3))
    assert np.allclose(plain(0.7, 1.3), grads, rtol=1e-14)
