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
from .compile_time import Tup
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
    operands = [lw.atom(given["a"], node)]
    weights = given.get("b")
    if weights is not None and not (isinstance(weights, Const) and weights.value is None):
        operands.append(lw.atom(weights, node))
    if not params.pop("return_sign", False):
        return lw.b.op(prim.name, *operands, **params)
    # (log|s|, sign(s)): two results, as generated code unpacks them
    both = lw.b.op("logsumexp_signed", *operands, return_sign=True, **params)
    return Tup(tuple(lw.b.op("output", both, index=k, hint=h)
                     for k, h in ((0, "log_abs"), (1, "sign"))))


_BINDERS = {"logsumexp": _logsumexp}
