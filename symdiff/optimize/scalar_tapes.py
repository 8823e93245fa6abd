"""A loop over numbers saves one number per iteration, not a tuple.

A forward loop appends to its tape what its reverse loop reads back: for
Heron's step ``t = a / x; x = 0.5 * (x + t)``, the pair ``(x, t)``. Building
and unpacking that tuple costs more than computing ``a / x`` again from the
``x`` read back (a Python float operation is a few nanoseconds; a tuple is
an allocation). So where every saved value but one is one arithmetic
operation on Python numbers, of that one and of values that do not change
in the loop, only that one is saved, and the reverse loop computes the
others from it, as a hand-written reverse loop would. The same operation on
the same numbers: the same values, and no error the forward loop did not
raise first. Arrays are never recomputed (an operation on them costs a
pass over them; a tape entry costs nothing more for them).
"""
from __future__ import annotations

from ..ir.nodes import Const, Loop, Op, Var, walk

_CHEAP = frozenset({"add", "subtract", "multiply", "divide", "negative"})
_NUMBERS = (float, int)


def scalar_tapes(fn, builder):
    """``fn`` with the tuples of numbers its loops save cut to one number."""
    facts = builder.facts
    if not facts.signature:
        return fn
    top = {s.target for s in fn.body if isinstance(s, Op)} | set(fn.params)
    readers = {tape.var: loop for loop in walk(fn.body) if isinstance(loop, Loop)
               for tape in loop.reads}
    for loop in fn.body:  # (a loop at the top: what it reads from outside stays known)
        if not isinstance(loop, Loop) or len(loop.writes) != 1:
            continue
        tape = loop.writes[0]
        reverse = readers.get(tape.var)
        if reverse is None or len(reverse.reads) != 1 or len(tape.items) < 2:
            continue
        plan = _plan(loop, tape.items, top, facts)
        if plan is not None:
            _recompute(builder, tape, reverse, *plan)
    return fn


def _plan(loop, items, outside, facts):
    """(kept position, {position: its op}) where each item but one is one
    cheap operation of numbers on that one, constants and values made before
    the loop; None otherwise."""
    body = {s.target: s for s in loop.body if isinstance(s, Op)}
    read = {a for s in walk(loop.body) if isinstance(s, Op) for a in s.args
            if isinstance(a, Var)} | {c.update for c in loop.carried if isinstance(c.update, Var)}
    if not all(item in read for item in items if item in body):
        return None  # (a value computed only to be saved: it would be left unread)
    for keep, kept in enumerate(items):
        ops = {}
        for k, item in enumerate(items):
            if k == keep:
                continue
            op = body.get(item)
            if op is None or op.prim not in _CHEAP or not _number(item, facts) or \
                    not all(_available(a, kept, outside, facts) for a in op.args):
                break
            ops[k] = op
        else:
            return keep, ops
    return None


def _number(atom, facts):
    found = facts.dtype(atom)
    return isinstance(found, type) and found in _NUMBERS


def _available(atom, kept, outside, facts):
    if isinstance(atom, Const):
        return _number(atom, facts)
    return isinstance(atom, Var) and _number(atom, facts) and (atom is kept or atom in outside)


def _recompute(builder, tape, reverse, keep, ops):
    """Save only item ``keep``; the reverse loop computes the others from it
    (the same operations, under the names the loop read them by)."""
    loads = reverse.reads[0].items
    mapping = {tape.items[keep]: loads[keep]}
    made = []
    for k, op in sorted(ops.items()):
        args = tuple(mapping.get(a, a) if isinstance(a, Var) else a for a in op.args)
        again = Op(loads[k], op.prim, args, op.params, op.loc, backward=True)
        builder.facts.record(again)
        made.append(again)
    reverse.body[:0] = made
    tape.items = [tape.items[keep]]
    reverse.reads[0].items = [loads[keep]]
