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

from ..ir.nodes import Const, Loop, Op, Var, blocks, walk

_MOVABLE = frozenset({"T", "matrix_transpose", "transpose"})
# ... and, of Python floats (a specialised gradient's facts know them), the
# operations that cannot fail: ``-k`` in an Euler step, saved on the tape in
# every iteration otherwise. (Not a division, which may divide by zero.)
_NUMBER_OPS = frozenset({"add", "subtract", "multiply", "negative"})


def hoist_invariants(fn, facts=None):
    _block(fn.body, facts)
    return fn


def _block(stmts, facts):
    i = 0
    while i < len(stmts):
        stmt = stmts[i]
        for block in blocks(stmt):
            _block(block, facts)
        if isinstance(stmt, Loop):
            moved = _invariants(stmt, facts)
            stmts[i:i] = moved
            i += len(moved)
        i += 1


def _invariants(loop, facts):
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
        if isinstance(stmt, Op) and _movable(stmt, facts) and not stmt.effect and \
                not any(isinstance(a, Var) and a in inside for a in stmt.args):
            loop.body.remove(stmt)
            inside.discard(stmt.target)
            moved.append(stmt)
    return moved


def _movable(op, facts):
    if op.prim in _MOVABLE:
        return True
    return facts is not None and op.prim in _NUMBER_OPS and \
        all(_float(a, facts) for a in op.args)


def _float(atom, facts):
    """A Python float, or a constant that becomes one exactly."""
    if isinstance(atom, Const):
        value = atom.value
        return type(value) is float or type(value) is int and abs(value) < 2 ** 53
    return facts.dtype(atom) is float
