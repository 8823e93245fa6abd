"""Small helpers that generated gradients call.

Each is plain NumPy. The CLI copies the source of the ones a gradient uses
into the module it writes, so written modules never import symdiff. Each is
also a primitive (see prims.py), so generated code can be differentiated again.
"""
import numpy as np


def _sum_to(a, like):
    """Sum the broadcast gradient ``a`` back to the shape of ``like``."""
    shape = np.shape(like)
    if np.shape(a) == shape:
        return a
    a = np.asarray(a)
    if a.ndim < len(shape):
        return np.broadcast_to(a, shape)
    lead = a.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and a.shape[lead + i] != 1)
    return np.sum(a, axis=axes).reshape(shape)


def _unreduce(g, like, axis=None, keepdims=False):
    """Spread the gradient of a reduction over ``axis`` back over ``like``."""
    if axis is not None and not keepdims:
        g = np.expand_dims(g, axis)
    return np.broadcast_to(g, np.shape(like))


def _unindex(g, like, index):
    """The gradient of ``like[index]`` (basic indexing): ``g`` placed in zeros."""
    out = np.zeros(np.shape(like), dtype=np.result_type(g, like, 0.0))
    out[index] = g
    return out


def _unindex_add(g, like, index):
    """As `_unindex`, adding up repeated positions (advanced indexing)."""
    out = np.zeros(np.shape(like), dtype=np.result_type(g, like, 0.0))
    np.add.at(out, index, g)
    return out


def _matmul_adjoint_a(g, b):
    """The gradient of ``a @ b`` with respect to ``a``, for any ranks."""
    if np.ndim(b) == 1:
        return np.multiply.outer(g, b) if np.ndim(g) else g * b
    return np.matmul(g, np.swapaxes(b, -1, -2)) if np.ndim(g) \
        else g * np.swapaxes(b, -1, -2)


def _matmul_adjoint_b(a, g):
    """The gradient of ``a @ b`` with respect to ``b``, for any ranks."""
    if np.ndim(a) == 1:
        return np.multiply.outer(a, g) if np.ndim(g) else a * g
    if np.ndim(g) == np.ndim(a) - 1:
        return np.matmul(np.swapaxes(a, -1, -2), g)
    return np.matmul(np.swapaxes(a, -1, -2), g)


def _prod_adjoint(g, a, axis=None, keepdims=False):
    """The gradient of ``np.prod(a, axis)``: exact even where ``a`` has zeros."""
    a = np.asarray(a)
    work = a.reshape(-1) if axis is None else np.moveaxis(a, axis, -1)
    ones = np.ones_like(work[..., :1])
    left = np.cumprod(np.concatenate([ones, work[..., :-1]], axis=-1), axis=-1)
    right = np.cumprod(np.concatenate([ones, work[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    others = left * right
    if axis is None:
        return (np.asarray(g) * others).reshape(a.shape)
    g = np.asarray(g) if keepdims is False else np.squeeze(g, axis)
    return np.moveaxis(np.expand_dims(g, -1) * others, -1, axis)


def _require_scalar(value, message=""):
    """``value`` if it is a scalar; an error naming the function otherwise."""
    if np.ndim(value) != 0:
        _fail("NonScalarOutputError", f"{message}: grad needs a scalar output, this one has "
              f"shape {np.shape(value)}", "use symdiff.jacobian for vector outputs, "
              "or reduce the value (np.sum, np.mean)")
    return value


def _require_float(value, message=""):
    """``value`` if it is floating point; an error naming the argument otherwise."""
    dtype = np.result_type(value)
    if dtype.kind not in "fc":
        _fail("NonFloatArgumentError", f"{message} has dtype {dtype}; only floating-point "
              "arguments can be differentiated", "pass a float, e.g. x.astype(float)")
    return value


def _scalar_predicate(value, message=""):
    """``value`` if it is a scalar truth value; an error at the `if` otherwise."""
    if np.ndim(value) != 0:
        _fail("ArrayPredicateError", f"{message}: the condition of this `if` is an array "
              f"of shape {np.shape(value)}", "use np.where(condition, a, b) for "
              "elementwise choices")
    return value


def _fail(kind, message, hint):
    try:  # inside symdiff: raise its own error class
        from symdiff import errors
    except ImportError:  # in a written module, symdiff may be absent
        raise ValueError(f"{message}\nhint: {hint}") from None
    where, _, text = message.partition(": ")
    filename, lineno, col = (where.rsplit(":", 2) + ["", "", ""])[:3]
    error = getattr(errors, kind)(text if lineno.isdigit() else message, hint=hint)
    if lineno.isdigit():
        error.filename, error.lineno, error.col_offset = filename, int(lineno), int(col or 1) - 1
        error.args = (error.format(),)
    raise error


HELPERS = {name: obj for name, obj in globals().items()
           if name.startswith("_") and callable(obj) and not name.startswith("__")}
