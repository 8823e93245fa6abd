"""Shape patterns and dtypes through loops, once the whole function is known.

Facts are recorded as operations are made (shapes.py), and a value a loop
carries is made before the body that updates it: its pattern is not known
then. Here the loop is looked at again: a carried value is assumed to keep
the pattern and dtype it starts with, the body is inferred under that
assumption, and the assumption holds if the value the body hands to the
next iteration has them too (by induction on the iterations). Where it does
not, what was inferred from it is taken back and the body inferred without
it. Facts are only added, never changed: what was proved before stays.
"""
from __future__ import annotations

import numpy as np

from .nodes import If, Loop, Op, walk
from .patterns import CONFLICT
from .primitive import SCALAR


def reinfer(fn, facts):
    """Add the patterns and dtypes of ``fn``'s values that loops hid."""
    if not facts.signature:
        return
    written = {tape.var: tape.items for loop in walk(fn.body) if isinstance(loop, Loop)
               for tape in loop.writes}
    _Pass(facts, written).block(fn.body)


class _Pass:
    def __init__(self, facts, written):
        self.facts = facts
        self.written = written
        self.log = []  # what was added: ("pattern", class key) or ("dtype", var)

    def block(self, stmts):
        for stmt in stmts:
            if isinstance(stmt, Op):
                self.op(stmt)
            elif isinstance(stmt, If):
                self.block(stmt.then)
                self.block(stmt.orelse)
                for m in stmt.merges:
                    self.join(m.target, m.then, m.orelse)
            elif isinstance(stmt, Loop):
                self.loop(stmt)

    def op(self, op):
        facts = self.facts
        key = facts.key(op.target)
        if facts.patterns.get(key) is None:
            found = self.stacked(op) if op.prim == "stack_list" else facts._infer_pattern(op)
            if found is not None and found != CONFLICT:
                self.set_pattern(key, found)
        if op.target not in facts.dtypes:
            found = self.stacked_dtype(op) if op.prim == "stack_list" else \
                facts.result_dtype(op)
            if found is not None:
                self.set_dtype(op.target, found)

    def stacked(self, op):
        """A list a loop filled, stacked (frontend/lists.py): a first axis of a
        length not known, then the pattern its values share (the values
        appended before the loop, each iteration's, and those after)."""
        before = op.param("before") or 0
        appended = self.written.get(op.args[before], ())
        values = [*op.args[:before], *appended[:1], *op.args[before + 1:]]
        patterns = {self.facts.pattern(v) for v in values}
        if len(appended) != 1 or len(patterns) != 1 or None in patterns:
            return None
        return (None,) + patterns.pop()

    def stacked_dtype(self, op):
        """The dtype of a stacked list whose values (arrays) share one; else None."""
        before = op.param("before") or 0
        appended = self.written.get(op.args[before], ())
        values = [*op.args[:before], *appended[:1], *op.args[before + 1:]]
        dtypes = {self.facts.dtype(v) for v in values}
        found = dtypes.pop() if len(dtypes) == 1 else None
        return found if isinstance(found, np.dtype) else None

    def join(self, target, *sources, dtype=True):
        """A value that is one of ``sources``: their pattern and dtype, if they
        agree (``dtype=False``: only the pattern)."""
        facts = self.facts
        patterns = {facts.pattern(s) for s in sources}
        if len(patterns) == 1 and None not in patterns and \
                facts.patterns.get(facts.key(target)) is None:
            self.set_pattern(facts.key(target), patterns.pop())
        dtypes = [facts.dtype(s) for s in sources]
        if dtype and target not in facts.dtypes and dtypes[0] is not None and \
                all(d is not None and _same(d, dtypes[0]) for d in dtypes):
            self.set_dtype(target, dtypes[0])

    def set_pattern(self, key, pattern):
        self.facts.patterns[key] = pattern
        self.log.append(("pattern", key))

    def set_dtype(self, var, dtype):
        self.facts.dtypes[var] = dtype
        self.log.append(("dtype", var))

    def undo(self, mark):
        while len(self.log) > mark:
            kind, what = self.log.pop()
            (self.facts.patterns if kind == "pattern" else self.facts.dtypes).pop(what, None)

    def loop(self, loop):
        facts = self.facts
        if loop.kind == "range" and loop.index is not None:
            facts.shape.setdefault(loop.index, SCALAR)
            facts.dtypes.setdefault(loop.index, int)
        for tape in loop.reads:  # what a tape gives back is what was appended to it
            for load, item in zip(tape.items, self.written.get(tape.var, ())):
                self.join(load, item)
        # carried value -> whether its dtype is assumed too (a Python float
        # that NumPy's functions make an np.float64 keeps its pattern only)
        assumed = {id(c): (c, True) for c in loop.carried}
        for _ in range(2 * len(loop.carried) + 1):
            mark = len(self.log)
            for carry, dtype in assumed.values():
                self.join(carry.param, carry.init, dtype=dtype)
            self.block(loop.cond_block)
            self.block(loop.body)
            kept = {k: self._kept(c) for k, (c, _) in assumed.items()}
            wrong = [k for k, what in kept.items() if what != "both"]
            if not wrong:
                break
            self.undo(mark)
            for k in wrong:
                if kept[k] == "pattern" and assumed[k][1]:
                    assumed[k] = (assumed[k][0], False)
                else:
                    del assumed[k]
        for carry in loop.carried:
            self.join(carry.out, carry.param)

    def _kept(self, carry):
        """Whether the value handed to the next iteration has the pattern and
        dtype assumed for the carried value: "both", "pattern" (its pattern
        only), or None."""
        facts = self.facts
        before, after = facts.pattern(carry.param), facts.pattern(carry.update)
        if before is not None and before != after:
            return None
        dtype = facts.dtypes.get(carry.param)
        if dtype is None or facts.dtype(carry.update) is not None and \
                _same(facts.dtype(carry.update), dtype):
            return "both"
        return "pattern" if before is not None else None


def _same(a, b):
    if isinstance(a, type) or isinstance(b, type):
        return a is b
    return a == b
