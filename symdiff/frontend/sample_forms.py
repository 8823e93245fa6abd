"""Samples of a range and windows of a sequence, written as the arithmetic
and indexing they are, so that gradients reach their operands:
``np.linspace(a, b, n)`` of numbers known only at run time and a constant
count is ``a + arange(n) * ((b - a) / (n - 1))`` with its last point ``b``,
as NumPy computes it (otherwise it stays NumPy's call, which a gradient may
not reach); ``sliding_window_view(x, w)`` of a vector (or along the last
axis) is ``x[..., arange(len - w + 1)[:, None] + arange(w)]``."""
from __future__ import annotations

import numpy as np

from ..errors import UnsupportedSyntaxError
from ..ir.nodes import Const
from .arguments import static_value
from .numpy_forms import _MISSING, _bind


def _linspace(lw, args, kwargs, node):
    params = [("start", _MISSING), ("stop", _MISSING), ("num", Const(50)),
              ("endpoint", Const(True)), ("retstep", Const(False)), ("dtype", Const(None)),
              ("axis", Const(0))]
    bound = _bind(lw, "linspace", params, args, kwargs, node)
    b = lw.b
    start, stop = lw.atom(bound["start"], node), lw.atom(bound["stop"], node)
    plain = {k: static_value(lw, bound[k], k, "linspace", node)
             for k in ("endpoint", "retstep", "dtype", "axis")}
    num = bound["num"].value if isinstance(bound["num"], Const) else None
    if isinstance(start, Const) and isinstance(stop, Const) or plain["retstep"] or \
            plain["dtype"] is not None or plain["axis"] != 0 or \
            not isinstance(num, int) or isinstance(num, bool) or num < 0 or \
            any(b.facts.rank(v) not in (None, 0) for v in (start, stop)):
        # NumPy's call: a gradient reaching it is refused there
        given = [lw.atom(a, node) for a in args]
        keywords = tuple((k, static_value(lw, v, k, "linspace", node))
                         for k, v in kwargs.items())
        return b.op("npcall", *given, func="linspace", kwargs=keywords, hint="linspace")
    if num < 2:
        made = b.op("npcall", Const(num), func="ones", kwargs=(), hint="ones")
        return b.mul(made, start, hint="linspace")
    div = num - 1 if plain["endpoint"] else num
    step = b.div(b.sub(stop, start), Const(float(div)), hint="step")
    k = b.op("npcall", Const(num), func="arange", kwargs=(), hint="k")
    points = b.add(b.mul(k, step), start, hint="points")
    if not plain["endpoint"]:
        return points
    last = b.op("equal", k, Const(num - 1), hint="last")
    return b.op("where", last, stop, points, hint="linspace")


def _windows(lw, args, kwargs, node):
    params = [("x", _MISSING), ("window_shape", _MISSING), ("axis", Const(None))]
    bound = _bind(lw, "sliding_window_view", params, args, kwargs, node)
    b = lw.b
    x = lw.atom(bound["x"], node)
    width = bound["window_shape"]
    if isinstance(width, Const) and isinstance(width.value, tuple) and len(width.value) == 1:
        width = Const(width.value[0])
    width = lw.atom(width, node)
    axis = static_value(lw, bound["axis"], "axis", "sliding_window_view", node)
    rank = b.facts.rank(x)
    if b.facts.rank(width) not in (None, 0) or (axis is None and rank not in (None, 1)) or \
            (axis is not None and axis != -1 and (rank is None or axis != rank - 1)):
        raise lw.error(UnsupportedSyntaxError, node,
                       "`sliding_window_view` is differentiated for windows of one width "
                       "along the last axis", "write sliding_window_view(x, w) of a vector, "
                       "or sliding_window_view(x, w, axis=-1)")
    length = b.op("getitem", b.op("shape", x), Const(-1))
    starts = b.op("npcall", b.add(b.sub(length, width), Const(1)), func="arange",
                  kwargs=(), hint="starts")
    offsets = b.op("npcall", width, func="arange", kwargs=(), hint="offsets")
    index = b.add(b.op("getitem", starts, Const(slice(None)), Const(None)), offsets,
                  hint="windows")
    return b.op("getitem", x, Const(Ellipsis), index, hint="windows")


FORMS = {np.linspace: _linspace, np.lib.stride_tricks.sliding_window_view: _windows}
