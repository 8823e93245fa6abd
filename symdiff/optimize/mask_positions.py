"""Boolean masks of one axis as the positions they pick: ``x[m]`` as ``x[p]``.

NumPy reads ``x[m]``, and writes ``g_full[m] = g``, element by element with a
branch on each entry of the mask, which the CPU mispredicts when the mask is
irregular: about 4 ms per 10^6 entries for each gather or scatter, several
times the arithmetic around them. ``p = m.nonzero()[0]`` costs one such pass
(without the branch), and indexing with ``p`` then picks the same entries in
the same order for a fraction of it: NumPy defines ``x[m]`` as
``x[m.nonzero()]``. The positions are found once per mask (common
subexpressions merge them) and serve the forward gather and the backward
scatter alike; positions never repeat, so the scatter is a plain assignment.

Only in a gradient specialised for NumPy arrays (the mask's number of axes
known to be one: ``m.nonzero()[0]`` is all of its positions) and only for the
index of a read (``getitem``) or of a gradient placed back (``unindex``).
"""
from __future__ import annotations

from ..ir.nodes import Op, blocks, walk
from ..ir.patterns import N
from ..rules.positions import is_index_array, is_mask

# primitive -> where its index starts among the operands
_INDEXED = {"getitem": 1, "unindex": 2, "unindex_add": 2, "unindex_sum": 3}


def mask_positions(fn, builder):
    facts = builder.facts
    if not facts.signature or any(sig.kind == "array" and sig.library != "numpy"
                                  for sig in facts.kinds.values()):
        return fn
    for block in [fn.body] + [b for s in walk(fn.body) for b in blocks(s)]:
        new = []
        for stmt in block:
            if isinstance(stmt, Op) and stmt.prim in _INDEXED:
                new += _positions_for(stmt, builder)
            new.append(stmt)
        block[:] = new
    return fn


def _positions_for(op, builder):
    """The operations finding the positions of the one-axis masks in ``op``'s
    index (each right before ``op``), with ``op`` changed to read them."""
    start = _INDEXED[op.prim]
    made, args = [], list(op.args)
    for i in range(start, len(args)):
        part = args[i]
        if is_mask(builder.facts, part) and _fits(builder.facts, op, start, i):
            with builder.block() as stmts, builder.at(op.loc):
                args[i] = builder.op("mask_positions", part, hint=part.hint + "_at")
            for stmt in stmts:
                stmt.backward = op.backward
            made += stmts
    if made:
        op.args = tuple(args)
        if op.prim == "unindex_add" and all(
                not is_index_array(builder.facts, a) for a in args[start:]):
            op.prim = "unindex"  # no position repeats: placed, not added up
    return made


def _fits(facts, op, start, i):
    """Whether the mask ``op.args[i]`` has one axis, provably as long as the
    axis of the array it indexes (else NumPy raises, and positions would not)."""
    mask = facts.pattern(op.args[i])
    if mask is None or len(mask) != 1 or mask[0] in (None, N):
        return False
    before = [getattr(p, "value", p) for p in op.args[start:i]]
    if any(p is Ellipsis for p in before):
        return False
    axis = sum(1 for p in before if p is not None)
    base = facts.pattern(op.args[0] if op.prim == "getitem" else op.args[start - 1])
    return base is not None and axis < len(base) and base[axis] == mask[0]
