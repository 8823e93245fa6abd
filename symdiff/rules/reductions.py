"""Reductions and cumulative operations: sum, mean, prod, max, min, cumsum.

Their adjoints spread a gradient back over the reduced axes; the helpers that
do it in generated code (``_unreduce``, ``_sum_to``, ``_prod_others``) are
primitives too, with rules of their own, so gradients differentiate again.
"""
from __future__ import annotations

from ..ir.nodes import Const
from ..ir.primitive import ARRAY, REDUCTION, SIZED, define, like
from .kinks import KINK_NOTE


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


# ---- cumulative sums -----------------------------------------------------------------------
def cumsum_rule(r, op, g):
    """The adjoint of a running sum is the running sum from the other end."""
    x, axis = op.args[0], op.param("axis")
    if axis is None:  # (NumPy sums the flattened array)
        backward = r.b.op("flip", r.b.op("cumsum", r.b.op("flip", g)))
        return [r.b.op("reshape", backward, r.b.op("shape", x))]
    return [r.b.op("flip", r.b.op("cumsum", r.b.op("flip", g, axis=axis), axis=axis),
                   axis=axis)]


def _cumulative_shape(op, facts):
    return facts.key(op.args[0]) if op.param("axis") is not None else op.target


define("cumsum(a; axis=None)", shape=_cumulative_shape, reverse=cumsum_rule, linear=(0,),
       methods=("cumsum",))


# ---- the helpers that spread a reduction's gradient --------------------------------------
def unreduce_rule(r, op, g):
    return [r.b.op("sum", g, **_axis(op)) if op.param("axis") is not None or
            op.param("keepdims") else r.b.op("sum", g), None]


def sum_to_rule(r, op, g):
    return [r.b.op("unreduce", g, op.args[0]), None]


define("unreduce(g, like; axis=None, keepdims=False)", ("helper", "_unreduce"), like(1),
       reverse=unreduce_rule, linear=(0,), result=ARRAY, makes_arrays=True)
define("sum_to(a, like)", ("helper", "_sum_to"), like(1), reverse=sum_to_rule, linear=(0,),
       result=SIZED)
