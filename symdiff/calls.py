"""What a call means: a NumPy primitive, a user's helper to inline, a marker.

Every callee is classified here, in order: symdiff's own API (markers such as
`stop_gradient`), NumPy and `math` functions (primitives), Python builtins,
runtime helpers of generated code, and finally the user's own Python
functions, which are lowered inline so they are differentiated through.
"""
from __future__ import annotations

import ast
import builtins
import difflib
import inspect
import logging
import math
import numbers
import types
import warnings

import numpy as np

from . import prims
from .errors import NoDerivativeRuleError, UnknownNameError, UnsupportedSyntaxError
from .ir import Const, Var
from .source import read_source
from .values import NAMED_CONSTANTS, Closure, FreeVar, Static, Tup, from_python, is_atom

MAX_INLINE_DEPTH = 32
_MISSING = object()


def lower_call(lw, node):
    func = node.func
    if isinstance(func, ast.Attribute):
        base = lw.expr(func.value)
        if isinstance(base, FreeVar) and is_effect(getattr(base.value, func.attr, None)):
            return effect_call(lw, node)  # log.info(...) with a module-level logger
        if is_atom(base):
            if _plain_object(base) is not _MISSING:
                raise _object_method_error(lw, _plain_object(base), func.attr, node)
            return method_call(lw, base, func.attr, node)
        if isinstance(base, Static):
            callee = static_attribute(lw, base.obj, func)
        else:
            raise lw.error(UnsupportedSyntaxError, node, f"cannot call `{ast.unparse(func)}`",
                           "call NumPy functions, or functions and lambdas of your own, "
                           "by name")
    else:
        callee = lw.expr(func)
    if isinstance(callee, Static) and is_effect(callee.obj):
        return effect_call(lw, node)
    args = [lw.expr(a) for a in node.args]
    kwargs = {k.arg: lw.expr(k.value) for k in node.keywords}
    return apply(lw, callee, args, kwargs, node)


def apply(lw, callee, args, kwargs, node):
    if isinstance(callee, Closure):
        return inline_closure(lw, callee, args, kwargs, node)
    obj = callee.obj if isinstance(callee, Static) else None
    from . import markers
    if obj is not None and markers.handles(obj):
        return markers.lower(lw, obj, args, kwargs, node)
    prim = primitive_of(obj)
    if prim is not None:
        return prim_call(lw, prim, args, kwargs, node)
    if obj is not None and obj in _BUILTIN_CALLS:
        return _BUILTIN_CALLS[obj](lw, args, kwargs, node)
    numpy_name = _numpy_name(obj)
    if numpy_name is not None:
        return _numpy_call(lw, numpy_name, args, kwargs, node)
    if isinstance(obj, types.FunctionType) and not _is_numpy_internal(obj):
        return inline_function(lw, obj, args, kwargs, node)
    if inspect.ismethod(obj):
        raise _object_method_error(lw, obj.__self__, obj.__name__, node)
    name = ast.unparse(node.func)
    raise lw.error(NoDerivativeRuleError, node,
                   f"symdiff has no derivative rule for `{name}`",
                   "use a NumPy function symdiff knows, a Python function it can read, "
                   "or give it a rule with @symdiff.custom_gradient")


def _plain_object(value):
    """The object a global (or a string) stands for when it is neither an array
    nor a number, so calling its methods is not an array method; else _MISSING."""
    if isinstance(value, FreeVar) and \
            not isinstance(value.value, (np.ndarray, np.generic, numbers.Number)):
        return value.value
    if isinstance(value, Const) and isinstance(value.value, str):
        return value.value
    return _MISSING


def _object_method_error(lw, obj, method, node):
    """A call of a method of a Python object (not an array): no rule, and its
    source is a method, which symdiff does not read."""
    name = ast.unparse(node.func)
    what = f"`{name}` calls a method" if isinstance(node.func, ast.Attribute) \
        else f"`{name}` is the method `{method}`"
    return lw.error(NoDerivativeRuleError, node,
                    f"{what} of an object of type `{type(obj).__qualname__}`; symdiff "
                    "has no derivative rule for methods of objects",
                    f"write the computation as a module-level function of arrays "
                    f"(`def {method}(x, ...)`) and call that: symdiff reads and "
                    "differentiates your own functions")


def primitive_of(obj):
    """The primitive a NumPy, math or runtime-helper function stands for."""
    if obj is None:
        return None
    name = getattr(obj, "__name__", None)
    if not isinstance(name, str) or _is_python_builtin(obj):
        return None
    for module in (np, np.linalg):
        if getattr(module, name, None) is obj:
            return prims.lookup(name)
    if name in prims.MATH and getattr(math, name, None) is obj:
        return prims.lookup(name)
    from . import runtime
    if name.startswith("_") and getattr(runtime, name, None) is obj:
        return prims.lookup(name[1:])
    return None


def _numpy_name(obj):
    """``"linalg.inv"`` for np.linalg.inv: a NumPy function with no primitive."""
    name = getattr(obj, "__name__", None)
    if not isinstance(name, str) or _is_python_builtin(obj):
        return None
    for prefix, module in (("", np), ("linalg.", np.linalg), ("random.", np.random)):
        if getattr(module, name, None) is obj:
            return prefix + name
    return None


def _is_python_builtin(obj):
    """One of Python's own builtins (``str``, ``sorted``): never a NumPy function
    (and asking NumPy for ``np.str`` warns)."""
    return getattr(obj, "__module__", None) == "builtins" or obj is builtins.print


def _is_numpy_internal(fn):
    module = getattr(fn, "__module__", "") or ""
    return module == "numpy" or module.startswith("numpy.")


def _numpy_call(lw, name, args, kwargs, node):
    """A NumPy function without a derivative rule: fine while nothing
    differentiated flows into it (np.arange, np.zeros...); the reverse pass
    reports it otherwise."""
    operands = [lw.atom(a, node) for a in args]
    statics = tuple((k, static_value(lw, v, k, name, node)) for k, v in kwargs.items())
    return lw.b.op("npcall", *operands, func=name, kwargs=statics, hint=name.split(".")[-1])


def prim_call(lw, prim, args, kwargs, node, first=None):
    """Bind call arguments to ``prim``'s signature and make the operation."""
    positional = list(args)
    kwargs = dict(kwargs)
    operands = [first] if first is not None else []
    names = prim.operands[1:] if first is not None else prim.operands
    for name in names:
        if name.startswith("*"):
            seq = positional.pop(0) if positional else kwargs.pop(name[1:], Tup(()))
            items = seq.items if isinstance(seq, Tup) else [seq]
            operands.extend(lw.atom(i, node) for i in items)
            continue
        value = positional.pop(0) if positional else kwargs.pop(name, _MISSING)
        if value is _MISSING:
            raise lw.error(UnsupportedSyntaxError, node,
                           f"`{prim.name}` needs the argument `{name}`",
                           f"call it as np.{prim.name}({', '.join(prim.operands)}, ...)")
        operands.append(lw.atom(value, node))
    params = {}
    for key, default in prim.params:
        value = positional.pop(0) if positional else kwargs.pop(key, _MISSING)
        if value is not _MISSING:
            params[key] = static_value(lw, value, key, prim.name, node)
    if positional or kwargs:
        extra = ", ".join(list(kwargs) or [f"argument {len(names) + 1}"])
        raise lw.error(UnsupportedSyntaxError, node,
                       f"`{prim.name}` does not take {extra} here",
                       f"call it as np.{prim.name}({', '.join(prim.operands)}, "
                       f"{', '.join(k for k, _ in prim.params)})")
    return lw.b.op(prim.name, *operands, **params)


def static_value(lw, value, key, prim_name, node):
    if isinstance(value, Const):
        return value.value
    if isinstance(value, Tup) and all(isinstance(i, Const) for i in value.items):
        return tuple(i.value for i in value.items)
    raise lw.error(UnsupportedSyntaxError, node,
                   f"`{key}` of `{prim_name}` must be a constant",
                   f"write `{key}` as a number or a tuple of numbers")


def method_call(lw, base, name, node):
    prim_name = prims.ARRAY_METHODS.get(name)
    if prim_name is None:
        raise _array_method_error(lw, name, node)
    args = [lw.expr(a) for a in node.args]
    kwargs = {k.arg: lw.expr(k.value) for k in node.keywords}
    if name in ("reshape", "transpose") and len(args) > 1:
        args = [Tup(tuple(args))]  # x.reshape(3, 4) is x.reshape((3, 4))
    return prim_call(lw, prims.lookup(prim_name), args, kwargs, node, first=base)


def _array_method_error(lw, name, node):
    supported = ", ".join(f".{m}()" for m in sorted(prims.ARRAY_METHODS))
    if not hasattr(np.ndarray, name):
        # a parameter may be an object at run time, but symdiff takes it as an array
        return lw.error(UnsupportedSyntaxError, node,
                        f"`{ast.unparse(node.func)}` is not a method of arrays, and symdiff "
                        f"takes `{ast.unparse(node.func.value)}` to be an array or a number",
                        f"the array methods symdiff knows are {supported}; for a method of "
                        "an object, write a module-level function of arrays and pass it "
                        "the arrays")
    if callable(getattr(np, name, None)):
        hint = f"call the NumPy function instead: np.{name}(x, ...)"
    else:
        hint = f"use a NumPy function, or one of the array methods {supported}"
    return lw.error(NoDerivativeRuleError, node,
                    f"symdiff has no derivative rule for the array method `.{name}()`", hint)


def array_attribute(lw, base, node):
    prim_name = prims.ARRAY_ATTRIBUTES.get(node.attr)
    if prim_name is None and isinstance(node.value, ast.Name) \
            and node.value.id in ("self", "cls"):
        raise lw.error(UnsupportedSyntaxError, node,
                       f"`{ast.unparse(node)}` reads an attribute of an object; symdiff "
                       "differentiates functions of arrays, not methods",
                       f"pass `{ast.unparse(node)}` to the function as an argument")
    if prim_name is None:
        raise lw.error(UnsupportedSyntaxError, node,
                       f"the array attribute `.{node.attr}` is not supported",
                       "use .T, .shape, .ndim or .size")
    return lw.b.op(prim_name, base, hint=node.attr if node.attr != "T" else None)


def static_attribute(lw, obj, node):
    attr = node.attr
    if obj is np or obj is math:
        if attr in NAMED_CONSTANTS:
            return Const(NAMED_CONSTANTS[attr])
    try:
        value = getattr(obj, attr)
    except AttributeError:
        raise _missing_attribute(lw, obj, node) from None
    if hasattr(obj, "__dict__") and isinstance(getattr(obj, "__dict__"), dict):
        lw.b.deps.append((obj.__dict__, attr, value))
    return lw.b.free_var(from_python(attr, value))


def _missing_attribute(lw, obj, node):
    spelled = ast.unparse(node.value)
    owner = f"the module `{obj.__name__}`" if isinstance(obj, types.ModuleType) \
        else f"`{spelled}` (of type `{type(obj).__qualname__}`)"
    names = [n for n in dir(obj) if not n.startswith("_") or node.attr.startswith("_")]
    close = difflib.get_close_matches(node.attr, names, n=3, cutoff=0.75)
    if close:
        hint = "did you mean " + " or ".join(f"`{spelled}.{n}`" for n in close) + "?"
    else:
        hint = f"check the spelling: `{spelled}` has no name close to `{node.attr}`"
    return lw.error(UnknownNameError, node,
                    f"`{ast.unparse(node)}` is not defined: {owner} has no attribute "
                    f"`{node.attr}`", hint)


# -- inlining the user's functions -----------------------------------------------
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
    from .returns import hoist_returns
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


# -- Python builtins ----------------------------------------------------------------
def _builtin_prim(name):
    def lower(lw, args, kwargs, node):
        return prim_call(lw, prims.lookup(name), args, kwargs, node)
    return lower


def _builtin_minmax(name, prim_name):
    def lower(lw, args, kwargs, node):
        if len(args) < 2 or kwargs:
            raise lw.error(UnsupportedSyntaxError, node,
                           f"`{name}()` is differentiated only as {name}(a, b, ...) of numbers",
                           f"use np.{name}(x) to reduce an array")
        result = lw.atom(args[0], node)
        for arg in args[1:]:
            result = lw.b.op(prim_name, result, lw.atom(arg, node))
        return result
    return lower


def _builtin_sum(lw, args, kwargs, node):
    """sum(items, start=0): a chain of additions; sum(array) adds up its rows."""
    if not 1 <= len(args) <= 2 or set(kwargs) - {"start"}:
        raise lw.error(UnsupportedSyntaxError, node, "`sum()` takes items and a start value",
                       "write sum(items) or sum(items, start), or use np.sum")
    items, start = args[0], (args[1:] or [kwargs.get("start", Const(0))])[0]
    if isinstance(items, Tup):
        terms = [lw.atom(item, node) for item in items.items]
    elif is_atom(items):
        terms = [lw.b.op("sum", items, axis=0)]
    else:
        raise lw.error(UnsupportedSyntaxError, node, "`sum()` of this value is not supported",
                       "sum a list or tuple of values, or use np.sum")
    if not (isinstance(start, Const) and start.value == 0) or not terms:
        terms.insert(0, lw.atom(start, node))
    result = terms[0]
    for term in terms[1:]:
        result = lw.b.op("add", result, term)
    return result


def _builtin_text(name):
    """str(x), repr(x), format(x, spec): text for print or logging, no gradient."""
    def lower(lw, args, kwargs, node):
        if kwargs:
            raise lw.error(UnsupportedSyntaxError, node,
                           f"`{name}()` takes no keyword arguments here",
                           f"pass the arguments by position: {name}(value)")
        atoms = [_no_gradient(lw, lw.atom(a, node)) for a in args]
        return lw.b.op(prims.call_prim(name, effect=False).name, *atoms, hint="text")
    return lower


_BUILTIN_CALLS = {
    builtins.abs: _builtin_prim("abs"), builtins.len: _builtin_prim("len"),
    builtins.float: _builtin_prim("float"), builtins.round: _builtin_prim("round"),
    builtins.max: _builtin_minmax("max", "maximum"),
    builtins.min: _builtin_minmax("min", "minimum"),
    builtins.sum: _builtin_sum, builtins.str: _builtin_text("str"),
    builtins.repr: _builtin_text("repr"), builtins.format: _builtin_text("format"),
}


# -- calls made for what they do: print, logging, warnings ------------------------------
_LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception",
                          "critical", "log"})


def is_effect(obj):
    """Whether calling ``obj`` is done for its side effect: print, warnings.warn, the
    logging module's functions and the methods of a logger."""
    if obj is builtins.print or obj is warnings.warn:
        return True
    if getattr(obj, "__name__", None) not in _LOG_METHODS:
        return False
    if isinstance(obj, types.FunctionType):
        return getattr(obj, "__module__", None) == "logging"
    return isinstance(getattr(obj, "__self__", None), (logging.Logger, logging.LoggerAdapter))


def effect_call(lw, node):
    """``print(...)`` or ``log.info(...)``: kept as it is in the forward pass.

    The call runs where the user's function would run it, with the same values;
    it has no derivative, and what it reads gets no gradient from it.
    """
    spelled = _callee_spelling(lw, node.func, node)
    operands = [_text_operand(lw, a, node) for a in node.args]
    params = {}
    for keyword in node.keywords:
        if keyword.arg is None or keyword.arg in ("prim", "hint"):
            raise lw.error(UnsupportedSyntaxError, keyword.value,
                           f"`{ast.unparse(keyword)}` cannot be passed to "
                           f"`{ast.unparse(node.func)}` here",
                           "pass the arguments one by one")
        value = lw.expr(keyword.value)
        if not isinstance(value, Const):
            raise lw.error(UnsupportedSyntaxError, keyword.value,
                           f"the keyword argument `{keyword.arg}` of "
                           f"`{ast.unparse(node.func)}` must be a constant here",
                           "write it as a literal (e.g. end=\"\"), or log through a "
                           "module-level logger instead")
        params[keyword.arg] = value.value
    return lw.b.op(prims.call_prim(spelled, effect=True).name, *operands, hint="_",
                   **params)


def _callee_spelling(lw, func, node):
    """``print``, ``logging.info``, ``log.warning``: the callee as generated code
    names it. Its first name is made a global of the generated code."""
    attrs = []
    while isinstance(func, ast.Attribute):
        attrs.insert(0, func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        raise lw.error(UnsupportedSyntaxError, node,
                       f"`{ast.unparse(node.func)}` is called on a value computed here",
                       "make the logger a module-level name, e.g. `log = "
                       "logging.getLogger(__name__)`, and call `log.info(...)`")
    return ".".join([_global_name(lw, func.id, func)] + attrs)


def _global_name(lw, name, node):
    """The name generated code uses for the object ``name`` stands for here."""
    if name in lw.env:
        value = lw.env[name]
        if isinstance(value, FreeVar):
            return value.hint
        if not isinstance(value, Static):
            raise lw.error(UnsupportedSyntaxError, node,
                           f"`{name}` is not a function, module or logger",
                           "call print, warnings.warn or a module-level logger "
                           "(`log = logging.getLogger(__name__)`)")
        return lw.b.free_var(FreeVar(name, value.obj)).hint
    for scope in (lw.src.closure, lw.src.globals):
        if name in scope:
            lw.b.deps.append((scope, name, scope[name]))
            return lw.b.free_var(FreeVar(name, scope[name])).hint
    return name  # a builtin: print


def _text_operand(lw, arg, node):
    """An argument of print or logging: a value (no gradient), a string, or an
    f-string (as ``'...{}...'.format(value)``)."""
    if isinstance(arg, ast.Starred):
        raise lw.error(UnsupportedSyntaxError, arg, "`*` unpacking is not supported",
                       "pass the items one by one")
    if isinstance(arg, ast.JoinedStr):
        template, values = _format_template(lw, arg)
        atoms = [_text_operand(lw, v, node) for v in values]
        return lw.b.op(prims.call_prim(repr(template) + ".format", effect=False).name,
                       *atoms, hint="text")
    value = lw.expr(arg)
    if isinstance(value, Static) and isinstance(arg, (ast.Name, ast.Attribute)):
        # a class passed along, e.g. warnings.warn(message, UserWarning)
        name = arg.id if isinstance(arg, ast.Name) else arg.attr
        return lw.b.free_var(FreeVar(name, value.obj))
    if isinstance(value, (Static, Closure)):
        raise lw.error(UnsupportedSyntaxError, arg,
                       f"`{ast.unparse(arg)}` cannot be printed or logged here",
                       "print or log array values, numbers and strings")
    return _no_gradient(lw, lw.atom(value, arg))


def _no_gradient(lw, atom):
    return lw.b.op("stop_gradient", atom) if isinstance(atom, Var) else atom


def _format_template(lw, node):
    """``f"a {x!r:>8} b"`` as ``("a {!r:>8} b", [x])`` for ``str.format``."""
    parts, values = [], []
    for part in node.values:
        if isinstance(part, ast.Constant):
            parts.append(str(part.value).replace("{", "{{").replace("}", "}}"))
            continue
        conversion = "" if part.conversion == -1 else "!" + chr(part.conversion)
        spec = "" if part.format_spec is None else ":" + "".join(
            str(p.value) for p in part.format_spec.values)
        parts.append("{" + conversion + spec + "}")
        values.append(part.value)
    return "".join(parts), values


def lower_with(lw, node):
    from . import markers
    markers.lower_with(lw, node)
