"""Contractions other than matmul and einsum: tensordot, inner, kron, cross,
and the trace.

tensordot, inner and kron contract axes that the operands' ranks decide, so
their adjoints are runtime helpers (``_tensordot_adjoint_a`` and friends,
einsums over labels made when the ranks are known); like matmul's, each is
linear in the gradient and in the other operand, and differentiates as one
(rules/linalg.py). cross is its own adjoint (a triple product turns round);
the trace's adjoint puts the gradient on the diagonal (``_untrace``).
"""
from __future__ import annotations

from ..errors import NoDerivativeRuleError
from ..ir import patterns
from ..ir.nodes import Const
from ..ir.primitive import ARRAY, NEW, define, like
from ..runtime.linalg_helpers import _tensordot_labels
from .linalg import matmul_adjoint_rule, matmul_adjoint_tangent, matmul_rule


def _bilinear(signature, spelling=None, reverse=matmul_rule, **fields):
    """A product of two operands whose adjoints are the helpers
    ``_NAME_adjoint_a`` and ``_NAME_adjoint_b`` (same parameters)."""
    record = define(signature, spelling, NEW, reverse=reverse, multilinear=True,
                    **fields)
    params = signature[signature.index(";"):-1] if ";" in signature else ""
    for side in ("a", "b"):
        define(f"{record.name}_adjoint_{side}(g, a, b{params})",
               ("helper", f"_{record.name}_adjoint_{side}"), like(1 if side == "a" else 2),
               reverse=matmul_adjoint_rule, forward=matmul_adjoint_tangent, result=ARRAY)
    return record


def _tensordot_pattern(op, facts):
    """a's axes not contracted, then b's: ``axes=n`` the last n of a and the
    first n of b, a pair of lists those axes."""
    a, b = (facts.pattern(x) for x in op.args)
    axes = op.param("axes", 2)
    if a is None or b is None:
        return None
    if isinstance(axes, int):
        return a[:len(a) - axes] + b[axes:] if axes <= min(len(a), len(b)) else None
    try:
        first, second = ([x] if isinstance(x, int) else list(x) for x in axes)
        first = {x % len(a) for x in first}
        second = {x % len(b) for x in second}
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    return tuple(n for i, n in enumerate(a) if i not in first) + \
        tuple(n for i, n in enumerate(b) if i not in second)


def _inner_pattern(op, facts):
    """Over the last axes: a's others, then b's (a number times anything is it)."""
    a, b = (facts.pattern(x) for x in op.args)
    if a is None or b is None:
        return None
    if not a or not b:
        return a or b
    return a[:-1] + b[:-1]


def _labelled_rule(axes_of):
    """Where the operands' ranks are known (a specialised gradient), each
    adjoint is the einsum the helper would make: written out, no helper."""
    def rule(r, op, g):
        a, b = op.args
        ranks = r.facts.rank(a), r.facts.rank(b)
        axes = axes_of(op, *ranks) if None not in ranks else None
        if axes is None:
            return matmul_rule(r, op, g)
        la, lb, out = _tensordot_labels(*ranks, axes)
        return [_contraction(r, g, out, b, lb, la) if r.wants(a) else None,
                _contraction(r, g, out, a, la, lb) if r.wants(b) else None]
    return rule


def _contraction(r, g, out, other, labels, result):
    summed = set(out) & set(labels) - set(result)
    return r.b.op("einsum", g, other, subscripts=f"{out},{labels}->{result}",
                  optimize=bool(summed))


def _tensordot_axes(op, rank_a, rank_b):
    return op.param("axes", 2)


def _inner_axes(op, rank_a, rank_b):
    return ([-1], [-1]) if rank_a and rank_b else None  # (of a number: a product)


_bilinear("tensordot(a, b; axes=2)", pattern=_tensordot_pattern,
          reverse=_labelled_rule(_tensordot_axes))
_bilinear("inner(a, b)", pattern=_inner_pattern, reverse=_labelled_rule(_inner_axes))


def _kron_rule(r, op, g):
    """np.kron of two matrices: g seen as blocks, ``g.reshape(m, p, n, q)``
    (entry [i, k, j, l] is a[i, j] b[k, l]), contracted with the other
    operand; for other ranks the helpers."""
    a, b = op.args
    if (r.facts.rank(a), r.facts.rank(b)) != (2, 2):
        return matmul_rule(r, op, g)
    shapes = r.b.op("shape", a), r.b.op("shape", b)
    lengths = [r.b.op("getitem", shapes[k], Const(axis)) for axis in (0, 1) for k in (0, 1)]
    blocks = r.b.op("reshape", g, r.b.op("tuple", *lengths), hint="blocks")
    return [r.b.op("einsum", blocks, b, subscripts="ikjl,kl->ij", optimize=False)
            if r.wants(a) else None,
            r.b.op("einsum", blocks, a, subscripts="ikjl,ij->kl", optimize=False)
            if r.wants(b) else None]


_bilinear("kron(a, b)", reverse=_kron_rule)


# ---- cross products ---------------------------------------------------------------------------
def _cross_axes(op):
    axis = op.param("axis")
    if axis is not None:
        return axis, axis, axis
    return op.param("axisa", -1), op.param("axisb", -1), op.param("axisc", -1)


def cross_rule(r, op, g):
    """g . (a x b) = a . (b x g) = b . (g x a): each operand's gradient is a
    cross product, its vectors along that operand's axis."""
    a, b = op.args
    axis_a, axis_b, axis_c = _cross_axes(op)
    return [r.unbroadcast(r.b.op("cross", b, g, axisa=axis_b, axisb=axis_c, axisc=axis_a), a)
            if r.wants(a) else None,
            r.unbroadcast(r.b.op("cross", g, a, axisa=axis_c, axisb=axis_a, axisc=axis_b), b)
            if r.wants(b) else None]


define("cross(a, b; axisa=-1, axisb=-1, axisc=-1, axis=None)", shape=NEW, reverse=cross_rule,
       multilinear=True)


# ---- the trace ----------------------------------------------------------------------------------
def trace_rule(r, op, g):
    if op.param("dtype") is not None:
        raise NoDerivativeRuleError("`trace`: dtype= is not differentiated", op.loc,
                                    "leave dtype out; convert the result instead")
    return [r.b.op("untrace", g, op.args[0], **_diagonal(op))]


def untrace_rule(r, op, g):
    return [r.b.op("trace", g, **_diagonal(op)), None]


def _diagonal(op):
    return {"offset": op.param("offset", 0), "axis1": op.param("axis1", 0),
            "axis2": op.param("axis2", 1)}


def _trace_pattern(op, facts):
    """The axes other than the two the diagonal runs along (none: a number)."""
    found = facts.pattern(op.args[0])
    axes = patterns.normal_axes((op.param("axis1", 0), op.param("axis2", 1)), len(found or ()))
    if found is None or axes is None or len(set(axes)) != 2:
        return None
    return tuple(p for k, p in enumerate(found) if k not in axes)


define("trace(a; offset=0, axis1=0, axis2=1, dtype=None)", shape=NEW, reverse=trace_rule,
       linear=(0,), methods=("trace",), pattern=_trace_pattern)
# the gradient of a trace: g on that diagonal of an array like `like`, zeros elsewhere
define("untrace(g, like; offset=0, axis1=0, axis2=1)", ("helper", "_untrace"), like(1),
       reverse=untrace_rule, linear=(0,), result=ARRAY)
