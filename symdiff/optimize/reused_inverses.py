"""Solves with a matrix whose inverse the gradient computes anyway.

slogdet's gradient is ``A^-T``, which no solve gives more cheaply, so the
gradient computes ``np.linalg.inv(A)``; a solve's adjoint in the same
gradient (``np.linalg.solve(A.mT, g)`` for ``x = solve(A, b)``) would factor
A once more. With the inverse at hand it is a matrix product: ``inv(A).mT @
g``, O(n^2) instead of O(n^3). The user's own solve is rewritten too when
only the backward pass reads its value (``alpha = solve(K, y)`` in a log
likelihood whose gradient is ``(K^-1 - alpha alpha^T) / 2``), as a careful
hand-written gradient computes ``alpha = K_inv @ y``; a value the function
returns, branches on or keeps for later stays a solve: it is the user's.
Only at the top level of the function, where the inverse is computed on
every path; after dead code is gone, so the forward pass's dead readers do
not count.
"""
from __future__ import annotations

from ..ir.nodes import Op
from .dead_code import eliminate_dead_code
from .gradient_only import read_only_by_gradient, under_its_name


def reuse_inverses(fn, builder):
    """``fn`` with the backward pass's solves by an inverse it computes."""
    inverses = {s.args[0]: s for s in fn.body if isinstance(s, Op) and s.prim == "inv"}
    if not inverses:
        return fn
    backward_only = read_only_by_gradient(fn)
    body, placed, rewritten = [], set(), False
    for stmt in fn.body:
        if id(stmt) in placed:
            continue
        placed.add(id(stmt))
        found = (_by_inverse(stmt, inverses, backward_only, builder)
                 if isinstance(stmt, Op) else None)
        if found is None:
            body.append(stmt)
            continue
        inverse, transposed = found
        if id(inverse) not in placed:  # computed further down: computed here instead,
            inverse.loc = stmt.loc    # with the line it is first needed for
            body.append(inverse)
            placed.add(id(inverse))
        body += _product(stmt, inverse.target, transposed, builder)
        rewritten = True
    fn.body = body
    # the solves' transposed matrices (``A.mT``) may be read by nothing now
    return eliminate_dead_code(fn, builder) if rewritten else fn


def _by_inverse(stmt, inverses, backward_only, builder):
    """(the inverse, whether transposed) for a solve with A or A.mT that the
    backward pass adds or alone reads."""
    if stmt.prim != "solve" or not (stmt.backward or stmt.target in backward_only):
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
    return under_its_name(builder, stmt, made)
