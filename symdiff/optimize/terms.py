"""The terms of the algebra on elementwise expressions (poly.py): a `Poly`
is a sum of terms, each a coefficient times a product of `Factor`s raised to
integer powers; and the small operations on monomials both poly.py and
expansions.py use.
"""
from __future__ import annotations

import math

from ..ir.nodes import Var


class Factor:
    """``kind`` "atom" (``atom``), "call" (``prim``, ``params``, ``args``:
    polys), "where" (``mask``: an atom; ``args``: the two branches' polys) or
    "sum" (``args``: one poly)."""

    __slots__ = ("kind", "key", "atom", "prim", "params", "args", "math")

    def __init__(self, kind, key, atom=None, prim="", params=(), args=(), math=False):
        self.kind, self.key, self.atom = kind, key, atom
        self.prim, self.params, self.args = prim, params, args
        self.math = math  # (a call's Op.math: the user's `math` call it is written as)


class Poly:
    """A sum of terms: monomial -> coefficient. A monomial is a frozenset of
    (factor key, exponent); the empty one is the constant term."""

    __slots__ = ("terms",)

    def __init__(self, terms=None):
        self.terms = {m: c for m, c in (terms or {}).items() if c != 0}

    @property
    def key(self):
        return frozenset(self.terms.items())

    def constant(self):
        """The number this poly is, or None."""
        if not self.terms:
            return 0.0
        if len(self.terms) == 1 and frozenset() in self.terms:
            return self.terms[frozenset()]
        return None

    def single(self):
        """(monomial, coefficient) if one term, else None."""
        return next(iter(self.terms.items())) if len(self.terms) == 1 else None

    def size(self):
        return sum(len(m) + 1 for m in self.terms)


def accumulate(terms, p):
    for m, c in p.terms.items():
        terms[m] = terms.get(m, 0.0) + c


def product(m, n):
    exps = dict(m)
    for k, e in n:
        exps[k] = exps.get(k, 0) + e
    return frozenset((k, e) for k, e in exps.items() if e)


def atom_key(atom):
    return ("a", atom) if isinstance(atom, Var) else ("k", repr(atom.value))


def number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(value)


def exact_reciprocal(c):
    """Whether 1 / c is exact: c is a power of two."""
    if not c or not math.isfinite(c):
        return False
    mantissa, _ = math.frexp(abs(c))
    return mantissa == 0.5


def in_order(factors, keys):
    """``keys`` (factor keys, or (key, exponent) pairs) in the order their
    factors were made: a frozenset's own order follows hashes of objects,
    which differ from one compile to the next."""
    keys = list(keys)
    if len(keys) < 2:
        return keys
    rank = {k: i for i, k in enumerate(factors)}
    return sorted(keys, key=lambda k: rank.get(k[0] if type(k[0]) is tuple else k, -1))
