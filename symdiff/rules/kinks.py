"""Rules for functions with kinks and choices: maximum, minimum, clip, where.

Kink policy (the same for every spelling): where two operands tie, the
gradient is split evenly between them; at the corner of a norm (abs, hypot,
linalg.norm at zero) the gradient is 0. `where` has no kink of its own: it
follows its condition literally, so ``where(x > 0, x, 0)`` gives 0 at 0.

An operand's share is the step ``np.heaviside(a - b, 0.5)``: 1, 1/2 or 0,
in the operands' precision, and NaN where one is NaN (maximum propagates NaN,
so does its gradient). fmax and fmin ignore a NaN operand: the other one gets
the whole gradient.
"""
from __future__ import annotations

import numpy as np

from ..ir.nodes import Const, const_value
from ..ir.primitive import ARRAY, ELEMENTWISE, NEW, Formula, define

KINK_NOTE = "kink policy: ties split the gradient evenly"

# Below this size, ``x - c`` cannot overflow where x does not (in float32 or
# wider), so the step against the constant c is written out.
_SMALL = 1e30


def never_picked(op):
    """The operand (1 or 2) a `where` on a constant condition never picks
    (``np.where(True, a, b)``: b), or None. It gets no gradient at all."""
    if op.prim != "where" or not isinstance(op.args[0], Const) \
            or type(op.args[0].value) not in (bool, np.bool_):
        return None
    return 2 if op.args[0].value else 1


def where_rule(r, op, g):
    """``a`` gets g where cond holds, ``b`` elsewhere. A guarded branch gets g
    whole: its mask is applied where the gradient leaves it (masks.py)."""
    cond, a, b = op.args
    grads = [None, None, None]
    for i, (branch, picked) in enumerate(((a, (g, Const(0.0))), (b, (Const(0.0), g))), 1):
        if r.wants(branch) and i != never_picked(op):
            whole = r.branch_gradient(op.target, branch, g)
            grads[i] = whole if whole is not None else \
                r.unbroadcast(r.b.op("where", cond, *picked, hint=branch.hint + "_bar"), branch)
    return grads


def step(b, a, c):
    """``a``'s share of the gradient of maximum(a, c): ``np.heaviside(a - c,
    0.5)``, one pass (``0.5 + 0.5 * sign(a - c)``, NaN alike)."""
    diff = _difference(b, a, c)
    if diff is None:  # no small constant: a - c may overflow, or be inf - inf
        return b.op("step", a, c, hint="share")
    return b.op("heaviside", diff, Const(0.5), hint="share")


def _difference(b, a, c):
    """``a - c`` when one of them is a constant it cannot overflow with, else None."""
    ca, cc = const_value(a), const_value(c)
    if ca is None and cc is not None and abs(cc) < _SMALL:
        return b.add(a, Const(-cc)) if cc < 0 else b.sub(a, c)
    if cc is None and ca is not None and abs(ca) < _SMALL:
        return b.sub(a, c)
    return None


def share(b, prim, x, y):
    """``x``'s share of the gradient of ``prim(x, y)``: maximum, minimum, fmax, fmin."""
    larger = prim in ("maximum", "fmax")
    part = step(b, x, y) if larger else step(b, y, x)
    if prim in ("fmax", "fmin"):
        part = _nan_ignored(b, part, x, y)
    return part


def _nan_ignored(b, part, x, y):
    """``part``, except that where exactly one operand is NaN the other one
    wins: x gets 1 where y alone is NaN, 0 where x alone is."""
    if _number(y):
        return b.op("where", b.op("isnan", x), Const(0.0), part, hint="share")
    y_nan = b.op("isnan", y)
    if _number(x):
        return b.op("where", y_nan, Const(1.0), part, hint="share")
    alone = b.op("not_equal", b.op("isnan", x), y_nan, hint="one_nan")
    return b.op("where", alone, y_nan, part, hint="share")


def maximum_rule(r, op, g):
    """maximum, minimum, fmax and fmin."""
    a, b = op.args
    with r.b.noting(KINK_NOTE):
        return [r.unbroadcast(r.b.mul(g, share(r.b, op.prim, x, other)), x)
                if r.wants(x) else None for x, other in ((a, b), (b, a))]


def clip_shares(b, a, lo, hi, wanted):
    """The shares of ``clip(a, lo, hi) = minimum(maximum(a, lo), hi)`` of
    each operand in ``wanted`` (None for the others, and a missing bound)."""
    has_lo, has_hi = not _is_none(lo), not _is_none(hi)
    shares = [None, None, None]
    if wanted[0]:  # a's: 1 strictly between the bounds, 1/2 at one
        shares[0] = _between(b, a, lo, hi) if has_lo and has_hi else \
            step(b, a, lo) if has_lo else step(b, hi, a) if has_hi else Const(1.0)
    low = b.op("maximum", a, lo) if has_lo and has_hi and (wanted[1] or wanted[2]) else a
    if wanted[1] and has_lo:
        shares[1] = step(b, lo, a)
        if has_hi:
            shares[1] = b.mul(shares[1], step(b, hi, low), hint="share")
    if wanted[2] and has_hi:
        shares[2] = step(b, low, hi)
    return shares


def _between(b, a, lo, hi):
    """``a``'s share of clip(a, lo, hi): between constants lo < hi it is
    ``heaviside(a - lo, 0.5) - heaviside(a - hi, 0.5)``; else a product of
    two steps."""
    below, above = _difference(b, a, lo), _difference(b, a, hi)
    if below is not None and above is not None and const_value(lo) < const_value(hi):
        return b.sub(b.op("heaviside", below, Const(0.5)),
                     b.op("heaviside", above, Const(0.5)), hint="share")
    return b.mul(step(b, a, lo), step(b, hi, a), hint="share")


def clip_rule(r, op, g):
    wanted = [r.wants(x) for x in op.args]
    with r.b.noting(KINK_NOTE):
        shares = clip_shares(r.b, *op.args, wanted)
        return [r.unbroadcast(r.b.mul(g, s), x) if s is not None else None
                for x, s in zip(op.args, shares)]


def hypot_rule(r, op, g):
    """d hypot(a, b) = (a, b) / out; at the origin (a kink, as for abs and norm) 0."""
    with r.b.noting("at (0, 0) hypot has a kink: its gradient there is 0"):
        # != rather than >: a NaN result keeps its NaN gradient
        nonzero = r.b.op("not_equal", op.target, Const(0.0), hint="nonzero")
        safe = r.b.op("where", nonzero, op.target, Const(1.0), hint="safe_hypot")
        return [r.unbroadcast(r.b.mul(g, r.b.div(x, safe)), x) if r.wants(x) else None
                for x in op.args]


# ---- forward mode ------------------------------------------------------------------------
def where_tangent(b, op, dargs):
    cond, x, y = op.args
    _, dx, dy = dargs
    if dx is None and dy is None:
        return None
    return b.op("where", cond, dx if dx is not None else Const(0.0),
                dy if dy is not None else Const(0.0))


def maximum_tangent(b, op, dargs):
    """maximum, minimum, fmax, fmin: each tangent times its operand's share."""
    x, y = op.args
    return b.total([b.mul(d, share(b, op.prim, p, q))
                    for d, p, q in ((dargs[0], x, y), (dargs[1], y, x)) if d is not None])


def clip_tangent(b, op, dargs):
    shares = clip_shares(b, *op.args, [d is not None for d in dargs])
    return b.total([b.mul(d, s) for d, s in zip(dargs, shares) if d is not None and s is not None])


def hypot_tangent(b, op, dargs):
    """d hypot(a, b) = (a da + b db) / out; 0 at the origin (a kink, as in reverse)."""
    positive = b.op("greater", op.target, Const(0.0), hint="nonzero")
    safe = b.op("where", positive, op.target, Const(1.0), hint="safe_hypot")
    return b.total([b.mul(d, b.div(x, safe)) for x, d in zip(op.args, dargs) if d is not None])


def _number(atom):
    """A constant that is not NaN."""
    value = const_value(atom)
    return value is not None and value == value


def _is_none(atom):
    return isinstance(atom, Const) and atom.value is None


# ---- the records ---------------------------------------------------------------------------
define("where(condition, a, b)", shape=ELEMENTWISE, reverse=where_rule, forward=where_tangent,
       makes_arrays=True)
for _name in ("maximum", "minimum", "fmax", "fmin"):
    define(f"{_name}(a, b)", shape=ELEMENTWISE, reverse=maximum_rule, forward=maximum_tangent)
define("clip(a, a_min, a_max)", shape=ELEMENTWISE, reverse=clip_rule, forward=clip_tangent,
       methods=("clip",))
define("hypot(a, b)", shape=ELEMENTWISE, formula=Formula("sqrt(a ** 2 + b ** 2)",
                                                         safe=(1.0, 1.0)),
       reverse=hypot_rule, forward=hypot_tangent, math=("hypot",))
# the shares of generated code: piecewise constant (see runtime/helpers.py)
define("step(a, b)", ("helper", "_step"), ELEMENTWISE, zero=True)
define("ties(hits, like; axis=None)", ("helper", "_ties"), NEW, zero=True, result=ARRAY)
