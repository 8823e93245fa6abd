"""Calls of other libraries' functions whose signatures mix what symdiff keeps
apart: operands (values, differentiated) and compile-time parameters.

``scipy.special.logsumexp(a, axis=None, b=None, keepdims=False)`` takes its
weights ``b`` after ``axis``: the call is bound as SciPy binds it, and ``b``
becomes the optional operand of the record.
"""
from __future__ import annotations

import ast
import inspect

from ..errors import UnsupportedSyntaxError
from ..ir.nodes import Const
from .arguments import static_value


def binds(prim):
    """Whether a call of ``prim`` is bound here (else as its record's signature)."""
    return prim.name in _BINDERS


def lower(lw, prim, obj, args, kwargs, node):
    return _BINDERS[prim.name](lw, prim, obj, args, kwargs, node)


def _bound(lw, obj, args, kwargs, node):
    """The call's arguments by parameter name, as ``obj`` itself binds them."""
    try:
        return inspect.signature(obj).bind(*args, **kwargs).arguments
    except TypeError as exc:
        raise lw.error(UnsupportedSyntaxError, node,
                       f"`{_name(node)}` cannot take these arguments: {exc}",
                       f"call it as `{_name(node)}{inspect.signature(obj)}`") from None


def _name(node):
    return ast.unparse(node.func)


def _logsumexp(lw, prim, obj, args, kwargs, node):
    given = _bound(lw, obj, args, kwargs, node)
    params = {}
    for key in ("axis", "keepdims", "return_sign"):
        if key in given:
            params[key] = static_value(lw, given[key], key, prim.name, node)
    if params.pop("return_sign", False):
        raise lw.error(UnsupportedSyntaxError, node,
                       "`logsumexp(..., return_sign=True)` is not supported",
                       "keep the weighted sum positive and leave out return_sign, or "
                       "compute its sign apart: np.sign(np.sum(b * np.exp(a)))")
    operands = [lw.atom(given["a"], node)]
    weights = given.get("b")
    if weights is not None and not (isinstance(weights, Const) and weights.value is None):
        operands.append(lw.atom(weights, node))
    return lw.b.op(prim.name, *operands, **params)


_BINDERS = {"logsumexp": _logsumexp}
