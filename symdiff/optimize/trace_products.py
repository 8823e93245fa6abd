"""The trace of a product of matrices, never formed as a matrix.

``trace(P @ Q)`` is ``sum(P * Q^T)``: n^2 products where ``P @ Q`` takes
n^3, and no matrix is made. A solve's gradient with respect to a
coefficient of its matrix (ridge regression's ``lam`` in ``X^T X + lam *
I``) is such a trace, of an outer product of two columns: then it is the
dot product of the vectors (``-np.linalg.solve(A.mT, w_bar) @ w``), and a
solve or a product with a column of a vector is one with the vector.
"""
from __future__ import annotations

import numpy as np

from ..ir import patterns
from ..ir.nodes import Const
from ..rules.linalg import transposed
from .einsum_pairs import real_floats

_PLAIN = {"offset": 0, "axis1": 0, "axis2": 1, "dtype": None}


def fold_trace(b, args, params):
    """``trace(P @ Q)`` of real matrices as ``vdot(P, Q^T)`` (of vectors, ``u @ v``)."""
    facts = b.facts
    made = facts.producer(args[0])
    if made is not None and made.prim == "outer" and not any(
            params.get(k, v) != v for k, v in _PLAIN.items()) and \
            all(facts.rank(a) == 1 for a in made.args) and real_floats(b, *made.args):
        return b.op("matmul", *made.args)  # (np.outer of a column vector: column_vectors.py)
    if made is None or made.prim != "matmul" or any(
            params.get(k, v) != v for k, v in _PLAIN.items()):
        return None
    p, q = made.args
    if facts.rank(p) != 2 or facts.rank(q) != 2 or not real_floats(b, p, q):
        return None
    q_t = transposed(b, q)
    u, v = _vector_of(b, p), _vector_of(b, q_t)
    if u is not None and v is not None:
        return b.op("matmul", u, v)
    return b.op("vdot", p, q_t)


def _vector_of(b, column):
    """The vector whose column ``column`` is (shape (n, 1)), written without
    the column where the backward pass made it from one (``v[:, None]``,
    ``solve(a, v[:, None])``, ``a @ v[:, None]``, ``2.0 * v[:, None]``): else
    ``column[:, 0]``; None where it is not a column."""
    facts = b.facts
    found = facts.pattern(column)
    if found is None or len(found) != 2 or found[1] != 1:
        return None
    made = facts.producer(column)
    if made is None:
        return None
    if made.prim == "unindex" and len(made.args) == 4 and facts.rank(made.args[0]) == 1 and \
            _is(made.args[2], slice(None)) and _is(made.args[3], 0):
        return made.args[0]  # (the column's one column, written: what was written)
    if not made.backward:  # (a forward value is there: its column, a view)
        return b.op("getitem", column, Const(slice(None)), Const(0))
    if made.prim == "getitem" and len(made.args) == 3 and facts.rank(made.args[0]) == 1 and \
            _is(made.args[1], slice(None)) and _is(made.args[2], None):
        return made.args[0]
    if made.prim == "multiply" and any(facts.is_scalar(a) for a in made.args):
        k, rest = made.args if facts.is_scalar(made.args[0]) else made.args[::-1]
        inner = _vector_of(b, rest)
        return b.mul(k, inner) if inner is not None else None
    if made.prim in ("solve", "matmul") and facts.rank(made.args[0]) == 2:
        inner = _vector_of(b, made.args[1])
        if inner is not None:
            return b.op(made.prim, made.args[0], inner)
    return b.op("getitem", column, Const(slice(None)), Const(0))


def _is(atom, value):
    return isinstance(atom, Const) and atom.value == value and type(atom.value) is type(value)


def scaled_identity(b, atom):
    """The number c where ``atom`` is ``untrace(c, m)`` of a square matrix m
    (a trace's gradient: c times the identity), else None."""
    made = b.facts.producer(atom)
    if made is None or made.prim != "untrace" or not b.facts.is_scalar(made.args[0]) or any(
            made.param(k, v) != v for k, v in _PLAIN.items() if k != "dtype"):
        return None
    pattern = b.facts.pattern(made.args[1])
    if pattern is None or len(pattern) != 2 or pattern[0] != pattern[1] \
            or not patterns.is_named(pattern[0]):
        return None
    return made.args[0]


def fold_identity_product(b, args):
    """``X @ (c I)`` and ``(c I) @ X`` of a matrix X (the gradient through a
    trace, ``np.trace(A.T @ A)``): ``c * X``, with no identity made."""
    if not b.backward:
        return None
    for k, arg in enumerate(args):
        c, other = scaled_identity(b, arg), args[1 - k]
        like = b.facts.producer(arg).args[1] if c is not None else None
        if c is not None and b.facts.rank(other) == 2 and isinstance(
                b.facts.dtype(other), np.dtype) and b.facts.dtype(other) == b.facts.dtype(like) \
                and b.facts.same_dtype(other, c):
            return b.mul(c, other)
    return None
