"""Sums written straight into the zeros of an index gradient.

``_unindex(a + b, x, index)`` (slices) becomes ``_unindex_sum(a, b, x,
index)``, which adds ``a`` and ``b`` into the zeros in place: the sum is read
only there, so neither an array for it nor a copy of it is made.
"""
from __future__ import annotations

from ..ir.nodes import Const, Op, blocks, use_counts, walk


def sums_in_place(fn, builder=None):
    """``_unindex(a + b, x, index)`` (slices) as ``_unindex_sum(a, b, x, index)``,
    which adds a and b straight into the zeros: the sum is read only there,
    so neither an array for it nor a copy of it is made."""
    counts = use_counts(fn)
    for block in [fn.body] + [b for s in walk(fn.body) for b in blocks(s)]:
        defs = {s.target: s for s in block if isinstance(s, Op)}
        merged = set()
        for i, op in enumerate(block):
            total = defs.get(op.args[0]) if isinstance(op, Op) \
                and op.prim == "unindex" else None
            if total is not None and total.prim == "add" and counts.get(total.target) == 1 \
                    and all(isinstance(p, Const) and isinstance(p.value, slice)
                            for p in op.args[2:]):
                block[i] = Op(op.target, "unindex_sum", total.args + op.args[1:], op.params,
                              op.loc, op.note, op.backward)
                merged.add(total.target)
        block[:] = [s for s in block if not isinstance(s, Op) or s.target not in merged]
    return fn
