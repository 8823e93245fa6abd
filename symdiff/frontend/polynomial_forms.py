"""Polynomials and linear interpolation. Polynomials as the powers they
are: ``np.vander(x, N, increasing)`` is
``x[:, None] ** k`` with ``k = np.arange(N)`` (reversed unless
``increasing``), its derivative the power's: exact at x = 0, where the
constant term's slope is 0 (rules/elementwise.py). ``np.polyval(p, x)`` is
NumPy's own loop, Horner's rule. ``np.interp`` is NumPy's formula on the segment
``np.searchsorted`` finds."""
from __future__ import annotations

import ast
import copy

import numpy as np

from ..errors import UnsupportedSyntaxError
from ..ir.nodes import Const
from .arguments import static_value
from .numpy_forms import _MISSING, _bind


def _exponents(b, count, increasing):
    """``np.arange(count)``, or ``np.arange(count - 1, -1, -1)``."""
    if increasing:
        return b.op("npcall", count, func="arange", kwargs=(), hint="k")
    return b.op("npcall", b.sub(count, Const(1)), Const(-1), Const(-1), func="arange",
                kwargs=(), hint="k")


def _vander(lw, args, kwargs, node):
    params = [("x", _MISSING), ("N", Const(None)), ("increasing", Const(False))]
    bound = _bind(lw, "vander", params, args, kwargs, node)
    b = lw.b
    x = lw.atom(bound["x"], node)
    if b.facts.rank(x) not in (None, 1):
        raise lw.error(UnsupportedSyntaxError, node, "`np.vander` takes a vector",
                       "pass a 1-D array: np.vander(x.ravel(), N)")
    count = bound["N"]
    if isinstance(count, Const) and count.value is None:
        count = b.op("getitem", b.op("shape", x), Const(0))
    increasing = static_value(lw, bound["increasing"], "increasing", "vander", node)
    columns = b.op("getitem", x, Const(slice(None)), Const(None), hint=x.hint)
    return b.op("power", columns, _exponents(b, lw.atom(count, node), increasing),
                hint="V")


_HORNER = ast.parse("for coefficient in coefficients:\n"
                    "    polyval = polyval * at + coefficient").body[0]


def _polyval(lw, args, kwargs, node):
    """NumPy's own loop (Horner's rule): ``y = zeros_like(x)``, then ``y = y *
    x + c`` for each coefficient, so values, dtypes and NaNs are NumPy's."""
    bound = _bind(lw, "polyval", [("p", _MISSING), ("x", _MISSING)], args, kwargs, node)
    b = lw.b
    p, x = lw.atom(bound["p"], node), lw.atom(bound["x"], node)
    if isinstance(p, Const) and not isinstance(p.value, tuple) or \
            b.facts.rank(p) not in (None, 1):
        raise lw.error(UnsupportedSyntaxError, node,
                       "`np.polyval` takes a vector of coefficients",
                       "pass them highest power first: np.polyval([a, b, c], x)")
    names = ("coefficients", "at", "polyval", "coefficient")
    saved = {n: lw.env[n] for n in names if n in lw.env}
    lw.env.update(coefficients=b.op("asarray", p, hint="coefficients"), at=x,
                  polyval=b.op("zeros_like", x, hint="polyval"))
    loop = copy.deepcopy(_HORNER)
    for made in ast.walk(loop):
        ast.copy_location(made, node)
    try:
        lw.stmt_For(loop)
        return lw.env["polyval"]
    finally:
        for n in names:
            lw.env.pop(n, None)
        lw.env.update(saved)


def _interp(lw, args, kwargs, node):
    """np.interp(x, xp, fp, left, right), in float64 as NumPy's: the segment of increasing ``xp``
    that holds x, found by ``np.searchsorted(xp, x, side="right")``, and
    NumPy's formula on it, ``slope * (x - xp[j]) + fp[j]``; ``left`` below
    xp[0], ``right`` above xp[-1], fp[-1] at it. At a knot the slope is the
    segment's to its right (as where's condition: x >= the knot)."""
    params = [("x", _MISSING), ("xp", _MISSING), ("fp", _MISSING), ("left", Const(None)),
              ("right", Const(None)), ("period", Const(None))]
    bound = _bind(lw, "interp", params, args, kwargs, node)
    if not (isinstance(bound["period"], Const) and bound["period"].value is None):
        raise lw.error(UnsupportedSyntaxError, node, "`np.interp` with `period` is not "
                       "differentiated", "wrap x into one period first: "
                       "`np.interp(np.mod(x - xp[0], p) + xp[0], xp, fp)`")
    b = lw.b
    x, xp, fp = (_float64(b, lw.atom(bound[k], node)) for k in ("x", "xp", "fp"))
    for key in ("left", "right"):
        if b.facts.rank(lw.atom(bound[key], node)) not in (None, 0):
            raise lw.error(UnsupportedSyntaxError, node, f"`{key}` of `np.interp` is a "
                           "number", "pass one value for every x out of range")
    last = b.sub(b.op("getitem", b.op("shape", xp), Const(0)), Const(2))
    found = b.op("npcall", xp, x, func="searchsorted", kwargs=(("side", "right"),), hint="j")
    j = b.op("npcall", b.sub(found, Const(1)), Const(0), last, func="clip", kwargs=(),
             hint="j")
    after = b.add(j, Const(1))
    x0, x1 = b.op("getitem", xp, j, hint="x0"), b.op("getitem", xp, after, hint="x1")
    y0, y1 = b.op("getitem", fp, j, hint="y0"), b.op("getitem", fp, after, hint="y1")
    slope = b.div(b.sub(y1, y0), b.sub(x1, x0), hint="slope")
    inside = b.add(b.mul(slope, b.sub(x, x0)), y0, hint="inside")
    first, end = b.op("getitem", fp, Const(0)), b.op("getitem", fp, Const(-1))
    edge = b.op("getitem", xp, Const(-1))
    result = b.op("where", b.op("greater_equal", x, edge), end, inside)
    right = bound["right"]
    if not (isinstance(right, Const) and right.value is None):
        result = b.op("where", b.op("greater", x, edge), lw.atom(right, node), result)
    left = bound["left"]
    left = first if isinstance(left, Const) and left.value is None else lw.atom(left, node)
    result = b.op("where", b.op("less", x, b.op("getitem", xp, Const(0))), left, result,
                  hint="interpolated")
    # (a number x: NumPy's number, not where's 0-d array)
    return b.op("getitem", result, Const(())) if b.facts.rank(x) == 0 else result


def _float64(b, atom):
    """``atom`` as np.interp reads it, in float64 (a cast unless known to be one)."""
    found = b.facts.dtype(atom)
    if found is float or isinstance(found, np.dtype) and found == np.float64:
        return atom
    return b.op("astype", atom, dtype="float64", copy=False, hint=atom.hint)


FORMS = {np.vander: _vander, np.polyval: _polyval, np.interp: _interp}
