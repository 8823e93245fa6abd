"""Sums multiplied out where that makes terms cancel: a mixin of poly.py's
`Algebra`. A sum that is a forward value is that value first (so it cancels
against its reciprocal), then the value is opened; bounded, so a compile
stays in milliseconds.
"""
from __future__ import annotations

from .terms import Poly, accumulate as _accumulate, atom_key as _atom_key, \
    product as _product


class Expansions:
    """Needs ``factors``, ``sums``, ``expansions``, ``limit``, and `Algebra`'s
    ``atom``, ``const``, ``power``, ``_product_of`` and ``_tidy``."""

    def remember_sum(self, atom, poly, factors):
        """The forward value ``atom`` is the sum ``poly`` (``t = 1 - p``), whose
        factors are ``factors``: a sum met in a product is that value, and the
        value may be multiplied out where that cancels terms (`expanded`)."""
        self.sums.setdefault(poly.key, atom)
        self.expansions.setdefault(_atom_key(atom), (poly, factors))

    def expanded(self, p):
        """``p`` with the sums in its products multiplied out, where that is
        at most half as large once like terms cancel: ``p (1 - p) ((1 - y) / (1 - p) - y /
        p)``, a sigmoid's slope times a cross-entropy's, is ``p - y`` (a sum
        that is a forward value is that value first, so it cancels against
        its reciprocal; then the value is opened). Else None."""
        whole = self.weight(p)
        if whole > 4 * self.limit or not self._may_cancel(p):  # (bounded: milliseconds)
            return None
        best, weight = None, whole / 2  # (at most half the work: terms that
        made = self._distribute_all(p, 3, self._as_known_sum)  # cancel, not a**2 - b**2
        opened = made and self._distribute_all(made, 1, self._opened)
        for candidate in (made, opened):
            if candidate is not None and len(candidate.terms) <= self.limit \
                    and self.weight(candidate) <= weight:  # for (a + b) (a - b), which
                best, weight = candidate, self.weight(candidate)  # loses precision)
        spread = self._monomials_spread(p)  # (e (s / q - y / e): e s / q - y, a factor cancelled)
        if spread is not None and self.weight(spread) < (weight if best else whole):
            best, weight = spread, self.weight(spread)
        collected = opened and self._collected(opened, 4)  # (a sum met as its value: a
        if collected is not None and self.weight(collected) <= \
                (weight if best is not None else 0.75 * whole):
            best = collected  # cancellation no expansion of the user's makes)
        return best

    def _collected(self, p, depth):
        """``p`` with the terms that are one monomial times each term of a
        forward sum written as that monomial times the sum's value, which may
        then cancel: ``y / t + e y / t`` is ``y`` for ``t = 1 + e``. Else None."""
        for key, (known, factors) in self.expansions.items():
            if len(known.terms) < 2 or not depth:  # (a sum that is 0: x - x)
                continue
            (first, a), *others = known.terms.items()
            for mono, coef in p.terms.items():
                rest = _product(mono, frozenset((k, -e) for k, e in first))
                group = [(_product(rest, m), coef / a * c) for m, c in known.terms.items()]
                if len({m for m, _ in group}) == len(group) and \
                        all(p.terms.get(m) == c for m, c in group):
                    terms = {m: c for m, c in p.terms.items() if m not in dict(group)}
                    for k, f in factors.items():
                        self.factors.setdefault(k, f)
                    together = self.add(Poly(terms), Poly(
                        {_product(rest, frozenset({(key, 1)})): coef / a}))
                    return self._collected(together, depth - 1) or together
        return None

    def _monomials_spread(self, p):
        """``p`` with each monomial times one sum written term by term (never
        a sum times a sum: ``(a + b) (a - b)`` is not ``a**2 - b**2``, which
        loses precision), or None."""
        for mono in p.terms:
            if sum(self.factors[k].kind == "sum" and e > 0 for k, e in mono) > 1:
                return None

        def inner(key, exp, depth):
            factor = self.factors[key]
            return factor.args[0] if factor.kind == "sum" and exp == 1 else None
        return self._distribute_all(p, 1, inner)

    def _may_cancel(self, p):
        """Whether a factor of ``p`` (a sum that is a forward value counted as
        that value) is both multiplied and divided by somewhere in it: else
        multiplying out cancels nothing a normal form has not."""
        signs = {}

        def walk(poly):
            for mono in poly.terms:
                for key, exp in mono:
                    factor = self.factors[key]
                    if factor.kind == "sum" and factor.args[0].key in self.sums:
                        key = _atom_key(self.sums[factor.args[0].key])
                    signs.setdefault(key, set()).add(exp > 0)
                    for arg in factor.args:
                        if isinstance(arg, Poly):
                            walk(arg)
        walk(p)
        return any(len(found) == 2 for found in signs.values())

    def weight(self, p):
        """About how many operations writing ``p`` takes."""
        total = 0
        for mono, coef in p.terms.items():
            total += 1 + (abs(coef) != 1.0)
            for key, exp in mono:
                factor = self.factors[key]
                total += 1 + (abs(exp) != 1)
                total += sum(self.weight(a) for a in factor.args
                             if isinstance(a, Poly))
        return total

    def _as_known_sum(self, key, exp, depth):
        """A sum factor as the forward value it is, or multiplied out."""
        factor = self.factors[key]
        if factor.kind != "sum":
            return None
        atom = self.sums.get(factor.args[0].key)
        if atom is not None:
            return self.power(self.atom(atom), exp) if exp != 1 else self.atom(atom)
        if not 0 < exp <= 2 or not depth:
            return None
        inner = self._distribute_all(factor.args[0], depth - 1, self._as_known_sum)
        return None if inner is None else self._times(inner, exp)

    def _opened(self, key, exp, depth):
        """A forward value that is a sum, in a numerator: the sum."""
        found = self.expansions.get(key)
        if found is None or not 0 < exp <= 2:
            return None
        poly, factors = found
        for k, f in factors.items():
            self.factors.setdefault(k, f)
        return self._times(poly, exp)

    def _times(self, poly, exp):
        made = poly
        for _ in range(exp - 1):
            made = self._product_of(made, poly)
            if made is None:
                return None
        return made

    def _distribute_all(self, p, depth, rewrite):
        """``p`` with each factor ``rewrite`` gives a poly for replaced by it,
        products taken term by term; None if that grows past the limit."""
        out = {}
        for mono, coef in p.terms.items():
            term = self.const(coef)
            for key, exp in sorted(mono, key=lambda item: repr(item[0])):
                part = rewrite(key, exp, depth)
                if part is None:
                    part = Poly({frozenset({(key, exp)}): 1.0})
                term = self._product_of(term, part)
                if term is None:
                    return None
            _accumulate(out, term)
            if len(out) > self.limit:
                return None
        return self._tidy(Poly(out))
