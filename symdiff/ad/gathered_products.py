"""The gradient of a matrix a loop multiplies by, gathered after the loop.

The gradient of ``W`` in ``W @ h`` is an outer product per iteration; the
reverse loop saves the two factors instead, and one matrix product after it
adds them all up. The generic gradient calls ``_matmul_adjoint_a_sum(parts,
W)`` (runtime/helpers.py: any ranks, 128 iterations at a time). Where the
signature says the factors are vectors of W's dtype, the gradient says it
as a hand-written one would: the factors go on two lists, and

    if W_bar_rows:
        W_bar = np.stack(W_bar_rows).T @ np.stack(W_bar_columns)
    else:
        W_bar = np.zeros_like(W)

(the ``else`` for a loop that ran no iteration: ``np.stack`` of nothing raises).
Where the loop's trip count is known before it, optimize/tape_arrays.py
turns the lists into arrays written by index and drops the branch:

    W_bar = t_bars.T @ hs[:-1]     # the states, one array the forward loop filled
    U_bar = t_bars.T @ xs          # a row the loop read of xs: xs itself
"""
from __future__ import annotations

import numpy as np

from ..ir.nodes import If, Merge, Tape, Var
from ..rules.linalg import TAPE_SUMS


def gather_products(rev, reverse, var, grad, after):
    """Whether ``grad``, the gradient a loop iteration gives ``var``, is a
    product adjoint of ``var`` gathered after the loop (into ``after``)."""
    op = rev.b.facts.defs.get(grad)
    prim = op.prim if op is not None else ""
    if prim.startswith("dot_adjoint") and all(
            (rev.b.facts.rank(a) or 3) <= 2 for a in op.args[1:]):
        prim = prim.replace("dot", "matmul")  # np.dot of vectors and matrices is @
    matrix = TAPE_SUMS.get(prim + "_sum") if op is not None else None
    if matrix is None or op.args[matrix] is not var:
        return False
    g, other = op.args[0], op.args[3 - matrix]
    if _outer_products(rev.b.facts, g, other, var):
        _stacked(rev, reverse, var, g, other, matrix, after)
        return True
    parts = Tape(Var(var.hint + "_bar_parts"), [g, other])
    reverse.writes.append(parts)
    with rev.b.into(after):
        total = rev.b.op(prim + "_sum", parts.var, var, hint=var.hint + "_bar")
    rev.b.named.add(total)
    rev.adj[var].append(total)
    return True


def _outer_products(facts, g, other, var):
    """Vectors times a matrix, all of one known dtype (what the sum of the
    outer products has without a cast)."""
    if not facts.signature or (facts.rank(g), facts.rank(other), facts.rank(var)) != (1, 1, 2):
        return False
    dtype = facts.dtype(var)
    return dtype is not None and not isinstance(dtype, type) and \
        all(_unknown_or(facts.dtype(v), dtype) for v in (g, other))


def _unknown_or(found, dtype):
    """``dtype``, compared as dtypes (``np.dtype("float64") == None`` holds),
    or for a float64 matrix a dtype not known yet (a reverse loop's values:
    ir/reinfer.py finds them later): the products' sum has float64's
    precision then, as the matrix (a float32 one keeps the helper, which casts)."""
    if found is None:
        return dtype == np.float64
    return isinstance(found, np.dtype) and found == dtype


def _stacked(rev, reverse, var, g, other, matrix, after):
    b = rev.b
    rows = Tape(Var(var.hint + "_bar_rows"), [g])
    columns = Tape(Var(var.hint + "_bar_columns"), [other])
    reverse.writes += [rows, columns]
    # W in W @ h (matrix at 1): sum g h^T = G^T H; in h @ W (at 2): sum h g^T = H^T G
    left, right = (rows, columns) if matrix == 1 else (columns, rows)
    with b.into(after):
        loc = b.loc
        with b.block() as then:
            product = b.op("matmul", b.op("T", b.op("stack_list", left.var)),
                           b.op("stack_list", right.var), hint=var.hint + "_bar")
        with b.block() as orelse:
            zeros = b.op("zeros_like", var, hint=var.hint + "_bar")
        total = Var(var.hint + "_bar")
        for value in (product, zeros, total):
            b.facts.shape[value] = b.facts.key(var)
        b.append(If(rows.var, then, orelse, [Merge(total, product, zeros)], loc, backward=True))
    b.named.add(total)
    rev.adj[var].append(total)
