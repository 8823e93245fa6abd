"""Two products with a common factor, summed: one product of the sum.

The gradient of a value read twice is the sum of what each reading gives
it; where both are matrix products with the same factor on the same side,
``S_bar @ A + S_bar.T @ A`` (the gradient of ``A`` in ``A @ A.T``) is
``(S_bar + S_bar.T) @ A``: one matrix product, as one writes it by hand.
Only products of the gradient that nothing else reads, made in the block of
the sum, are joined, and only where the other factors have one shape (so
their sum is elementwise, with no broadcasting the products did not do).
"""
from __future__ import annotations

from ..ir.nodes import Op, walk
from .direct_forms import rewrite, substitute
from .reads import all_blocks, live_counts


def shared_factors(fn, builder):
    """``fn`` with ``a @ c + b @ c`` written ``(a + b) @ c`` (and ``c @ a - c
    @ b`` as ``c @ (a - b)``, ``a @ c + (-b) @ c`` as ``(a - b) @ c``) in its
    derivative code."""
    if not builder.facts.signature:
        return fn
    counts, live = live_counts(fn)  # (reads by dead code do not count)
    subst = {}
    _signs_out(fn, counts, live)
    for stmts in all_blocks(fn.body):
        here, new = {}, []
        for stmt in stmts:
            made = None
            if isinstance(stmt, Op) and stmt.prim in ("add", "subtract") and stmt.backward:
                made = rewrite(stmt, builder, _joined(counts, here), subst)
            new += made if made is not None else [stmt]
            if isinstance(stmt, Op):
                here[stmt.target] = stmt
        stmts[:] = new
    if subst:
        substitute(fn.body, subst)
    return fn


def _signs_out(fn, counts, live):
    """``p + (-y) @ X`` is ``p - y @ X``, to the bit, where the negation and
    the product are read only there (by a sum the result needs: a dead one
    that read it too must not take its sign): the sum then may share X."""
    defs = {s.target: s for s in walk(fn.body) if isinstance(s, Op)}
    for op in defs.values():
        if op.prim != "add" or not op.backward or op.target not in live:
            continue
        for k, arg in enumerate(op.args):
            product = defs.get(arg)
            if product is None or product.prim != "matmul" or counts.get(arg) != 1:
                continue
            signs = [defs.get(a) for a in product.args]
            i = next((i for i, s in enumerate(signs) if s is not None and s.prim == "negative"
                      and counts.get(s.target) == 1), None)
            if i is not None:
                product.args = tuple(signs[i].args[0] if j == i else a
                                     for j, a in enumerate(product.args))
                op.prim, op.args = "subtract", (op.args[1 - k], arg)
                break


def _joined(counts, here):
    def lower(b, op, facts):
        left, right = (here.get(a) for a in op.args)
        if not all(p is not None and p.prim == "matmul" and p.backward and not p.effect
                   and counts.get(p.target) == 1 for p in (left, right)):
            return None
        for side in (1, 0):  # the common factor on the right, then on the left
            common, a, c = left.args[side], left.args[1 - side], right.args[1 - side]
            if right.args[side] is common and facts.same_shape(a, c) \
                    and facts.same_dtype(a, c) and facts.rank(a) is not None:
                total = b.op(op.prim, a, c)
                return b.op("matmul", *((total, common) if side == 1 else (common, total)))
        return None
    return lower
