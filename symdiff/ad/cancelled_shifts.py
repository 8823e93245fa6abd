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
        if not any(a in kinds for a in stmt.args):
            continue
        kind = _kind(stmt, kinds, facts, reduced[0], layouts)
        if kind is None:
            return False
        kinds[stmt.target] = kind
    return all(kinds.get(v, INV) == INV for v in flatten(outputs) if isinstance(v, Var))


def _kind(op, kinds, facts, axis, layouts):
    """What ``op`` computes from ``t``, or None if that is not known."""
    args = [kinds.get(a) for a in op.args]  # None: does not depend on t
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
