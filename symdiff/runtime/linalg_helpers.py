"""Runtime helpers of linear algebra's gradients, where the ranks of the
arguments decide the computation (known only when the code runs).

Helpers like those of helpers.py, which imports them (so they are helpers
too): plain NumPy, naming only other helpers, each a primitive with rules
of its own (symdiff/rules/contractions.py, solves.py, decompositions.py).
"""
import numpy as np

from .checks import _fail


# ---- contractions whose axes depend on the ranks -------------------------------------------
def _tensordot_labels(a_ndim, b_ndim, axes):
    """einsum labels of ``np.tensordot(a, b, axes)``: a's, b's and the result's."""
    if isinstance(axes, int):
        a_axes, b_axes = list(range(a_ndim - axes, a_ndim)), list(range(axes))
    else:
        a_axes, b_axes = ([x] if isinstance(x, int) else list(x) for x in axes)
    a_axes = [x % a_ndim for x in a_axes]
    b_axes = [x % b_ndim for x in b_axes]
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    a = list(letters[:a_ndim])
    b = list(letters[a_ndim:a_ndim + b_ndim])
    for i, j in zip(a_axes, b_axes):
        b[j] = a[i]
    out = [x for i, x in enumerate(a) if i not in a_axes] + \
        [x for j, x in enumerate(b) if j not in b_axes]
    return "".join(a), "".join(b), "".join(out)


def _tensordot_adjoint_a(g, a, b, axes=2):
    """The gradient of ``np.tensordot(a, b, axes)`` with respect to ``a``."""
    a_labels, b_labels, out = _tensordot_labels(np.ndim(a), np.ndim(b), axes)
    return np.einsum(f"{out},{b_labels}->{a_labels}", g, b, optimize=True)


def _tensordot_adjoint_b(g, a, b, axes=2):
    """The gradient of ``np.tensordot(a, b, axes)`` with respect to ``b``."""
    a_labels, b_labels, out = _tensordot_labels(np.ndim(a), np.ndim(b), axes)
    return np.einsum(f"{out},{a_labels}->{b_labels}", g, a, optimize=True)


def _inner_adjoint_a(g, a, b):
    """The gradient of ``np.inner(a, b)`` (last axes contracted) in ``a``."""
    if np.ndim(a) == 0:  # a product with a number
        return np.sum(np.multiply(g, b))
    if np.ndim(b) == 0:
        return np.multiply(g, b)
    return _tensordot_adjoint_a(g, a, b, axes=([-1], [-1]))


def _inner_adjoint_b(g, a, b):
    """The gradient of ``np.inner(a, b)`` in ``b``."""
    if np.ndim(b) == 0:
        return np.sum(np.multiply(g, a))
    if np.ndim(a) == 0:
        return np.multiply(g, a)
    return _tensordot_adjoint_b(g, a, b, axes=([-1], [-1]))


def _kron_adjoint_a(g, a, b):
    """The gradient of ``np.kron(a, b)`` in ``a``: each block of ``g``
    against ``b``."""
    return _kron_adjoint(g, a, b, "a")


def _kron_adjoint_b(g, a, b):
    """The gradient of ``np.kron(a, b)`` in ``b``."""
    return _kron_adjoint(g, a, b, "b")


def _kron_adjoint(g, a, b, side):
    # kron(a, b)[i0 * n0 + j0, ...] = a[i0, ...] * b[j0, ...], shapes padded
    # with leading ones to one rank: g seen with axes (i0, j0, i1, j1, ...)
    ndim = max(np.ndim(a), np.ndim(b))
    a_shape = (1,) * (ndim - np.ndim(a)) + np.shape(a)
    b_shape = (1,) * (ndim - np.ndim(b)) + np.shape(b)
    blocks = np.reshape(g, [n for pair in zip(a_shape, b_shape) for n in pair])
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    a_labels, b_labels = letters[:ndim], letters[ndim:2 * ndim]
    g_labels = "".join(x + y for x, y in zip(a_labels, b_labels))
    if side == "a":
        out = np.einsum(f"{g_labels},{b_labels}->{a_labels}", blocks,
                        np.reshape(b, b_shape), optimize=True)
        return np.reshape(out, np.shape(a))
    out = np.einsum(f"{g_labels},{a_labels}->{b_labels}", blocks,
                    np.reshape(a, a_shape), optimize=True)
    return np.reshape(out, np.shape(b))


def _untrace(g, like, offset=0, axis1=0, axis2=1):
    """The gradient of ``np.trace(like, offset, axis1, axis2)``: ``g`` on
    that diagonal, zeros elsewhere."""
    shape = np.shape(like)
    dtype = np.result_type(g, like, 0.0)  # (a Python number g takes like's precision)
    diagonal = np.eye(shape[axis1], shape[axis2], k=offset, dtype=dtype)
    spread = np.multiply(np.expand_dims(np.asarray(g, dtype=dtype), (-2, -1)), diagonal)
    return np.moveaxis(spread, (-2, -1), (axis1, axis2))


# ---- solves: a right-hand side with one axis is one vector -------------------------------------
def _as_columns(v, b):
    """``v`` (shaped like ``b``, or like a solution of ``solve(a, b)``) as a
    stack of matrices: NumPy's and SciPy's solves read a ``b`` with one axis
    as one vector (a column), and any other ``b`` as matrices."""
    return np.expand_dims(v, -1) if np.ndim(b) == 1 else v


def _from_columns(v, b):
    """The inverse of `_as_columns`: the vectors again where ``b`` is one."""
    return v[..., 0] if np.ndim(b) == 1 else v


# ---- the cofactor matrix: det's gradient, finite at singular matrices ------------------------
def _cofactor(a):
    """The cofactor matrix of each matrix of ``a``, ``det(a) * inv(a).T``:
    the gradient of ``np.linalg.det``. A polynomial in the entries, finite
    everywhere; where ``inv`` fails (a singular matrix) it is computed from
    the SVD instead, as ``sign * U diag(prod of the other s) V^T``."""
    try:
        inverse = np.linalg.inv(a)
    except np.linalg.LinAlgError:  # (a singular matrix in the stack)
        return _cofactor_from_svd(a)
    cofactor = np.expand_dims(np.linalg.det(a), (-2, -1)) * np.swapaxes(inverse, -1, -2)
    if not np.isfinite(cofactor).all() and np.isfinite(a).all():
        return _cofactor_from_svd(a)  # inv overflowed: singular in all but rounding
    return cofactor


def _cofactor_from_svd(a):
    u, s, vh = np.linalg.svd(a)
    others = _products_but(s)
    sign = np.linalg.det(u) * np.linalg.det(vh)
    return np.expand_dims(sign, (-2, -1)) * ((u * others[..., None, :]) @ vh)


def _products_but(s):
    """For each entry of the last axis, the product of the others (no division)."""
    ones = np.ones_like(s[..., :1])
    before = np.cumprod(np.concatenate([ones, s[..., :-1]], axis=-1), axis=-1)
    after = np.cumprod(np.concatenate([ones, s[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    return before * after


def _pair_products_but(s):
    """``out[..., i, j]``: the product of the entries of ``s`` other than the
    i-th and the j-th (0 where i == j), without division."""
    n = s.shape[-1]
    out = np.zeros(s.shape + (n,), dtype=np.result_type(s, 0.0))
    ones = np.ones_like(s[..., :1])
    before = np.cumprod(np.concatenate([ones, s[..., :-1]], axis=-1), axis=-1)
    after = np.cumprod(np.concatenate([ones, s[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    for i in range(n - 1):
        between = np.cumprod(np.concatenate([ones, s[..., i + 1:-1]], axis=-1), axis=-1)
        out[..., i, i + 1:] = before[..., i:i + 1] * between * after[..., i + 1:]
    return out + np.swapaxes(out, -1, -2)


def _cofactor_derivative(a, e):
    """The derivative of `_cofactor` at ``a`` along ``e`` (det's second
    derivative), from the SVD ``a = U diag(s) V^T``: with ``E = U^T e V`` and
    ``p[i, j]`` the product of the singular values other than the i-th and
    j-th, it is ``sign * U D V^T``, ``D[i, j] = -p[i, j] E[j, i]`` off the
    diagonal and ``D[i, i] = sum_k p[i, k] E[k, k]``: finite at singular
    matrices too. Its own adjoint in ``e``."""
    u, s, vh = np.linalg.svd(a)
    pairs = _pair_products_but(s)
    rotated = np.swapaxes(u, -1, -2) @ e @ np.swapaxes(vh, -1, -2)
    inner = -pairs * np.swapaxes(rotated, -1, -2)
    diagonal = (pairs @ np.diagonal(rotated, axis1=-2, axis2=-1)[..., None])[..., 0]
    n = s.shape[-1]
    inner[..., np.arange(n), np.arange(n)] = diagonal
    sign = np.linalg.det(u) * np.linalg.det(vh)
    return np.expand_dims(sign, (-2, -1)) * (u @ inner @ vh)


# ---- decompositions: the parts beyond the square ----------------------------------------------
def _tall_only(x, u, s):
    """``x / s`` (per column) where ``u`` has more rows than columns, zeros
    where it is square: the part of an SVD's gradient that lives outside the
    range of ``u``, which a square ``u`` spans (and where ``s`` may be 0)."""
    if u.shape[-2] > u.shape[-1]:
        return x / s[..., None, :]
    return np.zeros(np.broadcast_shapes(np.shape(x), np.shape(u)), np.result_type(x, s))


def _reduced(g, s, axis=-1, message=""):
    """The gradient of the reduced factor from that of the full one
    (``full_matrices=True``): its first ``len(s)`` columns (rows for
    ``axis=-2``). The other columns are any orthonormal completion, no
    function of the matrix: a gradient reaching them is an error."""
    k = s.shape[-1]
    if g.shape[axis] == k:
        return g
    head = g[..., :k] if axis == -1 else g[..., :k, :]
    rest = g[..., k:] if axis == -1 else g[..., k:, :]
    if np.any(rest != 0):
        _fail("NoDerivativeRuleError",
              f"{message}: the gradient reaches the columns of the SVD's factors that "
              "full_matrices=True adds; they complete an orthonormal basis in no "
              "particular way, so have no derivative",
              "pass full_matrices=False, or use only the first min(m, n) columns")
    return head


def _undefined_beyond(x, full, axis=-1):
    """A reduced factor's tangent ``x`` as the full factor's (the shape of
    ``full``): NaN in the columns (rows for ``axis=-2``) beyond, which have
    no derivative."""
    if x.shape[axis] == full.shape[axis]:
        return x
    out = np.full(np.broadcast_shapes(x.shape[:-2], full.shape[:-2]) + full.shape[-2:],
                  np.nan, np.result_type(x, full))
    if axis == -1:
        out[..., :x.shape[-1]] = x
    else:
        out[..., :x.shape[-2], :] = x
    return out


# ---- multi_dot ---------------------------------------------------------------------------------
def _multi_dot_adjoint(g, *arrays, index=0):
    """The gradient of ``np.linalg.multi_dot(arrays)`` with respect to
    ``arrays[index]``: ``L^T g R^T`` for the products L before it and R after
    it, itself one multi_dot (NumPy picks the cheapest order). A first
    (last) operand with one axis is a row (column), as multi_dot reads it."""
    matrices = [np.asarray(x) for x in arrays]
    if matrices[0].ndim == 1:
        matrices[0] = matrices[0][None, :]
    if matrices[-1].ndim == 1:
        matrices[-1] = matrices[-1][:, None]
    g = np.reshape(g, (matrices[0].shape[0], matrices[-1].shape[1]))
    factors = [m.T for m in matrices[:index][::-1]] + [g] + \
        [m.T for m in matrices[index + 1:][::-1]]
    if len(factors) == 1:
        product = factors[0]
    elif len(factors) == 2:
        product = factors[0] @ factors[1]
    else:
        product = np.linalg.multi_dot(factors)
    return np.reshape(product, np.shape(arrays[index]))
