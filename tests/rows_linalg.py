"""Rows of the linear-algebra primitives (see primitive_rows.py): products and
contractions, solves and factorizations, decompositions, matrix functions and
norms. Special points (singular, ill-conditioned, repeated eigenvalues) are
tested in test_linalg_points.py."""
import numpy as np

import scipy.linalg

from row_inputs import matrix, spd, u
from symdiff.runtime.helpers import (_as_columns, _cofactor, _cofactor_derivative,
                                     _cropped_convolution, _full_convolution,
                                     _from_columns, _inner_adjoint_a, _multi_dot_adjoint,
                                     _reduced, _tall_only,
                                     _undefined_beyond, _inner_adjoint_b, _kron_adjoint_a,
                                     _kron_adjoint_b, _tensordot_adjoint_a,
                                     _tensordot_adjoint_b, _untrace)

ROWS = [
    # ---- einsum: every subscript form ----------------------------------------------------
    ("einsum", lambda a, b: np.einsum("ij,jk->ik", a, b), (u(2, 3), u(3, 4))),
    ("einsum", lambda a, b: np.einsum("ij,jk", a, b, optimize=True), (u(2, 3), u(3, 4))),
    ("einsum", lambda a: np.einsum("ii", a), (u(3, 3),)),
    ("einsum", lambda a: np.einsum("ii->i", a), (u(3, 3),)),
    ("einsum", lambda a: np.einsum("iij->ji", a), (u(2, 2, 3),)),
    ("einsum", lambda a: np.einsum("ij->i", a), (u(2, 3),)),
    ("einsum", lambda a: np.einsum("ij->", a), (u(2, 3),)),
    ("einsum", lambda a: np.einsum("ji", a), (u(2, 3),)),
    ("einsum", lambda x, a, z: np.einsum("ni,ij,nj->n", x, a, z, optimize="greedy"),
     (u(4, 2), u(2, 3), u(4, 3))),
    ("einsum", lambda a, b: np.einsum("...ij,...jk->...ik", a, b), (u(2, 1, 2, 3), u(4, 3, 2))),
    ("einsum", lambda a, b: np.einsum("...ij,jk", a, b), (u(2, 2, 3), u(3, 2))),
    ("einsum", lambda a: np.einsum("...ii->...i", a), (u(2, 3, 3),)),
    ("einsum", lambda a: np.einsum("i...->i", a), (u(2),)),
    ("einsum", lambda a, b: np.einsum("...i,jk->...", a, b), (u(2, 3), u(2, 2))),
    ("einsum", lambda a, b: np.einsum("i...,...->i...", a, b), (u(2, 3), u(3))),
    ("einsum", lambda a, b: np.einsum("ij,ij->ij", a, b), (u(1, 3), u(2, 3))),
    ("einsum", lambda a, b: np.einsum("i,i", a, b), (u(3), u(3))),
    ("einsum", lambda a, b: np.einsum("i,j", a, b), (u(3), u(2))),
    ("einsum", lambda a, b: np.einsum(",i->i", a, b), (0.7, u(3))),
    ("einsum", lambda a, b: np.einsum("bA,Ab", a, b), (u(2, 3), u(3, 2))),
    ("einsum", lambda a, b: np.einsum(a, [0, 1], b, [1, 2], [0, 2]), (u(2, 3), u(3, 2))),
    ("einsum", lambda a, b: np.einsum(a, [..., 0], b, [0]), (u(2, 3), u(3))),
    ("einsum", lambda a: np.einsum("ij,ij->", a, a), (u(2, 3),)),
]

ROWS += [
    # ---- tensordot, inner, kron, cross, trace, and their adjoints ----------------------------
    ("tensordot", lambda a, b: np.tensordot(a, b), (u(2, 3, 2), u(3, 2, 2))),
    ("tensordot", lambda a, b: np.tensordot(a, b, axes=1), (u(2, 3), u(3, 2))),
    ("tensordot", lambda a, b: np.tensordot(a, b, axes=([0, 2], [2, 1])),
     (u(2, 3, 4), u(3, 4, 2))),
    ("tensordot", lambda a, b: np.tensordot(a, b, axes=(1, 0)), (u(2, 3), u(3))),
    ("tensordot", lambda a, b: np.tensordot(a, b, 0), (u(2), u(3))),
    ("inner", lambda a, b: np.inner(a, b), (u(3), u(3))),
    ("inner", lambda a, b: np.inner(a, b), (u(2, 3), u(4, 3))),
    ("inner", lambda a, b: np.inner(a, b), (0.6, u(2, 3))),
    ("kron", lambda a, b: np.kron(a, b), (u(2, 3), u(2, 2))),
    ("kron", lambda a, b: np.kron(a, b), (u(3), u(2, 2))),
    ("cross", lambda a, b: np.cross(a, b), (u(2, 3), u(3))),
    ("cross", lambda a, b: np.cross(a, b, axisa=0, axisb=1, axisc=0), (u(3, 2), u(2, 3))),
    ("cross", lambda a, b: np.cross(a, b, axis=0), (u(3, 2), u(3, 2))),
    ("trace", lambda a: np.trace(a), (u(3, 3),)),
    ("trace", lambda a: a.trace(1), (u(3, 4),)),
    ("trace", lambda a: np.trace(a, offset=-1, axis1=2, axis2=0), (u(3, 2, 4),)),
    ("untrace", lambda g, a: _untrace(g, a, offset=1, axis1=1, axis2=2), (u(2, 2), u(2, 3, 3))),
    ("tensordot_adjoint_a", lambda g, a, b: _tensordot_adjoint_a(g, a, b, axes=1),
     (u(2, 2), u(2, 3), u(3, 2))),
    ("tensordot_adjoint_b", lambda g, a, b: _tensordot_adjoint_b(g, a, b, axes=([0], [1])),
     (u(3, 4), u(2, 3), u(4, 2))),
    ("inner_adjoint_a", lambda g, a, b: _inner_adjoint_a(g, a, b), (u(2, 4), u(2, 3), u(4, 3))),
    ("inner_adjoint_b", lambda g, a, b: _inner_adjoint_b(g, a, b), (u(2, 3), 0.4, u(2, 3))),
    ("kron_adjoint_a", lambda g, a, b: _kron_adjoint_a(g, a, b), (u(4, 6), u(2, 3), u(2, 2))),
    ("kron_adjoint_b", lambda g, a, b: _kron_adjoint_b(g, a, b), (u(6), u(3), u(2))),
    # ---- convolution and correlation of vectors (NumPy swaps a shorter first operand) --------
    ("convolve", lambda a, v: np.convolve(a, v), (u(5), u(3))),
    ("convolve", lambda a, v: np.convolve(a, v, "valid"), (u(5), u(3))),
    ("convolve", lambda a, v: np.convolve(a, v, mode="valid"), (u(2), u(4))),
    ("convolve", lambda a, v: np.convolve(a, v, "same"), (u(4), u(6))),
    ("correlate", lambda a, v: np.correlate(a, v), (u(5), u(3))),
    ("correlate", lambda a, v: np.correlate(a, v), (u(3), u(5))),
    ("correlate", lambda a, v: np.correlate(a, v, "same"), (u(4), u(6))),
    ("correlate", lambda a, v: np.correlate(a, v, "same"), (u(6), u(4))),
    ("correlate", lambda a, v: np.correlate(a, v, mode="full"), (u(3), u(2))),
    ("full_convolution", lambda g, a, v: _full_convolution(g, a, v, "same", True),
     (u(6), u(4), u(6))),
    ("cropped_convolution", lambda h, a, v: _cropped_convolution(h, a, v, "valid"),
     (u(7), u(5), u(3))),
]

ROWS += [
    # ---- solves and Cholesky factors (upper triangles not zero: a triangle read only) -----
    ("matrix_transpose", lambda a: a.mT, (u(2, 2, 3),)),
    ("solve", lambda a, b: np.linalg.solve(a, b), (matrix(), u(3))),
    ("solve", lambda a, b: np.linalg.solve(a, b), (matrix(), u(3, 2))),
    ("solve", lambda a, b: np.linalg.solve(a, b), (matrix(2), u(3))),
    ("solve", lambda a, b: np.linalg.solve(a, b), (matrix(2), u(1, 3, 2))),
    ("as_columns", lambda v, b: _as_columns(v, b), (u(2, 3), u(3))),
    ("as_columns", lambda v, b: _as_columns(v, b), (u(2, 3), u(3, 2))),
    ("from_columns", lambda v, b: _from_columns(v, b), (u(2, 3, 1), u(3))),
    ("cholesky", lambda a: np.linalg.cholesky(a), (spd() + np.triu(u(3, 3), 1),)),
    ("cholesky", lambda a: np.linalg.cholesky(a, upper=True), (spd(2) + np.tril(u(3, 3), -1),)),
    ("scipy_cholesky", lambda a: scipy.linalg.cholesky(a), (spd() + np.tril(u(3, 3), -1),)),
    ("scipy_cholesky", lambda a: scipy.linalg.cholesky(a, lower=True, check_finite=False),
     (spd(2) + np.triu(u(3, 3), 1),)),
    ("cho_factor", lambda a: scipy.linalg.cho_factor(a)[0], (spd(),)),
    ("cho_factor", lambda a: scipy.linalg.cho_factor(a, lower=True)[0], (spd(2),)),
    ("cho_solve", lambda a, b: scipy.linalg.cho_solve(scipy.linalg.cho_factor(a), b),
     (spd(), u(3))),
    ("cho_solve", lambda c, b: scipy.linalg.cho_solve((c, True), b),
     (np.linalg.cholesky(spd(2)) + np.triu(u(3, 3), 1), u(2, 3, 2))),
    ("solve_triangular", lambda a, b: scipy.linalg.solve_triangular(a, b), (matrix(), u(3))),
    ("solve_triangular", lambda a, b: scipy.linalg.solve_triangular(a, b, lower=True, trans="T"),
     (matrix(), u(3, 2))),
    ("solve_triangular", lambda a, b: scipy.linalg.solve_triangular(
        a, b, trans=1, unit_diagonal=True), (matrix(2), u(2, 3, 2))),
]

ROWS += [
    # ---- determinants: det's gradient is the cofactor matrix ----------------------------------
    ("slogdet", lambda a: np.linalg.slogdet(a).logabsdet, (matrix(2),)),
    ("cofactor", lambda a: _cofactor(a), (matrix(),)),
    ("cofactor", lambda a: _cofactor(a), (matrix(2, n=2),)),
    ("cofactor_derivative", lambda a, e: _cofactor_derivative(a, e), (matrix(), u(3, 3))),
    ("cofactor_derivative", lambda a, e: _cofactor_derivative(a, e), (matrix(2, n=4), u(4, 4))),
]


def _symmetric(a):
    """What eigh reads of ``a`` is its lower triangle (the upper is noise)."""
    return a


SYM = spd() - 2.0 * np.eye(3) + np.triu(u(3, 3), 1)   # distinct eigenvalues, some negative
SYM2 = spd(2) + np.triu(u(3, 3), 1)

ROWS += [
    # ---- decompositions --------------------------------------------------------------------
    ("eigh", lambda a: np.linalg.eigh(a)[0], (SYM,)),
    ("eigh", lambda a: np.linalg.eigh(a)[1], (SYM,)),
    ("eigh", lambda a: np.linalg.eigh(a, UPLO="U").eigenvectors ** 2, (SYM2.mT.copy(),)),
    ("eigh", lambda a: np.linalg.eigh(a).eigenvalues[..., -1], (SYM2,)),
    ("eigvalsh", lambda a: np.linalg.eigvalsh(a), (SYM,)),
    ("eigvalsh", lambda a: np.linalg.eigvalsh(a, UPLO="U"), (SYM2.mT.copy(),)),
    ("svd", lambda a: np.linalg.svd(a)[1], (matrix(),)),
    ("svd", lambda a: np.linalg.svd(a)[0], (matrix(),)),
    ("svd", lambda a: np.linalg.svd(a).Vh, (matrix(2),)),
    ("svd", lambda a: np.linalg.svd(a, full_matrices=False)[0], (u(4, 2),)),
    ("svd", lambda a: np.linalg.svd(a, full_matrices=False)[2], (u(4, 2),)),
    ("svd", lambda a: np.linalg.svd(a, full_matrices=False)[0], (u(2, 4),)),
    ("svd", lambda a: np.linalg.svd(a, full_matrices=False)[2], (u(2, 2, 4),)),
    ("svd", lambda a: np.linalg.svd(a)[0][..., :2] * np.linalg.svd(a)[1], (u(4, 2),)),
    ("svdvals", lambda a: np.linalg.svd(a, compute_uv=False), (u(4, 2),)),
    ("svdvals", lambda a: np.linalg.svdvals(a), (u(2, 2, 3),)),
    ("qr", lambda a: np.linalg.qr(a)[0], (u(4, 3),)),
    ("qr", lambda a: np.linalg.qr(a).R, (u(2, 4, 3),)),
    ("qr", lambda a: np.linalg.qr(a, mode="r"), (matrix(),)),
    ("qr", lambda a: np.linalg.qr(a)[0] * np.linalg.qr(a)[1][0], (matrix(),)),
    ("tall_only", lambda x, u, s: _tall_only(x, u, s), (u(4, 2), u(4, 2), u(2) + 2.0)),
    ("tall_only", lambda x, u, s: _tall_only(x, u, s), (u(2, 2), u(2, 2), u(2) + 2.0)),
    ("reduced", lambda g, s: _reduced(g * np.array([1.0, 1.0, 0.0, 0.0]), s), (u(4, 4), u(2))),
    ("reduced", lambda g, s: _reduced(g, s, axis=-2), (u(2, 3), u(2))),
    ("undefined_beyond", lambda x, full: _undefined_beyond(x, full)[..., :2],
     (u(4, 2), u(4, 4))),
]

RANK2 = u(4, 2) @ u(2, 3)   # 4 x 3 of rank 2

ROWS += [
    # ---- functions of matrices -----------------------------------------------------------------
    ("pinv", lambda a: np.linalg.pinv(a), (u(4, 3),)),
    ("pinv", lambda a: np.linalg.pinv(a), (u(2, 2, 3),)),
    ("pinv", lambda b, c: np.linalg.pinv(b @ c), (u(4, 2), u(2, 3))),   # rank 2 throughout
    ("lstsq", lambda a, b: np.linalg.lstsq(a, b)[0], (u(5, 3), u(5))),
    ("lstsq", lambda a, b: np.linalg.lstsq(a, b, rcond=None)[0], (u(5, 3), u(5, 2))),
    ("lstsq", lambda a, b: np.linalg.lstsq(a, b)[1], (u(5, 3), u(5, 2))),
    ("lstsq", lambda a, b: np.linalg.lstsq(a, b)[1] * np.linalg.lstsq(a, b)[3][0],
     (u(5, 3), u(5))),
    ("lstsq", lambda a, b: np.linalg.lstsq(a, b)[0], (u(2, 3), u(2))),   # underdetermined
    ("matrix_power", lambda a: np.linalg.matrix_power(a, 0) * a, (u(3, 3),)),
    ("matrix_power", lambda a: np.linalg.matrix_power(a, 1), (u(3, 3),)),
    ("matrix_power", lambda a: np.linalg.matrix_power(a, 3), (u(2, 3, 3),)),
    ("matrix_power", lambda a: np.linalg.matrix_power(a, 7), (u(3, 3),)),
    ("matrix_power", lambda a: np.linalg.matrix_power(a, -2), (matrix(),)),
    ("matrix_power", lambda a: np.linalg.matrix_power(a, -5), (matrix(2),)),
    ("multi_dot", lambda a, b, c: np.linalg.multi_dot([a, b, c]), (u(2, 3), u(3, 4), u(4, 2))),
    ("multi_dot", lambda a, b, c: np.linalg.multi_dot([a, b, c]), (u(3), u(3, 4), u(4))),
    ("multi_dot", lambda a, b, c, d: np.linalg.multi_dot([a, b, c, d]),
     (u(3), u(3, 4), u(4, 2), u(2, 2))),
    ("multi_dot_adjoint", lambda g, a, b, c: _multi_dot_adjoint(g, a, b, c, index=1),
     (u(2, 2), u(2, 3), u(3, 4), u(4, 2))),
    ("multi_dot_adjoint", lambda g, a, b: _multi_dot_adjoint(g, a, b, index=0),
     (0.7, u(3), u(3))),
    ("expm", lambda a: scipy.linalg.expm(a), (u(3, 3),)),
    ("expm", lambda a: scipy.linalg.expm(a), (u(2, 2, 2),)),
    ("expm_frechet", lambda a, e: scipy.linalg.expm_frechet(a, e, compute_expm=False),
     (u(3, 3), u(3, 3))),
]

INF = np.inf

ROWS += [
    # ---- norms: every ord and axis (away from ties and zeros; see test_linalg_points.py) ----
    ("norm", lambda x: np.linalg.norm(x, 2), (u(4),)),
    ("norm", lambda x: np.linalg.norm(x, ord=2, axis=0, keepdims=True), (u(4, 2),)),
    ("norm", lambda x: np.linalg.norm(x, "fro", axis=(0, 2)), (u(2, 3, 2),)),
    ("abs", lambda x: np.linalg.norm(x, 1), (u(4),)),
    ("abs", lambda x: np.linalg.norm(x, -1), (u(4),)),
    ("abs", lambda x: np.linalg.norm(x, 3), (u(4),)),
    ("abs", lambda x: np.linalg.norm(x, 0.5, axis=1), (u(2, 3),)),
    ("abs", lambda x: np.linalg.norm(x, -2, axis=-1, keepdims=True), (u(2, 3),)),
    ("abs", lambda x: np.linalg.norm(x, 0) * x, (u(4),)),
    ("max", lambda x: np.linalg.norm(x, INF), (u(4),)),
    ("min", lambda x: np.linalg.norm(x, -INF, axis=0), (u(4, 2),)),
    ("max", lambda x: np.linalg.norm(x, 1), (u(3, 2),)),
    ("min", lambda x: np.linalg.norm(x, -1), (u(3, 2),)),
    ("max", lambda x: np.linalg.norm(x, INF, axis=(2, 0)), (u(3, 2, 4),)),
    ("min", lambda x: np.linalg.norm(x, -INF, axis=(-1, -2), keepdims=True), (u(2, 3, 4),)),
    ("svdvals", lambda x: np.linalg.norm(x, "nuc"), (u(3, 2),)),
    ("svdvals", lambda x: np.linalg.norm(x, 2), (u(3, 2),)),
    ("svdvals", lambda x: np.linalg.norm(x, -2), (u(3, 3),)),
    ("svdvals", lambda x: np.linalg.norm(x, 2, axis=(0, 2)), (u(3, 2, 4),)),
    ("svdvals", lambda x: np.linalg.norm(x, "nuc", axis=(-1, 0), keepdims=True), (u(3, 2, 4),)),
]

ROWS += [
    ("vector_norm", lambda x: np.linalg.vector_norm(x), (u(2, 3),)),
    ("vector_norm", lambda x: np.linalg.vector_norm(x, axis=(0, 2), ord=1, keepdims=True),
     (u(2, 3, 2),)),
    ("vector_norm", lambda x: np.linalg.vector_norm(x, ord=INF), (u(2, 3),)),
    ("matrix_norm", lambda x: np.linalg.matrix_norm(x), (u(2, 3, 2),)),
    ("matrix_norm", lambda x: np.linalg.matrix_norm(x, ord="nuc", keepdims=True), (u(2, 3, 2),)),
    ("matrix_norm", lambda x: np.linalg.matrix_norm(x, ord=-INF), (u(3, 2),)),
]

ROWS += [
    # ---- the inverse from a Cholesky factor (LAPACK's potri; the other triangle is c's) ----
    ("dpotri", lambda c: scipy.linalg.lapack.dpotri(c, lower=1)[0],
     (np.linalg.cholesky(spd()) + np.triu(u(3, 3), 1),)),
    ("dpotri", lambda c: scipy.linalg.lapack.dpotri(c)[0],
     (np.linalg.cholesky(spd()).T + np.tril(u(3, 3), -1),)),
]
