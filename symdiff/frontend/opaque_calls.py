"""A call of a function symdiff cannot read (a SciPy routine without a record,
a C extension, a callable object): computed as a value (rules/opaque.py).

Its arguments may be values, tuples of values, and functions or other
objects known when compiling (``odeint(rhs, y0, t, args=(k,))``), which
generated code reads as globals. An override of the function
(``overrides={odeint: "odeint_grad"}``) gives it a gradient.
"""
from __future__ import annotations

import ast

from ..controls import call_key
from ..errors import UnsupportedSyntaxError
from ..ir.nodes import Const, FreeVar
from .compile_time import Closure, Static, Tup


def opaque_call(lw, obj, args, kwargs, node):
    function = lw.b.free_var(FreeVar(_global_name(obj), obj))
    operands = [_operand(lw, a, node) for a in args]
    operands += [_operand(lw, v, node, hint=k) for k, v in kwargs.items()]
    saved = lw.b.overrides
    rule = saved.get(call_key(obj))
    if rule:  # the op made below gets it, as ops made in a gradient_override block do
        lw.b.overrides = {**saved, "opaque_call": rule}
    try:
        return lw.b.op("opaque_call", function, *operands, func=ast.unparse(node.func),
                       keywords=tuple(kwargs), hint=_hint(obj))
    finally:
        lw.b.overrides = saved


def _operand(lw, value, node, hint=None):
    """An argument: a value, a tuple of them (``args=(k,)``, named after its
    keyword), or an object known when compiling (a function passed along),
    which generated code reads as a global."""
    if isinstance(value, Tup) and hint is not None:
        items = [_operand(lw, item, node) for item in value.items]
        if not all(isinstance(item, Const) for item in items):
            return lw.b.op("tuple", *items, hint=hint)
    if isinstance(value, Static):
        return lw.b.free_var(FreeVar(_global_name(value.obj), value.obj))
    if isinstance(value, Closure):
        raise lw.error(UnsupportedSyntaxError, node,
                       f"`{ast.unparse(node.func)}` is passed a function defined inside "
                       "the differentiated function",
                       "define the function it is passed at module level")
    return lw.atom(value, node)


def _global_name(obj):
    name = getattr(obj, "__name__", None)
    return name if isinstance(name, str) and name.isidentifier() else "function"


def _hint(obj):
    name = _global_name(obj)
    return name if name != "function" else "value"
