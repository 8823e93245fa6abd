"""What a call means: a NumPy primitive, a user's helper to inline, or one of
symdiff's own functions. Every callee is classified here, in order: symdiff's own API
(gradient_calls.py: `stop_gradient`, `cond`...), scipy.stats distributions
(distributions.py), NumPy, SciPy and `math` functions (primitives; SciPy's
bound as SciPy binds them where that differs: library_calls.py), Python
builtins (builtin_calls.py), runtime helpers of generated code, the user's
own Python functions, which are lowered inline (inline.py) so they are
differentiated through, and last any other callable, whose value is computed
and which needs a rule only where a gradient reaches it (opaque_calls.py).
print, logging and warnings calls are kept for what they do (effects.py).
"""
from __future__ import annotations

import ast
import builtins
import dataclasses
import difflib
import inspect
import math
import numbers
import sys
import types

import numpy as np

from ..errors import (InPlaceWriteError, NoDerivativeRuleError, UnknownNameError,
                      UnsupportedSyntaxError)
from ..ir.nodes import Const, FreeVar
from ..ir.primitive import (TABLE, attribute_primitive, function_modules,
                            function_primitive, math_primitive, method_names,
                            method_primitive)
from ..rules.linalg import TAPE_SUMS
from ..rules.opaque import custom_gradient_snippet
from ..runtime import helpers as runtime
from . import distributions, gradient_calls, library_calls
from .arguments import prim_call, static_value
from .builtin_calls import BUILTIN_CALLS
from .call_forms import lower_form
from . import containers, lists
from .compile_time import (NAMED_CONSTANTS, BoundMethod, Closure, Dict, Obj, Static, Tup,
                           from_python, is_atom)
from .effects import effect_call, is_effect
from .in_place_calls import refuse_in_place
from .inline import inline_closure, inline_function
from .numpy_forms import numpy_form
from .statistics_forms import statistics_form
from .opaque_calls import opaque_call
from .writes import Stale, stale_error
from .random_draws import global_generator, is_draw_method, lower_method_draw, lower_module_draw
from .tapes import lower_tape_sum

_MISSING = object()


def lower_call(lw, node):
    func = node.func
    if isinstance(func, ast.Attribute):
        base = lw.expr(func.value)
        if isinstance(base, Stale):
            raise stale_error(lw, base, func.value)
        frozen = base if distributions.is_frozen(base) else distributions.frozen_value(lw, base)
        if frozen is not None:  # dist.logpdf(x), dist = norm(mu, s)
            return distributions.frozen_method_call(lw, frozen, node)
        if isinstance(base, FreeVar) and is_effect(getattr(base.value, func.attr, None)):
            return effect_call(lw, node)  # log.info(...) with a module-level logger
        if is_atom(base):
            if is_draw_method(func.attr) and (global_generator(base) or (
                    _plain_object(base) is _MISSING and method_primitive(func.attr) is None)):
                return lower_method_draw(lw, base, func.attr, node)  # rng.normal(...)
            if isinstance(base, Const) and isinstance(base.value, str) and \
                    func.attr == "format" and not node.keywords:
                # text, no derivative: generated code writes an f-string so (effects.py)
                return lw.b.op("pure_call", *(lw.atom(lw.expr(a), a) for a in node.args),
                               callee=repr(base.value) + ".format", hint="text")
            if _plain_object(base) is not _MISSING:
                raise _object_method_error(lw, _plain_object(base), func.attr, node)
            if func.attr in ("items", "keys", "values", "get"):
                containers.container_use(lw, base, definite=True)
            return method_call(lw, base, func.attr, node)
        if isinstance(base, Static):
            callee = static_attribute(lw, base.obj, func)
        elif isinstance(base, Dict):  # params.items() (containers.py)
            return containers.method(lw, base, func.attr, [lw.expr(a) for a in node.args],
                                     node)
        elif isinstance(base, Obj):   # self.forward(x): the method, with self
            callee = containers.attribute(lw, base, func)
        elif isinstance(base, Tup) and base.names and func.attr == "_replace":
            return containers.replaced(lw, base, call_arguments(lw, node)[1], node)
        else:
            raise lw.error(UnsupportedSyntaxError, node, f"cannot call `{ast.unparse(func)}`",
                           "call NumPy functions, or functions and lambdas of your own, "
                           "by name")
    else:
        callee = lw.expr(func)
    if isinstance(callee, Static) and is_effect(callee.obj):
        return effect_call(lw, node)
    if isinstance(callee, Static) and callee.obj is builtins.sum and len(node.args) == 1 \
            and isinstance(node.args[0], ast.GeneratorExp) and not node.keywords:
        total = lists.generator_sum(lw, node.args[0], Const(0))  # a running total
        if total is not None:
            return total
    args, kwargs = call_arguments(lw, node)
    return apply(lw, callee, args, kwargs, node)


def call_arguments(lw, node):
    """A call's positional and keyword arguments, ``*items`` and ``**options``
    of tuples, lists and dicts known when compiling spread out."""
    args, kwargs = [], {}
    for a in node.args:
        if isinstance(a, ast.Starred):
            value = lw.expr(a.value)
            if is_atom(value):  # f(*params): an argument spread is a list or tuple
                containers.container_use(lw, value, definite=True)
            if not isinstance(value, (Tup, Dict)):
                raise lw.error(UnsupportedSyntaxError, a, "`*` spreads a list or tuple "
                               "known when compiling here", "pass the items one by one")
            args.extend(value.items if isinstance(value, Tup) else
                        [Const(k) for k in value.keys])
        else:
            args.append(lw.expr(a))
    for k in node.keywords:
        value = lw.expr(k.value)
        if k.arg is None:
            if not isinstance(value, Dict):
                raise lw.error(UnsupportedSyntaxError, k.value, "`**` spreads a dict known "
                               "when compiling here", "pass the keywords one by one")
            kwargs.update(zip(value.keys, value.items))
        else:
            kwargs[k.arg] = value
    return args, kwargs


def apply(lw, callee, args, kwargs, node):
    if isinstance(callee, Closure):
        return inline_closure(lw, callee, args, kwargs, node)
    if isinstance(callee, BoundMethod):  # self.forward(x): forward(self, x)
        return inline_function(lw, callee.func, [callee.obj] + list(args), kwargs, node)
    if isinstance(callee, Static) and callee.obj is dataclasses.replace and args \
            and isinstance(args[0], Obj):
        return containers.replaced(lw, args[0], kwargs, node)
    obj = callee.obj if isinstance(callee, Static) else None
    if obj is not None and gradient_calls.handles(obj):
        return gradient_calls.lower(lw, obj, args, kwargs, node)
    form = (numpy_form(obj) or statistics_form(obj)) if obj is not None else None
    if form is not None:  # np.split, np.select, np.average
        return form(lw, args, kwargs, node)
    if obj is not None and distributions.handles(obj):  # norm.logpdf, norm(mu, s)
        return distributions.lower(lw, obj, args, kwargs, node)
    prim = primitive_of(obj)
    if prim is not None and prim.name in TAPE_SUMS:
        return lower_tape_sum(lw, prim, args, node)
    if prim is not None and prim.name == "apply_rule":
        return gradient_calls.lower_registered_rule(lw, args, node)
    if prim is not None and args and lists.runtime_list(args[0]):
        return lists.call_on_list(lw, prim, args, kwargs, node)  # np.stack(xs)
    if prim is not None and prim.name == "array" and len(args) == 1 \
            and not isinstance(args[0], Tup):
        # np.array(x) of an array is a copy of it (not [x]); with a dtype, a cast
        prim = TABLE["astype" if "dtype" in kwargs else "copy"]
    if prim is not None and library_calls.binds(prim):
        return library_calls.lower(lw, prim, obj, args, kwargs, node)
    if prim is not None:
        formed = lower_form(lw, prim, args, kwargs, node)  # np.einsum('ij->j', a), ...
        if formed is not None:
            return formed
        with lw.b.math_spelling(_is_math(obj)):  # math.sin(x): written so (Op.math)
            if obj is math.log and len(args) == 2 and not kwargs:  # as CPython computes it
                return lw.b.op("divide", *(prim_call(lw, prim, [a], {}, node) for a in args))
            return prim_call(lw, prim, args, kwargs, node)
    if obj is not None and obj in BUILTIN_CALLS:
        return BUILTIN_CALLS[obj](lw, args, kwargs, node)
    numpy_name = _numpy_name(obj)
    if numpy_name is not None and numpy_name.startswith("random."):
        return lower_module_draw(lw, numpy_name[len("random."):], args, kwargs, node)
    if numpy_name is not None:
        return _numpy_call(lw, numpy_name, args, kwargs, node)
    if isinstance(obj, types.FunctionType) and not _is_numpy_internal(obj) \
            and not _is_scipy(obj):
        return inline_function(lw, obj, args, kwargs, node)
    if inspect.ismethod(obj):
        raise _object_method_error(lw, obj.__self__, obj.__name__, node)
    if callable(obj) and not isinstance(obj, type):
        return opaque_call(lw, obj, args, kwargs, node)
    name = ast.unparse(node.func)
    inputs = [a.id if isinstance(a, ast.Name) else f"arg{i}" for i, a in enumerate(node.args)]
    raise lw.error(NoDerivativeRuleError, node,
                   f"symdiff has no derivative rule for `{name}`",
                   custom_gradient_snippet(name, inputs, ", ".join(inputs),
                                           ", ".join(ast.unparse(a) for a in node.args)))


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
    if type(obj).__name__ == "fortran":  # (f2py's LAPACK wrappers: "function dpotri")
        name = name.rpartition(" ")[2]
    for module_name in function_modules():  # (np.linalg.outer is not np.outer)
        module = sys.modules.get(module_name)
        if module is not None and getattr(module, name, None) is obj:
            return function_primitive(module_name, name)
    if getattr(math, name, None) is obj:
        return math_primitive(name)
    helper = runtime.HELPERS.get(name) if name.startswith("_") else None
    if helper is not None and (helper is obj or _copy_of(obj, helper)):
        return TABLE.get(name[1:])
    ufunc = getattr(obj, "__self__", None)  # np.maximum.accumulate: a primitive of its own
    return TABLE.get(f"{ufunc.__name__}_{name}") if isinstance(ufunc, np.ufunc) \
        and name in ("accumulate", "reduce") else None


def bool_op(lw, conjunction, values):
    """``a and b``, ``a or b``: of booleans, the logical operation; of numbers,
    Python's value (``a or b`` is ``a`` where ``a`` is true, else ``b``), a
    select whose derivative goes to the operand chosen."""
    result = values[0]
    for value in values[1:]:
        if _boolean(lw, result) and _boolean(lw, value):
            result = lw.b.op("logical_and" if conjunction else "logical_or", result, value)
        else:
            result = lw.b.op("where", result, *((value, result) if conjunction
                                                else (result, value)))
    return result


def _boolean(lw, atom):
    if isinstance(atom, Const):
        return isinstance(atom.value, bool)
    made = lw.b.facts.producer(atom)
    found = lw.b.facts.dtype(atom)
    return found is bool or found == np.dtype(bool) or \
        made is not None and made.prim in TABLE and TABLE[made.prim].boolean


def _is_math(obj):
    """Whether ``obj`` is a function of the `math` module (``math.sin``)."""
    name = getattr(obj, "__name__", None)
    return isinstance(name, str) and getattr(math, name, None) is obj


def _copy_of(obj, helper):
    """Whether ``obj`` is a module's copy of a runtime helper (a module the
    command line wrote), so that its gradients can be differentiated again."""
    code = getattr(obj, "__code__", None)
    return code is not None and _code_key(code) == _code_key(helper.__code__)


def _code_key(code):
    """What a function does, not where it was written (lines, file)."""
    consts = tuple(_code_key(c) if hasattr(c, "co_code") else c for c in code.co_consts)
    return code.co_code, consts, code.co_names


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


def _is_scipy(fn):
    """A SciPy function without a record (scipy.integrate.odeint): symdiff
    computes its value, and does not read SciPy's source."""
    return (getattr(fn, "__module__", "") or "").split(".")[0] == "scipy"


def _is_numpy_internal(fn):
    module = getattr(fn, "__module__", "") or ""
    return module == "numpy" or module.startswith("numpy.")


def _numpy_call(lw, name, args, kwargs, node):
    """A NumPy function without a derivative rule: fine while nothing
    differentiated flows into it (np.arange, np.zeros...); the reverse pass
    reports it otherwise."""
    refuse_in_place(lw, name, node)
    operands = [lw.atom(a, node) for a in args]
    statics = tuple((k, static_value(lw, v, k, name, node)) for k, v in kwargs.items())
    return lw.b.op("npcall", *operands, func=name, kwargs=statics, hint=name.split(".")[-1])


def method_call(lw, base, name, node):
    prim = method_primitive(name)
    if prim is None:
        raise _array_method_error(lw, name, node, base)
    args, kwargs = call_arguments(lw, node)
    if name in ("reshape", "transpose") and len(args) > 1:
        args = [Tup(tuple(args))]  # x.reshape(3, 4) is x.reshape((3, 4))
    return prim_call(lw, prim, args, kwargs, node, first=base)


def _array_method_error(lw, name, node, base=None):
    supported = ", ".join(f".{m}()" for m in method_names())
    if name == "sort":  # sorts in place and returns None
        return lw.error(InPlaceWriteError, node,
                        f"`{ast.unparse(node.func)}` sorts the array in place (and returns "
                        "None); symdiff differentiates values, not changes made to them",
                        f"write `{ast.unparse(node.func.value)} = np.sort("
                        f"{ast.unparse(node.func.value)}, axis=...)`")
    if not hasattr(np.ndarray, name):
        containers.container_use(lw, base, definite=True)  # (an argument: an object?)
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
    prim = attribute_primitive(node.attr)
    if prim is None and not hasattr(np.ndarray, node.attr):
        containers.container_use(lw, base, definite=True)  # an argument as an object
    if prim is None and isinstance(node.value, ast.Name) \
            and node.value.id in ("self", "cls"):
        raise lw.error(UnsupportedSyntaxError, node,
                       f"`{ast.unparse(node)}` reads an attribute of an object; symdiff "
                       "differentiates functions of arrays, not methods",
                       f"pass `{ast.unparse(node)}` to the function as an argument")
    if prim is None:
        raise lw.error(UnsupportedSyntaxError, node,
                       f"the array attribute `.{node.attr}` is not supported",
                       "index the flattened array: `x.ravel()[...]`" if node.attr == "flat"
                       else "use .T, .shape, .ndim or .size")
    return lw.b.op(prim.name, base, hint=node.attr if node.attr != "T" else None)


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
