"""Which values may share memory: what a write into part of an array changes.

``out[i] = v`` changes the array ``out`` holds, and with it every name and
view that shares that array. The IR is functional (``out2 = setitem(out, v,
i)``), so where the write is taken to happen in place (the frontend, for the
user's code: frontend/writes.py; the pass that writes generated code's
assignments in place: optimize/writes_in_place.py) these facts say which
other values see it. They err on the safe side: an operation not known to
make a new array may return one of its operands, or a view of it.
"""
from __future__ import annotations

from .nodes import Const, IndexList, Var
from .primitive import ELEMENTWISE, REDUCTION, TABLE

# Operations whose result is a new array (or a new number), never an operand
# or a view of one, besides the elementwise functions and reductions.
_FRESH = frozenset("""
    matmul dot outer vdot inner kron cross einsum tensordot trace concatenate stack hstack
    vstack dstack column_stack append array copy where clip hypot maximum minimum fmax fmin
    cumsum cumprod diff sort take take_along_axis repeat tile pad tril triu inv solve det
    slogdet cholesky eigh eigvalsh svd svdvals qr pinv lstsq matrix_power multi_dot expm
    expm_frechet norm unindex unindex_add unindex_sum assigned snapshot draw zeros_like
    ones_like full_like float len shape array_shape ndim size output matmul_adjoint_a
    matmul_adjoint_b dot_adjoint_a dot_adjoint_b unreduce prod_others
""".split())
# NumPy functions without rules that make a new array (np.zeros(n), ...), or
# new arrays of positions (K[np.diag_indices_from(K)] += v: never a view of K).
FRESH_CALLS = frozenset("""
    zeros ones empty full arange linspace logspace geomspace eye identity zeros_like
    ones_like empty_like full_like array copy tri diag_indices diag_indices_from
    tril_indices tril_indices_from triu_indices triu_indices_from indices nonzero argwhere
    flatnonzero unravel_index
""".split())
# Operations whose result may be their first operand's array, or a view of it,
# and of no other operand (``_sum_to(g, x)`` is ``g`` or a new array); those in
# WHOLE_FIRST are its whole array (or a new one) when it is whole.
FIRST_ONLY = frozenset("""
    sum_to require_float require_scalar asarray getitem T transpose reshape ravel squeeze
    expand_dims swapaxes moveaxis rollaxis broadcast_to flip flipud fliplr atleast_1d
    atleast_2d atleast_3d diagonal stop_gradient straight_through backward_as pass_gradient
    custom_value setitem assign add_into add_at matrix_transpose
""".split())
WHOLE_FIRST = frozenset("""
    sum_to require_float require_scalar asarray stop_gradient straight_through backward_as
    pass_gradient custom_value setitem assign add_into add_at T transpose matrix_transpose
    swapaxes moveaxis flip flipud fliplr reshape ravel
""".split())  # (a transpose, a flip, a reshape: every entry of the array, in another order)
# Where an operation reads an operand only for its shape (and dtype), which a
# write into the operand's entries does not change.
SHAPE_ONLY = frozenset({("sum_to", 1), ("unindex", 1), ("unindex_add", 1),
                        ("unindex_sum", 2), ("assigned", 1), ("zeros_like", 0),
                        ("ones_like", 0), ("full_like", 0), ("shape", 0),
                        ("array_shape", 0), ("len", 0), ("ndim", 0), ("size", 0),
                        ("unreduce", 1)})


def is_fresh(op):
    """Whether ``op``'s result is surely a new array (or number)."""
    record = TABLE.get(op.prim)
    if record is None:
        return False
    kind = record.spelling[0]
    if kind == "identity":
        return False
    if kind in ("binop", "unary", "compare"):
        return True
    if op.prim == "npcall":
        return op.param("func") in FRESH_CALLS
    if op.prim == "astype":
        return op.param("copy", True) is not False
    if op.prim == "getitem":
        return advanced_index(op.args[1:])
    if record.shape in (ELEMENTWISE, REDUCTION) and kind in ("np", "module", "helper"):
        return op.prim not in ("require_float", "require_scalar")
    return op.prim in _FRESH or record.makes_arrays


def numpy_item(op, facts):
    """Whether ``op`` is ``x[i]`` / ``x[i, j]``, an integer per axis of a
    NumPy array: a NumPy scalar, a copy (``t = y[j]; y[j] = y[j + 1]`` keeps
    ``t``). Known only from a signature: a row ``m[i]`` of a matrix is a view,
    and so is a 0-d item of another library's array (a torch tensor's)."""
    if op.prim != "getitem" or not facts.signature or any(
            sig.kind == "array" and sig.library != "numpy" for sig in facts.signature.values()):
        return False
    index = op.args[1:]
    return facts.rank(op.args[0]) == len(index) and facts.pattern(op.target) == () \
        and all(_integer(facts, i) for i in index)


def maybe_item(op, facts):
    """Whether ``op`` may be a `numpy_item` the arguments' signature would
    show (``y[j]``, without one): an index of numbers and names only."""
    return op.prim == "getitem" and not facts.signature and all(
        isinstance(i, Var) or isinstance(i, Const) and _integer(facts, i) for i in op.args[1:])


def _integer(facts, atom):
    """Whether ``atom`` is surely an integer number (not a bool, an array or a slice)."""
    if isinstance(atom, Const):
        return isinstance(atom.value, int) and not isinstance(atom.value, bool)
    found = facts.dtype(atom)
    integral = found is int or not isinstance(found, type) and found is not None \
        and found.kind in "iu"
    return integral and facts.is_scalar(atom)


def advanced_index(index):
    """Whether an index (atoms) surely selects by NumPy's advanced indexing,
    which copies: a list or integer array written as a constant."""
    return any(isinstance(p, Const) and isinstance(p.value, IndexList) for p in index)


def shape_only(prim, position):
    """Whether operand ``position`` of ``prim`` is read only for its shape."""
    return (prim, position) in SHAPE_ONLY
