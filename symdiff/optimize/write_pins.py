"""The parts of a write in place that keep other values right (writes_in_place.py):
a view copied where it is made, and values computed from the array before the
write kept on lines of their own (never folded into a line after it)."""
from __future__ import annotations

from ..ir.nodes import Op, Var
from ..ir.storage import shape_only
from .reads import all_blocks, replace_reads

_WRITES = ("assign", "add_into", "add_at")


class Pins:
    """Mixed into writes_in_place's plan, whose facts (``fn``, ``defs``,
    ``pos``, ``reads``, ``counts``) these read."""

    def snapshot(self, view):
        """Copy ``view`` where it is made; every read takes the copy."""
        made = self.defs[view]
        copy = Op(Var(view.hint), "snapshot", (view,), loc=made.loc, backward=made.backward)
        replace_reads(self.fn, view, copy.target)
        for stmts in all_blocks(self.fn.body):
            if made in stmts:
                stmts.insert(stmts.index(made) + 1, copy)
                break
        if self.facts is not None:
            self.facts.record(copy)
            self.facts.shape[copy.target] = self.facts.key(view)

    def pin(self, op, arrays):
        """Values computed from the array before ``op`` keep a line of their
        own if what reads them may come after it (folded into a line after
        it, directly or through other folded values, they would read it after it)."""
        for stmts in all_blocks(self.fn.body):
            for stmt in stmts:
                if isinstance(stmt, Op) and id(stmt) in self.pos \
                        and self.pos[id(stmt)] < self.pos[id(op)] and any(
                        isinstance(a, Var) and not shape_only(stmt.prim, i)
                        and self.roots_of(a) & arrays for i, a in enumerate(stmt.args)) \
                        and self.read_after(stmt.target, op, set()):
                    self.fn.named.add(stmt.target)
                    self.fn.pinned.add(stmt.target)  # (never folded, adjoint or not)

    def keeps_line(self, var):
        """Whether the emitter gives ``var`` a line of its own where it is made
        (emit/inlining.py: a named value, but not an adjoint, which it may
        fold into the line reading it)."""
        folded = var in getattr(self.fn, "adjoints", {})
        return var in self.fn.pinned or var in self.fn.named and not folded

    def read_after(self, var, op, seen):
        """Whether ``var`` may be folded into a line after ``op``: it is read
        once (else it has a line of its own, where it is made), after ``op`` or
        by a value that may be folded there in turn."""
        if var in seen or self.counts.get(var) != 1:
            return False
        seen.add(var)
        for read, pos, path, tape in self.reads:
            if read is var and (self.later(op, pos, path, var) or pos == self.pos[id(op)]):
                return True
        for made in self.defs.values():
            if any(a is var for a in made.args):
                if made.prim in ("snapshot",) + _WRITES or made.effect \
                        or self.keeps_line(made.target):
                    return False
                return self.read_after(made.target, op, seen)
        return False
