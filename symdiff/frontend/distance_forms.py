"""SciPy's distances written as the NumPy they compute, so that gradients
reach the points: ``pdist(X)`` is the norms of ``X[i] - X[j]`` over the pairs
``i, j = np.triu_indices(n, 1)`` (SciPy's order), ``cdist(XA, XB)`` the norms
of ``XA[:, None, :] - XB[None, :, :]``. A distance is a norm: its gradient at
two equal points is 0, the kink policy's (docs/semantics.md#kinks). Other
metrics and options stay SciPy's call (an opaque call: refused only where a
gradient reaches it)."""
from __future__ import annotations

import sys

import numpy as np

from ..ir.nodes import Const
from ..rules import norms
from .opaque_calls import opaque_call

# metric -> the order of the vector norm it is (None: the sum of squares)
_METRICS = {"euclidean": 2, "sqeuclidean": None, "cityblock": 1, "chebyshev": np.inf}


def distance_form(obj):
    """How to lower a call of ``obj``, if it is scipy.spatial.distance's pdist
    or cdist (looked up only where the user's code imported it)."""
    module = sys.modules.get("scipy.spatial.distance")
    if module is None or obj is None:
        return None
    how = {getattr(module, "pdist", None): _pdist,
           getattr(module, "cdist", None): _cdist}.get(obj)
    if how is None:
        return None

    def lower(lw, args, kwargs, node):
        names = ("X",) if how is _pdist else ("XA", "XB")
        given = dict(zip(names + ("metric",), args), **kwargs)
        metric = given.get("metric", Const("euclidean"))
        if len(args) > len(names) + 1 or set(given) - set(names) - {"metric"} or \
                set(names) - set(given) or not isinstance(metric, Const) or \
                not isinstance(metric.value, str) or metric.value not in _METRICS:
            return opaque_call(lw, obj, args, kwargs, node)  # SciPy's own
        points = [lw.atom(given[k], node) for k in names]
        return _norms(lw.b, how(lw.b, *points), _METRICS[metric.value], how.__name__[1:])
    return lower


def _pdist(b, X):
    """The differences of the pairs of rows, in SciPy's order."""
    pairs = b.op("npcall", b.op("getitem", b.op("shape", X), Const(0)), func="triu_indices",
                 kwargs=(("k", 1),), hint="triu_indices")
    i, j = (b.op("getitem", pairs, Const(k), hint=name) for k, name in ((0, "i"), (1, "j")))
    return b.sub(b.op("getitem", X, i), b.op("getitem", X, j), hint="d")


def _cdist(b, XA, XB):
    """The differences of every row of XA and every row of XB."""
    every = Const(slice(None))
    return b.sub(b.op("getitem", XA, every, Const(None), every),
                 b.op("getitem", XB, Const(None), every, every), hint="d")


def _norms(b, difference, order, name):
    if order is None:  # sqeuclidean
        return b.op("sum", b.mul(difference, difference), axis=-1, keepdims=False, hint=name)
    if order == 2:
        return b.op("norm", difference, axis=-1, keepdims=False, hint=name)
    return norms.vector_norm(b, difference, order, -1, False)
