"""Helpers whose work the arguments' signature decides, written as that work.

The generic gradient calls helpers that look at shapes when it runs:
``_sum_to(g, b)`` sums a broadcast gradient back to ``b``'s shape,
``_matmul_adjoint_b(g, X, w)`` is ``X.T @ g`` or an outer product or ... by
the ranks. A gradient specialised for its arguments (api.py) knows the
number of axes of each value and which have length one (ir/patterns.py), so
it writes what the helper would have done: ``g.sum(axis=0)``, nothing at
all, ``X.T @ g``, ``g[:, None] * h``. The same values, without the calls.
An einsum of known ranks becomes its contractions, pair by pair
(einsum_pairs.py).
"""
from __future__ import annotations

import numpy as np

from ..ir import patterns as pat
from ..ir.nodes import Const, If, Loop, Op, Var, blocks, walk
from ..ir.primitive import REDUCTION, TABLE
from ..ir.reinfer import reinfer
from .column_vectors import LOWERINGS as COLUMN_VECTORS
from .common_subexpressions import replace_atoms
from .einsum_pairs import lower_einsum
from .spreads import shape_source
from .taken_along import LOWERINGS as TAKEN_ALONG
from .trace_products import scaled_identity


def direct_forms(fn, builder):
    """``fn`` with the helpers its shape patterns decide written out."""
    if not builder.facts.signature:
        return fn
    reinfer(fn, builder.facts)  # (what loops hid when their values were made)
    subst = {}
    _block(fn.body, builder, subst)
    if subst:
        substitute(fn.body, subst)
        fn.result = replace_atoms(fn.result, subst)
        _adjoint_names(fn, subst)
        _numbers_carried(fn, builder.facts)
    return fn


def _numbers_carried(fn, facts):
    """A loop's value that now starts as a Python number (``np.zeros_like(v)``
    of a number, written ``0.0``) is no NumPy value in the first iteration,
    whatever the later ones make it: its dtype is no longer known (the
    emitter writes ``np.shape(v_bar)``, not ``v_bar.shape``)."""
    for loop in (s for s in walk(fn.body) if isinstance(s, Loop)):
        for carry in loop.carried:
            if not isinstance(facts.dtype(carry.init), np.dtype):
                for var in (carry.param, carry.out):
                    if isinstance(facts.dtypes.get(var), np.dtype):
                        del facts.dtypes[var]


def fresh_results(fn, builder):
    """``fn`` returning no argument array as a gradient (after the algebra,
    which may leave ``v`` itself for ``0.5 * v @ v``'s gradient)."""
    fn.result = _fresh(fn, builder, fn.result)
    return fn


def _fresh(fn, builder, value):
    """A gradient that is an argument array itself (``y`` of ``sum(x * y)``) is
    returned as a copy: the caller may change it in place."""
    if isinstance(value, tuple):
        return tuple(_fresh(fn, builder, v) for v in value)
    if _argument_array(fn, builder, value):
        with builder.block() as made:
            copied = builder.op("copy", value, hint=value.hint + "_bar")
        fn.body += made
        return copied
    for stmt in fn.body:  # an argument on one side of an `if`: copied on that side
        for merge in stmt.merges if isinstance(stmt, If) else ():
            if merge.target is not value:
                continue
            for side, block in (("then", stmt.then), ("orelse", stmt.orelse)):
                atom = getattr(merge, side)
                if _argument_array(fn, builder, atom):
                    with builder.block() as made:
                        setattr(merge, side, builder.op("copy", atom, hint=value.hint))
                    block += made
    return value


def _argument_array(fn, builder, value):
    sig = builder.facts.kinds.get(value) if isinstance(value, Var) else None
    return sig is not None and sig.kind == "array" and value in fn.params


def _adjoint_names(fn, subst):
    """An adjoint that a helper passed on unchanged (``A_bar = _sum_to(t, A)``
    with ``t`` of A's shape) is that value: it takes the adjoint's name."""
    adjoints = getattr(fn, "adjoints", None)
    if adjoints is None:
        return
    backward = {s.target for s in walk(fn.body) if isinstance(s, Op) and s.backward}
    for old, new in subst.items():
        if old in adjoints and isinstance(new, Var) and new in backward \
                and new not in adjoints and new not in fn.named:
            new.hint = old.hint
            adjoints[new] = adjoints[old]


def _block(stmts, builder, subst):
    new = []
    for stmt in stmts:
        if isinstance(stmt, Op):
            stmt.args = tuple(replace_atoms(a, subst) for a in stmt.args)
            lower = _LOWERINGS.get(stmt.prim)
            made = rewrite(stmt, builder, lower, subst) if lower is not None else None
            new += made if made is not None else [stmt]
        else:
            for block in blocks(stmt):
                _block(block, builder, subst)
            new.append(stmt)
    stmts[:] = new


def rewrite(stmt, builder, lower, subst):
    """The operations replacing ``stmt`` (its value under its own name), or
    None to keep it."""
    facts = builder.facts
    saved = builder.backward
    builder.backward = stmt.backward
    try:
        with builder.block() as made, builder.at(stmt.loc), builder.noting(stmt.note):
            result = lower(builder, stmt, facts)
    finally:
        builder.backward = saved
    if result is None:
        return None
    if isinstance(result, Var) and made and made[-1].target is result:
        last = made[-1]
        facts.shape[stmt.target] = facts.key(result)
        last.target = stmt.target
        facts.defs[stmt.target] = last
        return made
    subst[stmt.target] = result  # the helper did nothing: its operand is its value
    return made


def substitute(stmts, subst):
    """Read ``subst[v]`` in place of each ``v`` in ``stmts``, nested blocks too."""
    for stmt in stmts:
        if isinstance(stmt, Op):
            stmt.args = tuple(replace_atoms(a, subst) for a in stmt.args)
        elif isinstance(stmt, If):
            stmt.cond = replace_atoms(stmt.cond, subst)
            for m in stmt.merges:
                m.then, m.orelse = replace_atoms(m.then, subst), replace_atoms(m.orelse, subst)
        elif isinstance(stmt, Loop):
            stmt.bounds = tuple(replace_atoms(b, subst) for b in stmt.bounds)
            stmt.cond = replace_atoms(stmt.cond, subst)
            stmt.exit = replace_atoms(stmt.exit, subst)
            for carry in stmt.carried:
                carry.init = replace_atoms(carry.init, subst)
                carry.update = replace_atoms(carry.update, subst)
            for tape in stmt.writes:
                tape.items = [replace_atoms(a, subst) for a in tape.items]
        for block in blocks(stmt):
            substitute(block, subst)


# ---- the helpers -------------------------------------------------------------------------
def _sum_to(b, op, facts):
    """``_sum_to(g, like)``: sums over the axes broadcasting added."""
    g, like = op.args
    found = pat.summed_axes(facts.pattern(g), facts.pattern(like))
    made = facts.producer(g)  # (_assigned's entries of an adjoint: a NumPy value)
    if found is None and facts.is_scalar(like) and (
            isinstance(facts.dtype(g), np.dtype) or made is not None and made.prim == "assigned"):
        return b.op("sum", g, hint=op.target.hint)  # (to a number: all of it, of any rank)
    if found is None:
        return None
    lead, kept = found
    result = g
    if lead and lead == facts.rank(g) and not kept:
        return b.op("sum", g, hint=op.target.hint)
    if lead:
        result = b.op("sum", result, axis=tuple(range(lead)) if lead > 1 else 0,
                      hint=op.target.hint)
    if kept:
        result = b.op("sum", result, axis=kept if len(kept) > 1 else kept[0], keepdims=True,
                      hint=op.target.hint)
    return result


def _product_adjoint(b, op, facts):
    """``_matmul_adjoint_a(g, x, y)`` and the like: the gradient of one factor
    of ``x @ y`` (or ``np.dot(x, y)``) for vectors and matrices."""
    g, x, y = op.args
    ranks = tuple(facts.rank(v) for v in (g, x, y))
    if None in ranks or not 1 <= ranks[1] <= 2 or not 1 <= ranks[2] <= 2:
        return None
    made = pat.matmul(facts.pattern(x), facts.pattern(y))
    if made is None or len(made) != ranks[0]:
        return None
    hint = op.target.hint
    pair, side = ranks[1:], op.prim[-1]
    if pair == (1, 1):  # a dot product of vectors: g is a scalar
        return b.mul(g, y if side == "a" else x, hint=hint)
    if pair == (2, 2):
        if side == "a":
            return b.op("matmul", g, b.op("T", y), hint=hint)
        return b.op("matmul", b.op("T", x), g, hint=hint)
    if pair == (2, 1):  # matrix @ vector
        if side == "a":
            return b.mul(_column(b, g), y, hint=hint)
        return b.op("matmul", g, x, hint=hint)
    if side == "a":  # vector @ matrix
        return b.op("matmul", y, g, hint=hint)
    return b.mul(_column(b, x), g, hint=hint)


def _column(b, vector):
    """``v[:, None]``: a vector as a column (an outer product is ``v[:, None] * w``)."""
    return b.op("getitem", vector, Const(slice(None)), Const(None))


def _number_like(b, op, facts):
    """``np.zeros_like(a)[()]`` of a Python float ``a`` is ``0.0`` (a NumPy
    scalar would make every later operation on it a NumPy one, ~4x slower);
    so is ``np.zeros_like(a)`` of a float64 number or a number of a dtype not
    known (a 0-d array, whose every later operation costs a microsecond; the
    adjoints it meets give their dtype, and a gradient of a number is a
    number anyway: docs/semantics.md)."""
    found = facts.dtype(op.args[0])
    if found is not float and not (op.prim == "zeros_like" and _float64_number(facts, op)):
        return None
    if op.prim == "getitem":
        index = op.args[1:]
        whole = all(isinstance(i, Const) and isinstance(i.value, tuple) and not i.value
                    for i in index)  # x[()], however it was read
        return op.args[0] if whole else None
    return Const(0.0 if op.prim == "zeros_like" else 1.0)


def _float64_number(facts, op):
    """A number of float64 or of no dtype known (a Python float a loop makes
    a NumPy one: ``omega = 0.0``, then ``omega + dt * np.sin(theta)``)."""
    found = facts.dtype(op.args[0])
    return facts.rank(op.args[0]) == 0 and (
        found is None or isinstance(found, np.dtype) and found == np.float64)


def _columns(b, op, facts):
    """``_as_columns(v, rhs)`` / ``_from_columns(v, rhs)``: a solve's vector
    right-hand side as a column and back (``v[:, None]``, ``x[:, 0]``), or
    the value itself where ``rhs`` is a matrix."""
    v, rhs = op.args
    rhs_rank, rank = facts.rank(rhs), facts.rank(v)
    if rhs_rank is None or rank is None:
        return None
    if rhs_rank != 1:
        return v
    if op.prim == "as_columns" and rank == 1:
        return b.op("getitem", v, Const(slice(None)), Const(None), hint=op.target.hint)
    if op.prim == "from_columns" and rank == 2:
        return b.op("getitem", v, Const(slice(None)), Const(0), hint=op.target.hint)
    return None


def _undiag(b, op, facts):
    """``_undiag(g, like)``, the gradient of ``np.diag(like)`` for a square
    matrix ``like``: ``np.diag(g)``, g on the diagonal of zeros."""
    g, like = op.args
    square = facts.pattern(like)
    if op.param("k", 0) != 0 or facts.rank(g) != 1 or square is None or len(square) != 2 \
            or not pat.is_named(square[0]) or square[0] != square[1]:
        return None
    return b.op("diag", g, hint=op.target.hint)


def _getitem(b, op, facts):
    """``np.sum(t, axis=0, keepdims=True)[0, :, :]`` (or ``[0]``) is ``np.sum(t,
    axis=0)`` (the gradient of ``x[None, :, :]``, once its broadcasting is summed)."""
    made = facts.producer(op.args[0])
    negated = made is not None and made.prim == "negative"  # ((-t.sum(0, keepdims=True))[0])
    if negated:
        made = facts.producer(made.args[0]) if isinstance(made.args[0], Var) else None
    index = [a.value if isinstance(a, Const) else a for a in op.args[1:]]
    rank = facts.rank(made.args[0]) if made is not None else None
    if made is not None and made.prim == "sum" and made.param("keepdims") and \
            isinstance(made.param("axis"), int) and 0 <= made.param("axis") < len(index) and \
            rank is not None and len(index) <= rank and \
            all(i == 0 and type(i) is int if k == made.param("axis") else i == slice(None)
                for k, i in enumerate(index)):
        total = b.op("sum", made.args[0], axis=made.param("axis"), hint=op.target.hint)
        return b.neg(total) if negated else total
    return _number_like(b, op, facts)


def _size(b, op, facts):
    """The size of a reduction over one axis (or of a value made from one
    entry by entry), from the lengths of the reduced value's other axes
    (``Y.shape[0]``): neither is computed only for its size."""
    made = next((m for m in map(facts.producer, facts.same_shaped(op.args[0])) if m is not None
                 and TABLE[m.prim].shape == REDUCTION), None)  # (np.log(s).size: s's)
    if made is None or made.param("keepdims") \
            or not isinstance(made.param("axis"), int) or made.effect:
        return None
    whole = shape_source(b, made.args[0]) if isinstance(made.args[0], Var) else made.args[0]
    rank = facts.rank(whole)
    if not rank:
        return None
    shape = b.op("shape", whole)
    result = None
    for k in range(rank):
        if k != made.param("axis") % rank:
            length = b.op("getitem", shape, Const(k))
            result = length if result is None else b.mul(result, length)
    return result if result is not None else Const(1)


def _new_axis(b, op, facts):
    """``np.expand_dims(n, axis=1)`` of a vector is ``n[:, None]``."""
    axis, rank = op.param("axis"), facts.rank(op.args[0])
    found = facts.dtype(op.args[0])
    if not isinstance(axis, int) or isinstance(axis, bool) or rank is None \
            or not -rank - 1 <= axis <= rank or found is None or isinstance(found, type):
        return None  # (a Python float has no [None])
    index = [Const(slice(None))] * (axis % (rank + 1)) + [Const(None)]
    return b.op("getitem", op.args[0], *index)


def _same_value(b, op, facts):
    """np.atleast_2d of a matrix, np.squeeze of what has no axis of length
    one, a reshape to its own shape (every length named by the signature):
    the value itself."""
    x = op.args[0]
    found = facts.pattern(x)
    if found is None or not isinstance(facts.dtype(x), np.dtype):
        return None
    if op.prim.startswith("atleast_") and len(found) >= int(op.prim[len("atleast_")]):
        return x
    if op.prim == "squeeze" and op.param("axis") is None and \
            all(pat.is_named(e) for e in found):
        return x
    shape = facts.producer(op.args[1]) if op.prim == "reshape" and \
        isinstance(op.args[1], Var) else None
    if shape is not None and shape.prim == "shape" and found == facts.pattern(shape.args[0]) \
            and all(pat.is_named(e) for e in found):
        return x  # (g reshaped to the shape of a value of its very shape: g)
    return None


_PRODUCTS = frozenset({"matmul", "dot", "matmul_adjoint_a", "matmul_adjoint_b",
                       "dot_adjoint_a", "dot_adjoint_b"})


def _untrace(b, op, facts):
    """A trace's gradient of a square matrix (the signature names its two
    lengths alike) of float64: ``c * np.eye(n)``, n read from a value of its
    shape, as a careful person writes it; not the helper."""
    c, like = scaled_identity(b, op.target), op.args[1]
    if c is None or facts.rank(like) != 2 or facts.dtype(like) != np.dtype("float64") \
            or not (facts.dtype(c) is float or facts.dtype(c) == np.dtype("float64")) \
            or any(r.prim in _PRODUCTS and op.target in r.args for r in facts.defs.values()):
        return None  # (X @ (c I) is c X: trace_products.py, where the product is made)
    source = shape_source(b, like) if isinstance(like, Var) else like
    n = b.op("getitem", b.op("shape", source), Const(0), hint="n")
    eye = b.op("npcall", n, func="eye", kwargs=(), hint="eye")
    return eye if isinstance(c, Const) and c.value == 1.0 else b.mul(c, eye)


_LOWERINGS = {
    "zeros_like": _number_like, "ones_like": _number_like, "getitem": _getitem,
    "sum_to": _sum_to, "size": _size,
    "matmul_adjoint_a": _product_adjoint, "matmul_adjoint_b": _product_adjoint,
    "dot_adjoint_a": _product_adjoint, "dot_adjoint_b": _product_adjoint,
    "einsum": lower_einsum, "as_columns": _columns, "from_columns": _columns,
    "undiag": _undiag, "expand_dims": _new_axis, "squeeze": _same_value,
    "atleast_1d": _same_value, "atleast_2d": _same_value, "atleast_3d": _same_value,
    "reshape": _same_value, "untrace": _untrace, **COLUMN_VECTORS, **TAKEN_ALONG,
}
