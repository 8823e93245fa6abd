"""Operations that move entries without changing them: transposes, reshapes,
joins, indexing, and arrays made like another.

All are linear, so their forward rules are derived (the primitive applied to
the tangents); their reverse rules put each entry's gradient back where the
entry came from. ``_unindex`` (``g`` placed at ``x[index]`` in zeros) is the
adjoint of indexing in generated code.
"""
from __future__ import annotations

from ..ir.nodes import Const
from ..ir.primitive import ARRAY, INDEX, NEW, define, like


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
    return [r.b.op("reshape", g, r.b.op("shape", x))] + [None] * (len(op.args) - 1)


def swapaxes_rule(r, op, g):
    return [r.b.op("swapaxes", g, **dict(op.params))]


def flip_rule(r, op, g):
    return [r.b.op("flip", g, **dict(op.params))]


def broadcast_to_rule(r, op, g):
    return [r.unbroadcast(g, op.args[0]), None]


define("T(a)", ("attr", "T"), NEW, reverse=T_rule, linear=(0,), attribute="T")
define("transpose(a; axes=None)", reverse=transpose_rule, linear=(0,),
       aliases=("permute_dims",), methods=("transpose",))
define("reshape(a, shape)", reverse=reshape_rule, linear=(0,), methods=("reshape",))
define("ravel(a)", reverse=reshape_rule, linear=(0,), methods=("ravel", "flatten"))
define("expand_dims(a; axis=None)", reverse=reshape_rule, linear=(0,))
define("squeeze(a; axis=None)", reverse=reshape_rule, linear=(0,), methods=("squeeze",))
define("swapaxes(a; axis1=None, axis2=None)", reverse=swapaxes_rule, linear=(0,),
       methods=("swapaxes",))
define("flip(a; axis=None)", shape=like(0), reverse=flip_rule, linear=(0,))
define("broadcast_to(a, shape)", reverse=broadcast_to_rule, linear=(0,))


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
        grads.append(r.b.op("getitem", g, *_along(axis, piece)) if r.wants(x) else None)
        start = stop
    return grads


def stack_rule(r, op, g):
    axis = op.param("axis", 0)
    return [r.b.op("getitem", g, *_along(axis, Const(i))) if r.wants(x) else None
            for i, x in enumerate(op.args)]


def _along(axis, index):
    """An index selecting ``index`` along ``axis`` (which may be negative)."""
    if axis >= 0:
        return [Const(slice(None))] * axis + [index]
    return [Const(Ellipsis), index] + [Const(slice(None))] * (-axis - 1)


def array_rule(r, op, g):
    return [r.b.op("getitem", g, Const(i)) if r.wants(x) else None
            for i, x in enumerate(op.args)]


define("concatenate(*arrays; axis=0)", reverse=concatenate_rule, linear="all",
       aliases=("concat",))
define("stack(*arrays; axis=0)", reverse=stack_rule, linear="all")
define("hstack(*arrays)")  # no derivative rule yet
define("vstack(*arrays)")  # no derivative rule yet
define("array(*items)", reverse=array_rule, linear="all")
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
    basic = all(isinstance(i, Const) and _basic(i.value) for i in index)
    prim = "unindex" if basic else "unindex_add"
    return [r.b.op(prim, g, x, *index)] + [None] * len(index)


def _basic(part):
    """An index part that picks each entry at most once (NumPy's basic indexing):
    its gradient is placed, not added up."""
    return part is None or part is Ellipsis or isinstance(part, slice) \
        or isinstance(part, int) and not isinstance(part, bool)


def _whole(index):
    return all(isinstance(i, Const) and isinstance(i.value, tuple) and not i.value
               for i in index)


def unindex_rule(r, op, g):
    _, _, *index = op.args
    return [r.b.op("getitem", g, *index), None] + [None] * len(index)


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
       reverse=unindex_rule, linear=(0,), result=ARRAY)
define("unindex_sum(a, b, like, *index)", ("helper", "_unindex_sum"), like(2),
       reverse=unindex_sum_rule, forward=unindex_sum_tangent, result=ARRAY)


# ---- arrays made like another -----------------------------------------------------------------
def full_like_rule(r, op, g):
    """np.full_like(a, v) broadcasts v: linear in v, constant in a."""
    return [None, r.b.op("sum_to", g, op.args[1])]


define("zeros_like(a)", shape=like(0), zero=True, makes_arrays=True)
define("ones_like(a)", shape=like(0), zero=True, makes_arrays=True)
define("full_like(a, fill_value)", shape=like(0), reverse=full_like_rule, linear=(1,),
       makes_arrays=True)
