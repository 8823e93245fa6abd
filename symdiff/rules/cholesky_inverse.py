"""The inverse of a matrix from its Cholesky factor: LAPACK's potri.

``scipy.linalg.lapack.dpotri(c, lower=1)`` (``spotri`` for float32) returns
``(inv, info)``: on the triangle of ``c`` that holds the factor L, ``inv``
has that triangle of ``K^-1 = (L L^T)^-1``; on the other, ``c``'s own
entries. A Cholesky factor's adjoint calls it where the function takes a
log-determinant (cholesky_closed_forms.py): a third of the work of two
triangular solves with n right-hand sides, and under a microsecond on
small matrices where a SciPy solve costs several. Users may call it too.

The rules, for the lower factor (the upper one is its transpose):
``dP = -P dK P`` with ``dK = dL L^T + L dL^T``, P the symmetric inverse
the result's triangle holds; the other triangle passes ``c``'s through.
"""
from __future__ import annotations

from ..ir.primitive import NEW, SCALAR, define, like
from .linalg import transposed
from .solves import matrix_size, tri


def _lower_forms(b, c, lower):
    """(as_lower, mask): turns a matrix of this call into its lower-factor
    form (a transpose for the upper factor), and the lower mask."""
    def as_lower(x):
        return x if lower else transposed(b, x)
    return as_lower, tri(b, matrix_size(b, c))


def _inverse(b, out, mask, c):
    """P, the symmetric matrix whose lower triangle ``out`` holds."""
    held = b.mul(out, mask)
    eye = b.op("npcall", matrix_size(b, c), func="eye", kwargs=(), hint="eye")
    return b.sub(b.add(held, transposed(b, held)), b.mul(held, eye), hint="inverse")


def potri_rule(r, op, g):
    """<G, dP> (G the gradient on the inverse's triangle) is
    -<P (G + G^T) P L, dL>; the other triangle's gradient is c's."""
    g = g[0]
    if g is None:
        return [None]
    b, c, lower = r.b, op.args[0], bool(op.param("lower", 0))
    as_lower, mask = _lower_forms(b, c, lower)
    out = as_lower(b.op("output", op.target, index=0))
    factor, g_low = b.mul(as_lower(c), mask), b.mul(as_lower(g), mask)
    inverse = _inverse(b, out, mask, c)
    both = b.add(g_low, transposed(b, g_low))
    product = b.op("matmul", b.op("matmul", b.op("matmul", inverse, both), inverse), factor)
    lower_bar = b.sub(b.mul(as_lower(g), b.sub(1.0, mask)), b.mul(product, mask))
    return [as_lower(lower_bar)]


def potri_tangent(b, op, dargs):
    dc = dargs[0]
    if dc is None:
        return None
    c, lower = op.args[0], bool(op.param("lower", 0))
    as_lower, mask = _lower_forms(b, c, lower)
    out = as_lower(b.op("output", op.target, index=0))
    factor, dl = b.mul(as_lower(c), mask), b.mul(as_lower(dc), mask)
    inverse = _inverse(b, out, mask, c)
    part = b.op("matmul", dl, transposed(b, factor))
    dk = b.add(part, transposed(b, part))
    d_lower = b.sub(b.mul(as_lower(dc), b.sub(1.0, mask)),
                    b.mul(b.op("matmul", b.op("matmul", inverse, dk), inverse), mask))
    return (as_lower(d_lower), None)


for _routine in ("dpotri", "spotri"):
    define(f"{_routine}(c; lower=0)", ("module", "scipy.linalg.lapack", _routine), NEW,
           reverse=potri_rule, forward=potri_tangent, outputs=(like(0), SCALAR))
