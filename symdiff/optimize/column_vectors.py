"""A solve's vector right-hand side kept a vector, where the matrix is one.

The solve rules are written once, for matrices (rules/solves.py): a vector
right-hand side becomes a column, ``v[:, None]``, and its solution a vector
again. With one matrix (two axes), solving the vector is the same solve, and
a product of two such columns is an outer product: the gradient of a GP's
``cho_solve(factor, y)`` reads ``np.outer(alpha, alpha)``, not
``alpha_columns @ alpha_columns.mT`` with ``alpha_columns = alpha[:, None]``.
"""
from __future__ import annotations

from ..ir.nodes import Const, Var

_SOLVES = ("solve", "solve_triangular", "cho_solve")


def column_of(facts, atom):
    """``v`` for a column ``v[:, None]`` (or ``_as_columns(v, b)``) of a vector ``v``."""
    made = facts.producer(atom) if isinstance(atom, Var) else None
    if made is None:
        return None
    if made.prim == "getitem" and len(made.args) == 3 and \
            _const(made.args[1], slice(None)) and _const(made.args[2], None):
        vector = made.args[0]
    elif made.prim == "as_columns" and facts.rank(made.args[1]) == 1:
        vector = made.args[0]
    else:
        return None
    return vector if facts.rank(vector) == 1 else None


def _const(atom, value):
    return isinstance(atom, Const) and type(atom.value) is type(value) and atom.value == value


def solved_vector(b, op, facts):
    """``solve(a, v[:, None])`` -> ``solve(a, v)[:, None]`` for one matrix ``a``."""
    vector = column_of(facts, op.args[1])
    if vector is None or facts.rank(op.args[0]) != 2:
        return None
    solved = b.op(op.prim, op.args[0], vector, *op.args[2:], hint=op.target.hint,
                  **dict(op.params))
    return b.op("getitem", solved, Const(slice(None)), Const(None), hint=op.target.hint)


def outer_product(b, op, facts):
    """``u[:, None] @ w[:, None].mT`` -> ``np.outer(u, w)``."""
    left = column_of(facts, op.args[0])
    row = facts.producer(op.args[1]) if isinstance(op.args[1], Var) else None
    if left is None or row is None or row.prim not in ("matrix_transpose", "T"):
        return None
    right = column_of(facts, row.args[0])
    if right is None:
        return None
    return b.op("outer", left, right, hint=op.target.hint)


LOWERINGS = {**{prim: solved_vector for prim in _SOLVES}, "matmul": outer_product}
