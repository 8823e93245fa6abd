"""Inlining the user's own functions: a call of a helper (a def, a nested def or
a lambda) is lowered as its body, with the arguments bound to its parameters,
so symdiff differentiates through it.
"""
from __future__ import annotations

import ast

from ..errors import UnsupportedSyntaxError
from .arguments import bind_arguments
from .early_exits import hoist_returns
from .source import read_source

MAX_INLINE_DEPTH = 32


def inline_function(lw, fn, args, kwargs, node):
    if lw.depth >= MAX_INLINE_DEPTH and fn.__code__ in lw.inlining:
        raise lw.error(UnsupportedSyntaxError, node,
                       f"`{fn.__name__}` calls itself more than {MAX_INLINE_DEPTH} levels "
                       "deep: symdiff unrolls a recursion whose depth is known when "
                       "compiling (from constant arguments), and this one's depends on "
                       "values known only when it runs",
                       "write the recursion as a loop (`for` or `while`), which symdiff "
                       "differentiates")
    if lw.depth >= MAX_INLINE_DEPTH:
        raise lw.error(UnsupportedSyntaxError, node,
                       f"calls nested more than {MAX_INLINE_DEPTH} deep",
                       "call fewer functions within one another, or write the computation "
                       "as a loop")
    src = read_source(fn, lw.src.loc(node))
    sub = lw.nested(src)
    sub.inlining = lw.inlining | {fn.__code__}
    bind_arguments(sub, src.node, fn.__defaults__, fn.__kwdefaults__, args, kwargs, node, lw)
    return _inline_body(sub, src.node, node, lw)


def inline_closure(lw, closure, args, kwargs, node):
    sub = lw.nested(closure.src, closure.env)
    defaults = [sub.expr(d) for d in closure.node.args.defaults]
    bind_arguments(sub, closure.node, defaults, None, args, kwargs, node, lw, lowered=True)
    return _inline_body(sub, closure.node, node, lw)


def _inline_body(sub, fnode, call_node, lw):
    if isinstance(fnode, ast.Lambda):
        with sub.b.at(sub.src.loc(fnode)):  # its line is the statement comments quote
            return sub.expr(fnode.body)
    result = sub.lower_body(hoist_returns(fnode.body))
    if result is None:
        raise lw.error(UnsupportedSyntaxError, call_node,
                       f"`{ast.unparse(call_node.func)}` returns None",
                       "a function called while differentiating must return a value")
    return result
