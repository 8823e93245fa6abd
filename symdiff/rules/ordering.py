"""Entries picked by position or by order: sort, take, take_along_axis,
diag, diagonal, tril, triu.

Their adjoints put each entry's gradient back where the entry came from
(added up where one entry was picked twice). ``np.sort`` has a kink where
entries tie; by the kink policy tied entries share their gradient evenly
(``_tie_mean``), so ``np.sort(x)[-1]`` and ``np.max(x)`` have the same
gradient. Sorting's adjoint is the inverse permutation, a plain
``np.take_along_axis`` (no scatter).
"""
from __future__ import annotations

from ..errors import NoDerivativeRuleError
from ..ir import patterns as pat
from ..ir.nodes import Const
from ..ir.primitive import ARRAY, define, like
from .kinks import KINK_NOTE
from .shapes import along


def _like(r, value, like_):
    """Tell the shape facts that ``value`` has exactly the shape of ``like_``."""
    r.facts.shape[value] = r.facts.key(like_)
    return value


# ---- sort -----------------------------------------------------------------------------------
def _sorted_axis(op):
    """(the array sort orders, along which axis): np.sort(x, axis=None) sorts
    the flattened array."""
    axis = op.param("axis", -1)
    return (None, -1) if axis is None else (axis, axis)


def sort_rule(r, op, g):
    """Each entry gets the gradient of the place it was sorted to (ties: the
    mean over the places they share); the inverse permutation brings it back."""
    x = op.args[0]
    axis, along_ = _sorted_axis(op)
    work = x if axis is not None else r.b.op("ravel", x)
    with r.b.noting(KINK_NOTE):
        order = r.b.op("argsort", work, axis=along_, hint="order")
        shared = r.b.op("tie_mean", g, op.target, axis=along_)
        places = r.b.op("argsort", order, axis=along_, hint="places")
        back = r.b.op("take_along_axis", shared, places, axis=along_)
    if axis is None:
        return [r.b.op("reshape", back, r.b.op("shape", x))]
    return [_like(r, back, x)]


def sort_tangent(b, op, dargs):
    if dargs[0] is None:
        return None
    axis, along_ = _sorted_axis(op)
    x, dx = (op.args[0], dargs[0]) if axis is not None else \
        (b.op("ravel", op.args[0]), b.op("ravel", dargs[0]))
    moved = b.op("take_along_axis", dx, b.op("argsort", x, axis=along_), axis=along_)
    return b.op("tie_mean", moved, op.target, axis=along_)


def tie_mean_rule(r, op, h):
    """Averaging over ties is symmetric: its own adjoint."""
    return [r.b.op("tie_mean", h, op.args[1], **dict(op.params)), None]


define("sort(a; axis=-1, kind=None, order=None)", shape=like(0), reverse=sort_rule,
       forward=sort_tangent)
define("argsort(a; axis=-1, kind=None, order=None)", zero=True, methods=("argsort",))
define("tie_mean(g, sorted; axis=-1)", ("helper", "_tie_mean"), like(0), reverse=tie_mean_rule,
       linear=(0,), result=ARRAY)


# ---- take and take_along_axis -------------------------------------------------------------
def take_rule(r, op, g):
    """x.take(i, axis) is x[..., i] along axis: the gradient is added at i."""
    x, indices = op.args
    if op.param("mode", "raise") != "raise":
        raise NoDerivativeRuleError(
            f"`take`: mode={op.param('mode')!r} is not differentiated", op.loc,
            "take with valid indices (mode='raise'), wrapping or clipping them "
            "yourself: np.take(x, np.clip(i, 0, len(x) - 1))")
    if isinstance(indices, Const) and isinstance(indices.value, tuple):
        indices = r.b.op("array", *(Const(i) for i in indices.value), hint="indices")
    axis = op.param("axis")
    if axis is None:
        flat = r.b.op("unindex_add", g, r.b.op("ravel", x), indices)
        return [r.b.op("reshape", flat, r.b.op("shape", x)), None]
    return [_like(r, r.b.op("unindex_add", g, x, *along(axis, indices)), x), None]


def take_along_axis_rule(r, op, g):
    x, indices = op.args
    return [_like(r, r.b.op("untake_along_axis", g, x, indices, axis=_axis_of(op)), x), None]


def _axis_of(op):
    """take_along_axis's axis (-1 when not given, as NumPy 2.3 has it)."""
    return op.param("axis", -1)


def untake_along_axis_rule(r, op, h):
    return [r.b.op("take_along_axis", h, op.args[2], axis=_axis_of(op)), None, None]


define("take(a, indices; axis=None, out=None, mode='raise')", reverse=take_rule, linear=(0,),
       methods=("take",))


def _taken_along_pattern(op, facts):
    """np.take_along_axis: the indices' length along the axis, the array's and
    the indices' broadcast on every other axis (of one rank: NumPy's rule)."""
    x, indices = (facts.pattern(a) for a in op.args)
    axis = _axis_of(op)
    if x is None or indices is None or len(x) != len(indices) or not isinstance(axis, int) \
            or not -len(x) <= axis < len(x):
        return None
    axis %= len(x)
    out = []
    for k, (a, i) in enumerate(zip(x, indices)):
        made = i if k == axis else pat.broadcast([(a,), (i,)])
        if made is pat.CONFLICT:
            return None
        out.append(made if k == axis else made[0])
    return tuple(out)


# (axis=(): never a value, so generated code always writes the axis; NumPy
# before 2.3 has no default for it)
define("take_along_axis(arr, indices; axis=())", reverse=take_along_axis_rule, linear=(0,),
       pattern=_taken_along_pattern)
define("untake_along_axis(g, like, indices; axis=-1)", ("helper", "_untake_along_axis"),
       like(1), reverse=untake_along_axis_rule, linear=(0,), result=ARRAY)


# ---- diagonals and triangles --------------------------------------------------------------
def diag_rule(r, op, g):
    x = op.args[0]
    return [_like(r, r.b.op("undiag", g, x, **dict(op.params)), x)]


def undiag_rule(r, op, h):
    return [r.b.op("diag", h, **dict(op.params)), None]


def diagonal_rule(r, op, g):
    x = op.args[0]
    return [_like(r, r.b.op("undiagonal", g, x, **dict(op.params)), x)]


def undiagonal_rule(r, op, h):
    return [r.b.op("diagonal", h, **dict(op.params)), None]


def triangle_rule(r, op, g):
    """tril and triu keep entries where they are and zero the rest: the same
    mask on the gradient (summed back over the rows a vector was broadcast to)."""
    return [r.unbroadcast(r.b.op(op.prim, g, **dict(op.params)), op.args[0])]


def _diag_pattern(op, facts):
    """np.diag with k=0: a vector's square matrix, a square matrix's diagonal."""
    made = facts.pattern(op.args[0])
    if op.param("k", 0) != 0 or made is None:
        return None
    if len(made) == 1:
        return (made[0], made[0])
    if len(made) == 2 and made[0] == made[1] and pat.is_named(made[0]):
        return (made[0],)
    return None


define("diag(v; k=0)", reverse=diag_rule, linear=(0,), pattern=_diag_pattern)
define("undiag(g, like; k=0)", ("helper", "_undiag"), like(1), reverse=undiag_rule,
       linear=(0,), result=ARRAY)
define("diagonal(a; offset=0, axis1=0, axis2=1)", reverse=diagonal_rule, linear=(0,),
       methods=("diagonal",))
define("undiagonal(g, like; offset=0, axis1=0, axis2=1)", ("helper", "_undiagonal"), like(1),
       reverse=undiagonal_rule, linear=(0,), result=ARRAY)


def _triangle_shape(op, facts):
    """A matrix's triangle has its shape (a vector's is a square matrix)."""
    rank = facts.rank(op.args[0])
    return facts.key(op.args[0]) if rank is not None and rank >= 2 else op.target


def _triangle_pattern(op, facts):
    made = facts.pattern(op.args[0])
    return made if made is not None and len(made) >= 2 else None


define("tril(m; k=0)", shape=_triangle_shape, pattern=_triangle_pattern,
       reverse=triangle_rule, linear=(0,), masks=True)
define("triu(m; k=0)", shape=_triangle_shape, pattern=_triangle_pattern,
       reverse=triangle_rule, linear=(0,), masks=True)
