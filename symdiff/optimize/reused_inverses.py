"""Solves with a matrix whose inverse the gradient computes anyway.

slogdet's gradient is ``A^-T``, which no solve gives more cheaply, so the
gradient computes ``np.linalg.inv(A)``; a solve's adjoint in the same
gradient (``np.linalg.solve(A.mT, g)`` for ``x = solve(A, b)``) would factor
A once more. With the inverse at hand it is a matrix product: ``inv(A).mT @
g``, O(n^2) instead of O(n^3). Only solves the gradient adds are rewritten
(the user's own solve stays a solve: its value is theirs), and only at the
top level of the function, where the inverse is computed on every path.
"""
from __future__ import annotations

from ..ir.nodes import Op


def reuse_inverses(fn, builder):
    """``fn`` with the backward pass's solves by an inverse it computes."""
    inverses = {s.args[0]: s for s in fn.body if isinstance(s, Op) and s.prim == "inv"}
    if not inverses:
        return fn
    body, placed = [], set()
    for stmt in fn.body:
        if id(stmt) in placed:
            continue
        placed.add(id(stmt))
        found = _by_inverse(stmt, inverses, builder) if isinstance(stmt, Op) else None
        if found is None:
            body.append(stmt)
            continue
        inverse, transposed = found
        if id(inverse) not in placed:  # computed further down: computed here instead,
            inverse.loc = stmt.loc    # with the line it is first needed for
            body.append(inverse)
            placed.add(id(inverse))
        body += _product(stmt, inverse.target, transposed, builder)
    fn.body = body
    return fn


def _by_inverse(stmt, inverses, builder):
    """(the inverse, whether transposed) for a backward solve with A or A.mT."""
    if stmt.prim != "solve" or not stmt.backward:
        return None
    matrix = stmt.args[0]
    if matrix in inverses:
        return inverses[matrix], False
    made = builder.facts.producer(matrix)
    if made is not None and made.prim == "matrix_transpose" and made.args[0] in inverses:
        return inverses[made.args[0]], True
    return None


def _product(stmt, inverse, transposed, builder):
    """``inverse @ rhs`` (``inverse.mT @ rhs``) under the solve's name."""
    with builder.block() as made, builder.at(stmt.loc), builder.noting(stmt.note):
        saved, builder.backward = builder.backward, True
        try:
            left = builder.op("matrix_transpose", inverse) if transposed else inverse
            builder.op("matmul", left, stmt.args[1], hint=stmt.target.hint)
        finally:
            builder.backward = saved
    product = made[-1]
    builder.facts.shape[stmt.target] = builder.facts.key(product.target)
    product.target = stmt.target
    builder.facts.defs[stmt.target] = product
    return made
