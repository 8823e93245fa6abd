"""Writes into arrays, written in place where nothing can tell.

The IR's ``t = setitem(a, v, index)`` is a new array; generated code writes
it as ``a[index] = v`` (``assign``: ``t`` is ``a``'s array, changed), and the
sum ``t = b + _unindex(g, x, index)`` as ``b[index] += g`` (``add_into``; an
advanced index: ``np.add.at(b, index, g)``, ``add_at``), where that changes
no value anything still reads. So a loop that fills an array one entry at a
time costs O(1) per iteration, forward and backward, as a careful hand-written
gradient does, and not a copy of the array per iteration.

A write changes the array ``a`` holds for every value that shares it
(ir/storage.py: views, aliases, a loop's carried value and its first value)
except the new value and what is made from it. Such a value read afterwards
(later in the function, in a later iteration of a loop around both, or from
a loop's tape by its reverse loop) would see the change: then the write stays
a copy, unless the value is a view of part of the array, which is copied
(``x[i - 1].copy()``, ``snapshot``) where it is made instead. Reads of a shape
only (``np.shape(x)``, the ``like`` of ``_unindex``) see no change. Values
computed before the write from the array are not folded into a line after it.
"""
from __future__ import annotations

import numpy as np

from ..ir.nodes import If, Loop, Op, Var, flatten, use_counts
from ..ir.storage import FIRST_ONLY, is_fresh, shape_only
from .dead_code import eliminate_dead_code
from .write_pins import Pins

UNKNOWN = "unknown"
_WRITES = ("assign", "add_into", "add_at")


def writes_in_place(fn, builder=None):
    facts = builder.facts if builder is not None else None
    plan = _Plan(fn, facts)
    plan.run()
    if plan.changed:  # a tape may keep what only the sums written in place read
        eliminate_dead_code(fn)
    return fn


class _Plan(Pins):
    def __init__(self, fn, facts):
        self.fn, self.facts = fn, facts
        self.changed = False

    def run(self):
        self.survey()
        for op, block in list(self.candidates):
            if op.prim == "setitem":
                if self.in_place(op, block, op.args[0]):
                    op.prim = "assign"
            elif self.facts is not None:
                self.into(op, block)

    def into(self, op, block):
        """``b + _unindex(g, x, index)`` as ``b[index] += g``."""
        counts = use_counts(self.fn)
        for k in (0, 1):
            placed = self.defs.get(op.args[k])
            buffer = op.args[1 - k]
            if placed is None or placed.prim not in ("unindex", "unindex_add") \
                    or counts.get(placed.target) != 1 or placed not in block \
                    or not (self.written(buffer) or placed.args[1] is buffer or
                            self.made_for_it(buffer, placed)) \
                    or not self.facts.same_shape(buffer, placed.args[1]):
                continue
            if self.in_place(op, block, buffer):
                op.prim = "add_into" if placed.prim == "unindex" else "add_at"
                op.args = (buffer, placed.args[0]) + placed.args[2:]
                block.remove(placed)
                self.survey()
            return

    def made_for_it(self, buffer, placed):
        """An array arithmetic made, of the dtype adding ``placed`` keeps
        (``v_bar = 2.0 * v`` then ``np.add.at(v_bar, i, g)``: scatter_sums.py)."""
        facts = self.facts
        return buffer in self.fresh and placed.prim == "unindex_add" and \
            (facts.rank(buffer) or 0) > 0 and isinstance(facts.dtype(buffer), np.dtype) \
            and facts.same_dtype(buffer, placed.args[0])

    def written(self, buffer):
        """An array a write made (the sums into other arrays are emit's:
        in_place_writes.py)."""
        made = self.defs.get(buffer)
        return made is not None and made.prim in ("setitem",) + _WRITES

    # -- the facts -----------------------------------------------------------------------------
    def survey(self):
        """Positions, paths, definitions, reads and arrays of every value."""
        self.pos, self.path, self.where = {}, {}, {}  # where: var -> path it is defined in
        self.defs, self.reads, self.candidates = {}, [], []
        self.tape_loads = {}  # tape var -> its reader's loads
        self.edges = {}       # var -> the vars whose arrays it may be or view
        self.fresh, self.carried = set(), set()
        self.read_only = set()  # (np.broadcast_to's views: never written into)
        self.joins = {}  # merged or carried var -> (its If or Loop's id, its two sources)
        for param in self.fn.params:
            self.where[param] = ()
        self.counter = 0
        self.block(self.fn.body, ())
        self.counter += 1
        for atom in flatten(self.fn.result):
            self.read(atom, self.counter, ())
        self.roots = self.solve_roots()
        self.counts = use_counts(self.fn)

    def block(self, stmts, path):
        for stmt in stmts:
            self.counter += 1
            self.pos[id(stmt)], self.path[id(stmt)] = self.counter, path
            if isinstance(stmt, Op):
                self.op(stmt, stmts, path)
            elif isinstance(stmt, If):
                self.read(stmt.cond, self.counter, path)
                for side in ("then", "orelse"):
                    inner = path + ((id(stmt), side),)
                    self.block(getattr(stmt, side), inner)
                    self.counter += 1
                    for m in stmt.merges:
                        self.read(getattr(m, side), self.counter, inner)
                for m in stmt.merges:
                    self.where[m.target] = path
                    self.edges[m.target] = [a for a in (m.then, m.orelse) if isinstance(a, Var)]
                    self.joins[m.target] = (id(stmt), m.then, m.orelse)
            elif isinstance(stmt, Loop):
                self.loop(stmt, path)

    def op(self, op, block, path):
        self.defs[op.target] = op
        self.where[op.target] = path
        for i, a in enumerate(op.args):
            if not shape_only(op.prim, i):
                self.read(a, self.counter, path)
        if op.prim == "broadcast_to":
            self.read_only.add(op.target)
        if is_fresh(op):
            self.fresh.add(op.target)
        elif op.prim in FIRST_ONLY:
            self.edges[op.target] = [op.args[0]] if isinstance(op.args[0], Var) else []
        else:
            self.edges[op.target] = [a for a in op.args if isinstance(a, Var)]
        if op.prim == "setitem" or op.prim == "add":
            self.candidates.append((op, block))

    def loop(self, loop, path):
        for a in list(loop.bounds) + [c.init for c in loop.carried]:
            self.read(a, self.counter, path)
        inner = path + ((id(loop), "body"),)
        for tape in loop.reads:
            written = self.tape_loads.setdefault(tape.var, tape.items)
            for load in tape.items:
                self.where[load] = inner
            self.tape_loads[tape.var] = written
        for var in [loop.index] + [c.param for c in loop.carried]:
            if var is not None:
                self.where[var] = inner
        for c in loop.carried:
            self.carried.add(c.param)  # (the new value only from the next iteration on)
            self.joins[c.param] = (id(loop), c.init, c.update)
            self.joins[c.out] = (id(loop), c.init, c.update)
            self.edges[c.param] = [a for a in (c.init, c.update) if isinstance(a, Var)]
            self.edges[c.out] = [a for a in (c.init, c.update) if isinstance(a, Var)]
            self.where[c.out] = path
        self.block(loop.cond_block, inner)
        self.read(loop.cond, self.counter, inner)
        self.block(loop.body, inner)
        self.counter += 1
        for c in loop.carried:
            self.read(c.update, self.counter, inner)
        self.read(loop.exit, self.counter, inner)
        for tape in loop.writes:  # read again by the loop that reads the tape
            for k, item in enumerate(tape.items):
                self.read(item, self.counter, inner, tape=(tape.var, k))

    def read(self, atom, pos, path, tape=None):
        if isinstance(atom, Var):
            self.reads.append((atom, pos, path, tape))

    def solve_roots(self):
        """var -> the arrays (vars of the operations that made them, or UNKNOWN)
        it may be or view: a fixpoint over the loops' carried values."""
        roots = {v: {v} for v in self.fresh}
        roots.update({v: {UNKNOWN} for v in self.read_only})  # (a write there raises)
        changed = True
        while changed:
            changed = False
            for var, sources in self.edges.items():
                found = set(roots.get(var, ()))
                for s in sources:
                    found |= roots.get(s, {UNKNOWN} if s not in self.edges else set())
                if found != roots.get(var):
                    roots[var] = found
                    changed = True
        return roots

    def roots_of(self, var):
        if var in self.roots:
            return self.roots[var]
        return {UNKNOWN} if isinstance(var, Var) else set()

    # -- the decision --------------------------------------------------------------------------
    def in_place(self, op, block, buffer):
        """Whether ``op`` may write into ``buffer``'s array: copy the views that
        need it, keep what reads it before from moving after it."""
        arrays = self.roots_of(buffer)
        if not arrays or UNKNOWN in arrays:
            return False
        self.after, self.memo, self.arrays = self.descendants(op), {}, arrays
        views = set()
        for var, pos, path, tape in self.reads:
            if not self.hurt(var, op, tape is not None):
                continue
            if tape is not None and not self.value_loaded(*tape):
                continue
            if not self.later(op, pos, path, var):
                continue
            found = self.views_behind(var, op, saved=tape is not None)
            if found is None or found & self.behind(buffer):
                return False  # (a copy the write's own array is made from takes the write)
            views |= found
        for var in sorted(views, key=lambda v: v.uid):
            self.snapshot(var)
        if views:
            self.survey()
        self.pin(op, arrays)
        self.changed = True
        return True

    def hurt(self, var, op, saved=False):
        """Whether ``var`` may hold, or view, the array ``op`` writes into as it
        was before the write (so that reading it after the write sees the
        change). ``saved``: it is read from a tape, after every iteration."""
        if not isinstance(var, Var) or not self.roots_of(var) & self.arrays:
            return False
        if var in self.after:  # the write's own value: saved, a later iteration's
            return saved and self.carried_into(var, op)  # write may change it
        key = (var, saved)
        if key in self.memo:
            return self.memo[key]
        self.memo[key] = False  # (a loop's carried value, met again through its update)
        if var in self.fresh:
            # it made the array: before the write, or as the array a later
            # iteration writes into (its tape keeps each iteration's)
            made = self.defs[var]
            found = self.before(made, op) or saved and self._looped(made, op)
        elif var in self.joins:
            owner, first, second = self.joins[var]
            side = self._side(op, owner)
            if var in self.carried and side is not None:
                found = True  # inside the loop: the value an iteration starts with
            elif side is None:
                found = self.hurt(first, op, saved) or self.hurt(second, op, saved)
            else:  # the value the write's own branch (or a run of the loop) gives
                found = self.hurt(second if side in ("body", "orelse") else first, op, saved)
        elif var in self.defs:
            found = any(self.hurt(s, op, saved) for s in self.edges.get(var, ()))
        else:
            found = True  # an argument, a value read from a tape: not known
        self.memo[key] = found
        return found

    def carried_into(self, var, op):
        """Whether a loop holding ``op`` carries ``var``'s array into the
        array ``op`` writes into in its next iteration (``u[:] = v`` each
        iteration, and ``u`` saved on the loop's tape: every entry would be
        the last iteration's)."""
        loops = {stmt for stmt, side in self.path[id(op)] if side == "body"}
        buffer = self.behind(op.args[0])
        return any(owner in loops and param in buffer and var in self.behind(update)
                   for param, (owner, _, update) in self.joins.items()
                   if param in self.carried)

    def _looped(self, made, op):
        """Whether a loop holds both ``made`` and ``op``."""
        loops = {stmt for stmt, side in self.path[id(op)] if side == "body"}
        return any(stmt in loops for stmt, side in self.path[id(made)] if side == "body")

    def _side(self, op, owner):
        for stmt, side in self.path[id(op)]:
            if stmt == owner:
                return side
        return None

    def views_behind(self, var, op, depth=0, saved=False):
        """The views made before ``op`` that ``var`` is, or is a view of:
        copied where they are made, they keep the values ``var`` must see.
        None if ``var`` may be the whole array (or is not known; or, saved on
        a tape, is an array made after ``op`` that a later iteration's ``op``
        writes into)."""
        made = self.defs.get(var)
        if made is None or made.prim in ("setitem",) + _WRITES or depth > 50:
            return None
        if self.before(made, op):
            return None if is_fresh(made) else {var}
        if is_fresh(made):
            return None if saved and self._looped(made, op) else set()
        found = set()
        for source in self.edges.get(var, ()):
            if self.hurt(source, op, True):
                more = self.views_behind(source, op, depth + 1, saved)
                if more is None:
                    return None
                found |= more
        return found

    def behind(self, var):
        """``var`` and the values its array may be, or view (``_sum_to(g, x)``
        may be ``g``): copying one of them would copy the array written into."""
        found, todo = set(), [var]
        while todo:
            v = todo.pop()
            if isinstance(v, Var) and v not in found:
                found.add(v)
                todo.extend(self.edges.get(v, ()))
        return found

    def descendants(self, op):
        """The values made from ``op``'s result: they see the write. A loop's
        carried value is one only if the loop does not hold ``op`` (inside it,
        the value an iteration starts with is older than the write)."""
        found, changed = {op.target}, True
        mine = {stmt for stmt, _ in self.path[id(op)]}
        while changed:
            changed = False
            for var, sources in self.edges.items():
                if var not in found and any(s in found for s in sources) and not (
                        var in self.carried and self.where[var][-1][0] in mine):
                    found.add(var)
                    changed = True
        return found

    def value_loaded(self, tape, k):
        loads = self.tape_loads.get(tape)
        if loads is None or k >= len(loads):
            return True
        load = loads[k]
        return any(v is load for v, *_ in self.reads)

    def later(self, op, pos, path, var):
        """Whether a read of ``var`` at ``pos`` inside ``path`` may run after ``op``."""
        mine = self.path[id(op)]
        k = 0
        while k < min(len(mine), len(path)) and mine[k] == path[k]:
            stmt, side = mine[k]
            if side == "body" and not self._inside(self.where.get(var, ()), stmt):
                return True  # a later iteration reads it again
            k += 1
        if k < len(mine) and k < len(path) and mine[k][0] == path[k][0]:
            return False  # the other branch of an `if`
        return pos > self.pos[id(op)]

    @staticmethod
    def _inside(where, loop_id):
        return any(stmt == loop_id for stmt, _ in where)

    def before(self, made, op):
        return self.pos[id(made)] < self.pos[id(op)]
