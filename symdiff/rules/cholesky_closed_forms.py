"""Closed forms of a Cholesky factor's adjoint for the terms other rules give it.

The adjoint (solves.py) is ``S + S^T`` on the triangle read, with
``S = L^-T Phi(L^T L_bar) L^-1``: in general two triangular solves with n
right-hand sides. The terms of ``L_bar`` that a log-determinant and a
quadratic form make (every Gaussian log-density: a GP's marginal
likelihood, multivariate_normal's logpdf) need neither:

- ``log(diag(L))``'s, ``c / diag(L)`` on the diagonal: Phi of ``L^T`` times
  it is ``c I / 2``, so its part of ``S + S^T`` is ``c K^-1``, potri's
  inverse from the factor (cholesky_inverse.py);
- a triangular solve's, ``-(L^-T x) r`` on the lower triangle: Phi of it is
  that of ``-x r`` (``L^T L^-T`` is I, and ``L^T`` times a strictly upper
  triangle is strictly upper); where ``r`` is ``q^T`` and ``x`` a multiple
  ``k q`` (the solution's gradient is a multiple of the solution, as in
  ``v @ v``), ``x r`` is symmetric, Phi of it adds to its transpose to make
  it, and its part of ``S + S^T`` is ``k (L^-T q)(L^-T q)^T``;
- a solve with the factor's (cho_solve's), ``-(u w^T + w u^T) L`` on the
  lower triangle: for a symmetric M, Phi of ``L^T M L`` adds to its
  transpose to make ``L^T M L``, so the part is M itself.

(In a GP's gradient these make ``K^-1 - a a^T``, as a hand-written gradient
has it.) The other terms go through the solves (triangular_products.py).
"""
from __future__ import annotations

from ..ir.nodes import Const
from .triangular_products import is_factor, signed_sum, solved_lt, terms

INVERSE_ROUTINES = {"float64": "dpotri", "float32": "spotri"}  # (LAPACK's potri)


def closed_forms(b, f, l_bar, a):
    """(known, rest): ``known`` the part of ``S + S^T`` the terms of ``l_bar``
    with a closed form make (None if none has one), ``rest`` the other
    (sign, term) pairs. ``f`` is the lower factor (solves._Factor) of ``a``."""
    found = terms(b, l_bar)
    parts, rest, taken = [], [], set()
    for i, (sign, term) in enumerate(found):
        if i in taken:
            continue
        part = _log_det_part(b, f, term, a)
        if part is None:
            part = _quadratic_part(b, f, term)
        if part is None:
            part = _symmetric_product_part(b, f, found, i, taken)
        if part is None:
            rest.append((sign, term))
        else:
            parts.append((sign, part))
    return signed_sum(b, parts), rest


def _log_det_part(b, f, term, a):
    """c K^-1 for ``undiag(c / diag(L))``."""
    made = b.facts.producer(term)
    if made is None or made.prim != "undiag" or made.param("k"):
        return None
    ratio = b.facts.producer(made.args[0])
    if ratio is None or ratio.prim != "divide" or not _is_number(b, ratio.args[0]):
        return None
    diag = b.facts.producer(ratio.args[1])
    if diag is None or diag.prim not in ("diag", "diagonal") or \
            any(v for _, v in diag.params) or not is_factor(b, f, diag.args[0]):
        return None
    inverse, c = _inverse(b, f, a), ratio.args[0]
    return inverse if _number(c) == 1 else b.mul(c, inverse)


def _quadratic_part(b, f, term):
    """k (L^-T q)(L^-T q)^T for ``(L^-T x) q^T`` with x = k q (columns)."""
    made = b.facts.producer(term)
    if made is None or made.prim != "matmul":
        return None
    x, row = solved_lt(b, f, made.args[0]), b.facts.producer(made.args[1])
    if x is None or row is None or row.prim != "matrix_transpose":
        return None
    xs, qs = b.facts.producer(x), b.facts.producer(row.args[0])
    if xs is None or qs is None or xs.prim != "as_columns" or qs.prim != "as_columns" or \
            xs.args[1] != qs.args[1]:
        return None
    k = multiple(b, xs.args[0], qs.args[0])
    if k is None:
        return None
    solved = made.args[0] if k == 1 else f.solve_lt(row.args[0], hint="a")
    outer = b.op("matmul", solved, b.op("matrix_transpose", solved))
    return outer if k == 1 else b.mul(Const(k), outer)


def _symmetric_product_part(b, f, found, i, taken):
    """u w^T + w u^T for the terms ``u (w^T L)`` and ``w (u^T L)`` of one
    sign (u u^T for ``u (u^T L)`` alone)."""
    pair = _column_row_factor(b, f, found[i][1])
    if pair is None:
        return None
    u, w = pair
    if u == w:
        return b.op("matmul", u, b.op("matrix_transpose", u))
    k = multiple(b, u, w)
    if k is not None:  # (u = k w: the pair is 2 k w w^T)
        for j in range(i + 1, len(found)):
            if j not in taken and found[j][0] == found[i][0] and \
                    _column_row_factor(b, f, found[j][1]) == (w, u):
                taken.add(j)
                return b.mul(Const(2.0 * k), b.op("matmul", w, b.op("matrix_transpose", w)))
    for j in range(i + 1, len(found)):
        if j not in taken and found[j][0] == found[i][0] and \
                _column_row_factor(b, f, found[j][1]) == (w, u):
            taken.add(j)
            return b.add(b.op("matmul", u, b.op("matrix_transpose", w)),
                         b.op("matmul", w, b.op("matrix_transpose", u)))
    return None


def _column_row_factor(b, f, term):
    """(u, w) if ``term`` is ``u @ (w^T @ L)``."""
    made = b.facts.producer(term)
    if made is None or made.prim != "matmul":
        return None
    right = b.facts.producer(made.args[1])
    if right is None or right.prim != "matmul" or not is_factor(b, f, right.args[1]):
        return None
    row = b.facts.producer(right.args[0])
    if row is None or row.prim != "matrix_transpose":
        return None
    return made.args[0], row.args[0]


def multiple(b, p, q, depth=0):
    """k (a float) if ``p`` is k times ``q`` by how it was made, else None."""
    if p == q:
        return 1.0
    made = b.facts.producer(p)
    if made is None or depth > 8:
        return None
    args = made.args
    if made.prim in ("add", "subtract"):
        first, second = (multiple(b, x, q, depth + 1) for x in args)
        if first is None or second is None:
            return None
        return first + second if made.prim == "add" else first - second
    if made.prim == "negative":
        k = multiple(b, args[0], q, depth + 1)
        return None if k is None else -k
    if made.prim == "multiply" or made.prim == "divide" and _number(args[1]):
        for at in (0, 1) if made.prim == "multiply" else (0,):
            c = _number(args[1 - at])
            k = multiple(b, args[at], q, depth + 1) if c is not None else None
            if k is not None:
                return k * c if made.prim == "multiply" else k / c
        return None
    if made.prim in _VECTOR_PRODUCT_ADJOINTS and _number(args[0]) is not None and \
            all(b.facts.rank(x) == 1 for x in args[1:]):  # g (a @ b): g b and g a
        k = multiple(b, args[2] if made.prim.endswith("_a") else args[1], q, depth + 1)
        return None if k is None else k * _number(args[0])
    return None


_VECTOR_PRODUCT_ADJOINTS = frozenset({"matmul_adjoint_a", "matmul_adjoint_b",
                                      "dot_adjoint_a", "dot_adjoint_b"})


def _number(atom):
    value = atom.value if isinstance(atom, Const) else None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else None


def _is_number(b, atom):
    return _number(atom) is not None or b.facts.rank(atom) == 0


def _inverse(b, f, a):
    """K^-1 from the factor, on the lower triangle at least (all the adjoint
    reads): LAPACK's potri where SciPy is at hand and the precision known;
    else cho_solve with the identity, or NumPy's inverse of L."""
    hint = _named(a, "_inv")
    dtype = b.facts.dtype(f.L)
    routine = INVERSE_ROUTINES.get(getattr(dtype, "name", None))
    if f.scipy and routine is not None:
        return b.op("output", b.op(routine, f.held_lower, lower=True), index=0, hint=hint)
    n = b.op("getitem", b.op("shape", f.L), Const(-1), hint="n")
    eye = b.op("npcall", n, func="eye", kwargs=(), hint="eye")
    if f.scipy:
        return b.op("cho_solve", f.L, eye, lower=True, check_finite=False, hint=hint)
    l_inv = b.op("inv", f.L, hint=_named(f.L, "_inv"))
    return b.op("matmul", b.op("matrix_transpose", l_inv), l_inv, hint=hint)


def _named(atom, suffix):
    hint = getattr(atom, "hint", "") or ""
    return hint + suffix if hint and not hint.startswith("_") and len(hint) < 16 else None
