"""Lowering a whole function: its parameters, its body and what it returns."""
from __future__ import annotations

import ast

from ..errors import InPlaceWriteError, NonScalarOutputError
from ..ir.nodes import Function, Var
from ..ir.trees import Leaf, Node, Rebuild
from .compile_time import Dict, Obj, Tup, is_atom
from .early_exits import hoist_returns
from .writes import Stale
from . import containers
from .containers import ContainerUse
from .lower import Lowerer


def lower_function(src, builder, trees=None):
    """Lower a top-level function: its parameters become `Var`s named after them.

    ``trees`` maps the parameters that are containers to their structure
    (ir/trees.py); None: every argument is taken as an array or a number,
    and a use of one as a container raises `ContainerUse`."""
    lowerer = Lowerer(src, builder, trees=trees)
    args = src.node.args
    nodes = args.posonlyargs + args.args + ([args.vararg] if args.vararg else []) + \
        args.kwonlyargs
    params = [Var(a.arg) for a in nodes]
    builder.param_locs.update((p, src.loc(a)) for p, a in zip(params, nodes))
    builder.facts.seed(params)  # a specialised gradient: what its arguments are
    lowerer.env.update({p.hint: p for p in params})
    builder.named.update(params)
    if args.vararg is not None:
        builder.varargs = params[len(args.posonlyargs + args.args)]
        if trees is None or args.vararg.arg not in trees:
            raise ContainerUse(args.vararg.arg)  # specialised on how many there are
    for p in params:
        if trees and p.hint in trees:  # a container: its leaves (containers.py)
            with builder.at(src.loc(src.node)):
                lowerer.env[p.hint] = containers.bind(lowerer, p, trees[p.hint])
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
    fn = Function(src.name, params, builder.stmts, None, src.loc(src.node),
                  return_loc=_return_loc(src))
    if _holds_container(result):  # a dict (of gradients...): flat leaves, rebuilt in emit
        tree, atoms = _output_tree(result, src)
        fn.result, fn.trees = tuple(atoms), Rebuild(tree, None)
    else:
        fn.result = _returned(result, src)
    return fn


def _holds_container(value):
    """A dict, a named tuple, an object, or a tuple holding one."""
    return isinstance(value, (Dict, Obj)) or isinstance(value, Tup) and (bool(
        value.names) or any(_holds_container(v) for v in value.items))


def _output_tree(value, src):
    """A returned container as a `Node` of leaves, and its atoms in order."""
    if isinstance(value, Dict):
        parts = [_output_tree(v, src) for v in value.items]
        return Node("dict", value.keys, tuple(p[0] for p in parts)), \
            [a for p in parts for a in p[1]]
    if isinstance(value, (Tup, Obj)):
        parts = [_output_tree(v, src) for v in value.items]
        if isinstance(value, Obj):  # (emitted as a dict of its attributes)
            return Node("object", value.names, tuple(p[0] for p in parts), value.type), \
                [a for p in parts for a in p[1]]
        kind = "namedtuple" if value.names else "tuple"
        return Node(kind, value.names, tuple(p[0] for p in parts)), \
            [a for p in parts for a in p[1]]
    return Leaf("float"), [_returned(value, src)]


def _returned(value, src):
    """What the function returns, as the IR holds it: an atom, or a tuple of
    them (nested as the user's tuples are)."""
    if is_atom(value):
        return value
    if isinstance(value, Tup):
        return tuple(_returned(v, src) for v in value.items)
    if isinstance(value, Stale):
        raise InPlaceWriteError(f"the function returns `{value.name}`, which shares its "
                                f"array with `{value.writer}`, changed in place at line "
                                f"{value.lineno}", src.loc(src.node),
                                f"return `{value.writer}`, or copy `{value.name}` where "
                                "you make it")
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
