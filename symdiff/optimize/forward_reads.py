"""Forward values read as the terms they are made of, so the backward
pass's algebra (algebra.py) can meet them: ``t = 0.5 * r`` as that product,
``t = -y`` and ``t * z`` as ``-(y * z)``, a forward sum only the gradient
reads as its terms. What is read so and nothing else reads afterwards goes
with the operations the expression replaces (its cost counts them).
"""
from __future__ import annotations

from collections import Counter

from ..ir.nodes import Const, Var, uses, walk
from .terms import Poly, in_order
from .expanded_numbers import numeric as _numeric


class ForwardReads:
    """A mixin of algebra.py's region: it supplies ``algebra``, ``facts``,
    ``sums``, ``ours``, ``live_counts``, ``tree``, ``freed``, ``opened`` and
    ``opened_ops``."""

    def _forward(self, atom, depth=4):
        """A forward value that is a constant times another (``0.5 * r``), as
        that product, so it can meet the backward pass's terms; the writer
        reads the value where it writes that product again. A sum only the
        gradient reads, as its terms: ``x + (q - x)`` (a straight-through
        estimator's value) is ``q`` up to rounding (docs/semantics.md)."""
        known = self.read_forward.get((atom, depth)) if isinstance(atom, Var) else None
        if known is not None:  # (read once per attempt: its freed operations counted once)
            return known
        poly = self._forward_once(atom, depth)
        if isinstance(atom, Var) and poly is not None:
            self.read_forward[atom, depth] = poly
        return poly

    def _forward_once(self, atom, depth):
        A = self.algebra
        made = self.facts.producer(atom) if isinstance(atom, Var) else None
        if made is None or made.backward or depth == 0 or made.effect or \
                made.prim not in ("multiply", "divide", "negative", "add", "subtract",
                                  "reciprocal", "power"):
            return A.atom(atom)
        args = made.args
        if made.prim in ("add", "subtract"):
            self._remember_sum(atom, made)
            together = self._over_known_sum(made, depth)
            if together is not None:
                return self._opened_as(atom, made, together)
            saved = (self.opened, dict(A.forward), dict(A.factors), dict(self.read_forward))
            found = self._sum(atom, depth)
            if found is None or len(found[0].terms) >= found[1]:  # (only where terms
                self.opened, A.forward, A.factors, self.read_forward = saved  # cancel: x +
                return A.atom(atom)  # (q - x) is q; the order atoms come in, kept)
            self.freed += found[2]
            self.opened = True
            return found[0]
        if made.prim == "negative":
            poly = A.neg(self._forward(args[0], depth - 1))
        elif made.prim == "multiply" and any(_numeric(a) for a in args):
            c, v = args if _numeric(args[0]) else args[::-1]
            poly = A.scale(self._forward(v, depth - 1), float(c.value))
        elif made.prim == "divide" and _numeric(args[1]) and args[1].value:
            poly = A.div(self._forward(args[0], depth - 1), A.const(args[1].value))
        elif made.prim == "divide" and isinstance(args[1], Var):  # 1 / t, e / t
            poly = A.div(self._forward(args[0], depth - 1), self._denominator(args[1], depth))
        elif made.prim == "reciprocal" or made.prim == "power" and args[1] == Const(-1):
            poly = A.div(A.const(1.0), self._denominator(args[0], depth))
        elif made.prim == "power" and _numeric(args[1]) and args[1].value in range(2, 5):
            poly = self.algebra.power(self._forward(args[0], depth - 1), int(args[1].value))
        elif made.prim == "multiply" and all(isinstance(a, Var) for a in args):
            parts = [self._forward(a, depth - 1) for a in args]  # (0.5 * lam) * w,
            poly = A.mul(*parts)  # sigma * sqrt_T: a factor may cancel
        else:
            return A.atom(atom)
        if poly is None or not any(self.facts.same_shape(atom, a) for a in made.args
                                   if not _numeric(a)):
            return A.atom(atom)
        return self._opened_as(atom, made, poly)

    def _known_products(self, root):
        """The forward products and quotients of two values the expression
        holds (``p = e / s``), made before ``root``: the writer reads them
        where a term has their factors (``e * g / s`` is ``p * g``)."""
        A, at = self.algebra, self.position.get(root.target, 0)
        for atom, made in self.products:
            if self.position[atom] >= at or \
                    not all(("a", a) in A.factors for a in made.args):
                continue
            mono = frozenset({(("a", made.args[0]), 1),
                              (("a", made.args[1]), 1 if made.prim == "multiply" else -1)})
            A.forward.setdefault((mono, 1.0), atom)

    def _denominator(self, atom, depth):
        """A forward value divided by: a sum stays whole (remembered, so ``1 -
        1 / t`` may be put over it), anything else as `_forward` reads it."""
        made = self.facts.producer(atom)
        if made is not None and made.prim in ("add", "subtract") and not made.backward:
            self._remember_sum(atom, made)
            return self.algebra.atom(atom)
        return self._forward(atom, depth - 1)

    def _opened_as(self, atom, made, poly):
        single = poly.single()
        if single is not None:
            self.algebra.forward.setdefault((single[0], single[1]), atom)
        self.opened = True
        self.opened_ops.append(made)
        return poly

    def _over_known_sum(self, made, depth):
        """``c - k / q`` over ``q``, where ``q`` is a forward sum whose number
        that cancels (``1 - p`` with ``p = 1 / t``, ``t = 1 + e``: ``e / t``,
        which is also the more accurate where p is near 1); else None."""
        A = self.algebra
        number = [a for a in made.args if _numeric(a)]
        values = [a for a in made.args if isinstance(a, Var)]
        quotient = self.facts.producer(values[0]) if len(values) == 1 else None
        if len(number) != 1 or quotient is None or \
                quotient.prim not in ("divide", "reciprocal", "power", "negative") or \
                not self.facts.same_shape(values[0], made.target):
            return None
        saved = (dict(A.forward), dict(A.factors), list(self.opened_ops), self.opened,
                 dict(self.read_forward))
        part = self._forward(values[0], depth - 1)
        single = part.single() if part is not None else None
        for key, exp in in_order(A.factors, single[0]) if single else ():
            known = A.expansions.get(key)
            if exp != -1 or known is None:
                continue
            rest = Poly({single[0] - {(key, exp)}: single[1]})  # (v times q)
            c = A.const(number[0].value)
            if made.prim == "subtract" and made.args[0] is values[0]:
                c = A.neg(c)
            elif made.prim == "subtract":
                rest = A.neg(rest)
            for k, f in known[1].items():
                A.factors.setdefault(k, f)
            over = A.add(A.mul(c, known[0]), rest)  # (c q + k) / q
            if len(over.terms) < len(known[0].terms):
                return A.div(over, A.atom(A.factors[key].atom))
        A.forward, A.factors, self.opened_ops, self.opened, self.read_forward = saved
        return None

    def _unread_forward(self, made):
        """The forward products opened into the expression that nothing reads
        once ``made`` replaces the old operations (``t = -y`` and ``t * z``
        where the gradient is written with ``y * z``): they go too."""
        kept = {a for s in walk(made) for a in uses(s) + [
            x for m in getattr(s, "merges", ()) for x in uses(m)] if isinstance(a, Var)}
        reads = Counter(a for op in self.tree + self.freed for a in op.args
                        if isinstance(a, Var))
        freed, changed = [], True
        while changed:
            changed = False
            for op in self.opened_ops:
                if all(op is not f for f in freed) and op.target not in kept and \
                        reads[op.target] == self.live_counts.get(op.target, 0) > 0:
                    freed.append(op)
                    reads.update(a for a in op.args if isinstance(a, Var))
                    changed = True
        return freed

    def _remember_sum(self, atom, made):
        """Tell the algebra the forward value ``atom`` is the sum ``made``
        computes (``t = 1 - p``), of values and numbers of its shape."""
        A = self.algebra
        known = self.sums.get(atom)  # (the same in every attempt: factor keys are atoms')
        if known is None:
            if not all(_numeric(a) or isinstance(a, Var) and self.facts.same_shape(a, atom)
                       for a in made.args):
                known = self.sums[atom] = ()
            else:
                before = set(A.factors)
                parts = [A.atom(a) for a in made.args]
                poly = A.add(*parts) if made.prim == "add" else A.sub(*parts)
                new = {k: A.factors.pop(k) for k in list(A.factors) if k not in before}
                known = self.sums[atom] = (poly, {k: A.factors.get(k) or new[k]
                                                  for m in poly.terms for k, _ in m})
        if known:
            A.remember_sum(atom, *known)

    def _sum(self, atom, depth):
        """(normal form, number of terms read, operations nothing else reads)
        of a forward sum only the gradient reads, through such sums in it."""
        made = self.facts.producer(atom) if isinstance(atom, Var) else None
        if made is None or made.prim not in ("add", "subtract") or made.backward or \
                made.effect or depth == 0 or atom not in self.ours or not all(
                    isinstance(a, Var) and self.facts.same_shape(a, atom) for a in made.args):
            poly = self._forward(atom, depth - 1) if depth else self.algebra.atom(atom)
            return poly, len(poly.terms) if poly is not None else 1, []
        parts = [self._sum(a, depth - 1) for a in made.args]
        if any(p[0] is None for p in parts):
            return None
        A = self.algebra
        poly = A.add(parts[0][0], parts[1][0]) if made.prim == "add" else \
            A.sub(parts[0][0], parts[1][0])
        freed = [made] if self.live_counts.get(atom) == 1 else []
        return poly, parts[0][1] + parts[1][1], freed + parts[0][2] + parts[1][2]
