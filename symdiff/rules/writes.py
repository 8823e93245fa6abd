"""Writes into arrays: ``out[index] = value`` as the functional ``setitem``.

``setitem(a, value, *index)`` is ``a`` with ``value`` written at ``index``
(frontend/writes.py lowers ``out[i] = v``, ``out[m] += v``, ``A[:, j] -= v``
to it). Its derivative kills the gradient of what it overwrote: ``a`` gets
``g`` with zeros at ``index`` and ``value`` gets ``g[index]`` (summed over
what it was broadcast along). Where an advanced index repeats a position,
NumPy keeps one of the values written there, and only that entry gets the
gradient there (``_assigned``). Written into an integer array, a value is
truncated, which has no derivative: unless the array is known to be floating
point, the derivative checks it (``_require_float``) where it is needed.

Generated code writes ``setitem`` in place, ``out[i] = v``, where nothing
reads the old array afterwards (optimize/writes_in_place.py); elsewhere as
``_setitem(a, v, index)``, a copy.
"""
from __future__ import annotations

import numpy as np

from ..ir.nodes import Const, IndexList, Var
from ..ir.primitive import ARRAY, NEW, TABLE, define, like
from .positions import unique_together


def _basic(r, part):
    """An index part that names each position once: a constant slice, integer,
    None or Ellipsis, a constant list without repeats, or an integer scalar."""
    if isinstance(part, Const):
        value = part.value
        if isinstance(value, IndexList):
            flat = list(_flat(value))
            return all(isinstance(v, bool) for v in flat) or len(set(flat)) == len(flat) \
                and all(isinstance(v, int) for v in flat) and len(value) == len(flat)
        return value is None or value is Ellipsis or isinstance(value, slice) \
            or isinstance(value, int) and not isinstance(value, bool)
    op = r.b.facts.defs.get(part)
    record = TABLE.get(op.prim) if op is not None else None
    if record is not None and record.boolean:
        return True  # a mask names each position once
    return r.b.facts.is_scalar(part) and (record is None or record.name != "slice")


def _flat(items):
    for item in items:
        if isinstance(item, (list, tuple)):
            yield from _flat(item)
        else:
            yield item


# Operations whose result has the dtype of their first operand.
_SAME_DTYPE = frozenset("""
    zeros_like ones_like full_like copy asarray getitem setitem T transpose reshape ravel
    squeeze expand_dims swapaxes moveaxis flip roll concatenate stack negative
    require_float stop_gradient pass_gradient sum cumsum max min
""".split())
_FLOAT_CALLS = frozenset("zeros ones empty eye identity linspace logspace geomspace".split())
_FLOAT_DRAWS = frozenset("""
    normal standard_normal uniform random rand randn random_sample beta gamma exponential
    standard_exponential standard_gamma lognormal laplace logistic gumbel chisquare
    standard_cauchy standard_t vonmises wald weibull pareto power rayleigh triangular f
""".split())


def floating(b, atom, path=frozenset()):
    """Whether ``atom`` is surely floating point (an argument checked to be, or
    made so: ``np.zeros(n)``, ``x.copy()`` of such an ``x``, ``x * 1.0``...)."""
    if isinstance(atom, Const):
        return isinstance(atom.value, float)
    if atom in path:  # a loop's carried value, met again through its update
        return True
    path = path | {atom}
    if atom in b.float_params or getattr(b.facts.dtype(atom), "kind", "") == "f":
        return True
    op = b.facts.defs.get(atom)
    if op is None:
        sources = b.origins.get(atom)
        return sources is not None and all(floating(b, s, path) for s in sources)
    if op.prim == "npcall":
        kwargs = dict(op.param("kwargs"))
        if "dtype" in kwargs:
            return _float_dtype(kwargs["dtype"])
        return op.param("func") in _FLOAT_CALLS
    if op.prim == "astype":
        return _float_dtype(op.param("dtype"))
    if op.prim == "draw":
        return op.param("method") in _FLOAT_DRAWS
    if op.prim in ("divide", "mean", "var", "std", "sqrt", "exp", "log", "tanh", "sin", "cos"):
        return True
    if op.prim in _SAME_DTYPE:
        return floating(b, op.args[0], path)
    record = TABLE.get(op.prim)
    if record is not None and record.spelling[0] in ("binop", "np") and \
            op.prim in ("add", "subtract", "multiply", "power", "matmul", "dot", "where"):
        return any(floating(b, a, path) for a in op.args)
    return False


def _float_dtype(dtype):
    try:
        return np.dtype(dtype).kind == "f"
    except TypeError:
        return False


def _checked(b, op):
    """The array ``op`` writes into, checked to be floating point where that is
    not known (a value written into an integer array is truncated)."""
    a = op.args[0]
    if op.param("floating", False) or floating(b, a):
        return a
    where = op.loc.short() if op.loc is not None else "?"
    return b.op("require_float", a, message=f"{where}: the array `{a.hint}` written into "
                                            "with differentiated values")


def setitem_rule(r, op, g):
    a, value, *index = op.args
    grads = [None] * len(op.args)
    if r.wants(value):
        _checked(r.b, op)
        arrays = [p for p in index if not _basic(r, p)]
        if not arrays or all(isinstance(p, Var) for p in arrays) and \
                unique_together(r.b.facts, arrays):  # (x[np.arange(n), labels] = v)
            part = r.b.op("getitem", g, *index, hint=value.hint + "_bar")
        else:
            part = r.b.op("assigned", g, a, *index, hint=value.hint + "_bar")
        grads[1] = r.unbroadcast(part, value)
    if r.wants(a):
        grads[0] = r.b.op("setitem", g, Const(0.0), *index, floating=True,
                          hint=a.hint + "_bar")
    return grads


def setitem_tangent(b, op, dargs):
    da, dv = dargs[0], dargs[1]
    if da is None and dv is None:
        return None
    a, value, *index = op.args
    if dv is not None:
        _checked(b, op)
    if da is None:
        da = b.op("zeros_like", a)
    return b.op("setitem", da, dv if dv is not None else Const(0.0), *index,
                floating=op.param("floating", False))


def assigned_rule(r, op, g):
    """The transpose of keeping the entries whose value stays: the assignment
    ``zeros[index] = g``, which keeps the same entries. The zeros are shaped
    like the gradient ``op`` picks from, of the array written into's shape:
    ``like`` may be only that shape (a loop's reverse saves no more)."""
    return [r.b.op("unindex", g, op.args[0], *op.args[2:])] + [None] * (len(op.args) - 1)


# ``floating``: the array written into is known to be floating point
define("setitem(a, value, *index; floating=False)", ("helper", "_setitem"), like(0),
       reverse=setitem_rule, forward=setitem_tangent, result=ARRAY)
define("assigned(g, like, *index)", ("helper", "_assigned"), NEW, reverse=assigned_rule,
       linear=(0,), result=ARRAY)

# Written by optimize/writes_in_place.py where nothing reads the old array:
# ``a[index] = value``, ``a[index] += value`` and ``np.add.at(a, index, value)``
# as statements; the result is ``a``'s array, changed. Generated code read back
# is setitem again (or an `add` of `_unindex`): these never reach the AD stage.
_READ_BACK = "the write it stands for (frontend/writes.py)"
define("assign(a, value, *index; floating=False)", ("write", "="), like(0), result=ARRAY,
       reverse=setitem_rule, forward=setitem_tangent, read_back_as=_READ_BACK)
define("add_into(a, value, *index)", ("write", "+="), like(0), result=ARRAY,
       read_back_as=_READ_BACK)
define("add_at(a, value, *index)", ("write", "np.add.at"), like(0), result=ARRAY,
       read_back_as=_READ_BACK)
# a copy of a view of an array written in place later, made where the view is
define("snapshot(a)", ("method", "copy"), like(0), passes=True, result=ARRAY,
       read_back_as="x.copy(): a copy")
