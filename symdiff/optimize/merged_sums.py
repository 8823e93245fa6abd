"""Two whole sums of a gradient added up, as one sum of the two values.

A parameter read in several places (``delta`` in ``d * (a - 0.5 * d)``)
gets one contribution per place, each summed over the array, then added:
``np.where(m, 0.0, a - 0.5 * d).sum() + np.where(m, 0.0, -0.5 * d).sum()``.
Summed once, the two are one elementwise expression, which the algebra
(algebra.py, the next pass) puts in normal form: ``np.where(m, 0.0, a -
d).sum()``, one pass over the array where there were two, and the terms a
careful person would have added before summing. Sums over the same axes
(``t_bar.sum(axis=0) - t_3.sum(axis=0)``, a mean's gradient) too: of values
of one shape and dtype, that nothing else reads.
"""
from __future__ import annotations

import numpy as np

from ..ir.nodes import Op, Var
from .direct_forms import rewrite, substitute
from .reads import all_blocks, live_counts


def merged_sums(fn, builder):
    facts = builder.facts
    if not facts.signature:
        return fn
    counts, _ = live_counts(fn)
    subst = {}
    for block in all_blocks(fn.body):
        defs = {s.target: s for s in block if isinstance(s, Op)}
        new = []
        for stmt in block:
            parts = _parts(stmt, defs, counts, facts) if isinstance(stmt, Op) else None
            made = rewrite(stmt, builder, _merged(parts), subst) if parts else None
            new += made if made is not None else [stmt]
        block[:] = new
    if subst:
        substitute(fn.body, subst)
    return fn


def _parts(op, defs, counts, facts):
    """The summed values of ``op = sum(x) ± sum(y)``, or None."""
    if not op.backward or op.effect or op.prim not in ("add", "subtract"):
        return None
    sums, signs = [], []
    for a in op.args:  # (a sum, or minus one: a mean's gradient, -t_bar.sum(axis=0))
        made = defs.get(a) if isinstance(a, Var) else None
        negated = made is not None and made.prim == "negative" and made.backward and \
            isinstance(made.args[0], Var) and counts.get(made.target) == 1
        sums.append(defs.get(made.args[0]) if negated else made)
        signs.append(negated)
    if not all(s is not None and s.prim == "sum" and s.backward and not s.effect
               and s.param("dtype") is None and counts.get(s.target) == 1 for s in sums) \
            or sums[0].params != sums[1].params:
        return None
    x, y = (s.args[0] for s in sums)
    dtype = facts.dtype(x)
    if not isinstance(dtype, np.dtype) or dtype.kind != "f" or facts.dtype(y) != dtype or \
            not facts.same_shape(x, y):
        return None
    return x, y, signs, dict(sums[0].params)


def _merged(parts):
    def lower(b, op, facts):
        x, y, signs, params = parts
        x, y = (b.neg(v) if negated else v for v, negated in zip((x, y), signs))
        both = (b.add if op.prim == "add" else b.sub)(x, y)
        return b.op("sum", both, hint=op.target.hint, **params)
    return lower
