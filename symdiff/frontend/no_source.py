"""Naming a callable symdiff has no source for, and saying what to do instead."""
from __future__ import annotations

import functools
import sys
import types

import numpy as np


def describe(fn):
    return getattr(fn, "__qualname__", None) or type(fn).__name__


_LIBRARIES = ("numpy", "scipy")  # not symdiff: grad(grad(f)) reads generated code
# Python's own modules (logging, functools...): never differentiated through.
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) - {"__main__"}


def is_library_function(obj):
    module = getattr(obj, "__module__", None)
    if not isinstance(module, str) or isinstance(obj, type):
        return False
    top = module.split(".")[0]
    return top in _LIBRARIES or top in _STDLIB and isinstance(obj, types.FunctionType)


def describe_object(obj):
    """How to name ``obj`` (something that is not a Python function) in a message."""
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    module = getattr(obj, "__module__", None) or ""
    if isinstance(obj, np.ufunc):
        return f"`np.{obj.__name__}` (a NumPy ufunc, written in C)"
    if is_library_function(obj) and module.split(".")[0] in _STDLIB:
        return f"`{module}.{name}` (from Python's standard library)"
    if is_library_function(obj):
        return f"`{_short_module(module)}.{name}`"
    if isinstance(obj, (types.BuiltinFunctionType, types.BuiltinMethodType)):
        where = f"{module}." if module and module != "builtins" else ""
        return f"`{where}{name}` (a built-in function, written in C)"
    if isinstance(obj, type):
        return f"the class `{name}`"
    if isinstance(obj, functools.partial):
        return f"`functools.partial({describe(obj.func)}, ...)`"
    if callable(obj):
        return f"the callable object of type `{type(obj).__qualname__}`"
    return f"`{obj!r:.40}` (of type `{type(obj).__qualname__}`)"


def _short_module(module):
    if module == "numpy" or module.startswith("numpy._") or module.startswith("numpy.core"):
        return "np"
    return module.replace("numpy.", "np.", 1) if module.startswith("numpy.") else module


def no_code_hint(obj):
    module = getattr(obj, "__module__", None) or ""
    if module.split(".")[0] == "logging":
        return ("make the logger a module-level name, `log = logging.getLogger(__name__)`, "
                "and call `log.info(...)` in the function")
    if is_library_function(obj) and module.split(".")[0] in _STDLIB:
        return ("compute it outside the differentiated function and pass the result in "
                "as an argument")
    if isinstance(obj, np.ufunc) or is_library_function(obj):
        name = f"np.{obj.__name__}" if isinstance(obj, np.ufunc) else \
            f"{_short_module(obj.__module__)}.{getattr(obj, '__name__', 'f')}"
        call = f"{name}(x)" if name in ("np.sum", "numpy.sum") else f"np.sum({name}(x))"
        return (f"call it from a function of your own and differentiate that: "
                f"`def f(x): return {call}`, then `symdiff.grad(f)`")
    if isinstance(obj, (types.BuiltinFunctionType, types.BuiltinMethodType)):
        return "call it from a function of your own that returns a scalar, and " \
               "differentiate that"
    if isinstance(obj, functools.partial):
        return "write a `def` that calls the function with the fixed arguments, and " \
               "differentiate that (choose the argument with `wrt=`)"
    return "pass a function defined with `def` (or a lambda) in a file or notebook cell"
