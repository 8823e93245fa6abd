"""Least squares on a bilinear form s_n = x_n^T A z_n, in the matrix A."""
import numpy as np

from .base import Case, Spelling


def bilinear_einsum(A, X, Z, t):
    s = np.einsum("ni,ij,nj->n", X, A, Z)
    return 0.5 * np.sum((s - t) ** 2)


def bilinear_matmul(A, X, Z, t):
    s = np.sum((X @ A) * Z, axis=1)
    return 0.5 * np.sum((s - t) ** 2)


def bilinear_rowwise_einsum(A, X, Z, t):  # einsum for the row-wise dot only
    r = np.einsum("ij,ij->i", X @ A, Z) - t
    return 0.5 * (r @ r)


def bilinear_hand(A, X, Z, t):
    r = np.einsum("ij,ij->i", X @ A, Z) - t
    return X.T @ (r[:, None] * Z)


def _args(n, d):
    def make(rng):
        return {"A": rng.standard_normal((d, d)) / d, "X": rng.standard_normal((n, d)),
                "Z": rng.standard_normal((n, d)), "t": rng.standard_normal(n)}
    return make


CASE = Case(
    "bilinear (einsum)", ("A",), bilinear_hand,
    {"8x3": _args(8, 3), "20000x32": _args(20000, 32)},
    [Spelling("einsum ni,ij,nj->n", bilinear_einsum),
     Spelling("sum((X @ A) * Z)", bilinear_matmul),
     Spelling("einsum ij,ij->i, r @ r", bilinear_rowwise_einsum)],
    why={
        "sum((X @ A) * Z)":
            "`_unreduce(s_bar, t_1, axis=1)` materialises the residual broadcast to (n, d) "
            "before `Z * t_bar` (~4 us of ~9 at 8x3), and the forward forms "
            "`(X @ A) * Z` and sums it where the hand-written code uses "
            "`einsum('ij,ij->i')`",
    },
)
