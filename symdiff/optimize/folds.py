"""Algebra applied as operations are built, so trivial code is never made.

Each fold gets the builder, the operands and their constant values (None
where not a number) and returns a replacement atom, or None to build the
operation as asked. The user's own code is built as written (``z = x * 1.0``
is a new array, and keeps ``x * 1.0``'s dtype); derivative code is folded.
They only rewrite into something equal (or, for masks, into something equal
where it is finite: select after multiply, ``p * triu(g)`` as ``triu(p * g)``).
"""
from __future__ import annotations

import math

from ..ir.indexing import parts_of_its_shape
from ..ir.nodes import Const, Var, const_value
from ..ir.primitive import TABLE
from .mask_folds import fold_mask, mask_of_product, mask_of_sum
from .spreads import fold_any, shape_source
from .trace_products import fold_identity_product, fold_trace, scaled_identity


def _keeps_shape(b, kept, other):
    """``op(kept, other)`` has the shape of ``kept``: ``other`` is a scalar.
    (In a specialised gradient, whose facts know dtypes, also its dtype:
    ``x * 1.0`` is a float even where x is an integer array.)"""
    if b.facts.signature and not b.facts.same_dtype(kept, other):
        return False
    return b.facts.is_scalar(other) or b.facts.same_shape(kept, other)


def _producer(b, atom, prim):
    op = b.facts.producer(atom)
    return op if op is not None and op.prim == prim else None


def _backward_negative(b, atom):
    """The op if ``atom`` is ``-g`` made by the backward pass (a forward value
    is computed anyway: moving its sign would add one)."""
    op = _producer(b, atom, "negative")
    return op if op is not None and op.backward else None


def _spread(b, atom):
    """The op if ``atom`` is ``unreduce(g, like)`` spreading a whole-reduction's
    gradient (a full array of one value), else None."""
    op = _producer(b, atom, "unreduce")
    if op is None or op.param("axis") is not None:
        return None
    return op


def _masked(b, atom):
    """(cond, value, zero_first) if ``atom`` is where(cond, value, 0) or
    where(cond, 0, value)."""
    op = _producer(b, atom, "where")
    if op is None:
        return None
    cond, x, y = op.args
    if _is_zero(y):
        return cond, x, False
    if _is_zero(x):
        return cond, y, True
    return None


def _is_zero(atom):
    return isinstance(atom, Const) and atom.value == 0 and not isinstance(atom.value, bool)


def fold_add(b, args, values):
    (x, y), (vx, vy) = args, values
    if b.backward and vy == 0 and _keeps_shape(b, x, y):
        return x
    if b.backward and vx == 0 and _keeps_shape(b, y, x):
        return y
    for p, q in ((x, y), (y, x)):
        negated = _producer(b, q, "negative")
        if b.backward and negated is not None:
            return b.sub(p, negated.args[0])  # a + -b is a - b
    ux, uy = _producer(b, x, "unindex"), _producer(b, y, "unindex")
    if ux and uy and ux.args[1:] == uy.args[1:]:
        # two gradients of the same x[index]: add them before placing them
        return b.op("unindex", b.add(ux.args[0], uy.args[0]), *ux.args[1:],
                    hint=ux.target.hint)
    if not b.backward:
        return None  # the forward pass computes exactly what the user wrote
    if x is y and (b.facts.is_float(x) or not b.facts.signature):
        return b.mul(Const(2.0), x)  # g + g is 2.0 * g, to the last bit (and reads so)
    masked = mask_of_sum(b, x, y)
    if masked is not None:
        return masked
    mx, my = _masked(b, x), _masked(b, y)
    if mx and my and mx[0] is my[0] and mx[2] != my[2]:
        # where(c, p, 0) + where(c, 0, q) is where(c, p, q)
        cond, p, q = mx[0], *((mx[1], my[1]) if my[2] else (my[1], mx[1]))
        return b.op("where", cond, p, q)
    return None


def fold_subtract(b, args, values):
    (x, y), (vx, vy) = args, values
    negated = _producer(b, y, "negative")
    if b.backward and negated is not None:
        return b.add(x, negated.args[0])  # a - -b is a + b
    if b.backward and vy == 0 and _keeps_shape(b, x, y):
        return x
    if b.backward and vx == 0 and _keeps_shape(b, y, x):
        return b.neg(y)
    return None


def fold_multiply(b, args, values):
    (x, y), (vx, vy) = args, values
    if not b.backward:
        return None  # the forward pass computes exactly what the user wrote
    for p, vp, q in ((x, vx, y), (y, vy, x)):
        if vp == 1 and _keeps_shape(b, q, p):
            return q
        if vp == -1 and _keeps_shape(b, q, p):
            return b.neg(q)
    folded = _pull_constants(b, x, y)
    if folded is not None:
        return folded
    for p, q in ((x, y), (y, x)):
        negated = _backward_negative(b, q)
        if negated is not None:  # p * -g is -(p * g), exactly: the sign meets a sum
            return b.neg(b.mul(p, negated.args[0]) if p is x else b.mul(negated.args[0], p))
    for p, vp, q in ((x, vx, y), (y, vy, x)):
        passed = _producer(b, q, "pass_gradient") if vp is not None else None
        if passed is not None:
            # c * (a gradient passed on as is) is that, passed on after c *: the
            # constant meets the ones before it
            with b.noting(passed.note):
                return b.op("pass_gradient", b.mul(p, passed.args[0]),
                            hint=passed.target.hint)
        scaled = _scaled(b, q) if vp is not None else None
        if scaled is not None:
            return b.mul(Const(float(vp * scaled[0])), scaled[1])  # 2 * (0.5 * r) is r
    for p, q in ((x, y), (y, x)):
        kept = _producer(b, q, "unreduce")
        if kept is not None and kept.param("keepdims") and b.facts.same_shape(p, q):
            return b.mul(p, kept.args[0])  # keepdims: g broadcasts over p by itself
    for p, q in ((x, y), (y, x)):
        spread = _spread(b, q)
        if spread is not None and not spread.param("keepdims"):
            if b.facts.same_shape(p, q) and _same_precision(b, p, spread):
                return b.mul(p, spread.args[0])  # p * full_like(p, g) is p * g
            if b.facts.is_scalar(p):
                return b.op("unreduce", b.mul(p, spread.args[0]), spread.args[1])
    for p, q in ((x, y), (y, x)):
        masked = _masked(b, q)
        if masked is not None:
            # Multiply inside the mask: what the mask drops never meets p.
            cond, value, zero_first = masked
            inner = b.mul(p, value)
            zero = Const(0.0)
            return b.op("where", cond, *((zero, inner) if zero_first else (inner, zero)))
        masked = mask_of_product(b, p, q)
        if masked is not None:
            return masked
    return None


def _same_precision(b, p, spread):
    """``p * g`` has the dtype of ``p * full_like(like, g)`` (known in a
    specialised gradient; the generic one assumes it)."""
    if not b.facts.signature:
        return True
    g, like = spread.args
    facts = b.facts
    return facts.dtype(p) is not None and facts.dtype(like) is not None and \
        facts.same_dtype(p, like) and facts.same_dtype(p, g)


def _scaled(b, atom):
    """(c, rest) if ``atom`` is ``c * rest`` or ``rest / c`` with a constant c."""
    op = b.facts.producer(atom)
    if op is None or op.prim not in ("multiply", "divide"):
        return None
    first, second = op.args
    if op.prim == "divide":
        c = const_value(second)
        return (1.0 / c, first) if c not in (None, 0) else None
    for c, rest in ((first, second), (second, first)):
        if const_value(c) is not None and const_value(rest) is None:
            return const_value(c), rest
    return None


def _pull_constants(b, x, y):
    """(2 * a) * (-200 * t) is -400 * (a * t): one pass less per constant."""
    sx, sy = _scaled(b, x), _scaled(b, y)
    if sx is None or sy is None:
        return None
    return b.mul(Const(float(sx[0] * sy[0])), b.mul(sx[1], sy[1]))


def fold_divide(b, args, values):
    (x, y), (vx, vy) = args, values
    if b.backward and vy == 1 and _keeps_shape(b, x, y):
        return x
    spread = _spread(b, x)
    if spread is not None and not spread.param("keepdims") and b.facts.same_shape(x, y):
        return b.div(spread.args[0], y)  # full_like(y, g) / y is g / y
    scaled = _scaled(b, y) if b.backward and vx is not None else None
    if scaled is not None and scaled[0] != 0:
        return b.div(Const(vx / scaled[0]), scaled[1])  # 1 / (2 * s) is 0.5 / s
    for at, negated in enumerate(_backward_negative(b, a) for a in args):
        if b.backward and negated is not None:  # -g / y is -(g / y), exactly
            return b.neg(b.div(*(negated.args[0] if i == at else a for i, a in enumerate(args))))
    inverse = _exact_inverse(vy) if b.backward and vx is None else None
    if inverse is not None:
        return b.mul(Const(inverse), x)  # g / 2 is 0.5 * g, to the last bit (and faster)
    return None


def _exact_inverse(c):
    """``1 / c`` where multiplying by it is dividing by ``c`` exactly: ``c`` a
    power of two (its inverse is one too); else None."""
    if c is None or c == 0 or isinstance(c, bool):
        return None
    try:
        mantissa = math.frexp(c)[0]
    except OverflowError:  # an integer too large for a float
        return None
    return 1.0 / c if abs(mantissa) == 0.5 else None


def fold_power(b, args, values):
    return args[0] if b.backward and values[1] == 1 else None


def fold_negative(b, args, values):
    inner = _producer(b, args[0], "negative")
    if inner is not None:
        return inner.args[0]
    scaled = _producer(b, args[0], "multiply")
    if b.backward and scaled is not None:
        for c, rest in (scaled.args, scaled.args[::-1]):
            if const_value(c) is not None:
                return b.mul(Const(-const_value(c)), rest)  # -(2 * x) is -2 * x
    ratio = _producer(b, args[0], "divide")
    if b.backward and ratio is not None and const_value(ratio.args[0]) is not None:
        return b.div(Const(-const_value(ratio.args[0])), ratio.args[1])  # -(1 / n)
    return None


def fold_where(b, args, values):
    cond, x, y = args
    inner = _producer(b, cond, "logical_not")
    if inner is not None:
        return b.op("where", inner.args[0], y, x)  # where(~c, x, y) is where(c, y, x)
    if not b.backward:
        return None  # the forward pass computes exactly what the user wrote
    factor = _common_factor(b, x, y)
    if factor is not None:
        # where(c, k * p, k * q) is k * where(c, p, q), bit for bit: one pass less
        k, p, q = factor
        return b.mul(k, b.op("where", cond, p, q))
    return _as_clip(b, cond, x, y)


def _common_factor(b, x, y):
    """(k, p, q) if ``x`` is ``k * p`` and ``y`` is ``k * q``: the factors the
    two products share (looking two multiplications deep), and the rest."""
    fx, fy = _factors(b, x, 2), _factors(b, y, 2)
    if len(fx) == 1 and len(fy) == 1:
        return None
    common = []
    for atom in list(fx):
        match = next((a for a in fy if _same_atom(a, atom)), None)
        if match is not None:
            common.append(atom)
            fx.remove(atom)
            fy.remove(match)
    if not common or not fx or not fy:
        return None
    p, q = _product(b, fx), _product(b, fy)
    # (two constants would make where(c, p, q) a float64 array, whatever k is)
    if _is_zero(p) or _is_zero(q) or (isinstance(p, Const) and isinstance(q, Const)):
        return None
    return _product(b, common), p, q


def _factors(b, atom, depth):
    op = _producer(b, atom, "multiply") if depth else None
    if op is None:
        return [atom]
    return _factors(b, op.args[0], depth - 1) + _factors(b, op.args[1], depth - 1)


def _product(b, atoms):
    result = atoms[0]
    for atom in atoms[1:]:
        result = b.mul(result, atom)
    return result


def _same_atom(a, b):
    return a is b or (isinstance(a, Const) and isinstance(b, Const)
                      and const_value(a) is not None and const_value(a) == const_value(b))


def _as_clip(b, cond, x, y):
    """where(|x| <= c, x, c * sign(x)) is clip(x, -c, c), for a constant c > 0.

    The same value everywhere: at |x| = c both give x (= c * sign(x)), a NaN
    stays NaN, +-inf becomes +-c. One arithmetic pass instead of abs, a compare,
    sign and a select (which is slow when the mask is unpredictable).
    """
    bound = _abs_bound(b, cond)
    if bound is None:
        return None
    value, c, inside = bound
    if not inside:
        x, y = y, x
    if x is not value or not _is_signum(b, y, value, c):
        return None
    return b.op("clip", value, Const(-c), Const(c), hint=value.hint + "_clipped")


_BOUNDS = {"less": True, "less_equal": True, "greater": False, "greater_equal": False}


def _abs_bound(b, cond):
    """(x, c, inside) if ``cond`` compares |x| with a constant c > 0: inside is
    True for |x| < c or |x| <= c, False for |x| > c or |x| >= c."""
    op = b.facts.producer(cond)
    if op is None or op.prim not in _BOUNDS:
        return None
    inside = _BOUNDS[op.prim]
    left, right = op.args
    if const_value(left) is not None:  # c > |x| is |x| < c
        left, right, inside = right, left, not inside
    c = const_value(right)
    magnitude = _producer(b, left, "abs")
    if magnitude is None or c is None or not 0 < c < float("inf"):
        return None
    return magnitude.args[0], float(c), inside


def _is_signum(b, atom, value, c):
    """``atom`` is c * sign(value) (sign(value) when c is 1)."""
    sign = _producer(b, atom, "sign")
    if sign is not None:
        return c == 1 and sign.args[0] is value
    scaled = _producer(b, atom, "multiply")
    if scaled is None:
        return False
    for k, rest in (scaled.args, scaled.args[::-1]):
        sign = _producer(b, rest, "sign")
        if const_value(k) == c and sign is not None and sign.args[0] is value:
            return True
    return False


def fold_size(b, args, values):
    """Only the shape matters: look through elementwise ops and masks that
    keep it, so ``np.size(t ** 2)`` does not compute ``t ** 2``."""
    x = args[0]
    made = b.facts.producer(x) if isinstance(x, Var) else None
    while made is not None and TABLE[made.prim].masks and b.facts.same_shape(made.args[0], x):
        x = made.args[0]  # (np.triu(a * a).size is (a * a).size)
        made = b.facts.producer(x) if isinstance(x, Var) else None
    parts = parts_of_its_shape(b.facts, x)  # (z[rows, labels].size is labels.size)
    x = next((p for p in parts if p in b.param_locs), parts[0]) if parts else x
    x = shape_source(b, x) if isinstance(x, Var) else x
    return b.op("size", x) if x is not args[0] else None


def fold_transpose(b, args, values):
    """``x.T.T`` is ``x``: ``.T`` reverses every axis, twice none."""
    inner = _producer(b, args[0], "T")
    if inner is None and scaled_identity(b, args[0]) is not None:
        return args[0]  # (c I is symmetric)
    return inner.args[0] if inner is not None else None


def fold_ndim(b, args, values):
    """``x.ndim`` where the signature decides it: that number."""
    rank = b.facts.rank(args[0]) if isinstance(args[0], Var) else None
    return Const(rank) if rank is not None else None


def _fold_every(b, prim, args, params):
    made = fold_any(b, prim, args, params)
    if made is None and prim in TABLE and TABLE[prim].masks and b.backward:
        made = fold_mask(b, args, prim, tuple(sorted(params.items())))
    if made is None and prim == "trace" and b.backward:
        made = fold_trace(b, args, params)
    return made


FOLDS = {"*": _fold_every, "add": fold_add, "subtract": fold_subtract, "multiply": fold_multiply,
         "divide": fold_divide, "power": fold_power, "negative": fold_negative,
         "where": fold_where, "size": fold_size, "T": fold_transpose, "ndim": fold_ndim,
         "matmul": lambda b, args, values: fold_identity_product(b, args)}
