"""Adjoint rules for array primitives: reductions, linear algebra, shapes.

Each rule is ``rule(r, op, g) -> [adjoint per operand]`` (None: no gradient).
``r`` is the reverse pass: ``r.b`` builds operations, ``r.wants(atom)`` says
whether an operand needs a gradient, ``r.unbroadcast(c, x)`` sums ``c`` back
to the shape of ``x``.
"""
from __future__ import annotations

from ..ir.nodes import Const

KINK_NOTE = "kink policy: ties split the gradient evenly"


# ---- reductions ---------------------------------------------------------------------
def sum_rule(r, op, g):
    return [r.b.op("unreduce", g, op.args[0], **_axis(op))]


def mean_rule(r, op, g):
    x, axis = op.args[0], op.param("axis")
    if axis is None:
        count = r.b.op("size", x)
    else:  # the reduced axes' lengths: not size(x) / size(mean), 0 / 0 when that is empty
        shape, count = r.b.op("shape", x), Const(1)
        for a in (axis if isinstance(axis, tuple) else (axis,)):
            count = r.b.mul(count, r.b.op("getitem", shape, Const(a)))
    return [r.b.op("unreduce", r.b.div(g, count), x, **_axis(op))]


def prod_rule(r, op, g):
    return [r.b.op("prod_adjoint", g, op.args[0], **_axis(op))]


def extremum_rule(r, op, g):
    """max / min: ties share the gradient evenly (see KINK_NOTE); a NaN
    extremum gives its whole slice a NaN gradient (`_ties` is NaN there)."""
    x, out, axis = op.args[0], op.target, op.param("axis")
    with r.b.noting(KINK_NOTE):
        if axis is not None and not op.param("keepdims"):
            out = r.b.op("expand_dims", out, axis=axis)
            g = r.b.op("expand_dims", g, axis=axis)
        hits = r.b.op("equal", x, out, hint="is_" + op.prim)
        ties = r.b.op("ties", hits, x, **({"axis": axis} if axis is not None else {}))
        return [_like(r, r.b.mul(r.b.div(g, ties), hits), x)]


def norm_rule(r, op, g):
    if op.param("ord") not in (None, 2, "fro") or \
            (op.param("ord") == 2 and op.param("axis") is None):
        return r.no_rule(op, "only the default (2- or Frobenius) norm is differentiated",
                         "write other norms out, e.g. np.sum(np.abs(x)) for ord=1")
    x, out = op.args[0], op.target
    axis, keep = op.param("axis"), op.param("keepdims")
    if axis is not None and not keep:
        out = r.b.op("expand_dims", out, axis=axis)
        g = r.b.op("expand_dims", g, axis=axis)
    with r.b.noting("at x = 0 the norm has a kink: its gradient there is 0"):
        # != rather than >: a NaN norm keeps its NaN gradient
        nonzero = r.b.op("not_equal", out, Const(0.0), hint="nonzero")
        safe = r.b.op("where", nonzero, out, Const(1.0), hint="safe_norm")
        return [r.b.mul(g, r.b.div(x, safe))]


def _axis(op):
    return {k: v for k, v in op.params if k in ("axis", "keepdims")}


# ---- linear algebra ------------------------------------------------------------------
def matmul_rule(r, op, g):
    """matmul and dot; the helpers return gradients of exactly each operand's shape."""
    a, b = op.args
    return [_like(r, r.b.op(op.prim + "_adjoint_a", g, a, b), a) if r.wants(a) else None,
            _like(r, r.b.op(op.prim + "_adjoint_b", g, a, b), b) if r.wants(b) else None]


def _like(r, value, like):
    """Tell the shape facts that ``value`` has exactly the shape of ``like``."""
    r.facts.shape[value] = r.facts.key(like)
    return value


def matmul_adjoint_rule(r, op, h):
    """Second derivatives. ``a_bar = L_b^T g`` where ``L_b(a) = a @ b``, so
    <h, a_bar> = <h @ b, g>: g gets ``h @ b``, b gets the adjoint of ``h @ b``.
    """
    g, a, b = op.args
    forward, side = op.prim.rsplit("_adjoint_", 1)
    if side == "a":
        return [r.unbroadcast(r.b.op(forward, h, b), g) if r.wants(g) else None, None,
                _like(r, r.b.op(forward + "_adjoint_b", g, h, b), b) if r.wants(b) else None]
    return [r.unbroadcast(r.b.op(forward, a, h), g) if r.wants(g) else None,
            _like(r, r.b.op(forward + "_adjoint_a", g, a, h), a) if r.wants(a) else None, None]


def outer_rule(r, op, g):
    a, b = op.args
    return [r.b.op("reshape", r.b.op("matmul", g, r.b.op("ravel", b)), r.b.op("shape", a))
            if r.wants(a) else None,
            r.b.op("reshape", r.b.op("matmul", r.b.op("ravel", a), g), r.b.op("shape", b))
            if r.wants(b) else None]


def vdot_rule(r, op, g):
    a, b = op.args
    return [r.b.mul(g, b) if r.wants(a) else None, r.b.mul(g, a) if r.wants(b) else None]


# ---- shapes -------------------------------------------------------------------------------
def transpose_rule(r, op, g):
    axes = op.param("axes")
    if axes is None:
        return [r.b.op("T", g)]
    inverse = tuple(sorted(range(len(axes)), key=lambda i: axes[i] % len(axes)))
    return [r.b.op("transpose", g, axes=inverse)]


def T_rule(r, op, g):
    return [r.b.op("T", g)]


def reshape_rule(r, op, g):
    x = op.args[0]
    return [r.b.op("reshape", g, r.b.op("shape", x))] + [None] * (len(op.args) - 1)


def swapaxes_rule(r, op, g):
    return [r.b.op("swapaxes", g, **dict(op.params))]


def broadcast_to_rule(r, op, g):
    return [r.unbroadcast(g, op.args[0]), None]


def concatenate_rule(r, op, g):
    axis = op.param("axis", 0)
    grads, start = [], Const(0)
    for i, x in enumerate(op.args):
        if i == len(op.args) - 1:
            stop = Const(None)
        else:
            stop = r.b.add(start, r.b.op("getitem", r.b.op("shape", x), Const(axis)))
        piece = r.b.op("slice", start, stop, Const(None))
        grads.append(r.b.op("getitem", g, *_along(axis, piece)) if r.wants(x) else None)
        start = stop
    return grads


def stack_rule(r, op, g):
    axis = op.param("axis", 0)
    return [r.b.op("getitem", g, *_along(axis, Const(i))) if r.wants(x) else None
            for i, x in enumerate(op.args)]


def _whole(index):
    return all(isinstance(i, Const) and isinstance(i.value, tuple) and not i.value
               for i in index)


def _along(axis, index):
    """An index selecting ``index`` along ``axis`` (which may be negative)."""
    if axis >= 0:
        return [Const(slice(None))] * axis + [index]
    return [Const(Ellipsis), index] + [Const(slice(None))] * (-axis - 1)


def array_rule(r, op, g):
    return [r.b.op("getitem", g, Const(i)) if r.wants(x) else None
            for i, x in enumerate(op.args)]


# ---- indexing -----------------------------------------------------------------------------
def getitem_rule(r, op, g):
    x, *index = op.args
    if _whole(index):  # x[()]: x itself, or its scalar (see unwrap.py)
        return [g] + [None] * len(index)
    basic = all(isinstance(i, Const) for i in index)
    prim = "unindex" if basic else "unindex_add"
    return [r.b.op(prim, g, x, *index)] + [None] * len(index)


# ---- helpers of generated code (so that gradients can be differentiated again) ----------
def sum_to_rule(r, op, g):
    return [r.b.op("unreduce", g, op.args[0]), None]


def full_like_rule(r, op, g):
    """np.full_like(a, v) broadcasts v: linear in v, constant in a."""
    return [None, r.b.op("sum_to", g, op.args[1])]


def unreduce_rule(r, op, g):
    return [r.b.op("sum", g, **_axis(op)) if op.param("axis") is not None or
            op.param("keepdims") else r.b.op("sum", g), None]


def unindex_rule(r, op, g):
    _, _, *index = op.args
    return [r.b.op("getitem", g, *index), None] + [None] * len(index)


def unindex_sum_rule(r, op, g):
    """``_unindex(a + b, like, index)``: a and b each get g[index]."""
    a, b, _, *index = op.args
    part = r.b.op("getitem", g, *index)
    return [r.unbroadcast(part, a), r.unbroadcast(part, b), None] + [None] * len(index)
