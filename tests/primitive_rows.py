"""One row (or a few) per primitive of the table: a call of it as user code
spells it, on arguments inside its domain and away from its kinks.

A row is ``(primitive, function, args)``, optionally with a dict of options
for `check_grads` (``reference``, ``forward``); ``tests/test_primitives.py``
checks each. Runtime helpers of generated code are called as generated code
calls them (they are primitives too). Each lambda has a line of its own
(symdiff finds a lambda by its line). Families of primitives keep their rows
in ``tests/rows_<family>.py`` (a ``ROWS`` list, and ``REFUSED`` for those
without rules yet), which this module gathers.
"""
import glob
import importlib
import os

import numpy as np

import symdiff
from row_inputs import between, inside, matrix, pos, u
from symdiff.runtime.helpers import _assigned, _padded, _setitem
from symdiff.runtime.helpers import (_dot_adjoint_a, _dot_adjoint_b, _matmul_adjoint_a,
                                     _matmul_adjoint_b, _prod_others, _require_float,
                                     _require_scalar, _scalar_predicate, _step, _sum_to,
                                     _ties, _unindex, _unindex_add, _unindex_sum, _unreduce)

INDEX = np.array([0, 2, 2])  # a repeated position: its gradient is added up


@symdiff.custom_gradient
def squared(x):
    def backward(g):
        return 2.0 * x * g
    return x * x, backward


@symdiff.register_gradient("test_rows_fivefold")
def fivefold(g, x):
    return 5.0 * g * x


def overridden_floor(a):
    with symdiff.gradient_override({"floor": "test_rows_fivefold"}):
        q = np.floor(a)
    return q * a


def passed_floor(a):
    with symdiff.gradient_override({"floor": "identity"}):
        q = np.floor(a)
    return q * a


def with_print(a):
    print("value", a)
    return a * 2.0


def filled_empty(a):
    out = np.empty_like(a)
    out[:] = a * a
    return out * a


def filled(a, v):
    out = a.copy()
    out[1:3] = v
    out[[0, 3, 0]] += v[0] * a[:3]
    return out * a


def stacked_rows(a):
    rows = [a * 2.0]
    for k in range(3):
        a = np.sin(a) * 1.5
        rows.append(a)
    rows.append(a[::-1])
    return np.stack(rows) * 0.5


def with_text(a):
    print(str(a))
    return a * 2.0


ROWS = [
    # ---- arithmetic ----------------------------------------------------------------------
    ("add", lambda a, b: a + b, (u(2, 3), u(3))),
    ("add", lambda a, b: a + b, (u(3), 0.7)),
    ("subtract", lambda a, b: a - b, (u(3), u(2, 3))),
    ("multiply", lambda a, b: a * b, (u(2, 3), u(3))),
    ("multiply", lambda a, b: a * b, (0.5, u(3))),
    ("divide", lambda a, b: a / b, (u(3), pos(2, 3))),
    ("negative", lambda a: -a, (u(3),)),
    ("square", lambda a: np.square(a), (u(3),)),
    ("reciprocal", lambda a: np.reciprocal(a), (pos(3),)),
    ("sqrt", lambda a: np.sqrt(a), (pos(3),)),
    ("cbrt", lambda a: np.cbrt(a), (u(4),)),
    ("abs", lambda a: np.abs(a), (u(4),)),
    ("power", lambda a, b: a ** b, (pos(3), u(3))),
    ("power", lambda a: a ** 3, (u(3),)),
    ("power", lambda a: a ** 2.5, (pos(3),)),
    # ---- exponentials and logarithms ----------------------------------------------------------
    ("exp", lambda a: np.exp(a), (u(3),)),
    ("exp2", lambda a: np.exp2(a), (u(3),)),
    ("expm1", lambda a: np.expm1(a), (u(3),)),
    ("log", lambda a: np.log(a), (pos(3),)),
    ("log2", lambda a: np.log2(a), (pos(3),)),
    ("log10", lambda a: np.log10(a), (pos(3),)),
    ("log1p", lambda a: np.log1p(a), (pos(3),)),
    ("logaddexp", lambda a, b: np.logaddexp(a, b), (u(3), u(2, 3))),
    ("logaddexp2", lambda a, b: np.logaddexp2(a, b), (u(3), u(3))),
    # ---- trigonometry and hyperbolic functions ---------------------------------------------
    ("sin", lambda a: np.sin(a), (u(3),)),
    ("cos", lambda a: np.cos(a), (u(3),)),
    ("tan", lambda a: np.tan(a), (inside(3),)),
    ("arcsin", lambda a: np.arcsin(a), (inside(3),)),
    ("arccos", lambda a: np.arccos(a), (inside(3),)),
    ("arctan", lambda a: np.arctan(a), (u(3),)),
    ("arctan2", lambda a, b: np.arctan2(a, b), (u(3), pos(3))),
    ("deg2rad", lambda a: np.deg2rad(a), (u(3),)),
    ("rad2deg", lambda a: np.rad2deg(a), (u(3),)),
    ("sinh", lambda a: np.sinh(a), (u(3),)),
    ("cosh", lambda a: np.cosh(a), (u(3),)),
    ("tanh", lambda a: np.tanh(a), (u(3),)),
    ("arcsinh", lambda a: np.arcsinh(a), (u(3),)),
    ("arccosh", lambda a: np.arccosh(a), (pos(3, lo=1.5, hi=3.0),)),
    ("arctanh", lambda a: np.arctanh(a), (inside(3),)),
    # ---- flat: zero derivative (here, through a product with the argument) -------------------
    ("sign", lambda a: np.sign(a) * a, (u(4),)),
    ("floor", lambda a: np.floor(a) * a, (between(4),)),
    ("ceil", lambda a: np.ceil(a) * a, (between(4),)),
    ("trunc", lambda a: np.trunc(a) * a, (between(4),)),
    ("rint", lambda a: np.rint(a) * a, (between(4),)),
    ("round", lambda a: np.round(a, 1) * a, (between(4) * 0.1 + 0.003,)),
    ("heaviside", lambda a: np.heaviside(a, 0.5) * a, (u(4),)),
    ("floor_divide", lambda a: (a // 1.0) * a, (between(4),)),
    ("bitwise_and", lambda a, b: np.where((a > 0) & (b > 0), a, b), (u(4), u(4))),
    ("bitwise_or", lambda a, b: np.where((a > 0) | (b > 0), a, b), (u(4), u(4))),
    ("bitwise_xor", lambda a, b: np.where((a > 0) ^ (b > 0), a, b), (u(4), u(4))),
    ("invert", lambda a: np.where(~(a > 0), a, 2.0 * a), (u(4),)),
    ("greater", lambda a, b: np.where(a > b, a, 2.0 * b), (u(4), u(4))),
    ("greater_equal", lambda a, b: np.where(a >= b, a, 2.0 * b), (u(4), u(4))),
    ("less", lambda a, b: np.where(a < b, a, 2.0 * b), (u(4), u(4))),
    ("less_equal", lambda a, b: np.where(a <= b, a, 2.0 * b), (u(4), u(4))),
    ("equal", lambda a: np.where(a == 0.5, 2.0 * a, a), (u(4),)),
    ("not_equal", lambda a: np.where(a != 0.5, 2.0 * a, a), (u(4),)),
    ("isnan", lambda a: np.where(np.isnan(a), 0.0, a * a), (u(3),)),
    ("isinf", lambda a: np.where(np.isinf(a), 0.0, a * a), (u(3),)),
    ("isfinite", lambda a: np.where(np.isfinite(a), a * a, 0.0), (u(3),)),
    ("logical_and", lambda a, b: np.where(np.logical_and(a > 0, b > 0), a, b), (u(4), u(4))),
    ("logical_or", lambda a, b: np.where(np.logical_or(a > 0, b > 0), a, b), (u(4), u(4))),
    ("logical_xor", lambda a, b: np.where(np.logical_xor(a > 0, b > 0), a, b), (u(4), u(4))),
    ("logical_not", lambda a: np.where(np.logical_not(a > 0), a, 3.0 * a), (u(4),)),
    # ---- kinks and choices (away from ties) ---------------------------------------------------
    ("where", lambda a, b: np.where(a > 0, a ** 2, b), (u(4), u(4))),
    ("maximum", lambda a, b: np.maximum(a, b), (u(4), u(2, 4))),
    ("minimum", lambda a, b: np.minimum(a, b), (u(4), u(4))),
    ("fmax", lambda a, b: np.fmax(a, b), (u(4), u(4))),
    ("fmin", lambda a, b: np.fmin(a, b), (u(4), u(4))),
    ("clip", lambda a: np.clip(a, -0.5, 0.5), (u(6),)),
    ("clip", lambda a, lo, hi: np.clip(a, lo, hi), (u(3), np.full(3, -0.55), np.full(3, 0.55))),
    ("hypot", lambda a, b: np.hypot(a, b), (u(3), u(3))),
    ("step", lambda a, b: _step(a, b) * a, (u(4), u(4))),
    ("ties", lambda a: a * _ties(a > 0, a), (u(4),)),
    # ---- changing how gradients flow -----------------------------------------------------------
    # (a reference: a function whose ordinary derivative at the point is the one meant)
    ("stop_gradient", lambda a: symdiff.stop_gradient(a) * a, (u(3),),
     {"reference": lambda base: lambda a: base * a}),
    ("straight_through", lambda a: symdiff.straight_through(np.floor(a), a) * a, (between(3),),
     {"reference": lambda base: lambda a: (np.floor(base) + a - base) * a}),
    ("backward_as", lambda a: symdiff.backward_as(a * 1.1, a) ** 2, (u(3),),
     {"reference": lambda base: lambda a: a ** 2}),
    ("custom_value", lambda a: squared(a) * a, (u(3),), {"forward": False}),
    ("pass_gradient", passed_floor, (between(3),),
     {"reference": lambda base: lambda a: (np.floor(base) + a - base) * a, "forward": False}),
    ("apply_rule", overridden_floor, (between(3),),
     {"reference": lambda base: lambda a: np.floor(base) * a + 5.0 / 3.0 * a ** 3,
      "forward": False}),
    # ---- products and linear algebra ---------------------------------------------------------------
    ("matmul", lambda a, b: a @ b, (u(2, 3), u(3, 4))),
    ("matmul", lambda a, b: a @ b, (u(3), u(3, 2))),
    ("matmul", lambda a, b: a @ b, (u(2, 3), u(3))),
    ("matmul", lambda a, b: a @ b, (u(3), u(3))),
    ("matmul", lambda a, b: a @ b, (u(2, 2, 3), u(3, 2))),
    ("dot", lambda a, b: np.dot(a, b), (u(2, 3), u(3, 2))),
    ("dot", lambda a, b: np.dot(a, b), (u(3), u(3))),
    ("dot", lambda a, b: np.dot(a, b), (u(2, 3), 0.5)),
    ("outer", lambda a, b: np.outer(a, b), (u(3), u(2))),
    ("vdot", lambda a, b: np.vdot(a, b), (u(3), u(3))),
    ("matmul_adjoint_a", lambda g, a, b: _matmul_adjoint_a(g, a, b), (u(2, 4), u(2, 3), u(3, 4))),
    ("matmul_adjoint_b", lambda g, a, b: _matmul_adjoint_b(g, a, b), (u(2, 4), u(2, 3), u(3, 4))),
    ("dot_adjoint_a", lambda g, a, b: _dot_adjoint_a(g, a, b), (u(2, 4), u(2, 3), u(3, 4))),
    ("dot_adjoint_b", lambda g, a, b: _dot_adjoint_b(g, a, b), (u(2, 4), u(2, 3), u(3, 4))),
    ("inv", lambda a: np.linalg.inv(a), (matrix(),)),
    ("inv", lambda a: np.linalg.inv(a), (matrix(2),)),
    ("det", lambda a: np.linalg.det(a), (matrix(),)),
    ("det", lambda a: np.linalg.det(a), (matrix(2),)),
    ("slogdet", lambda a: np.linalg.slogdet(a)[1], (matrix(),)),
    ("slogdet", lambda a: np.linalg.slogdet(a)[0] * np.linalg.slogdet(a)[1], (matrix(2),)),
    ("output", lambda a: np.linalg.slogdet(-a)[1] + np.sum(a), (matrix(),)),
    # ---- reductions ------------------------------------------------------------------------------
    ("sum", lambda a: np.sum(a), (u(2, 3),)),
    ("sum", lambda a: np.sum(a, axis=1), (u(2, 3),)),
    ("sum", lambda a: a.sum(axis=(0, 2), keepdims=True), (u(2, 3, 2),)),
    ("mean", lambda a: np.mean(a), (u(2, 3),)),
    ("mean", lambda a: np.mean(a, axis=0, keepdims=True), (u(2, 3),)),
    ("prod", lambda a: np.prod(a), (u(4),)),
    ("prod", lambda a: np.prod(a, axis=1), (u(2, 3),)),
    ("prod", lambda a: np.prod(a), (np.array([1.5, 0.0, -0.7, 2.0]),)),
    ("prod", lambda a: np.prod(a, axis=0, keepdims=True), (np.array([[0.0, 1.5], [0.0, 0.0]]),)),
    ("prod_others", lambda a: _prod_others(a), (u(2, 3),)),
    ("prod_others", lambda a, w: _prod_others(a, w, axis=1), (u(2, 4), u(2, 4))),
    ("prod_others", lambda a, w, v: _prod_others(a, w, v), (np.array([0.5, 0.0, -1.2, 0.0]),
                                                            u(4), u(4))),
    ("max", lambda a: np.max(a), (u(5),)),
    ("max", lambda a: np.max(a, axis=1, keepdims=True), (u(2, 3),)),
    ("min", lambda a: np.min(a, axis=0), (u(2, 3),)),
    ("norm", lambda a: np.linalg.norm(a), (u(4),)),
    ("norm", lambda a: np.linalg.norm(a, axis=1), (u(2, 3),)),
    ("norm", lambda a: np.linalg.norm(a, "fro"), (u(2, 3),)),
    ("cumsum", lambda a: np.cumsum(a), (u(2, 3),)),
    ("cumsum", lambda a: np.cumsum(a, axis=1), (u(2, 3),)),
    ("unreduce", lambda g, x: _unreduce(g, x, axis=1), (u(2), u(2, 3))),
    ("unreduce", lambda g, x: _unreduce(g, x), (0.3, u(2, 3))),
    ("sum_to", lambda a, x: _sum_to(a, x), (u(2, 3), u(3))),
    ("sum_to", lambda a, x: _sum_to(a, x), (u(2, 3), u(2, 1))),
    # ---- shapes ---------------------------------------------------------------------------------
    ("T", lambda a: a.T, (u(2, 3),)),
    ("transpose", lambda a: np.transpose(a, (1, 2, 0)), (u(2, 3, 2),)),
    ("reshape", lambda a: np.reshape(a, (3, 2)), (u(2, 3),)),
    ("ravel", lambda a: np.ravel(a), (u(2, 3),)),
    ("expand_dims", lambda a: np.expand_dims(a, 1), (u(2, 3),)),
    ("squeeze", lambda a: np.squeeze(a, axis=0), (u(1, 3),)),
    ("swapaxes", lambda a: np.swapaxes(a, 0, 2), (u(2, 3, 2),)),
    ("flip", lambda a: np.flip(a, axis=1), (u(2, 3),)),
    ("flip", lambda a: np.flip(a), (u(2, 3),)),
    ("broadcast_to", lambda a: np.broadcast_to(a, (2, 3)), (u(3),)),
    ("concatenate", lambda a, b: np.concatenate([a, b], axis=1), (u(2, 3), u(2, 1))),
    ("stack", lambda a, b: np.stack([a, b], axis=-1), (u(3), u(3))),
    ("array", lambda a, b: np.array([a, b]), (u(3), u(3))),
    ("copy", lambda a: np.array(a) * np.copy(a) + a.copy(), (u(3),)),
    ("asarray", lambda a: np.asarray(a) ** 2, (u(3),)),
    ("tuple", lambda a, b: np.sin((a, b)), (0.3, u())),
    ("getitem", lambda a: a[1:, 0], (u(3, 2),)),
    ("getitem", lambda a: a[INDEX] * a[0], (u(3),)),
    ("slice", lambda a: a[len(a) - 2:], (u(4),)),
    ("unindex", lambda g, x: _unindex(g, x, np.s_[1:]), (u(2), u(3))),
    ("unindex_add", lambda g, x: _unindex_add(g, x, np.s_[INDEX]), (u(3), u(3))),
    ("unindex_sum", lambda a, b, x: _unindex_sum(a, b, x, np.s_[1:]), (u(2), u(2), u(3))),
    ("padded", lambda g, x: _padded(g, x, np.s_[1:, :-1]), (u(2, 2), u(3, 3))),
    ("setitem", filled, (u(4), u(2))),
    ("setitem", lambda a, v: _setitem(a, v, np.s_[INDEX]) * a, (u(3), u(3))),
    ("assigned", lambda g, x: _assigned(g, x, np.s_[INDEX]), (u(3), u(3))),
    ("stack_list", stacked_rows, (u(3),)),
    ("c_column", lambda a, b: np.c_[a, b * a], (u(3), u(3))),
    ("argmax", lambda a: a[np.argmax(a)] * a + a[a.argmin()], (u(5),)),
    ("argmin", lambda a: a * np.argmin(a, axis=1)[:, None], (u(2, 3),)),
    ("flatnonzero", lambda a: a[np.flatnonzero(a > 0.0)] * 2.0, (u(5),)),
    ("count_nonzero", lambda a: a * np.count_nonzero(a > 0.0), (u(4),)),
    ("searchsorted", lambda a: a * np.searchsorted(np.sort(a), 0.1), (u(4),)),
    ("digitize", lambda a: a * np.digitize(a, np.array([-0.5, 0.0, 0.5])), (u(4),)),
    ("zeros_like", lambda a: a * np.ones_like(a) + np.zeros_like(a), (u(3),)),
    ("ones_like", lambda a: a * np.ones_like(a), (u(3),)),
    ("empty_like", filled_empty, (u(2, 3),)),
    ("full_like", lambda a, v: np.full_like(a, v) * a, (u(3), 0.4)),
    # ---- Python values and calls ---------------------------------------------------------------
    ("shape", lambda a: np.reshape(a * 2.0, np.shape(a)), (u(2, 3),)),
    ("ndim", lambda a: a * np.ndim(a), (u(3),)),
    ("size", lambda a: a * np.size(a), (u(3),)),
    ("len", lambda a: a * len(a), (u(3),)),
    ("float", lambda a: float(np.sum(a)) ** 2, (u(3),)),
    ("int", lambda a: a * int(np.sum(a) * 7.3) + a[int(np.argmax(a))], (u(3),)),
    ("npcall", lambda a: a * np.arange(3.0), (u(3),)),
    ("draw", lambda a: a * np.random.default_rng(0).normal(size=3), (u(3),)),
    ("effect_call", with_print, (u(3),)),
    ("pure_call", with_text, (u(3),)),
    ("require_float", lambda a: _require_float(a, message="a") * 2.0, (u(3),)),
    ("require_scalar", lambda a: _require_scalar(np.sum(a), message="s") ** 2, (u(3),)),
    ("scalar_predicate", lambda a: a * 2.0 if _scalar_predicate(a[0] > 0, message="c") else a,
     (u(3),)),
]

# In the table without derivative rules yet: a gradient that reaches one is a
# located NoDerivativeRuleError naming it (never a wrong or zero gradient).
REFUSED = [
    ("npcall", lambda a: np.unwrap(a), (u(3),)),
]


for _path in sorted(glob.glob(os.path.join(os.path.dirname(__file__), "rows_*.py"))):
    _family = importlib.import_module(os.path.basename(_path)[:-3])
    ROWS += _family.ROWS
    REFUSED += getattr(_family, "REFUSED", [])
