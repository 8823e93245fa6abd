"""Arithmetic computed into the array it is written to, one operation at a time.

``np.subtract(-2.0 * (1.0 - x_head), 400.0 * (x_head * t), out=x_bar[:-1])``
makes two temporaries the size of ``x``. Computed into its destination, as
a careful hand-written gradient does::

    np.subtract(1.0, x_head, out=x_bar[:-1])
    x_bar[:-1] *= -2.0
    x_bar[:-1] -= 400.0 * (x_head * t)

one fewer: at 10^6 entries the allocation and first touch of a temporary
cost as much as the arithmetic. The operations are the same, on the same
operands (a product or sum with its operands swapped is the same number), so
the result is the same to the bit. Only where a specialised gradient knows
that every step has the destination's shape and dtype: an in-place
operation must neither broadcast its destination nor change its dtype.
"""
from __future__ import annotations

import ast

from ..ir.nodes import Var

_UFUNCS = {"add": "add", "subtract": "subtract", "multiply": "multiply", "divide": "divide"}
_AUGMENTED = {"add": ast.Add, "subtract": ast.Sub, "multiply": ast.Mult, "divide": ast.Div}
_COMMUTE = frozenset({"add", "multiply"})


def computed_into(emitter, value, spot, then=None):
    """Lines computing ``value`` (an inlined elementwise expression) into the
    array ``spot`` (an AST) in place, then ``spot op= operand`` for ``then``
    = (prim, operand AST), if given; None where that is not known safe."""
    facts = emitter.facts
    if facts is None or emitter.plain or value not in emitter.inlined:
        return None
    steps, current = [], value
    while True:
        op = emitter.inlined.get(current)
        if op is None or op.prim not in _UFUNCS or len(op.args) != 2 \
                or not _keeps(facts, op.target, value):
            return None if current is value else _lines(emitter, steps, current, spot, then)
        inner = _inner(emitter, op, value)
        if inner is None:
            return _lines(emitter, steps, current, spot, then) if steps or then else None
        steps.append((op.prim, op.args[1 - inner], inner))
        current = op.args[inner]


def summed_into(emitter, a, b, spot, written):
    """``a + b`` (written ``written``: ``a - c`` where b is ``-c``) computed
    into ``spot``: ``a`` there, then ``spot += b``."""
    facts = emitter.facts
    if facts is None or not isinstance(written, ast.BinOp) or not isinstance(b, Var) \
            or not (facts.is_scalar(b) or facts.same_shape(b, a)) \
            or facts.promoted((a, b)) != facts.dtype(a):
        return None
    prim = "subtract" if isinstance(written.op, ast.Sub) else "add"
    return computed_into(emitter, a, spot, (prim, written.right))


def _inner(emitter, op, value):
    """Which operand of ``op`` to compute into the destination first: an
    inlined operation of the destination's shape and dtype, the other operand
    a number or of that shape too (so the step broadcasts nothing)."""
    facts = emitter.facts
    for k in (0, 1):
        arg, other = op.args[k], op.args[1 - k]
        made = emitter.inlined.get(arg) if isinstance(arg, Var) else None
        if made is None or made.prim not in _UFUNCS or not _keeps(facts, arg, value):
            continue
        if facts.is_scalar(other) or isinstance(other, Var) and facts.same_shape(other, value):
            return k
    return None


def _keeps(facts, atom, value):
    """Whether ``atom`` has the shape and dtype of ``value`` (known)."""
    found, wanted = facts.dtype(atom), facts.dtype(value)
    return facts.same_shape(atom, value) and wanted is not None \
        and not isinstance(wanted, type) and found == wanted


def _lines(emitter, steps, base, spot, then=None):
    op = emitter.inlined[base]
    np_ = emitter.np
    lines = [ast.unparse(_call(np_, _UFUNCS[op.prim], [emitter.atom(a) for a in op.args], spot))]
    steps = list(reversed(steps)) + ([(then[0], then[1], 0)] if then else [])
    for prim, other, position in steps:
        operand = emitter.atom(other) if not isinstance(other, ast.AST) else other
        if position == 0 or prim in _COMMUTE:  # spot op= other
            lines.append(ast.unparse(ast.AugAssign(_store(spot), _AUGMENTED[prim](), operand)))
        else:  # other - spot, other / spot: into spot
            lines.append(ast.unparse(_call(np_, _UFUNCS[prim], [operand, spot], spot)))
    return lines


def _call(np_, ufunc, args, spot):
    return ast.Call(ast.Attribute(ast.Name(np_, ast.Load()), ufunc, ast.Load()), args,
                    [ast.keyword("out", spot)])


def _store(spot):
    target = ast.parse(ast.unparse(spot), mode="eval").body
    target.ctx = ast.Store()
    return target
