"""Small helpers that generated gradients call.

Each is plain NumPy. The CLI copies the source of the ones a gradient uses
into the module it writes, so written modules never import symdiff. Each is
also a primitive (see symdiff/rules/), so generated code can be differentiated again.
"""
import numpy as np

from .checks import (  # noqa: F401 (helpers too: see HELPERS)
    _broadcast_shape, _fail, _require_float, _require_scalar, _scalar_predicate)
from .layout_adjoints import (  # noqa: F401 (helpers too)
    _convolution_start, _cropped_convolution, _full_convolution,
    _inserted, _undiag, _undiagonal, _uninsert, _unpad, _unrepeat, _unsplit,
    _untake_along_axis, _untile,
    _weights_along, _zeros_for)
from .order_adjoints import (  # noqa: F401 (helpers too)
    _axes, _forward_recurrence, _quantile_adjoint, _quantile_methods, _quantile_tangent,
    _quantile_weights, _recurrence, _running_adjoint, _running_tangent, _running_ties,
    _tie_mean)
from .write_helpers import _assigned, _c_column, _padded, _setitem  # noqa: F401 (helpers too)
from .linalg_helpers import (  # noqa: F401 (helpers too: see HELPERS)
    _as_columns, _cofactor, _cofactor_derivative, _cofactor_from_svd, _from_columns,
    _inner_adjoint_a, _inner_adjoint_b, _kron_adjoint, _kron_adjoint_a, _kron_adjoint_b,
    _multi_dot_adjoint, _pair_products_but, _products_but, _reduced, _tall_only,
    _tensordot_adjoint_a, _tensordot_adjoint_b, _tensordot_labels, _undefined_beyond, _untrace)


def _as_gradient(g, like):
    """``g`` as an array; a Python number takes the precision of ``like``, so a
    float32 input keeps float32 gradients (``np.asarray(1.0)`` is float64)."""
    if type(g) in (float, int) and hasattr(like, "dtype"):
        return np.asarray(g, dtype=np.result_type(g, like))
    return np.asarray(g)


def _sum_to(a, like):
    """Sum the broadcast gradient ``a`` back to the shape of ``like``
    (an array, or its shape when a loop saved only that)."""
    # (attributes and methods, not np.shape and np.sum: at small sizes their
    # Python-level dispatch costs more than the arithmetic)
    shape = like if type(like) is tuple else getattr(like, "shape", None)
    if shape is None:  # a Python number, or a list
        shape = () if type(like) in (float, int, bool) else np.shape(like)
    if getattr(a, "shape", None) == shape:  # the common case: nothing to do
        return a
    if shape == () and not hasattr(like, "dtype"):
        # A scalar of unknown precision: a Python number stays one (so it
        # takes the precision of what it meets), an array becomes a scalar.
        if type(a) in (float, int):
            return a
        if type(a) is np.ndarray:
            return a.sum()
        return np.add.reduce(a, axis=None)
    if type(a) is not np.ndarray:
        a = _as_gradient(a, like)
        if a.shape == shape:
            return a
    if shape == ():
        return a.sum()
    lead = a.ndim - len(shape)
    if lead < 0:
        return np.broadcast_to(a, shape)
    if 1 not in shape:  # only leading axes: the sum has the shape already
        summed = a.sum(axis=tuple(range(lead)) if lead != 1 else 0)
    else:
        ones = tuple(lead + i for i, n in enumerate(shape)
                     if n == 1 and a.shape[lead + i] != 1)
        summed = a.sum(axis=tuple(range(lead)) + ones).reshape(shape) if ones \
            else a.sum(axis=tuple(range(lead)))
    if summed.shape != shape:
        # an einsum label of length one in the other operands: the
        # gradient is the same along it
        summed = np.broadcast_to(summed, shape)
    return summed


def _unreduce(g, like, axis=None, keepdims=False):
    """Spread the gradient of a reduction over ``axis`` back over ``like``."""
    g = _as_gradient(g, like)
    if axis is not None and not keepdims:
        g = np.expand_dims(g, axis)
    return np.broadcast_to(g, np.shape(like))


def _unindex(g, like, index):
    """The gradient of ``like[index]`` (basic indexing): ``g`` in zeros."""
    dtype = _gradient_dtype(g, like)
    out = None
    if dtype == getattr(like, "dtype", None):
        out = _zero_outside(like, index)
    if out is None:
        shape = getattr(like, "shape", None) or np.shape(like)
        out = np.zeros(shape, dtype=dtype)
    out[index] = g
    return out


def _gradient_dtype(g, like):
    """``np.result_type(g, like, 0.0)``, cheaply when ``g`` is of ``like``'s
    floating dtype (or a Python number, which takes it)."""
    dtype = getattr(like, "dtype", None)
    if dtype is not None and dtype.kind == "f" and type(g) is not complex \
            and getattr(g, "dtype", dtype) == dtype:
        return dtype
    return np.result_type(g, like, 0.0)


def _unindex_sum(a, b, like, index):
    """``_unindex(a + b, like, index)`` (basic indexing, slices), the sum
    written straight into its place: no array for it, and no copy."""
    dtype = getattr(like, "dtype", None)
    own = dtype is not None and dtype.kind == "f" and \
        getattr(a, "dtype", None) == dtype == getattr(b, "dtype", None)
    if not own:
        return _unindex(a + b, like, index)
    out = _zero_outside(like, index)
    if out is None:
        out = np.zeros(like.shape, dtype)
    np.add(a, b, out=out[index])
    return out


def _zero_outside(like, index):
    """For a big array ``like`` and slices ``index``, an array like it that
    is zero outside ``like[index]``, cleared only there (np.zeros clears all
    of reused memory, just before most of it is overwritten); else None."""
    if getattr(like, "size", 0) < 1 << 16:
        return None
    parts = index if isinstance(index, tuple) else (index,)
    if any(type(p) is not slice or p.step not in (None, 1) for p in parts):
        return None
    out = np.empty(like.shape, like.dtype)
    for axis, part in enumerate(parts):
        start, stop, _ = part.indices(like.shape[axis])
        before = (slice(None),) * axis
        out[before + (slice(None, start),)] = 0
        out[before + (slice(stop, None),)] = 0
    return out


def _unindex_add(g, like, index):
    """As `_unindex`, adding up repeated positions (advanced indexing)."""
    out = np.zeros(np.shape(like), dtype=_gradient_dtype(g, like))
    np.add.at(out, index, g)
    return out


def _matmul_adjoint_a(g, a, b):
    """The gradient of ``a @ b`` with respect to ``a``, for any ranks."""
    try:
        ranks = (g.ndim, a.ndim, b.ndim)
    except AttributeError:  # a Python number
        ranks = None
    if ranks == (2, 2, 2):  # the ranks people use most, directly
        return g @ b.T
    if ranks == (1, 2, 1):
        return g[:, None] * b  # np.outer, without its ravel and reshape calls
    if ranks == (1, 1, 2):
        return b @ g
    if _dot_of_vectors(g, a, b):
        return g * b
    a, b, g = np.asarray(a), np.asarray(b), _as_gradient(g, a)
    if b.ndim == 1:  # as NumPy does: b is a column, a is a row
        g, b = g[..., None], b[:, None]
    if a.ndim == 1:
        g = g[..., None, :]
    full = np.matmul(g, np.moveaxis(b, -1, -2))
    return _sum_to(full, a if a.ndim > 1 else a[None, :]).reshape(a.shape)


def _matmul_adjoint_b(g, a, b):
    """The gradient of ``a @ b`` with respect to ``b``, for any ranks."""
    try:
        ranks = (g.ndim, a.ndim, b.ndim)
    except AttributeError:  # a Python number
        ranks = None
    if ranks == (2, 2, 2):  # the ranks people use most, directly
        return a.T @ g
    if ranks == (1, 2, 1):
        return g @ a  # a.T @ g, ~10% quicker (no transposed view for BLAS)
    if ranks == (1, 1, 2):
        return a[:, None] * g  # np.outer, without its ravel and reshape calls
    if _dot_of_vectors(g, a, b):
        return g * a
    a, b, g = np.asarray(a), np.asarray(b), _as_gradient(g, b)
    if b.ndim == 1:
        g = g[..., None]
    if a.ndim == 1:
        g, a = g[..., None, :], a[None, :]
    full = np.matmul(np.moveaxis(a, -1, -2), g)
    return _sum_to(full, b if b.ndim > 1 else b[:, None]).reshape(b.shape)


def _dot_of_vectors(g, a, b):
    """Whether ``a @ b`` was a dot product of two vectors (``g`` a scalar)."""
    return getattr(a, "ndim", -1) == 1 == getattr(b, "ndim", -1) and \
        (type(g) is float or getattr(g, "ndim", -1) == 0)


def _matmul_adjoint_a_sum(parts, a, rows=128):
    """``sum(_matmul_adjoint_a(g, a, b) for g, b in parts)``: what a loop's
    gradient gathers for an ``a`` it reads in ``a @ b``. The factors are
    stacked, so one matrix product replaces an outer product per iteration;
    ``rows`` iterations at a time (stacked copies of a long loop's vectors
    would double its memory, and 128 rows already make a product fast)."""
    return _gathered(parts, a, "a", rows)


def _matmul_adjoint_b_sum(parts, b, rows=128):
    """``sum(_matmul_adjoint_b(g, a, b) for g, a in parts)``, as above."""
    return _gathered(parts, b, "b", rows)


def _gathered(parts, fixed, side, rows):
    """The sum of the adjoints for operand ``side`` (``fixed``) of ``a @ b``
    over ``parts``, each the gradient and the other operand."""
    if len(parts) <= rows:  # the common case: one product
        total = _stacked_sum(parts, fixed, side)
        if total is not None:  # in the dtype adding into zeros gives
            return total if total.dtype == fixed.dtype else total.astype(fixed.dtype)
    total = np.zeros_like(fixed)
    for start in range(0, len(parts), rows):
        chunk = parts[start:start + rows]
        stacked = _stacked_sum(chunk, fixed, side)
        if stacked is not None:
            total += stacked
            continue
        for g, other in chunk:
            total += _matmul_adjoint_a(g, fixed, other) if side == "a" else \
                _matmul_adjoint_b(g, other, fixed)
    return total


def _stacked_sum(parts, fixed, side):
    """The sum of the parts' adjoints for ``fixed`` (operand ``side`` of
    ``a @ b``; each part is the gradient and the other operand) as one matrix
    product of the stacked parts, for the ranks of common loops: outer
    products (a matrix times vectors) or scalars times vectors (dot products
    of vectors). None otherwise: then they are added one by one."""
    if not parts:
        return None
    gs, others = zip(*parts)
    try:  # vectors of different lengths cannot be stacked
        gs, others = np.stack(gs), np.stack(others)
    except (ValueError, RuntimeError):  # (RuntimeError: PyTorch's)
        return None
    if fixed.ndim == 2 and gs.ndim == others.ndim == 2:
        return gs.T @ others if side == "a" else others.T @ gs
    if fixed.ndim == 1 and gs.ndim == 1 and others.ndim == 2:
        return gs @ others
    return None


def _dot_adjoint_a(g, a, b):
    """The gradient of ``np.dot(a, b)`` with respect to ``a``, any ranks."""
    g = _as_gradient(g, a)
    if np.ndim(a) == 0 or np.ndim(b) == 0:  # a product
        return _sum_to(np.multiply(g, b), a)
    # summed: b's contracted axis
    rest, summed = np.ndim(b) - 1, max(np.ndim(b) - 2, 0)
    g_axes = list(range(np.ndim(g) - rest, np.ndim(g)))
    b_axes = [i for i in range(np.ndim(b)) if i != summed]
    return np.tensordot(g, b, axes=(g_axes, b_axes))


def _dot_adjoint_b(g, a, b):
    """The gradient of ``np.dot(a, b)`` with respect to ``b``, any ranks."""
    g = _as_gradient(g, b)
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return _sum_to(np.multiply(g, a), b)
    lead = list(range(np.ndim(a) - 1))
    out = np.tensordot(a, g, axes=(lead, lead))  # b's contracted axis first
    return np.moveaxis(out, 0, -2) if np.ndim(b) > 1 else out


def _prod_others(a, *directions, axis=None):
    """Each entry of ``a``: the product of the other entries ``np.prod(a,
    axis)`` multiplies it with, exact where entries are zero (prefix times
    suffix products, no division): the gradient of that product.

    With directions ``w1 .. wm`` (arrays like ``a``), the derivative of that
    along all of them: for each entry, the sum over distinct other entries
    ``i1 .. im`` of ``w1[i1] ... wm[im]`` times the product of the rest, which
    makes the product's derivatives of every order exact at zeros too.
    """
    a = np.asarray(a)
    axes = tuple(range(a.ndim)) if axis is None else \
        tuple(sorted(int(i) % a.ndim for i in np.atleast_1d(axis)))
    kept = tuple(i for i in range(a.ndim) if i not in axes)
    kept_shape = tuple(a.shape[i] for i in kept)
    n = int(np.prod([a.shape[i] for i in axes]))

    def grouped(x):  # the entries multiplied together along the last axis
        x = np.broadcast_to(np.asarray(x), a.shape)
        return np.transpose(x, kept + axes).reshape(kept_shape + (n,))

    work = grouped(a)
    if not directions:
        ones = np.ones_like(work[..., :1])
        left = np.cumprod(np.concatenate([ones, work[..., :-1]], axis=-1), axis=-1)
        right = np.cumprod(np.concatenate([ones, work[..., :0:-1]], axis=-1),
                           axis=-1)[..., ::-1]
        others = left * right
    else:
        others = _directional_others(work, [grouped(w) for w in directions])
    others = others.reshape(kept_shape + tuple(a.shape[i] for i in axes))
    return np.transpose(others, np.argsort(kept + axes))


def _directional_others(work, ws):
    """`_prod_others` along directions ``ws``, on groups along the last axis:
    the coefficient of ``t1 ... tm`` in the product of the other entries of
    ``work + t1 w1 + ... + tm wm`` (each ``t`` squares to 0). One pass from
    each end keeps the coefficient of each subset of the ``t``'s."""
    m, n = len(ws), work.shape[-1]
    subsets = 1 << m
    dtype = np.result_type(work, *ws)
    prefix = np.zeros((subsets,) + work.shape, dtype)
    suffix = np.zeros((subsets,) + work.shape, dtype)
    for table, order in ((prefix, range(n)), (suffix, range(n - 1, -1, -1))):
        state = np.zeros((subsets,) + work.shape[:-1], dtype)
        state[0] = 1
        for k in order:
            table[..., k] = state
            grown = state * work[..., k]
            for subset in range(1, subsets):
                for bit in range(m):
                    if subset >> bit & 1:
                        grown[subset] += state[subset ^ (1 << bit)] * ws[bit][..., k]
            state = grown
    full = subsets - 1
    return sum(prefix[subset] * suffix[full ^ subset] for subset in range(subsets))


def _step(a, b):
    """The share of the gradient of ``np.maximum(a, b)`` that ``a`` gets (the
    kink policy): 1 where a > b, 1/2 where they tie (equal infinities too), 0
    where a < b, NaN where either is NaN; in their precision. As ``0.5 + 0.5
    * np.sign(a - b)``, but from comparisons: ``a - b`` may overflow."""
    if type(a) is float and type(b) is float:  # the common scalar case
        return 1.0 if a > b else 0.0 if a < b else 0.5 if a == b else np.nan
    share = np.add(a > b, a >= b, dtype=np.result_type(a, b, 0.5))
    share *= 0.5
    unordered = np.isnan(a) | np.isnan(b)  # where no comparison holds
    if np.ndim(share) == 0:
        return np.where(unordered, np.nan, share)[()]
    if unordered.any():
        share[unordered] = np.nan
    return share


def _ties(hits, like, axis=None):
    """How many entries tie for a max or min: ``np.sum(hits, axis,
    keepdims=True)`` in the precision of ``like``, and NaN where none does
    (the extremum is NaN), so that its gradient there is NaN too."""
    # (ufunc calls, not np.sum and np.where: at small sizes the Python
    # wrappers cost more than the arithmetic)
    dtype = getattr(like, "dtype", None)
    if dtype is None or dtype.kind != "f":  # (a list or tuple: np.max([a, b], axis=0))
        dtype = np.result_type(np.asarray(like), 0.5)
    count = np.add.reduce(hits, axis=axis, keepdims=True, dtype=dtype)
    if np.count_nonzero(count) < count.size:  # a NaN extremum: no entry ties
        count = np.where(count == 0, np.nan, count)
    return count[()]


def _apply_rule(rule, g, *inputs):
    """Call a registered gradient rule: one gradient per input (None: 0)."""
    grads = rule(g, *inputs)
    if not isinstance(grads, tuple):
        grads = (grads,)
    if len(grads) != len(inputs):
        name = getattr(rule, "__name__", rule)
        raise ValueError(f"gradient rule {name} returned {len(grads)} "
                         f"gradients for {len(inputs)} inputs")
    return tuple(np.zeros_like(x, dtype=np.result_type(x, 0.0)) if d is None
                 else d for x, d in zip(inputs, grads))


HELPERS = {name: obj for name, obj in globals().items()
           if name.startswith("_") and callable(obj) and not name.startswith("__")}


def uses(name):
    """The helpers that helper ``name`` needs, itself included."""
    found, todo = set(), [name]
    while todo:
        current = todo.pop()
        if current not in found:
            found.add(current)
            names = HELPERS[current].__code__.co_names
            todo.extend(n for n in names if n in HELPERS)
    return found
