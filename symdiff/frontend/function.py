"""Lowering a whole function: its parameters, its body and what it returns."""
from __future__ import annotations

import ast

from ..errors import NonScalarOutputError
from ..ir.nodes import Function, Var
from .compile_time import Tup, is_atom
from .early_exits import hoist_returns
from .lower import Lowerer


def lower_function(src, builder):
    """Lower a top-level function: its parameters become `Var`s named after them."""
    lowerer = Lowerer(src, builder)
    args = src.node.args
    nodes = args.posonlyargs + args.args + args.kwonlyargs
    params = [Var(a.arg) for a in nodes]
    builder.param_locs.update((p, src.loc(a)) for p, a in zip(params, nodes))
    builder.facts.seed(params)  # a specialised gradient: what its arguments are
    lowerer.env.update({p.hint: p for p in params})
    builder.named.update(params)
    _bind_defaults(lowerer, src)
    with builder.at(src.loc(src.node)):
        if isinstance(src.node, ast.Lambda):
            result = lowerer.expr(src.node.body)
        else:
            result = lowerer.lower_body(hoist_returns(src.node.body))
    if result is None:
        raise NonScalarOutputError("the function does not return a value",
                                   src.loc(src.node), "end it with `return value`")
    if isinstance(result, Var) and result not in builder.named:
        result.hint = src.name if src.name.isidentifier() else "value"
        builder.named.add(result)
    return Function(src.name, params, builder.stmts, _returned(result, src), src.loc(src.node),
                    return_loc=_return_loc(src))


def _returned(value, src):
    """What the function returns, as the IR holds it: an atom, or a tuple of
    them (nested as the user's tuples are)."""
    if is_atom(value):
        return value
    if isinstance(value, Tup):
        return tuple(_returned(v, src) for v in value.items)
    raise NonScalarOutputError("the function returns something that is not an array, a "
                               "number or a tuple of them", src.loc(src.node),
                               "return arrays or numbers")


def _return_loc(src):
    """Where the function's value comes from, for errors about it (a
    non-scalar output): its one `return`, or a lambda's body; None when
    several `return`s may give the value."""
    if isinstance(src.node, ast.Lambda):
        return src.loc(src.node.body)
    found, todo = [], list(src.node.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Return):
            found.append(node)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                   ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))
    return src.loc(found[0]) if len(found) == 1 else None


def _bind_defaults(lowerer, src):
    pass  # parameters with defaults are still parameters of the gradient
