"""How generated code writes a sum into an array nothing else holds.

``acc = acc + g`` of a gradient accumulated over a loop is written ``acc +=
g``, and the sum of two index gradients of the same array (from ``x[:-1]``
and ``x[1:]``) is one buffer written twice: ``x_bar = _unindex(g1, x, i1)``
then ``x_bar[i2] += g2``, instead of two zero-filled arrays and a third for
the sum.
"""
from __future__ import annotations

from ..ir.nodes import Loop, Op, blocks, walk

_BUFFERS = {"unindex": 1, "unindex_add": 1, "unindex_sum": 2}  # -> like's position
_PLACED = ("unindex",)  # `x_bar[i] += g` adds g once to a repeated position


def accumulations(stmts, counts, placing=True):
    """Updates ``acc = acc + g`` of in-place carries, written ``acc += g``: the
    array is fresh and nothing else holds it, so no new array per iteration.
    Maps the update to the `_unindex` that ``g`` is, if it is one made for the
    sum only (then ``acc[i] += part``: no zero-filled array per iteration;
    ``placing`` code only: generic code is read back, and written so), else
    to None."""
    found = {}
    for stmt in walk(stmts):
        if isinstance(stmt, Loop):
            defs = {s.target: s for s in stmt.body if isinstance(s, Op)}
            for carry in stmt.carried:
                op = defs.get(carry.update)
                if carry.inplace and op is not None and op.prim == "add" \
                        and op.args[0] is carry.param and counts.get(carry.param) == 1 \
                        and counts.get(carry.update) == 1 and counts.get(carry.init) == 1:
                    placed = defs.get(op.args[1])
                    found[op.target] = placed if placing and placed is not None and \
                        placed.prim in ("unindex", "unindex_add") and \
                        counts.get(placed.target) == 1 else None
    return found


def scatters(stmts, counts):
    """``add`` target -> (buffer, placed): ``buffer`` is a fresh array of the
    shape of ``x`` (an `_unindex`, or another such sum) and ``placed`` the
    `_unindex` op of ``x`` to add into it in place. Both are read only by the
    sum and made in its block, so the sum may take over the buffer."""
    found = {}
    for block in [stmts] + [b for s in walk(stmts) for b in blocks(s)]:
        defs = {s.target: s for s in block if isinstance(s, Op)}
        like = {}   # fresh buffer -> the array whose shape it has
        for op in block:
            if not isinstance(op, Op):
                continue
            if op.prim in _BUFFERS:
                like[op.target] = op.args[_BUFFERS[op.prim]]
            elif op.prim == "add" and all(counts.get(a) == 1 for a in op.args):
                for buffer, other in (op.args, op.args[::-1]):
                    placed = defs.get(other)
                    if buffer in like and placed is not None and placed.prim in _PLACED \
                            and placed.args[1] is like[buffer]:
                        found[op.target] = (buffer, placed)
                        like[op.target] = like[buffer]
                        break
    return found
