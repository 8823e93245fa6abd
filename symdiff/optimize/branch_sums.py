"""A sum with a value one side of an ``if`` places and the other leaves zero,
done on the side that places it.

    if t + 1 < T:
        g = np.zeros_like(values); g[t + 1] = gamma * d
    else:
        g = np.zeros_like(values)
    values_bar = values_bar + g

adds a zero-filled array of ``values``' shape in every iteration of a
reverse loop (GAE's ``values[t + 1] if t + 1 < T else 0.0``: quadratic in the
episode's length). The sum moves into the side that places the value; the
other side hands ``values_bar`` on as it is; the emitter then adds the
placed value in place (``values_bar[t + 1] += gamma * d``, emit/
in_place_writes.py). Specialised gradients only: the patterns must say the
sum has the shape and dtype of the array it adds into.
"""
from __future__ import annotations

from ..ir.nodes import If, Loop, Op, Var, use_counts, walk

_PLACED = ("unindex", "unindex_add")


def branch_sums(fn, builder):
    facts = builder.facts
    if not facts.signature:
        return fn
    counts = use_counts(fn)
    for loop in [s for s in walk(fn.body) if isinstance(s, Loop)]:
        carried = {c.param for c in loop.carried}
        for stmt in list(loop.body):
            if isinstance(stmt, If):
                for merge in list(stmt.merges):
                    _into_side(loop.body, stmt, merge, counts, facts, carried)
    return fn


def _into_side(block, branch, merge, counts, facts, carried):
    """``acc + g`` after the ``if``, ``acc`` carried by the loop whose body
    ``block`` is and ``g`` zeros on one side, placed values on the other."""
    at = next(i for i, s in enumerate(block) if s is branch)
    sides = [_made(branch.then, merge.then), _made(branch.orelse, merge.orelse)]
    kinds = {op.prim if op is not None else None for op in sides}
    if kinds not in ({"zeros_like", "unindex"}, {"zeros_like", "unindex_add"}) or \
            counts.get(merge.target) != 1:
        return
    placed = sides[0] if sides[0].prim in _PLACED else sides[1]
    zeros = sides[1] if placed is sides[0] else sides[0]
    total = next((s for s in block[at + 1:] if isinstance(s, Op) and s.prim == "add"
                  and merge.target in s.args), None)
    if total is None or any(counts.get(op.target) != 1 for op in (placed, zeros)):
        return
    acc = total.args[1] if total.args[0] is merge.target else total.args[0]
    like = placed.args[1]
    inside = {s.target for s in walk([branch]) if isinstance(s, Op)}
    if not isinstance(acc, Var) or acc not in carried or acc in inside or \
            not facts.same_shape(acc, like) or facts.dtype(acc) != facts.dtype(like) or \
            facts.pattern(acc) is None or zeros.args[0] is not like and \
            not facts.same_shape(zeros.args[0], like):
        return
    side = branch.then if placed is sides[0] else branch.orelse
    other = branch.orelse if placed is sides[0] else branch.then
    summed = Op(Var(total.target.hint), "add", (acc, placed.target), (), placed.loc,
                backward=total.backward)
    facts.record(summed)
    side.append(summed)
    other.remove(zeros)
    if placed is sides[0]:
        merge.then, merge.orelse = summed.target, acc
    else:
        merge.then, merge.orelse = acc, summed.target
    merge.target = total.target
    block.remove(total)


def _made(side, atom):
    """The operation of ``side`` that makes ``atom`` (None if it is not one)."""
    return next((s for s in side if isinstance(s, Op) and s.target is atom), None) \
        if isinstance(atom, Var) else None
