"""Selects between a value and a constant, written without ``np.where``.

``np.where`` takes a branch per element, which the CPU mispredicts when the
mask is irregular: about 4 ns an element, several times a multiply. The
guard masks.py puts in front of a where's branch, ``np.where(x > 0, x, 1.0)``,
selects between the value it guards and a constant under a comparison of
that value with a constant; such a select is also::

    np.fmax(x, 0.0) + np.logical_not(x_positive)

x where x > 0 (adding False adds +0.0, which changes no number but -0.0,
and -0.0 is not taken), and 0.0 + 1 = 1.0 elsewhere (``fmax`` takes the
number over NaN; ``maximum`` keeps NaN where NaN is taken, ``~(x <= 0)``).
`branch_free_selects` makes that rewrite only where the result is the same
in every bit and dtype (the constant is float, so integers still give
floats; the constant is one more than the bound, exactly), and not for
scalars, where one call beats three.

It also writes the select that masks a gradient leaving a where's branch,
``np.where(x_positive, x_safe_bar, 0.0)``, as ``x_safe_bar * x_positive``
where masks.zero_by_product proved that the same.

Neither rewrite is made for a library whose compiler fuses the gradient
(JAX): a select costs it no branch (fused_forms.py).
"""
from __future__ import annotations

import math

import numpy as np

from ..ir.nodes import Const, Op, Var, blocks, walk
from ..ir.primitive import TABLE

# comparison -> the same with its operands swapped
_SWAPPED = {"greater": "less", "greater_equal": "less_equal", "less": "greater",
            "less_equal": "greater_equal", "equal": "equal", "not_equal": "not_equal"}
# comparison -> its negation but for NaN (not (x > c) is x <= c, or x is NaN)
_NEGATED = {"greater": "less_equal", "greater_equal": "less",
            "less": "greater_equal", "less_equal": "greater",
            "equal": "not_equal", "not_equal": "equal"}


def branch_free_selects(fn, builder):
    defs = {s.target: s for s in walk(fn.body) if isinstance(s, Op)}
    for block in [fn.body] + [b for s in walk(fn.body) for b in blocks(s)]:
        new = []
        for stmt in block:
            _nested(stmt, defs, builder.products, builder.facts)
            made = _product(stmt, builder.products) or _rewrite(stmt, defs, builder.facts)
            if len(made) > 1:  # three calls read better on a line of their own
                fn.named.add(stmt.target)
            new += made
        block[:] = new
    return fn


def _nested(stmt, defs, products, facts):
    """``where(c, where(c, x, y), z)`` is ``where(c, x, z)`` (and so on the
    other side): the inner select of the same mask picks what the outer one
    keeps. (A guard of a value guarded already: the same value.) Only where
    ``x`` has the inner select's shape: ``where(c, 0.0, y)`` may be bigger
    than ``0.0``, and the outer select's shape must not shrink."""
    if not isinstance(stmt, Op) or stmt.prim != "where":
        return
    mask = stmt.args[0]
    # (masks.zero_by_product: a product with the mask) proven for these operands,
    # not for those a fold swapped since (where(~m, g, 0.0) -> where(m, 0.0, g))
    proven = products.get(stmt.target) == stmt.args
    for side in (1, 2):
        inner = defs.get(stmt.args[side])
        while inner is not None and inner.prim == "where" and inner.args[0] is mask \
                and facts.same_shape(inner.args[side], inner.target):
            args = list(stmt.args)
            args[side] = inner.args[side]
            stmt.args = tuple(args)
            proven = proven and inner.target in products  # (what it picks is proven)
            inner = defs.get(stmt.args[side])
    if stmt.target in products:
        if proven:
            products[stmt.target] = stmt.args
        else:
            del products[stmt.target]
    if stmt.target not in products and stmt.backward and _zero_outside(stmt, defs):
        products[stmt.target] = stmt.args


def _zero_outside(stmt, defs):
    """``where(m, g, 0.0)`` that is ``g * m`` in every bit: m is boolean and,
    where it fails, g is finite and not negative in every float type (its
    selects of m pick their other side there; see where_guards.zero_by_product)."""
    mask, g, zero = stmt.args
    made = defs.get(mask)
    if not (isinstance(zero, Const) and zero.value == 0.0 and isinstance(zero.value, float)
            and not math.copysign(1.0, zero.value) < 0) or made is None \
            or not TABLE[made.prim].boolean:
        return False
    for dtype in (np.float64, np.float32, np.float16):
        with np.errstate(all="raise"):
            try:
                value = _where_fails(g, mask, defs, dtype, {}, 0)
            except (ArithmeticError, TypeError, ValueError):
                return False
        if value is None or not np.isfinite(value) or np.signbit(value):
            return False
    return True


def _where_fails(atom, mask, defs, dtype, known, depth):
    """The value of ``atom`` where ``mask`` fails, or None if not known."""
    if isinstance(atom, Const):
        value = atom.value
        return dtype(value) if isinstance(value, (int, float)) and \
            not isinstance(value, bool) else None
    if atom in known:
        return known[atom]
    op = defs.get(atom)
    value = None
    if op is not None and depth < 20:
        if op.prim == "where" and op.args[0] is mask:
            value = _where_fails(op.args[2], mask, defs, dtype, known, depth + 1)
        else:
            ufunc = getattr(np, op.prim, None)
            if isinstance(ufunc, np.ufunc) and not op.params and \
                    ufunc.nin == len(op.args):
                args = [_where_fails(a, mask, defs, dtype, known, depth + 1) for a in op.args]
                if all(a is not None for a in args):
                    value = ufunc(*args)
    known[atom] = value
    return value


def _product(stmt, products):
    """``where(m, g, 0.0)`` as ``g * m``, where masks.zero_by_product found it
    the same (made when the reverse pass applied a cone's mask)."""
    if not isinstance(stmt, Op) or stmt.prim != "where" \
            or products.get(stmt.target) != stmt.args:
        return None
    return [Op(stmt.target, "multiply", (stmt.args[1], stmt.args[0]), (), stmt.loc,
               stmt.note, stmt.backward)]


def _rewrite(stmt, defs, facts):
    """``stmt``, or the operations computing its select without one."""
    if not isinstance(stmt, Op) or stmt.prim != "where" \
            or facts.is_scalar(stmt.target) or facts.signature and facts.fuses():
        return [stmt]  # (XLA fuses a select: fused_forms.py)
    mask, a, b = stmt.args
    x, fill = (a, b) if isinstance(b, Const) else (b, a)
    taken = _taken(mask, x, defs, x is b)
    if not isinstance(x, Var) or not isinstance(fill, Const) or taken is None \
            or not isinstance(fill.value, float) or fill.value != taken[1] + 1:
        return [stmt]
    if taken[0] == "not_equal" and facts.signature and not facts.is_float(x):
        return [stmt]  # (x + False is an integer where x is one; specialised folds need floats)
    prim, bound, nan_taken = taken
    made = []
    if x is b:
        other = mask  # the constant is taken where the mask holds
    elif defs.get(mask) is not None and defs[mask].prim == "logical_not":
        other = defs[mask].args[0]
    elif defs.get(mask) is not None and defs[mask].prim in _OPPOSITE:
        # x != 0 negated is x == 0 (also where x is NaN: not so for <, >=)
        other = _op(made, stmt, _OPPOSITE[defs[mask].prim], *defs[mask].args, mask.hint + "_not")
    else:
        other = _op(made, stmt, "logical_not", mask, mask.hint + "_not")
    if prim != "not_equal":
        pick = ("maximum" if nan_taken else "fmax") if prim.startswith("greater") \
            else ("minimum" if nan_taken else "fmin")
        x = _op(made, stmt, pick, x, Const(float(bound)), x.hint + "_bounded")
    made.append(Op(stmt.target, "add", (x, other), (), stmt.loc, "", stmt.backward))
    # the statement's note above the first line; or say what the calls are
    made[0].note = stmt.note or ("a select without np.where's branch per element"
                                 if len(made) > 1 else "")
    return made


def _taken(mask, x, defs, negate):
    """``(prim, c, nan_taken)``: x is taken where ``prim(x, c)`` holds (and
    where x is NaN if ``nan_taken``), when this is a form that can be
    rewritten exactly: no -0.0 is taken (x + 0.0 would make it +0.0), and c
    is a small integer (so c + 1 is exact in every float type)."""
    op = defs.get(mask)
    if op is not None and op.prim == "logical_not":
        op, negate = defs.get(op.args[0]), not negate
    if op is None or op.prim not in _SWAPPED or len(op.args) != 2:
        return None
    (p, q), prim = op.args, op.prim
    if q is x and isinstance(p, Const):
        (p, q), prim = (q, p), _SWAPPED[prim]
    if p is not x or not isinstance(q, Const) or not _number(q.value) \
            or q.value != int(q.value) or abs(q.value) > 1000:
        return None
    if negate:
        prim = _NEGATED[prim]
    c = q.value
    fine = {"greater": c >= 0, "greater_equal": c > 0, "less": c <= 0,
            "less_equal": c < 0, "not_equal": c == 0, "equal": False}
    return (prim, c, negate) if fine[prim] else None


def _op(made, where, prim, *args_and_hint):
    *args, hint = args_and_hint
    op = Op(Var(hint), prim, tuple(args), (), where.loc, "", where.backward)
    made.append(op)
    return op.target


_OPPOSITE = {"not_equal": "equal", "equal": "not_equal"}


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and value == value and abs(value) != float("inf")
