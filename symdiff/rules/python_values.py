"""Python's own values and calls: shapes, lengths, conversions, the calls a
function makes for what they do (print, logging), and the checks generated
code makes of its inputs. None has a derivative of its own but ``float(x)``
and the checks, whose value (and gradient) is their first operand."""
from __future__ import annotations

import numpy as np

from ..ir import patterns
from ..ir.nodes import Const
from ..ir.primitive import NEW, OTHER, SCALAR, define, like
from .derive import NPCALL_RULES

define("shape(a)", shape=NEW, zero=True, result=OTHER, attribute="shape")
# x.shape of a value known to be an array: cheaper than np.shape (loops save these)
define("array_shape(a)", ("attr", "shape"), NEW, zero=True, result=OTHER)
define("ndim(a)", shape=SCALAR, zero=True, result=OTHER, attribute="ndim")
define("size(a)", shape=SCALAR, zero=True, result=OTHER, attribute="size")
define("len(a)", ("call", "len"), SCALAR, zero=True)
define("float(a)", ("call", "float"), SCALAR, passes=True)
# int(x): a number truncated toward zero, piecewise constant (int(np.argmax(y)),
# int(x.shape[0] / 2)); an array of more than one entry raises, as in Python
define("int(a)", ("call", "int"), SCALAR, zero=True)


# any other NumPy function, for values that need no gradient (np.arange, ...)
def _made_pattern(op, facts):
    """The pattern of ``np.zeros(shape)`` and its kin, of ``np.eye(n)``,
    ``np.identity(n)``, ``np.tri(n)`` and ``np.arange(n)`` (ir/patterns.py)."""
    func = op.param("func")
    if func == "arange" and op.args:  # (np.arange(len(x)): a vector of x's length)
        numbers = [a.value for a in op.args if isinstance(a, Const) and
                   type(a.value) in (int, float)]
        found = range_of(*numbers) if len(numbers) == len(op.args) else None
        if found is not None:  # (np.arange(4.0), np.arange(1, 10, 2): known lengths)
            return (1 if len(found) == 1 else patterns.N,)
        return (facts.length(op.args[0]),) if len(op.args) == 1 else (None,)
    if func == "linspace" and len(op.args) in (2, 3):  # (np.linspace(0, 1, n): n entries)
        num = op.args[2] if len(op.args) == 3 else \
            Const(dict(op.param("kwargs") or ()).get("num", 50))
        return (facts.length(num),) if not dict(op.param("kwargs") or ()).get("axis") \
            else None
    if func in ("eye", "identity", "tri") and op.args:
        n = facts.length(op.args[0])
        columns = dict(op.param("kwargs") or ()).get("M")
        if len(op.args) > 1:
            return (n, facts.length(op.args[1]))
        return (n, n) if columns is None else (n, facts.length(Const(columns)))
    if func not in ("zeros", "ones", "empty", "full") or not op.args:
        return None
    return _shape_pattern(facts, op.args[0])


def range_of(*numbers):
    """NumPy's np.arange of numbers (its length is all that is read), or None."""
    try:
        return np.arange(*numbers)
    except (ValueError, ZeroDivisionError, TypeError):
        return None


def _shape_pattern(facts, shape):
    """The pattern of an array of shape ``shape``: a tuple of lengths, an int,
    ``x.shape``, or tuples joined by ``+``; None where that is not known (a
    value whose rank is not known is never taken for one length)."""
    found = _tuple_pattern(facts, shape, 4)
    if found is not None:
        return found
    if isinstance(shape, Const) and isinstance(shape.value, int) or facts.dtype(shape) is int:
        return (facts.length(shape),)  # (one length, `len(x) + 2` included)
    return None


def _tuple_pattern(facts, shape, depth):
    """The pattern of a shape that is a tuple (of lengths, ``x.shape``, or
    tuples joined by ``+``); None for anything else, an int's sum included."""
    made = facts.producer(shape)
    if made is not None and made.prim == "tuple":
        return tuple(facts.length(n) for n in made.args)
    if made is not None and made.prim in ("shape", "array_shape"):
        return facts.pattern(made.args[0])
    if made is not None and made.prim == "add" and depth:
        parts = [_tuple_pattern(facts, a, depth - 1) for a in made.args]
        return None if None in parts else parts[0] + parts[1]
    if isinstance(shape, Const) and isinstance(shape.value, tuple):
        return tuple(facts.length(Const(n)) for n in shape.value)
    return None


define("npcall(*args; func='', kwargs=())", ("npcall",), NEW, pattern=_made_pattern)


def _full_rule(r, op, g):
    """np.full(shape, v): v spread over the shape; its gradient, g summed back."""
    grads = [None] * len(op.args)
    if len(op.args) > 1 and r.wants(op.args[1]):
        grads[1] = r.unbroadcast(g, op.args[1])
    return grads


def _full_tangent(b, op, dargs):
    if len(dargs) < 2 or dargs[1] is None:
        return None
    return b.op("npcall", op.args[0], dargs[1], *op.args[2:], func="full",
                kwargs=op.param("kwargs"))


NPCALL_RULES["full"] = (_full_rule, _full_tangent)
MADE = ("zeros", "ones", "empty", "full")  # npcall's functions whose dtype ir/shapes.py knows

# print(...), log.info(...), warnings.warn(...): kept as the user wrote them, in
# the forward pass only; ``callee`` is how generated code names the function.
# str(x), repr(x) and the '...'.format(x) an f-string becomes are pure.
# What they read is a stop_gradient value: no derivative to take.
define("effect_call(*args; callee='')", ("call_callee",), NEW, zero=True, effect=True)
define("pure_call(*args; callee='')", ("call_callee",), NEW, zero=True)

# The checks of generated code (runtime/checks.py): an error at the user's
# line for bad input, else the first operand. Kept even when nothing reads them.
define("require_scalar(a, *more; message='')", ("helper", "_require_scalar"), SCALAR,
       passes=True, effect=True)
define("require_float(a, *more; message='', messages=())", ("helper", "_require_float"),
       like(0), passes=True, effect=True)
define("scalar_predicate(a; message='')", ("helper", "_scalar_predicate"), SCALAR, zero=True)
