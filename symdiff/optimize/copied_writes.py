"""A write whose old array is still read: a copy, then the write.

writes_in_place.py writes ``t = setitem(a, v, index)`` as ``a[index] = v``
where nothing reads the old ``a`` after it. Where something does (a
contrastive loss's ``np.fill_diagonal(S, -np.inf)`` with ``S`` read again by
the gradient), the write makes a new array: for an array of known rank that
is ``t = a.copy()`` then ``t[index] = v``, as a careful person writes it, not
a helper a reader must look up (``_setitem``, which also takes numbers).
"""
from __future__ import annotations

from ..ir.nodes import Op, Var
from .reads import all_blocks


def copied_writes(fn, builder):
    facts = builder.facts
    for stmts in all_blocks(fn.body):
        for k in range(len(stmts) - 1, -1, -1):
            op = stmts[k]
            if not (isinstance(op, Op) and op.prim == "setitem") or \
                    not isinstance(op.args[0], Var) or not facts.rank(op.args[0]):
                continue
            copy = Op(Var(op.target.hint), "snapshot", (op.args[0],), loc=op.loc,
                      backward=op.backward)
            facts.record(copy)
            facts.shape[copy.target] = facts.key(op.args[0])
            op.prim = "assign"
            op.args = (copy.target,) + op.args[1:]
            stmts.insert(k, copy)
    return fn
