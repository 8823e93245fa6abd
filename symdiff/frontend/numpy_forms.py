"""NumPy functions written as other primitives, where their argument forms
need it: np.split and its family return a list (one `split_part` per
piece), np.select is a chain of `where`s (so it keeps where's guarantees:
no NaN from a choice not taken), np.average is sums (its weights laid
along an axis by `_weights_along`), and np.bincount's weights are added
into their bins."""
from __future__ import annotations

import numpy as np

from ..errors import UnsupportedSyntaxError
from ..ir.nodes import Const
from ..ir.patterns import is_named
from .arguments import static_value
from .compile_time import Tup

_MISSING = object()


def _bind(lw, name, params, args, kwargs, node):
    """Python's binding of ``args`` and ``kwargs`` to ``params`` ((name,
    default) pairs, _MISSING where required), with a located error."""
    if len(args) > len(params) or set(kwargs) - {p for p, _ in params}:
        raise lw.error(UnsupportedSyntaxError, node, f"`np.{name}` does not take these arguments",
                       f"call it as np.{name}({', '.join(p for p, _ in params)})")
    bound = {}
    for i, (param, default) in enumerate(params):
        value = args[i] if i < len(args) else kwargs.get(param, default)
        if value is _MISSING:
            raise lw.error(UnsupportedSyntaxError, node, f"`np.{name}` needs `{param}`",
                           f"call it as np.{name}({', '.join(p for p, _ in params)})")
        bound[param] = value
    return bound


def _split(how):
    takes_axis = how in ("split", "array_split")

    def lower(lw, args, kwargs, node):
        params = [("ary", _MISSING), ("indices_or_sections", _MISSING)]
        bound = _bind(lw, how, params + [("axis", Const(0))] * takes_axis, args, kwargs, node)
        sections = static_value(lw, bound["indices_or_sections"], "indices_or_sections", how,
                                node)
        axis = static_value(lw, bound["axis"], "axis", how, node) if takes_axis else 0
        count = len(sections) + 1 if isinstance(sections, tuple) else sections
        if not isinstance(count, int) or count < 1:
            raise lw.error(UnsupportedSyntaxError, node,
                           f"`np.{how}` needs a positive number of sections or a list of "
                           "indices", "write the number of pieces, or where to cut, as constants")
        x = lw.atom(bound["ary"], node)
        return Tup(tuple(lw.b.op("split_part", x, index=i, sections=sections, axis=axis,
                                 how=how, hint=f"{x.hint}_{i}") for i in range(count)))
    return lower


def _select(lw, args, kwargs, node):
    """np.select(conditions, choices, default): the first choice whose
    condition holds, as np.where(c0, a0, np.where(c1, a1, default))."""
    params = [("condlist", _MISSING), ("choicelist", _MISSING), ("default", Const(0))]
    bound = _bind(lw, "select", params, args, kwargs, node)
    conditions, choices = bound["condlist"], bound["choicelist"]
    if not isinstance(conditions, Tup) or not isinstance(choices, Tup) or \
            len(conditions.items) != len(choices.items) or not conditions.items:
        raise lw.error(UnsupportedSyntaxError, node,
                       "`np.select` needs two lists of the same length, conditions and choices",
                       "write them as lists: np.select([x < 0, x > 1], [a, b], default)")
    result = lw.atom(bound["default"], node)
    for condition, choice in reversed(list(zip(conditions.items, choices.items))):
        result = lw.b.op("where", lw.atom(condition, node), lw.atom(choice, node), result)
    return result


def _average(lw, args, kwargs, node):
    """np.average: the mean, or sum(a * w) / sum(w) with the weights laid as
    NumPy lays them; with ``returned``, the sum of the weights too."""
    params = [("a", _MISSING), ("axis", Const(None)), ("weights", Const(None)),
              ("returned", Const(False)), ("keepdims", Const(False))]
    bound = _bind(lw, "average", params, args, kwargs, node)
    a = lw.atom(bound["a"], node)
    axis = static_value(lw, bound["axis"], "axis", "average", node)
    keep = static_value(lw, bound["keepdims"], "keepdims", "average", node)
    over = {k: v for k, v in (("axis", axis), ("keepdims", bool(keep) or None))
            if v is not None}
    weights = bound["weights"]
    if isinstance(weights, Const) and weights.value is None:
        average = lw.b.op("mean", a, **over, hint="average")
        total = lw.b.div(lw.b.op("size", a), lw.b.op("size", average))
    else:
        along = {"axis": axis} if axis is not None else {}
        laid = lw.atom(weights, node)
        if not _same_pattern(lw.b.facts, laid, a):  # (else NumPy reads them as they are)
            laid = lw.b.op("weights_along", laid, a, **along)
        total = lw.b.op("sum", laid, **over, hint="total_weight")
        average = lw.b.div(lw.b.op("sum", lw.b.mul(a, laid), **over), total, hint="average")
    if not static_value(lw, bound["returned"], "returned", "average", node):
        return average
    return Tup((average, lw.b.op("broadcast_to", total, lw.b.op("shape", average))))


def _piecewise(lw, args, kwargs, node):
    """np.piecewise(x, conditions, functions): each function of x where its
    condition holds, a later condition over an earlier one, the extra
    function (or 0) elsewhere; as wheres, so a function's NaN outside its
    condition stays out (NumPy applies each to x[condition] only)."""
    params = [("x", _MISSING), ("condlist", _MISSING), ("funclist", _MISSING)]
    bound = _bind(lw, "piecewise", params, args, kwargs, node)
    x = lw.atom(bound["x"], node)
    conditions, functions = bound["condlist"], bound["funclist"]
    conditions = conditions.items if isinstance(conditions, Tup) else (conditions,)
    if not isinstance(functions, Tup) or len(functions.items) - len(conditions) not in (0, 1):
        raise lw.error(UnsupportedSyntaxError, node,
                       "`np.piecewise` needs a list of functions (or numbers), one per "
                       "condition and at most one more for elsewhere",
                       "write np.piecewise(x, [x < 0, x >= 0], [lambda v: -v, np.sqrt])")

    def value(f):
        made = f if isinstance(f, Const) else lw.call(f, [x], {}, node)
        return lw.atom(made, node)
    values = [value(f) for f in functions.items]
    result = values[-1] if len(values) > len(conditions) else Const(0.0)
    for condition, made in zip(conditions, values):
        result = lw.b.op("where", lw.atom(condition, node), made, result, hint="piecewise")
    return result


def _bincount(lw, args, kwargs, node):
    """np.bincount(x, weights, minlength): with weights, the weights added
    up at the positions ``x`` names, ``np.add.at`` into zeros of the counts'
    length (NumPy's float64 sums), so that gradients reach the weights."""
    params = [("x", _MISSING), ("weights", Const(None)), ("minlength", Const(0))]
    bound = _bind(lw, "bincount", params, args, kwargs, node)
    x, weights, minlength = (lw.atom(bound[k], node) for k in ("x", "weights", "minlength"))
    counts = lw.b.op("npcall", x, Const(None), minlength, func="bincount", kwargs=(),
                     hint="counts")
    if isinstance(weights, Const) and weights.value is None:
        return counts
    return lw.b.op("unindex_add", weights, counts, x, hint="bincount")


def _same_pattern(facts, weights, a):
    """Weights of ``a``'s shape, by the signature: every length named or one."""
    found = facts.pattern(weights)
    return found is not None and found == facts.pattern(a) and isinstance(
        facts.dtype(weights), np.dtype) and all(e == 1 or is_named(e) for e in found)


FORMS = [(getattr(np, how), _split(how)) for how in
         ("split", "array_split", "hsplit", "vsplit", "dsplit")] + \
    [(np.select, _select), (np.average, _average), (np.piecewise, _piecewise),
     (np.bincount, _bincount)]


def numpy_form(obj):
    """How to lower a call of ``obj``, if it is one of the functions above."""
    return next((lower for function, lower in FORMS if function is obj), None)
