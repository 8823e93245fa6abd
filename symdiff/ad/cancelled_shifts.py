"""Shifts that cancel: ``t = x - m`` whose shift ``m`` has exactly no gradient.

A stable softmax subtracts ``m = max(x, axis, keepdims=True)`` and later
cancels it: ``t - log(sum(exp(t), axis, keepdims=True))`` and
``exp(t) / sum(exp(t), axis, keepdims=True)`` do not change when ``t`` moves
by any ``c`` constant along ``axis``. When every output is provably such a
function of ``t``, the gradient ``t`` sends to ``m`` (``-sum(t_bar, axis)``)
is exactly zero in exact arithmetic, and only rounding noise in floating
point: it is not computed (JAX's logsumexp stops the max's gradient for the
same reason). The proof follows each value computed from ``t`` as one of

- ``COV``: moves with ``t`` (``v + c``),
- ``EXP``: scales with ``exp(t)`` (``v * exp(c)``),
- ``INV``: does not change;

anything else (``2 * t``, ``-t``, a sum over another axis, a branch, a loop,
a custom gradient) ends the proof for that ``t``, which then keeps its rule.
"""
from __future__ import annotations

from ..ir.nodes import Op, Var, flatten

COV, EXP, INV = "cov", "exp", "inv"

_REDUCE = {"max": COV, "min": COV, "sum": EXP}  # (keepdims, along the axis)


def shift_free(body, outputs, facts):
    """The targets of the subtractions ``t = x - m`` in ``body`` (top level)
    whose operand ``m`` gets no gradient from ``t``: ``outputs`` do not change
    when ``t`` moves along the axis ``m`` reduced."""
    found = set()
    for i, op in enumerate(body):
        if isinstance(op, Op) and op.prim == "subtract" and _cancels(body, i, outputs, facts):
            found.add(op.target)
    return found


def _cancels(body, start, outputs, facts):
    op = body[start]
    x, m = op.args
    reduced = facts.reduced_axis(x, m)
    if not isinstance(x, Var) or reduced is None or op.override \
            or not facts.same_shape(op.target, x):
        return False
    layouts = (facts.key(op.target), facts.key(m))  # t's shape, and a reduction's
    kinds = {op.target: COV}
    for stmt in body[start + 1:]:
        if not isinstance(stmt, Op):
            return False  # (a branch or a loop: not followed)
        if not any(isinstance(a, Var) and a in kinds for a in stmt.args):
            continue
        kind = _kind(stmt, kinds, facts, reduced[0], layouts)
        if kind is None:
            return False
        kinds[stmt.target] = kind
    return all(kinds.get(v, INV) == INV for v in flatten(outputs) if isinstance(v, Var))


def _kind(op, kinds, facts, axis, layouts):
    """What ``op`` computes from ``t``, or None if that is not known."""
    args = [kinds.get(a) if isinstance(a, Var) else None for a in op.args]  # None: not on t
    if op.prim in _SHAPES:
        return INV
    if op.override or facts.key(op.target) not in layouts and set(args) - {INV, None}:
        return None
    if all(k in (INV, None) for k in args):
        return INV if op.prim not in _OPAQUE else None
    if op.prim in _REDUCE and op.param("axis") == axis and op.param("keepdims"):
        return _REDUCE[op.prim] if args[0] == _REDUCE[op.prim] else None
    if len(args) == 1:
        return {("exp", COV): EXP, ("log", EXP): COV}.get((op.prim, args[0]))
    return _BINARY.get((op.prim,) + tuple(args))


# (prim, kind of the first operand, of the second) -> kind of the result
_BINARY = {
    ("add", COV, None): COV, ("add", None, COV): COV, ("subtract", COV, None): COV,
    ("subtract", COV, COV): INV, ("add", EXP, EXP): EXP, ("subtract", EXP, EXP): EXP,
    ("multiply", EXP, None): EXP, ("multiply", None, EXP): EXP,
    ("divide", EXP, None): EXP, ("divide", EXP, EXP): INV,
}

_SHAPES = {"shape", "ndim", "size", "len"}  # of any value: its values do not matter

# Operations whose derivative is not their function's: an invariant value that
# passes through them may still send gradient back.
_OPAQUE = {"straight_through", "backward_as", "custom_value", "apply_rule",
           "pass_gradient"}


# ---- a shift added back: m + log(sum(exp(a - m[:, None]), axis)) -----------------------------
def silent_shifts(body, outputs, facts):
    """The values of ``body`` (top level) that get no gradient at all: a
    reduction ``m = max(x, axis)`` (or ``min``), and the layouts of it
    (``m[:, None]``), when ``outputs`` do not change as ``m`` moves along the
    axis, however it is used (``m + log(sum(exp(x - m[:, None]), axis))``:
    ``d out / d m = 1 - 1``). Proved as above, a kind now carrying the
    coefficient of the move (``x - m`` moves by -1 times it, ``m`` by +1)."""
    found = set()
    for i, op in enumerate(body):
        if isinstance(op, Op) and op.prim in ("max", "min") \
                and (isinstance(op.param("axis"), int) or op.param("axis") is None):
            forms = _free_shift(body, i, outputs, facts)
            if forms:
                found |= forms
    return found


def _free_shift(body, start, outputs, facts):
    op = body[start]
    rank, axis = facts.rank(op.args[0]), op.param("axis")
    if rank is not None and axis is not None:
        axis %= rank
    elif rank is None and axis is not None and axis < 0:
        return None  # (counted from the end of axes not known)
    full, reduced, kept = facts.key(op.args[0]), facts.key(op.target), op.param("keepdims")
    kinds = {op.target: (COV, 1)}
    forms = {op.target}  # the shift and its layouts: they get no gradient
    layout = {op.target: "wide" if kept else "reduced"}  # (keepdims: laid out already)
    for stmt in body[start + 1:]:
        if not isinstance(stmt, Op):
            if _reads(stmt, kinds):
                return None
            continue
        if not any(isinstance(a, Var) and a in kinds for a in stmt.args):
            continue
        made = _moved(stmt, kinds, layout, axis, rank, facts, (full, reduced, bool(kept)))
        if made is None:
            return None
        kinds[stmt.target], layout[stmt.target] = made
        if all(not isinstance(a, Var) or a in forms for a in stmt.args) and \
                made[1] == "wide":
            forms.add(stmt.target)  # m[:, None]: the shift laid out along the axis
    if any(kinds.get(v, (INV, 0))[1] != 0 for v in flatten(outputs) if isinstance(v, Var)):
        return None
    return forms


def _reads(stmt, kinds):
    """Whether ``stmt`` reads a value of ``kinds``: itself, in the blocks it
    holds, or in the values an ``if`` joins."""
    from ..ir.nodes import If, blocks, uses, walk
    inner = [s for block in blocks(stmt) for s in walk(block)]
    joined = [a for m in stmt.merges for a in (m.then, m.orelse)] if isinstance(stmt, If) \
        else []
    return any(isinstance(a, Var) and a in kinds
               for a in [*uses(stmt), *joined, *(a for s in inner for a in uses(s))])


def _moved(op, kinds, layout, axis, rank, facts, layouts):
    """(kind, layout) of ``op``'s result as the shift moves: kind is (COV, k)
    (moves by k times the move), (EXP, k) (scales by exp(k times it)) or
    (INV, 0); layout "full", "reduced" or "wide" (reduced, the axis kept as
    length one: it broadcasts along the axis). None if not known."""
    args = [kinds.get(a) if isinstance(a, Var) else None for a in op.args]
    if op.prim in _SHAPES:
        return (INV, 0), "full"
    if op.override or op.prim in _OPAQUE:
        return None
    moving = [k for k in args if k is not None and k[1] != 0]
    if op.prim == "getitem":
        index = [getattr(p, "value", p) for p in op.args[1:]]
        spread = [slice(None)] * axis + [None] if axis is not None else None
        if spread is not None and layout.get(op.args[0]) == "reduced" and \
                _same_index(index, spread, axis, rank):
            return args[0], "wide"
        return ((INV, 0), "full") if not moving else None
    if op.prim == "expand_dims":
        if axis is not None and layout.get(op.args[0]) == "reduced" and \
                op.param("axis") in (axis, axis - rank if rank is not None else axis):
            return args[0], "wide"
        return ((INV, 0), "full") if not moving else None
    if op.prim in ("sum", "max", "min", "mean") and \
            (op.param("axis") is not None or axis is None):
        over = op.param("axis")
        if isinstance(over, int) and (rank is not None or over < 0):
            over = over % rank if rank is not None else "unknown"
        source = layout.get(op.args[0])
        if over != axis or source != "full":
            return ((INV, 0), "full") if not moving else None
        kind = args[0]
        if op.prim == "sum" and kind[0] not in (EXP, INV) or \
                op.prim in ("max", "min") and kind[0] not in (COV, INV):
            return None
        return kind, "wide" if op.param("keepdims") else "reduced"
    if facts.key(op.target) not in layouts[:2]:
        return None if moving else ((INV, 0), "full")
    out = ("wide" if layouts[2] else "reduced") if facts.key(op.target) == layouts[1] \
        else "full"
    spreads = ("wide", "reduced") if axis is None else ("wide",)  # (a scalar spreads)
    for a, k in zip(op.args, args):  # a moving operand lays out the result's way
        if k is not None and k[1] != 0 and layout.get(a) != out and \
                not (out == "full" and layout.get(a) in spreads):
            return None
    kind = _combine(op.prim, [k if k is not None else (INV, 0) for k in args])
    return (kind, out) if kind is not None else None


def _same_index(index, spread, axis, rank):
    """``index`` is ``[:, None]`` for ``axis`` (a new length-one axis there)."""
    if index == spread:
        return True
    return rank is not None and axis == rank - 1 and \
        index in ([Ellipsis, None], [slice(None)] * axis + [None])


def _combine(prim, kinds):
    """The kind of an elementwise ``prim`` of operands of ``kinds``."""
    moving = [k for k in kinds if k[1] != 0]
    if not moving:
        return (INV, 0)
    if prim in ("add", "subtract") and len(kinds) == 2:
        sign = -1 if prim == "subtract" else 1
        (a, ka), (b, kb) = kinds
        if {a, b} <= {COV, INV}:
            k = ka + sign * kb
            return (COV, k) if k else (INV, 0)
        if a == b == EXP and ka == kb:
            return (EXP, ka)
        return None
    if prim == "negative" and moving[0][0] == COV:
        return (COV, -moving[0][1])
    if prim in ("multiply", "divide") and len(kinds) == 2 and \
            all(k[0] in (EXP, INV) for k in kinds):
        (_, ka), (_, kb) = kinds
        k = ka + (kb if prim == "multiply" else -kb)
        return (EXP, k) if k else (INV, 0)
    if prim == "exp" and moving[0][0] == COV:
        return (EXP, moving[0][1])
    if prim == "log" and moving[0][0] == EXP:
        return (COV, moving[0][1])
    return None
