"""Values a loop computes the same in every iteration, computed before it.

``h @ W.T`` in a loop's body transposes ``W`` in every iteration; moved
before the loop, ``W.T`` is one value the loop reads, so the reverse pass
gathers its gradient over the iterations (one product after the loop, as for
``W @ h``) instead of transposing a gradient in each. Only operations that
cannot fail move (transposes): a loop that runs no iteration computes them
once more than the user's code, and nothing else changes.

Run on the function as lowered, before it is differentiated.
"""
from __future__ import annotations

from ..ir.nodes import Loop, Op, Var, blocks, walk

_MOVABLE = frozenset({"T", "matrix_transpose", "transpose"})


def hoist_invariants(fn):
    _block(fn.body)
    return fn


def _block(stmts):
    i = 0
    while i < len(stmts):
        stmt = stmts[i]
        for block in blocks(stmt):
            _block(block)
        if isinstance(stmt, Loop):
            moved = _invariants(stmt)
            stmts[i:i] = moved
            i += len(moved)
        i += 1


def _invariants(loop):
    """The movable operations of ``loop``'s body that read nothing it defines,
    taken out of the body (in order)."""
    inside = {c.param for c in loop.carried} | {v for t in loop.reads for v in t.items}
    if loop.index is not None:
        inside.add(loop.index)
    for stmt in walk(loop.cond_block + loop.body):
        if isinstance(stmt, Op):
            inside.add(stmt.target)
        inside.update(m.target for m in getattr(stmt, "merges", ()))
        inside.update(c.param for c in getattr(stmt, "carried", ()))
        inside.update(c.out for c in getattr(stmt, "carried", ()))
    moved = []
    for stmt in list(loop.body):
        if isinstance(stmt, Op) and stmt.prim in _MOVABLE and not stmt.effect and \
                not any(isinstance(a, Var) and a in inside for a in stmt.args):
            loop.body.remove(stmt)
            inside.discard(stmt.target)
            moved.append(stmt)
    return moved
