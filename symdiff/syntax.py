"""The one place where syntax outside symdiff's language is rejected.

`check(src)` walks a function's tree before anything is lowered and raises
`UnsupportedSyntaxError` (or `InPlaceWriteError`) at the first construct the
compiler does not handle, naming it and saying what to write instead.
"""
from __future__ import annotations

import ast

from .errors import InPlaceWriteError, UnsupportedSyntaxError

ALLOWED = (
    # statements
    ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.If, ast.Expr,
    ast.Pass, ast.FunctionDef, ast.With, ast.withitem,
    # expressions
    ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.Call, ast.keyword,
    ast.Name, ast.Attribute, ast.Subscript, ast.Slice, ast.Constant,
    ast.Tuple, ast.List, ast.IfExp, ast.Lambda, ast.Starred,
    ast.arguments, ast.arg,
    # contexts and operators
    ast.Load, ast.Store, ast.operator, ast.unaryop, ast.boolop, ast.cmpop,
)

HINTS = {
    "For": "loops are not differentiated yet; write the computation with "
           "array operations (np.sum, np.cumsum, broadcasting)",
    "While": "loops are not differentiated yet; write the computation with "
             "array operations",
    "ListComp": "build the array with NumPy operations (np.stack, broadcasting) "
                "instead of a comprehension",
    "GeneratorExp": "use np.sum over an array instead of a generator",
    "DictComp": "dictionaries are not differentiated; pass arrays",
    "SetComp": "sets are not differentiated; pass arrays",
    "Dict": "dictionaries are not differentiated; pass arrays or tuples",
    "Set": "sets are not differentiated; pass arrays or tuples",
    "Try": "exceptions are not differentiated; check inputs before calling grad",
    "Raise": "raise errors outside the differentiated function",
    "Assert": "check inputs outside the differentiated function",
    "Global": "pass the value as an argument instead",
    "Nonlocal": "pass the value as an argument instead",
    "Delete": "drop the `del`; names are freed when the function returns",
    "Import": "import at module level",
    "ImportFrom": "import at module level",
    "Yield": "generators cannot be differentiated; return a value",
    "YieldFrom": "generators cannot be differentiated; return a value",
    "Await": "async functions cannot be differentiated",
    "AsyncFunctionDef": "async functions cannot be differentiated",
    "NamedExpr": "assign the value on a line of its own",
    "JoinedStr": "format strings outside the differentiated function",
    "ClassDef": "define classes at module level",
    "Match": "use if/elif/else",
}


def check(src):
    """Raise at the first unsupported construct in ``src`` (a FunctionSource)."""
    node = src.node
    body = node.body if isinstance(node.body, list) else [node.body]
    for stmt in body:
        for sub in ast.walk(stmt):
            _check_node(src, sub)
    _check_arguments(src, node.args)


def _check_node(src, node):
    if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, ast.Store):
        raise InPlaceWriteError(
            "assignment into part of an array (an in-place write) is not differentiable here",
            src.loc(node),
            "build a new array instead: e.g. `x = np.concatenate([[v], x[1:]])` "
            "or `x = np.where(mask, v, x)`")
    if isinstance(node, ast.Constant) and isinstance(node.value, complex):
        raise UnsupportedSyntaxError("complex numbers are not differentiated",
                                     src.loc(node), "use real arithmetic")
    if isinstance(node, ALLOWED):
        return
    name = type(node).__name__
    raise UnsupportedSyntaxError(
        f"`{_describe(node)}` is not supported by symdiff",
        src.loc(node), HINTS.get(name, "rewrite this with NumPy array operations"))


def _check_arguments(src, args):
    if args.vararg or args.kwarg:
        which = args.vararg or args.kwarg
        raise UnsupportedSyntaxError(
            "*args and **kwargs parameters are not supported in a differentiated function",
            src.loc(which), "name each parameter")


def _describe(node):
    words = {"For": "for loop", "While": "while loop", "ListComp": "list comprehension",
             "GeneratorExp": "generator expression", "Try": "try statement",
             "NamedExpr": "assignment expression (:=)", "JoinedStr": "f-string"}
    name = type(node).__name__
    return words.get(name, name)
