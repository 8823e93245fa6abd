"""Index gradients added into one array, as a careful person writes them.

The gradient of ``x`` read as ``x[1:]`` and ``x[:-1]`` (np.diff, slices) and
elementwise is a sum of ``_unindex`` arrays (each zeros but for a slice) and
full-size terms, added in the order the chain rule made them:
``(t + (u1 + u2)) + (v1 + v2)``. Here such a sum is written as the full-size
terms first and each placed gradient added to it after, a negated one
subtracted: ``t + u1 - g`` ..., which emit/in_place_writes.py writes into
one array, ``x_bar = t; x_bar[1:] += g; x_bar[:-1] -= g``: no zero-filled
array per term and no adds of whole arrays. (Added in another order, the
sum may differ in the last bits.)
"""
from __future__ import annotations

from ..ir.nodes import Const, Op, const_value, use_counts
from .dead_code import eliminate_dead_code
from .direct_forms import rewrite, substitute
from .reads import all_blocks

_SUMS = ("add", "subtract")


def scatter_sums(fn, builder):
    facts = builder.facts
    if not facts.signature or facts.fuses():
        return fn  # (JAX writes no arrays: fused_forms.py pads instead)
    counts = use_counts(fn)
    subst, changed = {}, False
    for block in all_blocks(fn.body):
        defs = {s.target: s for s in block if isinstance(s, Op)}
        inner = {a for s in block if isinstance(s, Op) and s.prim in _SUMS
                 for a in s.args if _part(defs.get(a), counts)}
        new = []
        for stmt in block:
            made = None
            if isinstance(stmt, Op) and stmt.prim in _SUMS and stmt.backward \
                    and stmt.target not in inner:
                terms = _Terms(facts, defs, counts, stmt)
                if terms.worth_it():
                    made = rewrite(stmt, builder, terms.write, subst)
            changed = changed or made is not None
            new += made if made is not None else [stmt]
        block[:] = new
    if subst:
        substitute(fn.body, subst)
    return eliminate_dead_code(fn) if changed else fn


def _part(op, counts):
    """Whether ``op`` is a sum read once, by another: part of that one's terms."""
    return op is not None and op.prim in _SUMS and op.backward and counts.get(op.target) == 1


class _Terms:
    """The terms of the sum ``root``: (atom, sign), the placed ones apart."""

    def __init__(self, facts, defs, counts, root):
        self.facts, self.defs, self.counts, self.root = facts, defs, counts, root
        self.full, self.placed, self.order, self.left_deep = [], [], [], True
        self._read(root, 1)

    def _read(self, op, sign):
        for i, arg in enumerate(op.args):
            s = sign if i == 0 or op.prim == "add" else -sign
            made = self.defs.get(arg)
            if _part(made, self.counts) and self.facts.same_shape(arg, self.root.target):
                self.left_deep = self.left_deep and i == 0
                self._read(made, s)
                continue
            (self.placed if self._placing(made) else self.full).append((arg, s))
            self.order.append((arg, s))

    def _placing(self, op):
        return op is not None and op.prim in ("unindex", "unindex_add") and op.backward and \
            self.counts.get(op.target) == 1 and \
            self.facts.same_shape(op.args[1], self.root.target)

    def worth_it(self):
        """Placed terms, not already last, or placed negated (``+= -g``)."""
        if not self.placed or len(self.order) < 2:
            return False
        negated = any(self._negated(a) is not None for a, _ in self.placed)
        return negated or not self.left_deep or self.order != self.full + self.placed

    def _negated(self, atom):
        """(c, x) where the value ``atom`` places is ``-x`` (c None) or ``c * x``
        with a negative constant c (``x_bar[:-1] -= 2.0 * t``, not ``+= -2.0 *
        t``); else None. (np.add.at's too is added: not here.)"""
        placed = self.defs[atom]
        op = self.defs.get(placed.args[0])
        if placed.prim != "unindex" or op is None or self.counts.get(op.target) != 1:
            return None
        if op.prim == "negative":
            return None, op.args[0]
        if op.prim == "multiply":
            for c, x in (op.args, op.args[::-1]):
                value = const_value(c)
                if isinstance(value, float) and value < 0:
                    return value, x
        return None

    def write(self, b, stmt, facts):
        value = None
        for atom, sign in self.full:
            value = atom if value is None and sign > 0 else b.neg(atom) if value is None \
                else (b.add if sign > 0 else b.sub)(value, atom)
        for atom, sign in self.placed:
            negated = self._negated(atom)
            if negated is not None:
                placed, (c, x) = self.defs[atom], negated
                atom = b.op("unindex", x if c is None else b.mul(Const(-c), x),
                            *placed.args[1:], hint=placed.target.hint, **dict(placed.params))
                sign = -sign
            if value is None:
                value = atom if sign > 0 else b.neg(atom)
            else:
                value = (b.add if sign > 0 else b.sub)(value, atom)
        return value
