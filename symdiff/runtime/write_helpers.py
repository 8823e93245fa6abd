"""Helpers for writes into arrays (``out[i] = v``) in generated code.

Plain NumPy, copied into written modules like helpers.py's (which imports
them, so they are helpers too).
"""
import numpy as np


def _setitem(a, value, index, floating=False):
    """``a`` with ``a[index] = value``, as a new array (``a`` is unchanged):
    where generated code cannot write into ``a`` itself. (``floating``: ``a``
    is known to be floating point, which matters to its derivative only.)"""
    out = np.array(a, copy=True)
    out[index] = value
    return out


def _c_column(a):
    """A part of ``np.c_[...]`` as NumPy joins it: a vector as a column
    (n, 1), a number as (1, 1), anything else as it is."""
    a = np.asarray(a)
    return a.reshape(-1, 1) if a.ndim == 1 else a.reshape(1, 1) if a.ndim == 0 else a


def _assigned(g, like, index):
    """The gradient of the values ``like[index] = values`` assigns: ``g[index]``,
    but 0 for an entry a repeated position overwrote (NumPy keeps one value
    per position; the entry whose value stays gets the gradient there).
    ``like`` is the array written into, or its shape where a loop saved only
    that."""
    part = g[index]
    order = np.arange(np.size(part)).reshape(np.shape(part))
    winner = np.full(like if type(like) is tuple else np.shape(like), -1)
    winner[index] = order
    return np.where(winner[index] == order, part, np.zeros_like(part))


def _padded(g, like, index):
    """``g`` placed at ``like[index]`` in zeros (slices of step 1), as a pad:
    the gradient of slicing, for arrays nothing can be written into (JAX),
    where the compiler fuses the pad into the sum that reads it. The widths
    come from ``like``'s shape (JAX's is known when it traces)."""
    parts = index if type(index) is tuple else (index,)
    widths, inner = [], []
    for axis, n in enumerate(like.shape):
        start, stop = 0, n
        if axis < len(parts):
            start, stop, _ = parts[axis].indices(n)
            stop = max(start, stop)
        widths.append((start, n - stop))
        inner.append(stop - start)
    g = np.broadcast_to(np.asarray(g, dtype=like.dtype), tuple(inner))
    return np.pad(g, widths)
