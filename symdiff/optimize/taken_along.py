"""``np.take_along_axis``'s gradient where the signature says no position repeats.

``np.take_along_axis(z, y[:, None], axis=1)`` takes one entry of each row of a
matrix (a label's score): its gradient puts ``g`` back at those positions.
The generic gradient calls ``_untake_along_axis``, which adds (positions may
repeat when there are several per row); with one index per row (indices of
shape ``(n, 1)``, n the matrix's rows) they cannot, and the gradient is the
plain write ``z_bar[np.arange(n)[:, None], y[:, None]] = g`` — NumPy's
indexing, no helper to look up.
"""
from __future__ import annotations

from ..ir import patterns as pat
from ..ir.nodes import Const


def untaken(b, op, facts):
    g, like, indices = op.args
    axis = op.param("axis", -1)
    shape, taken = facts.pattern(like), facts.pattern(indices)
    if shape is None or taken is None or len(shape) != 2 or len(taken) != 2 or \
            not isinstance(axis, int) or not -2 <= axis < 2:
        return None
    axis %= 2
    other = 1 - axis
    if taken[axis] != 1 or taken[other] != shape[other] or not pat.is_named(shape[other]):
        return None
    n = b.op("getitem", b.op("shape", like), Const(other))
    lanes = b.op("npcall", n, func="arange", kwargs=())
    where = (Const(slice(None)), Const(None)) if other == 0 else (Const(None), Const(slice(None)))
    lanes = b.op("getitem", lanes, *where)
    index = (lanes, indices) if axis == 1 else (indices, lanes)
    return b.op("unindex", g, like, *index, hint=op.target.hint)


def placed_everywhere(b, op, facts):
    """``t = np.zeros_like(a); t[:, 0] = g`` of an ``a`` of shape (n, 1): every
    entry is set, so ``t`` is a number ``g`` spread to ``a``'s shape (the
    gradient of ``np.take_along_axis(...)[:, 0]``), a vector ``g[:, None]``."""
    g, like, *index = op.args
    shape = facts.pattern(like)
    if shape is None or len(index) != len(shape) or not all(
            _whole(i, n) for i, n in zip(index, shape)):
        return None
    if facts.rank(g) == 0:
        return b.op("unreduce", g, like, hint=op.target.hint)
    # (``out_bar[:, 0] = g`` of an (n, 1) ``out``: ``g[:, None]``)
    kept = [i for i in index if i.value == slice(None)]
    if facts.pattern(g) != tuple(n for i, n in zip(index, shape) if i.value == slice(None)) \
            or facts.dtype(g) != facts.dtype(like) or len(kept) == len(index):
        return None
    return b.op("getitem", g, *(i if i.value == slice(None) else Const(None) for i in index),
                hint=op.target.hint)


def _whole(index, length):
    """Whether ``index`` selects every entry of an axis of length ``length``."""
    if not isinstance(index, Const):
        return False
    value = index.value
    return value == slice(None) or length == 1 and type(value) is int and value in (0, -1)


LOWERINGS = {"untake_along_axis": untaken, "unindex": placed_everywhere}
