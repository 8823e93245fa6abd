"""The inverse and determinants: inv, det, slogdet.

det's gradient is the cofactor matrix, ``det(A) A^-T``, a polynomial in A's
entries: finite at singular matrices, where ``det(A) * inv(A)`` is not. The
runtime helper ``_cofactor`` computes it from the LU factors (``inv``) and,
where they fail, from the SVD; its derivative (det's second derivative),
``_cofactor_derivative``, from the SVD, finite everywhere too. The third
derivative is written with ``1 / det(A)``: NaN at singular matrices, and
inaccurate near them (a difference of terms of size 1 / det).

slogdet's gradient is ``A^-T`` itself, which no solve gives more cheaply; its
tangent ``tr(A^-1 dA)`` is a solve. At a singular matrix ``log|det|`` is
-inf and has no gradient: ``inv`` raises LinAlgError there.
"""
from __future__ import annotations

from ..ir.primitive import ARRAY, NEW, define, like
from .linalg import transposed


def _matrices(b, scalars):
    """Per-matrix numbers as (..., 1, 1), to scale each matrix of a stack
    (one number, for one matrix, scales it as it is)."""
    if b.facts.rank(scalars) == 0:
        return scalars
    return b.op("expand_dims", scalars, axis=(-2, -1))


def _inner(b, x, y):
    """<x, y> per matrix of a stack."""
    return b.op("sum", b.mul(x, y), axis=(-2, -1))


def inv_rule(r, op, g):
    """d(A^-1) = -A^-1 dA A^-1, so A_bar = -A^-T g A^-T."""
    inverse_t = transposed(r.b, op.target)
    return [r.b.neg(r.b.op("matmul", r.b.op("matmul", inverse_t, g), inverse_t))]


def inv_tangent(b, op, dargs):
    if dargs[0] is None:
        return None
    return b.neg(b.op("matmul", b.op("matmul", op.target, dargs[0]), op.target))


def det_rule(r, op, g):
    """d det(A) = <cofactor(A), dA>."""
    return [r.b.mul(_matrices(r.b, g), r.b.op("cofactor", op.args[0]))]


def det_tangent(b, op, dargs):
    if dargs[0] is None:
        return None
    return _inner(b, b.op("cofactor", op.args[0]), dargs[0])


def slogdet_rule(r, op, g):
    """The sign is flat; d log|det(A)| = tr(A^-1 dA), so A_bar = g A^-T."""
    _, g_logdet = g
    if g_logdet is None:
        return [None]
    inverse = r.b.op("inv", op.args[0], hint="inverse")
    return [r.b.mul(_matrices(r.b, g_logdet), transposed(r.b, inverse))]


def slogdet_tangent(b, op, dargs):
    if dargs[0] is None:
        return None
    return (None, b.op("trace", b.op("solve", op.args[0], dargs[0]), axis1=-2, axis2=-1))


define("inv(a)", ("np.linalg", "inv"), like(0), reverse=inv_rule, forward=inv_tangent)


def _per_matrix(op, facts):
    """One number per matrix of a stack: the stack's leading axes."""
    matrices = facts.pattern(op.args[0])
    return None if matrices is None or len(matrices) < 2 else matrices[:-2]


define("slogdet(a)", ("np.linalg", "slogdet"), NEW, reverse=slogdet_rule,
       forward=slogdet_tangent, outputs=(NEW, NEW), output_names=("sign", "logabsdet"),
       output_patterns=lambda op, facts: (_per_matrix(op, facts),) * 2)
define("det(a)", ("np.linalg", "det"), NEW, reverse=det_rule, forward=det_tangent,
       pattern=_per_matrix)


# ---- the cofactor matrix and its derivatives --------------------------------------------------
def cofactor_rule(r, op, g):
    """Its derivative is self-adjoint (det's Hessian is symmetric)."""
    return [r.b.op("cofactor_derivative", op.args[0], g)]


def cofactor_tangent(b, op, dargs):
    if dargs[0] is None:
        return None
    return b.op("cofactor_derivative", op.args[0], dargs[0])


def _third(b, a, e, g):
    """det's third derivative along e and g (a gradient in A): with C the
    cofactor, K its derivative, d = det(A) and s = <C, e>, from
    K(e) = (s C - C e^T C) / d,
    (K(<g, C> e + s g - g C^T e - e C^T g) - (s <g, C> - <g, C e^T C>) C / d) / d.
    NaN where d is 0."""
    c, d = b.op("cofactor", a), _matrices(b, b.op("det", a))
    s, gc = _matrices(b, _inner(b, c, e)), _matrices(b, _inner(b, g, c))
    ct = transposed(b, c)
    mixed = b.add(b.op("matmul", g, b.op("matmul", ct, e)),
                  b.op("matmul", e, b.op("matmul", ct, g)))
    direction = b.sub(b.add(b.mul(gc, e), b.mul(s, g)), mixed)
    cec = _matrices(b, _inner(b, g, b.op("matmul", c, b.op("matmul", transposed(b, e), c))))
    scale = b.div(b.sub(b.mul(s, gc), cec), d)
    return b.div(b.sub(b.op("cofactor_derivative", a, direction), b.mul(scale, c)), d)


def cofactor_derivative_rule(r, op, g):
    a, e = op.args
    return [r.unbroadcast(_third(r.b, a, e, g), a) if r.wants(a) else None,
            r.unbroadcast(r.b.op("cofactor_derivative", a, g), e) if r.wants(e) else None]


def cofactor_derivative_tangent(b, op, dargs):
    a, e = op.args
    da, de = dargs
    return b.total([b.op("cofactor_derivative", a, de) if de is not None else None,
                    _third(b, a, e, da) if da is not None else None])


define("cofactor(a)", ("helper", "_cofactor"), like(0), reverse=cofactor_rule,
       forward=cofactor_tangent, result=ARRAY)
define("cofactor_derivative(a, e)", ("helper", "_cofactor_derivative"), NEW,
       reverse=cofactor_derivative_rule, forward=cofactor_derivative_tangent, result=ARRAY)
