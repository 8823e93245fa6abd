"""The numbers a gradient is made of: dtypes, scalars, integers, empty arrays,
NaN and infinity.

Decided (and documented in symdiff.grad's docstring): a gradient has the shape
of its argument and keeps its precision.

* float32 in, float32 out: symdiff adds no float64 of its own (a float64
  constant in the user's function still promotes, as in the function).
* A Python float in gives a float out (a Python float or np.float64, which is
  a float); a NumPy scalar or 0-d array in gives a NumPy scalar (or 0-d
  array) of its dtype out: ``np.ndim(g) == 0`` always, never a 1-element array.
* Integer and boolean arguments may be passed freely; differentiating with
  respect to one is a NonFloatArgumentError that says to pass floats.
* Empty arrays give empty gradients; NaN and infinity propagate as the
  function propagates them, without exceptions.
"""
import warnings

import numpy as np
import scipy.special
import pytest

import symdiff
from check_grads import check_grads
from numeric import assert_grad, numeric_grad
from symdiff.errors import NonFloatArgumentError

X23 = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]])
W32 = np.array([[0.5, -1.0], [1.5, 0.25], [-0.5, 2.0]], dtype=np.float32)


# ---- float32 stays float32 --------------------------------------------------------------
def elementwise(x):
    return np.sum(np.sin(x) * np.exp(-x * x) + np.tanh(x) ** 2 / (1.0 + x * x))


def where(x):
    return np.sum(np.where(x > 0, np.sqrt(np.abs(x) + 1.0), x ** 2))


def where_domain(x):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0))


def reductions(x):
    return np.sum(np.mean(x, axis=0) ** 2) + np.sum(np.sum(x, axis=1, keepdims=True) * x)


def product(x):
    return np.prod(x) + np.sum(np.prod(x, axis=1))


def matmul(x):
    return np.sum(np.tanh(x @ W32) ** 2)


def dot_of_rows(x):
    return np.dot(x[0], x[1])


def loop(x):
    acc = np.zeros_like(x[0])
    for row in x:
        acc = acc * 0.5 + np.sin(row)
    return np.sum(acc)


def branch(x):
    if np.sum(x) > 0:
        return np.sum(x ** 3)
    return np.sum(np.cos(x))


def indexing(x):
    return np.sum(x[0] * x[1, :]) + np.sum(x[:, 1:] ** 2)


def joined(x):
    return np.sum(np.concatenate([x, x ** 2], axis=0) * 2.0)


def norm(x):
    return np.linalg.norm(x) + np.sum(np.abs(x) ** 1.5 + 2.0 ** x)


def maximum_reduction(x):
    return np.max(x) + np.sum(np.min(x, axis=0))


def kinks(x):
    return np.sum(np.maximum(x, 0.0) + np.abs(x) + np.clip(x, -0.5, 0.5))


def matrix_norms(x):                    # written out: a max of column sums, ...
    return np.linalg.norm(x, ord=1) + np.linalg.norm(x, "fro") + np.linalg.norm(x, np.inf)


def over_all_axes(x):                   # a reduction over a tuple of axes: a number
    return np.max(x, axis=(0, 1)) + np.var(x, axis=(0, 1)) + \
        scipy.special.logsumexp(x, axis=(0, 1)) + np.linalg.norm(x, axis=(0, 1))


def helpers_of_a_number(x):              # _untrace(1.0, x), _quantile_adjoint(1.0, x, q)
    return np.trace(x[:, :2]) + np.median(x) + np.quantile(x, 0.3)


# (the seed 1.0 of a number's gradient was made a float64 array: np.reshape(1.0,
# shape), np.expand_dims(1.0, axis), np.eye(...) in _untrace: float64 gradients)
KEEPS_FLOAT32 = [elementwise, where, where_domain, reductions, product, matmul,
                 dot_of_rows, loop, branch, indexing, joined, norm, matrix_norms,
                 over_all_axes, helpers_of_a_number]


@pytest.mark.parametrize("f", KEEPS_FLOAT32, ids=lambda f: f.__name__)
def test_float32_in_float32_out(f):
    x = X23.astype(np.float32)
    g = symdiff.grad(f)(x)
    assert g.dtype == np.float32, g.dtype
    value, g2 = symdiff.value_and_grad(f)(x)
    assert g2.dtype == np.float32
    np.testing.assert_allclose(g, numeric_grad(f, (X23,)), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("f", [maximum_reduction, kinks], ids=lambda f: f.__name__)
def test_float32_through_kinks(f):
    assert symdiff.grad(f)(X23.astype(np.float32)).dtype == np.float32


def test_float32_with_several_arguments():
    def f(x, w, b):
        return np.sum(np.tanh(x @ w + b) ** 2)
    x, w = X23.astype(np.float32), W32
    b = np.float32(0.25)
    grads = symdiff.grad(f, wrt=(0, 1, 2))(x, w, b)
    assert [g.dtype for g in grads] == [np.float32] * 3
    assert np.ndim(grads[2]) == 0


def test_a_float64_constant_promotes_as_in_the_function():
    """Not symdiff's upcast: the function itself computes in float64."""
    W64 = W32.astype(np.float64)

    def f(x):
        return np.sum(x @ W64)
    x = X23.astype(np.float32)
    assert f(x).dtype == np.float64
    assert symdiff.grad(f)(x).dtype == np.float64


# ---- scalars: Python floats, NumPy scalars, 0-d arrays ---------------------------------------
def scalar_poly(x):
    return x * x * 3.0 + np.sin(x)


def scalar_where(x):
    return np.where(x > 0, np.sqrt(x), -x) * 2.0


def scalar_branch(x):
    if x > 1.0:
        return x ** 3
    return np.exp(x)


def scalar_loop(x):
    acc = 1.0
    for i in range(3):
        acc = acc * x + float(i)
    return acc


def scalar_sum(x):
    return np.sum(x * 2.0)


def scalar_kinks(x):
    return np.maximum(x, 0.5) + np.clip(x, 0.0, 1.0) + np.max(x) * np.fmin(x, 2.0)


def scalar_mean(x):
    return np.mean(x) * 3.0


def scalar_constant_branch(x):
    if x < 1.0:
        return 2.0  # the gradient here is np.zeros_like(x)
    return x * x


def scalar_against_an_array(x):
    return np.sum(np.where(X23 > x, x * X23, 0.0))


SCALAR_FUNCS = [scalar_poly, scalar_where, scalar_branch, scalar_loop, scalar_sum,
                scalar_kinks, scalar_mean, scalar_constant_branch]


@pytest.mark.parametrize("f", SCALAR_FUNCS + [scalar_against_an_array],
                         ids=lambda f: f.__name__)
def test_python_float_in_float_out(f):
    g = symdiff.grad(f)(0.7)
    assert isinstance(g, float) and np.ndim(g) == 0, type(g)
    assert g == pytest.approx(numeric_grad(f, (0.7,)), rel=1e-6)
    value, g2 = symdiff.value_and_grad(f)(0.7)
    assert isinstance(g2, float) and g2 == g


@pytest.mark.parametrize("f", SCALAR_FUNCS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [np.array(0.7), np.float64(0.7), np.array(0.7, np.float32),
                               np.float32(0.7)], ids=["0d", "f64", "0d32", "f32"])
def test_numpy_scalars_and_0d_arrays_keep_their_dtype(f, x):
    g = symdiff.grad(f)(x)
    assert np.ndim(g) == 0 and np.shape(g) == ()
    assert np.result_type(g) == x.dtype, (type(g), np.result_type(g))
    assert float(g) == pytest.approx(float(numeric_grad(f, (float(x),))), rel=1e-3)


def test_an_unused_scalar_and_a_second_derivative_are_floats_too():
    gx, gy = symdiff.grad(lambda x, y: x * 2.0, wrt=(0, 1))(0.7, 0.5)
    assert (gx, gy) == (2.0, 0.0) and isinstance(gy, float)
    g2 = symdiff.grad(symdiff.grad(scalar_where))(0.7)
    assert isinstance(g2, float) and g2 == pytest.approx(-0.5 * 0.7 ** -1.5)


def test_a_1_element_array_is_not_a_scalar():
    g = symdiff.grad(scalar_sum)(np.array([0.7]))
    assert np.shape(g) == (1,)


# ---- integers and booleans --------------------------------------------------------------------
def mixed(x, n, flag, idx, counts):
    y = x ** n * counts
    if flag:
        y = y + x[idx]
    return np.sum(y) + n


def test_integer_and_boolean_arguments_not_differentiated():
    x = np.array([0.5, -1.0, 2.0])
    counts = np.array([1, 2, 3])
    args = (x, 3, True, 1, counts)
    df = symdiff.grad(mixed)
    assert_grad(mixed, df, args)
    assert df(*args).dtype == np.float64
    assert_grad(mixed, df, (x, 2, np.bool_(False), np.int64(0), counts))


@pytest.mark.parametrize("value", [3, np.int64(3), np.array([1, 2]), np.array([True]),
                                   True], ids=["int", "np.int64", "int array", "bool array",
                                               "bool"])
def test_an_integer_argument_in_wrt_is_an_error_with_a_hint(value):
    def f(x, n):
        return np.sum(x * n)
    with pytest.raises(NonFloatArgumentError) as info:
        symdiff.grad(f, wrt="n")(np.ones(2), value)
    err = info.value
    assert "`n`" in err.message and "floating-point" in err.message
    assert "3.0" in err.hint and err.lineno == f.__code__.co_firstlineno
    assert err.filename == __file__


# ---- empty arrays ---------------------------------------------------------------------------
EMPTY_FUNCS = [elementwise, where, where_domain, product, indexing, joined, norm, kinks]


@pytest.mark.parametrize("f", EMPTY_FUNCS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("shape", [(0, 3), (2, 0), (0, 0)])
def test_empty_arrays(f, shape):
    x = np.zeros(shape)
    try:
        f(x)
    except IndexError:
        # The function itself indexes past the end: its gradient must fail the
        # same way, not return something.
        with pytest.raises(IndexError):
            symdiff.grad(f)(x)
        return
    g = symdiff.grad(f)(x)
    assert g.shape == shape and g.dtype == np.float64


def test_empty_arrays_in_sums_products_and_loops():
    def f(x, A):
        acc = np.sum(x)
        for row in A:  # no iterations
            acc = acc + np.sum(row * x)
        return acc + np.sum(A @ x) + np.prod(x)
    x, A = np.zeros(0), np.zeros((0, 0))
    gx, gA = symdiff.grad(f, wrt=(0, 1))(x, A)
    assert gx.shape == (0,) and gA.shape == (0, 0)
    x, A = np.array([1.0, 2.0]), np.zeros((0, 2))
    gx, gA = symdiff.grad(f, wrt=(0, 1))(x, A)
    np.testing.assert_allclose(gx, [1.0 + 2.0, 1.0 + 1.0])
    assert gA.shape == (0, 2)


def test_matmul_with_an_empty_inner_dimension():
    def f(a, b):
        return np.sum(a @ b + 1.0)
    a, b = np.zeros((2, 0)), np.zeros((0, 3))
    ga, gb = symdiff.grad(f, wrt=(0, 1))(a, b)
    assert ga.shape == (2, 0) and gb.shape == (0, 3)


def test_mean_of_an_array_with_no_columns():
    def f(x):
        return np.sum(np.mean(x, axis=0))
    g = symdiff.grad(f)(np.zeros((2, 0)))
    assert g.shape == (2, 0)


@pytest.mark.parametrize("axis, shape", [(-1, (0, 2)), ((0, 2), (2, 0, 3)), (1, (3, 2, 0))])
def test_mean_with_nothing_left_after_it(axis, shape):
    def f(x):
        return np.sum(np.mean(x, axis=axis, keepdims=True))
    g = symdiff.grad(f)(np.zeros(shape, np.float32))
    assert g.shape == shape and g.dtype == np.float32


def test_mean_over_axes_divides_by_their_lengths():
    def f(x):
        return np.sum(np.mean(x, axis=(0, 2)) * np.arange(3.0))
    x = np.linspace(-1.0, 1.0, 24).reshape(2, 3, 4)
    assert_grad(f, symdiff.grad(f), (x,))
    assert symdiff.grad(f)(x.astype(np.float32)).dtype == np.float64  # arange is float64


# ---- NaN and infinity ---------------------------------------------------------------------
SPECIAL = np.array([np.nan, np.inf, -np.inf, 2.0, 0.0, -1.5])


def quiet(fn, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*args)


CASES = [
    (lambda x: np.sum(x ** 2 + np.sin(x)), lambda x: 2 * x + np.cos(x)),
    (lambda x: np.sum(np.exp(-x)), lambda x: -np.exp(-x)),
    (lambda x: np.sum(np.where(x > 0, np.sqrt(x), 0.0)),
     lambda x: np.where(x > 0, 0.5 / np.sqrt(np.where(x > 0, x, 1.0)), 0.0)),
    (lambda x: np.sum(np.tanh(x)), lambda x: 1 - np.tanh(x) ** 2),
    (lambda x: np.sum(x * 3.0), lambda x: np.full_like(x, 3.0)),
    (lambda x: np.sum(np.abs(x)), lambda x: np.sign(x)),
    (lambda x: np.sum(np.maximum(x, 0.0)),
     lambda x: (x > 0) + 0.5 * (x == 0) + np.where(np.isnan(x), np.nan, 0.0)),
]


@pytest.mark.parametrize("f, derivative", CASES, ids=[str(i) for i in range(len(CASES))])
def test_nan_and_inf_propagate_as_the_function_does(f, derivative):
    g = quiet(symdiff.grad(f), SPECIAL)  # no exception, whatever the values
    np.testing.assert_array_equal(g, quiet(derivative, SPECIAL))


def test_nan_in_an_unused_input_stays_out():
    def f(x, y):
        return np.sum(x ** 2) + 0.0 * np.sum(np.isnan(y))
    gx, gy = symdiff.grad(f, wrt=(0, 1))(np.array([1.0, 2.0]), np.array([np.nan, 1.0]))
    np.testing.assert_array_equal(gx, [2.0, 4.0])
    np.testing.assert_array_equal(gy, [0.0, 0.0])


def test_inf_through_a_loop_and_matmul():
    def f(x, W):
        h = x
        for i in range(2):
            h = np.tanh(W @ h)
        return np.sum(h)
    x = np.array([np.inf, 1.0])
    W = np.array([[1.0, 0.5], [-0.5, 1.0]])
    value = quiet(f, x, W)
    gx, gW = quiet(symdiff.grad(f, wrt=(0, 1)), x, W)
    assert np.isfinite(value)
    assert gx.shape == (2,) and gW.shape == (2, 2)


def test_nan_through_a_max_reduction():
    x = np.array([np.nan, 1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = symdiff.grad(lambda v: np.max(v))(x)
    assert np.isnan(g).any()


def _ratio(x, y):
    return x / y


def test_quotient_gradient_in_the_denominator_does_not_square_it():
    # -x / y ** 2 underflows y ** 2 to 0 here; -(x / y) / y is exact
    g = symdiff.grad(_ratio, wrt=1)(1e-200, 1e-200)
    assert g == pytest.approx(-1e200, rel=1e-15)


def polynomial_features(c, x):          # np.vander's columns, written as a power
    k = np.arange(c.shape[0])
    return np.sum((x[:, None] ** k @ c) ** 2)


def test_a_power_with_an_exponent_array_at_a_zero_base():
    """d/dx x ** k = k * x ** (k - 1) was 0 * 0 ** -1 = NaN at x = 0, k = 0,
    where x ** 0 is 1 for every x (so the slope is 0); now written
    k * x ** where(x == 0 and k == 0, 1, k - 1), exact to every order."""
    c, x = np.array([0.3, 0.5, -2.0, 1.0]), np.array([0.0, 1.5, -1.0])
    p = np.polynomial.Polynomial(c)
    d1, d2 = p.deriv(1), p.deriv(2)
    grad = symdiff.grad(polynomial_features, wrt=1)(c, x)
    np.testing.assert_allclose(grad, 2 * p(x) * d1(x), rtol=1e-13)
    hessian = symdiff.hessian(polynomial_features, wrt=1)(c, x)
    np.testing.assert_allclose(hessian, np.diag(2 * (d1(x) ** 2 + p(x) * d2(x))), rtol=1e-13)
    check_grads(polynomial_features, (c, x))
    # in the exponent too: d/dn x ** n is x ** n log(x) (0 at x = 0), and
    # d2/dx dn at n = 0 is 1 / x
    power = symdiff.grad(lambda x, n: np.sum(x ** n), wrt=(0, 1))
    x, n = np.array([0.0, 0.5, 2.0]), np.array([0.0, 0.0, 1.0])
    np.testing.assert_allclose(np.concatenate(power(x, n)),
                               [0.0, 0.0, 1.0, 0.0, np.log(0.5), 2 * np.log(2.0)], rtol=1e-14)
    check_grads(lambda x, n: np.sum(x ** n), (x[1:], n[1:]))
