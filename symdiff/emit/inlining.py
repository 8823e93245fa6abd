"""Which single-use values of generated code are folded into the expression
that reads them, and which keep a line (and a name) of their own.

A mixin of the `Emitter` (emitter.py), which supplies ``counts``, ``inlined``,
``scatters``, ``fn`` and ``_defs``; a value keeps its line where folding it
would make its reader's line too long, measured with located messages of a
fixed width so that no name depends on the file's name.
"""
from __future__ import annotations

import ast

from ..ir.nodes import FreeVar, If, Loop, Op, Var
from .layout import MAX_LINE

_WRITES = ("assign", "add_into", "add_at")  # statements: `a[i] = v`, ...
# (and effects, Op.effect; a copy taken before a write must not move after it)
_NEVER_INLINE = {"scalar_predicate", "pass_gradient", "snapshot", *_WRITES}
_MESSAGE = ast.Constant("file.py:1:1")  # a located message, as _width counts it


class Inlining:
    def _decide_inlining(self, stmts, depth, limit):
        """Fold single-use values into the expression reading them; with a
        ``limit``, not where that makes the expression longer than it."""
        self._decide_block(stmts, depth, limit)

    def _decide_block(self, stmts, depth, limit):
        defined_here = set()
        before = None
        for stmt in stmts:
            if isinstance(stmt, Op):
                defined_here.add(stmt.target)
                self._inline_args(stmt, defined_here, self._room(stmt, depth, limit))
            elif isinstance(stmt, If):
                self._inline_test(stmt, before)
                self._decide_inlining(stmt.then, depth + 1, limit)
                self._decide_inlining(stmt.orelse, depth + 1, limit)
            elif isinstance(stmt, Loop):
                self._decide_inlining(stmt.cond_block, depth + 1, limit)
                self._decide_inlining(stmt.body, depth + 1, limit)
                self._inline_condition(stmt)
                self._inline_bounds(stmt, before)
            before = stmt

    def _inline_test(self, branch, before):
        """``if delta > 0:`` where the test is made by the line just before
        the ``if`` and read by nothing else."""
        if isinstance(before, Op) and before.target is branch.cond and \
                self.counts.get(branch.cond) == 1 and self._inlinable(branch.cond) \
                and not before.effect:
            self.inlined[branch.cond] = before

    def _inline_bounds(self, loop, before):
        """``for t in range(n - 1, -1, -1):`` of a reverse loop, where a bound
        is made by the line just before the loop and read by nothing else."""
        if loop.backward and isinstance(before, Op) and before.target in loop.bounds and \
                self.counts.get(before.target) == 1 and self._inlinable(before.target) \
                and not before.effect:
            self.inlined[before.target] = before

    def _inline_condition(self, loop):
        """``while <expr>:`` when the condition's statements all fold into it."""
        ops = [s for s in loop.cond_block if isinstance(s, Op)]
        if len(ops) == len(loop.cond_block) and ops and ops[-1].target is loop.cond \
                and all(o.target in self.inlined for o in ops[:-1]) \
                and self.counts.get(loop.cond) == 1 and self._inlinable(loop.cond):
            self.inlined[loop.cond] = ops[-1]

    def _room(self, op, depth, limit):
        """How long ``op``'s expression may be: ``limit``, or for a backward
        pass's ``name = expression`` (no ``# file.py:LINE`` at its end), what
        its line leaves of ``MAX_LINE`` once its name is known."""
        name = self.names.get(op.target) if limit is not None else None
        if name is None or not op.backward or op.prim in _WRITES or \
                op.target in self.scatters or op.target in self.accumulations:
            return limit
        return max(limit, MAX_LINE - 4 * (depth + 1) - len(name) - 3)

    def _inline_args(self, op, defined_here, limit):
        if op.target in self.scatters:  # two lines: `x_bar = buffer`, `x_bar[i] += g`
            buffer, placed = self.scatters[op.target]
            self.inlined[placed.target] = placed
            self._inline_args(placed, defined_here, limit)
            if self._inlinable(buffer) and buffer in defined_here and \
                    (limit is None or self._width(self._defs[buffer]) <= limit):
                self.inlined[buffer] = self._defs[buffer]
            return
        placed = self.accumulations.get(op.target) if hasattr(self, "accumulations") \
            else None
        if placed is not None:  # `acc[i] += g`: the _unindex is written into the line
            self.inlined[placed.target] = placed
            self._inline_args(placed, defined_here, limit)
            return
        args = op.args[1:] if op.prim in _WRITES else op.args  # (the array written into)
        candidates = [a for a in args if isinstance(a, Var) and self._inlinable(a) and (
            a in defined_here or a in self._defs and self._free_view(self._defs[a]))
            and not (self._users_adjoint(a) and not self._keeps_line(op))]
        for var in candidates:
            self.inlined[var] = self._defs[var]
        if op.prim == "effect_call" and op.param("callee") == "assert":
            return  # (its message is made only when the test fails, as Python's is)
        while limit is not None and candidates and self._width(op) > limit:
            biggest = max(candidates, key=lambda v: len(ast.unparse(self.atom(v))))
            del self.inlined[biggest]
            candidates.remove(biggest)

    def _width(self, op):
        """The length of ``op`` written out, a located message counted as
        ``_MESSAGE`` whatever the file's name: which values get a line of their
        own must not depend on where the function was read from."""
        self._measuring = True
        try:
            if self._written_out(op):  # ``x_bar[i] = a + b``: what is placed
                placed = op.args[:1] if op.prim == "unindex" else op.args[:2]
                return sum(len(ast.unparse(self.atom(a))) + 3 for a in placed)
            return len(ast.unparse(self.expr(op)))
        finally:
            self._measuring = False

    def _keywords(self, op):
        keywords = super()._keywords(op)
        if getattr(self, "_measuring", False):
            for kw in keywords:
                if kw.arg in ("message", "messages"):
                    kw.value = _MESSAGE if kw.arg == "message" else \
                        ast.Tuple([_MESSAGE] * len(getattr(kw.value, "elts", ())), ast.Load())
        return keywords

    def _inlinable(self, var):
        op = self._defs.get(var)
        return (op is not None and (self.counts.get(var, 0) == 1 or self._free_view(op))
                and (var not in self.fn.named or self._adjoint(var)) and not op.effect
                and var not in self.fn.pinned
                and op.prim not in _NEVER_INLINE and var not in self.scatters
                and var not in getattr(self, "accumulations", ())  # (acc[i] += g: a line)
                and var not in self.read_by_unpacking  # (named by `w, v = eigh(a)`)
                and not isinstance(var, FreeVar) and not self._written_out(op))

    def _free_view(self, op):
        """A transpose of a named array: written where it is read, as often as
        it is (``g.T @ x``, ``g.T @ h``; ``h @ W.T`` in a loop it was moved
        out of, for its gradient's sake), for it costs nothing and a name
        would cost a line."""
        if op.prim == "slice":  # (x[:n] where each reads it, not a named slice(0, n))
            return self.counts.get(op.target, 0) > 1 and self._only_subscripts(op.target)
        arg = op.args[0] if op.prim in ("T", "matrix_transpose") and op.args else None
        return isinstance(arg, Var) and self.counts.get(op.target, 0) > 0 and \
            (arg not in self._defs or self.counts.get(arg, 0) > 1)

    def _only_subscripts(self, var):
        """Whether every read of ``var`` is as an index of a subscript."""
        if not hasattr(self, "_index_reads"):
            self._index_reads = {}
            for op in self._defs.values():
                for i, a in enumerate(op.args):
                    if isinstance(a, Var):
                        ok = op.prim == "getitem" and i >= 1
                        self._index_reads[a] = self._index_reads.get(a, True) and ok
        return self._index_reads.get(var, False) and not self._elsewhere(var)

    def _elsewhere(self, var):
        """Whether ``var`` is read by a statement that is not an operation
        (a merge, a loop's carry or tape, a test) or is returned."""
        if not hasattr(self, "_statement_reads"):
            op_reads = {}
            for op in self._defs.values():
                for a in op.args:
                    if isinstance(a, Var):
                        op_reads[a] = op_reads.get(a, 0) + 1
            self._statement_reads = {v for v, n in self.counts.items()
                                     if n != op_reads.get(v, 0)}
        return var in self._statement_reads

    def _adjoint(self, var):
        """An adjoint read once: folded into its reader like any temporary
        where the line stays short (``t_bar = (1.0 - h ** 2) * (logits_bar @
        W2.T)``), as a careful person writes it; named after its primal where
        it keeps a line (name_temporaries)."""
        return var in getattr(self.fn, "adjoints", {}) and self.counts.get(var, 0) == 1

    def _users_adjoint(self, var):
        """An adjoint named after a value the user named (``z_bar``)."""
        primal = getattr(self.fn, "adjoints", {}).get(var)
        return var in self.fn.named and primal is not None and primal in self.fn.named

    def _keeps_line(self, op):
        """Whether ``op`` is surely written on a line of its own, under a name
        (or as a write): an adjoint the user's name gave a name (``z_bar``)
        is folded only into such a line, never into a temporary that may get
        a line and a name later (``w_bar_1 = (...) @ X``, where ``z_bar @ X``
        read well)."""
        return op.prim in _WRITES or op.target in self.fn.named or \
            self.counts.get(op.target, 0) != 1

    def _written_out(self, op):
        """An index gradient a specialised gradient writes as two statements,
        ``x_bar = np.zeros_like(x)`` and ``x_bar[i] = g`` (``np.add.at(x_bar,
        i, g)`` where positions may repeat): it has a name."""
        if self.facts is None or op.prim not in ("unindex", "unindex_add", "unindex_sum"):
            return False
        like = op.args[2 if op.prim == "unindex_sum" else 1]
        return self.facts.is_float(like) and (
            op.prim != "unindex_add" or self.facts.same_dtype(like, op.args[0]))
