"""``L^T @ L_bar`` in a Cholesky factor's adjoint, term by term.

The adjoint (solves.py) needs only the lower triangle of ``L^T @ L_bar``
(Murray's Phi), and reads ``L_bar`` only there: with ``L^T`` upper
triangular, entry (i, j), i >= j, sums ``L_ki L_bar_kj`` over k >= i >= j.
So a lower mask on a term of ``L_bar`` changes nothing and is left out; and
the terms other rules give ``L_bar`` are cheap to multiply one at a time:
``log(diag(L))``'s is a diagonal matrix (``L^T @ diag(d)`` is ``L^T * d``),
a triangular solve's an outer product masked to the triangle
(``L^T @ (a @ c)`` is ``(L^T @ a) @ c`` for a column ``a``). The whole
product is O(n^3); these are O(n^2), as in a hand-written GP gradient.
Anything else is multiplied as it is.
"""
from __future__ import annotations

from ..ir import patterns


def lower_part_of_lt_times(b, lower_t, l_bar):
    """An array whose lower triangle is that of ``lower_t @ l_bar`` (``lower_t``
    the transpose of a lower-triangular matrix, of one matrix)."""
    products = [(sign, _times(b, lower_t, term)) for sign, term in _terms(b, l_bar, 1, 0)]
    total = None
    for sign, value in products:
        if total is None:
            total = value if sign > 0 else b.op("negative", value)
        else:
            total = b.add(total, value) if sign > 0 else b.sub(total, value)
    return total


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
        and not made.param("kwargs")


def _times(b, lower_t, term):
    facts = b.facts
    made = facts.producer(term)
    if made is not None and made.prim == "undiag" and not made.param("k") \
            and facts.rank(made.args[0]) == 1:
        return b.mul(lower_t, made.args[0])  # L^T diag(d): its columns scaled
    if made is not None and made.prim == "matmul" and _is_column(facts, made.args[0]):
        return b.op("matmul", b.op("matmul", lower_t, made.args[0]), made.args[1])
    return b.op("matmul", lower_t, term)


def _is_column(facts, atom):
    found = facts.pattern(atom)
    return found is not None and len(found) == 2 and found[-1] == 1 and \
        patterns.is_named(found[0])
