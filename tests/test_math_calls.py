"""Calls of Python's `math` module (``math.sin(x)``).

Where the operands are surely Python numbers (a gradient specialised for
Python floats), generated code writes the call as the user did, and the
derivative with `math` too (``math.sin`` -> ``math.cos``): the values stay
Python floats, several times faster than NumPy scalars in a loop, and the
gradient raises where the function raises (``math.log(-1.0)`` is a
ValueError, ``np.log(-1.0)`` a NaN). Where an operand may be an array or a
NumPy scalar (the generic gradient, arrays, np.float32) it is NumPy's
function, as before: ``math.sin`` of an array raises, or changes its type.
"""
import math
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import symdiff
from benchmarks.cases.scalar import scalar45_math
from check_grads import check_grads
from numeric import numeric_grad

ROOT = Path(__file__).resolve().parent.parent


# ---- every math function with a rule ------------------------------------------------------
# name -> (a point inside its domain, points outside it: the function raises there)
ONE = {
    "sin": (0.7, [math.inf]), "cos": (0.7, [-math.inf]), "tan": (0.7, [math.inf]),
    "asin": (0.3, [1.5, -2.0]), "acos": (0.3, [1.5]), "atan": (0.7, []),
    "sinh": (0.7, [800.0]), "cosh": (0.7, [-800.0]), "tanh": (0.7, []),
    "asinh": (0.7, []), "acosh": (1.7, [0.5]), "atanh": (0.3, [1.0, 2.0]),
    "exp": (0.7, [800.0]), "expm1": (0.7, [800.0]), "log": (0.7, [0.0, -1.0]),
    "log2": (0.7, [-1.0]), "log10": (0.7, [0.0]), "log1p": (0.7, [-1.0, -3.0]),
    "sqrt": (0.7, [-1.0]),
}
TWO = {"atan2": (0.7, 0.4), "hypot": (0.7, 0.4)}


def _code(text):
    """Generated source without its docstring and comments (which quote yours)."""
    return "\n".join(line.split("#")[0] for line in text.split('"""')[-1].splitlines())


def _raised(f, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            f(*args)
        except (ValueError, OverflowError) as error:
            return type(error)
    return None


def sin_(x):
    return math.sin(x) * 1.5


def cos_(x):
    return math.cos(x) * 1.5


def tan_(x):
    return math.tan(x) * 1.5


def asin_(x):
    return math.asin(x) * 1.5


def acos_(x):
    return math.acos(x) * 1.5


def atan_(x):
    return math.atan(x) * 1.5


def sinh_(x):
    return math.sinh(x) * 1.5


def cosh_(x):
    return math.cosh(x) * 1.5


def tanh_(x):
    return math.tanh(x) * 1.5


def asinh_(x):
    return math.asinh(x) * 1.5


def acosh_(x):
    return math.acosh(x) * 1.5


def atanh_(x):
    return math.atanh(x) * 1.5


def exp_(x):
    return math.exp(x) * 1.5


def expm1_(x):
    return math.expm1(x) * 1.5


def log_(x):
    return math.log(x) * 1.5


def log2_(x):
    return math.log2(x) * 1.5


def log10_(x):
    return math.log10(x) * 1.5


def log1p_(x):
    return math.log1p(x) * 1.5


def sqrt_(x):
    return math.sqrt(x) * 1.5


def atan2_(x, y):
    return math.atan2(x, y) * 1.5


def hypot_(x, y):
    return math.hypot(x, y) * 1.5


FUNCS = {name: globals()[name + "_"] for name in list(ONE) + list(TWO)}


@pytest.mark.parametrize("name", sorted(ONE))
def test_a_math_call_and_its_derivative_are_written_with_math(name):
    f, (x, _) = FUNCS[name], ONE[name]
    df = symdiff.grad(f)
    text = symdiff.source(df, x)
    assert "np." not in _code(text), text
    if ONE[name][1]:  # (a call that may raise is there, read or not)
        assert f"math.{name}(x)" in _code(text), text
    g = df(x)
    assert type(g) is float
    assert g == pytest.approx(numeric_grad(f, (x,)), rel=1e-7)


@pytest.mark.parametrize("name", sorted(TWO))
def test_math_calls_of_two_numbers(name):
    f, (x, y) = FUNCS[name], TWO[name]
    df = symdiff.grad(f, wrt=(0, 1))
    assert f"math.{name}(x, y)" in symdiff.source(df, x, y)
    gx, gy = df(x, y)
    assert gx == pytest.approx(numeric_grad(f, (x, y), wrt=0), rel=1e-7)
    assert gy == pytest.approx(numeric_grad(f, (x, y), wrt=1), rel=1e-7)


@pytest.mark.parametrize("name", sorted(n for n in ONE if ONE[n][1]))
def test_the_gradient_raises_where_the_function_raises(name):
    f, (_, outside) = FUNCS[name], ONE[name]
    df = symdiff.grad(f)
    for x in outside:
        raised = _raised(f, x)
        assert raised is not None, (name, x)
        with pytest.raises(raised):
            df(x)


def test_a_math_call_whose_value_the_gradient_does_not_need_is_kept_for_its_error():
    def f(x):
        return math.log(x) * 3.0 + x  # the derivative, 3 / x + 1, is finite at x = -1
    df = symdiff.grad(f)
    text = symdiff.source(df, 2.0)
    assert "    math.log(x)" in text and "kept: math.log raises" in text, text
    assert df(2.0) == pytest.approx(2.5)
    with pytest.raises(ValueError, match="math domain error"):
        df(-1.0)


def unused(x):
    y = math.sqrt(x)  # noqa: F841  (raises for x < 0, though nothing reads y)
    return x * 2.0


def test_an_unused_math_call_still_raises():
    df = symdiff.grad(unused)
    assert df(4.0) == 2.0
    with pytest.raises(ValueError):
        df(-4.0)


def total(x):
    return math.atan(x) * 2.0


def test_a_call_that_never_raises_on_floats_is_not_kept():
    text = symdiff.source(symdiff.grad(total), 0.5)
    assert "math.atan" not in _code(text), text


def both(x):
    return np.sin(x) + math.sin(x)


def test_numpy_and_math_spellings_of_one_call_are_not_merged():
    # np.sin(inf) is NaN (with a warning), math.sin(inf) raises: so does f, and its gradient
    df = symdiff.grad(both)
    assert df(0.5) == pytest.approx(2.0 * math.cos(0.5))
    assert _raised(both, math.inf) is ValueError
    with pytest.raises(ValueError):
        df(math.inf)


# ---- only where the operands are surely Python numbers ------------------------------------
def scaled(x):
    return math.sin(x) * 2.0 + math.exp(x)


def test_the_generic_gradient_calls_numpy():
    df = symdiff.grad(scaled)
    text = symdiff.source(df)
    assert "math." not in _code(text) and "np.sin(x)" not in text, text
    assert "np.cos(x)" in text
    assert df(0.5) == pytest.approx(2.0 * math.cos(0.5) + math.exp(0.5))


@pytest.mark.parametrize("x", [np.float64(0.5), np.array(0.5), np.array(0.5, np.float32)],
                         ids=["f64", "0d", "0d32"])
def test_numpy_values_are_differentiated_with_numpy(x):
    # math.sin of these works and gives a Python float; the gradient keeps the
    # argument's type and dtype
    df = symdiff.grad(scaled)
    assert "math." not in _code(symdiff.source(df, x))
    g = df(x)
    assert np.shape(g) == np.shape(x) and np.result_type(g) == x.dtype
    np.testing.assert_allclose(g, 2.0 * np.cos(0.5) + np.exp(0.5), rtol=1e-6)


@pytest.mark.parametrize("x", [np.array([0.1, 0.5, 2.0]), np.array([0.5])], ids=["3", "1"])
def test_an_array_where_the_function_raises_is_refused_by_the_gradient_too(x):
    # math.sin of an array with axes raises; the gradient, which never calls
    # math on an array, reads it as np.sin: a vector, refused by grad
    with pytest.raises(TypeError):
        scaled(x)
    with pytest.raises(symdiff.errors.NonScalarOutputError):
        symdiff.grad(scaled)(x)
    with pytest.raises(TypeError):  # (which calls the function)
        symdiff.jacobian(scaled)(x)


def floored(x, n):
    return x * math.floor(n) + math.ceil(x)


def test_floor_of_a_float_is_an_int_as_in_the_function():
    df = symdiff.grad(floored)
    assert "math.floor(n)" in symdiff.source(df, 0.5, 2.7)
    g = df(0.5, 2.7)
    assert g == 2.0 and type(g) is float  # (a Python float in, a float out)
    with pytest.raises(ValueError):
        df(0.5, math.nan)


# ---- loops over numbers ------------------------------------------------------------------
def stepper(theta0, k):
    theta, omega = theta0, 0.0
    for _ in range(20):
        omega += 0.1 * (-k * math.sin(theta) - 0.1 * omega)
        theta += 0.1 * omega
    return theta


def test_a_loop_over_numbers_with_math_calls_stays_in_python_floats():
    df = symdiff.grad(stepper, wrt=(0, 1))
    text = symdiff.source(df, 0.5, 1.3)
    assert "np." not in _code(text) and "math.cos(theta)" in text, text
    assert "omega_bar, " in text and "zeros_like" not in text, text
    g = df(0.5, 1.3)
    assert all(type(v) is float for v in g)
    for i in (0, 1):
        assert g[i] == pytest.approx(numeric_grad(stepper, (0.5, 1.3), wrt=i), rel=1e-6)


def test_derivatives_of_math_calls_in_every_mode():
    check_grads(stepper, (0.5, 1.3), wrt=(0, 1), order=2)
    check_grads(lambda x: math.log(x) * math.sqrt(x) + math.atan2(x, 2.0), (1.3,), order=2)


def growth(x):
    acc = 0.0
    for i in range(3):
        acc = acc + math.log(x - i)
    return acc


def test_a_domain_error_in_a_later_iteration_raises_in_the_gradient():
    df = symdiff.grad(growth)
    assert df(3.5) == pytest.approx(numeric_grad(growth, (3.5,)), rel=1e-7)
    with pytest.raises(ValueError):
        df(1.5)  # log(1.5 - 2) in the third iteration


# ---- written modules ---------------------------------------------------------------------
SOURCE = """\
import math


def f(x):
    return math.sin(x) * x
"""


@pytest.mark.parametrize("shapes, imported", [((), False), (("--shapes", "x="), True)],
                         ids=["generic", "float"])
def test_a_written_module_imports_math_only_where_it_calls_it(tmp_path, shapes, imported):
    src = tmp_path / "user_math.py"
    src.write_text(SOURCE)
    out = tmp_path / "grads.py"
    subprocess.run([sys.executable, str(ROOT / "cli.py"), f"{src}::f", *shapes, "-o", str(out)],
                   check=True, cwd=ROOT, capture_output=True, timeout=120)
    text = out.read_text()
    assert ("import math\n" in text) == imported, text
    namespace = {}
    exec(compile(text, str(out), "exec"), namespace)
    assert namespace["grad_f"](0.5) == pytest.approx(math.cos(0.5) * 0.5 + math.sin(0.5))


def _math_under_an_array_where(s, c):
    return np.sum(np.where(c > 0, math.sqrt(s * 2.0), 0.0))


def test_a_math_call_under_a_where_of_an_array_mask():
    """The where's guard (sqrt of np.where(c > 0, s * 2.0, 1.0)) is an array:
    NumPy's sqrt, not math's (which raised TypeError on it)."""
    c = np.array([1.0, 2.0, -1.0])
    assert symdiff.grad(_math_under_an_array_where)(0.125, c) == pytest.approx(4.0)
    assert symdiff.grad(_math_under_an_array_where)(0.125, -c) == pytest.approx(2.0)
    assert symdiff.grad(_math_under_an_array_where)(0.125, -np.abs(c)) == 0.0


# ---- math.log(a, base), pow(a, b), math.copysign(a, b) (each was refused) --------------------
def log_base(a, base):
    return math.log(a, base) ** 2


def powered(a, b):
    return pow(a, b) * pow(b, 2)


def copied_sign(a, b):
    return math.copysign(a, b) * (a + 2.0)


@pytest.mark.parametrize("f, args", [(log_base, (2.5, 1.7)), (log_base, (0.3, 10.0)),
                                     (powered, (1.7, 0.6)), (powered, (0.4, -2.5)),
                                     (copied_sign, (0.7, -0.4)), (copied_sign, (-0.7, 0.4))])
def test_log_with_a_base_pow_and_copysign_are_differentiated(f, args):
    df = symdiff.grad(f, wrt=(0, 1))
    assert df(*args)[0] == pytest.approx(numeric_grad(f, args, wrt=0), rel=1e-7)
    assert df(*args)[1] == pytest.approx(numeric_grad(f, args, wrt=1), rel=1e-7, abs=1e-9)
    assert symdiff.value_and_grad(f)(*args)[0] == f(*args)
    check_grads(f, args, wrt=(0, 1), order=2)


def test_log_with_a_base_is_cpython_s_quotient_and_raises_where_it_does():
    df = symdiff.grad(log_base, wrt=(0, 1))
    a, b = 2.5, 1.7
    ga, gb = df(a, b)  # analytic: 2 L / (a ln b), -2 L ln a / (b ln(b)^2), L = log(a, b)
    value = math.log(a) / math.log(b)
    assert ga == pytest.approx(2 * value / (a * math.log(b)), rel=1e-14)
    assert gb == pytest.approx(-2 * value * math.log(a) / (b * math.log(b) ** 2), rel=1e-14)
    assert "math.log(a)" in _code(symdiff.source(df, a, b))
    with pytest.raises(ValueError):
        df(-1.0, 2.0)


def test_copysign_at_its_kink_and_at_a_negative_zero():
    """|a| with b's sign: at a = 0 the corner of |a| gets slope 0 (as abs);
    b = -0.0 is a negative sign, as math.copysign reads it."""
    df = symdiff.grad(lambda a, b: math.copysign(a, b), wrt=(0, 1))
    assert tuple(df(0.0, 2.0)) == (0.0, 0.0)
    assert tuple(df(1.5, -0.0)) == (-1.0, 0.0)
    assert tuple(df(-1.5, 0.0)) == (-1.0, 0.0)
    assert tuple(df(-1.5, -3.0)) == (1.0, 0.0)


def test_pow_with_a_modulus_is_refused():
    with pytest.raises(symdiff.errors.UnsupportedSyntaxError) as info:
        symdiff.grad(lambda a: pow(a, 2, 5))(2.0)
    assert "a ** b" in info.value.hint and info.value.lineno is not None


def test_the_algebra_keeps_a_math_call_the_user_s(monkeypatch):
    """A region the gradient's algebra writes again keeps ``math.cosh(t)``
    (sinh's derivative) the user's `math` call: made anew as a NumPy function
    of numbers, the specialised gradient needed a second compile, with NumPy's
    functions, to fall back on (twice the compile time)."""
    import symdiff.specialise as specialise
    compiles = []
    real = specialise.compile_gradient
    monkeypatch.setattr(specialise, "compile_gradient",
                        lambda *a, **k: compiles.append(k) or real(*a, **k))
    args = (0.7, -1.3, 0.4)
    df = symdiff.grad(scalar45_math, wrt=(0, 1, 2))
    source = symdiff.source(df, *args)
    assert "math.cosh(" in source and len(compiles) == 1, (len(compiles), source)
    for k in range(3):
        assert math.isclose(df(*args)[k], numeric_grad(scalar45_math, list(args), wrt=k),
                            rel_tol=1e-6)
# ---- math's functions that are scipy.special's: lgamma, gamma, erf, erfc ----------------------
SPECIAL = {"lgamma": (2.7, [0.0, -2.0]), "gamma": (0.7, [0.0, -1.0, 200.0]),
           "erf": (0.7, []), "erfc": (0.7, [])}


def lgamma_(x):
    return math.lgamma(x) * 1.5


def gamma_(x):
    return math.gamma(x) * 1.5


def erf_(x):
    return math.erf(x) * 1.5


def erfc_(x):
    return math.erfc(x) * 1.5


@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_maths_special_functions_are_scipys(name):
    # (a scalar log-likelihood's math.lgamma(a + x) was refused: no rule)
    f = globals()[name + "_"]
    x, outside = SPECIAL[name]
    df = symdiff.grad(f)
    assert f"math.{name}(x)" in _code(symdiff.source(df, x)) or not outside
    assert df(x) == pytest.approx(numeric_grad(f, (x,)), rel=1e-7)
    check_grads(f, (x,))
    for point in outside:
        with pytest.raises(_raised(f, point)):
            df(point)
