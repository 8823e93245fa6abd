"""Forward mode: symdiff.jvp against central differences in random directions.

Every tangent must have its primal's shape, so the functions here broadcast
inputs of several shapes against constants bigger than they are (globals,
arrays made inside the function, and arguments not differentiated), and
their results are not reduced: each entry of J t is compared. Kinks and
where-boundaries, where differences are no reference, are compared with
reverse mode instead (grad . t), and must be finite and warning-free.
"""
import warnings

import numpy as np
import pytest

import symdiff
from check_grads import check_grads
from test_branches import (assigned_in_one_branch, clip_norm, conditional_expression,
                           early_return, elif_chain, nested, with_cond, with_cond_defs)
from test_loops import CASES as LOOPS
from test_rules import (AXES, BINARY, DOTS, KINKS, MATMUL, PAIRS, REDUCTIONS, SHAPE_IDS,
                        SHAPES, UNARY, draw)
from test_where import (EDGE, arccos_where, arcsin_where, chained_where, div_where,
                        else_branch_where, log_where, power_where, sqrt_where)


def numeric_jvp(f, args, wrts, tangents, eps=1e-6):
    """(f(x + eps t) - f(x - eps t)) / 2 eps, moving every argument in ``wrts``."""
    def moved(sign):
        out = list(args)
        for w, t in zip(wrts, tangents):
            value = np.asarray(args[w], dtype=float) + sign * eps * np.asarray(t)
            out[w] = float(value) if isinstance(args[w], float) else value
        return out

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # the user's own code may warn; not symdiff's
        hi, lo = f(*moved(1.0)), f(*moved(-1.0))
    return (np.asarray(hi, dtype=float) - np.asarray(lo, dtype=float)) / (2 * eps)


def directions(args, wrts, seed):
    rng = np.random.default_rng(seed)
    return [float(rng.normal()) if isinstance(args[w], float)
            else rng.normal(size=np.shape(args[w])) for w in wrts]


def assert_jvp(f, args, wrt=0, seed=0, rtol=1e-6, atol=1e-7):
    """jvp's value is f's, and its tangent has f's shape and matches differences."""
    wrts = wrt if isinstance(wrt, tuple) else (wrt,)
    tangents = directions(args, wrts, seed)
    value, dot = symdiff.jvp(f, wrt=wrt)(*args, *tangents)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        expected = f(*args)
    np.testing.assert_allclose(value, expected, rtol=1e-12)
    assert np.shape(dot) == np.shape(expected), (np.shape(dot), np.shape(expected))
    np.testing.assert_allclose(dot, numeric_jvp(f, args, wrts, tangents), rtol=rtol, atol=atol)
    return dot


def assert_jvp_matches_grad(f, args, wrt=0, seed=0):
    """At kinks and where-boundaries: J t equals grad . t exactly, and is finite."""
    wrts = wrt if isinstance(wrt, tuple) else (wrt,)
    tangents = directions(args, wrts, seed)
    value, dot = symdiff.jvp(f, wrt=wrt)(*args, *tangents)
    grads = symdiff.grad(f, wrt=wrt)(*args)
    grads = grads if isinstance(wrt, tuple) else (grads,)
    expected = sum(np.sum(g * t) for g, t in zip(grads, tangents))
    assert np.isfinite(dot)
    assert dot == pytest.approx(expected, rel=1e-12, abs=1e-14)


# ---- elementwise, one operand ----------------------------------------------------------
@pytest.mark.parametrize("shape", SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("f, lo, hi", UNARY, ids=[row[0].__name__ for row in UNARY])
def test_unary(f, lo, hi, shape):
    assert_jvp(lambda x: f(x), (draw(shape, lo, hi),))


# ---- elementwise, two operands: one of them held constant --------------------------------
@pytest.mark.parametrize("wrt", [0, 1, (0, 1)], ids=["x", "y", "both"])
@pytest.mark.parametrize("xs, ys", PAIRS.values(), ids=PAIRS.keys())
@pytest.mark.parametrize("f, lo, hi", BINARY, ids=[row[0].__name__ for row in BINARY])
def test_binary(f, lo, hi, xs, ys, wrt):
    args = (draw(xs, lo, hi, seed=2), draw(ys, lo, hi, seed=3))
    assert_jvp(lambda x, y: f(x, y), args, wrt)


C43 = draw((4, 3), 0.5, 2.0, seed=20)
C13 = draw((1, 3), 0.5, 2.0, seed=21)
C41 = draw((4, 1), 0.5, 2.0, seed=22)

CONSTANTS = {
    "x+C43": lambda x: x + C43,
    "C43-x": lambda x: C43 - x,
    "x-C41": lambda x: x - C41,
    "x*C13": lambda x: x * C13,
    "C41/x": lambda x: C41 / x,
    "x**C43": lambda x: x ** C43,
    "C43**x": lambda x: C43 ** x,
    "made inside": lambda x: np.ones((4, 3)) * 0.5 + x,
    "made inside, nested": lambda x: np.sin(np.zeros((4, 1)) + np.cos(x)),
    "arctan2": lambda x: np.arctan2(x, C43),
    "hypot": lambda x: np.hypot(C41, x),
    "logaddexp": lambda x: np.logaddexp(x, C13),
    "maximum": lambda x: np.maximum(x, C43),
    "minimum": lambda x: np.minimum(C41, x),
    "fmax": lambda x: np.fmax(x, C13),
    "clip": lambda x: np.clip(x, C41 - 1.0, C13),
    "clip one-sided": lambda x: np.clip(x, None, C43),
    "where x, C": lambda x: np.where(C43 > 1.0, x, C43),
    "where C, x": lambda x: np.where(C41 > 1.0, C43, x ** 2),
    "where scalar": lambda x: np.where(C43 > 1.0, x, 0.0),
    "where scalars": lambda x: np.where(C43 > 1.0, np.sum(x), 2.0),
    "sum then broadcast": lambda x: np.sum(x) + C43,
    "mean keepdims": lambda x: np.mean(x + C13, axis=-1, keepdims=True) * C43,
    "stack": lambda x: np.stack([x + C43, C43]),
    "concatenate": lambda x: np.concatenate([np.broadcast_to(x, (4, 3)), C43]),
    "matmul": lambda x: C43.T @ (x + C41),
}
# the differentiated input x takes shapes that all broadcast against (4, 3)
X_SHAPES = {"float": None, "0d": (), "row": (3,), "column": (4, 1), "full": (4, 3)}


@pytest.mark.parametrize("xs", X_SHAPES.values(), ids=X_SHAPES.keys())
@pytest.mark.parametrize("f", CONSTANTS.values(), ids=CONSTANTS.keys())
def test_constants_broadcast_against_the_input(f, xs):
    assert_jvp(f, (draw(xs, 0.5, 2.0, seed=23),))


# ---- reductions, linear algebra, shapes ---------------------------------------------------
ARRAYS = {
    "sum axis": (lambda x: np.sum(x * C43, axis=0), (3,)),
    "mean keepdims": (lambda x: np.mean(x + C41, axis=1, keepdims=True), (4, 1)),
    "prod": (lambda x: np.prod(x * C13, axis=-1), (4, 3)),
    "max axis": (lambda x: np.max(x + C43, axis=1), (3,)),
    "min all": (lambda x: np.min(x * C43), (4, 1)),
    "norm": (lambda x: np.linalg.norm(x - C41), (3,)),
    "norm axis": (lambda x: np.linalg.norm(x * C43, axis=0), (4, 1)),
    "norm keepdims": (lambda x: np.linalg.norm(x * C43, keepdims=True), (3,)),
    "matmul": (lambda x: (x + C43) @ C43.T, (3,)),
    "dot": (lambda x: np.dot(C43, x), (3,)),
    "outer": (lambda x: np.outer(x, C13), (4,)),
    "vdot": (lambda x: np.vdot(x, C43[0]), (3,)),
    "reshape": (lambda x: np.reshape(x + C41, (3, 4)), (3,)),
    "transpose": (lambda x: (x * C43).T, (4, 1)),
    "expand squeeze": (lambda x: np.squeeze(np.expand_dims(x, 0) + C13, axis=0), (3,)),
    "broadcast_to": (lambda x: np.broadcast_to(x, (4, 3)) * C43, (3,)),
    "getitem": (lambda x: (x + C43)[1:, ::2], (3,)),
    "array": (lambda x: np.array([x[0], 2.0, x[1] * x[2]]), (3,)),
    "swapaxes": (lambda x: np.swapaxes(x * C43[None], 0, 2), (4, 1)),
}


@pytest.mark.parametrize("f, shape", ARRAYS.values(), ids=ARRAYS.keys())
def test_arrays(f, shape):
    assert_jvp(f, (draw(shape, 0.5, 2.0, seed=24),))


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", AXES + [(0, 2), (-1, 0)], ids=lambda a: f"axis={a}")
@pytest.mark.parametrize("f", REDUCTIONS, ids=lambda f: f.__name__)
def test_reductions(f, axis, keepdims):
    shape = (2, 3, 4) if isinstance(axis, tuple) else (3, 4)
    assert_jvp(lambda x: f(x, axis=axis, keepdims=keepdims), (draw(shape, 0.5, 1.5, seed=12),))


PRODUCTS = [(np.matmul, xs, ys) for xs, ys in MATMUL.values()] + \
    [(np.dot, xs, ys) for xs, ys in DOTS.values()] + [(np.outer, (3,), (2, 2))]


@pytest.mark.parametrize("wrt", [0, 1, (0, 1)], ids=["a", "b", "both"])
@pytest.mark.parametrize("f, xs, ys", PRODUCTS, ids=[f"{f.__name__} {xs} {ys}"
                                                     for f, xs, ys in PRODUCTS])
def test_products(f, xs, ys, wrt):
    assert_jvp(lambda a, b: f(a, b), (draw(xs, seed=14), draw(ys, seed=15)), wrt)


# ---- if / else, loops ------------------------------------------------------------------------
def branch_constant(x, c):
    y = C43 if c > 0 else x * 2.0
    return y


def branch_constant_loop(x, c):
    acc = np.zeros((4, 3))
    for i in range(2):
        if c > i:
            acc = acc * 0.5 + x
        else:
            acc = C43 - acc
    return acc


def carried_from_a_constant(x, n):
    acc = np.zeros((4, 3))  # its tangent starts as zeros of this shape, not 0.0
    for i in range(n):
        acc = acc * 0.5 + x
    return acc


def replaced_in_a_loop(x, n):
    v = x
    for i in range(n):
        v = np.ones((4, 1)) * 2.0  # no tangent after the first iteration
    return v


BRANCHES = [
    (early_return, (0.7,), 0), (early_return, (-0.4,), 0),
    (elif_chain, (2.5,), 0), (elif_chain, (0.7,), 0), (elif_chain, (-0.4,), 0),
    (assigned_in_one_branch, (-0.4,), 0), (assigned_in_one_branch, (0.7,), 0),
    (nested, (3.0, 1.0), (0, 1)), (nested, (1.5, 1.0), (0, 1)), (nested, (0.5, 1.0), (0, 1)),
    (clip_norm, (np.array([1.0, 2.0]), np.array([0.5, -1.0])), (0, 1)),
    (clip_norm, (np.array([0.1, -0.2]), np.array([0.5, -1.0])), 0),
    (conditional_expression, (np.array([1.0, 2.0]),), 0),
    (conditional_expression, (np.array([-1.0, 0.5]),), 0),
    (with_cond, (np.array([1.0, 2.0]), 0.5), (0, 1)),
    (with_cond_defs, (np.array([-1.0, 0.5]), 1.5), (0, 1)),
    (branch_constant, (draw((3,), seed=25), 1.0), 0),
    (branch_constant, (draw((3,), seed=25), -1.0), 0),
    (branch_constant_loop, (draw((4, 1), seed=26), 1.0), 0),
    (branch_constant_loop, (draw((3,), seed=26), 0.5), 0),
    (carried_from_a_constant, (draw((3,), seed=27), 2), 0),
    (carried_from_a_constant, (draw((3,), seed=27), 0), 0),
    (replaced_in_a_loop, (draw((3,), seed=28), 2), 0),
    (replaced_in_a_loop, (draw((3,), seed=28), 0), 0),
]


@pytest.mark.parametrize("f, args, wrt", BRANCHES, ids=[c[0].__name__ for c in BRANCHES])
def test_branches(f, args, wrt):
    assert_jvp(f, args, wrt)


@pytest.mark.parametrize("f, args, wrt", LOOPS, ids=[c[0].__name__ for c in LOOPS])
def test_loops(f, args, wrt):
    assert_jvp(f, args, wrt)


# ---- where-boundaries and kinks: finite, and as reverse mode has it ------------------------
WHERES = [sqrt_where, log_where, div_where, arcsin_where, arccos_where, power_where,
          chained_where, else_branch_where]


@pytest.mark.parametrize("f", WHERES, ids=lambda f: f.__name__)
def test_where_at_domain_edges(f):
    # as test_where: sin(x) / x ** 2 overflows at 1e-300, in either mode
    edges = EDGE if f in (sqrt_where, log_where, power_where, else_branch_where) \
        else np.array([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 3.0])
    assert_jvp_matches_grad(f, (edges,))


@pytest.mark.parametrize("f", WHERES, ids=lambda f: f.__name__)
def test_where_inside(f):
    assert_jvp(f, (np.array([-1.5, -0.3, 0.2, 0.6, 3.0]),))


@pytest.mark.parametrize("f, x, expected", KINKS.values(), ids=KINKS.keys())
def test_kinks(f, x, expected):
    assert_jvp_matches_grad(f, (np.array(x),))


def power_of_zero(x, p):
    return np.sum(x ** p)


def test_power_at_a_zero_base_is_finite():
    assert_jvp_matches_grad(power_of_zero, (np.array([0.0, 2.0]), np.array([1.5, 1.5])),
                            (0, 1))


# ---- what jvp returns -----------------------------------------------------------------------
def returns_a_tuple(x):
    return x * C43, (np.sum(x), 3.0)


def test_a_returned_tuple_gets_a_tuple_of_tangents():
    x, t = draw((3,), seed=29), draw((3,), seed=30)
    value, dot = symdiff.jvp(returns_a_tuple)(x, t)
    assert value[1][1] == 3.0 and dot[1][1] == 0.0
    np.testing.assert_allclose(dot[0], C43 * t)
    assert dot[1][0] == pytest.approx(np.sum(t))


def constant_array(x):
    return np.ones((2, 3))


def test_a_constant_result_has_a_zero_tangent_of_its_shape():
    value, dot = symdiff.jvp(constant_array)(0.5, 1.0)
    np.testing.assert_array_equal(dot, np.zeros((2, 3)))


def named_like_a_tangent(x, x_dot):
    return np.sin(x) * x_dot


def test_a_parameter_named_like_a_tangent():
    args = (draw((3,), seed=31), draw((3,), seed=32))
    assert_jvp(named_like_a_tangent, args, 0)
    assert_jvp(named_like_a_tangent, args, (0, 1))
    assert "x_dot_" in symdiff.source(symdiff.jvp(named_like_a_tangent))


def straight_through_broadcast(x):
    return symdiff.straight_through(np.round(x * C43), x)


def test_straight_through_tangent_has_the_value_shape():
    x, t = draw((3,), seed=33), draw((3,), seed=34)
    value, dot = symdiff.jvp(straight_through_broadcast)(x, t)
    np.testing.assert_array_equal(dot, np.broadcast_to(t, (4, 3)))
    assert np.sum(dot) == pytest.approx(np.sum(symdiff.grad(
        lambda x: np.sum(straight_through_broadcast(x)))(x) * t))


def one_norm(x):
    return np.linalg.norm(x, ord=1)


def test_other_norms_have_the_tangent_of_their_gradient():
    x, t = draw((4,), seed=35), draw((4,), seed=36)
    _, dot = symdiff.jvp(one_norm)(x, t)
    assert dot == pytest.approx(np.sum(symdiff.grad(one_norm)(x) * t))


def test_grad_of_a_function_returning_a_tuple_is_a_located_error():
    with pytest.raises(symdiff.SymdiffError, match="tuple|scalar"):
        symdiff.grad(returns_a_tuple)(draw((3,), seed=29))
    x = draw((3,), seed=29)  # vjp takes a tuple of cotangents, one per output
    value, _ = symdiff.vjp(returns_a_tuple)(x, tuple(np.ones(np.shape(v))
                                                      for v in returns_a_tuple(x)))
    assert isinstance(value, tuple)


def outer_column(x0, x1):
    x1 = np.arcsin(np.square(x1))
    return np.sum(np.outer((x1 * np.ones((2, 3))).sum(axis=1), np.sum(x0) * np.ones(3))[:, 1])


def test_forward_over_reverse_through_a_constant_index_of_slices():
    # np.s_[:, 1] in the gradient: a constant whose slices Python 3.11 cannot hash
    check_grads(outer_column, (np.array([0.2, -0.1]), 0.3), order=2)
