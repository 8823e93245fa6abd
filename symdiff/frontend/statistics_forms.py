"""NumPy's integration and covariance, written as the primitives NumPy's own
code uses: ``np.trapezoid`` (the sum of the trapezoids along an axis) and
``np.cov`` (rows as variables: centred, a product, divided by N - ddof; a
1-by-1 result is a number, as NumPy's ``squeeze`` makes it)."""
from __future__ import annotations

import numpy as np

from ..errors import UnsupportedSyntaxError
from ..ir.nodes import Const, If
from .arguments import static_value
from .branches import merge
from .numpy_forms import _MISSING, _bind
from .distance_forms import distance_form
from .polynomial_forms import FORMS as POLYNOMIAL_FORMS
from .sample_forms import FORMS as SAMPLE_FORMS


def _trapezoid(lw, args, kwargs, node):
    params = [("y", _MISSING), ("x", Const(None)), ("dx", Const(1.0)), ("axis", Const(-1))]
    bound = _bind(lw, "trapezoid", params, args, kwargs, node)
    axis = static_value(lw, bound["axis"], "axis", "trapezoid", node)
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise lw.error(UnsupportedSyntaxError, node, "`np.trapezoid` needs a constant axis",
                       "write the axis as a number: np.trapezoid(y, x, axis=0)")
    b = lw.b
    y = lw.atom(bound["y"], node)
    given = bound["x"]
    if axis != -1:
        y = b.op("moveaxis", y, source=axis, destination=-1, hint=y.hint)
    if isinstance(given, Const) and given.value is None:
        step = lw.atom(bound["dx"], node)
    else:
        x = lw.atom(given, node)
        rank = b.facts.rank(x)
        if axis != -1 and rank is None:  # (a vector's samples lie along the axis, an
            is_vector = b.op("equal", b.op("ndim", x), Const(1))  # array's moved too)
            with b.block() as then:
                pass
            with b.block() as orelse:
                moved = b.op("moveaxis", x, source=axis, destination=-1, hint=x.hint)
            stmt = If(is_vector, then, orelse, [], lw.src.loc(node))
            x = merge(lw, stmt, x, moved, x.hint or "x", node)
            b.append(stmt)
        elif axis != -1 and rank != 1:
            x = b.op("moveaxis", x, source=axis, destination=-1, hint=x.hint)
        step = b.op("diff", x, axis=-1, hint="dx")
    pairs = b.add(b.op("getitem", y, Const(Ellipsis), Const(slice(1, None))),
                  b.op("getitem", y, Const(Ellipsis), Const(slice(None, -1))))
    return b.op("sum", b.div(b.mul(step, pairs), Const(2.0)), axis=-1, hint="area")


def _cov(lw, args, kwargs, node):
    params = [("m", _MISSING), ("y", Const(None)), ("rowvar", Const(True)),
              ("bias", Const(False)), ("ddof", Const(None)), ("fweights", Const(None)),
              ("aweights", Const(None)), ("dtype", Const(None))]
    bound = _bind(lw, "cov", params, args, kwargs, node)
    values = {k: static_value(lw, bound[k], k, "cov", node) for k in
              ("rowvar", "bias", "ddof")}
    extra = [k for k in ("y", "fweights", "aweights", "dtype")
             if not (isinstance(bound[k], Const) and bound[k].value is None)]
    if extra or not values["rowvar"]:
        what = f"`{extra[0]}`" if extra else "`rowvar=False`"
        raise lw.error(UnsupportedSyntaxError, node,
                       f"`np.cov` with {what} is not differentiated",
                       "pass the variables as rows of one array: np.cov(np.vstack([a, b])), "
                       "np.cov(m.T) for columns")
    ddof = values["ddof"] if values["ddof"] is not None else (0 if values["bias"] else 1)
    b = lw.b
    X = b.op("atleast_2d", lw.atom(bound["m"], node), hint="X")
    centred = b.sub(X, b.op("mean", X, axis=1, keepdims=True), hint="centred")
    count = b.sub(b.op("getitem", b.op("shape", X), Const(1)), Const(ddof))
    product = b.op("matmul", centred, b.op("T", centred))
    # (times 1 / (N - ddof), as NumPy scales it)
    return b.op("squeeze", b.mul(product, b.div(Const(1.0), count)), hint="cov")


_FORMS = {np.cov: _cov, **POLYNOMIAL_FORMS, **SAMPLE_FORMS}
if hasattr(np, "trapezoid"):  # (NumPy 2's name; np.trapz before)
    _FORMS[np.trapezoid] = _trapezoid
if hasattr(np, "trapz"):
    _FORMS[np.trapz] = _trapezoid


def statistics_form(obj):
    """How to lower a call of ``obj``, if it is np.trapezoid or np.cov (or
    the forms of polynomial_forms.py, sample_forms.py and distance_forms.py)."""
    return _FORMS.get(obj) or distance_form(obj) if obj is not None else None
