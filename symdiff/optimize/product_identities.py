"""Identities of products of elementwise functions of one value, applied to
the backward pass's polys (poly.py) as algebra.py reads them: ``sign(x) *
|x|`` is ``x`` (``sign(t) * where(|t| < 1, |t|, 1)`` is then a clip), and
``sinh(x) / cosh(x)`` is ``tanh(x)`` (log cosh's derivative, with no inf /
inf where cosh overflows), and ``e / (1 + e)`` with ``e = exp(a)`` is ``1 /
(1 + exp(-a))`` (softplus's slope: 1 where exp(a) overflows, not inf / inf).
Each holds for every value, NaN included; which form is cheaper (the forward
``exp(a)`` may be read elsewhere) algebra.py's costs decide.
"""
from __future__ import annotations

from ..ir.nodes import Var
from .kink_algebra import called
from .poly import Poly
from .terms import in_order


def products_simplified(A, poly, facts, opened=None):
    """``poly`` with the identities below applied in each term and in each
    select's branches; ``opened(atom, *replaced)``: a forward value as its
    terms, where an identity no longer reads the forward values ``replaced``
    (None: not the softplus identity, which needs it)."""
    found = {}
    for mono in poly.terms:
        kind = _worth(A, mono, facts)
        if kind:
            term = _sign_powers(A, mono, facts) if kind & _POWER else None
            if term is None and kind & _PAIR:
                term = _identity(A, mono, facts)
            if term is None and kind & _SOFTPLUS and opened:
                term = _logistic(A, mono, facts, opened)
            if term is None and kind & _SELECT:
                term = _in_branches(A, mono, facts, opened)
            if term is not None:
                found[mono] = term
    if not found:
        return poly
    made = Poly({m: c for m, c in poly.terms.items() if m not in found})
    for mono, term in found.items():
        made = A.add(made, A.scale(term, poly.terms[mono]))
    return made


def _in_branches(A, mono, facts, opened):
    """``mono`` with its select's branches simplified, or None."""
    w = next((A.factors[k] for k, e in in_order(A.factors, mono)
              if e == 1 and A.factors[k].kind == "where"), None)
    if w is None:
        return None
    branches = tuple(products_simplified(A, arg, facts, opened) for arg in w.args)
    if all(a is b for a, b in zip(branches, w.args)):
        return None
    rest = Poly({frozenset(x for x in mono if x[0] != w.key): 1.0})
    return A.mul(rest, A.where(w.atom, *branches))


_PAIR, _SOFTPLUS, _SELECT, _POWER = 1, 2, 4, 8  # what a monomial may hold (_worth)


def _worth(A, mono, facts):
    """Which identities ``mono`` may hold: two factors of a pair (`_PAIRS`),
    an exp and a sum of two terms, a select (flags; 0: none)."""
    kinds = A.notes.setdefault("identity_kinds", {})  # (factor key -> what it is)
    pairs = exps = sums = select = powers = 0
    for key, exp in mono:
        kind = kinds.get(key)
        if kind is None:
            factor = A.factors[key]
            made = facts.producer(factor.atom) if factor.kind == "atom" and \
                isinstance(factor.atom, Var) else None
            prim = factor.prim if factor.kind == "call" else made.prim if made else ""
            kind = kinds[key] = "where" if factor.kind == "where" else \
                "pair" if prim in _PAIRS else "exp" if prim == "exp" else \
                "sum" if factor.kind == "sum" and len(factor.args[0].terms) == 2 or \
                key in A.expansions and len(A.expansions[key][0].terms) == 2 else ""
        pairs += kind == "pair"
        powers += exp if kind == "pair" and exp > 0 else 0
        exps += kind == "exp"
        sums += kind == "sum"
        select += kind == "where"
    return (_PAIR if pairs >= 2 else 0) | (_SOFTPLUS if exps and sums else 0) | \
        (_SELECT if select else 0) | (_POWER if powers >= 3 else 0)


def _sign_powers(A, mono, facts):
    """``mono`` with ``sign(x) ** 3`` as ``sign(x)`` (an odd power of -1, 0, 1
    or NaN is itself; an even one its square), or None: ``sign(x) ** 2 *
    sign(x) * m`` of a soft threshold's gradient is its value."""
    exps, signs = dict(mono), {}
    for key, exp in in_order(A.factors, mono):
        operands = called(A, A.factors[key], "sign", facts) if exp > 0 else None
        if operands and isinstance(operands[0], Var):  # (np.sign(x) made twice: one)
            signs.setdefault(operands[0], []).append(key)
    changed = False
    for keys in signs.values():
        total = sum(exps[k] for k in keys)
        if total >= 3:
            for k in keys:
                del exps[k]
            exps[keys[0]], changed = 1 if total % 2 else 2, True
    return Poly({frozenset(exps.items()): 1.0}) if changed else None


def _logistic(A, mono, facts, opened):
    """``mono`` with ``e / (1 + e)``, e = exp(a), as ``1 / (1 + exp(-a))``."""
    exps = dict(mono)
    for key, exp in in_order(A.factors, mono):
        factor = A.factors[key]
        inner = factor.args[0] if factor.kind == "sum" else \
            A.expansions[key][0] if key in A.expansions else None  # (1 + e computed)
        if exp == -1 and inner is not None and key in A.expansions:
            for k, f in A.expansions[key][1].items():
                A.factors.setdefault(k, f)
        if exp != -1 or inner is None or len(inner.terms) != 2 or \
                inner.terms.get(frozenset()) != 1.0:
            continue
        (e_mono, c), = [(m, c) for m, c in inner.terms.items() if m]
        (e_key, e_exp), = e_mono if len(e_mono) == 1 else ((None, 0),)
        arg = called(A, A.factors[e_key], "exp", facts) if e_key is not None else None
        if c != 1.0 or e_exp != 1 or exps.get(e_key, 0) < 1 or not arg or arg[0] is None:
            continue
        replaced = [A.factors[k].atom for k in (e_key, key) if A.factors[k].kind == "atom"]
        a = opened(arg[0], *replaced) if isinstance(arg[0], Var) else A.atom(arg[0])
        other = A.whole(A.add(A.const(1.0), A.call("exp", [A.neg(a)])))
        (new_key, _), = next(iter(other.terms))
        exps[e_key] -= 1
        del exps[key]
        exps[new_key] = exps.get(new_key, 0) - 1
        return Poly({frozenset((k, e) for k, e in exps.items() if e): 1.0})
    return None


def _identity(A, mono, facts):
    """``mono`` with one pair of factors an identity makes one, or None."""
    found = {}
    for key, exp in in_order(A.factors, mono):
        for prim in _PAIRS:
            operands = called(A, A.factors[key], prim, facts) if abs(exp) == 1 else None
            if operands and isinstance(operands[0], Var):
                found.setdefault((prim, exp, operands[0]), key)
    for (prim, exp, x), key in found.items():
        for (other, other_exp), made in _PAIRS[prim].items():
            partner = found.get((other, other_exp * exp, x))
            if partner is not None and partner != key:
                keys = dict(mono)
                del keys[key], keys[partner]
                made = A.atom(x) if made is None else A.call(made, [A.atom(x)])
                (new, _), = next(iter(made.terms))
                keys[new] = keys.get(new, 0) + exp
                return Poly({frozenset((k, e) for k, e in keys.items() if e): 1.0})
    return None


# prim -> {(partner, its exponent over ours): what the pair is (None: x itself)}
_PAIRS = {
    "sign": {("abs", 1): None},       # sign(x) |x| = x: NaN, infinities, zeros alike
    "sinh": {("cosh", -1): "tanh"},   # sinh(x) / cosh(x) = tanh(x): no inf / inf
    "abs": {}, "cosh": {},
}
