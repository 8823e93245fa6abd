"""Joining, splitting and copying arrays: hstack, vstack, dstack,
column_stack, append, insert, the split family, repeat, tile and pad.

All are linear: forward rules are derived. A join's adjoint hands each array
its block of the gradient, in its own shape; where that block lies needs
only the array's shape once joined, which NumPy's own ``atleast_*d`` gives
whatever the rank (the rules never know ranks). The others have a runtime
helper as adjoint (``_unrepeat``, ``_untile``, ``_unpad``, ``_unsplit``: see
runtime/layout_adjoints.py), whose own adjoint is the NumPy function again.
"""
from __future__ import annotations

from ..errors import NoDerivativeRuleError
from ..ir.nodes import Const
from ..ir.primitive import ARRAY, NEW, define, like
from .axis_patterns import stacked_pattern_of
from .shapes import along
from .writes import _checked


def _like(r, value, like_):
    """Tell the shape facts that ``value`` has exactly the shape of ``like_``."""
    r.facts.shape[value] = r.facts.key(like_)
    return value


# ---- hstack, vstack, dstack, column_stack: blocks of the gradient ---------------------------
def _blocks(r, arrays, g, axis, width, reshape=True):
    """Each of ``arrays``' gradient: its block of ``g`` along ``axis`` (``g``
    as the join lays it out), reshaped to the array's own shape (``reshape``
    False: the block has it). ``width(x)`` is how many entries ``x`` has
    along ``axis`` once joined."""
    grads, start = [], Const(0)
    for i, x in enumerate(arrays):
        stop = Const(None) if i == len(arrays) - 1 else r.b.add(start, width(x))
        if r.wants(x):
            part = r.b.op("slice", start, stop, Const(None), hint=f"{x.hint}_place")
            block = r.b.op("getitem", g, *along(axis, part), hint=f"{x.hint}_block")
            grads.append(_like(r, r.b.op("reshape", block, r.b.op("shape", x))
                               if reshape else block, x))
        else:
            grads.append(None)
        start = stop
    return grads


def _one_rank(r, arrays):
    """The rank every one of ``arrays`` has, where a specialised gradient
    knows it (then the blocks need no np.atleast_2d), else None."""
    ranks = {r.facts.rank(x) if r.facts.signature else None for x in arrays}
    return ranks.pop() if len(ranks) == 1 else None


def _length(b, x, axis):
    return b.op("getitem", b.op("shape", x), Const(axis))


def _along_shape(b, x, promote, axis):
    """``np.shape(np.<promote>(x))[axis]``."""
    return b.op("getitem", b.op("shape", b.op(promote, x)), Const(axis))


def vstack_rule(r, op, g):
    """Rows: each array as np.atleast_2d makes it, joined along axis 0."""
    if (_one_rank(r, op.args) or 0) >= 2:  # (matrices: rows of g, as they are)
        return _blocks(r, op.args, g, 0, lambda x: _length(r.b, x, 0), reshape=False)
    return _blocks(r, op.args, g, 0, lambda x: _along_shape(r.b, x, "atleast_2d", 0))


def dstack_rule(r, op, g):
    """Depth: each array as np.atleast_3d makes it, joined along axis 2."""
    return _blocks(r, op.args, g, 2, lambda x: _along_shape(r.b, x, "atleast_3d", 2))


def hstack_rule(r, op, g):
    """Vectors end to end, arrays of higher rank along axis 1: both are axis
    1 of np.atleast_2d (a vector becomes one row), of the arrays and of g."""
    rank = _one_rank(r, op.args) or 0
    if rank:  # (vectors end to end, or columns of matrices: g's, as they are)
        axis = 0 if rank == 1 else 1
        return _blocks(r, op.args, g, axis, lambda x: _length(r.b, x, axis), reshape=False)
    wide = r.b.op("atleast_2d", g)
    return _blocks(r, op.args, wide, 1, lambda x: _along_shape(r.b, x, "atleast_2d", 1))


def column_stack_rule(r, op, g):
    """Vectors (and numbers) as one column each, arrays of higher rank as
    they are, along axis 1: a vector's width is 1, a matrix's its columns,
    which is axis 1 of the array with a last axis of length 1 added."""
    def width(x):
        column = r.b.op("expand_dims", r.b.op("atleast_1d", x), axis=-1)
        return r.b.op("getitem", r.b.op("shape", column), Const(1))
    return _blocks(r, op.args, g, 1, width)


define("hstack(*arrays)", reverse=hstack_rule, linear="all", moves="all",
       pattern=stacked_pattern_of("h", 1))
define("vstack(*arrays)", reverse=vstack_rule, linear="all", aliases=("row_stack",), moves="all",
       pattern=stacked_pattern_of("v", 0))
define("dstack(*arrays)", reverse=dstack_rule, linear="all", moves="all")
define("column_stack(*arrays)", reverse=column_stack_rule, linear="all", moves="all",
       pattern=stacked_pattern_of("c", 1))


# ---- append ---------------------------------------------------------------------------------
def append_rule(r, op, g):
    """np.append(a, v) joins the flattened arrays; with an axis, as concatenate."""
    arr, values = op.args
    axis = op.param("axis")
    if axis is None:
        return _blocks(r, op.args, g, 0, lambda x: r.b.op("size", x))
    return _blocks(r, op.args, g, axis,
                   lambda x: r.b.op("getitem", r.b.op("shape", x), Const(axis)))


define("append(arr, values; axis=None)", reverse=append_rule, linear="all", moves="all")


# ---- insert: where NumPy put each entry, found by inserting labels --------------------------
def insert_rule(r, op, g):
    """``arr`` gets ``g`` where its entries went, ``values`` where each value
    went (added up over the copies broadcasting made): `_uninsert`,
    `_inserted` (runtime/layout_adjoints.py) ask np.insert itself."""
    arr, obj, values = op.args
    grads = [None, None, None]
    if r.wants(arr):
        grads[0] = _like(r, r.b.op("uninsert", g, arr, obj, values, **dict(op.params)), arr)
    if r.wants(values):
        _checked(r.b, op)  # (inserted into an integer array, a value is truncated)
        grads[2] = _like(r, r.b.op("inserted", g, arr, obj, values, **dict(op.params)),
                         values)
    return grads


def insert_tangent(b, op, dargs):
    da, _, dv = dargs
    if da is None and dv is None:
        return None
    arr, obj, values = op.args
    if dv is not None:
        _checked(b, op)
    return b.op("insert", da if da is not None else b.op("zeros_like", arr), obj,
                dv if dv is not None else b.op("zeros_like", values), **dict(op.params))


def uninsert_rule(r, op, h):
    _, _, obj, values = op.args
    return [r.b.op("insert", h, obj, r.b.op("zeros_like", values), **dict(op.params)),
            None, None, None]


def inserted_rule(r, op, h):
    _, like_, obj, _ = op.args
    return [r.b.op("insert", r.b.op("zeros_like", like_), obj, h, **dict(op.params)),
            None, None, None]


define("insert(arr, obj, values; axis=None)", reverse=insert_rule, forward=insert_tangent)
define("uninsert(g, like, obj, values; axis=None)", ("helper", "_uninsert"), like(1),
       reverse=uninsert_rule, linear=(0,), result=ARRAY)
define("inserted(g, like, obj, values; axis=None)", ("helper", "_inserted"), like(3),
       reverse=inserted_rule, linear=(0,), result=ARRAY)


# ---- the split family: one piece each -------------------------------------------------------
# np.split(x, 3) returns a list; the frontend (frontend/numpy_forms.py) makes
# each piece one `split_part`, written np.split(x, 3)[0]: NumPy's own
# boundaries and errors. `_unsplit` puts a piece's gradient back in its place.
def _split_params(op):
    """Which piece of which split: every parameter, defaults included."""
    return {"index": op.param("index", 0), "sections": op.param("sections", 1),
            "axis": op.param("axis", 0), "how": op.param("how", "split")}


def split_part_rule(r, op, g):
    return [r.b.op("unsplit", g, op.args[0], **_split_params(op))]


def unsplit_rule(r, op, h):
    return [r.b.op("split_part", h, **_split_params(op)), None]


SPLITS = ("split", "array_split", "hsplit", "vsplit", "dsplit")
define("split_part(a; index=0, sections=1, axis=0, how='split')", ("np_part",), NEW,
       reverse=split_part_rule, linear=(0,), result=ARRAY)
define("unsplit(g, like; index=0, sections=1, axis=0, how='split')", ("helper", "_unsplit"),
       like(1), reverse=unsplit_rule, linear=(0,), result=ARRAY)


# ---- repeat and tile: the copies added up ---------------------------------------------------
def repeat_rule(r, op, g):
    x, repeats = op.args
    return [_like(r, r.b.op("unrepeat", g, x, repeats, **dict(op.params)), x), None]


def unrepeat_rule(r, op, h):
    _, _, repeats = op.args
    return [r.b.op("repeat", h, repeats, **dict(op.params)), None, None]


def tile_rule(r, op, g):
    x, reps = op.args
    return [_like(r, r.b.op("untile", g, x, reps), x), None]


def untile_rule(r, op, h):
    return [r.b.op("tile", h, op.args[2]), None, None]


define("repeat(a, repeats; axis=None)", reverse=repeat_rule, linear=(0,), methods=("repeat",))
define("unrepeat(g, like, repeats; axis=None)", ("helper", "_unrepeat"), like(1),
       reverse=unrepeat_rule, linear=(0,), result=ARRAY)
define("tile(A, reps)", reverse=tile_rule, linear=(0,))
define("untile(g, like, reps)", ("helper", "_untile"), like(1), reverse=untile_rule,
       linear=(0,), result=ARRAY)


# ---- pad: the border's gradient goes to the entries it copies -------------------------------
_COPYING = ("constant", "edge", "reflect", "symmetric", "wrap")


def _copying_mode(op):
    mode, kind = op.param("mode", "constant"), op.param("reflect_type", "even")
    if mode not in _COPYING or kind != "even":
        what = f"mode={mode!r}" if mode not in _COPYING else f"reflect_type={kind!r}"
        raise NoDerivativeRuleError(
            f"`pad`: {what} is not differentiated", op.loc,
            "pad with mode 'constant', 'edge', 'reflect', 'symmetric' or 'wrap' "
            "(modes that copy entries)")
    return {k: v for k, v in op.params if k in ("mode", "reflect_type")}


def pad_rule(r, op, g):
    x, width = op.args
    return [_like(r, r.b.op("unpad", g, x, width, **_copying_mode(op)), x), None]


def pad_tangent(b, op, dargs):
    """Linear but for ``constant_values``, which the tangent pads with 0."""
    if dargs[0] is None:
        return None
    return b.op("pad", dargs[0], op.args[1], **_copying_mode(op))


def unpad_rule(r, op, h):
    return [r.b.op("pad", h, op.args[2], **dict(op.params)), None, None]


define("pad(array, pad_width; mode='constant', constant_values=0, reflect_type='even')",
       reverse=pad_rule, forward=pad_tangent)
define("unpad(g, like, pad_width; mode='constant', reflect_type='even')", ("helper", "_unpad"),
       like(1), reverse=unpad_rule, linear=(0,), result=ARRAY)
