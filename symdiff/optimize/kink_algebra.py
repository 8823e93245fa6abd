"""Identities of the functions with kinks, on polys (poly.py).

A share of ``maximum``'s (or ``minimum``'s) gradient times a difference that
is zero wherever the share is not 1 is that difference (``(q - d) * step(d,
a)`` with ``q = minimum(a, d)`` is ``q - d``); and the forms the writer
(writer.py) recognises as ``np.clip``: ``where(|x| <= c, x, c * sign(x))``
and ``sign(x) * minimum(|x|, c)``. Values, NaN included, are the same.
"""
from __future__ import annotations

from ..ir.nodes import Const, Var
from .poly import Poly


def support(A, poly, facts):
    """A share of maximum's (or minimum's) gradient, times a difference that
    is zero wherever the share is not 1, is that difference: the share goes."""
    changed = False
    terms = {}
    for mono, coef in poly.terms.items():
        keys = dict(mono)
        for key in list(keys):
            region = _share_region(A, A.factors[key], facts) if keys[key] == 1 else None
            if region is not None and any(
                    _vanishes_outside(A, A.factors[k], region, facts)
                    for k in keys if k != key and keys[k] == 1):
                del keys[key]
                changed = True
        terms[frozenset(keys.items())] = terms.get(frozenset(keys.items()), 0.0) + coef
    return Poly(terms) if changed else poly


def _share_region(A, factor, facts):
    """``(x, y)`` if ``factor`` is 1 exactly where x > y (0 or 1/2 elsewhere):
    ``step(x, y)``, ``heaviside(x - y, 0.5)`` or ``0.5 + 0.5 * sign(x - y)``;
    else None."""
    found = called(A, factor, "step", facts)
    if found is not None:
        x, y = found
        return (x, y) if x is not None and y is not None else None
    if factor.kind == "call" and factor.prim == "heaviside" and \
            factor.args[1].constant() == 0.5:
        return _difference(A, factor.args[0]) or _atom_and_zero(A, factor.args[0])
    found = called(A, factor, "heaviside", facts) if factor.kind == "atom" else None
    if found is not None and _same(found[1], Const(0.5)) and isinstance(found[0], Var):
        made = facts.producer(found[0])  # (a value made as x - y, or x against 0)
        if made is not None and made.prim == "subtract" and made.backward:
            return tuple(made.args)
        return found[0], Const(0.0)
    if factor.kind != "sum":
        return None
    inner = factor.args[0]
    if inner.terms.get(frozenset()) != 0.5 or len(inner.terms) != 2:
        return None
    (mono, coef), = [(m, c) for m, c in inner.terms.items() if m]
    if coef != 0.5 or len(mono) != 1:
        return None
    (key, exp), = mono
    sign = A.factors[key]
    if exp != 1 or sign.kind != "call" or sign.prim != "sign":
        return None
    return _difference(A, sign.args[0])


def _difference(A, poly):
    """(x, y) if ``poly`` is x - y (atoms, or an atom and a constant)."""
    if len(poly.terms) != 2:
        return None
    (m1, c1), (m2, c2) = poly.terms.items()
    if not m1:
        (m1, c1), (m2, c2) = (m2, c2), (m1, c1)
    if not m1 or c1 not in (1.0, -1.0):
        return None
    first = _mono_atom(A, m1)
    if not m2:
        second = Const(-c2 * c1)
    elif c2 == -c1:
        second = _mono_atom(A, m2)
    else:
        return None
    return (first, second) if c1 == 1.0 else (second, first)


def _atom_and_zero(A, poly):
    """(x, 0) if ``poly`` is the atom x."""
    x = single_atom(A, poly)
    return (x, Const(0.0)) if isinstance(x, Var) else None


def _vanishes_outside(A, factor, region, facts):
    """Whether ``factor`` (a sum) is zero wherever x > y fails, for
    ``region`` (x, y): it is q - y with q = maximum(x, y), or y - q with
    q = minimum(y, x) (and their negatives)."""
    if factor.kind not in ("sum", "atom") or None in region:
        return False
    pair = _difference(A, factor.args[0]) if factor.kind == "sum" else \
        (factor.atom, Const(0.0))  # (q itself: q - 0)
    if pair is None or None in pair:
        return False
    x, y = region
    for q, other in (pair, pair[::-1]):
        made = facts.producer(q) if isinstance(q, Var) else None
        if made is None or made.prim not in ("maximum", "minimum") or \
                not _same(other, y) and not _same(other, x):
            continue
        operands = list(made.args)
        if made.prim == "maximum" and other is not None and _same(other, y) and \
                any(_same(a, x) for a in operands) and any(_same(a, y) for a in operands):
            return True
        if made.prim == "minimum" and _same(other, x) and \
                any(_same(a, x) for a in operands) and any(_same(a, y) for a in operands):
            return True  # q = minimum(y, x) is x where y > x: q - x vanishes outside
    return False


def called(A, factor, prim, facts):
    """The operands (atoms) of ``factor`` if it is ``prim(...)``: a call in
    the expression, or a value made by one; else None."""
    if factor.kind == "call" and factor.prim == prim:
        return [single_atom(A, p) for p in factor.args]
    made = facts.producer(factor.atom) if factor.kind == "atom" else None
    return list(made.args) if made is not None and made.prim == prim else None


def _same(a, b):
    if isinstance(a, Const) and isinstance(b, Const):
        return a.value == b.value
    return a is b


def single_atom(A, poly):
    single = poly.single()
    if poly.constant() is not None:
        return Const(poly.constant())
    if single is None or single[1] != 1.0 or len(single[0]) != 1:
        return None
    return _mono_atom(A, single[0])


def _mono_atom(A, mono):
    if not mono:
        return None
    if len(mono) != 1:
        return None
    (key, exp), = mono
    factor = A.factors[key]
    return factor.atom if exp == 1 and factor.kind == "atom" else None


def abs_bound(facts, mask):
    """(x, c, inside) if ``mask`` compares |x| with c (a constant or a
    scalar): inside is True for |x| < c or |x| <= c."""
    op = facts.producer(mask)
    if op is None or op.prim not in ("less", "less_equal", "greater", "greater_equal"):
        return None
    inside = op.prim.startswith("less")
    left, right = op.args
    magnitude = facts.producer(left)
    if magnitude is None or magnitude.prim != "abs":
        left, right, inside = right, left, not inside
        magnitude = facts.producer(left)
    if magnitude is None or magnitude.prim != "abs":
        return None
    return magnitude.args[0], right, inside
