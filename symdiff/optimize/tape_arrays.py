"""A loop whose trip count is known before it saves into arrays, not lists.

The reverse pass saves what a loop's backward needs on a tape, a list the
forward loop appends to and the reverse loop reads back (ad/loops.py), and
gathers the factors of a matrix's gradient on lists it stacks after the
reverse loop (ad/gathered_products.py). Where a specialised gradient knows
the number of iterations before the loop (``range(n)``, ``range(len(xs))``,
``for x in xs``) and the shape every saved value has in every iteration
(its pattern names every axis), it writes what a careful person writes:

    hs = np.empty((n + 1, W.shape[0]))   # the states: h before step t is hs[t]
    hs[0] = h
    for t in range(n):
        h_1 = np.tanh(W @ h + U @ xs[t] + b)
        hs[t + 1] = h_1
        h = h_1
    t_bars = np.empty((n, W.shape[0]))
    for t_1 in range(n - 1, -1, -1):
        t_bar = (1.0 - hs[t_1 + 1] ** 2) * h_bar
        ...
        t_bars[t_1] = t_bar
    b_bar = t_bars.sum(axis=0)      # not `b_bar += t_bar` in the loop
    W_bar = t_bars.T @ hs[:-1]
    U_bar = t_bars.T @ xs

A carried value and its update are one array of states; a row the loop reads
of an array made before it (``xs[t]``) is read again, not saved; and a loop
that runs no iteration gives products of arrays with no rows, which are the
zero matrices, so no branch is needed. Where any of this is not known (a
``break``, a shape that may change, a dtype other than float64, an array
library that cannot write into arrays), the lists stay.
"""
from __future__ import annotations

import numpy as np

from ..ir import patterns as pat
from ..ir.nodes import Carry, Const, If, Loop, Op, Var, walk
from ..ir.primitive import SCALAR
from ..ir.reinfer import reinfer
from .common_subexpressions import replace_atoms
from .dead_code import eliminate_dead_code
from .direct_forms import substitute
from .tape_plans import Plan, defined, fixed, index_of, insert, reader
from .transposes import transposed_products

_FLOAT64 = np.dtype("float64")
_ZERO_SAFE = frozenset({"matmul", "T", "stack_list"})  # right for a loop of no iteration


def tape_arrays(fn, builder):
    """``fn`` with the tapes and stacked lists of its top-level loops as arrays,
    where the number of iterations and the saved shapes are known."""
    facts = builder.facts
    if not facts.signature or facts.fuses() or any(
            sig.kind == "array" and sig.library != "numpy" for sig in facts.signature.values()
            if hasattr(sig, "library")):
        return fn
    reinfer(fn, facts)  # (the dtypes of values the reverse loops carry: their step gradients')
    changed = False
    for loop in [s for s in fn.body if isinstance(s, Loop)]:
        for tape in list(loop.writes):
            reverse = reader(fn.body, tape)
            if reverse is not None:
                changed = _Rewrite(fn, builder, loop, tape, reverse).run() or changed
    if not changed:
        return fn
    # a forward loop kept for its tape alone goes (the reverse loop reads only
    # its index); the stacked lists' transposes, now of arrays: `t_bars.T @ xs`,
    # not `(xs.T @ t_bars).T`
    return transposed_products(eliminate_dead_code(fn, builder), builder)


class _Rewrite:
    def __init__(self, fn, builder, loop, tape, reverse):
        self.fn, self.b, self.facts = fn, builder, builder.facts
        self.loop, self.tape, self.reverse = loop, tape, reverse
        self.known = Plan(fn, builder.facts, loop, tape, reverse)

    # -- what can be done --------------------------------------------------------

    def run(self):
        backward = self.b.backward
        try:
            return self.rewrite()
        finally:
            self.b.backward = backward

    def rewrite(self):
        plan = self.known.items()
        stacked = self.known.stacked_writes() if plan is not None else None
        if stacked is None:
            return False
        loads = self.reverse.reads[0].items
        load_plan = dict(zip(loads, plan))
        self.items_of = dict(zip(loads, self.tape.items))
        for tape, _, _ in stacked:
            item = tape.items[0]
            made = defined(self.reverse.body) | {c.param for c in self.reverse.carried}
            if item not in load_plan and not (item in made and fixed(self.facts, item)):
                return False
        self.forward_arrays(plan)
        index = self.reverse_loop(loads, plan)
        self.gathered(stacked, load_plan, index)
        return True

    def dims(self, like):
        """Where the signature gives each axis of ``like``: per axis, 1 or a
        (parameter, axis) of that length; None where one is not known."""
        found = []
        for n in self.facts.pattern(like):
            place = 1 if n == 1 else next(
                ((p, k) for p, sig in self.facts.kinds.items() if sig.pattern
                 for k, m in enumerate(sig.pattern) if m == n), None)
            if place is None:
                return None
            found.append(place)
        return found

    def array(self, like, rows, hint, func="empty"):
        """``np.empty((rows, W.shape[0], ...))`` (or ``func``'s) of the shape of
        ``like`` with ``rows`` more rows, made where the builder appends."""
        b = self.b
        axes = [Const(1) if place == 1 else b.op("getitem", b.op("shape", place[0]),
                                                 Const(place[1]))
                for place in self.dims(like)]
        made = b.op("npcall", b.op("tuple", rows, *axes), func=func, kwargs=(), hint=hint)
        self.facts.patterns[self.facts.key(made)] = (None,) + self.facts.pattern(like)
        self.facts.dtypes[made] = _FLOAT64
        return made

    def carry_array(self, loop, made, value, row, at):
        """``made`` carried through ``loop``, which writes ``value`` at ``row``
        (appended to ``at``): its value after the loop. The write belongs to
        the line that computes ``value`` (its ``# Lnn`` block, not the loop's)."""
        b, facts = self.b, self.facts
        carry = Carry(Var(made.hint), made, None, Var(made.hint))
        for var in (carry.param, carry.out):
            facts.shape[var] = facts.key(made)
            facts.dtypes[var] = _FLOAT64
        source = facts.producer(value) if isinstance(value, Var) else None
        with b.into(at), b.at(source.loc if source is not None and source.loc else b.loc):
            carry.update = b.op("setitem", carry.param, value, row, floating=True,
                                hint=made.hint)
        facts.dtypes[carry.update] = _FLOAT64
        loop.carried.append(carry)
        self.fn.named.update((carry.param, carry.out))
        return carry.out

    def forward_arrays(self, plan):
        loop, b = self.loop, self.b
        b.backward = False
        stop = loop.bounds[1]
        before, self.saved = [], {}
        with b.at(loop.loc), b.into(before):
            for entry, item in zip(plan, self.tape.items):
                if entry[0] == "state" and entry[1].param not in self.saved:
                    carry = entry[1]
                    # (a state that starts at zeros: its rows made with np.zeros, hs[0] = h
                    # not written; the others are written before they are read)
                    zeros = _zeros(self.facts, carry.init)
                    made = self.array(carry.init, b.add(stop, Const(1)), carry.param.hint + "s",
                                      func="zeros" if zeros else "empty")
                    start = made if zeros else b.op("setitem", made, carry.init, Const(0),
                                                    floating=True, hint=made.hint)
                    self.facts.dtypes[start] = _FLOAT64
                    self.fn.named.update((made, start))  # (one name: no copy at the loop)
                    with b.into(loop.body):
                        row = b.add(loop.index, Const(1))
                    self.saved[carry.param] = self.carry_array(loop, start, carry.update, row,
                                                               loop.body)
                elif entry[0] == "value":
                    made = self.array(item, stop, item.hint + "s")
                    self.saved[item] = self.carry_array(loop, made, item, loop.index, loop.body)
        insert(self.fn.body, loop, before)
        loop.writes = [t for t in loop.writes if t is not self.tape]

    def reverse_loop(self, loads, plan):
        """The reverse loop as ``for t in range(n - 1, -1, -1)``, reading rows."""
        reverse, b, facts = self.reverse, self.b, self.facts
        b.backward = True
        index = next((load for load, e in zip(loads, plan) if e[0] == "index"), None)
        index = index or Var(self.loop.index.hint)
        facts.shape[index] = SCALAR
        facts.dtypes[index] = int
        before, reads = [], []
        with b.at(reverse.loc), b.into(before):
            last = b.sub(self.loop.bounds[1], Const(1))
        with b.at(reverse.loc), b.into(reads):
            for load, entry, item in zip(loads, plan, self.tape.items):
                if entry[0] == "index":
                    continue
                if entry[0] == "counter":
                    args = tuple(index if a is self.loop.index else a for a in entry[1].args)
                    op = Op(load, entry[1].prim, args, (), reverse.loc, backward=True)
                    facts.defs[load] = op
                    reads.append(op)
                    continue
                if entry[0] == "row":
                    source, row = entry[1], index
                elif entry[0] == "state":
                    source = self.saved[entry[1].param]
                    row = index if entry[2] == 0 else b.add(index, Const(1))
                else:
                    source, row = self.saved[item], index
                op = Op(load, "getitem", (source, row), (), reverse.loc, backward=True)
                facts.defs[load] = op  # (its shape class stays the saved value's)
                reads.append(op)
        reverse.kind, reverse.reads = "range", []
        reverse.index, reverse.bounds = index, (last, Const(-1), Const(-1))
        reverse.body[:0] = reads
        insert(self.fn.body, reverse, before)
        self.first = before[0] if before else reverse  # (its arrays are made before this)
        return index

    def gathered(self, stacked, load_plan, index):
        """Each stacked list as the array of its rows, in the forward order."""
        reverse, b = self.reverse, self.b
        stop = self.loop.bounds[1]
        subst, before = {}, []
        for tape, stacks, _ in stacked:
            item = tape.items[0]
            entry = load_plan.get(item)
            with b.at(reverse.loc), b.into(before):
                if entry is None:  # a value of the reverse loop: written by index
                    made = self.array(item, stop, item.hint + "s")
                    rows = self.carry_array(reverse, made, item, index, reverse.body)
                    self.summed(item, rows, subst)
                    self.placed(item, rows, index, subst)
                elif entry[0] == "row":
                    rows = entry[1] if self.known.counts_rows(entry[1]) else \
                        b.op("getitem", entry[1], b.op("slice", None, stop, None))
                elif entry[0] == "state":
                    part = (None, -1) if entry[2] == 0 else (1, None)
                    rows = b.op("getitem", self.saved[entry[1].param],
                                b.op("slice", *part, None))
                elif entry[0] == "value":
                    rows = self.saved[self.items_of[item]]
                else:
                    raise AssertionError(f"a counter {item!r} as a matrix's factor")
            reverse.writes = [t for t in reverse.writes if t is not tape]
            for stack in stacks:
                subst[stack.target] = rows
        insert(self.fn.body, self.first, before)
        tests = {id(t): t for _, _, ts in stacked for t in ts}
        for test in tests.values():
            self.untest(test, subst)
        self.drop(self.fn.body, {s.target for _, stacks, _ in stacked for s in stacks})
        substitute(self.fn.body, subst)
        self.fn.result = replace_atoms(self.fn.result, subst)

    def summed(self, item, rows, subst):
        """``b_bar += t_bar`` in the reverse loop, of a ``t_bar`` its rows hold:
        ``b_bar = t_bars.sum(0)`` after it (one pass over them, not one
        addition per iteration; no iteration: zeros)."""
        reverse, facts = self.reverse, self.facts
        for carry in list(reverse.carried):
            add = facts.defs.get(carry.update)
            start = facts.producer(carry.init) if isinstance(carry.init, Var) else None
            if add is None or add.prim != "add" or set(add.args) != {carry.param, item} \
                    or not any(s is add for s in reverse.body) or start is None \
                    or start.prim != "zeros_like" or facts.pattern(carry.param) != \
                    facts.pattern(item) or not fixed(facts, carry.param) or sum(
                        a is carry.param for s in walk(reverse.body) if isinstance(s, Op)
                        for a in s.args) != 1:
                continue
            reverse.carried = [c for c in reverse.carried if c is not carry]
            reverse.body[:] = [s for s in reverse.body if s is not add]
            after = []
            with self.b.at(reverse.loc), self.b.into(after):
                total = self.b.op("sum", rows, axis=0, hint=carry.out.hint)
            self.fn.named.add(total)
            at = index_of(self.fn.body, reverse) + 1
            self.fn.body[at:at] = after
            subst[carry.out] = total

    def placed(self, item, rows, index, subst):
        """``x_bar[t] += t_bar`` into zeros, in a reverse loop over every row
        of ``x_bar``, of a ``t_bar`` the rows hold at ``t``: ``x_bar`` is
        those rows (an RNN's projected inputs: their gradient is the tape,
        not a second array filled with the same rows)."""
        reverse, facts = self.reverse, self.facts
        for carry in list(reverse.carried):
            add = facts.defs.get(carry.update)
            start = facts.producer(carry.init) if isinstance(carry.init, Var) else None
            if add is None or add.prim != "add" or carry.param not in add.args \
                    or start is None or start.prim != "zeros_like":
                continue
            other = add.args[1] if add.args[0] is carry.param else add.args[0]
            spread = facts.defs.get(other)
            if spread is None or spread.prim != "unindex" or len(spread.args) != 3 or \
                    spread.args[0] is not item or spread.args[2] is not index or \
                    not any(s is add for s in reverse.body) or \
                    not self.same_rows(carry.param, rows) or \
                    not fixed(facts, carry.param) or sum(
                        a is carry.param for s in walk(reverse.body) if isinstance(s, Op)
                        for a in s.args) != 1:
                continue
            reverse.carried = [c for c in reverse.carried if c is not carry]
            reverse.body[:] = [s for s in reverse.body if s is not add]
            subst[carry.out] = rows

    def same_rows(self, array, rows):
        """Whether ``rows`` (one per iteration of the loop) has ``array``'s shape."""
        facts = self.facts
        mine, theirs = facts.pattern(array), facts.pattern(rows)
        length = facts.length(self.loop.bounds[1])
        return bool(mine) and theirs is not None and len(mine) == len(theirs) and \
            pat.is_named(length) and mine[0] == length and mine[1:] == theirs[1:]

    def untest(self, test, subst):
        """An ``if rows:`` whose taken side is right for no rows too, as that
        side; else tested on the count."""
        body = self.fn.body
        if any(s is test for s in body) and \
                all(isinstance(s, Op) and s.prim in _ZERO_SAFE for s in test.then):
            at = index_of(body, test)
            body[at:at + 1] = test.then
            subst.update((m.target, m.then) for m in test.merges)
            return
        before = []
        with self.b.at(test.loc), self.b.into(before):
            test.cond = self.b.op("greater", self.loop.bounds[1], Const(0))
        at = next(k for k, s in enumerate(body) if any(n is test for n in walk([s])))
        body[at:at] = before

    def drop(self, stmts, targets):
        stmts[:] = [s for s in stmts if not (isinstance(s, Op) and s.target in targets)]
        for s in stmts:
            if isinstance(s, If):
                self.drop(s.then, targets)
                self.drop(s.orelse, targets)
            elif isinstance(s, Loop):
                self.drop(s.body, targets)


def _zeros(facts, atom):
    """Whether ``atom`` is made as float64 zeros (``np.zeros(n)``, ``np.zeros_like(x)``)."""
    made = facts.producer(atom) if isinstance(atom, Var) else None
    return made is not None and (made.prim == "zeros_like" or made.prim == "npcall" and
                                 made.param("func") == "zeros") and \
        isinstance(facts.dtype(atom), np.dtype) and facts.dtype(atom) == _FLOAT64
