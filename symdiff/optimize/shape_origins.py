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
from .dead_code import eliminate_dead_code

_SAME_SHAPE = ("setitem", "assign", "add_into", "add_at", "copy", "snapshot")


def shape_origins(fn, builder):
    came_from = _sources(fn)
    if not came_from:
        return fn
    _known(builder.facts, came_from)
    top = {s.target for s in fn.body if isinstance(s, Op)} | set(fn.params)
    changed = False
    for op in walk(fn.body):
        if not isinstance(op, Op):
            continue
        args = list(op.args)
        for i, a in enumerate(args):
            if isinstance(a, Var) and shape_only(op.prim, i):
                root = _root(a, came_from)
                if root is not a and root in top:
                    args[i], changed = root, True
        op.args = tuple(args)
    return eliminate_dead_code(fn) if changed else fn


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
