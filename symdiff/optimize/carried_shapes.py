"""Arrays a loop writes into, read back only for their shape: not saved.

    c = np.zeros(T)
    for t in range(1, T):
        c[t] = alpha[t].sum()
        alpha[t] /= c[t]              # its reverse: _unindex(g, c, t)

The reverse loop reads ``c`` only for its shape and dtype (``np.zeros_like(c)``,
``_unindex(g, c, t)``), which are the same in every iteration: the loop
writes into it, never makes another. Saving it appended the one array,
changed in place, to the tape in every iteration (which the second
derivative, reading that code, refuses: a list of views of an array written
into); the reverse loop reads the array the forward loop leaves instead.
"""
from __future__ import annotations

from ..ir.nodes import Loop, Op, Var, walk
from ..ir.storage import SHAPE_ONLY
from .direct_forms import substitute
from .reads import statement_atoms

_WRITES = ("setitem", "assign", "add_into", "add_at")


def carried_shapes(fn, builder):
    forward = {tape.var: (loop, tape) for loop in fn.body if isinstance(loop, Loop)
               for tape in loop.writes}
    for loop in fn.body:
        if not isinstance(loop, Loop):
            continue
        for tape in loop.reads:
            if tape.var in forward:
                _read_after(loop, tape, *forward[tape.var])
    return fn


def _read_after(reverse, read, loop, saved):
    """Drop the saved items of ``saved`` that ``reverse`` reads for their shape
    only and that are a carried array of ``loop``; read its value after ``loop``."""
    if len(read.items) != len(saved.items):
        return
    chains = _written_carries(loop)
    shaped = _shape_only(reverse)
    subst, items, loads = {}, [], []
    for load, item in zip(read.items, saved.items):
        carry = chains.get(item)
        if carry is not None and load in shaped:
            subst[load] = carry.out
        else:
            items.append(item)
            loads.append(load)
    if subst and items:  # (a tape keeps one item at least: it counts the iterations)
        saved.items[:], read.items[:] = items, loads
        substitute(reverse.body, subst)
        substitute(reverse.cond_block, subst)


def _written_carries(loop):
    """The values of each carried array ``loop`` only writes into (from its
    start to what it hands on): value -> its `Carry`."""
    found = {}
    for carry in loop.carried:
        chain = {carry.param}
        for stmt in walk(loop.body):
            if isinstance(stmt, Op) and stmt.prim in _WRITES and stmt.args[0] in chain:
                chain.add(stmt.target)
        if carry.update in chain and carry.update is not carry.param:
            found.update((v, carry) for v in chain)
    return found


def _shape_only(loop):
    """The values ``loop`` reads, in its body, only for their shape and dtype."""
    shape, value = set(), set()
    for stmt in walk(loop.body):
        if isinstance(stmt, Op):
            for i, a in enumerate(stmt.args):
                if isinstance(a, Var):
                    (shape if (stmt.prim, i) in SHAPE_ONLY else value).add(a)
        else:
            value.update(statement_atoms(stmt))
    value.update(c.update for c in loop.carried if isinstance(c.update, Var))
    value.update(v for tape in loop.writes for v in tape.items)
    return shape - value
