"""scipy.stats distributions in user code: ``norm.logpdf(x, mu, s)``, frozen
ones (``norm(mu, s).logpdf(x)``, ``dist = norm(mu, s)`` then
``dist.logpdf(x)``, a module-level ``prior = norm(0, 1)``), with ``loc`` and
``scale`` by position or keyword.

Each method with a record (rules/stats.py) becomes one operation over the
quantile, the shape parameters, loc and scale, in SciPy's order, so
generated code reads ``scipy.stats.norm.logpdf(x, mu, s)`` whichever way the
call was spelled. A method without a record (``norm.entropy``) is a value
(an opaque call), refused only where a gradient reaches it.
"""
from __future__ import annotations

import inspect
import sys
from dataclasses import dataclass

from ..errors import UnsupportedSyntaxError
from ..ir.nodes import Const, FreeVar
from ..ir.primitive import TABLE
from .compile_time import from_python
from .opaque_calls import opaque_call

# what SciPy's methods take when loc, scale or mean is left out
_DEFAULTS = {"loc": 0.0, "scale": 1.0, "mean": None}
# distributions without a ``name`` of their own (SciPy's multivariate ones)
_UNNAMED = ("multivariate_normal", "dirichlet")


@dataclass(frozen=True)
class Frozen:
    """``norm(mu, s)``: a distribution with some arguments given, known while
    compiling (the arguments are values of the function)."""

    dist: object
    args: tuple
    kwargs: tuple   # ((name, value), ...)


def distribution_name(obj):
    """``"norm"`` for scipy.stats.norm; None for anything else."""
    stats = sys.modules.get("scipy.stats")
    if stats is None or isinstance(obj, type):
        return None
    name = getattr(obj, "name", None)
    for candidate in (name,) if isinstance(name, str) else _UNNAMED:
        if type(getattr(stats, candidate, None)) is type(obj):  # (frozen ones hold a copy)
            return candidate
    return None


def handles(obj):
    """A distribution (called: frozen) or one of its methods (a density...)."""
    if inspect.ismethod(obj):
        return distribution_name(obj.__self__) is not None
    return distribution_name(obj) is not None


def lower(lw, obj, args, kwargs, node):
    if inspect.ismethod(obj):
        return method_call(lw, Frozen(obj.__self__, (), ()), obj.__name__, args, kwargs,
                           node)
    return Frozen(obj, tuple(args), tuple(kwargs.items()))


def frozen_value(lw, value):
    """A module-level frozen distribution (``prior = norm(0, 1)``) as a
    `Frozen`, or None: its arguments are constants or globals."""
    obj = getattr(value, "value", None) if isinstance(value, FreeVar) else None
    dist = getattr(obj, "dist", None) or getattr(obj, "_dist", None)
    name = distribution_name(dist) if dist is not None else None
    if name is None:
        return None
    if name in _UNNAMED:  # their frozen objects keep the parameters by name
        given = {"multivariate_normal": ("mean", "cov"), "dirichlet": ("alpha",)}[name]
        args, kwargs = (), {k: getattr(obj, k) for k in given}
    else:
        args, kwargs = obj.args, obj.kwds

    def known(name, given):
        return lw.b.free_var(from_python(name, given))
    return Frozen(dist, tuple(known(f"{value.hint}_arg", a) for a in args),
                  tuple((k, known(f"{value.hint}_{k}", v)) for k, v in kwargs.items()))


def method_call(lw, frozen, name, args, kwargs, node):
    """``frozen.name(*args, **kwargs)``: the method's record, or a value."""
    dist = frozen.dist
    record = TABLE.get(f"{distribution_name(dist)}_{name}")
    args = list(args) + list(frozen.args)
    given = dict(frozen.kwargs)
    for key, value in kwargs.items():
        if key in given:
            raise lw.error(UnsupportedSyntaxError, node,
                           f"`{key}` is given twice: to the distribution and to `.{name}()`",
                           f"give `{key}` once")
        given[key] = value
    if record is None or getattr(record, "spelling", ("",))[0] != "module":
        return opaque_call(lw, getattr(dist, name), args, given, node)
    return lw.b.op(record.name, *_operands(lw, record, dist, name, args, given, node))


def _operands(lw, record, dist, name, args, given, node):
    """The call's arguments in the record's order, loc and scale defaulted."""
    operands = []
    for operand in record.operands:
        if args:
            value = args.pop(0)
        elif operand in given:
            value = given.pop(operand)
        elif operand in _DEFAULTS:
            value = Const(_DEFAULTS[operand])
        else:
            raise lw.error(UnsupportedSyntaxError, node,
                           f"`{_spelled(dist, name)}` needs the argument `{operand}`",
                           f"call it as {_spelled(dist, name)}"
                           f"({', '.join(record.operands)})")
        operands.append(lw.atom(value, node))
    if args or given:
        extra = ", ".join(list(given) or [f"argument {len(record.operands) + 1}"])
        raise lw.error(UnsupportedSyntaxError, node,
                       f"`{_spelled(dist, name)}` does not take {extra}",
                       f"call it as {_spelled(dist, name)}({', '.join(record.operands)})")
    return operands


def _spelled(dist, name):
    return f"scipy.stats.{distribution_name(dist)}.{name}"


def is_frozen(value):
    return isinstance(value, Frozen)


def frozen_method_call(lw, frozen, node):
    """``dist.logpdf(x)`` with ``dist`` frozen."""
    args = [lw.expr(a) for a in node.args]
    kwargs = {k.arg: lw.expr(k.value) for k in node.keywords}
    return method_call(lw, frozen, node.func.attr, args, kwargs, node)
