"""Random draws inside a differentiated function.

``np.random.normal(size=3)`` (NumPy's global generator), ``rng.normal(...)``
for a `numpy.random.Generator` or `RandomState` passed in, made inside
(``rng = np.random.default_rng(seed)``) or held by a global: each call is a
`draw` operation (rules/randomness.py), run once per call of the gradient,
where the function runs it. Its arguments may be values computed at run time
(``size=x.shape``).
"""
from __future__ import annotations

import ast

import numpy as np

from ..errors import InPlaceWriteError
from ..ir.nodes import FreeVar

# Methods of generators (Generator, RandomState) and functions of np.random.
DRAW_METHODS = frozenset(n for cls in (np.random.Generator, np.random.RandomState)
                         for n in dir(cls) if not n.startswith("_")) - {"bit_generator"}
_IN_PLACE = {"shuffle": "permutation", "permuted": "permuted"}


def is_generator(value):
    return isinstance(value, (np.random.Generator, np.random.RandomState))


def is_draw_method(name):
    return name in DRAW_METHODS


def global_generator(base):
    """Whether ``base`` (a compile-time value) is a global generator object."""
    return isinstance(base, FreeVar) and is_generator(base.value)


def lower_module_draw(lw, name, args, kwargs, node):
    """``np.random.NAME(*args, **kwargs)`` (``name`` without "random.")."""
    _check_in_place(lw, name, args, kwargs, node)
    return _draw(lw, "module", name, [], args, kwargs, node)


def lower_method_draw(lw, generator, name, node):
    """``generator.NAME(...)``: the call's arguments are lowered here."""
    args = [lw.expr(a) for a in node.args]
    kwargs = {k.arg: lw.expr(k.value) for k in node.keywords}
    _check_in_place(lw, name, args, kwargs, node)
    return _draw(lw, "object", name, [lw.atom(generator, node)], args, kwargs, node)


def _draw(lw, source, name, first, args, kwargs, node):
    operands = first + [lw.atom(a, node) for a in args] + \
        [lw.atom(v, node) for v in kwargs.values()]
    return lw.b.op("draw", *operands, source=source, method=name,
                   keywords=tuple(kwargs), hint=_hint(name))


def _check_in_place(lw, name, args, kwargs, node):
    if name == "shuffle" or (name == "permuted" and "out" in kwargs):
        spelled = ast.unparse(node.func)
        raise lw.error(
            InPlaceWriteError, node,
            f"`{spelled}(...)` shuffles an array in place; symdiff differentiates values, "
            "not changes made to them",
            "draw the order and index with it: `x = x[rng.permutation(len(x))]`")


def _hint(name):
    if name in ("default_rng", "RandomState", "Generator"):
        return "rng"
    if name.startswith("standard_") or name in ("normal", "randn"):
        return "noise"
    return "draw"
