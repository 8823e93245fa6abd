"""Inlining the user's own functions: a call of a helper (a def, a nested def or
a lambda) is lowered as its body, with the arguments bound to its parameters,
so symdiff differentiates through it.
"""
from __future__ import annotations

import ast
import difflib

from ..errors import UnsupportedSyntaxError
from .early_exits import hoist_returns
from .source import read_source
from .compile_time import from_python

MAX_INLINE_DEPTH = 32


def inline_function(lw, fn, args, kwargs, node):
    from .lower import Lowerer
    if lw.depth >= MAX_INLINE_DEPTH:
        raise lw.error(UnsupportedSyntaxError, node,
                       f"calls nested more than {MAX_INLINE_DEPTH} deep (recursion?)",
                       "recursive functions cannot be differentiated; write a loop-free version")
    src = read_source(fn, lw.src.loc(node))
    sub = Lowerer(src, lw.b, lw.depth + 1)
    bind_arguments(sub, src.node, fn.__defaults__, fn.__kwdefaults__, args, kwargs, node, lw)
    return _inline_body(sub, src.node, node, lw)


def inline_closure(lw, closure, args, kwargs, node):
    from .lower import Lowerer
    sub = Lowerer.__new__(Lowerer)
    sub.src, sub.b, sub.depth = closure.src, lw.b, lw.depth + 1
    sub.env = dict(closure.env)
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


def bind_arguments(sub, fnode, defaults, kwdefaults, args, kwargs, node, lw, lowered=False):
    """Bind a call's arguments to the parameters of ``fnode`` (a def or lambda)
    in ``sub.env``, as Python would."""
    spec = fnode.args
    names = [a.arg for a in spec.posonlyargs + spec.args]
    defaults = list(defaults or ())
    default_of = dict(zip(names[len(names) - len(defaults):], defaults))
    default_of.update(kwdefaults or {})
    signature = f"{getattr(fnode, 'name', 'lambda')}({ast.unparse(spec)})"
    rest = _check_arguments(lw, node, names, [a.arg for a in spec.kwonlyargs], args,
                            kwargs, signature)
    for name, value in zip(names, args):
        sub.env[name] = value
    for name in rest:
        if name in kwargs:
            sub.env[name] = kwargs[name]
        elif name in default_of:
            value = default_of[name]
            sub.env[name] = value if lowered else from_python(name, value)
        else:
            raise lw.error(UnsupportedSyntaxError, node,
                           f"`{ast.unparse(node.func)}` is missing the argument `{name}`",
                           f"pass `{name}`: it has no default in `{signature}`")


def _check_arguments(lw, node, names, kwonly, args, kwargs, signature):
    """Too many positional arguments, one given twice, or an unknown keyword;
    the parameters left for keywords and defaults."""
    callee = ast.unparse(node.func)
    if len(args) > len(names):
        raise lw.error(UnsupportedSyntaxError, node,
                       f"`{callee}` takes {len(names)} positional arguments "
                       f"but {len(args)} were given",
                       f"it is defined as `{signature}`: pass one value for each parameter")
    twice = sorted(set(kwargs) & set(names[:len(args)]))
    if twice:
        raise lw.error(UnsupportedSyntaxError, node,
                       f"`{callee}` got the argument `{twice[0]}` twice, by position and "
                       "by keyword", f"pass it once; it is defined as `{signature}`")
    rest = names[len(args):] + kwonly
    unknown = sorted(set(kwargs) - set(rest))
    if unknown:  # checked before missing ones: a misspelt keyword leaves one missing
        raise lw.error(UnsupportedSyntaxError, node,
                       f"`{callee}` got unexpected arguments {unknown}",
                       _keyword_hint(unknown[0], rest, signature))
    return rest


def _keyword_hint(given, params, signature):
    close = difflib.get_close_matches(given, params, n=1)
    if close:
        return f"did you mean `{close[0]}`? It is defined as `{signature}`"
    return f"it is defined as `{signature}`"
