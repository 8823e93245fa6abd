"""Polynomials as the powers they are: ``np.vander(x, N, increasing)`` is
``x[:, None] ** k`` with ``k = np.arange(N)`` (reversed unless
``increasing``), and ``np.polyval(p, x)`` is ``sum(p * x[..., None] ** k,
axis=-1)`` with ``k = np.arange(len(p) - 1, -1, -1)``. Their derivatives are
the power's: exact at x = 0, where the constant term's slope is 0
(rules/elementwise.py)."""
from __future__ import annotations

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


def _polyval(lw, args, kwargs, node):
    bound = _bind(lw, "polyval", [("p", _MISSING), ("x", _MISSING)], args, kwargs, node)
    b = lw.b
    p, x = lw.atom(bound["p"], node), lw.atom(bound["x"], node)
    if isinstance(p, Const) and not isinstance(p.value, tuple):
        raise lw.error(UnsupportedSyntaxError, node,
                       "`np.polyval` takes a sequence of coefficients",
                       "pass them highest power first: np.polyval([a, b, c], x)")
    if b.facts.rank(p) not in (None, 1):
        raise lw.error(UnsupportedSyntaxError, node, "`np.polyval` takes a vector of "
                       "coefficients", "pass a 1-D array, highest power first")
    count = Const(len(p.value)) if isinstance(p, Const) else \
        b.op("getitem", b.op("shape", p), Const(0))
    powers = b.op("power", b.op("expand_dims", x, axis=-1, hint=x.hint),
                  _exponents(b, count, False))
    return b.op("sum", b.mul(p, powers), axis=-1, hint="polyval")


FORMS = {np.vander: _vander, np.polyval: _polyval}
