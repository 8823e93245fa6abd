"""Lists a loop filled, read as arrays: ``np.stack(xs)`` (frontend/lists.py).

``stack_list(*before, xs, *after; before=k, after=m)`` stacks, along a new
first axis, the ``k`` values appended before the loop, the list ``xs`` the
loop appended to (one value per iteration: a tape it writes) and the ``m``
appended after it. Its adjoint: the stacked gradient's rows, one per value;
for the loop's values, the loop's reverse reads them back row by row, last
first (`RowsBar`, ad/loops.py), as a hand-written reverse loop would.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..ir.nodes import Const
from ..ir.primitive import ARRAY, NEW, define


@dataclass(frozen=True)
class RowsBar:
    """The adjoint of a list a loop appended to: ``rows[offset + k]`` is that
    of what its ``k``-th iteration appended."""

    rows: object
    offset: int
    like: object = None  # the stacked list (rows has its shape)
    positions = (0,)  # (of the values each iteration appends: the one)


def stack_list_rule(r, op, g):
    before, after = op.param("before"), op.param("after")
    grads = []
    for k, x in enumerate(op.args):
        if not r.wants(x):
            grads.append(None)
        elif k < before:
            grads.append(r.b.op("getitem", g, Const(k)))
        elif k == before:
            grads.append(RowsBar(g, before, op.target))
        else:
            grads.append(r.b.op("getitem", g, Const(k - before - 1 - after)))
    return grads


def stack_list_tangent(b, op, dargs):
    before = op.param("before")
    if all(d is None for d in dargs):
        return None
    if dargs[before] is None:  # the loop's values have no tangent: only the others
        tangent = b.op("zeros_like", op.target)
        for k, d in enumerate(dargs):
            if d is not None:
                at = k if k < before else k - len(dargs)
                tangent = b.op("setitem", tangent, d, Const(at), floating=True)
        return tangent
    parts = [d if d is not None else b.op("zeros_like", x) for x, d in zip(op.args, dargs)]
    return b.op("stack_list", *parts, **dict(op.params))


define("stack_list(*values; before=0, after=0)", ("stack_list",), NEW,
       reverse=stack_list_rule, forward=stack_list_tangent, result=ARRAY)
