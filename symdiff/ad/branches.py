"""Reverse mode of branches: ``if``/``else`` (and the conditional backward a
value read only by branches gets: see branch_placement.py).

A mixin of `Reverse` (reverse.py), which supplies the builder ``b``, the
adjoints ``adj``, ``collect``, ``zeros``, ``backward_block`` and the branch
facts (``branch_of``, ``placed_in``, ``conditional_at``).
"""
from __future__ import annotations

from collections import defaultdict

from ..errors import UnsupportedSyntaxError
from ..ir.nodes import Const, If, Merge, Var, branch_definitions, walk
from ..ir.shapes import SCALAR
from .branch_placement import made_by
from .loops import TapeBar
from ..rules.lists import RowsBar


class BranchReverse:
    def backward_conditional(self, ops, tests):
        """The backward of ``ops`` (their values read only inside branches of
        `if`s on several conditions) under one `if`: that one of those
        branches was taken (``tests``: the branches around each read, as
        ``(condition, side)`` pairs, outermost first). The other adjoints they
        hand on are zero."""
        for op in ops:
            self.deferred.discard(id(op))
        del self.conditional_at[id(ops[-1])]
        with self.b.at(ops[-1].loc):
            taken = None
            for test in tests:
                both = self._taken(test, ops[-1].loc)
                taken = both if taken is None else \
                    self.b.op("logical_or", taken, both, hint="taken")
        stmt = If(taken, list(ops), [], [], ops[-1].loc)
        # run where the ops are: inside the branches that define them, which
        # the zeros it hands on need not test again (branch_placement.py)
        self.running_inside[id(stmt)] = {(id(owner), side) for op in ops for v in made_by(op)
                                         for owner, side in self.branch_of.get(v, ())}
        for op in ops:
            for var in made_by(op):
                self.branch_of[var] = ((stmt, "then"),) + self.branch_of.get(var, ())
        self.backward_if(stmt)

    def _taken(self, test, loc):
        """Whether the branches ``test`` (``(condition, side)``, outermost
        first) were taken: a condition computed inside the branch before it is
        read in that branch of an `if` on that branch's condition (so that
        reading this code back, symdiff knows it is there)."""
        cond, side = test[0]
        if len(test) > 1:
            with self.b.block() as inner:
                rest = self._taken(test[1:], loc)
            target = Var("taken")
            self.facts.shape[target] = SCALAR
            sides = (inner, []) if side == "then" else ([], inner)
            values = (rest, Const(False)) if side == "then" else (Const(False), rest)
            self.b.append(If(cond, *sides, [Merge(target, *values)], loc, backward=True))
            return target
        if side == "then":
            return cond
        negated = self.facts.producer(cond)
        return negated.args[0] if negated is not None and negated.prim == "logical_not" \
            else self.b.op("logical_not", cond, hint="not_" + cond.hint)

    def backward_if(self, stmt):
        seeds = [(m, self.collect(m.target)) for m in stmt.merges if m.target in self.adj]
        for m in stmt.merges:
            if self.facts.is_scalar(m.target):  # then so are both sources
                for source in (m.then, m.orelse):
                    if isinstance(source, Var):
                        self.facts.shape[source] = SCALAR
        outer = self.adj
        results = []
        for side, block in (("then", stmt.then), ("orelse", stmt.orelse)):
            block = self.placed_in.get(id(stmt), {}).get(side, []) + block
            self.adj = defaultdict(list)
            for merge, g in seeds:
                if g is not None and self.wants(getattr(merge, side)):
                    self.adj[getattr(merge, side)].append(g)
            for var in [v for v in outer if self._inside(v, stmt, side)]:
                self.adj[var].extend(outer.pop(var))  # from a later `if` on this condition
            with self.b.block() as stmts, self.b.at(stmt.loc):
                self.backward_block(block, placed=True)
                escaping = {v: self._escaping(terms) for v, terms in self.adj.items()
                            if terms}
            results.append((stmts, escaping))
        self.adj = outer
        self._join(stmt, results)

    def _escaping(self, terms):
        """The adjoint a branch gives a value defined outside it: a sum, or for
        a list a loop fills, the rows of its stacked gradient (lists.py)."""
        if all(isinstance(t, RowsBar) for t in terms):
            return RowsBar(self.b.total([t.rows for t in terms]), terms[0].offset,
                           terms[0].like)
        return self._total(terms)

    def _inside(self, var, stmt, side):
        """Whether ``var`` is defined within the ``side`` branch of ``stmt``."""
        return any(owner is stmt and where == side
                   for owner, where in self.branch_of.get(var, ()))

    def cond_key(self, cond):
        """What an `if` tests, before the run-time check that it is a scalar."""
        op = self.facts.defs.get(cond)
        return op.args[0] if op is not None and op.prim == "scalar_predicate" else cond

    def _join_rows(self, var, then, then_out, orelse, else_out, merges):
        """The rows of a stacked list's gradient from either branch (zeros from
        a branch that gives none), for the loop that filled it."""
        bar = then_out.get(var, else_out.get(var))
        sides = []
        for stmts, out in ((then, then_out), (orelse, else_out)):
            if var not in out:
                with self.b.into(stmts):
                    sides.append(self.b.op("zeros_like", bar.like, hint=var.hint + "_bar"))
            else:
                sides.append(out[var].rows)
        target = Var(var.hint + "_bar")
        merges.append(Merge(target, *sides))
        self.facts.shape[target] = self.facts.key(bar.like)
        return RowsBar(target, bar.offset, bar.like)

    def _zeros_where_defined(self, var, stmt):
        """A zero adjoint for ``var`` in a branch of ``stmt``, made under the
        branches that define ``var`` and do not hold ``stmt`` (a value the
        gradient made in one side of an `if`, read by a later one on its
        condition): elsewhere ``var`` does not exist, and its backward, which
        alone reads the zero, runs there too."""
        inside = self.running_inside.get(id(stmt), ())
        outside = [(owner, side) for owner, side in reversed(self.branch_of.get(var, ()))
                   if owner is not stmt and not any(s is stmt for s in walk(getattr(owner, side)))
                   and (id(owner), side) not in inside
                   and var in branch_definitions(getattr(owner, side), ((owner, side),))]
        return self._zeros_under(var, outside, stmt.loc)

    def _zeros_under(self, var, branches, loc):
        if not branches:
            return self.zeros(var)
        (owner, side), rest = branches[0], branches[1:]
        last = self.b.stmts[-1] if self.b.stmts else None
        if isinstance(last, If) and last.cond is owner.cond and not last.merges \
                and last.backward:  # (the zero made just before it: one `if`)
            with self.b.into(getattr(last, side)):
                return self._zeros_under(var, rest, loc)
        with self.b.block() as inner:
            zero = self._zeros_under(var, rest, loc)
        sides = (inner, []) if side == "then" else ([], inner)
        self.b.append(If(owner.cond, *sides, [], loc, backward=True))
        return zero

    def _same_shape(self, a, b):
        if self.facts.same_shape(a, b):
            return True
        found = self.facts.pattern(a)
        return found is not None and found == self.facts.pattern(b) and \
            None not in found

    def _same_cond(self, a, b):
        return self.cond_key(a) is self.cond_key(b)

    def _join(self, stmt, results):
        (then, then_out), (orelse, else_out) = results
        names = [v for v in then_out] + [v for v in else_out if v not in then_out]
        merges = []
        for var in names:
            side = "then" if var in then_out else "orelse"
            if (var in then_out) != (var in else_out) and any(
                    owner is not stmt and where == side and self._same_cond(owner.cond, stmt.cond)
                    for owner, where in self.branch_of.get(var, ())):
                # defined under the same condition by an earlier `if`, and read
                # on the same side: its adjoint stays there, nothing to merge
                self.adj[var].append(then_out.get(var, else_out.get(var)))
                continue
            if isinstance(then_out.get(var, else_out.get(var)), RowsBar):
                self.adj[var].append(self._join_rows(var, then, then_out, orelse, else_out,
                                                     merges))
                continue
            if isinstance(then_out.get(var, else_out.get(var)), TapeBar):
                raise UnsupportedSyntaxError(
                    "a tape is read under another condition than the one it was "
                    "written under", stmt.loc, "read a tape in a loop nested in the "
                    "same `if` conditions as the loop that appends to it")
            sides = []
            for stmts, out in ((then, then_out), (orelse, else_out)):
                if var not in out:
                    with self.b.into(stmts):
                        out[var] = self._zeros_where_defined(var, stmt)
                sides.append(out[var])
            target = Var(var.hint + "_bar")
            merges.append(Merge(target, *sides))
            if all(self._same_shape(side, var) for side in sides):
                self.facts.shape[target] = self.facts.key(var)
            # (else: a where's cone hands its values' adjoints on at the where's
            # shape, which may be larger: the merge's shape is not known)
            self.adj[var].append(target)
        if then or orelse or merges:
            self.b.append(If(stmt.cond, then, orelse, merges, stmt.loc, backward=True))
