"""Binding a call's arguments: to a primitive's signature (operands, then
compile-time parameters), or to a Python function's parameters, as Python
would, with an error naming the parameter for each mistake."""
from __future__ import annotations

import ast
import difflib

import numpy as np

from ..errors import InPlaceWriteError, UnsupportedSyntaxError
from ..ir.nodes import Const
from ..ir.storage import shape_only
from .compile_time import Dict, Tup, from_python
from .writes import shape_of

_MISSING = object()
# NumPy 2's names for a parameter beside the older ones (``x.clip(min=0.0)``,
# ``np.clip(x, min=lo, max=hi)``); a bound not given is None, as there
_SYNONYMS = {"clip": {"min": "a_min", "max": "a_max"}}
_OPTIONAL = {("clip", "a_min"), ("clip", "a_max")}
# a parameter whose default the IR's reading of it would take for another:
# np.logaddexp.reduce's axis is 0 (np.maximum.reduce's...), where the IR's None is every axis
_DEFAULTS = {f"{name}_reduce": (("axis", 0),) for name in ("logaddexp", "maximum", "minimum")}


def prim_call(lw, prim, args, kwargs, node, first=None):
    """Bind call arguments to ``prim``'s signature and make the operation."""
    positional = list(args)
    kwargs = {_SYNONYMS.get(prim.name, {}).get(k, k): v for k, v in kwargs.items()}
    operands = [first] if first is not None else []
    names = prim.operands[1:] if first is not None else prim.operands
    for name in names:
        if name.startswith("*"):
            items = _star_items(prim, name, positional, kwargs)
            operands.extend(lw.atom(i, node) for i in items)
            continue
        value = positional.pop(0) if positional else kwargs.pop(name, _MISSING)
        if value is _MISSING and (prim.name, name) in _OPTIONAL and len(args) < 2:
            value = Const(None)  # (one bound given by name: the other is None)
        if shape_only(prim.name, len(operands)):
            value = shape_of(value)  # (a name a write made stale still has its shape)
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
    for key, value in _DEFAULTS.get(prim.name, ()):
        params.setdefault(key, value)
    if positional or kwargs:
        extra = ", ".join(list(kwargs) or [f"argument {len(names) + 1}"])
        raise lw.error(UnsupportedSyntaxError, node,
                       f"`{prim.name}` does not take {extra} here",
                       f"call it as np.{prim.name}({', '.join(prim.operands)}, "
                       f"{', '.join(k for k, _ in prim.params)})")
    if params.get("copy") is False and prim.name == "nan_to_num":
        x = ast.unparse(node.args[0]) if getattr(node, "args", None) else "x"
        raise lw.error(InPlaceWriteError, node,
                       f"`np.nan_to_num({x}, copy=False)` changes `{x}` in place",
                       f"write `{x} = np.nan_to_num({x})`: a new value")
    result = lw.b.op(prim.name, *operands, **params)
    if prim.outputs:  # one value per result: `w, v = np.linalg.eigh(a)`
        return Tup(tuple(lw.b.op("output", result, index=k, hint=f"{prim.name}{k}")
                         for k in range(len(prim.outputs))), prim.output_names)
    return result


def _star_items(prim, name, positional, kwargs):
    """What a star operand takes: a runtime helper's ``*values`` are the
    positional arguments left (its ``*index``, the parts of an ``np.s_[...]``);
    a NumPy function's (np.stack) one sequence."""
    if prim.spelling[0] == "helper":
        items = list(positional)
        positional.clear()
        if name == "*index" and len(items) == 1 and isinstance(items[0], Tup):
            return list(items[0].items)
        return items
    seq = positional.pop(0) if positional else kwargs.pop(name[1:], Tup(()))
    return seq.items if isinstance(seq, Tup) else [seq]


def static_value(lw, value, key, prim_name, node):
    if key == "dtype" and _dtype_name(value) is not None:  # np.float32, float, np.dtype(...)
        return _dtype_name(value)
    constant = _constant(value)
    if constant is not _MISSING:
        return constant
    raise lw.error(UnsupportedSyntaxError, node,
                   f"`{key}` of `{prim_name}` must be a constant",
                   f"write `{key}` as a number or a tuple of numbers")


def _dtype_name(value):
    """The name of the dtype a compile-time value stands for ("float32"), or None."""
    obj = getattr(value, "obj", getattr(value, "value", None))
    if not isinstance(obj, (type, np.dtype)):
        return None
    try:
        return np.dtype(obj).name
    except TypeError:
        return None


def _constant(value):
    """A compile-time value as Python: a constant, or tuples of them
    (tensordot's ``axes=([0, 1], [1, 0])``); _MISSING if it is not one."""
    if isinstance(value, Const):
        return value.value
    if isinstance(value, Tup):
        items = tuple(_constant(i) for i in value.items)
        return _MISSING if _MISSING in items else items
    return _MISSING


def bind_arguments(sub, fnode, defaults, kwdefaults, args, kwargs, node, lw, lowered=False):
    """Bind a call's arguments to the parameters of ``fnode`` (a def or lambda)
    in ``sub.env``, as Python would."""
    spec = fnode.args
    names = [a.arg for a in spec.posonlyargs + spec.args]
    defaults = list(defaults or ())
    default_of = dict(zip(names[len(names) - len(defaults):], defaults))
    default_of.update(kwdefaults or {})
    signature = f"{getattr(fnode, 'name', 'lambda')}({ast.unparse(spec)})"
    args, kwargs = list(args), dict(kwargs)
    if spec.vararg is not None:  # *args: the positional arguments left, as a tuple
        sub.env[spec.vararg.arg] = Tup(tuple(args[len(names):]))
        del args[len(names):]
    if spec.kwarg is not None:  # **kwargs: the keywords no parameter takes, as a dict
        named = set(names) | {a.arg for a in spec.kwonlyargs}
        extra = {k: v for k, v in kwargs.items() if k not in named}
        sub.env[spec.kwarg.arg] = Dict(tuple(extra), tuple(extra.values()))
        kwargs = {k: v for k, v in kwargs.items() if k in named}
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
