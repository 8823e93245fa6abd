"""Decompositions: eigh and eigvalsh, svd and svdvals, qr.

Eigenvalues and singular values have gradients everywhere the values are
distinct, and at repeated ones a valid one (``V diag(w_bar) V^T``: exact for
any symmetric function of them, such as their sum or log-determinant).
Eigen- and singular vectors are not unique at repeated values and have no
derivative there: as JAX does for eigh, the factors ``1 / (w_j - w_i)`` are
then infinite and the gradient inf or NaN, never a finite wrong one. Values
equal to rounding (LAPACK returns exact ties a few ulps apart) count as
ties: JAX would give a huge finite number there, and its svd sets these
factors to 0, which is wrong for functions of the vectors that do not depend
on the basis chosen. So a function smooth there but computed through the
vectors (a matrix function ``V f(w) V^T``), and the second derivative of a
function of the eigenvalues (which goes through the vectors'), are NaN at
repeated values: their divided differences are not formed.

eigh and eigvalsh read one triangle (``UPLO``), so their gradients are those
of the function NumPy computes (see solves.py). qr's adjoint is for tall or
square matrices (m >= n), as JAX's; a wide one raises in the solve with R.
"""
from __future__ import annotations

import math

from ..errors import NoDerivativeRuleError
from ..ir.nodes import Const
from ..ir.primitive import ARRAY, NEW, define, like
from .linalg import transposed
from .solves import lower_half, matrix_size, read_triangle, tri


def _diagonal(b, x):
    return b.op("einsum", x, subscripts="...ii->...i", optimize=False, hint="diagonal")


def _times_columns(b, x, v):
    """x diag(v): column j of each matrix times v[j]."""
    return b.mul(x, b.op("expand_dims", v, axis=-2))


# Two computed values closer than this, relative to the largest, are taken to
# be equal: values equal in exact arithmetic come out of LAPACK a few rounding
# errors apart, and 1 / (their difference) would be a huge finite number.
TIE = 16 * 2.0 ** -52


def _gaps(b, w, squared=False):
    """F[i, j] = 1 / (w[j] - w[i]) off the diagonal (of w^2 with ``squared``),
    0 on it (written as JAX writes it, so the diagonal divides by 1, not 0),
    and inf where two values tie (to rounding): there the vectors have no
    derivative, and a gradient through them is inf or NaN, not a wrong number."""
    if squared:
        w = b.mul(w, w, hint="squares")
    eye = b.op("npcall", matrix_size(b, w), func="eye", kwargs=(), hint="eye")
    differences = b.sub(b.op("expand_dims", w, axis=-2), b.op("expand_dims", w, axis=-1),
                        hint="differences")
    gaps = b.sub(b.div(Const(1.0), b.add(differences, eye)), eye, hint="gaps")
    scale = b.op("max", b.op("abs", w), axis=-1, keepdims=True)
    with b.noting("eigen- or singular values equal to rounding: vectors have no derivative"):
        close = b.op("less_equal", b.op("abs", differences),
                     b.mul(Const(TIE), b.op("expand_dims", scale, axis=-1)))
        tied = b.op("logical_and", close, b.op("equal", eye, Const(0.0)), hint="tied")
        return b.op("where", tied, Const(math.inf), gaps, hint="gaps")


# ---- symmetric eigendecompositions ----------------------------------------------------------
def _lower(op):
    return op.param("UPLO", "L") in ("L", "l")


def _eigh_adjoint(b, a, w, v, w_bar, v_bar, lower):
    """S = V (diag(w_bar) + F o (V^T V_bar)) V^T; the symmetric gradient is
    (S + S^T) / 2, folded onto the triangle read."""
    if v_bar is None:
        s = b.op("matmul", _times_columns(b, v, w_bar), transposed(b, v))
    else:
        inner = b.mul(_gaps(b, w), b.op("matmul", transposed(b, v), v_bar))
        if w_bar is not None:
            eye = b.op("npcall", matrix_size(b, a), func="eye", kwargs=())
            inner = b.add(inner, b.mul(b.op("expand_dims", w_bar, axis=-2), eye))
        s = b.op("matmul", v, b.op("matmul", inner, transposed(b, v)))
    half = lower_half(b, matrix_size(b, a))
    return b.mul(b.add(s, transposed(b, s)), read_triangle(b, half, lower))


def _symmetric_tangent(b, a, da, lower):
    """dA as the symmetric matrix of the triangle read."""
    part = b.mul(da, read_triangle(b, lower_half(b, matrix_size(b, a)), lower))
    return b.add(part, transposed(b, part))


def eigh_rule(r, op, g):
    w_bar, v_bar = g
    w = r.b.op("output", op.target, index=0, hint="w")
    v = r.b.op("output", op.target, index=1, hint="v")
    return [_eigh_adjoint(r.b, op.args[0], w, v, w_bar, v_bar, _lower(op))]


def eigh_tangent(b, op, dargs):
    """dw = diag(P), dV = V (F o P), with P = V^T dA V."""
    if dargs[0] is None:
        return None
    a = op.args[0]
    w = b.op("output", op.target, index=0, hint="w")
    v = b.op("output", op.target, index=1, hint="v")
    p = b.op("matmul", transposed(b, v),
             b.op("matmul", _symmetric_tangent(b, a, dargs[0], _lower(op)), v))
    return (_diagonal(b, p), b.op("matmul", v, b.mul(_gaps(b, w), p)))


def eigvalsh_rule(r, op, g):
    a = op.args[0]
    both = r.b.op("eigh", a, **dict(op.params))
    v = r.b.op("output", both, index=1, hint="v")
    return [_eigh_adjoint(r.b, a, op.target, v, g, None, _lower(op))]


def eigvalsh_tangent(b, op, dargs):
    if dargs[0] is None:
        return None
    a = op.args[0]
    v = b.op("output", b.op("eigh", a, **dict(op.params)), index=1, hint="v")
    return b.op("einsum", v, _symmetric_tangent(b, a, dargs[0], _lower(op)), v,
                subscripts="...ij,...ik,...kj->...j", optimize=False)


def _eigenvalues_pattern(op, facts):
    matrices = facts.pattern(op.args[0])
    return None if matrices is None or len(matrices) < 2 else matrices[:-1]


define("eigh(a; UPLO='L')", ("np.linalg", "eigh"), NEW, reverse=eigh_rule,
       forward=eigh_tangent, outputs=(NEW, like(0)),
       output_names=("eigenvalues", "eigenvectors"),
       output_patterns=lambda op, facts: (_eigenvalues_pattern(op, facts),
                                          facts.pattern(op.args[0])))
define("eigvalsh(a; UPLO='L')", ("np.linalg", "eigvalsh"), NEW, reverse=eigvalsh_rule,
       forward=eigvalsh_tangent, pattern=_eigenvalues_pattern)


# ---- singular value decompositions ----------------------------------------------------------
def _refuse_hermitian(op):
    if op.param("hermitian", False):
        raise NoDerivativeRuleError(
            f"`{op.prim}`: hermitian=True is not differentiated", op.loc,
            "leave hermitian out (the same values), or use np.linalg.eigh")


def _factors(b, op):
    """U, s, V (not V^T) of the reduced SVD, from svd's results."""
    u = b.op("output", op.target, index=0, hint="u")
    s = b.op("output", op.target, index=1, hint="s")
    vh = b.op("output", op.target, index=2, hint="vh")
    if op.param("full_matrices", True):  # (square matrices: nothing to cut)
        k = b.op("getitem", b.op("shape", s), Const(-1), hint="k")
        upto = b.op("slice", Const(None), k, Const(None))
        u = b.op("getitem", u, Const(Ellipsis), upto)
        vh = b.op("getitem", vh, Const(Ellipsis), upto, Const(slice(None)))
    return u, s, transposed(b, vh)


def svd_rule(r, op, g):
    """A_bar = U (diag(s_bar) + J S + S K) V^T with J = F o (U^T U_bar -
    U_bar^T U), K = F o (V^T V_bar - V_bar^T V), F[i, j] = 1 / (s_j^2 - s_i^2);
    plus, for a tall U (wide V), the part of U_bar outside U's range,
    (I - U U^T) U_bar S^-1 V^T (Townsend 2016)."""
    _refuse_hermitian(op)
    b, (u_bar, s_bar, vh_bar) = r.b, g
    u, s, v = _factors(b, op)
    full = op.param("full_matrices", True)
    where = op.loc.short() if op.loc is not None else ""
    if full and u_bar is not None:
        u_bar = b.op("reduced", u_bar, s, axis=-1, message=where)
    v_bar = None
    if vh_bar is not None:
        if full:
            vh_bar = b.op("reduced", vh_bar, s, axis=-2, message=where)
        v_bar = transposed(b, vh_bar)
    inner = []
    for factor, bar, side in ((u, u_bar, -2), (v, v_bar, -1)):
        if bar is not None:
            product = b.op("matmul", transposed(b, factor), bar)
            rotation = b.mul(_gaps(b, s, squared=True), b.sub(product, transposed(b, product)))
            # J S scales columns, S K rows
            inner.append(b.mul(rotation, b.op("expand_dims", s, axis=side)))
    if s_bar is not None:
        eye = b.op("npcall", b.op("getitem", b.op("shape", s), Const(-1)), func="eye",
                   kwargs=())
        inner.append(b.mul(b.op("expand_dims", _off_corner(b, s, s_bar), axis=-2), eye))
    a_bar = [b.op("matmul", u, b.op("matmul", b.total(inner), transposed(b, v)))
             if inner else None]
    if u_bar is not None:
        outside = b.sub(u_bar, b.op("matmul", u, b.op("matmul", transposed(b, u), u_bar)))
        a_bar.append(b.op("matmul", b.op("tall_only", outside, u, s), transposed(b, v)))
    if v_bar is not None:
        outside = b.sub(v_bar, b.op("matmul", v, b.op("matmul", transposed(b, v), v_bar)))
        a_bar.append(b.op("matmul", u, transposed(b, b.op("tall_only", outside, v, s))))
    return [b.total(a_bar)]


def svd_tangent(b, op, dargs):
    """dS = U^T dA V; ds = diag(dS); dU = U (F o (dS S + S dS^T)) + (I - U U^T)
    dA V S^-1 for a tall U; dV likewise (as JAX's svd_jvp_rule)."""
    _refuse_hermitian(op)
    if dargs[0] is None:
        return None
    da = dargs[0]
    u, s, v = _factors(b, op)
    ds_matrix = b.op("matmul", transposed(b, u), b.op("matmul", da, v))
    gaps = _gaps(b, s, squared=True)
    ds_s = _times_columns(b, ds_matrix, s)
    s_ds = b.mul(b.op("expand_dims", s, axis=-1), ds_matrix)
    du = b.op("matmul", u, b.mul(gaps, b.add(ds_s, transposed(b, ds_s))))
    dv = b.op("matmul", v, b.mul(gaps, b.add(s_ds, transposed(b, s_ds))))
    da_v = b.op("matmul", da, v)
    du = b.add(du, b.op("tall_only", b.sub(da_v, b.op("matmul", u, b.op(
        "matmul", transposed(b, u), da_v))), u, s))
    da_u = b.op("matmul", transposed(b, da), u)
    dv = b.add(dv, b.op("tall_only", b.sub(da_u, b.op("matmul", v, b.op(
        "matmul", transposed(b, v), da_u))), v, s))
    dvh = transposed(b, dv)
    if op.param("full_matrices", True):
        du = b.op("undefined_beyond", du, b.op("output", op.target, index=0), axis=-1)
        dvh = b.op("undefined_beyond", dvh, b.op("output", op.target, index=2), axis=-2)
    return (du, _off_corner(b, s, _diagonal(b, ds_matrix)), dvh)


def _off_corner(b, s, s_bar):
    """A zero singular value is a corner, as abs at 0 (the kink policy): its
    gradient is 0 there."""
    with b.noting("a zero singular value is a kink: its gradient there is 0"):
        return b.op("where", b.op("not_equal", s, Const(0.0)), s_bar, Const(0.0))


def svdvals_rule(r, op, g):
    both = r.b.op("svd", op.args[0], full_matrices=False)
    u = r.b.op("output", both, index=0, hint="u")
    vh = r.b.op("output", both, index=2, hint="vh")
    return [r.b.op("matmul", _times_columns(r.b, u, _off_corner(r.b, op.target, g)), vh)]


def svdvals_tangent(b, op, dargs):
    if dargs[0] is None:
        return None
    both = b.op("svd", op.args[0], full_matrices=False)
    u = b.op("output", both, index=0, hint="u")
    vh = b.op("output", both, index=2, hint="vh")
    return _off_corner(b, op.target, b.op("einsum", u, dargs[0], vh,
                                          subscripts="...ik,...ij,...kj->...k",
                                          optimize=False))


define("svd(a; full_matrices=True, hermitian=False)", ("np.linalg", "svd"), NEW,
       reverse=svd_rule, forward=svd_tangent, outputs=(NEW, NEW, NEW),
       output_names=("U", "S", "Vh"))
define("svdvals(a)", ("np.linalg", "svdvals"), NEW, reverse=svdvals_rule,
       forward=svdvals_tangent)


# ---- the helpers of svd's gradient ------------------------------------------------------------
def tall_only_rule(r, op, g):
    """x / s where u is tall: linear in x; in s, -x g / s^2."""
    x, u, s = op.args
    mine = r.b.op("tall_only", g, u, s)
    s_bar = r.b.neg(r.b.op("sum", r.b.mul(mine, r.b.op("tall_only", x, u, s)), axis=-2)) \
        if r.wants(s) else None
    return [mine if r.wants(x) else None, None,
            r.unbroadcast(s_bar, s) if s_bar is not None else None]


def tall_only_tangent(b, op, dargs):
    x, u, s = op.args
    dx, _, ds = dargs
    terms = [b.op("tall_only", dx, u, s) if dx is not None else None]
    if ds is not None:
        scaled = b.mul(b.op("tall_only", x, u, s), b.op("expand_dims", ds, axis=-2))
        terms.append(b.neg(b.op("tall_only", scaled, u, s)))
    return b.total(terms)


def reduced_rule(r, op, h):
    g, s = op.args
    k = r.b.op("getitem", r.b.op("shape", s), Const(-1), hint="k")
    upto = r.b.op("slice", Const(None), k, Const(None))
    index = (Const(Ellipsis), upto) if op.param("axis", -1) == -1 else \
        (Const(Ellipsis), upto, Const(slice(None)))
    return [r.b.op("unindex", h, g, *index), None]


def undefined_beyond_rule(r, op, h):
    x, full = op.args
    k = r.b.op("getitem", r.b.op("shape", x), Const(op.param("axis", -1)), hint="k")
    upto = r.b.op("slice", Const(None), k, Const(None))
    index = (Const(Ellipsis), upto) if op.param("axis", -1) == -1 else \
        (Const(Ellipsis), upto, Const(slice(None)))
    return [r.unbroadcast(r.b.op("getitem", h, *index), x), None]


define("tall_only(x, u, s)", ("helper", "_tall_only"), NEW, reverse=tall_only_rule,
       forward=tall_only_tangent, result=ARRAY)
define("reduced(g, s; axis=-1, message='')", ("helper", "_reduced"), NEW,
       reverse=reduced_rule, linear=(0,), result=ARRAY)
define("undefined_beyond(x, full; axis=-1)", ("helper", "_undefined_beyond"), NEW,
       reverse=undefined_beyond_rule, linear=(0,), result=ARRAY)


# ---- QR ---------------------------------------------------------------------------------------
def _refuse_mode(op):
    if op.param("mode", "reduced") != "reduced":
        raise NoDerivativeRuleError(
            f"`qr`: mode={op.param('mode')!r} is not differentiated", op.loc,
            "use mode='reduced' (the default) or mode='r'")


def qr_rule(r, op, g):
    """M = R R_bar^T - Q_bar^T Q; A_bar = (Q_bar + Q copyltu(M)) R^-T, with
    copyltu(M) the symmetric matrix of M's lower triangle (m >= n)."""
    _refuse_mode(op)
    b, (q_bar, r_bar) = r.b, g
    q = b.op("output", op.target, index=0, hint="q")
    rr = b.op("output", op.target, index=1, hint="r")
    terms = []
    if r_bar is not None:
        terms.append(b.op("matmul", rr, transposed(b, r_bar)))
    if q_bar is not None:
        terms.append(b.neg(b.op("matmul", transposed(b, q_bar), q)))
    m = b.total(terms)
    n = matrix_size(b, rr)
    lower = b.mul(m, tri(b, n, k=-1))
    copied = b.add(b.add(lower, transposed(b, lower)), b.mul(m, b.op(
        "npcall", n, func="eye", kwargs=())))
    total = b.total([q_bar, b.op("matmul", q, copied)])
    return [transposed(b, b.op("solve", rr, transposed(b, total)))]


def qr_tangent(b, op, dargs):
    """With X = dA R^-1 and P = Q^T X, Omega = tril(P, -1) - tril(P, -1)^T:
    dQ = Q (Omega - P) + X, dR = (P - Omega) R (as JAX's qr_jvp_rule)."""
    _refuse_mode(op)
    if dargs[0] is None:
        return None
    q = b.op("output", op.target, index=0, hint="q")
    rr = b.op("output", op.target, index=1, hint="r")
    x = transposed(b, b.op("solve", transposed(b, rr), transposed(b, dargs[0])))
    p = b.op("matmul", transposed(b, q), x)
    strict = b.mul(p, tri(b, matrix_size(b, rr), k=-1))
    omega = b.sub(strict, transposed(b, strict))
    return (b.add(b.op("matmul", q, b.sub(omega, p)), x),
            b.op("matmul", b.sub(p, omega), rr))


define("qr(a; mode='reduced')", ("np.linalg", "qr"), NEW, reverse=qr_rule, forward=qr_tangent,
       outputs=(NEW, NEW), output_names=("Q", "R"))
