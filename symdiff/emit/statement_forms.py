"""Statements written in the compact forms Python has for them: one
unpacking assignment for several outputs of one operation (``w, v =
np.linalg.eigh(a)``), a loop over a sequence's items where the user wrote one
(``for x in xs:``, not ``for i in range(len(xs)): x = xs[i]``)."""
from __future__ import annotations

from ..ir.nodes import Const, Loop, Op, Var, blocks, walk
from ..ir.primitive import TABLE


def unpacked_outputs(stmts, counts):
    """Multi-output operations whose results are all read right after them
    (by `output` operations, nothing else): written as one unpacking
    assignment. Maps the operation's target to its output operations."""
    found = {}
    for block in [stmts] + [b for s in walk(stmts) for b in blocks(s)]:
        for i, op in enumerate(block):
            if not isinstance(op, Op) or not TABLE[op.prim].outputs:
                continue
            outputs = []
            for after in block[i + 1:]:
                if not (isinstance(after, Op) and after.prim == "output"
                        and after.args[0] is op.target):
                    break
                outputs.append(after)
            # (one output read: `np.linalg.slogdet(a)[1]` reads as well, inlined)
            if len(outputs) > 1 and counts.get(op.target) == len(outputs) and len(
                    {out.param("index") for out in outputs}) == len(outputs):
                found[op.target] = outputs
    return found


def name_entries(stmts):
    """A loop over several tapes reads one tuple from each (``saved``,
    ``saved_bar``) and unpacks them in its body: a short header."""
    for loop in walk(stmts):
        if isinstance(loop, Loop) and len(loop.reads) > 1:
            for tape in loop.reads:
                if len(tape.items) > 1 and tape.entry is None:
                    tape.entry = Var("saved" + tape.var.hint.partition("tape")[2])


def loop_items(stmts, defs, counts):
    """Loops ``for i in range(len(xs))`` whose body begins ``x = xs[i]``:
    id(loop) -> (xs, that statement), written ``for i, x in enumerate(xs):`` —
    ``for x in xs:`` where nothing else reads ``i`` — as the user wrote it."""
    found = {}
    for loop in walk(stmts):
        if not isinstance(loop, Loop) or loop.kind != "range" or loop.backward or \
                not loop.body or [_number(b) for b in loop.bounds[::2]] != [0, 1]:
            continue
        first = loop.body[0]
        if not (isinstance(first, Op) and first.prim == "getitem" and len(first.args) == 2
                and first.args[1] is loop.index and counts.get(first.target)
                and not first.params and not first.effect):
            continue
        length = defs.get(loop.bounds[1])
        if length is not None and _length_of(length, defs) is first.args[0]:
            found[id(loop)] = (first.args[0], first)
    return found


def _length_of(op, defs):
    """The array whose length ``op`` is: ``len(xs)``, ``xs.shape[0]``."""
    if op.prim == "len" and len(op.args) == 1:
        return op.args[0]
    shape = defs.get(op.args[0]) if op.prim == "getitem" and len(op.args) == 2 and \
        isinstance(op.args[0], Var) and _number(op.args[1]) == 0 else None
    return shape.args[0] if shape is not None and shape.prim == "shape" else None


def _number(atom):
    value = atom.value if isinstance(atom, Const) else atom
    return value if isinstance(value, int) and not isinstance(value, bool) else None
