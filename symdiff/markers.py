"""symdiff's own functions that may appear inside a differentiated function.

At run time each is cheap and plain (``stop_gradient(x)`` returns ``x``); the
compiler recognises them and gives them their special derivatives.
"""
from __future__ import annotations

import ast

from .errors import UnsupportedSyntaxError
from .values import Closure, Static


def stop_gradient(x):
    """The value ``x``; no gradient flows through it."""
    return x


def cond(pred, true_fn, false_fn, *operands):
    """``true_fn(*operands)`` if ``pred`` else ``false_fn(*operands)``."""
    return true_fn(*operands) if pred else false_fn(*operands)


def handles(obj):
    return obj in _LOWERINGS


def lower(lw, obj, args, kwargs, node):
    return _LOWERINGS[obj](lw, args, kwargs, node)


def _lower_stop_gradient(lw, args, kwargs, node):
    if len(args) != 1 or kwargs:
        raise lw.error(UnsupportedSyntaxError, node, "stop_gradient takes one argument")
    return lw.b.op("stop_gradient", lw.atom(args[0], node))


def _lower_cond(lw, args, kwargs, node):
    if len(args) < 3 or kwargs:
        raise lw.error(UnsupportedSyntaxError, node,
                       "cond takes (pred, true_fn, false_fn, *operands)")
    pred, true_fn, false_fn, *operands = args
    from .calls import apply
    from .ir import If
    cond_atom = lw.atom(pred, node)
    if not lw.b.facts.is_scalar(cond_atom):
        cond_atom = lw.b.op("scalar_predicate", cond_atom, hint="cond",
                            message=_where(lw, node))
    with lw.b.block() as then:
        a = apply(lw, _callable(lw, true_fn, node), operands, {}, node)
    with lw.b.block() as orelse:
        b = apply(lw, _callable(lw, false_fn, node), operands, {}, node)
    stmt = If(cond_atom, then, orelse, [], lw.src.loc(node))
    result = lw.merge(stmt, a, b, "t", node)
    lw.b.append(stmt)
    return result


def _callable(lw, value, node):
    if isinstance(value, (Closure, Static)):
        return value
    raise lw.error(UnsupportedSyntaxError, node, "cond's branches must be functions",
                   "pass a lambda or a def")


def _where(lw, node):
    return lw.src.loc(node).short()


def lower_with(lw, node):
    raise lw.error(UnsupportedSyntaxError, node, "`with` blocks are not supported here",
                   "only `with symdiff.gradient_override({...}):` may appear in a "
                   "differentiated function")


_LOWERINGS = {stop_gradient: _lower_stop_gradient, cond: _lower_cond}
