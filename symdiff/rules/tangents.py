"""Forward-mode rules: the tangent of each primitive's result from its
operands' tangents, ``rule(b, op, dargs) -> tangent`` (None: zero).

Elementwise functions reuse SymPy's partial derivatives (the same table as
reverse mode); linear primitives apply themselves to the tangents.
"""
from __future__ import annotations

from ..errors import NoDerivativeRuleError
from ..ir.nodes import Const
from .elementwise import ELEMENTWISE
from .kinks import clip_shares, share
from .translate import build


def elementwise(b, op, dargs):
    from . import _local, formula_constants
    constants = formula_constants(op)
    env = {"a": op.args[0], "out": op.target}
    if len(op.args) > 1:
        env["b"] = op.args[1]
    terms = [build(_local(op, i, constants), {**env, "G": d}, b)
             for i, d in enumerate(dargs) if d is not None]
    return b.total(terms)


def power(b, op, dargs):
    """As reverse mode: d/db a ** b = out * log(a), taken as 0 where a = 0."""
    x, y = op.args
    if dargs[1] is None or isinstance(x, Const):
        return elementwise(b, op, dargs)
    first = elementwise(b, op, [dargs[0], None]) if dargs[0] is not None else None
    nonzero = b.op("not_equal", x, Const(0.0), hint="nonzero")
    log_x = b.op("log", b.op("where", nonzero, x, Const(1.0), hint="safe_base"))
    return b.total([first, b.mul(dargs[1], b.mul(op.target, log_x))])


def hypot(b, op, dargs):
    """d hypot(a, b) = (a da + b db) / out; 0 at the origin (a kink, as in reverse)."""
    positive = b.op("greater", op.target, Const(0.0), hint="nonzero")
    safe = b.op("where", positive, op.target, Const(1.0), hint="safe_hypot")
    return b.total([b.mul(d, b.div(x, safe)) for x, d in zip(op.args, dargs) if d is not None])


def linear(b, op, dargs):
    """A primitive linear in its first operand: apply it to the tangent."""
    if dargs[0] is None:
        return None
    return b.op(op.prim, dargs[0], *op.args[1:], **dict(op.params))


def joined(b, op, dargs):
    """concatenate / stack / array: join the tangents (zeros where constant)."""
    if all(d is None for d in dargs):
        return None
    parts = [d if d is not None else b.op("zeros_like", x) for x, d in zip(op.args, dargs)]
    return b.op(op.prim, *parts, **dict(op.params))


def bilinear(b, op, dargs):
    """matmul, dot, outer, vdot: d(a b) = da b + a db."""
    (x, y), (dx, dy) = op.args, dargs
    terms = [b.op(op.prim, dx, y) if dx is not None else None,
             b.op(op.prim, x, dy) if dy is not None else None]
    return b.total(terms)


def where(b, op, dargs):
    cond, x, y = op.args
    _, dx, dy = dargs
    if dx is None and dy is None:
        return None
    return b.op("where", cond, dx if dx is not None else Const(0.0),
                dy if dy is not None else Const(0.0))


def maximum(b, op, dargs):
    """maximum, minimum, fmax, fmin: each tangent times its operand's share."""
    x, y = op.args
    return b.total([b.mul(d, share(b, op.prim, p, q))
                    for d, p, q in ((dargs[0], x, y), (dargs[1], y, x)) if d is not None])


def clip(b, op, dargs):
    shares = clip_shares(b, *op.args, [d is not None for d in dargs])
    return b.total([b.mul(d, s) for d, s in zip(dargs, shares) if d is not None and s is not None])


def extremum(b, op, dargs):
    x, out = op.args[0], op.target
    if dargs[0] is None:
        return None
    axis, keep = op.param("axis"), op.param("keepdims")
    along = {"axis": axis} if axis is not None else {}
    kept = b.op("expand_dims", out, axis=axis) if axis is not None and not keep else out
    hits = b.op("equal", x, kept)
    share = b.div(b.mul(dargs[0], hits), b.op("ties", hits, x, **along))
    return b.op("sum", share, **along, **({"keepdims": True} if keep else {}))


def norm(b, op, dargs):
    x, out = op.args[0], op.target
    if dargs[0] is None:
        return None
    if op.param("ord") not in (None, 2, "fro") or \
            (op.param("ord") == 2 and op.param("axis") is None):
        # the formula below is the 2-norm's: another norm must not get it silently
        raise NoDerivativeRuleError(
            "`norm`: only the default (2- or Frobenius) norm is differentiated", op.loc,
            "write other norms out, e.g. np.sum(np.abs(x)) for ord=1")
    axis, keep = op.param("axis"), op.param("keepdims")
    over = {"axis": axis, "keepdims": bool(keep)}  # keepdims also without an axis: (1, 1)
    # != rather than >: a NaN norm keeps its NaN tangent
    safe = b.op("where", b.op("not_equal", out, Const(0.0)), out, Const(1.0))
    return b.div(b.op("sum", b.mul(x, dargs[0]), **over), safe)


def prod(b, op, dargs):
    if dargs[0] is None:
        return None
    x, out = op.args[0], op.target
    params = dict(op.params)
    others = b.op("prod_adjoint", b.op("ones_like", out), x, **params)
    return b.op("sum", b.mul(others, dargs[0]), **params)


def first(b, op, dargs):
    return dargs[0]


def second(b, op, dargs):
    return dargs[1]


def matmul_adjoint(b, op, dargs):
    """The generated-gradient helpers are bilinear in (g, the other operand)."""
    g, x, y = op.args
    dg, dx, dy = dargs
    side = op.prim.rsplit("_", 1)[1]
    other = 2 if side == "a" else 1
    terms = [b.op(op.prim, dg, x, y) if dg is not None else None]
    if dargs[other] is not None:
        args = [g, x, y]
        args[other] = dargs[other]
        terms.append(b.op(op.prim, *args))
    return b.total(terms)


def full_like(b, op, dargs):
    """np.full_like(a, v) is linear in v; a gives only the shape."""
    return b.op("full_like", op.args[0], dargs[1]) if dargs[1] is not None else None


def unindex_sum(b, op, dargs):
    """``_unindex(a + b, like, index)`` is linear in a + b."""
    if dargs[0] is None and dargs[1] is None:
        return None
    return b.op("unindex", b.total(dargs[:2]), *op.args[2:])


def helper_linear(b, op, dargs):
    return linear(b, op, dargs)


TANGENTS = {name: elementwise for name in ELEMENTWISE}
TANGENTS.update({name: linear for name in (
    "sum mean T transpose reshape ravel expand_dims squeeze swapaxes broadcast_to getitem "
    "sum_to unreduce unindex unindex_add negative").split()})
TANGENTS.update({
    "concatenate": joined, "stack": joined, "array": joined, "tuple": joined,
    "matmul": bilinear, "dot": bilinear, "outer": bilinear, "vdot": bilinear,
    "power": power, "hypot": hypot, "where": where, "maximum": maximum, "fmax": maximum, "minimum": maximum,
    "fmin": maximum, "clip": clip, "max": extremum, "min": extremum, "norm": norm,
    "prod": prod, "require_scalar": first, "require_float": first, "float": first,
    "straight_through": second, "backward_as": second, "pass_gradient": first,
    "full_like": full_like, "unindex_sum": unindex_sum,
    "matmul_adjoint_a": matmul_adjoint, "matmul_adjoint_b": matmul_adjoint,
    "dot_adjoint_a": matmul_adjoint, "dot_adjoint_b": matmul_adjoint,
})
