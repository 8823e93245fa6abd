"""Every derivative rule, checked against central differences.

Each table row is one primitive (or one spelling of it) with the interval its
random inputs are drawn from, chosen inside the function's domain. Non-scalar
results are reduced with random weights (``np.sum(f(x) * w)``), so every entry
of the Jacobian-vector product is checked, not only the column sums.
"""
import inspect
import math

import numpy as np
import pytest

import symdiff
from symdiff.runtime import helpers as runtime
from numeric import assert_grad

SHAPES = [None, (), (5,), (3, 4)]  # None: a Python float
SHAPE_IDS = ["float", "0d", "vector", "matrix"]


def draw(shape, lo=-2.0, hi=2.0, seed=0):
    """Uniform random inputs in [lo, hi]; a Python float for ``shape=None``."""
    rng = np.random.default_rng(seed)
    if shape is None:
        return float(rng.uniform(lo, hi))
    return np.asarray(rng.uniform(lo, hi, size=shape))


def weights(shape, seed=1):
    return draw(shape, -1.0, 1.0, seed)


def check(f, args, wrt=0):
    """symdiff's gradient of ``f`` matches finite differences, shapes included."""
    return assert_grad(f, symdiff.grad(f, wrt=wrt), args, wrt)


# ---- elementwise, one operand ---------------------------------------------------------
UNARY = [
    # function       low    high
    (np.negative,    -2.0,  2.0),
    (np.exp,         -2.0,  2.0),
    (np.exp2,        -2.0,  2.0),
    (np.expm1,       -2.0,  2.0),
    (np.log,          0.2,  3.0),
    (np.log2,         0.2,  3.0),
    (np.log10,        0.2,  3.0),
    (np.log1p,       -0.8,  3.0),
    (np.sqrt,         0.2,  3.0),
    (np.cbrt,         0.2,  3.0),
    (np.square,      -2.0,  2.0),
    (np.reciprocal,   0.2,  3.0),
    (np.abs,         -2.0,  2.0),
    (np.sin,         -3.0,  3.0),
    (np.cos,         -3.0,  3.0),
    (np.tan,         -1.3,  1.3),
    (np.arcsin,      -0.9,  0.9),
    (np.arccos,      -0.9,  0.9),
    (np.arctan,      -3.0,  3.0),
    (np.sinh,        -2.0,  2.0),
    (np.cosh,        -2.0,  2.0),
    (np.tanh,        -2.0,  2.0),
    (np.arcsinh,     -3.0,  3.0),
    (np.arccosh,      1.1,  3.0),
    (np.arctanh,     -0.9,  0.9),
    (np.deg2rad,     -90.,  90.),
    (np.rad2deg,     -2.0,  2.0),
]


@pytest.mark.parametrize("shape", SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("f, lo, hi", UNARY, ids=[row[0].__name__ for row in UNARY])
def test_unary(f, lo, hi, shape):
    loss = lambda x, w: np.sum(f(x) * w)
    check(loss, (draw(shape, lo, hi), weights(shape)))


@pytest.mark.parametrize("f", [np.floor, np.ceil, np.round, np.rint, np.trunc, np.sign],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("shape", SHAPES, ids=SHAPE_IDS)
def test_zero_derivative_is_exactly_zero(f, shape):
    x = draw(shape, -3.0, 3.0)
    df = symdiff.grad(lambda x, w: np.sum(f(x) * w))
    got = df(x, weights(shape))
    assert np.shape(got) == np.shape(x)
    np.testing.assert_array_equal(got, np.zeros(np.shape(x)))


def test_zero_derivative_leaves_other_paths_alone():
    x = draw((5,), -3.0, 3.0)
    check(lambda x: np.sum(np.floor(x) * x + np.round(x, 1) * np.sin(x)), (x,))


# NumPy and math spellings of the same primitives
ALIASES = {
    "absolute fabs": (lambda x: np.absolute(x) + np.fabs(x) * 2.0, -2.0, 2.0),
    "asin acos atan": (lambda x: np.asin(x) + np.acos(x) * 2.0 + np.atan(x) * 3.0, -0.9, 0.9),
    "asinh atanh": (lambda x: np.asinh(x) + np.atanh(x) * 2.0, -0.9, 0.9),
    "acosh": (lambda x: np.acosh(x), 1.1, 3.0),
    "true_divide pow": (lambda x: np.true_divide(x, 3.0) + np.pow(x, 3), -2.0, 2.0),
    "amax amin": (lambda x: np.amax(x) + np.amin(x) * 2.0, -2.0, 2.0),
    "concat": (lambda x: np.concat([x, x * 2.0]) * 2.0, -2.0, 2.0),
}


@pytest.mark.parametrize("f, lo, hi", ALIASES.values(), ids=ALIASES.keys())
def test_numpy_aliases(f, lo, hi):
    check(lambda x: np.sum(f(x) * np.cos(np.arange(np.size(f(x))))), (draw((5,), lo, hi),))


MATH = {
    "trigonometry": lambda x: math.sin(x) * math.cos(x) + math.tan(x) + math.atan2(x, 2.0),
    "inverse trig": lambda x: math.asin(x) + math.acos(x) * 2.0 + math.atan(x),
    "hyperbolic": lambda x: math.sinh(x) + math.cosh(x) * math.tanh(x) + math.asinh(x),
    "inverse hyp": lambda x: math.atanh(x) + math.acosh(1.0 + x),
    "exp log": lambda x: math.exp(x) + math.log(x) + math.log2(x) * math.log10(x),
    "log1p expm1": lambda x: math.log1p(x) * math.expm1(x) + math.sqrt(x),
    "hypot fabs": lambda x: math.hypot(x, 2.0) + math.fabs(-3.0 * x),
    "floor ceil trunc": lambda x: x * (math.floor(x) + math.ceil(x) + math.trunc(x) + 1.0),
}


@pytest.mark.parametrize("f", MATH.values(), ids=MATH.keys())
def test_math_module(f):
    check(f, (0.4,))


# ---- elementwise, two operands, with broadcasting ----------------------------------------
BINARY = [
    # function                            low    high
    (np.add,                             -2.0,  2.0),
    (np.subtract,                        -2.0,  2.0),
    (np.multiply,                        -2.0,  2.0),
    (np.divide,                           0.5,  2.0),
    (np.power,                            0.5,  2.0),
    (np.arctan2,                          0.2,  2.0),
    (np.hypot,                           -2.0,  2.0),
    (np.logaddexp,                       -2.0,  2.0),
    (np.logaddexp2,                      -2.0,  2.0),
    (np.maximum,                         -2.0,  2.0),
    (np.minimum,                         -2.0,  2.0),
    (np.fmax,                            -2.0,  2.0),
    (np.fmin,                            -2.0,  2.0),
]

# shapes of (x, y): every gradient must come back with its own operand's shape
PAIRS = {
    "float+float": (None, None),
    "0d+0d": ((), ()),
    "vector+vector": ((5,), (5,)),
    "matrix+matrix": ((4, 3), (4, 3)),
    "row+matrix": ((3,), (4, 3)),
    "matrix+row": ((4, 3), (3,)),
    "column*matrix": ((4, 1), (4, 3)),
    "column*row": ((4, 1), (1, 3)),
    "float*matrix": (None, (4, 3)),
    "matrix*0d": ((4, 3), ()),
    "0d*vector": ((), (5,)),
}


@pytest.mark.parametrize("xs, ys", PAIRS.values(), ids=PAIRS.keys())
@pytest.mark.parametrize("f, lo, hi", BINARY, ids=[row[0].__name__ for row in BINARY])
def test_binary(f, lo, hi, xs, ys):
    out = np.broadcast_shapes(xs or (), ys or ())
    args = (draw(xs, lo, hi, seed=2), draw(ys, lo, hi, seed=3), weights(out))
    check(lambda x, y, w: np.sum(f(x, y) * w), args, wrt=(0, 1))


OPERATORS = [
    lambda x, y: x + y,
    lambda x, y: x - y,
    lambda x, y: x * y,
    lambda x, y: x / y,
    lambda x, y: x ** y,
    lambda x, y: -x * y,
]


@pytest.mark.parametrize("xs, ys", [(None, (4, 3)), ((3,), (4, 3)), ((4, 1), (4, 3))],
                         ids=["float-matrix", "row-matrix", "column-matrix"])
@pytest.mark.parametrize("op", OPERATORS, ids="+ - * / ** neg".split())
def test_operators_broadcast(op, xs, ys):
    args = (draw(xs, 0.5, 2.0, seed=4), draw(ys, 0.5, 2.0, seed=5), weights((4, 3)))
    check(lambda x, y, w: np.sum(op(x, y) * w), args, wrt=(0, 1))


# ---- power: array ** constant, constant ** array, array ** array --------------------------
POWERS = {
    "x**2": (lambda x: x ** 2, -2.0, 2.0),
    "x**3": (lambda x: x ** 3, -2.0, 2.0),
    "x**-2": (lambda x: x ** -2, 0.5, 2.0),
    "x**0.5": (lambda x: x ** 0.5, 0.2, 2.0),
    "x**2.5": (lambda x: x ** 2.5, 0.2, 2.0),
    "x**1": (lambda x: x ** 1, -2.0, 2.0),
    "x**0": (lambda x: x ** 0 * 3.0, -2.0, 2.0),
    "np.power(x,3)": (lambda x: np.power(x, 3), -2.0, 2.0),
    "2**x": (lambda x: 2.0 ** x, -2.0, 2.0),
    "e**x": (lambda x: np.e ** x, -2.0, 2.0),
    "0.5**x": (lambda x: 0.5 ** x, -2.0, 2.0),
    "x**x": (lambda x: x ** x, 0.2, 2.0),
}


@pytest.mark.parametrize("shape", SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("f, lo, hi", POWERS.values(), ids=POWERS.keys())
def test_power(f, lo, hi, shape):
    check(lambda x, w: np.sum(f(x) * w), (draw(shape, lo, hi), weights(shape)))


def test_power_negative_base_integer_exponent_array():
    x, n = draw((5,), -2.0, -0.5), np.array([1.0, 2.0, 3.0, 2.0, 1.0])
    check(lambda x, n: np.sum(x ** n), (x, n))


def test_power_of_zero_base_with_constant_exponent_is_finite():
    df = symdiff.grad(lambda x: np.sum(x ** 2 + x ** 3))
    np.testing.assert_array_equal(df(np.zeros(3)), np.zeros(3))


def test_power_exponent_gradient_at_a_zero_base_is_zero():
    """d/dp 0 ** p = 0 for p > 0 (not 0 * log 0 = NaN)."""
    df = symdiff.grad(lambda w, p: np.sum(w ** p), wrt=(0, 1))
    gw, gp = df(np.array([0.0, 2.0]), np.array([1.5, 1.5]))
    np.testing.assert_allclose(gw, [0.0, 1.5 * np.sqrt(2.0)])
    np.testing.assert_allclose(gp, [0.0, 2.0 ** 1.5 * np.log(2.0)])


# ---- clip, where ------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", SHAPES, ids=SHAPE_IDS)
def test_clip(shape):
    check(lambda x, w: np.sum(np.clip(x, -0.5, 0.7) * w), (draw(shape), weights(shape)))


def test_clip_bounds_are_differentiated():
    x, lo, hi = draw((4, 3), seed=6), draw((3,), -1.0, -0.2, seed=7), draw((4, 1), 0.2, 1.0)
    check(lambda x, lo, hi: np.sum(np.clip(x, lo, hi) * np.arange(12).reshape(4, 3)),
          (x, lo, hi), wrt=(0, 1, 2))


def test_clip_one_sided():
    x = draw((6,))
    check(lambda x: np.sum(np.clip(x, None, 0.3) ** 2 + np.clip(x, -0.3, None) ** 3), (x,))


@pytest.mark.parametrize("shape", SHAPES, ids=SHAPE_IDS)
def test_where(shape):
    x, y = draw(shape, seed=8), draw(shape, seed=9)
    check(lambda x, y: np.sum(np.where(x > y, x * y, np.sin(y))), (x, y), wrt=(0, 1))


def test_where_broadcasts_its_branches():
    x, y = draw((4, 3), seed=10), draw((3,), seed=11)
    check(lambda x, y: np.sum(np.where(x > 0, y, x ** 2) * np.arange(12.).reshape(4, 3)),
          (x, y), wrt=(0, 1))


# ---- kinks: ties split the gradient evenly ----------------------------------------------
KINKS = {
    "max([1,3,3])": (lambda x: np.max(x), [1.0, 3.0, 3.0], [0.0, 0.5, 0.5]),
    "min([2,1,1,1])": (lambda x: np.min(x), [2.0, 1.0, 1.0, 1.0], [0.0, 1 / 3, 1 / 3, 1 / 3]),
    "max(x,0) at 0": (lambda x: np.sum(np.maximum(x, 0.0)), [0.0, -1.0, 2.0], [0.5, 0.0, 1.0]),
    "min(x,0) at 0": (lambda x: np.sum(np.minimum(x, 0.0)), [0.0, -1.0, 2.0], [0.5, 1.0, 0.0]),
    "max(0,x) at 0": (lambda x: np.sum(np.maximum(0.0, x)), [0.0, -1.0], [0.5, 0.0]),
    "abs at 0": (lambda x: np.sum(np.abs(x)), [0.0, -2.0, 3.0], [0.0, -1.0, 1.0]),
    "hypot(x,0) at 0": (lambda x: np.sum(np.hypot(x, 0.0)), [0.0, -2.0], [0.0, -1.0]),
    "hypot(x,x) at 0": (lambda x: np.sum(np.hypot(x, 2 * x)), [0.0], [0.0]),
    "clip at bounds": (lambda x: np.sum(np.clip(x, -1.0, 1.0)), [-1.0, 1.0, 0.0, 2.0],
                       [0.5, 0.5, 1.0, 0.0]),
    "max(x,x)": (lambda x: np.sum(np.maximum(x, x)), [1.0, -2.0], [1.0, 1.0]),
}


@pytest.mark.parametrize("f, x, expected", KINKS.values(), ids=KINKS.keys())
def test_kinks_split_ties_evenly(f, x, expected):
    got = symdiff.grad(f)(np.array(x))
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-15)


def test_max_ties_along_an_axis():
    A = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]])
    df = symdiff.grad(lambda A: np.sum(np.max(A, axis=1) * np.array([1.0, 2.0])))
    np.testing.assert_allclose(df(A), [[0, 0.5, 0.5], [1.0, 1.0, 0]], rtol=0, atol=1e-15)


def test_logaddexp_is_stable_far_from_zero():
    df = symdiff.grad(lambda a, b: np.sum(np.logaddexp(a, b) + np.logaddexp2(b, a)), wrt=(0, 1))
    ga, gb = df(np.array([1000.0, -1000.0]), np.array([0.0, 0.0]))
    np.testing.assert_allclose(ga, [2.0, 0.0], atol=1e-300)
    np.testing.assert_allclose(gb, [0.0, 2.0], atol=1e-300)


def test_maximum_of_scalars_at_a_tie():
    df = symdiff.grad(lambda x, y: np.maximum(x, y), wrt=(0, 1))
    assert df(1.5, 1.5) == (0.5, 0.5)


# ---- reductions ----------------------------------------------------------------------------
REDUCTIONS = [np.sum, np.mean, np.prod, np.max, np.min]
AXES = [None, 0, 1, -1]


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", AXES, ids=lambda a: f"axis={a}")
@pytest.mark.parametrize("f", REDUCTIONS, ids=lambda f: f.__name__)
def test_reduction(f, axis, keepdims):
    x = draw((3, 4), 0.5, 1.5, seed=12)
    w = weights(np.sum(x, axis=axis, keepdims=keepdims).shape)
    check(lambda x, w: np.sum(f(x, axis=axis, keepdims=keepdims) * w), (x, w))


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", [None, 0, 2, -2, (0, 2), (1, 2), (-1, 0)],
                         ids=lambda a: f"axis={a}")
@pytest.mark.parametrize("f", REDUCTIONS, ids=lambda f: f.__name__)
def test_reduction_3d(f, axis, keepdims):
    x = draw((2, 3, 4), 0.5, 1.5, seed=13)
    w = weights(np.sum(x, axis=axis, keepdims=keepdims).shape)
    check(lambda x, w: np.sum(f(x, axis=axis, keepdims=keepdims) * w), (x, w))


@pytest.mark.parametrize("f", REDUCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("shape", SHAPES, ids=SHAPE_IDS)
def test_reduction_of_scalars_and_vectors(f, shape):
    check(lambda x: f(x) * 1.5, (draw(shape, 0.5, 1.5),))


PROD_ZEROS = {
    "one zero": ([2.0, 0.0, 3.0], [0.0, 6.0, 0.0]),
    "two zeros": ([2.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
    "no zero": ([2.0, 5.0, 3.0], [15.0, 6.0, 10.0]),
}


@pytest.mark.parametrize("x, expected", PROD_ZEROS.values(), ids=PROD_ZEROS.keys())
def test_prod_with_zeros_is_exact(x, expected):
    got = symdiff.grad(lambda x: np.prod(x))(np.array(x))
    np.testing.assert_array_equal(got, expected)


def test_prod_with_zeros_along_an_axis_is_exact():
    A = np.array([[2.0, 0.0, 3.0], [1.0, 4.0, 5.0]])
    got = symdiff.grad(lambda A: np.sum(np.prod(A, axis=1, keepdims=True)))(A)
    np.testing.assert_array_equal(got, [[0.0, 6.0, 0.0], [20.0, 5.0, 4.0]])


# ---- linear algebra ----------------------------------------------------------------------------
MATMUL = {
    "1d@1d": ((3,), (3,)),
    "2d@1d": ((4, 3), (3,)),
    "1d@2d": ((3,), (3, 5)),
    "2d@2d": ((4, 3), (3, 5)),
    "3d@2d": ((2, 4, 3), (3, 5)),
    "2d@3d": ((4, 3), (2, 3, 5)),
    "3d@3d": ((2, 4, 3), (2, 3, 5)),
    "3d@1d": ((2, 4, 3), (3,)),
    "1d@3d": ((3,), (2, 3, 5)),
    "broadcast batch": ((2, 1, 4, 3), (3, 3, 5)),
}


def _product_weights(f, xs, ys):
    return weights(np.shape(f(np.ones(xs), np.ones(ys))))


@pytest.mark.parametrize("xs, ys", MATMUL.values(), ids=MATMUL.keys())
def test_matmul(xs, ys):
    w = _product_weights(np.matmul, xs, ys)
    check(lambda a, b, w: np.sum((a @ b) * w), (draw(xs, seed=14), draw(ys, seed=15), w),
          wrt=(0, 1))


DOTS = {
    "1d.1d": ((3,), (3,)),
    "2d.1d": ((4, 3), (3,)),
    "1d.2d": ((3,), (3, 5)),
    "2d.2d": ((4, 3), (3, 5)),
    "float.1d": (None, (3,)),
    "2d.0d": ((4, 3), ()),
    "0d.0d": ((), ()),
    "3d.1d": ((2, 4, 3), (3,)),
    "2d.3d": ((4, 3), (2, 3, 5)),
    "1d.3d": ((3,), (2, 3, 5)),
}


@pytest.mark.parametrize("xs, ys", DOTS.values(), ids=DOTS.keys())
def test_dot(xs, ys):
    w = _product_weights(np.dot, xs or (), ys or ())
    check(lambda a, b, w: np.sum(np.dot(a, b) * w),
          (draw(xs, seed=16), draw(ys, seed=17), w), wrt=(0, 1))


@pytest.mark.parametrize("xs, ys", [((3,), (4,)), ((2, 2), (3,))], ids=["1d", "2d"])
def test_outer(xs, ys):
    w = weights((int(np.prod(xs)), int(np.prod(ys))))
    check(lambda a, b, w: np.sum(np.outer(a, b) * w),
          (draw(xs, seed=18), draw(ys, seed=19), w), wrt=(0, 1))


def test_vdot():
    check(lambda a, b: np.vdot(a, b) * 2.0, (draw((4,), seed=20), draw((4,), seed=21)),
          wrt=(0, 1))


NORMS = {
    "1d": (lambda x: np.linalg.norm(x), (5,)),
    "2d": (lambda x: np.linalg.norm(x), (3, 4)),
    "axis=0": (lambda x: np.linalg.norm(x, axis=0), (3, 4)),
    "axis=1": (lambda x: np.linalg.norm(x, axis=1), (3, 4)),
    "axis=-1": (lambda x: np.linalg.norm(x, axis=-1), (3, 4)),
    "axis=0,keepdims": (lambda x: np.linalg.norm(x, axis=0, keepdims=True), (3, 4)),
    "axis=1,keepdims": (lambda x: np.linalg.norm(x, axis=1, keepdims=True), (3, 4)),
    "keepdims": (lambda x: np.linalg.norm(x, keepdims=True), (3, 4)),
    "ord=2,axis=0": (lambda x: np.linalg.norm(x, 2, axis=0), (3, 4)),
    "fro": (lambda x: np.linalg.norm(x, "fro"), (3, 4)),
}


@pytest.mark.parametrize("f, xs", NORMS.values(), ids=NORMS.keys())
def test_norm(f, xs):
    x = draw(xs, seed=22)
    check(lambda x, w: np.sum(f(x) * w), (x, weights(np.shape(f(x)))))


def test_norm_at_zero_is_zero():
    got = symdiff.grad(lambda x: np.linalg.norm(x))(np.zeros(3))
    np.testing.assert_array_equal(got, np.zeros(3))


def test_norm_of_an_order_that_is_no_norm_is_refused_clearly():
    with pytest.raises(symdiff.SymdiffError, match="ord='nuc' is no norm of vectors"):
        symdiff.grad(lambda x: np.linalg.norm(x, "nuc", axis=0))


# ---- shapes -----------------------------------------------------------------------------
SHAPING = {
    "T": (lambda x: x.T, (3, 4)),
    "np.transpose": (lambda x: np.transpose(x), (3, 4)),
    "transpose 3d": (lambda x: np.transpose(x), (2, 3, 4)),
    "transpose axes": (lambda x: np.transpose(x, (1, 2, 0)), (2, 3, 4)),
    "transpose axes=": (lambda x: np.transpose(x, axes=(2, 0, 1)), (2, 3, 4)),
    "transpose -axes": (lambda x: np.transpose(x, (-1, 0, 1)), (2, 3, 4)),
    "permute_dims": (lambda x: np.permute_dims(x, (1, 0, 2)), (2, 3, 4)),
    "reshape": (lambda x: np.reshape(x, (4, 3)), (3, 4)),
    "reshape -1": (lambda x: np.reshape(x, (2, -1)), (3, 4)),
    "reshape to 1d": (lambda x: np.reshape(x, -1), (3, 4)),
    "ravel": (lambda x: np.ravel(x), (3, 4)),
    "expand_dims": (lambda x: np.expand_dims(x, 1), (3, 4)),
    "expand_dims 0": (lambda x: np.expand_dims(x, axis=0), (3, 4)),
    "squeeze": (lambda x: np.squeeze(x), (3, 1, 4)),
    "swapaxes": (lambda x: np.swapaxes(x, 0, 2), (2, 3, 4)),
    "swapaxes 0 1": (lambda x: np.swapaxes(x, 0, 1), (2, 3, 4)),
    "broadcast_to": (lambda x: np.broadcast_to(x, (2, 3, 4)), (3, 1)),
}


@pytest.mark.parametrize("f, xs", SHAPING.values(), ids=SHAPING.keys())
def test_shape_operations(f, xs):
    x = draw(xs, seed=23)
    check(lambda x, w: np.sum(f(x) * w), (x, weights(np.shape(f(x)))))


JOINS = {
    "concatenate axis=0": (lambda a, b: np.concatenate([a, b]), (2, 3), (4, 3)),
    "concatenate axis=1": (lambda a, b: np.concatenate((a, b), axis=1), (2, 3), (2, 5)),
    "concatenate axis=-1": (lambda a, b: np.concatenate([a, b, a], axis=-1), (2, 3), (2, 1)),
    "concatenate 1d": (lambda a, b: np.concatenate([a, b]), (3,), (2,)),
    "stack axis=0": (lambda a, b: np.stack([a, b]), (2, 3), (2, 3)),
    "stack axis=1": (lambda a, b: np.stack([a, b], axis=1), (2, 3), (2, 3)),
    "stack axis=-1": (lambda a, b: np.stack((a, b, a), axis=-1), (2, 3), (2, 3)),
    "stack scalars": (lambda a, b: np.stack([a, b, a * b]), (), ()),
    "array of scalars": (lambda a, b: np.array([a, b, a * b]), (), ()),
    "nested array": (lambda a, b: np.array([[a[0], b[1]], [a[1] * b[0], 2.0]]), (2,), (2,)),
    "list in concatenate": (lambda a, b: np.concatenate([[a[0], b[0]], a, b]), (2,), (3,)),
    "array of vectors": (lambda a, b: np.array([a, b]), (3,), (3,)),
}


@pytest.mark.parametrize("f, xs, ys", JOINS.values(), ids=JOINS.keys())
def test_joins(f, xs, ys):
    a, b = draw(xs, seed=24), draw(ys, seed=25)
    check(lambda a, b, w: np.sum(f(a, b) * w), (a, b, weights(np.shape(f(a, b)))),
          wrt=(0, 1))


# ---- second derivatives: the helpers of generated code have rules too ---------------------
def scalar_path(s, A, v):
    return np.sum(np.tanh((s * A) @ v) ** 2) + np.dot(s * v, v) ** 2 \
        + np.sum(np.dot(s * A, A.T)) + np.sum((v * s) @ A.T)


def test_grad_of_grad_through_matmul_and_dot():
    A, v = draw((2, 3), seed=27), draw((3,), seed=28)
    d = symdiff.grad(scalar_path)
    assert_grad(d, symdiff.grad(d), (0.7, A, v))


def test_gradient_of_a_generated_gradient_wrt_every_matmul_operand():
    A, v = draw((2, 3), seed=29), draw((3,), seed=30)
    inner = symdiff.grad(lambda A, v: np.sum(np.sin(A @ v)) + np.dot(v, A.T @ A @ v), wrt=(0, 1))

    def outer(A, v):
        gA, gv = inner(A, v)
        return np.sum(gA ** 2) + np.sum(gv * v)
    check(outer, (A, v), wrt=(0, 1))


def test_runtime_helpers_with_their_dependencies_stand_alone():
    """A written module copies each helper it calls plus `runtime.uses` of it."""
    a, b, g = draw((2, 4, 3), seed=31), draw((3,), seed=32), np.ones((2, 4))
    for name, like in [("_matmul_adjoint_a", a), ("_matmul_adjoint_b", b),
                       ("_dot_adjoint_a", a), ("_dot_adjoint_b", b)]:
        namespace = {"np": np}
        for helper in runtime.uses(name):
            exec(inspect.getsource(runtime.HELPERS[helper]), namespace)
        assert namespace[name](g, a, b).shape == like.shape


# ---- one table line is all an elementwise function needs ------------------------------------
def test_an_elementwise_function_is_one_table_line(monkeypatch):
    """np.sinc's record without its formula is refused; giving it one is all
    it takes, SymPy derives the rest."""
    import dataclasses

    from symdiff.ir.primitive import TABLE, Formula
    loss = lambda x: np.sum(np.sinc(x) * np.arange(1.0, 6.0))
    x = draw((5,), 0.2, 2.0, seed=26)
    monkeypatch.setitem(TABLE, "sinc", dataclasses.replace(TABLE["sinc"], formula=None))
    with pytest.raises(symdiff.SymdiffError, match="sinc"):
        symdiff.grad(loss)
    monkeypatch.setitem(TABLE, "sinc", dataclasses.replace(
        TABLE["sinc"], formula=Formula("sin(pi * a) / (pi * a)")))
    check(loss, (x,))
