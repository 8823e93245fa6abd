"""Operations that move entries without changing them: transposes, reshapes,
rolls and rotations, concatenation, indexing, casts, and arrays made like another.

All are linear, so their forward rules are derived (the primitive applied to
the tangents); their reverse rules put each entry's gradient back where the
entry came from. ``_unindex`` (``g`` placed at ``x[index]`` in zeros) is the
adjoint of indexing in generated code.
"""
from __future__ import annotations

import numpy as np

from ..errors import NoDerivativeRuleError
from ..ir.nodes import Const, Var
from ..ir.primitive import ARRAY, INDEX, NEW, TABLE, define, like
from .axis_patterns import (at_least_pattern, expanded_pattern, joined_pattern, moved_pattern,
                            reshaped_pattern, rotated_pattern, squeezed_pattern,
                            stacked_pattern, swapped_axes_pattern, transposed_pattern)
from .positions import is_index_array, unique_together


# ---- transposes and reshapes ---------------------------------------------------------------
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
    return [_reshaped_back(r, g, x)] + [None] * (len(op.args) - 1)


def _reshaped_back(r, g, x):
    """``g`` in ``x``'s shape; a number as ``np.full_like(x, g)``, in x's dtype
    (``np.reshape(1.0, shape)`` is a float64 array, which would make a float32
    argument's gradient float64)."""
    if isinstance(g, Const) and isinstance(g.value, (int, float)):
        return r.b.op("full_like", x, g)
    return r.b.op("reshape", g, r.b.op("shape", x))


def swapaxes_rule(r, op, g):
    return [r.b.op("swapaxes", g, **dict(op.params))]


def flip_rule(r, op, g):
    return [r.b.op("flip", g, **dict(op.params))]


def broadcast_to_rule(r, op, g):
    return [r.unbroadcast(g, op.args[0]), None]


define("T(a)", ("attr", "T"), NEW, reverse=T_rule, linear=(0,), attribute="T",
       pattern=transposed_pattern, moves=True)
define("transpose(a; axes=None)", reverse=transpose_rule, linear=(0,),
       aliases=("permute_dims",), methods=("transpose",), pattern=transposed_pattern,
       moves=True)
define("reshape(a, shape)", reverse=reshape_rule, linear=(0,), methods=("reshape",),
       pattern=reshaped_pattern, moves=True)
define("ravel(a)", reverse=reshape_rule, linear=(0,), methods=("ravel", "flatten"),
       pattern=lambda op, facts: (None,), moves=True)


def _expanded_key(op, facts):
    """``np.expand_dims(np.max(x, axis=1), 1)`` has the shape of ``np.max(x,
    axis=1, keepdims=True)``."""
    axis = op.param("axis")
    kept = facts.kept_again(op.args[0],
                            [Const(slice(None))] * axis + [Const(None)]) \
        if isinstance(axis, int) and not isinstance(axis, bool) and axis >= 0 else None
    return kept if kept is not None else op.target


define("expand_dims(a; axis=None)", shape=_expanded_key, reverse=reshape_rule, linear=(0,),
       pattern=expanded_pattern, moves=True)
define("squeeze(a; axis=None)", reverse=reshape_rule, linear=(0,), methods=("squeeze",),
       moves=True, pattern=squeezed_pattern)
define("swapaxes(a; axis1=None, axis2=None)", reverse=swapaxes_rule, linear=(0,),
       methods=("swapaxes",), moves=True, pattern=swapped_axes_pattern)
define("flip(a; axis=None)", shape=like(0), reverse=flip_rule, linear=(0,), moves=True)
define("broadcast_to(a, shape)", reverse=broadcast_to_rule, linear=(0,))


# ---- rolls, rotations and moved axes: each undone by its inverse ----------------------------
def roll_rule(r, op, g):
    return [r.b.op("roll", g, _negated(r.b, op.args[1]), **dict(op.params)), None]


def _negated(b, shift):
    """``-shift`` for a shift that is a number or a tuple of them."""
    if isinstance(shift, Const):
        value = shift.value
        return Const(tuple(-s for s in value) if isinstance(value, tuple) else -value)
    made = b.facts.producer(shift)
    if made is not None and made.prim == "tuple":  # (n, 1): each negated
        return b.op("tuple", *(_negated(b, item) for item in made.args))
    return b.neg(shift)


def rot90_rule(r, op, g):
    return [r.b.op("rot90", g, k=-op.param("k", 1), axes=op.param("axes", (0, 1)))]


def moveaxis_rule(r, op, g):
    return [r.b.op("moveaxis", g, source=op.param("destination"),
                   destination=op.param("source"))]


def rollaxis_rule(r, op, g):
    """np.rollaxis(a, i, s) is np.moveaxis(a, i, d), d = s - 1 where s comes
    after i, else s; undone by moving d back to i. Which holds needs the rank
    when one of i and s counts from the end and the other from the start."""
    i, s = op.param("axis"), op.param("start", 0)
    if s == 0 or (i < 0) == (s < 0):
        d = s - 1 if s != 0 and s > i else s
        return [r.b.op("moveaxis", g, source=d, destination=i)]
    raise NoDerivativeRuleError(
        "`rollaxis`: with one of axis and start negative and the other positive, "
        "where the axis goes depends on the rank", op.loc,
        "write np.moveaxis(x, source, destination), which says where it goes")


def atleast_rule(r, op, g):
    return [_reshaped_back(r, g, op.args[0])]


define("roll(a, shift; axis=None)", shape=like(0), reverse=roll_rule, linear=(0,), moves=True)
define("rot90(m; k=1, axes=(0, 1))", reverse=rot90_rule, linear=(0,), moves=True,
       pattern=rotated_pattern)
define("moveaxis(a; source=None, destination=None)", reverse=moveaxis_rule, linear=(0,),
       moves=True, pattern=moved_pattern)
define("rollaxis(a; axis=None, start=0)", reverse=rollaxis_rule, linear=(0,), moves=True)
define("flipud(m)", shape=like(0), reverse=lambda r, op, g: [r.b.op("flipud", g)],
       linear=(0,), moves=True)
define("fliplr(m)", shape=like(0), reverse=lambda r, op, g: [r.b.op("fliplr", g)],
       linear=(0,), moves=True)
for _rank in (1, 2, 3):
    define(f"atleast_{_rank}d(a)", reverse=atleast_rule, linear=(0,), moves=True,
           pattern=at_least_pattern(_rank))


# ---- casts: the gradient goes back in the input's precision ---------------------------------
def _cast_kind(op):
    """"f" for a cast to floating point, "flat" to integers or booleans (a
    step function, as floor: zero derivative); an error for anything else."""
    kind = np.dtype(op.param("dtype")).kind
    if kind in "iub":
        return "flat"
    if kind != "f":
        raise NoDerivativeRuleError(
            f"`astype`: a cast to {np.dtype(op.param('dtype'))} is not differentiated", op.loc,
            "cast to a floating-point type (float32, float64)")
    return kind


def astype_rule(r, op, g):
    if _cast_kind(op) == "flat":
        return [None]
    want, got = r.b.facts.dtype(op.args[0]), r.b.facts.dtype(g)
    if isinstance(want, np.dtype) and want.kind == "f" and isinstance(got, np.dtype):
        # (where the signature tells the dtypes: g itself, or g cast as x.astype casts)
        return [g if got == want else r.b.op("astype", g, dtype=want.name)]
    return [r.b.op("full_like", op.args[0], g)]  # g, in the shape and precision of x


def astype_tangent(b, op, dargs):
    if dargs[0] is None or _cast_kind(op) == "flat":
        return None
    return b.op("astype", dargs[0], **dict(op.params))


define("astype(a; dtype=None, copy=True)", ("method", "astype"), like(0), reverse=astype_rule,
       forward=astype_tangent, methods=("astype",), result=ARRAY)


# ---- joining arrays -----------------------------------------------------------------------
def concatenate_rule(r, op, g):
    axis = op.param("axis", 0)
    grads, start = [], Const(0)
    for i, x in enumerate(op.args):
        if i == len(op.args) - 1:
            stop = Const(None)
        else:
            stop = r.b.add(start, r.b.op("getitem", r.b.op("shape", x), Const(axis)))
        piece = r.b.op("slice", start, stop, Const(None))
        grads.append(r.b.op("getitem", g, *along(axis, piece)) if r.wants(x) else None)
        start = stop
    return grads


def stack_rule(r, op, g):
    axis = op.param("axis", 0)
    return [r.b.op("getitem", g, *along(axis, Const(i))) if r.wants(x) else None
            for i, x in enumerate(op.args)]


def along(axis, index):
    """An index selecting ``index`` along ``axis`` (which may be negative)."""
    if axis >= 0:
        return [Const(slice(None))] * axis + [index]
    return [Const(Ellipsis), index] + [Const(slice(None))] * (-axis - 1)


def array_rule(r, op, g):
    dtype = op.param("dtype")
    if dtype is not None and np.dtype(dtype).kind != "f":
        return [None] * len(op.args)  # integers: a step function, no derivative
    return [r.b.op("getitem", g, Const(i)) if r.wants(x) else None
            for i, x in enumerate(op.args)]


define("concatenate(*arrays; axis=0)", reverse=concatenate_rule, linear="all",
       aliases=("concat",), moves="all", pattern=joined_pattern)
define("stack(*arrays; axis=0)", reverse=stack_rule, linear="all", moves="all",
       pattern=stacked_pattern)


def array_tangent(b, op, dargs):
    dtype = op.param("dtype")
    if dtype is not None and np.dtype(dtype).kind != "f" or all(d is None for d in dargs):
        return None
    parts = [d if d is not None else b.op("zeros_like", x) for x, d in zip(op.args, dargs)]
    return b.op("array", *parts, **dict(op.params))


define("array(*items; dtype=None)", reverse=array_rule, forward=array_tangent, linear="all",
       pattern=stacked_pattern)
# np.array(x) of one array (calls.py), np.copy(x), x.copy(): the same values
define("copy(a)", shape=like(0), passes=True, methods=("copy",))
define("asarray(a)", shape=like(0), passes=True)
# a tuple of values NumPy reads as an array (a shape, or a small vector)
define("tuple(*items)", ("tuple",), reverse=array_rule, linear="all")


# ---- indexing -------------------------------------------------------------------------------
def getitem_rule(r, op, g):
    x, *index = op.args
    if _whole(index):  # x[()]: x itself, or its scalar (see emit/scalar_results.py)
        return [g] + [None] * len(index)
    if _new_axes(index):  # x[None, :, :]: g[0, :, :], the same entries
        return [_first_along(r.b, g, index)] + [None] * len(index)
    prim = "unindex" if _no_repeats(r.b, index) else "unindex_add"
    return [r.b.op(prim, g, x, *index)] + [None] * len(index)


def _no_repeats(b, index):
    """Whether ``index`` names each entry at most once, so the gradient is
    placed, not added up: slices, integers, masks (``x[m]``, ``x[:, m]``,
    ``x[m, 1:]``), and the positions of a mask; not an integer array."""
    arrays = [i for i in index if not (isinstance(i, Const) and _basic(i.value)
                                       or _one_position(b, i)) and is_index_array(b.facts, i)]
    return not arrays or all(isinstance(i, Var) for i in arrays) and \
        unique_together(b.facts, arrays)


def _basic(part):
    """An index part that picks each entry at most once (NumPy's basic indexing):
    its gradient is placed, not added up."""
    return part is None or part is Ellipsis or isinstance(part, slice) \
        or isinstance(part, int) and not isinstance(part, bool)


def _one_position(b, atom):
    """A computed index part that picks one position along its axis (an integer
    scalar: a loop's counter, ``i - 1``) or a slice: no repeats."""
    op = b.facts.producer(atom)
    if op is not None and op.prim == "slice":
        return True
    record = TABLE.get(op.prim) if op is not None else None
    return b.facts.is_scalar(atom) and not (record is not None and record.boolean)


def _new_axes(index):
    """An index that only adds axes of length one (``[None, :, :]``, ``[:, None]``)."""
    parts = [i.value if isinstance(i, Const) else i for i in index]
    return any(p is None for p in parts) and all(
        p is None or p == slice(None) and isinstance(p, slice) for p in parts)


def _first_along(b, g, index):
    """``g[0, :, :]`` for ``index`` ``[None, :, :]``; ``np.sum(t, axis=0)`` where
    ``g`` is the gradient's ``np.sum(t, axis=0, keepdims=True)``."""
    made = b.facts.producer(g)
    axes = tuple(k for k, i in enumerate(index) if i.value is None)
    if made is not None and made.backward and made.prim == "sum" and made.param("keepdims") \
            and (made.param("axis"),) in (axes, (axes[0] if len(axes) == 1 else None,)):
        return b.op("sum", made.args[0], axis=made.param("axis"))
    return b.op("getitem", g, *(Const(0) if i.value is None else i for i in index))


def _whole(index):
    return all(isinstance(i, Const) and isinstance(i.value, tuple) and not i.value
               for i in index)


def unindex_rule(r, op, g):
    """The transpose of ``zeros[index] = g``: ``g[index]``; where an advanced
    index may repeat a position, only the entry whose value stays there."""
    placed, like_, *index = op.args
    if _no_repeats(r.b, index):
        part = r.b.op("getitem", g, *index)
    else:
        part = r.b.op("assigned", g, like_, *index)
    # (a number broadcast into the place, optimize/spreads.py: its sum)
    return [r.unbroadcast(part, placed), None] + [None] * len(index)


def unindex_add_rule(r, op, g):
    """The transpose of adding ``g`` at each position ``index`` names: ``g[index]``
    (summed to ``g``'s shape: a number spread into the places, its sum)."""
    placed, _, *index = op.args
    return [r.unbroadcast(r.b.op("getitem", g, *index), placed), None] + [None] * len(index)


def unindex_sum_rule(r, op, g):
    """``_unindex(a + b, like, index)``: a and b each get g[index]."""
    a, b, _, *index = op.args
    part = r.b.op("getitem", g, *index)
    return [r.unbroadcast(part, a), r.unbroadcast(part, b), None] + [None] * len(index)


def unindex_sum_tangent(b, op, dargs):
    """``_unindex(a + b, like, index)`` is linear in a + b."""
    if dargs[0] is None and dargs[1] is None:
        return None
    return b.op("unindex", b.total(dargs[:2]), *op.args[2:])


define("getitem(a, *index)", ("subscript",), INDEX, reverse=getitem_rule, linear=(0,))
define("slice(start, stop, step)", ("slice",), NEW, zero=True)
# the gradient of x[index]: g placed there in zeros (repeated positions added up)
define("unindex(g, like, *index)", ("helper", "_unindex"), like(1), reverse=unindex_rule,
       linear=(0,), result=ARRAY)
define("unindex_add(g, like, *index)", ("helper", "_unindex_add"), like(1),
       reverse=unindex_add_rule, linear=(0,), result=ARRAY)
define("unindex_sum(a, b, like, *index)", ("helper", "_unindex_sum"), like(2),
       reverse=unindex_sum_rule, forward=unindex_sum_tangent, result=ARRAY)
# the same as unindex for slices of step 1, spelled as a pad (optimize/fused_forms.py)
define("padded(g, like, *index)", ("helper", "_padded"), like(1), reverse=unindex_rule,
       linear=(0,), result=ARRAY)


# ---- arrays made like another ---------------------------------------------------------------
def full_like_rule(r, op, g):
    """np.full_like(a, v) broadcasts v: linear in v, constant in a."""
    return [None, r.b.op("sum_to", g, op.args[1])]


define("zeros_like(a)", shape=like(0), zero=True, makes_arrays=True)
define("ones_like(a)", shape=like(0), zero=True, makes_arrays=True)
# its values are whatever memory held, written over before they are read: no gradient
define("empty_like(a)", shape=like(0), zero=True, makes_arrays=True)
define("full_like(a, fill_value)", shape=like(0), reverse=full_like_rule, linear=(1,),
       makes_arrays=True)


# ---- np.c_'s columns ------------------------------------------------------------------------
define("c_column(a)", ("helper", "_c_column"), NEW, reverse=reshape_rule, linear=(0,),
       result=ARRAY, doc="np.c_[a, b]: a part as a column (1-d: (n, 1); 0-d: (1, 1))")
