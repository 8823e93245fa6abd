"""Values a loop computes the same in every iteration, computed before it.

``h @ W.T`` in a loop's body transposes ``W`` in every iteration; moved
before the loop, ``W.T`` is one value the loop reads, so the reverse pass
gathers its gradient over the iterations (one product after the loop, as for
``W @ h``) instead of transposing a gradient in each. In a loop that may run
no iteration, only operations that cannot fail move (transposes, arithmetic
of Python floats): it computes them once more than the user's code, and
nothing else changes. A loop that surely runs (``range`` of constant bounds,
not empty, no ``break``) computes the arithmetic of arrays and numbers (of
known dtypes: never a list the loop may change) that is the same in every
iteration once, before it (``dt * g / L``, ``lr * X.T``, ``len(y)``): no tape
saves it, and its gradient is gathered over the iterations.

Run on the function as lowered, before it is differentiated.
"""
from __future__ import annotations

import numpy as np

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
    moved, runs = [], facts is not None and _surely_runs(loop)
    for stmt in list(loop.body):
        if isinstance(stmt, Op) and (_movable(stmt, facts) or runs and _pure(stmt, facts)) \
                and not stmt.effect and \
                not any(isinstance(a, Var) and a in inside for a in stmt.args):
            loop.body.remove(stmt)
            inside.discard(stmt.target)
            moved.append(stmt)
    return moved


def _surely_runs(loop):
    """Whether ``loop`` runs its body's first statements at least once: a
    ``range`` of constant bounds, not empty, with no ``break``. Then whatever
    its body computes from values before it may be computed once, before it
    (``dt * g / L`` of an Euler step, ``len(y)``, ``lr * X.T``): the same
    values, and an error they raise is raised in the first iteration anyway."""
    bounds = [b.value if isinstance(b, Const) else b for b in loop.bounds]
    exit = loop.exit.value if isinstance(loop.exit, Const) else loop.exit
    if loop.kind != "range" or exit not in (None, False) or not bounds or \
            not all(type(b) is int for b in bounds):
        return False
    try:
        return len(range(*bounds)) > 0
    except ValueError:  # (a step of 0)
        return False


# what a loop that surely runs may compute once before it: arithmetic and
# products of arrays and numbers (never of a list or dict, which the loop may change)
_PURE = frozenset({"add", "subtract", "multiply", "divide", "negative", "power", "matmul",
                   "dot", "len", "sqrt", "exp", "log"})


def _pure(op, facts):
    return op.prim in _PURE and not op.math and all(
        _float(a, facts) if isinstance(a, Const) else _array_or_number(a, facts)
        for a in op.args)


def _array_or_number(atom, facts):
    """A NumPy array of known rank, or a Python number (never a list)."""
    dtype = facts.dtype(atom)
    return dtype in (float, int) or isinstance(dtype, np.dtype) and facts.rank(atom) is not None


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
