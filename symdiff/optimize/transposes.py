"""A transpose of a product of matrices as the product of the transposes,
where that writes fewer of them: ``(Q.T @ g).T`` is ``g.T @ Q``.

A transpose is a view, so this is for the reader: the adjoint of ``K`` in
``Q @ K.T`` is ``g.T @ Q``, as one writes it by hand. (``x.T.T`` is ``x``:
folds.py.) Only derivative code is rewritten, and only a product nothing
else reads, made in the same block: the product is never computed twice.
"""
from __future__ import annotations

from ..ir.nodes import Op, use_counts
from .direct_forms import rewrite, substitute
from .reads import all_blocks


def transposed_products(fn, builder):
    """``fn`` with ``(a @ b).T`` written ``b.T @ a.T`` where ``a`` or ``b`` is
    itself a transpose (of matrices, whose ``.T`` is the product's)."""
    if not builder.facts.signature:
        return fn
    counts, subst = use_counts(fn), {}
    for stmts in all_blocks(fn.body):
        here, new = set(), []
        for stmt in stmts:
            made = None
            if isinstance(stmt, Op) and stmt.prim == "T" and stmt.backward:
                made = rewrite(stmt, builder, _swapped(counts, here), subst)
            new += made if made is not None else [stmt]
            if isinstance(stmt, Op):
                here.add(stmt.target)
        stmts[:] = new
    if subst:
        substitute(fn.body, subst)
    return fn


def _swapped(counts, here):
    def lower(b, op, facts):
        product = facts.producer(op.args[0])
        if product is not None and product.prim == "T":
            return product.args[0]  # (x.T.T, where x.T was made in another pass)
        if product is None or product.prim != "matmul" or not product.backward \
                or product.target not in here or counts.get(product.target) != 1:
            return None
        a, c = product.args
        if facts.rank(a) != 2 or facts.rank(c) != 2 or not any(
                _transpose(facts, v) for v in (a, c)):
            return None
        return b.op("matmul", b.op("T", c), b.op("T", a))
    return lower


def _transpose(facts, atom):
    made = facts.producer(atom)
    return made is not None and made.prim == "T"
