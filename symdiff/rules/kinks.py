"""Rules for functions with kinks and choices: maximum, minimum, clip, where.

Kink policy (the same for every spelling): where two operands tie, the
gradient is split evenly between them; at the corner of a norm (abs, hypot,
linalg.norm at zero) the gradient is 0. `where` has no kink of its own: it
follows its condition literally, so ``where(x > 0, x, 0)`` gives 0 at 0.
"""
from __future__ import annotations

from ..ir import Const
from .arrays import KINK_NOTE


def where_rule(r, op, g):
    """``a`` gets g where cond holds, ``b`` elsewhere. A guarded branch gets g
    whole: its mask is applied where the gradient leaves it (masks.py)."""
    cond, a, b = op.args
    grads = [None, None, None]
    for i, (branch, picked) in enumerate(((a, (g, Const(0.0))), (b, (Const(0.0), g))), 1):
        if r.wants(branch):
            whole = r.branch_gradient(op.target, branch, g)
            grads[i] = whole if whole is not None else \
                r.unbroadcast(r.b.op("where", cond, *picked, hint=branch.hint + "_bar"), branch)
    return grads


def _share(r, winner, loser, g):
    """g where ``winner`` strictly wins, g / 2 where it ties with ``loser``."""
    wins = r.b.op("greater", winner, loser)
    ties = r.b.op("equal", winner, loser)
    weight = r.b.add(wins, r.b.mul(Const(0.5), ties), hint="weight")
    return r.b.mul(g, weight)


def maximum_rule(r, op, g):
    a, b = op.args
    with r.b.noting(KINK_NOTE):
        return [r.unbroadcast(_share(r, a, b, g), a) if r.wants(a) else None,
                r.unbroadcast(_share(r, b, a, g), b) if r.wants(b) else None]


def minimum_rule(r, op, g):
    a, b = op.args
    with r.b.noting(KINK_NOTE):
        return [r.unbroadcast(_share(r, r.b.neg(a), r.b.neg(b), g), a) if r.wants(a) else None,
                r.unbroadcast(_share(r, r.b.neg(b), r.b.neg(a), g), b) if r.wants(b) else None]


def clip_rule(r, op, g):
    """clip(a, lo, hi) = minimum(maximum(a, lo), hi), with the same tie policy."""
    a, lo, hi = op.args
    grads = [None, None, None]
    with r.b.noting(KINK_NOTE):
        inner = g
        if not _is_none(hi):
            low = a if _is_none(lo) else r.b.op("maximum", a, lo)
            inner = _share(r, r.b.neg(low), r.b.neg(hi), g)
            if r.wants(hi):
                grads[2] = r.unbroadcast(_share(r, r.b.neg(hi), r.b.neg(low), g), hi)
        if not _is_none(lo):
            if r.wants(lo):
                grads[1] = r.unbroadcast(_share(r, lo, a, inner), lo)
            inner = _share(r, a, lo, inner)
        grads[0] = r.unbroadcast(inner, a) if r.wants(a) else None
    return grads


def hypot_rule(r, op, g):
    """d hypot(a, b) = (a, b) / out; at the origin (a kink, as for abs and norm) 0."""
    with r.b.noting("at (0, 0) hypot has a kink: its gradient there is 0"):
        positive = r.b.op("greater", op.target, Const(0.0), hint="nonzero")
        safe = r.b.op("where", positive, op.target, Const(1.0), hint="safe_hypot")
        return [r.unbroadcast(r.b.mul(g, r.b.div(x, safe)), x) if r.wants(x) else None
                for x in op.args]


def _is_none(atom):
    return isinstance(atom, Const) and atom.value is None
