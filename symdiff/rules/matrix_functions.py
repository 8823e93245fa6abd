"""Functions of matrices: pinv, lstsq, matrix_power, multi_dot and
scipy.linalg.expm (with expm_frechet, its derivative).

pinv's derivative (Golub and Pereyra 1973) is that of the function NumPy
computes: singular values below the cutoff are dropped, and a direction
that would raise the rank gets no derivative from them, so at a
rank-deficient matrix the gradient is that along matrices of its rank.
lstsq's solution is ``pinv(a) @ b`` (its ``rcond``); its residuals, where
NumPy returns them (a tall matrix of full rank), have the gradient of
``sum((b - a @ x) ** 2)`` at the optimum.

The derivatives of A^n and of expm(A) are Frechet derivatives, read off a
block matrix: f([[A, E], [0, A]]) has f(A) on its diagonal and the
derivative of f at A along E in its upper right block. Gradients are the
derivative at A^T along g; expm's uses scipy.linalg.expm_frechet, whose own
derivatives are that of expm on the block matrix again.
"""
from __future__ import annotations

from ..errors import NoDerivativeRuleError
from ..ir.nodes import Const
from ..ir.primitive import ARRAY, NEW, define, like
from .decompositions import _times_columns
from .linalg import swapped_pattern, transposed
from .solves import matrix_size


def _mm(b, *factors):
    """The product of ``factors`` (matmul, left to right)."""
    out = factors[0]
    for f in factors[1:]:
        out = b.op("matmul", out, f)
    return out


# ---- the pseudo-inverse ------------------------------------------------------------------------
def _refuse_hermitian(op):
    if op.param("hermitian", False):
        raise NoDerivativeRuleError(f"`{op.prim}`: hermitian=True is not differentiated",
                                    op.loc, "leave hermitian out: the same values")


def _pinv_adjoint(b, a, p, g):
    """A_bar = -P^T g P^T + (I - A P) g^T P P^T + P^T P g^T (I - P A)."""
    pt, gt = transposed(b, p), transposed(b, g)
    left = _mm(b, gt, p, pt)
    right = _mm(b, pt, p, gt)
    return b.total([b.neg(_mm(b, pt, g, pt)),
                    b.sub(left, _mm(b, a, p, left)),
                    b.sub(right, _mm(b, right, p, a))])


def _pinv_tangent(b, a, p, da):
    """dP = -P dA P + P P^T dA^T (I - A P) + (I - P A) dA^T P^T P."""
    pt, dat = transposed(b, p), transposed(b, da)
    left = b.sub(dat, _mm(b, dat, a, p))
    right = b.sub(dat, _mm(b, p, a, dat))
    return b.total([b.neg(_mm(b, p, da, p)), _mm(b, p, pt, left), _mm(b, right, pt, p)])


def pinv_rule(r, op, g):
    _refuse_hermitian(op)
    return [_pinv_adjoint(r.b, op.args[0], op.target, g)]


def pinv_tangent(b, op, dargs):
    _refuse_hermitian(op)
    if dargs[0] is None:
        return None
    return _pinv_tangent(b, op.args[0], op.target, dargs[0])


define("pinv(a; rcond=None, hermitian=False, rtol=None)", ("np.linalg", "pinv"), NEW,
       reverse=pinv_rule, forward=pinv_tangent, pattern=swapped_pattern)  # (n, m) of (m, n)


# ---- least squares ----------------------------------------------------------------------------
def _cutoff(op):
    return {"rcond": op.param("rcond")} if op.param("rcond") is not None else {}


def lstsq_rule(r, op, g):
    """x = pinv(a) b: b gets pinv(a)^T x_bar, a pinv's adjoint of x_bar b^T;
    residuals r = |b - a x|^2 per column, at the optimum: b gets 2 (b - a x)
    r_bar, a -2 (b - a x) r_bar x^T; s as svdvals'."""
    b, (x_bar, res_bar, _, s_bar) = r.b, g
    a, rhs = op.args
    x = b.op("output", op.target, index=0, hint="x")
    a_bar, rhs_bar = [], []
    if x_bar is not None:
        p = b.op("pinv", a, **_cutoff(op))
        cols = b.op("as_columns", x_bar, rhs, hint="x_bar_columns")
        rhs_bar.append(b.op("from_columns", b.op("matmul", transposed(b, p), cols), rhs))
        outer = b.op("matmul", cols, transposed(b, b.op("as_columns", rhs, rhs)))
        a_bar.append(_pinv_adjoint(b, a, p, outer))
    if res_bar is not None:
        x_cols = b.op("as_columns", x, rhs)
        residual = b.sub(b.op("as_columns", rhs, rhs), b.op("matmul", a, x_cols))
        weighted = b.mul(b.mul(Const(2.0), residual), b.op("expand_dims", res_bar, axis=-2))
        rhs_bar.append(b.op("from_columns", weighted, rhs))
        a_bar.append(b.neg(b.op("matmul", weighted, transposed(b, x_cols))))
    if s_bar is not None:
        both = b.op("svd", a, full_matrices=False)
        u = b.op("output", both, index=0, hint="u")
        vh = b.op("output", both, index=2, hint="vh")
        a_bar.append(b.op("matmul", _times_columns(b, u, s_bar), vh))
    return [b.total(a_bar) if r.wants(a) else None,
            r.unbroadcast(b.total(rhs_bar), rhs) if r.wants(rhs) else None]


def lstsq_tangent(b, op, dargs):
    da, drhs = dargs
    a, rhs = op.args
    x = b.op("output", op.target, index=0, hint="x")
    p = b.op("pinv", a, **_cutoff(op))
    x_cols = b.op("as_columns", x, rhs)
    dx, dres, ds = [], [], None
    change = [b.op("as_columns", drhs, rhs)] if drhs is not None else []
    if da is not None:
        rhs_cols = b.op("as_columns", rhs, rhs)
        dx.append(b.op("matmul", _pinv_tangent(b, a, p, da), rhs_cols))
        change.append(b.neg(b.op("matmul", da, x_cols)))
        both = b.op("svd", a, full_matrices=False)
        u = b.op("output", both, index=0, hint="u")
        vh = b.op("output", both, index=2, hint="vh")
        ds = b.op("einsum", u, da, vh, subscripts="...ik,...ij,...kj->...k", optimize=False)
    if drhs is not None:
        dx.append(b.op("matmul", p, change[0]))
    residual = b.sub(b.op("as_columns", rhs, rhs), b.op("matmul", a, x_cols))
    dres = b.op("sum", b.mul(b.mul(Const(2.0), residual), b.total(change)), axis=-2)
    return (b.op("from_columns", b.total(dx), rhs), dres, None, ds)


define("lstsq(a, b; rcond=None)", ("np.linalg", "lstsq"), NEW, reverse=lstsq_rule,
       forward=lstsq_tangent, outputs=(NEW, NEW, NEW, NEW))


# ---- products of matrices: matrix_power and multi_dot -----------------------------------------
def _power_derivative(b, x, e, n):
    """The derivative of X^n along E (n >= 1): the sum of X^k E X^(n-1-k);
    written out for small n, else the corner of the n-th power of the block
    matrix [[X, E], [0, X]]."""
    if n <= 4:
        powers = [None, x]
        for _ in range(2, n):
            powers.append(b.op("matmul", powers[-1], x))
        terms = [_mm(b, *[f for f in (powers[k], e, powers[n - 1 - k]) if f is not None])
                 for k in range(n)]
        return b.total(terms)
    m = matrix_size(b, x)
    top = b.op("concatenate", x, e, axis=-1)
    bottom = b.op("concatenate", b.op("zeros_like", x), x, axis=-1)
    block = b.op("concatenate", top, bottom, axis=-2, hint="block")
    power = b.op("matrix_power", block, n=n)
    rows = b.op("slice", Const(None), m, Const(None))
    columns = b.op("slice", m, Const(None), Const(None))
    return b.op("getitem", power, Const(Ellipsis), rows, columns)


def matrix_power_rule(r, op, g):
    """A^n's gradient is the derivative at A^T along g; for n < 0, through
    B = inv(A): B_bar first, then -B^T B_bar B^T."""
    a, n = op.args[0], op.param("n")
    if n == 0:
        return [None]
    if n > 0:
        return [_power_derivative(r.b, transposed(r.b, a), g, n)]
    inverse_t = transposed(r.b, r.b.op("inv", a, hint="inverse"))
    inverse_bar = _power_derivative(r.b, inverse_t, g, -n)
    return [r.b.neg(_mm(r.b, inverse_t, inverse_bar, inverse_t))]


def matrix_power_tangent(b, op, dargs):
    a, n = op.args[0], op.param("n")
    if dargs[0] is None or n == 0:
        return None
    if n > 0:
        return _power_derivative(b, a, dargs[0], n)
    inverse = b.op("inv", a, hint="inverse")
    return _power_derivative(b, inverse, b.neg(_mm(b, inverse, dargs[0], inverse)), -n)


define("matrix_power(a; n=None)", ("np.linalg", "matrix_power"), like(0),
       reverse=matrix_power_rule, forward=matrix_power_tangent)


def multi_dot_rule(r, op, g):
    return [r.b.op("multi_dot_adjoint", g, *op.args, index=i) if r.wants(x) else None
            for i, x in enumerate(op.args)]


def multi_dot_adjoint_rule(r, op, h):
    """<h, adjoint_i(g, arrays)> = <g, multi_dot(arrays with h at i)>: g gets
    that product, arrays[j] the adjoint j with h at i (as matmul's)."""
    g, *arrays = op.args
    i = op.param("index", 0)
    with_h = list(arrays)
    with_h[i] = h
    grads = [r.unbroadcast(r.b.op("multi_dot", *with_h), g) if r.wants(g) else None]
    for j, x in enumerate(arrays):
        grads.append(r.b.op("multi_dot_adjoint", g, *with_h, index=j)
                     if j != i and r.wants(x) else None)
    return grads


def multi_dot_adjoint_tangent(b, op, dargs):
    i = op.param("index", 0)
    terms = []
    for j, d in enumerate(dargs):
        if d is not None and j != i + 1:
            args = list(op.args)
            args[j] = d
            terms.append(b.op("multi_dot_adjoint", *args, index=i))
    return b.total(terms)


define("multi_dot(*arrays)", ("np.linalg", "multi_dot"), NEW, reverse=multi_dot_rule,
       multilinear=True)
define("multi_dot_adjoint(g, *arrays; index=0)", ("helper", "_multi_dot_adjoint"), NEW,
       reverse=multi_dot_adjoint_rule, forward=multi_dot_adjoint_tangent, result=ARRAY)


# ---- the matrix exponential -------------------------------------------------------------------
def expm_rule(r, op, g):
    return [r.b.op("expm_frechet", transposed(r.b, op.args[0]), g, compute_expm=False)]


def expm_tangent(b, op, dargs):
    if dargs[0] is None:
        return None
    return b.op("expm_frechet", op.args[0], dargs[0], compute_expm=False)


def _block(b, top_left, top_right, bottom_right):
    """[[top_left, top_right], [0, bottom_right]] for each matrix of a stack."""
    top = b.op("concatenate", top_left, top_right, axis=-1)
    bottom = b.op("concatenate", b.op("zeros_like", top_left), bottom_right, axis=-1)
    return b.op("concatenate", top, bottom, axis=-2, hint="block")


def _corners(b, block, n):
    """The four n x n blocks of each 2n x 2n matrix: (11, 12, 22)."""
    head = b.op("slice", Const(None), n, Const(None))
    tail = b.op("slice", n, Const(None), Const(None))
    return tuple(b.op("getitem", block, Const(Ellipsis), rows, columns)
                 for rows, columns in ((head, head), (head, tail), (tail, tail)))


def expm_frechet_rule(r, op, h):
    """L(A, E) is the corner of expm(B), B = [[A, E], [0, A]]; the gradient
    of <h, corner> in B is L(B^T, [[0, h], [0, 0]]), of whose blocks A gets
    the diagonal two and E the corner."""
    a, e = op.args
    b = r.b
    n = matrix_size(b, a)
    zeros = b.op("zeros_like", h)
    block_bar = b.op("expm_frechet", transposed(b, _block(b, a, e, a)),
                     _block(b, zeros, h, zeros), compute_expm=False)
    top_left, corner, bottom_right = _corners(b, block_bar, n)
    return [r.unbroadcast(b.add(top_left, bottom_right), a) if r.wants(a) else None,
            r.unbroadcast(corner, e) if r.wants(e) else None]


def expm_frechet_tangent(b, op, dargs):
    a, e = op.args
    da, de = dargs
    da = da if da is not None else b.op("zeros_like", a)
    de = de if de is not None else b.op("zeros_like", e)
    moved = b.op("expm_frechet", _block(b, a, e, a), _block(b, da, de, da),
                 compute_expm=False)
    return _corners(b, moved, matrix_size(b, a))[1]


define("expm(a)", ("module", "scipy.linalg", "expm"), like(0), reverse=expm_rule,
       forward=expm_tangent)
define("expm_frechet(a, e; compute_expm=True)", ("module", "scipy.linalg", "expm_frechet"),
       like(0), reverse=expm_frechet_rule, forward=expm_frechet_tangent)
