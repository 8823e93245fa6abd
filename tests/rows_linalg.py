"""Rows of the linear-algebra primitives (see primitive_rows.py): products and
contractions, solves and factorizations, decompositions, matrix functions and
norms. Special points (singular, ill-conditioned, repeated eigenvalues) are
tested in test_linalg_points.py."""
import numpy as np

from row_inputs import u

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
