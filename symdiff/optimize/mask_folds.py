"""Folds of masks that keep entries where they are and zero the rest (np.triu,
np.tril: records with ``masks``), as the backward pass builds them.

The gradient of ``np.sum(np.triu(t, 1))`` is ``np.triu(ones, 1)`` times what
the chain rule multiplies it by: the mask applied to that product instead
(``np.triu(p * g, 1)``, and ``p * full_like(p, 1.0)`` is ``p``) makes no
array of ones. Like a select after a multiply (folds.py), an entry the mask
drops is 0 even where ``p`` is not finite there: its derivative is 0.
"""
from __future__ import annotations

from ..ir.nodes import const_value
from ..ir.primitive import TABLE


def masking(b, atom):
    """The op if ``atom`` is a masking op (triu) made by the backward pass."""
    op = b.facts.producer(atom)
    return op if op is not None and op.backward and TABLE[op.prim].masks else None


def mask_of_product(b, p, q):
    """``p * triu(g)`` as ``triu(p * g)``, where ``p`` has the triangle's shape."""
    kept = masking(b, q)
    if kept is None or not b.facts.same_shape(p, q) or not b.facts.same_shape(q, kept.args[0]):
        return None
    return b.op(kept.prim, b.mul(p, kept.args[0]), **dict(kept.params))


def mask_of_sum(b, x, y):
    """``triu(p) + triu(q)`` as ``triu(p + q)``: one mask."""
    kx, ky = masking(b, x), masking(b, y)
    if not kx or not ky or kx.prim != ky.prim or kx.params != ky.params or \
            not b.facts.same_shape(x, y) or not b.facts.same_shape(x, kx.args[0]) or \
            not b.facts.same_shape(y, ky.args[0]):
        return None
    return b.op(kx.prim, b.add(kx.args[0], ky.args[0]), **dict(kx.params))


def fold_mask(b, args, prim, params):
    """``triu(x)`` where ``x`` has that mask already (``triu(2.0 * triu(a))``):
    ``x``. A number times a masked value, or its negation, keeps the mask."""
    x = args[0]
    for _ in range(4):
        op = b.facts.producer(x)
        if op is None or op.effect:
            return None
        if op.prim == prim and op.params == params:
            return args[0] if b.facts.same_shape(args[0], x) else None
        if op.prim == "negative":
            x = op.args[0]
        elif op.prim == "divide" and const_value(op.args[1]) is not None:
            x = op.args[0]
        elif op.prim == "multiply" and const_value(op.args[0]) is not None:
            x = op.args[1]
        elif op.prim == "multiply" and const_value(op.args[1]) is not None:
            x = op.args[0]
        else:
            return None
    return None
