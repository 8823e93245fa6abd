"""Runtime helpers: the adjoints of operations that copy entries around.

Each undoes one NumPy function's layout: ``_unrepeat`` adds up what
``np.repeat`` copied, ``_untile`` what ``np.tile`` copied, ``_unpad`` what
``np.pad`` copied into its border, ``_unsplit`` puts one piece of
``np.split`` back in its place, ``_uninsert`` and ``_inserted`` pick what
``np.insert`` placed. Each is linear in its first argument and is the
transpose of the NumPy function, which is therefore its adjoint (for the
last two, np.insert into zeros): the pair is closed under differentiation.
Plain NumPy, copied into written modules like the other helpers (they see
NumPy's ranks; the rules do not).
"""
import numpy as np


def _zeros_for(g, like):
    """Zeros of ``like``'s shape, in the precision of the gradient ``g``."""
    return np.zeros(np.shape(like), dtype=np.result_type(g, like, 0.0))


def _unrepeat(g, like, repeats, axis=None):
    """The gradient of ``np.repeat(like, repeats, axis)``: the copies of each
    entry added up (``axis=None``: of the flattened array)."""
    shape = np.shape(like)
    g = np.asarray(g)
    if axis is None:
        g, axis, work = g.reshape(-1), 0, (int(np.prod(shape)),)
    else:
        axis, work = axis % len(shape), shape
    repeats = np.asarray(repeats)
    if repeats.size == 1:  # each entry the same number of times: a reshape and a sum
        split = g.shape[:axis] + (work[axis], int(repeats.reshape(-1)[0])) + g.shape[axis + 1:]
        return g.reshape(split).sum(axis=axis + 1).reshape(shape)
    out = np.zeros(work, dtype=np.result_type(g, like, 0.0))
    source = np.repeat(np.arange(work[axis]), repeats)  # the entry each copy came from
    np.add.at(out, (slice(None),) * axis + (source,), g)
    return out.reshape(shape)


def _untile(g, like, reps):
    """The gradient of ``np.tile(like, reps)``: the tiles added up."""
    shape = np.shape(like)
    reps = tuple(int(r) for r in np.atleast_1d(reps))
    ndim = max(len(shape), len(reps))
    padded = (1,) * (ndim - len(shape)) + tuple(shape)
    reps = (1,) * (ndim - len(reps)) + reps
    interleaved = [n for pair in zip(reps, padded) for n in pair]  # (r0, s0, r1, s1, ...)
    summed = np.asarray(g).reshape(interleaved).sum(axis=tuple(range(0, 2 * ndim, 2)))
    return summed.reshape(shape)


def _unpad(g, like, pad_width, mode="constant", reflect_type="even"):
    """The gradient of ``np.pad(like, pad_width, mode)`` for the modes that copy
    entries (constant, edge, reflect, symmetric, wrap): the border's gradient
    added to the entries it copies, one axis at a time in the reverse of the
    order np.pad pads them."""
    shape = np.shape(like)
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.intp), (len(shape), 2))
    out = np.asarray(g)
    for axis in reversed(range(len(shape))):
        before, after = (int(w) for w in widths[axis])
        n = shape[axis]
        inside = (slice(None),) * axis + (slice(before, before + n),)
        if mode == "constant" or before == after == 0:
            out = out[inside]
            continue
        kwargs = {"reflect_type": reflect_type} if mode in ("reflect", "symmetric") else {}
        source = np.pad(np.arange(n), (before, after), mode, **kwargs)  # entry each came from
        border = np.concatenate([np.arange(before), np.arange(before + n, before + n + after)])
        part = out[(slice(None),) * axis + (border,)]
        out = out[inside].copy()
        np.add.at(out, (slice(None),) * axis + (source[border],), part)
    return out


def _unsplit(g, like, index=0, sections=1, axis=0, how="split"):
    """The gradient of piece ``index`` of ``np.<how>(like, sections, axis)``
    (split, array_split, hsplit, vsplit, dsplit): ``g`` where that piece
    came from, zeros elsewhere (NumPy's own split of the zeros places it)."""
    out = _zeros_for(g, like)
    along = {"axis": axis} if how in ("split", "array_split") else {}
    getattr(np, how)(out, sections, **along)[index][...] = g
    return out


def _untake_along_axis(g, like, indices, axis=-1):
    """The gradient of ``np.take_along_axis(like, indices, axis)``: ``g``
    added where each entry was taken from (repeated positions add up)."""
    out = _zeros_for(g, like)
    if axis is None:
        np.add.at(out.reshape(-1), indices, g)
        return out
    indices = np.asarray(indices)
    axis = axis % out.ndim
    ones = (1,) * out.ndim
    where = tuple(indices if dim == axis else
                  np.arange(n).reshape(ones[:dim] + (n,) + ones[dim + 1:])
                  for dim, n in enumerate(out.shape))
    np.add.at(out, where, g)
    return out


def _undiagonal(g, like, offset=0, axis1=0, axis2=1):
    """The gradient of ``np.diagonal(like, offset, axis1, axis2)``: ``g`` on
    that diagonal, zeros elsewhere."""
    out = _zeros_for(g, like)
    view = np.moveaxis(out, (axis1, axis2), (-2, -1))  # writes go to out
    steps = np.arange(np.shape(g)[-1])
    rows, cols = (steps, steps + offset) if offset >= 0 else (steps - offset, steps)
    view[..., rows, cols] = g
    return out


def _undiag(g, like, k=0):
    """The gradient of ``np.diag(like, k)``: the diagonal of ``g`` when
    ``like`` is a vector (diag made a matrix of it), else ``g`` on the
    diagonal of zeros shaped like the matrix ``like``."""
    if np.ndim(like) == 1:
        return np.diagonal(g, k).copy()  # (a view NumPy makes read-only)
    return _undiagonal(g, like, k)


def _weights_along(weights, like, axis=None):
    """``weights`` as ``np.average(like, axis, weights=weights)`` reads them:
    as they are when they have ``like``'s shape, else a vector laid along
    ``axis`` (NumPy's errors for weights that fit neither way)."""
    weights = np.asarray(weights)
    shape = np.shape(like)
    if weights.shape == shape:
        return weights
    if axis is None:
        raise TypeError("Axis must be specified when shapes of a and weights differ.")
    if weights.ndim != 1:
        raise TypeError("1D weights expected when shapes of a and weights differ.")
    axis = axis % len(shape)
    if weights.shape[0] != shape[axis]:
        raise ValueError("Length of weights not compatible with specified axis.")
    return weights.reshape((1,) * axis + (-1,) + (1,) * (len(shape) - 1 - axis))


def _convolution_start(n, m, mode, flipped):
    """Where ``np.convolve(a, v, mode)`` (``np.correlate``'s if ``flipped``)
    of lengths n and m starts in the full convolution."""
    if mode == "full":
        return 0
    short = min(n, m)
    if mode == "valid":
        return short - 1
    return short // 2 if flipped and m > n else (short - 1) // 2  # "same"


def _full_convolution(g, a, v, mode="full", flipped=False):
    """The gradient ``g`` of ``np.convolve(a, v, mode)`` (of ``np.correlate``
    if ``flipped``) in its place in the full convolution, zeros elsewhere."""
    n, m = len(a), len(v)
    out = np.zeros(n + m - 1, dtype=np.result_type(g, a, v, 0.0))
    start = _convolution_start(n, m, mode, flipped)
    out[start:start + len(g)] = g
    return out


def _cropped_convolution(h, a, v, mode="full", flipped=False):
    """The part of the full convolution ``h`` that ``np.convolve(a, v, mode)``
    (``np.correlate`` if ``flipped``) returns: the adjoint of the above."""
    n, m = len(a), len(v)
    length = {"full": n + m - 1, "valid": abs(n - m) + 1}.get(mode, max(n, m))
    start = _convolution_start(n, m, mode, flipped)
    return h[start:start + length]


def _uninsert(g, like, obj, values, axis=None):
    """The gradient of ``np.insert(like, obj, values, axis)`` for ``like``:
    the entries of ``g`` where ``like``'s entries went (NumPy's own
    placement: each entry's position, inserted as a label)."""
    labels = np.arange(np.size(like)).reshape(np.shape(like))
    where = np.insert(labels, obj, np.full(np.shape(values), -1), axis=axis)
    kept = where >= 0
    out = np.zeros(np.size(like), dtype=np.result_type(g, 0.0))
    out[where[kept]] = np.asarray(g)[kept]
    return out.reshape(np.shape(like))


def _inserted(g, like, obj, values, axis=None):
    """The gradient of ``np.insert(like, obj, values, axis)`` for ``values``:
    the entries of ``g`` where each value went, added up over its copies
    (``values`` broadcast). Zeros if ``like`` is an integer array (the values
    are truncated to it: no derivative)."""
    out = np.zeros(np.size(values), dtype=np.result_type(g, 0.0))
    if np.result_type(like).kind in "fc":
        labels = np.arange(np.size(values)).reshape(np.shape(values))
        where = np.insert(np.full(np.shape(like), -1), obj, labels, axis=axis)
        kept = where >= 0
        np.add.at(out, where[kept], np.asarray(g)[kept])
    return out.reshape(np.shape(values))
