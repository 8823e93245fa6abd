"""The shape of an array that loops only write into is the shape it began with.

A finite-element assembly writes ``K[e + a, e + b] += k[e] * s`` in nested
loops. Each write makes a new value of ``K`` (a copy, where the old one is
read after it), and the reverse loops read ``K`` for its shape alone
(``_assigned(g, K.shape, ...)``); to give them that shape, the reverse pass
computed every write again, copying the n x n matrix for each entry: n^3
work for a gradient of n terms. A write into an array, a copy, a loop's
carried value whose updates are writes into it, an item saved on a tape and
read back: each has the shape and dtype of what it came from. A read for the
shape alone reads where the chain begins (``K = np.zeros((n, n))``, made
before every loop), and what only fed the chain is not computed.
"""
from __future__ import annotations

from ..ir.nodes import Loop, Op, Var, walk
from ..ir.storage import shape_only
from .dead_code import _atoms as result_atoms
from .reads import statement_atoms

_SAME_SHAPE = ("setitem", "assign", "add_into", "add_at", "copy", "snapshot")


def shape_origins(fn, builder):
    came_from = _sources(fn)
    if not came_from:
        return fn
    _known(builder.facts, came_from)
    # (values of the top level are there anyway: only a value made inside a
    # loop, which a reverse loop would make again or save, is read from its start)
    top = {s.target for s in fn.body if isinstance(s, Op)} | set(fn.params) | {
        c.out for s in fn.body if isinstance(s, Loop) for c in s.carried}
    # a start a loop of the top level carries: after that loop, what it leaves,
    # where something reads that anyway (the same array, where the loop writes
    # into it in place: one name, not the start's and the end's)
    read = _value_reads(fn)
    left = {c.init: (at, c.out) for at, s in enumerate(fn.body) if isinstance(s, Loop)
            for c in s.carried if came_from.get(c.param) is c.init and c.out in read}
    for at, stmt in enumerate(fn.body):
        for op in walk([stmt]):
            if not isinstance(op, Op):
                continue
            args = list(op.args)
            for i, a in enumerate(args):
                if isinstance(a, Var) and shape_only(op.prim, i) and a not in top:
                    root = _start(a, came_from, left, at)
                    if root is not a and root in top:
                        args[i] = root
            op.args = tuple(args)
    return fn  # (what only fed a chain goes with the dead code, after the merges)


def _start(var, came_from, left, at):
    """Where ``var``'s chain starts, or the last value a loop before the
    statement at ``at`` leaves of it."""
    seen = set()
    while var not in seen:
        seen.add(var)
        if var in left and left[var][0] < at:
            var = left[var][1]
            while var in left and left[var][0] < at:  # (loops one after another)
                var = left[var][1]
            return var
        if var not in came_from:
            return var
        var = came_from[var]
    return var


def _value_reads(fn):
    """The values some operation reads for more than their shape (or the result)."""
    found = set(result_atoms(fn.result))
    for op in walk(fn.body):
        if isinstance(op, Op):
            found.update(a for i, a in enumerate(op.args)
                         if isinstance(a, Var) and not shape_only(op.prim, i))
        else:
            found.update(statement_atoms(op))
    return found


def _known(facts, came_from):
    """What the signature says of each chain's start, said of the chain (a
    loop's carried values were made before their shape could be known: the
    reads of their entries are numbers then, direct_forms.py's reinfer)."""
    if facts is None or not facts.signature:
        return
    for var in came_from:
        root = _root(var, came_from)
        if root in facts.shape and var not in facts.shape:
            facts.shape[var] = facts.shape[root]
        found = facts.dtypes.get(root)
        if found is not None and var not in facts.dtypes:
            facts.dtypes[var] = found


def _sources(fn):
    """value -> the value whose shape and dtype it has by construction."""
    came_from = {}
    loops = [s for s in walk(fn.body) if isinstance(s, Loop)]
    for op in walk(fn.body):
        if isinstance(op, Op) and op.prim in _SAME_SHAPE and op.args and \
                isinstance(op.args[0], Var):
            came_from[op.target] = op.args[0]
    saved = {tape.var: tape.items for loop in loops for tape in loop.writes}
    for loop in loops:  # a tape's item read back is the item saved
        for tape in loop.reads:
            for load, item in zip(tape.items, saved.get(tape.var, ())):
                if isinstance(load, Var) and isinstance(item, Var):
                    came_from[load] = item
    growing = True
    while growing:  # (a carry whose update is written from it: nested loops, outer last)
        growing = False
        for loop in loops:
            for carry in loop.carried:
                if carry.param in came_from or not isinstance(carry.init, Var):
                    continue
                if _root(carry.update, came_from, stop=carry.param) is carry.param:
                    came_from[carry.param] = carry.init
                    came_from[carry.out] = carry.init
                    growing = True
    return came_from


def _root(var, came_from, stop=None):
    seen = set()
    while var in came_from and var is not stop and var not in seen:
        seen.add(var)
        var = came_from[var]
    return var
