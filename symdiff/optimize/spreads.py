"""A reduction's gradient, spread by broadcasting rather than by an array.

The gradient of ``np.sum(x, axis=1)`` with respect to ``x`` is the upstream
gradient ``g`` repeated along axis 1: ``_unreduce(g, x, axis=1)`` makes it as
an array (``np.full_like(x, g)`` for a whole sum). Where it is only read by
elementwise arithmetic with another value of ``x``'s shape, broadcasting does
the repeating: ``exp_t * g[:, None]``, and neither the array of repeated
values nor the forward value read for its shape is made. (``full_like(t, c)``
with ``t = Y * log_probs`` computed ``Y * log_probs`` only to shape a seed.)

A specialised gradient knows dtypes too (ir/shapes.py): the rewrite is made
only where it keeps the dtype of the result, and a spread that is still made
takes its shape from the cheapest value of the same shape and dtype (``x``,
not ``x * 2.0``).
"""
from __future__ import annotations

from types import SimpleNamespace

from ..ir import patterns as pat
from ..ir.indexing import index_pattern
from ..ir.nodes import Const, Var
from ..ir.shapes import is_elementwise, is_numpy_value


def fold_any(b, prim, args, params):
    """The folds for operations of every primitive, before their own."""
    if prim == "unreduce":
        c = b.facts.spread_number(args[0])
        if c is not None and b.backward:  # one number spread, spread again: the number
            return b.op("unreduce", c, args[1])
        return _lighter_spread(b, args, params)
    if prim in ("unindex", "unindex_add"):
        return _number_into_place(b, prim, args, params)
    if prim in ("sum_to", "sum") and b.backward:
        return _summed_number(b, prim, args, params)
    if not b.backward or not is_elementwise(prim):
        return None
    for i, arg in enumerate(args):
        spread = b.facts.producer(arg)
        negated = spread is not None and spread.prim == "negative" and spread.backward
        if negated:  # (-full_like(x, c): -c)
            spread = b.facts.producer(spread.args[0])
        c = None if negated else _expanded_number(b, arg, args[:i] + args[i + 1:])
        if c is not None:  # (0.5 spread, then given an axis by a keepdims rule: 0.5)
            return b.op(prim, *args[:i], c, *args[i + 1:], **params)
        if spread is None or spread.prim != "unreduce":
            continue
        g, like = spread.args
        others = args[:i] + args[i + 1:]
        if not any(isinstance(a, Var) and b.facts.same_shape(a, like) for a in others) \
                and not _broadcast_fills(b.facts, spread, others) \
                and not (b.facts.is_scalar(like) and spread.param("axis") is None):
            continue
        facts = b.facts
        if facts.signature and isinstance(facts.dtype(g), type) and not _equal(
                facts.promoted(others + (like,)), facts.promoted(others + (g,))):
            continue  # (a Python float g would not have like's float32, say)
        small = _whole_value(b, g)
        if small is None:
            small = _compact(b, g, spread.param("axis"), spread.param("keepdims"))
        small = b.neg(small) if negated else small
        return b.op(prim, *args[:i], small, *args[i + 1:], **params)
    return None


def _number_into_place(b, prim, args, params):
    """``_unindex(full_like(x[i], c), x, i)`` writes c into the place of
    ``x[i]``: ``x_bar[i] = c`` broadcasts it there, with no array of it
    (``np.add.at(x_bar, i, -c)`` for ``-full_like(x[i], c)``)."""
    g, like, *index = args
    made = b.facts.producer(g)
    negated = made is not None and made.prim == "negative"
    spread = b.facts.producer(made.args[0]) if negated else made
    c = _whole_value(b, spread.target) if spread is not None else None
    if c is None or not _fills_place(b.facts, spread.args[1], like, index):
        return None
    facts = b.facts
    if facts.signature and not _equal(facts.promoted((like, c)), facts.dtype(like)):
        return None  # (a Python float would not have like's float32, say)
    return b.op(prim, b.neg(c) if negated else c, like, *index, **params)


def _fills_place(facts, spread_like, like, index):
    """Whether a value of ``spread_like``'s shape has the shape of ``like[index]``:
    it is that value, or the patterns of both name every axis alike."""
    slot = facts.producer(spread_like)
    if slot is not None and slot.prim == "getitem" and slot.args[0] is like and \
            tuple(slot.args[1:]) == tuple(index):
        return True
    place = index_pattern(facts, SimpleNamespace(args=(like, *index)))
    return place is not None and place == facts.pattern(spread_like) and \
        all(n == 1 or pat.is_named(n) for n in place)


def _summed_number(b, prim, args, params):
    """A number c spread over ``like``, summed to a number: ``c * like.size``
    (``np.full_like(y, -1.0).sum()`` is ``-y.size``), with no array of it;
    of its negation, ``-c * like.size``."""
    negated = b.facts.producer(args[0])
    if negated is not None and negated.prim == "negative" and negated.backward:
        if _whole_value(b, negated.args[0]) is not None:
            made = _summed_number(b, prim, (negated.args[0],) + tuple(args[1:]), params)
            return b.neg(made) if made is not None else None
        if prim == "sum" and params.get("axis") is None and not params.get("keepdims"):
            # (-t).sum() is -(t.sum()), to the bit: one negation, not one per entry
            return b.neg(b.op("sum", negated.args[0], **params))
    c = _whole_value(b, args[0])
    if c is None or not (prim == "sum_to" and b.facts.is_scalar(args[1]) or
                         prim == "sum" and params.get("axis") is None and
                         not params.get("keepdims")):
        return None
    facts = b.facts
    like = facts.producer(args[0]).args[1]
    if facts.signature and not (facts.dtype(c) is float and facts.is_float(like)
                                and getattr(facts.dtype(like), "name", "") == "float64"):
        return None  # (a number of another precision: its sum keeps the array's)
    mean = facts.producer(c)
    size = facts.producer(mean.args[1]) if mean is not None and mean.prim == "divide" else None
    if size is not None and size.prim == "size" and facts.same_shape(size.args[0], like) \
            and facts.dtype(mean.args[0]) is float:
        return mean.args[0]  # a mean's seed k / n spread over n entries: k
    return b.mul(c, b.op("size", like))


def _expanded_number(b, arg, others):
    """The number c where ``arg`` is c spread over an array and then given new
    axes (``np.expand_dims(np.full_like(t, c), 1)``, ``[:, None]``) and ``others`` broadcast
    to the shape without it, of the same dtype: then c does as well."""
    facts = b.facts
    made = facts.producer(arg) if isinstance(arg, Var) else None
    if made is None or not others or made.prim not in ("expand_dims", "getitem") or \
            made.prim == "getitem" and not all(
                isinstance(i, Const) and (i.value is None or i.value == slice(None))
                for i in made.args[1:]):
        return None
    c = facts.spread_number(made.args[0])
    if c is None or not isinstance(facts.dtype(c), (type, type(None))):
        return None
    wanted = pat.broadcast([facts.pattern(a) for a in others])
    if wanted is None or wanted is pat.CONFLICT or \
            pat.broadcast([wanted, facts.pattern(arg)]) != wanted:
        return None
    like = facts.producer(made.args[0]).args[1]
    if facts.signature and not _equal(facts.promoted(others + (like,)),
                                      facts.promoted(others + (c,))):
        return None
    return c


def _broadcast_fills(facts, spread, others):
    """Whether ``g`` with the reduced axes of length one, broadcast against
    ``others``, has the shape of ``like`` (by the patterns of a specialised
    gradient: ``dens_bar / norms`` with g of (N,) and norms of (K,) is (N, K))."""
    like = facts.pattern(spread.args[1])
    if like is None or not all(entry == 1 or pat.is_named(entry) for entry in like):
        return False
    compact = pat.reduced(like, spread.param("axis"), keepdims=True)
    made = pat.broadcast([compact] + [facts.pattern(a) for a in others])
    return made == like


def _whole_value(b, g):
    """The number ``c`` where ``g`` is itself ``c`` spread over an array
    (``np.full_like(t, c)``, a mean's gradient): broadcast against a value of
    the shape wanted, the number is the same."""
    c = b.facts.spread_number(g)
    return c if isinstance(b.facts.dtype(c), (type, type(None))) else None


def _equal(a, b):
    if a is None or b is None or isinstance(a, type) or isinstance(b, type):
        return a is b and a is not None
    return a == b


def _compact(b, g, axis, keepdims):
    """``g`` with the reduced axes back as axes of length one."""
    if axis is None or keepdims or b.facts.is_scalar(g):
        return g
    numpy = is_numpy_value(g, b.facts.defs) or b.facts.dtype(g) is not None and \
        not isinstance(b.facts.dtype(g), type)
    if isinstance(axis, int) and numpy:  # (a Python float has no [:, None])
        index = [Const(slice(None))] * axis + [Const(None)] if axis >= 0 else \
            [Const(Ellipsis), Const(None)] + [Const(slice(None))] * (-axis - 1)
        return b.op("getitem", g, *index, hint=getattr(g, "hint", None))
    return b.op("expand_dims", g, axis=axis, hint=getattr(g, "hint", None))


def shape_source(b, value, also=None):
    """The value to read ``value``'s shape (or size, or dtype) from, of those
    `Facts.same_shaped` finds: an argument (one the user never reassigns),
    else a value with the user's name, else the nearest. A shape read from a
    temporary would give it a line, and a name, of its own."""
    args = {p.hint: p for p in b.param_locs}
    reassigned = {v.hint for v in b.named if args.get(v.hint) not in (None, v)}

    def rank(v):
        argument = v in b.param_locs and v.hint not in reassigned
        return (not argument, v not in b.named)
    found = b.facts.same_shaped(value, also)
    best = min(found, key=rank)
    if rank(best) == (True, True):  # (no better name: as far back as first operands go)
        ids = {id(v) for v in found}
        while best is not None:
            value, made = best, b.facts.producer(best)
            best = next((a for a in made.args if id(a) in ids and a is not value), None) \
                if made is not None and is_elementwise(made.prim) else None
        best = value
    return best


def _lighter_spread(b, args, params):
    """``_unreduce(g, like)`` with ``like`` an operand of the elementwise
    operation that made it, of the same shape and dtype (its shape is all that
    is read; a specialised gradient knows dtypes)."""
    g, like = args
    facts = b.facts
    if not facts.signature or facts.dtype(like) is None:
        return None
    found = shape_source(b, like, lambda a, v: facts.dtype(a) is not None
                         and facts.same_dtype(a, v) and facts.same_dtype(v, a))
    if found is like:
        return None
    return b.op("unreduce", g, found, **params)
