"""Polys (poly.py) written back as operations of the IR.

The order of terms and factors is the order their factors first appeared in
(deterministic); a common factor of all terms, or a common coefficient, is
written once; a product a forward value equals is read from it; and the
``np.clip`` forms of kink_algebra.py are written as clips (under ``if c >
0`` for a bound known only when the code runs).
"""
from __future__ import annotations

from ..ir.nodes import Const, If, Merge, Var
from .kink_algebra import abs_bound, called, single_atom
from .poly import Poly
from .terms import exact_reciprocal, in_order


class Writer:
    def __init__(self, builder, algebra, facts):
        self.b, self.A, self.facts = builder, algebra, facts
        self.order = {k: (i, 0) for i, k in enumerate(algebra.factors)}
        self.placed = 0

    def poly(self, p):
        c = p.constant()
        if c is not None:
            return Const(c)
        if len(p.terms) > 1:
            common, rest = self.A.common(p)
            over = frozenset((k, -e) for k, e in common if e < 0)
            if over and self._forward_parts(common, 1.0)[0] != common:
                over = ()  # (p * (g - c) for e * (g - c) / s, where p = e / s)
            if over:  # a common denominator: one division of the sum
                up = frozenset((k, e) for k, e in common if e > 0)
                value = self.poly(rest) if not up else \
                    self.b.mul(self.term(up, 1.0), self.poly(rest))
                return self.b.div(value, self.term(over, 1.0))
            if common:
                return self.b.mul(self.term(common, 1.0), self.poly(rest))
            coefs = {abs(c) for c in p.terms.values()}
            if len(coefs) == 1 and 1.0 not in coefs:
                k = coefs.pop()
                inner = Poly({m: c / k for m, c in p.terms.items()})
                return self.b.mul(Const(k), self.poly(inner))
        terms = sorted(p.terms.items(), key=lambda t: (t[1] < 0, self._first(t[0])))
        value = None
        for mono, coef in terms:
            if value is None:
                value = self.term(mono, coef)
            elif coef < 0:
                value = self.b.sub(value, self.term(mono, -coef))
            else:
                value = self.b.add(value, self.term(mono, coef))
        return value

    def _first(self, mono):
        return min((self._rank(k) for k, _ in mono), default=(-1, 0))

    def _rank(self, key):
        """Where a factor goes in a product: the order factors first appeared
        in (never a frozenset's, which follows hashes of objects)."""
        found = self.order.get(key)
        if found is None:
            factors = self.A.factors
            found = self.order[key] = (
                list(factors).index(key) if key in factors else len(factors), 0)
        return found

    def _place(self, key, near):
        """A factor made while writing goes just after ``near``."""
        if key not in self.order:
            self.placed += 1
            self.order[key] = (self._rank(near)[0], self.placed)

    def term(self, mono, coef):
        known = self.A.forward.get((mono, coef))
        if known is not None:  # a forward value is this product: read it
            return known
        if coef < 0:  # -y * (a - b) as y * (b - a): the sign costs no pass of its own
            mono, coef = self._sign_into_sum(mono, coef)
        mono, coef = self._forward_parts(mono, coef)
        factors = sorted(mono, key=lambda ke: self._rank(ke[0]))
        clipped = self._sign_minimum(factors)
        num, den = [], []
        if clipped is not None:
            value, factors = clipped
            num.append(value)
        for key, exp in factors:
            value = self.factor(self.A.factors[key])
            if exp > 0:
                num.append(value if exp == 1 else self.b.op("power", value, Const(exp)))
            else:
                den.append(value if exp == -1 else self.b.op("power", value, Const(-exp)))
        small = self._smallest(num) if coef not in (1.0, -1.0) else None
        if small is not None:  # 2.0 * (x * g[:, None]) as x * (2.0 * g)[:, None]
            num[small], coef = self.b.mul(Const(coef), num[small]), 1.0
        sizes = [self._size(v) for v in num]
        big = max(sizes, default=0)
        if den and all(self._size(v) < big for v in den) and \
                (min(sizes) < big or coef != 1.0):
            # exp_z * (s / total), x * (-2.0 / n): the quotient of the smaller ones
            part = _product(self.b, [v for v, n in zip(num, sizes) if n < big])
            if part is None:
                part, coef = Const(coef), 1.0
            elif coef != 1.0:
                part, coef = self.b.mul(Const(coef), part), 1.0
            part = self.b.div(part, _product(self.b, den))
            num, den = [v for v, n in zip(num, sizes) if n == big] + [part], []
        value = _product(self.b, num)
        if value is None:
            value = Const(coef)
        elif coef == -1.0:
            value = self.b.neg(value)
        elif coef != 1.0:
            value = self.b.mul(Const(coef), value)
        if den:
            value = self.b.div(value, _product(self.b, den))
        return value

    def _forward_parts(self, mono, coef):
        """``mono`` (and ``coef``) with the products of two or more factors
        that forward values are read from them: ``g * d * a / b**2`` with ``q
        = a / b`` computed is ``g * d * q / b``."""
        while True:
            exps = dict(mono)
            best = None
            for (part, k), atom in self.A.forward.items():
                if len(part) >= 2 and (best is None or len(part) > len(best[0])) \
                        and k in (1.0, coef) \
                        and all(exps.get(f, 0) * e > 0 and abs(exps[f]) >= abs(e)
                                for f, e in part):
                    best = (part, atom, k)
            if best is None:
                return mono, coef
            coef /= best[2]
            (key, _), = next(iter(self.A.atom(best[1]).terms))
            self._place(key, min((k for k, _ in best[0]), key=self._rank))
            for k, e in best[0]:
                exps[k] -= e
            exps[key] = exps.get(key, 0) + 1
            mono = frozenset((k, e) for k, e in exps.items() if e)

    def _sign_into_sum(self, mono, coef):
        """``mono`` with a sum of it that has a term to subtract negated, and
        ``-coef``; or as they are."""
        for key, exp in sorted(mono, key=lambda ke: self._rank(ke[0])):
            f = self.A.factors[key]
            if exp == 1 and f.kind == "sum" and any(c < 0 for c in f.args[0].terms.values()):
                negated = self.A.whole(self.A.neg(f.args[0]))
                (new, _), = next(iter(negated.terms))
                self._place(new, key)
                return mono - {(key, 1)} | {(new, 1)}, -coef
        return mono, coef

    def _smallest(self, values):
        """The one factor of ``values`` with fewer entries than the others
        (more axes of length one, or fewer axes: a scalar), where the shapes
        are known; a coefficient multiplies it rather than the product."""
        found = [self.facts.pattern(v) for v in values]
        if len(values) < 2 or any(p is None for p in found):
            return None
        rank = max(len(p) for p in found)
        ones = [rank - len(p) + sum(1 for n in p if n == 1) for p in found]
        best = max(ones)
        if ones.count(best) != 1 or best == min(ones):
            return None
        return ones.index(best)

    def _size(self, value):
        """About how many entries ``value`` has, for ordering (larger: more):
        a scalar, a reduction kept along an axis, or a shape's length-one axes."""
        facts = self.facts
        if facts.is_scalar(value):
            return 0
        found = facts.pattern(value)
        if found is not None:
            return 10 + 2 * len(found) - sum(1 for n in found if n == 1)
        key = facts.key(value)
        return 50 if type(key) is tuple and key[0] == "kept" else 100

    def factor(self, f):
        if f.kind == "atom":
            return f.atom
        if f.kind == "sum":
            return self.poly(f.args[0])
        if f.kind == "where":
            return self._where(f)
        args = [self.poly(a) for a in f.args]
        with self.b.math_spelling(f.math):  # (math.cosh(t) stays the user's math call)
            return self.b.op(f.prim, *args, **dict(f.params))

    def _scaled(self, value, scale):
        if scale is None:
            return value
        mono, coef = scale
        up = frozenset((k, e) for k, e in mono if e > 0)
        down = frozenset((k, -e) for k, e in mono if e < 0)
        if up or coef != 1.0:
            value = self.b.mul(value, self.term(up, coef)) if up else \
                self.b.mul(Const(coef), value)
        return self.b.div(value, self.term(down, 1.0)) if down else value

    # ---- the clip identities ------------------------------------------------------------
    def _where(self, f):
        """``where(|x| <= c, x, c * sign(x))`` is ``clip(x, -c, c)`` for c >= 0."""
        found = abs_bound(self.facts, f.atom)
        if found is not None:
            x, c, inside = found
            taken, other = f.args if inside else f.args[::-1]
            scale = self._common_scale(taken, other, x, f.atom, inside)
            if scale is not None and self._bound(c) and self._is_signum(scale[1], x, c):
                return self._clip(x, c, lambda: self.poly(other), scale[0])
        return self.b.op("where", f.atom, self.poly(f.args[0]), self.poly(f.args[1]))

    def _common_scale(self, taken, other, x, mask, inside):
        """``(factor, other / factor)`` where ``taken`` is ``x`` times a
        factor both branches share (``t / (n beta)`` and ``sign(t) / n``:
        ``1 / (n beta)`` and ``sign(t) * beta``); factor None where ``taken``
        is ``x``; else None. A select on the mask in the factor (a guard of
        the division by beta) is its value where |x| < c: the clip is written
        under ``if c > 0`` (a constant c is positive), and the quotient must be
        ``c * sign(x)``, so the factor holds nothing but c and other's factors."""
        if single_atom(self.A, taken) is x:
            return None, other
        single, rest = taken.single(), other.single()
        if not isinstance(x, Var):
            return None
        (key, _), = next(iter(self.A.atom(x).terms))
        if single is None or rest is None or (key, 1) not in single[0] or \
                not (single[1] in (1.0, -1.0) or exact_reciprocal(single[1])):
            return None
        factor = {}
        for k, e in in_order(self.A.factors, single[0] - {(key, 1)}):
            f = self.A.factors[k]
            made = self.facts.producer(f.atom) if f.kind == "atom" else None
            side = f.args[0 if inside else 1].single() if f.kind == "where" and \
                f.atom is mask else None
            if made is not None and made.prim == "where" and made.args[0] is mask:
                side = self.A.atom(made.args[1 if inside else 2]).single()
            if side is not None and side[1] == 1.0:
                for k2, e2 in side[0]:
                    factor[k2] = factor.get(k2, 0) + e * e2
            else:
                factor[k] = factor.get(k, 0) + e
        factor = frozenset((k, e) for k, e in factor.items() if e)
        exps = dict(rest[0])
        for k, e in factor:
            exps[k] = exps.get(k, 0) - e
        quotient = Poly({frozenset((k, e) for k, e in exps.items() if e): rest[1] / single[1]})
        return (factor, single[1]), quotient

    def _is_signum(self, poly, x, c):
        single = poly.single()
        if single is None:
            return False
        mono, coef = single
        atoms = []
        for key, exp in mono:
            factor = self.A.factors[key]
            if exp != 1:
                return False
            signed = called(self.A, factor, "sign", self.facts)
            if signed is not None and signed[0] is x:
                atoms.append("sign")
            elif factor.kind == "atom" and factor.atom is c:
                atoms.append("c")
            else:
                return False
        if isinstance(c, Const):
            return atoms == ["sign"] and coef == c.value
        return sorted(atoms) == ["c", "sign"] and coef == 1.0

    def _sign_minimum(self, factors):
        """``sign(x) * minimum(|x|, c)`` among ``factors``: (the clip, the rest)."""
        for i, (key, exp) in enumerate(factors):
            signed = called(self.A, self.A.factors[key], "sign", self.facts)
            if exp != 1 or signed is None:
                continue
            x = signed[0]
            for j, (other, e) in enumerate(factors):
                q = self.A.factors[other]
                made = self.facts.producer(q.atom) if q.kind == "atom" and e == 1 else None
                if made is None or made.prim != "minimum" or x is None:
                    continue
                a, c = made.args
                for value, bound in ((a, c), (c, a)):
                    magnitude = self.facts.producer(value)
                    if magnitude is not None and magnitude.prim == "abs" and \
                            magnitude.args[0] is x and self._bound(bound):
                        rest = [fe for k, fe in enumerate(factors) if k not in (i, j)]
                        # (for c <= 0, minimum(|x|, c) is c: |x| >= 0)
                        return self._clip(x, bound, lambda: self.b.mul(
                            self.b.op("sign", x), bound)), rest
        return None

    def _bound(self, c):
        if isinstance(c, Const):
            value = c.value
            return isinstance(value, (int, float)) and not isinstance(value, bool) \
                and 0 < value < float("inf")
        return self.facts.is_scalar(c)

    def _clip(self, x, c, otherwise, scale=None):
        """``clip(x, -c, c)`` (times ``scale``, a (monomial, coefficient));
        for a bound known when the code runs, under ``if c >= 0`` (otherwise
        the value ``otherwise()`` makes)."""
        b = self.b
        if isinstance(c, Const):
            return self._scaled(b.op("clip", x, Const(-float(c.value)), Const(float(c.value)),
                                     hint=x.hint + "_clipped"), scale)
        # (at c == 0 the value is a zero of the sign of x: the other form keeps it)
        nonnegative = b.op("greater", c, Const(0), hint=c.hint + "_positive")
        with b.block() as then:
            clipped = self._scaled(b.op("clip", x, b.neg(c), c, hint=x.hint + "_clipped"),
                                   scale)
        with b.block() as orelse:
            other = otherwise()
        target = Var(x.hint + "_clipped")
        stmt = If(nonnegative, then, orelse, [Merge(target, clipped, other)], b.loc,
                  backward=True)
        b.append(stmt)
        self.facts.shape[target] = self.facts.key(clipped)
        found = self.facts.dtype(clipped)
        if found is not None:
            self.facts.dtypes[target] = found
        return target


def _product(b, values):
    value = None
    for v in values:
        value = v if value is None else b.mul(value, v)
    return value
