"""What a loop saves, and whether each of it can be an array (tape_arrays.py).

A forward loop of a known trip count (``range(n)`` from 0 by 1, ``n`` a
count: a constant or the length of an axis; no ``break``) whose tape only its
reverse loop reads; per item it saves, what it is: the counter, a value the
loop carries (at the start or the end of an iteration), a row the loop reads
of an array made before it, a counter's arithmetic, or a float64 array of a
shape the signature fixes. Anything else keeps the lists.
"""
from __future__ import annotations

import numpy as np

from ..ir import patterns as pat
from ..ir.nodes import Const, If, Loop, Op, Var, walk

_FLOAT64 = np.dtype("float64")
_COUNTING = frozenset({"add", "subtract", "multiply"})


def reader(stmts, tape):
    """The loop of ``stmts`` that reads ``tape`` back, alone, never leaving early."""
    for stmt in stmts:
        if isinstance(stmt, Loop) and stmt.kind == "tape" and len(stmt.reads) == 1 \
                and stmt.reads[0].var is tape.var and stmt.exit in (None, Const(False)):
            return stmt
    return None


def index_of(stmts, stmt):
    """Where ``stmt`` itself is in ``stmts`` (statements compare by value)."""
    return next(k for k, s in enumerate(stmts) if s is stmt)


def insert(stmts, stmt, made):
    """``made`` put before ``stmt`` in ``stmts``."""
    at = index_of(stmts, stmt)
    stmts[at:at] = made


def fixed(facts, atom):
    """Whether ``atom`` is a float64 array of one shape the signature fixes,
    with an argument of each of its lengths (an array of them is made from
    those). Not a number: a row read back is a NumPy scalar, where the loop
    had a Python float or a 0-d array (scalar_tapes.py saves those)."""
    found, dtype = facts.pattern(atom), facts.dtype(atom)
    names = {n for sig in facts.kinds.values() if sig.pattern for n in sig.pattern}
    return bool(found) and all(n == 1 or pat.is_named(n) and n in names for n in found) \
        and isinstance(dtype, np.dtype) and dtype == _FLOAT64


def defined(stmts):
    """Every value ``stmts`` make, nested ones too."""
    out = set()
    for s in walk(stmts):
        if isinstance(s, Op):
            out.add(s.target)
        elif isinstance(s, If):
            out.update(m.target for m in s.merges)
        elif isinstance(s, Loop):
            out.update(c.out for c in s.carried)
            out.update(c.param for c in s.carried)
    return out


class Plan:
    """What the forward ``loop`` saves on ``tape`` for ``reverse``, in ``fn``."""

    def __init__(self, fn, facts, loop, tape, reverse):
        self.fn, self.facts = fn, facts
        self.loop, self.tape, self.reverse = loop, tape, reverse

    def items(self):
        """Per saved item: ("index",), ("state", carry, 0 or 1), ("row", array),
        ("counter", op) or ("value",); None where one cannot be an array."""
        loop, facts = self.loop, self.facts
        if loop.kind != "range" or loop.index is None or loop.exit != Const(False) \
                or loop.bounds[0] != Const(0) or loop.bounds[2] != Const(1) \
                or not self.counts(loop.bounds[1]) or self.read_elsewhere():
            return None
        inside = defined(loop.body) | {loop.index}
        ops = {s.target: s for s in loop.body if isinstance(s, Op)}
        params = {c.param: c for c in loop.carried}
        updates = {c.update: c for c in loop.carried if c.update in inside}
        plan = []
        for item in self.tape.items:
            carry = params.get(item) or updates.get(item)
            op = ops.get(item)
            if item is loop.index:
                plan.append(("index",))
            elif carry is not None and carry.update in inside and \
                    all(fixed(facts, v) for v in (carry.param, carry.update, carry.init)) \
                    and facts.pattern(carry.init) == facts.pattern(carry.param):
                plan.append(("state", carry, 0 if item is carry.param else 1))
            elif op is not None and op.prim == "getitem" and len(op.args) == 2 and \
                    op.args[1] is loop.index and isinstance(op.args[0], Var) and \
                    op.args[0] not in inside:
                plan.append(("row", op.args[0]))
            elif op is not None and op.prim in _COUNTING and loop.index in op.args and \
                    all(a is loop.index or isinstance(a, Const) for a in op.args):
                plan.append(("counter", op))  # (``t + 1``: computed again)
            elif op is not None and fixed(facts, item):
                plan.append(("value",))
            else:
                return None
        return plan

    def read_elsewhere(self):
        """Whether anything but the reverse loop reads the tape (``len(tape)``)."""
        var = self.tape.var
        for s in walk(self.fn.body):
            if isinstance(s, Op) and var in s.args or isinstance(s, If) and s.cond is var \
                    or s is not self.reverse and isinstance(s, Loop) and \
                    any(t.var is var for t in s.reads):
                return True
        return False

    def counts(self, stop):
        """Whether ``stop`` is a count: an int constant or the length of an axis."""
        if isinstance(stop, Const):
            return isinstance(stop.value, int) and not isinstance(stop.value, bool) \
                and stop.value >= 0
        return self.facts.length(stop) is not None

    def stacked_writes(self):
        """The tapes the reverse loop fills that are only stacked after it (and
        tested for items), with the stack operations and the ifs; None where a
        tape it fills is read some other way besides."""
        after = self.fn.body[index_of(self.fn.body, self.reverse) + 1:]
        found = []
        for tape in self.reverse.writes:
            stacks, tests, other = [], [], False
            for s in walk(after):
                if isinstance(s, Op) and tape.var in s.args:
                    if s.prim == "stack_list" and s.args == (tape.var,) and not s.params:
                        stacks.append(s)
                    else:
                        other = True
                elif isinstance(s, If) and s.cond is tape.var:
                    tests.append(s)
                elif isinstance(s, Loop) and any(t.var is tape.var for t in s.reads):
                    other = True
            if stacks and (other or len(tape.items) != 1):
                return None
            if stacks:
                found.append((tape, stacks, tests))
        return found

    # -- doing it ------------------------------------------------------------------
    def counts_rows(self, array):
        """Whether the loop runs once per row of ``array`` (``range(len(xs))``)."""
        made = self.facts.producer(self.loop.bounds[1])
        if made is None:
            return False
        if made.prim == "len":
            return made.args[0] is array
        shaped = self.facts.producer(made.args[0]) if made.prim == "getitem" else None
        return shaped is not None and shaped.prim == "shape" and shaped.args[0] is array \
            and made.args[1] == Const(0)
