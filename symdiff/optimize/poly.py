"""Elementwise expressions in a normal form: sums of products.

A `Poly` is a sum of terms, each a coefficient times a product of factors
raised to integer powers. A factor is an atom (a value computed elsewhere),
a call of an elementwise function of polys, a select ``where(mask, p, q)``,
or a sum kept whole inside a product. In this form like terms add up
(``0.5 r g + 0.5 r g`` is ``r g``), a factor over itself cancels (``6 s /
(2 s)`` is 3), and the selects of one mask become one select (``where(m, a,
0) + where(m, 0, b)`` is ``where(m, a, b)``). A product is pushed into a
select's branches, never pulled out of one: the mask applies after each
branch's local derivative, so the branch not taken leaks no NaN.

Nothing is expanded (``(1 - h^2) g`` stays a product of a sum) unless that
makes terms cancel. Division by a constant stays a division unless its
reciprocal is exact (a power of two), so no value is rounded twice.
"""
from __future__ import annotations

import math
from fractions import Fraction

from ..ir.nodes import Const, Var
from .expansions import Expansions
from .terms import Factor, Poly, accumulate as _accumulate, atom_key as _atom_key, \
    exact_reciprocal as _exact_reciprocal, number as _number, product as _product

__all__ = ["Algebra", "Factor", "Poly"]


class Algebra(Expansions):
    """Builds polys, remembering each factor by its key in order of first
    appearance (emission follows that order: deterministic)."""

    def __init__(self, limit=200):
        self.factors = {}   # key -> Factor
        self.forward = {}   # (monomial, coefficient) -> a forward value equal to it
        self.sums = {}        # a sum's key -> a forward value equal to it
        self.expansions = {}  # that value's factor key -> (the sum, its factors)
        self.limit = limit  # terms beyond this: too big to be worth it
        self.notes = {}  # what other modules cache of factors, by name

    # ---- making ----------------------------------------------------------------------
    def const(self, value):
        return Poly({frozenset(): float(value)})

    def atom(self, atom):
        if isinstance(atom, Const) and _number(atom.value):
            return self.const(atom.value)
        key = ("a", atom) if isinstance(atom, Var) else ("k", repr(atom.value))
        return self._factor(Factor("atom", key, atom=atom))

    def call(self, prim, args, params=(), math=False):
        key = ("c", prim, params, tuple(a.key for a in args))
        return self._factor(Factor("call", key, prim=prim, params=params, args=tuple(args),
                                   math=math))

    def where(self, mask, a, b):
        if a.key == b.key:
            return a
        key = ("w", _atom_key(mask), a.key, b.key)
        return self._factor(Factor("where", key, atom=mask, args=(a, b)))

    def whole(self, poly):
        """``poly`` as one factor (a sum inside a product)."""
        single = poly.single()
        if single is not None:
            return poly
        key = ("s", poly.key)
        return self._factor(Factor("sum", key, args=(poly,)))

    def _factor(self, factor):
        self.factors.setdefault(factor.key, factor)
        return Poly({frozenset({(factor.key, 1)}): 1.0})

    # ---- arithmetic ---------------------------------------------------------------------
    def add(self, p, q):
        terms = dict(p.terms)
        for m, c in q.terms.items():
            terms[m] = terms.get(m, 0.0) + c
        return self._tidy(Poly(terms))

    def neg(self, p):
        return Poly({m: -c for m, c in p.terms.items()})

    def sub(self, p, q):
        return self.add(p, self.neg(q))

    def scale(self, p, c):
        single = p.single()
        if single is not None and c != 1.0 and len(single[0]) == 1 \
                and self._where_of(single[0]) is not None:
            return self._into_where(single, self.const(c))
        return _settled_terms((m, c * k) for m, k in p.terms.items())

    def mul(self, p, q):
        cp, cq = p.constant(), q.constant()
        if cp is not None:
            return self.scale(q, cp)
        if cq is not None:
            return self.scale(p, cq)
        sp, sq = p.single(), q.single()
        for (single, other) in ((sp, q), (sq, p)):
            if single is not None and self._where_of(single[0]) is not None:
                return self._into_where(single, other)
        if sp is None:
            p, sp = self._as_factor(p)
        if sq is None:
            q, sq = self._as_factor(q)
        return _settled_terms([(_product(sp[0], sq[0]), sp[1] * sq[1])])

    def div(self, p, q):
        c = q.constant()
        if c is not None:
            if c == 0:
                return None
            return self.scale(p, 1.0 / c) if _exact_reciprocal(c) else \
                self.mul(p, self._inverse_const(c))
        q, single = (q, q.single()) if q.single() is not None else self._as_factor(q)
        mono, coef = single
        inverse = Poly({frozenset((k, -e) for k, e in mono): 1.0})
        if coef != 1.0:
            inverse = self.mul(inverse, self.scale(self.const(1.0), 1.0 / coef)
                               if _exact_reciprocal(coef) else self._inverse_const(coef))
        return self.mul(p, inverse)

    def power(self, p, n):
        single = p.single()
        if single is None or self._where_of(single[0]) is not None:
            return None
        mono, coef = single
        if n < 0 and not _exact_reciprocal(coef ** -n if coef else 0.0):
            return None
        return Poly({frozenset((k, e * n) for k, e in mono): coef ** n})

    def _inverse_const(self, c):
        factor = Factor("atom", ("k", repr(float(c))), atom=Const(float(c)))
        self.factors.setdefault(factor.key, factor)
        return Poly({frozenset({(factor.key, -1)}): 1.0})

    def _as_factor(self, p):
        """A sum in a product: its common factor out, the rest whole."""
        common, rest = self.common(p)
        whole = self.whole(rest)
        made = self.mul(Poly({common: 1.0}), whole) if common else whole
        return made, made.single()

    def common(self, p):
        """(monomial common to every term, the poly divided by it)."""
        monos = list(p.terms)
        shared = dict(monos[0]) if monos else {}
        for m in monos[1:]:
            exps = dict(m)
            shared = {k: (min(e, exps[k]) if e > 0 else max(e, exps[k]))
                      for k, e in shared.items()
                      if k in exps and (e > 0) == (exps[k] > 0)}  # (a common denominator too)
        shared = {k: e for k, e in shared.items() if e}
        if not shared:
            return frozenset(), p
        rest = {}
        for m, c in p.terms.items():
            exps = dict(m)
            for k, e in shared.items():
                exps[k] -= e
            rest[frozenset((k, e) for k, e in exps.items() if e)] = c
        return frozenset(shared.items()), Poly(rest)

    def _product_of(self, p, q):
        """``p * q`` term by term (each product as `mul` makes it)."""
        if len(p.terms) * len(q.terms) > self.limit:
            return None
        out = {}
        for m, c in p.terms.items():
            for n, k in q.terms.items():
                _accumulate(out, self.mul(Poly({m: c}), Poly({n: k})))
        return self._tidy(Poly(out))

    # ---- selects ----------------------------------------------------------------------------
    def _where_of(self, mono):
        """The where factor of a monomial that has one (to the first power)."""
        for key, exp in mono:
            if exp == 1 and self.factors[key].kind == "where":
                return self.factors[key]
        return None

    def _into_where(self, single, other):
        """``k W(m, a, b) * q`` is ``W(m, k a q, k b q)``: into the branches."""
        mono, coef = single
        w = self._where_of(mono)
        rest = Poly({frozenset(x for x in mono if x[0] != w.key): coef})
        factor = self.mul(rest, other)
        a, b = (self.mul(branch, factor) for branch in w.args)
        return self.where(w.atom, a, b)

    def _tidy(self, p):
        """Selects of one mask added into one; a sum in a term spread out
        where that makes terms cancel."""
        if len(p.terms) > self.limit:
            return p
        groups = {}
        for m, c in p.terms.items():
            w = self._where_of(m) if len(m) == 1 else None
            if w is not None:
                groups.setdefault(_atom_key(w.atom), []).append((m, c, w))
        for group in groups.values():
            if len(group) > 1:
                terms = dict(p.terms)
                a, b = self.const(0.0), self.const(0.0)
                for m, c, w in group:
                    del terms[m]
                    a = self.add(a, self.scale(w.args[0], c))
                    b = self.add(b, self.scale(w.args[1], c))
                merged = self.where(group[0][2].atom, a, b)
                return self.add(Poly(terms), merged)
        return self._spread(p)

    def _spread(self, p):
        for m, c in p.terms.items():
            for key, exp in m:
                factor = self.factors[key]
                if exp != 1 or factor.kind != "sum":
                    continue
                inner = factor.args[0]
                rest = frozenset(x for x in m if x[0] != key)
                terms = dict(p.terms)
                del terms[m]
                for im, ic in inner.terms.items():
                    spread = _product(rest, im)
                    terms[spread] = terms.get(spread, 0.0) + c * ic
                spread = Poly(terms)
                if len(spread.terms) < len(p.terms):
                    return self._tidy(spread)
        return p


def _settled_terms(terms):
    """Terms with a coefficient over a constant that divides it exactly (the
    ``2 pi / (2 pi S)`` of a log-density's slope) written as the quotient:
    ``2.0 / S``, rounded less, not more; other divisions by a constant stay."""
    out = {}
    for mono, coef in terms:
        mono, coef = _settled(mono, coef)
        out[mono] = out.get(mono, 0.0) + coef
    return Poly(out)


def _settled(mono, coef):
    for key, e in mono:
        if e == -1 and isinstance(key, tuple) and key[0] == "k" and coef:
            try:
                divisor = float(key[1])
            except (TypeError, ValueError):
                continue
            quotient = coef / divisor
            if math.isfinite(quotient) and quotient and math.isfinite(divisor) and \
                    Fraction(quotient) * Fraction(divisor) == Fraction(coef):  # (exactly)
                return mono - {(key, e)}, quotient
    return mono, coef
