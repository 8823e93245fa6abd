"""Values the frontend tracks while lowering, beyond IR atoms.

At run time every value is an IR atom (`Var` or `Const`). While lowering, a
name can also stand for something known at compile time: a Python tuple of
values (`Tup`), a module or function (`Static`), or a lambda / nested `def`
of the function being lowered (`Closure`).
"""
from __future__ import annotations

import math
import types
from dataclasses import dataclass

import numpy as np

from ..ir.nodes import Const, FreeVar, Var


@dataclass(frozen=True)
class Tup:
    items: tuple
    names: tuple = ()  # the items' names, for a named result (``eigh(a).eigenvalues``)
    is_list: bool = False  # a list (in an index: positions, not one index per axis)


@dataclass(frozen=True)
class Dict:
    """A dict known when compiling (an argument's, or a literal): its keys
    are constants, its values compile-time values."""

    keys: tuple
    items: tuple

    def get(self, key, default=None):
        return self.items[self.keys.index(key)] if key in self.keys else default

    def with_item(self, key, value):
        if key in self.keys:
            items = list(self.items)
            items[self.keys.index(key)] = value
            return Dict(self.keys, tuple(items))
        return Dict(self.keys + (key,), self.items + (value,))


@dataclass(frozen=True)
class Obj:
    """An object argument (``self``, a dataclass): the values of its
    attributes, read where the function runs, and its class (for methods)."""

    type: object
    names: tuple
    items: tuple
    var: object = None  # the argument (or the path to it), for messages


@dataclass(frozen=True)
class BoundMethod:
    """``obj.method`` of an `Obj`: calling it inlines the method with ``obj``."""

    func: object
    obj: object


@dataclass(frozen=True)
class Static:
    obj: object


@dataclass(frozen=True)
class OneBranch:
    """A name assigned in one branch of an `if` only (the other side is None):
    readable only under another `if` on the same condition."""

    cond: object
    then: object
    orelse: object
    lineno: int


@dataclass
class Closure:
    """A lambda or nested def, with the environment it was defined in."""

    node: object
    env: dict
    src: object


def is_atom(value):
    return isinstance(value, (Var, Const))


def from_python(name, obj):
    """What a global, closure or default value ``obj`` is to the compiler."""
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return Const(obj)
    if isinstance(obj, (np.floating, np.integer)):
        return Const(obj.item())
    if obj is np.s_ or obj is np.index_exp:
        return Static(obj)
    if isinstance(obj, tuple):
        return Tup(tuple(from_python(name, item) for item in obj))
    if isinstance(obj, (types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
                        types.MethodType, type, np.ufunc)) or callable(obj):
        return Static(obj)
    return FreeVar(name, obj)


# Constants NumPy and math name; emit writes them back by name.
NAMED_CONSTANTS = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan,
                   "newaxis": None, "euler_gamma": np.euler_gamma}
