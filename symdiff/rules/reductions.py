"""Reductions and cumulative operations: sum, mean, prod, max, min, cumsum,
cumprod, diff (norms: norms.py).

Their adjoints spread a gradient back over the reduced axes; the helpers that
do it in generated code (``_unreduce``, ``_sum_to``, ``_prod_others``) are
primitives too, with rules of their own, so gradients differentiate again.
"""
from __future__ import annotations

import numpy as np

from ..ir.nodes import Const
from ..ir.primitive import ARRAY, REDUCTION, SIZED, define, like
from .axis_patterns import differenced_pattern
from .kinks import KINK_NOTE
from .shapes import along


def _axis(op):
    return {k: v for k, v in op.params if k in ("axis", "keepdims")}


def _reduced(op):
    """The ``axis`` and ``keepdims`` of a reduction, for a reduction of the
    same axes (``sum(..., axis=None, keepdims=True)`` keeps every axis)."""
    return {"axis": op.param("axis"), "keepdims": bool(op.param("keepdims"))}


# ---- sum and mean ----------------------------------------------------------------------
def sum_rule(r, op, g):
    return [r.b.op("unreduce", g, op.args[0], **_axis(op))]


def mean_rule(r, op, g):
    x, axis = op.args[0], op.param("axis")
    if axis is None:
        count = r.b.op("size", x)
    else:  # the reduced axes' lengths: not size(x) / size(mean), 0 / 0 when that is empty
        shape, count = r.b.op("shape", x), Const(1)
        for a in (axis if isinstance(axis, tuple) else (axis,)):
            count = r.b.mul(count, r.b.op("getitem", shape, Const(a)))
    return [r.b.op("unreduce", r.b.div(g, count), x, **_axis(op))]


define("sum(a; axis=None, keepdims=False)", shape=REDUCTION, reverse=sum_rule, linear=(0,),
       methods=("sum",))
define("mean(a; axis=None, keepdims=False)", shape=REDUCTION, reverse=mean_rule, linear=(0,),
       methods=("mean",))


# ---- prod: exact where entries are zero --------------------------------------------------
def prod_rule(r, op, g):
    a = op.args[0]
    spread = r.b.op("unreduce", g, a, **_axis(op))
    return [r.b.mul(spread, r.b.op("prod_others", a, axis=op.param("axis")))]


def prod_tangent(b, op, dargs):
    if dargs[0] is None:
        return None
    others = b.op("prod_others", op.args[0], axis=op.param("axis"))
    return b.op("sum", b.mul(others, dargs[0]), **_reduced(op))


def prod_others_rule(r, op, g):
    """``prod_others(a, w1, ..., wm)`` is multilinear in the directions; in
    ``a`` its adjoint is itself with ``g`` as one more direction, in ``wl``
    itself with ``g`` in place of ``wl`` (both by the symmetry of which index
    is "self" and which is given to ``g``)."""
    a, *directions = op.args
    axis = op.param("axis")
    grads = [r.b.op("prod_others", a, *directions, g, axis=axis) if r.wants(a) else None]
    for k, w in enumerate(directions):
        rest = directions[:k] + directions[k + 1:]
        grads.append(r.b.op("prod_others", a, *rest, g, axis=axis) if r.wants(w) else None)
    return grads


def prod_others_tangent(b, op, dargs):
    a, *directions = op.args
    axis = op.param("axis")
    terms = [b.op("prod_others", a, *directions, dargs[0], axis=axis)
             if dargs[0] is not None else None]
    for k, d in enumerate(dargs[1:]):
        if d is not None:
            changed = list(directions)
            changed[k] = d
            terms.append(b.op("prod_others", a, *changed, axis=axis))
    return b.total(terms)


define("prod(a; axis=None, keepdims=False)", shape=REDUCTION, reverse=prod_rule,
       forward=prod_tangent, methods=("prod",))
# Each entry: the product of the other entries reduced with it; with directions
# w1..wm, the derivative of that along them (see runtime/helpers.py).
define("prod_others(a, *directions; axis=None)", ("helper", "_prod_others"), like(0),
       reverse=prod_others_rule, forward=prod_others_tangent, result=ARRAY)


# ---- max and min: ties share the gradient ---------------------------------------------------
def extremum_rule(r, op, g):
    """max / min: ties share the gradient evenly (see KINK_NOTE); a NaN
    extremum gives its whole slice a NaN gradient (`_ties` is NaN there)."""
    x, out, axis = op.args[0], op.target, op.param("axis")
    with r.b.noting(KINK_NOTE):
        if axis is not None and not op.param("keepdims"):
            out = r.b.op("expand_dims", out, axis=axis)
            if not isinstance(g, Const):  # (a number broadcasts, and keeps x's dtype)
                g = r.b.op("expand_dims", g, axis=axis)
        hits = r.b.op("equal", x, out, hint="is_" + op.prim)
        ties = r.b.op("ties", hits, x, **({"axis": axis} if axis is not None else {}))
        return [_like(r, r.b.mul(r.b.div(g, ties), hits), x)]


def extremum_tangent(b, op, dargs):
    x, out = op.args[0], op.target
    if dargs[0] is None:
        return None
    axis, keep = op.param("axis"), op.param("keepdims")
    along = {"axis": axis} if axis is not None else {}
    kept = b.op("expand_dims", out, axis=axis) if axis is not None and not keep else out
    hits = b.op("equal", x, kept)
    share = b.div(b.mul(dargs[0], hits), b.op("ties", hits, x, **along))
    return b.op("sum", share, **along, **({"keepdims": True} if keep else {}))


def _like(r, value, like_):
    """Tell the shape facts that ``value`` has exactly the shape of ``like_``."""
    r.facts.shape[value] = r.facts.key(like_)
    return value


define("max(a; axis=None, keepdims=False)", shape=REDUCTION, reverse=extremum_rule,
       forward=extremum_tangent, aliases=("amax",), methods=("max",))
define("min(a; axis=None, keepdims=False)", shape=REDUCTION, reverse=extremum_rule,
       forward=extremum_tangent, aliases=("amin",), methods=("min",))
# np.maximum.reduce(a, axis=0) is np.max along one axis (its axis given: frontend/arguments.py)
define("maximum_reduce(a; axis=0, keepdims=False)", ("np", "maximum.reduce"), REDUCTION,
       reverse=extremum_rule, forward=extremum_tangent)
define("minimum_reduce(a; axis=0, keepdims=False)", ("np", "minimum.reduce"), REDUCTION,
       reverse=extremum_rule, forward=extremum_tangent)


# ---- cumulative sums -----------------------------------------------------------------------
def cumsum_rule(r, op, g):
    """The adjoint of a running sum is the running sum from the other end."""
    x, axis = op.args[0], op.param("axis")
    if axis is None:  # (NumPy sums the flattened array)
        backward = r.b.op("flip", r.b.op("cumsum", r.b.op("flip", g)))
        if r.facts.rank(x) == 1:  # (flat already)
            return [backward]
        return [r.b.op("reshape", backward, r.b.op("shape", x))]
    return [r.b.op("flip", r.b.op("cumsum", r.b.op("flip", g, axis=axis), axis=axis),
                   axis=axis)]


def _cumulative_shape(op, facts):
    flat = op.param("axis") is None and facts.rank(op.args[0]) != 1
    return op.target if flat else facts.key(op.args[0])


define("cumsum(a; axis=None)", shape=_cumulative_shape, reverse=cumsum_rule, linear=(0,),
       methods=("cumsum",))


# ---- running maxima and minima: np.maximum.accumulate, np.minimum.accumulate ---------------
# Each result entry is the entry it took its value from: ties before it share its gradient
# (np.max's policy), and from a NaN on (which the running value keeps) it is NaN.
def _running_rule(r, op, g):
    with r.b.noting(KINK_NOTE):
        return [r.b.op("running_adjoint", g, op.args[0], **_running(op))]


def _running_tangent(b, op, dargs):
    return b.op("running_tangent", dargs[0], op.args[0], **_running(op)) \
        if dargs[0] is not None else None


def _running(op):
    axis = op.param("axis", 0)  # (None: of a vector only, as NumPy's)
    return {"axis": 0 if axis is None else axis, "minimum": op.prim == "minimum_accumulate"}


def _running_transposed(name):
    def rule(r, op, h):  # (each helper is linear in its first operand, the other's transpose)
        return [r.b.op(name, h, op.args[1], **dict(op.params)), None]
    return rule


for _name in ("maximum", "minimum"):
    define(f"{_name}_accumulate(a; axis=0)", ("np", f"{_name}.accumulate"), like(0),
           reverse=_running_rule, forward=_running_tangent)
define("running_adjoint(g, a; axis=0, minimum=False)", ("helper", "_running_adjoint"), like(1),
       reverse=_running_transposed("running_tangent"), linear=(0,), result=ARRAY)
define("running_tangent(t, a; axis=0, minimum=False)", ("helper", "_running_tangent"), like(1),
       reverse=_running_transposed("running_adjoint"), linear=(0,), result=ARRAY)


# ---- cumulative products: exact where entries are zero --------------------------------------
# out[i] = x[0] ... x[i]. Its gradient is x_bar[i] = before[i] * after[i]: the
# product of the entries before i (the running product shifted by one) times
# sum_{j >= i} g[j] x[i+1] ... x[j], which is a linear recurrence run from the
# end, after[i] = g[i] + x[i+1] after[i+1]. No division: exact at zeros, and
# the recurrence's derivatives are recurrences again (to any order).
def _shifted(b, v, axis, fill, forward=True):
    """``v`` moved one place along ``axis``: forward, ``fill`` first and the
    last entry dropped; backward, the first dropped and ``fill`` last."""
    edge = b.op(fill, b.op("getitem", v, *along(axis, Const(slice(None, 1)))))
    if forward:
        rest = b.op("getitem", v, *along(axis, Const(slice(None, -1))))
        return b.op("concatenate", edge, rest, axis=axis)
    rest = b.op("getitem", v, *along(axis, Const(slice(1, None))))
    return b.op("concatenate", rest, edge, axis=axis)


def _flattened(b, op, x):
    """(the array the running product runs over, its axis): the flattened
    array for axis None, as NumPy does."""
    axis = op.param("axis")
    return (b.op("ravel", x), 0) if axis is None else (x, axis)


def cumprod_rule(r, op, g):
    x = op.args[0]
    work, axis = _flattened(r.b, op, x)
    before = _shifted(r.b, op.target, axis, "ones_like")
    after = r.b.op("recurrence", work, g, axis=axis, reverse=True)
    grad = r.b.mul(before, after)
    if op.param("axis") is None:
        return [r.b.op("reshape", grad, r.b.op("shape", x))]
    return [_like(r, grad, x)]


def cumprod_tangent(b, op, dargs):
    """d out[i] = x[i] d out[i-1] + dx[i] out[i-1]: the recurrence, forward."""
    if dargs[0] is None:
        return None
    work, axis = _flattened(b, op, op.args[0])
    dx = dargs[0] if op.param("axis") is not None else b.op("ravel", dargs[0])
    source = b.mul(dx, _shifted(b, op.target, axis, "ones_like"))
    return b.op("recurrence", work, source, axis=axis)


def recurrence_rule(r, op, h):
    """y = recurrence(a, b): linear in b, whose transpose is the recurrence
    run the other way; d y = the recurrence of (da times y shifted), so a's
    adjoint is y shifted times that transpose (see runtime/order_adjoints.py)."""
    a, b = op.args
    axis, reverse = op.param("axis", -1), op.param("reverse", False)
    back = r.b.op("recurrence", a, h, axis=axis, reverse=not reverse)
    grad_a = None
    if r.wants(a):
        if reverse:
            grad_a = r.b.mul(op.target, _shifted(r.b, back, axis, "zeros_like"))
        else:
            grad_a = r.b.mul(_shifted(r.b, op.target, axis, "zeros_like"), back)
    return [grad_a, back if r.wants(b) else None]


def recurrence_tangent(b, op, dargs):
    a = op.args[0]
    axis, reverse = op.param("axis", -1), op.param("reverse", False)
    da, db = dargs
    source = db
    if da is not None:
        if reverse:
            term = _shifted(b, b.mul(da, op.target), axis, "zeros_like", forward=False)
        else:
            term = b.mul(da, _shifted(b, op.target, axis, "zeros_like"))
        source = b.total([db, term])
    if source is None:
        return None
    return b.op("recurrence", a, source, **dict(op.params))


define("cumprod(a; axis=None, dtype=None)", shape=_cumulative_shape, reverse=cumprod_rule,
       forward=cumprod_tangent, methods=("cumprod",))
define("recurrence(a, b; axis=-1, reverse=False)", ("helper", "_recurrence"), like(1),
       reverse=recurrence_rule, forward=recurrence_tangent, result=ARRAY)


# ---- running log-sum-exp: np.logaddexp.accumulate (a Cox model's log risk sets) ------------
# y[i] = log(exp(a[0]) + ... + exp(a[i])). a_bar[j] = sum_{i >= j} g[i] exp(a[j] - y[i]) =
# exp(a[j] - y[j]) S[j], S run from the end: S[j] = g[j] + exp(y[j] - y[j+1]) S[j+1]; the
# tangent runs forward, t[i] = exp(y[i-1] - y[i]) t[i-1] + exp(a[i] - y[i]) da[i]. No
# exponent is above 0 (y only grows), and a prefix of -inf entries gets factors 0.
def _log_running(b, op):
    """(the recurrence's coefficients exp(y[i-1] - y[i]), the factors exp(a - y), axis)."""
    a, y, axis = op.args[0], op.target, op.param("axis", 0)
    axis = 0 if axis is None else axis
    finite = b.op("where", b.op("equal", y, Const(-np.inf)), Const(0.0), y)  # (-inf - -inf)
    before = b.op("concatenate", b.op("getitem", y, *along(axis, Const(slice(None, 1)))),
                  b.op("getitem", y, *along(axis, Const(slice(None, -1)))), axis=axis)
    return (b.op("exp", b.sub(before, finite)), b.op("exp", b.sub(a, finite)), axis)


def _log_running_rule(r, op, g):
    coefficients, factors, axis = _log_running(r.b, op)
    return [r.b.mul(factors, r.b.op("recurrence", coefficients, g, axis=axis, reverse=True))]


def _log_running_tangent(b, op, dargs):
    if dargs[0] is None:
        return None
    coefficients, factors, axis = _log_running(b, op)
    return b.op("recurrence", coefficients, b.mul(factors, dargs[0]), axis=axis)


define("logaddexp_accumulate(a; axis=0)", ("np", "logaddexp.accumulate"), like(0),
       reverse=_log_running_rule, forward=_log_running_tangent)


# ---- differences ----------------------------------------------------------------------------
def _edge_length(value, axis):
    """How many entries np.diff's ``prepend`` or ``append`` adds along ``axis``."""
    return 0 if value is None else 1 if np.ndim(value) == 0 else np.shape(value)[axis]


def diff_rule(r, op, g):
    """out = c[1:] - c[:-1] (n times), c the array with prepend and append:
    the gradient of each difference is placed at both ends of it."""
    x = op.args[0]
    n, axis = op.param("n", 1), op.param("axis", -1)
    prepend, append = op.param("prepend"), op.param("append")
    whole = x
    if prepend is not None or append is not None:  # (only its shape matters)
        edge = r.b.op("getitem", x, *along(axis, Const(slice(None, 1))))
        parts = [edge if np.ndim(v) == 0 else Const(v) for v in (prepend, append) if v is not None]
        parts.insert(1 if prepend is not None else 0, x)
        whole = r.b.op("concatenate", *parts, axis=axis)
    likes = [whole]
    for _ in range(n - 1):
        likes.append(r.b.op("diff", likes[-1], axis=axis))
    for like_ in reversed(likes):
        later = r.b.op("unindex", g, like_, *along(axis, Const(slice(1, None))))
        earlier = r.b.op("unindex", r.b.neg(g), like_, *along(axis, Const(slice(None, -1))))
        g = r.b.add(later, earlier)
    if whole is not x:
        stop = -_edge_length(append, axis) or None
        g = r.b.op("getitem", g, *along(axis, Const(slice(_edge_length(prepend, axis), stop))))
    return [_like(r, g, x)]


def diff_tangent(b, op, dargs):
    """Linear, but for the values prepended and appended: zeros in the tangent."""
    if dargs[0] is None:
        return None
    params = {k: _zeros(v) if k in ("prepend", "append") and v is not None else v
              for k, v in op.params}
    return b.op("diff", dargs[0], **params)


def _zeros(value):
    """0.0 in place of each number of ``value`` (a number or nested tuples)."""
    return tuple(_zeros(v) for v in value) if isinstance(value, tuple) else 0.0


define("diff(a; n=1, axis=-1, prepend=None, append=None)", reverse=diff_rule,
       forward=diff_tangent, pattern=differenced_pattern)


# ---- the helpers that spread a reduction's gradient --------------------------------------
def unreduce_rule(r, op, g):
    return [r.b.op("sum", g, **_axis(op)) if op.param("axis") is not None or
            op.param("keepdims") else r.b.op("sum", g), None]


def sum_to_rule(r, op, g):
    # _sum_to sums axes ``like`` lacks and spreads ones it has longer (an
    # einsum label of length one elsewhere): its adjoint does the converse
    return [r.b.op("sum_to", g, op.args[0]), None]


define("unreduce(g, like; axis=None, keepdims=False)", ("helper", "_unreduce"), like(1),
       reverse=unreduce_rule, linear=(0,), result=ARRAY, makes_arrays=True)
define("sum_to(a, like)", ("helper", "_sum_to"), like(1), reverse=sum_to_rule, linear=(0,),
       result=SIZED)
