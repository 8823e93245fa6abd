"""Runtime helpers for running products and for values picked by order.

``_recurrence`` is the linear recurrence the adjoint of ``np.cumprod`` is
made of, exact where entries are zero (no division). ``_tie_mean`` shares a
gradient evenly among tied entries of a sorted array: the kink policy for
``np.sort``, ``np.median`` and the quantiles. ``_quantile_adjoint`` and
``_quantile_tangent`` are the two directions of the derivative of
``np.quantile`` (and of percentile and median): the weights each entry has
in the result, piecewise constant in the entries. Plain NumPy, copied into
written modules like the other helpers.
"""
import numpy as np


def _recurrence(a, b, axis=-1, reverse=False):
    """The linear recurrence along ``axis``: ``y[0] = b[0]``, ``y[i] = a[i] *
    y[i - 1] + b[i]`` (``a[0]`` is not read). With ``reverse``, from the other
    end: ``y[i] = a[i + 1] * y[i + 1] + b[i]``, the transpose of the first in
    ``b``. Where ``a`` has no zeros and its running products stay in range,
    through them (``P * cumsum(b / P)``, a few passes); otherwise by doubling
    (log2(n) passes of products and sums: exact where entries are zero)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        a, b = np.broadcast_arrays(a, b)
    dtype = np.result_type(a, b, 0.0)
    last = axis in (-1, a.ndim - 1)  # (the common case: no axes to move)
    if not last:
        a, b = np.moveaxis(a, axis, -1), np.moveaxis(b, axis, -1)
    # the coefficients met after the first entry, in the order they are met (views)
    coefficients, b = (a[..., :0:-1], b[..., ::-1]) if reverse else (a[..., 1:], b)
    y = _forward_recurrence(coefficients, b, dtype)
    y = y[..., ::-1] if reverse else y
    return y if last else np.moveaxis(y, -1, axis)


def _forward_recurrence(coefficients, b, dtype):
    """`_recurrence` along the last axis, from the start; ``coefficients`` are
    a[1:]. A running product that ends finite and nonzero was so all along
    (0 and inf stay), and so was a cumulative sum that ends finite."""
    if b.shape[-1] < 2:
        return b.astype(dtype)
    with np.errstate(all="ignore"):
        running = np.cumprod(coefficients, axis=-1, dtype=dtype)
        last = running[..., -1]
        if np.isfinite(last).all() and last.all():
            total = np.cumsum(b[..., 1:] / running, axis=-1, dtype=dtype)
            if np.isfinite(total[..., -1]).all():
                total += b[..., :1]
                total *= running
                return np.concatenate([b[..., :1].astype(dtype), total], axis=-1)
    y = b.astype(dtype)  # (a copy) by doubling
    factors = np.concatenate([np.zeros_like(y[..., :1]), coefficients], axis=-1)
    step, n = 1, y.shape[-1]
    while step < n:  # each entry takes in the window of `step` entries before its own
        y[..., step:] += factors[..., step:] * y[..., :-step]
        factors[..., step:] *= factors[..., :-step]
        step *= 2
    return y


def _tie_mean(g, s, axis=-1):
    """``g`` with each run of equal entries of the sorted array ``s`` (along
    ``axis``) given the mean of ``g`` over the run: tied entries share the
    gradient evenly (the kink policy). ``g`` itself where nothing ties."""
    s = np.asarray(s)
    if s.ndim == 0:
        return g
    moved = np.moveaxis(s, axis, -1)
    tied = moved[..., 1:] == moved[..., :-1]
    if not tied.any():
        return g
    values = np.moveaxis(np.broadcast_to(np.asarray(g), s.shape), axis, -1)
    starts = np.ones(moved.shape, dtype=bool)
    starts[..., 1:] = ~tied
    run = np.cumsum(starts.reshape(-1)) - 1  # each entry's run, numbered over all slices
    mean = np.bincount(run, weights=values.reshape(-1)) / np.bincount(run)
    shared = mean[run].reshape(values.shape).astype(np.result_type(g, 0.0), copy=False)
    return np.moveaxis(shared, -1, axis)


def _quantile_methods():
    """The methods of np.quantile whose weights `_quantile_weights` knows."""
    return ("linear", "lower", "higher", "nearest", "midpoint")


def _quantile_weights(a, q, axis, method):
    """``W`` of shape ``q.shape + a.shape`` with ``np.quantile(a, q, axis,
    method=method)`` the sum of ``W * a`` over ``axis``: the weight of each
    entry (1 - t and t on the two entries interpolated between), shared
    evenly among tied entries; NaN on a slice holding NaN (so is its quantile)."""
    a, q = np.asarray(a), np.asarray(q, dtype=np.float64)
    if method not in _quantile_methods():
        raise ValueError(f"quantile method {method!r} is not differentiated")
    axes = _axes(axis, a.ndim)
    layout = tuple(d for d in range(a.ndim) if d not in axes) + axes  # reduced axes last
    moved = a if layout == tuple(range(a.ndim)) else a.transpose(layout)
    kept_shape = moved.shape[:a.ndim - len(axes)]
    n = 1
    for length in moved.shape[len(kept_shape):]:
        n *= length
    work = moved.reshape(kept_shape + (n,))
    order = work.argsort(axis=-1)
    ranked = np.take_along_axis(work, order, axis=-1)
    position = (n - 1) * q.reshape(-1)  # NumPy's virtual index, per q
    if method == "midpoint":
        position = 0.5 * (np.floor(position) + np.ceil(position))
    low = {"lower": np.floor, "higher": np.ceil, "nearest": np.around}.get(method, np.floor)
    lo = np.clip(low(position), 0, n - 1).astype(np.intp)
    t = position - lo if method in ("linear", "midpoint") else np.zeros_like(position)
    hi = np.minimum(lo + 1, n - 1)
    ranked_weights = np.zeros((q.size,) + kept_shape + (n,), dtype=np.result_type(a, 0.0))
    for k in range(q.size):  # (a few quantiles: one pass each)
        ranked_weights[k, ..., lo[k]] += 1 - t[k]
        ranked_weights[k, ..., hi[k]] += t[k]
    ranked_weights = _tie_mean(ranked_weights, np.broadcast_to(ranked, ranked_weights.shape))
    weights = np.empty_like(ranked_weights)  # back to the entries' own order
    if not kept_shape:
        weights[..., order] = ranked_weights
    else:
        np.put_along_axis(weights, np.broadcast_to(order, weights.shape), ranked_weights, -1)
    if n and np.isnan(ranked[..., -1]).any():  # (np.sort puts NaN last)
        weights[..., np.isnan(ranked[..., -1]), :] = np.nan
    weights = weights.reshape(q.shape + moved.shape)
    if moved is a:
        return weights
    back = tuple(q.ndim + i for i in np.argsort(layout))
    return weights.transpose(tuple(range(q.ndim)) + back)


def _axes(axis, ndim):
    """``axis`` (None, an int or a tuple; negative ones too) as sorted axes."""
    if axis is None:
        return tuple(range(ndim))
    return tuple(sorted(int(i) % ndim for i in np.atleast_1d(axis)))


def _quantile_adjoint(g, a, q, axis=None, method="linear", keepdims=False, per=1):
    """The gradient of ``np.quantile(a, q / per, axis, method=method,
    keepdims=keepdims)`` with respect to ``a`` (``per=100``: percentile)."""
    q = np.true_divide(q, per)
    weights = _quantile_weights(a, q, axis, method)
    g = np.asarray(g, dtype=np.result_type(g, a, 0.0))  # (a Python number: a's precision)
    if not keepdims:
        g = np.expand_dims(g, tuple(np.ndim(q) + i for i in _axes(axis, np.ndim(a))))
    spread = weights * g
    return spread.sum(axis=tuple(range(np.ndim(q)))) if np.ndim(q) else spread


def _quantile_tangent(t, a, q, axis=None, method="linear", keepdims=False, per=1):
    """The derivative of ``np.quantile(a, q / per, ...)`` along ``t``: the
    same weighted sum of ``t``'s entries (the transpose of the adjoint)."""
    q = np.true_divide(q, per)
    weights = _quantile_weights(a, q, axis, method)
    reduced = tuple(np.ndim(q) + i for i in _axes(axis, np.ndim(a)))
    return np.sum(weights * t, axis=reduced, keepdims=keepdims)


def _running_adjoint(g, a, axis=0, minimum=False):
    """The gradient of ``np.maximum.accumulate(a, axis)`` (``minimum``: of
    np.minimum's) with respect to ``a``, for the gradient ``g`` of the result:
    each result entry's gradient shared evenly by the entries before it that
    tie for its value (np.max's policy); NaN from the first NaN on."""
    h, c, first, last = _running_ties(a, axis, minimum)
    q = np.where(c == 0, 0.0,
                 np.moveaxis(np.broadcast_to(g, np.shape(a)), axis, -1) / np.maximum(c, 1))
    inclusive = np.cumsum(q, axis=-1)
    inclusive = inclusive - np.take_along_axis(inclusive - q, first, axis=-1)
    after = np.take_along_axis(inclusive, last, axis=-1) - inclusive + q
    return np.moveaxis(np.where(c == 0, np.nan, np.where(h, after, 0.0)), -1, axis)


def _running_tangent(t, a, axis=0, minimum=False):
    """The derivative of ``np.maximum.accumulate(a, axis)`` along ``t`` (the
    transpose of `_running_adjoint`)."""
    h, c, first, _ = _running_ties(a, axis, minimum)
    kept = np.where(h, np.moveaxis(np.broadcast_to(t, np.shape(a)), axis, -1), 0.0)
    inclusive = np.cumsum(kept, axis=-1)
    inclusive = inclusive - np.take_along_axis(inclusive - kept, first, axis=-1)
    return np.moveaxis(np.where(c == 0, np.nan, inclusive / np.maximum(c, 1)), -1, axis)


def _running_ties(a, axis, minimum):
    """Along the last axis (``axis`` moved there): which entries are the
    running extremum where they stand (``h``), how many of them tie for it
    up to each entry (``c``; 0 where it is NaN), and the first and last
    index of each run of one running value."""
    a = np.moveaxis(np.asarray(a), axis, -1)
    out = (np.minimum if minimum else np.maximum).accumulate(a, axis=-1)
    h = a == out
    starts = np.ones(a.shape, dtype=bool)
    starts[..., 1:] = out[..., 1:] != out[..., :-1]  # (a NaN is a run of its own)
    ends = np.ones(a.shape, dtype=bool)
    ends[..., :-1] = starts[..., 1:]
    at = np.arange(a.shape[-1])
    first = np.maximum.accumulate(np.where(starts, at, 0), axis=-1)
    last = (at.size - 1 - np.maximum.accumulate(np.where(ends[..., ::-1], at, 0),
                                                axis=-1))[..., ::-1]
    counted = np.cumsum(h, axis=-1)
    c = counted - np.take_along_axis(counted - h, first, axis=-1)
    return h, c, first, last
