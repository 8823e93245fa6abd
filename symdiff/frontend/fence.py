"""The one place where syntax outside symdiff's language is rejected.

`check(src)` walks a function's tree before anything is lowered and raises
`UnsupportedSyntaxError` (or `InPlaceWriteError`) at the first construct the
compiler does not handle, naming it and saying what to write instead.
"""
from __future__ import annotations

import ast

from ..errors import InPlaceWriteError, UnsupportedSyntaxError

ALLOWED = (
    ast.For, ast.While, ast.Break, ast.Continue,
    # statements
    ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.If, ast.Expr,
    ast.Pass, ast.FunctionDef, ast.With, ast.withitem, ast.Assert,
    # expressions
    ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.Call, ast.keyword,
    ast.Name, ast.Attribute, ast.Subscript, ast.Slice, ast.Constant,
    ast.Tuple, ast.List, ast.Dict, ast.IfExp, ast.Lambda, ast.Starred,
    ast.ListComp, ast.GeneratorExp, ast.DictComp, ast.comprehension,
    ast.arguments, ast.arg,
    # contexts and operators
    ast.Load, ast.Store, ast.operator, ast.unaryop, ast.boolop, ast.cmpop,
)

# What each construct is called in a message, and how to do without it.
CONSTRUCTS = {
    "AsyncFor": ("an `async for` loop", "async code cannot be differentiated"),
    "SetComp": ("a set comprehension", "sets are not differentiated; pass arrays"),
    "Set": ("a set literal", "sets are not differentiated; pass arrays or tuples"),
    "Try": ("a `try` statement", "exceptions are not differentiated: check inputs "
            "before calling the gradient, and keep values where operations are defined "
            "with np.where or np.clip (e.g. `np.log(np.clip(x, 1e-12, None))`)"),
    "TryStar": ("a `try`/`except*` statement", "exceptions are not differentiated: check "
                "inputs before calling the gradient"),
    "Raise": ("a `raise` statement", "raise errors outside the differentiated function"),
    "Global": ("a `global` statement", "a differentiated function changes nothing outside "
               "it: return the new value and assign the global where you call the "
               "function (to only read a global, drop the `global` statement)"),
    "Nonlocal": ("a `nonlocal` statement", "a differentiated function changes nothing "
                 "outside it: return the new value instead of assigning to an outer "
                 "variable"),
    "Delete": ("a `del` statement", "drop the `del`; names are freed when the function "
               "returns"),
    "Import": ("an `import` statement", "import at module level"),
    "ImportFrom": ("an `import` statement", "import at module level"),
    "Yield": ("`yield`", "a generator function cannot be differentiated: return a value "
              "(collect the values in a list and return np.stack(values), or add them "
              "up as they come)"),
    "YieldFrom": ("`yield from`", "a generator function cannot be differentiated: "
                  "return a value (np.stack of a list of the values)"),
    "Await": ("`await`", "async functions cannot be differentiated"),
    "AsyncFunctionDef": ("an `async def` function", "async functions cannot be "
                         "differentiated; use a plain `def`"),
    "AsyncWith": ("an `async with` block", "async code cannot be differentiated"),
    "NamedExpr": ("an assignment expression (`:=`)", "assign the value on a line of its own"),
    "JoinedStr": ("an f-string", "format strings outside the differentiated function"),
    "TemplateStr": ("a t-string", "format strings outside the differentiated function"),
    "ClassDef": ("a class definition", "define classes at module level"),
    "Match": ("a `match` statement", "use if/elif/else"),
}
GENERIC_HINT = "rewrite this with NumPy array operations"


def check(src, top=True):
    """Raise at the first unsupported construct in ``src`` (a FunctionSource).

    "First" is in source order, so the error points where a reader would
    stop; a construct inside an unsupported one is not reported separately.
    """
    node = src.node
    if not isinstance(node, (ast.FunctionDef, ast.Lambda)):
        what, hint = CONSTRUCTS.get(type(node).__name__, (type(node).__name__, GENERIC_HINT))
        raise UnsupportedSyntaxError(f"{what} cannot be differentiated", src.loc(node), hint)
    found = []
    if top:  # (a helper it calls may take **kwargs: a dict of them)
        _check_arguments(src, node, found)
    for stmt in node.body if isinstance(node.body, list) else [node.body]:
        _visit(src, stmt, found)
    if found:
        raise min(found, key=lambda e: (e.lineno or 0, e.col_offset or 0))


def _visit(src, node, found):
    error = _problem(src, node)
    if error is not None:
        found.append(error)
        return
    if isinstance(node, (ast.FunctionDef, ast.Lambda)):
        _check_arguments(src, node, found)
    if isinstance(node, ast.With):
        # `with symdiff.gradient_override({...}):` is compile-time configuration,
        # checked where the block is lowered (gradient_calls.lower_with); only its body
        # is code to differentiate.
        for child in node.body:
            _visit(src, child, found)
        return
    if isinstance(node, ast.Assert) and isinstance(node.msg, ast.JoinedStr):
        _visit(src, node.test, found)  # (assert x.ndim == 1, f"got {x.ndim}")
        _visit_fstring(src, node.msg, found)
        return
    if isinstance(node, ast.Call):
        # An f-string may be an argument of a call: print(f"loss {x:.3f}").
        # Whether the callee accepts one (print, logging) is decided when lowering.
        _visit(src, node.func, found)
        for arg in node.args + [k.value for k in node.keywords]:
            if isinstance(arg, ast.JoinedStr):
                _visit_fstring(src, arg, found)
            else:
                _visit(src, arg, found)
        return
    for child in ast.iter_child_nodes(node):
        _visit(src, child, found)


def _visit_fstring(src, node, found):
    for part in node.values:
        if isinstance(part, ast.FormattedValue):
            _visit(src, part.value, found)
            spec = part.format_spec
            if spec is not None and not all(isinstance(p, ast.Constant) for p in spec.values):
                found.append(UnsupportedSyntaxError(
                    "a format spec computed inside an f-string is not supported",
                    src.loc(part), "write the spec out, e.g. f\"{x:.3f}\""))


def _problem(src, node):
    """The error for ``node`` itself (not its children), or None."""
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
        return InPlaceWriteError(
            f"`{_target_text(node)}` assigns to an attribute, changing an object in "
            "place, which symdiff cannot differentiate",
            src.loc(node),
            "compute the value into a local name and return it; a differentiated "
            "function must not change objects outside it")
    if isinstance(node, ast.Constant) and isinstance(node.value, complex):
        return UnsupportedSyntaxError(
            f"the complex number `{ast.unparse(node)}` cannot be differentiated",
            src.loc(node), "use real arithmetic")
    if isinstance(node, ALLOWED):
        return None
    what, hint = CONSTRUCTS.get(type(node).__name__,
                                (f"`{type(node).__name__}`", GENERIC_HINT))
    return UnsupportedSyntaxError(f"{what} is not supported by symdiff", src.loc(node), hint)


def _check_arguments(src, fn, found):
    """``**kwargs`` parameters of the function differentiated (``*args`` is
    specialised on the arguments given; a function it calls may have both)."""
    args = fn.args
    if fn is not src.node:
        return
    for which, stars in ((args.kwarg, "**"),):  # (*args: specialised on those given)
        if which is not None:
            found.append(UnsupportedSyntaxError(
                f"the parameter `{stars}{which.arg}` collects a variable number of "
                "arguments, which symdiff does not support",
                src.loc(which), "name each parameter, e.g. `def f(x, y)` or "
                "`lambda x, y: ...`"))


def _target_text(node):
    text = ast.unparse(node)
    return text if len(text) <= 40 else text[:37] + "..."
