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
    per position; the entry whose value stays gets the gradient there)."""
    part = g[index]
    order = np.arange(np.size(part)).reshape(np.shape(part))
    winner = np.full(np.shape(like), -1)
    winner[index] = order
    return np.where(winner[index] == order, part, np.zeros_like(part))
