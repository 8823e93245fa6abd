"""The escape hatch opens: a function symdiff cannot read (SciPy's odeint and
quad, a ufunc without a record) is computed as a value inside a
custom_gradient function, takes a registered rule by override, and, where a
gradient reaches it without one, is refused with a hint showing the code
that works."""
import ast
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.special
from scipy.integrate import odeint

import symdiff
from symdiff.errors import NoDerivativeRuleError, RegistrationError

TIMES = np.linspace(0.0, 2.0, 9)


def decay_rate(y, t, k):
    return -k * y


@symdiff.custom_gradient
def remaining(k):
    """y(2) for y' = -k y, y(0) = 1, by odeint; d/dk exp(-2k) = -2 exp(-2k)."""
    ys = odeint(decay_rate, 1.0, TIMES, args=(k,), rtol=1e-12, atol=1e-12)

    def backward(g):
        return g * -TIMES[-1] * np.exp(-k * TIMES[-1])
    return ys[-1, 0], backward


def half_life_loss(k):
    return (remaining(k) - 0.5) ** 2


def test_odeint_inside_a_custom_gradient_function():
    k = 0.4
    value, grad = symdiff.value_and_grad(half_life_loss)(k)
    exact = np.exp(-2 * k)
    assert value == pytest.approx((exact - 0.5) ** 2, rel=1e-9)
    assert grad == pytest.approx(2 * (exact - 0.5) * -2 * exact, rel=1e-8)
    source = symdiff.source(symdiff.grad(half_life_loss))
    assert "args = (k,)" in source
    assert "odeint(decay_rate, 1.0, TIMES, args=args, rtol=1e-12, atol=1e-12)" in source


def test_reverse_over_reverse_through_the_backward():
    k = 0.4
    hess = symdiff.hessian(lambda k: remaining(k) * 3.0)(k)
    assert float(hess) == pytest.approx(3.0 * 4.0 * np.exp(-2 * k), rel=1e-9)


def odeint_without_rule(k):
    return odeint(decay_rate, 1.0, TIMES, args=(k,))[-1, 0]  # E:odeint


def test_a_gradient_reaching_the_call_shows_the_code_that_works():
    with pytest.raises(NoDerivativeRuleError) as info:
        symdiff.grad(odeint_without_rule)(0.4)
    err = info.value
    assert err.lineno == odeint_without_rule.__code__.co_firstlineno + 1
    assert "`odeint`" in err.message
    assert "@symdiff.custom_gradient" in err.hint
    assert "def odeint_with_gradient(k):" in err.hint
    assert "return g * dodeint_dk  #" in err.hint
    assert "return odeint(decay_rate, 1.0, TIMES, args=(k,)), backward" in err.hint
    code = textwrap.dedent(err.hint.split(":\n", 1)[1])
    ast.parse(code)  # the snippet is Python


def zeta_sum(x):
    return np.sum(scipy.special.zeta(x, 1.0) * x)


@symdiff.register_gradient("test_zeta_in_x")
def zeta_in_x(g, x, q):
    """d/dx zeta(x, q) by central differences of SciPy's zeta (a test rule)."""
    h = 1e-6
    return g * (scipy.special.zeta(x + h, q) - scipy.special.zeta(x - h, q)) / (2 * h), None


@pytest.mark.parametrize("key", [scipy.special.zeta, "scipy.special.zeta"])
def test_an_override_names_a_function_without_a_rule(key):
    x = np.array([2.0, 3.5])
    grad = symdiff.grad(zeta_sum, overrides={key: "test_zeta_in_x"})(x)
    h = 1e-6
    slope = (scipy.special.zeta(x + h, 1.0) - scipy.special.zeta(x - h, 1.0)) / (2 * h)
    np.testing.assert_allclose(grad, slope * x + scipy.special.zeta(x, 1.0), rtol=1e-6)


def test_an_override_around_the_grad_call():
    x = np.array([2.0, 3.5])
    with symdiff.gradient_override({scipy.special.zeta: "test_zeta_in_x"}):
        df = symdiff.grad(zeta_sum)
    assert np.all(np.isfinite(df(x)))


def test_a_name_that_is_neither_an_op_nor_a_function_is_still_an_error():
    with pytest.raises(RegistrationError) as info:
        symdiff.grad(zeta_sum, overrides={"zeta": "test_zeta_in_x"})
    assert "scipy.special.zeta" in info.value.hint
    with pytest.raises(RegistrationError):
        symdiff.grad(zeta_sum, overrides={"scipy.special.no_such": "test_zeta_in_x"})


def constants_from_a_library(x):
    scale = scipy.special.zeta(2.0, 1.0)   # no gradient reaches it: a value
    spectrum = np.abs(np.fft.fft(np.ones(4)))
    return np.sum(x * scale * spectrum)


def test_a_call_no_gradient_reaches_is_a_value():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_allclose(symdiff.grad(constants_from_a_library)(x),
                               np.pi ** 2 / 6 * np.abs(np.fft.fft(np.ones(4))))


def test_forward_mode_through_the_call_is_refused():
    with pytest.raises(NoDerivativeRuleError) as info:
        symdiff.jvp(zeta_sum)(np.array([2.0, 3.0]), np.ones(2))
    assert info.value.lineno is not None and info.value.hint


def test_a_written_module_imports_the_function(tmp_path):
    here = os.path.dirname(os.path.abspath(__file__))
    out = tmp_path / "grads.py"
    subprocess.run([sys.executable, os.path.join(here, os.pardir, "cli.py"),
                    f"{__file__}::half_life_loss", "-o", str(out)], check=True,
                   capture_output=True, cwd=here)
    text = out.read_text()
    assert "odeint" in text and "import symdiff" not in text
    namespace = {}
    exec(compile(text, str(out), "exec"), namespace)  # noqa: S102
    assert namespace["grad_half_life_loss"](0.4) == pytest.approx(
        symdiff.grad(half_life_loss)(0.4), rel=1e-12)


def test_functions_with_records_take_overrides_by_name_and_by_function():
    x = np.array([1.5, 2.5])

    def loss(x):
        return np.sum(scipy.special.gammaln(x))
    for key in ("gammaln", scipy.special.gammaln):
        np.testing.assert_array_equal(symdiff.grad(loss, overrides={key: "identity"})(x),
                                      np.ones(2))
