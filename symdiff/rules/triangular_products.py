"""``L^T @ L_bar`` in a Cholesky factor's adjoint, term by term.

The adjoint (solves.py) is ``S + S^T`` on the triangle read, with
``S = L^-T Phi(L^T @ L_bar) L^-1`` (Murray's Phi: the lower triangle, half
the diagonal). Phi reads ``L^T @ L_bar`` only on its lower triangle, so it
reads ``L_bar`` only there (entry (i, j), i >= j, sums ``L_ki L_bar_kj`` over
k >= i >= j): a lower mask on a term of ``L_bar`` changes nothing and is left
out. The terms other rules give ``L_bar`` mostly have closed forms
(cholesky_closed_forms.py); the others are cheap to multiply one at a time:
``L^T @ diag(d)`` is ``L^T * d``, a column times a row a matrix-vector
product then an outer product, and ``L^T (L^-T x) r`` (a triangular solve's
term) is ``x r``. The whole product is O(n^3); these are O(n^2).
"""
from __future__ import annotations

from ..ir import patterns


def lower_part_of_lt_times(b, lower_t, terms, f):
    """An array whose lower triangle is that of ``lower_t`` times the signed
    sum of ``terms`` ((sign, term) pairs; ``lower_t`` the transpose of the
    lower factor ``f.L``, a solves._Factor)."""
    return signed_sum(b, [(sign, _times(b, lower_t, term, f)) for sign, term in terms])


def signed_sum(b, parts):
    """The sum of (sign, value) pairs."""
    total = None
    for sign, value in parts:
        if total is None:
            total = value if sign > 0 else b.op("negative", value)
        else:
            total = b.add(total, value) if sign > 0 else b.sub(total, value)
    return total


def terms(b, g):
    """(sign, term) pairs with ``g`` their signed sum, lower masks left out."""
    return _terms(b, g, 1, 0)


def _terms(b, g, sign, depth):
    """(sign, term) with ``g`` the signed sum of the terms."""
    made = b.facts.producer(g)
    if made is None or depth > 8:
        return [(sign, g)]
    if made.prim == "add":
        return _terms(b, made.args[0], sign, depth + 1) + \
            _terms(b, made.args[1], sign, depth + 1)
    if made.prim == "subtract":
        return _terms(b, made.args[0], sign, depth + 1) + \
            _terms(b, made.args[1], -sign, depth + 1)
    if made.prim == "negative":
        return _terms(b, made.args[0], -sign, depth + 1)
    if made.prim == "sum_to" and _same_shape(b.facts, *made.args):
        return _terms(b, made.args[0], sign, depth + 1)
    if made.prim == "multiply":
        for k in (0, 1):
            if _is_lower_mask(b, made.args[k]):
                return _terms(b, made.args[1 - k], sign, depth + 1)
    return [(sign, g)]


def is_lower_triangular(b, g, depth=0):
    """Whether ``g`` is lower triangular by how it was made: a sum of terms
    masked to the lower triangle or diagonal (a cho_factor's other triangle
    then gets no gradient: ``g * (1 - lower)`` is zero)."""
    made = b.facts.producer(g)
    if made is None or depth > 8:
        return False
    if made.prim in ("add", "subtract"):
        return all(is_lower_triangular(b, a, depth + 1) for a in made.args)
    if made.prim == "negative" or made.prim == "sum_to" and _same_shape(b.facts, *made.args):
        return is_lower_triangular(b, made.args[0], depth + 1)
    if made.prim == "multiply":
        return any(_is_lower_mask(b, a) for a in made.args)
    return made.prim == "undiag" and not made.param("k")


def _same_shape(facts, x, like):
    if facts.same_shape(x, like):
        return True
    found = facts.pattern(x)
    return found is not None and found == facts.pattern(like)


def _is_lower_mask(b, atom):
    made = b.facts.producer(atom)
    return made is not None and made.prim == "npcall" and made.param("func") == "tri" \
        and all(key == "dtype" for key, _ in made.param("kwargs"))


def _times(b, lower_t, term, f):
    facts = b.facts
    made = facts.producer(term)
    if made is not None and made.prim == "undiag" and not made.param("k") \
            and facts.rank(made.args[0]) == 1:
        return b.mul(lower_t, made.args[0])  # L^T diag(d): its columns scaled
    if made is not None and made.prim == "matmul" and _is_column(facts, made.args[0]):
        solved = solved_lt(b, f, made.args[0])
        if solved is not None:  # L^T (L^-T x) r is x r
            return b.op("matmul", solved, made.args[1])
        return b.op("matmul", b.op("matmul", lower_t, made.args[0]), made.args[1])
    return b.op("matmul", lower_t, term)


def solved_lt(b, f, atom):
    """x if ``atom`` is ``L^-T x`` (a solve with the factor ``f``), else None."""
    made = b.facts.producer(atom)
    if made is None:
        return None
    if made.prim == "solve_triangular" and made.param("lower") and \
            made.param("trans") == 1 and not made.param("unit_diagonal") and \
            is_factor(b, f, made.args[0]):
        return made.args[1]
    if made.prim == "solve":
        t = b.facts.producer(made.args[0])
        if t is not None and t.prim == "matrix_transpose" and is_factor(b, f, t.args[0]):
            return made.args[1]
    return None


def is_factor(b, f, atom):
    """Whether ``atom`` is the lower factor ``f.L`` (or an array holding it in
    its lower triangle: all a product with L^T or a solve with L reads)."""
    return _value(b, atom) in (_value(b, f.L), _value(b, f.factor))


def _value(b, atom):
    """What ``atom`` holds, masks to the lower triangle left out: a result of
    a function of several (cho_factor's c) is known by the call and index."""
    made = b.facts.producer(atom)
    if made is not None and made.prim == "multiply":
        for k in (0, 1):
            if _is_lower_mask(b, made.args[k]):
                return _value(b, made.args[1 - k])
    if made is not None and made.prim == "output":
        return made.args[0], made.param("index")
    return atom


def _is_column(facts, atom):
    found = facts.pattern(atom)
    return found is not None and len(found) == 2 and found[-1] == 1 and \
        patterns.is_named(found[0])
