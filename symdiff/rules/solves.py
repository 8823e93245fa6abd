"""Solves and Cholesky factors: np.linalg.solve and cholesky, and SciPy's
solve_triangular, cholesky, cho_factor and cho_solve.

Adjoints as an expert writes them: a solve's right-hand side gets the solve
with the transposed matrix (never an inverse), the matrix minus the outer
product of that with the solution; a Cholesky factor's adjoint is two
triangular solves (Murray 2016, "Differentiation of the Cholesky
decomposition"). Generated code stays with the libraries the user called:
np.linalg.cholesky's adjoint solves with np.linalg.solve (NumPy has no
triangular solve) unless the function calls SciPy anyway; SciPy's with
scipy.linalg.solve_triangular.

Each function reads one triangle of its matrix (np.linalg.cholesky the lower,
``upper=True`` the upper; SciPy's ``lower=``), so the gradient is that of the
function NumPy computes: zero on the triangle not read, and the off-diagonal
entries read carry the gradient of both symmetric entries. Where the matrix
is symmetric by construction (``K = X @ X.T``), what reaches the values it was
made from is the same as with a symmetric gradient.

A right-hand side ``b`` with one axis is one vector; any other a stack of
matrices. ``_as_columns`` and ``_from_columns`` (runtime helpers) turn
vectors into columns and back where ``b`` is one, so the adjoints are written
once, for matrices.
"""
from __future__ import annotations

from ..ir.nodes import Const
from ..ir.primitive import ARRAY, NEW, SCALAR, define, like
from .linalg import transposed
from .cholesky_closed_forms import closed_forms, multiple
from .triangular_products import is_lower_triangular, lower_part_of_lt_times


# ---- small pieces ----------------------------------------------------------------------------
# SciPy's solves the adjoints call skip its check for inf and NaN (~4 us of
# ~10 on small matrices): where a gradient is not finite, they pass NaN on as
# NumPy's solves do, rather than raise.
UNCHECKED = False


def matrix_size(b, a):
    """The size of the matrices of ``a``."""
    return b.op("getitem", b.op("shape", a), Const(-1), hint="n")


def tri(b, n, k=0):
    """``np.tri(n, k=k)``: ones on and below the k-th diagonal."""
    kwargs = ((("k", k),) if k else ()) + mask_dtype(b, n)
    return b.op("npcall", n, func="tri", kwargs=kwargs, hint="lower")


def lower_half(b, n):
    """The lower triangle with half the diagonal (Murray's Phi as a mask)."""
    eye = b.op("npcall", n, func="eye", kwargs=mask_dtype(b, n), hint="eye")
    return b.sub(tri(b, n), b.mul(Const(0.5), eye), hint="lower_half")


def mask_dtype(b, n):
    """``dtype=`` for a mask of the matrices whose size is ``n``, where they
    are known to be of a lower precision than float64 (which the mask's
    product with them would be)."""
    size = b.facts.producer(n)
    shape = b.facts.producer(size.args[0]) if size is not None and size.prim == "getitem" \
        else None
    found = b.facts.dtype(shape.args[0]) if shape is not None and shape.prim == "shape" \
        else None
    return (("dtype", found.name),) if getattr(found, "kind", "") == "f" and \
        found.itemsize < 8 else ()


def _columns(b, v, rhs):
    return b.op("as_columns", v, rhs, hint=_named(v, "_columns"))


def _named(v, suffix):
    hint = getattr(v, "hint", "") or ""
    return hint + suffix if hint and not hint.startswith("_") and len(hint) < 16 else None


def solution_pattern(op, facts):
    """A solve with one matrix has its right-hand side's shape (for stacks of
    matrices the broadcast is NumPy's to work out: not known here)."""
    matrix, rhs = (facts.pattern(a) for a in op.args[:2])
    if matrix is None or len(matrix) != 2 or rhs is None or not 1 <= len(rhs) <= 2:
        return None
    return rhs


def as_columns_rule(r, op, g):
    return [r.b.op("from_columns", g, op.args[1]), None]


def from_columns_rule(r, op, g):
    return [r.b.op("as_columns", g, op.args[1]), None]


def _columns_pattern(op, facts):
    v, rhs = (facts.pattern(a) for a in op.args)
    if v is None or rhs is None:
        return None
    if len(rhs) != 1:
        return v
    return v + (1,) if op.prim == "as_columns" else v[:-1] if v else None


define("as_columns(v, b)", ("helper", "_as_columns"), NEW, reverse=as_columns_rule,
       linear=(0,), result=ARRAY, pattern=_columns_pattern)
define("from_columns(v, b)", ("helper", "_from_columns"), NEW, reverse=from_columns_rule,
       linear=(0,), result=ARRAY, pattern=_columns_pattern)


def _rhs_adjoints(r, op, g, solve_transposed, matrix_bar, symmetric=False):
    """The adjoints of a solve ``x = S(matrix) b``: b gets ``S^T g`` (what
    ``solve_transposed`` makes of matrices), the matrix what ``matrix_bar``
    makes of (that, x), both as matrices. ``symmetric``: S is (S^T = S), so
    where g is k b, as in a quadratic form ``b @ S b``, S^T g is k x."""
    a, rhs = op.args[0], op.args[1]
    if not (r.wants(a) or r.wants(rhs)):
        return [None, None]
    k = multiple(r.b, g, rhs) if symmetric else None
    x = _columns(r.b, op.target, rhs) if k is not None or r.wants(a) else None
    if k is not None:
        rhs_bar = r.b.mul(Const(k), x, hint="rhs_bar")
    else:
        rhs_bar = solve_transposed(_columns(r.b, g, rhs))
    grads = [None, None]
    if r.wants(rhs):
        grads[1] = r.unbroadcast(r.b.op("from_columns", rhs_bar, rhs), rhs)
    if r.wants(a):
        grads[0] = r.unbroadcast(matrix_bar(rhs_bar, x), a)
    return grads


def _solution_tangent(b, op, dargs, solve, matrix_times):
    """d(S b) = S (db - dM x) for ``x = S b``, ``S`` the inverse of a matrix M
    whose tangent times a matrix ``matrix_times`` makes (None: M is constant)."""
    da, drhs = dargs[0], dargs[1]
    rhs = op.args[1]
    terms = [_columns(b, drhs, rhs) if drhs is not None else None]
    if da is not None:
        terms.append(b.neg(matrix_times(da, _columns(b, op.target, rhs))))
    total = b.total(terms)
    return None if total is None else b.op("from_columns", solve(total), rhs)


# ---- np.linalg.solve ----------------------------------------------------------------------------
def solve_rule(r, op, g):
    a = op.args[0]
    return _rhs_adjoints(
        r, op, g, lambda c: r.b.op("solve", transposed(r.b, a), c, hint="rhs_bar"),
        lambda rhs_bar, x: r.b.neg(r.b.op("matmul", rhs_bar, transposed(r.b, x))))


def solve_tangent(b, op, dargs):
    a = op.args[0]
    return _solution_tangent(b, op, dargs, lambda c: b.op("solve", a, c),
                             lambda da, x: b.op("matmul", da, x))


define("solve(a, b)", ("np.linalg", "solve"), NEW, reverse=solve_rule, forward=solve_tangent,
       pattern=solution_pattern)


# ---- Cholesky factors ---------------------------------------------------------------------
class _Factor:
    """A Cholesky factor as a function returned it, and the solves with it:
    ``lower`` whether it is L (else U = L^T); NumPy's solves or SciPy's.
    ``held``: an array with the factor in that triangle and anything in the
    other (cho_factor's ``c``), all that SciPy's triangular solves and
    LAPACK's potri read: no mask is multiplied in for them."""

    def __init__(self, b, factor, lower, scipy, held=None):
        self.b, self.factor, self.lower, self.scipy = b, factor, lower, scipy
        self.L = factor if lower else transposed(b, factor)
        self.held = factor if held is None else held

    @property
    def held_lower(self):
        """What holds L in its lower triangle."""
        return self.held if self.lower else transposed(self.b, self.held)

    def solve_lt(self, z, hint="s_t"):
        """L^-T z."""
        if self.scipy:
            return self.b.op("solve_triangular", self.held, z, trans=int(self.lower),
                             lower=self.lower, check_finite=UNCHECKED, hint=hint)
        return self.b.op("solve", transposed(self.b, self.L), z, hint=hint)

    def solve_l(self, z):
        """L^-1 z."""
        if self.scipy:
            return self.b.op("solve_triangular", self.held, z, trans=int(not self.lower),
                             lower=self.lower, check_finite=UNCHECKED)
        return self.b.op("solve", self.L, z)


def read_triangle(b, mask, lower):
    """The triangle a function reads: ``mask`` is that of the lower one."""
    return mask if lower else transposed(b, mask)


def _cholesky_adjoint(b, f, g, a):
    """A's gradient from the factor's (Murray 2016): with P = Phi(L^T L_bar),
    S = L^-T P L^-1, the symmetric gradient is (S + S^T) / 2; on the triangle
    read, the off-diagonal entries carry both halves. The terms of L_bar with
    a closed form skip the solves (cholesky_closed_forms.py)."""
    half = lower_half(b, matrix_size(b, a))
    l_bar = g if f.lower else transposed(b, g)
    known, product = None, None
    if f.lower and b.facts.rank(a) == 2:
        known, rest = closed_forms(b, f, l_bar, a)
        if rest:
            product = lower_part_of_lt_times(b, transposed(b, f.L), rest, f)
    else:
        product = b.op("matmul", transposed(b, f.L), l_bar)
    both = known
    if product is not None:
        phi = b.mul(product, half, hint="phi")
        s_t = f.solve_lt(transposed(b, f.solve_lt(phi, hint="lt_phi")))  # (L^-T phi L^-1)^T
        solved = b.add(s_t, transposed(b, s_t))
        both = solved if known is None else b.add(known, solved)
    return b.mul(both, read_triangle(b, half, f.lower))


def _cholesky_tangent(b, f, da, a):
    """dL = L Phi(L^-1 dA_s L^-T), dA_s the symmetric matrix of the triangle read."""
    half = lower_half(b, matrix_size(b, a))
    part = b.mul(da, read_triangle(b, half, f.lower))
    symmetric = b.add(part, transposed(b, part))
    c = f.solve_l(transposed(b, f.solve_l(symmetric)))
    dl = b.op("matmul", f.L, b.mul(c, half))
    return dl if f.lower else transposed(b, dl)


def _scipy_at_hand(b, factor):
    """Whether np.linalg.cholesky's adjoint may solve with SciPy's triangular
    solve (half the work of np.linalg.solve's LU): where the user's function
    already calls SciPy, so the gradient needs nothing it does not, and the
    factor is one matrix (SciPy before 1.15 solves no stacks)."""
    return "scipy" in b.modules and b.facts.rank(factor) == 2


def cholesky_rule(r, op, g):
    f = _Factor(r.b, op.target, not op.param("upper", False),
                scipy=_scipy_at_hand(r.b, op.target))
    return [_cholesky_adjoint(r.b, f, g, op.args[0])]


def cholesky_tangent(b, op, dargs):
    if dargs[0] is None:
        return None
    f = _Factor(b, op.target, not op.param("upper", False), scipy=_scipy_at_hand(b, op.target))
    return _cholesky_tangent(b, f, dargs[0], op.args[0])


def scipy_cholesky_rule(r, op, g):
    f = _Factor(r.b, op.target, op.param("lower", False), scipy=True)
    return [_cholesky_adjoint(r.b, f, g, op.args[0])]


def scipy_cholesky_tangent(b, op, dargs):
    if dargs[0] is None:
        return None
    f = _Factor(b, op.target, op.param("lower", False), scipy=True)
    return _cholesky_tangent(b, f, dargs[0], op.args[0])


define("cholesky(a; upper=False)", ("np.linalg", "cholesky"), like(0), reverse=cholesky_rule,
       forward=cholesky_tangent)
define("scipy_cholesky(a; lower=False)", ("module", "scipy.linalg", "cholesky"), like(0),
       reverse=scipy_cholesky_rule, forward=scipy_cholesky_tangent)


# ---- cho_factor and cho_solve -------------------------------------------------------------
# cho_factor's c holds the factor in one triangle and, in the other, a copy of
# a's entries (SciPy's documentation calls them random data; they are a's):
# there its derivative is the identity.
def _factor_mask(b, a, lower):
    return read_triangle(b, tri(b, matrix_size(b, a)), lower)


def cho_factor_rule(r, op, g):
    g = g[0]  # (the second result, `lower`, is a flag)
    if g is None:
        return [None]
    a, lower = op.args[0], op.param("lower", False)
    mask = _factor_mask(r.b, a, lower)
    held = r.b.op("output", op.target, index=0, hint="c")
    f = _Factor(r.b, r.b.mul(held, mask, hint="factor"), lower, scipy=True, held=held)
    factor_part = _cholesky_adjoint(r.b, f, r.b.mul(g, mask), a)
    if lower and is_lower_triangular(r.b, g):  # (nothing reaches the other triangle)
        return [factor_part]
    return [r.b.add(factor_part, r.b.mul(g, r.b.sub(Const(1.0), mask)))]


def cho_factor_tangent(b, op, dargs):
    if dargs[0] is None:
        return None
    a, lower = op.args[0], op.param("lower", False)
    mask = _factor_mask(b, a, lower)
    c = b.op("output", op.target, index=0, hint="c")
    f = _Factor(b, b.mul(c, mask, hint="factor"), lower, scipy=True, held=c)
    return (b.add(_cholesky_tangent(b, f, dargs[0], a),
                  b.mul(dargs[0], b.sub(Const(1.0), mask))), None)


def _cho_solve(b, c, z, lower, hint=None):
    return b.op("cho_solve", c, z, lower=lower, check_finite=UNCHECKED, hint=hint)


def cho_solve_rule(r, op, g):
    """x = A^-1 b with A = L L^T (or U^T U): b gets cho_solve of g; with
    W = b_bar x^T + x b_bar^T, L gets -W L (U gets -U W) on its triangle."""
    c, lower = op.args[0], op.param("lower", False)

    def factor_bar(rhs_bar, x):  # (W L as rank-k products: b has k columns)
        b = r.b
        mask = _factor_mask(b, c, lower)
        clean = b.mul(c, mask, hint="factor")
        if lower:
            product = b.add(b.op("matmul", rhs_bar, b.op("matmul", transposed(b, x), clean)),
                            b.op("matmul", x, b.op("matmul", transposed(b, rhs_bar), clean)))
        else:
            product = b.add(b.op("matmul", b.op("matmul", clean, rhs_bar), transposed(b, x)),
                            b.op("matmul", b.op("matmul", clean, x), transposed(b, rhs_bar)))
        return b.neg(b.mul(product, mask))
    return _rhs_adjoints(r, op, g, lambda cols: _cho_solve(r.b, c, cols, lower, "rhs_bar"),
                         factor_bar, symmetric=True)


def cho_solve_tangent(b, op, dargs):
    c, lower = op.args[0], op.param("lower", False)

    def matrix_times(dc, x):  # dA x, dA = dL L^T + L dL^T (or dU^T U + U^T dU)
        mask = _factor_mask(b, c, lower)
        clean, dclean = b.mul(c, mask, hint="factor"), b.mul(dc, mask)
        left, right = (dclean, clean) if lower else (transposed(b, clean),
                                                     transposed(b, dclean))
        return b.add(b.op("matmul", left, b.op("matmul", transposed(b, right), x)),
                     b.op("matmul", right, b.op("matmul", transposed(b, left), x)))
    return _solution_tangent(b, op, dargs, lambda z: _cho_solve(b, c, z, lower), matrix_times)


define("cho_factor(a; lower=False)", ("module", "scipy.linalg", "cho_factor"), NEW,
       reverse=cho_factor_rule, forward=cho_factor_tangent, outputs=(like(0), SCALAR))
define("cho_solve(c, b; lower=False, check_finite=True)",
       ("module", "scipy.linalg", "cho_solve"), NEW,
       reverse=cho_solve_rule, forward=cho_solve_tangent, paired="lower",
       pattern=solution_pattern)


# ---- scipy.linalg.solve_triangular --------------------------------------------------------------
def _triangle(b, op):
    """The entries solve_triangular reads: a triangle, without the diagonal
    where it is taken to be ones."""
    a, lower = op.args[0], op.param("lower", False)
    mask = tri(b, matrix_size(b, a), k=-1 if op.param("unit_diagonal", False) else 0)
    return read_triangle(b, mask, lower)


def _transposes(op):
    return op.param("trans", 0) not in (0, "N", "n")


def _triangular(b, op, z, transposed_too):
    params = {k: op.param(k) for k in ("lower", "unit_diagonal") if op.param(k)}
    return b.op("solve_triangular", op.args[0], z,
                trans=int(_transposes(op) != transposed_too), **params, check_finite=UNCHECKED)


def solve_triangular_rule(r, op, g):
    def matrix_bar(rhs_bar, x):  # op(T)_bar = -rhs_bar x^T
        product = r.b.op("matmul", rhs_bar, transposed(r.b, x)) if not _transposes(op) \
            else r.b.op("matmul", x, transposed(r.b, rhs_bar))
        return r.b.neg(r.b.mul(product, _triangle(r.b, op)))
    return _rhs_adjoints(r, op, g, lambda cols: _triangular(r.b, op, cols, True), matrix_bar)


def solve_triangular_tangent(b, op, dargs):
    def matrix_times(da, x):
        part = b.mul(da, _triangle(b, op))
        return b.op("matmul", transposed(b, part) if _transposes(op) else part, x)
    return _solution_tangent(b, op, dargs, lambda z: _triangular(b, op, z, False),
                             matrix_times)


define("solve_triangular(a, b; trans=0, lower=False, unit_diagonal=False, "
       "check_finite=True)",
       ("module", "scipy.linalg", "solve_triangular"), NEW, reverse=solve_triangular_rule,
       forward=solve_triangular_tangent, pattern=solution_pattern)
