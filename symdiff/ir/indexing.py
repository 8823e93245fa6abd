"""What an index does to a shape: the pattern and the shape class of ``x[index]``.

Basic indices (ints, slices, None, ``...``) keep, drop or add axes. Advanced
ones (integer arrays, boolean masks) replace the axes they index by the
shape of the indices broadcast together: in place where they are adjacent,
first otherwise (NumPy's rule). ``z[np.arange(n), labels]`` of a matrix z is
a vector of labels' length, ``P[i]`` of rows ``i`` a matrix of P's columns.

Shape classes: ``x[1:]`` and ``x[:-1]`` have one shape, so do ``x[i]`` and
``x[j]`` for integer arrays ``i`` and ``j`` of one shape (the two halves of
``np.triu_indices(n, 1)``): an advanced index's result does not depend on
its values, only its shape. A boolean mask's does, so each mask is its own.
"""
from __future__ import annotations

import numpy as np

from . import patterns as pat
from .nodes import Const, Var
from .primitive import REDUCTION, SCALAR, TABLE

# NumPy functions whose result is a tuple of index arrays of one shape, with
# the rank of each array (None: not known from the call)
INDEX_TUPLES = {"triu_indices": 1, "tril_indices": 1, "nonzero": 1, "where": 1,
                "diag_indices": 1, "unravel_index": None, "meshgrid": None}


def index_tuple(facts, atom):
    """The npcall making the tuple of index arrays ``atom`` is, or None."""
    made = facts.producer(atom)
    if made is not None and made.prim == "npcall" and made.param("func") in INDEX_TUPLES \
            and not (made.param("func") == "where" and len(made.args) != 1):
        return made
    return None


def tuple_part_pattern(facts, op):
    """The pattern of ``indices[k]`` of a tuple of index arrays; None if not
    known. ``np.diag_indices(n)``'s arrays have n entries."""
    made = index_tuple(facts, op.args[0])
    if made is None or len(op.args) != 2 or not isinstance(op.args[1], Const) \
            or not isinstance(op.args[1].value, int) or INDEX_TUPLES[made.param("func")] is None:
        return None
    if made.param("func") == "diag_indices" and made.args:
        return (facts.length(made.args[0]),)
    return (None,)


def index_pattern(facts, op):
    """The pattern of ``op`` (a getitem), or None."""
    found = tuple_part_pattern(facts, op)
    if found is not None:
        return found
    parts = []
    for part in op.args[1:]:
        if isinstance(part, Const):
            parts.append(part.value)
            continue
        dtype, rank = facts.dtype(part), facts.rank(part)
        if dtype is int and facts.is_scalar(part):
            parts.append(0)  # an int known when the code runs (a loop's index)
        elif isinstance(dtype, np.dtype) and dtype.kind in "iu" and rank is not None:
            parts.append(("take", facts.pattern(part)))
        elif isinstance(dtype, np.dtype) and dtype.kind == "b" and rank:
            parts.append(("mask", rank))
        else:
            return None
    return indexed(facts.pattern(op.args[0]), parts)


def indexed(pattern, index):
    """The pattern of ``x[index]``: ``index`` of constants (ints, slices,
    None, Ellipsis) and advanced parts ``("take", pattern)`` (an integer
    array) or ``("mask", rank)`` (a boolean array); None if not known."""
    if pattern is None:
        return None
    parts = list(index)
    if not any(_advanced_array(p) for p in parts):
        return pat.indexed(pattern, parts)
    if parts.count(Ellipsis) > 1:
        return None
    if Ellipsis in parts:
        at = parts.index(Ellipsis)
        used = sum(_width(p) for p in parts if p is not Ellipsis)
        parts[at:at + 1] = [slice(None)] * (len(pattern) - used)
    advanced = [k for k, p in enumerate(parts) if _advanced_array(p) or _integer(p)]
    shapes = [((None,) if p[0] == "mask" else p[1]) if type(p) is tuple else ()
              for p in (parts[k] for k in advanced)]
    joined = pat.broadcast(shapes)
    if joined is None or joined == pat.CONFLICT:
        return None
    adjacent = advanced == list(range(advanced[0], advanced[-1] + 1))
    out, axis = ([] if adjacent else list(joined)), 0
    for k, part in enumerate(parts):
        if part is None:
            out.append(1)
            continue
        width = _width(part)
        if axis + width > len(pattern):
            return None
        if k in advanced:
            if adjacent and k == advanced[0]:
                out.extend(joined)
        else:  # a slice
            kept = pat.indexed(pattern[axis:axis + 1], [part])
            if kept is None:
                return None
            out.extend(kept)
        axis += width
    return tuple(out) + tuple(pattern[axis:])


def _advanced_array(part):
    return type(part) is tuple and len(part) == 2 and part[0] in ("take", "mask")


def _integer(part):
    return isinstance(part, int) and not isinstance(part, bool)


def _width(part):
    """How many axes of x an index part uses."""
    if part is None:
        return 0
    if type(part) is tuple and part[0] == "mask":
        return part[1]
    return 1


def index_key(facts, op):
    """The shape class of ``op`` (a getitem): x[1:] and x[:-1] have the same
    shape; so do x[0] and x[-1], and x[i] and x[j] for integer arrays of one
    shape."""
    base = facts.producer(op.args[0])
    if base is not None and base.prim == "shape" and len(op.args) == 2 \
            and isinstance(op.args[1], Const) and isinstance(op.args[1].value, int):
        return SCALAR  # one entry of a shape: an int
    if index_tuple(facts, op.args[0]) is not None and len(op.args) == 2 \
            and isinstance(op.args[1], Const):
        return ("indices", facts.key(op.args[0]))  # every array of the tuple: one shape
    if all(isinstance(p, Const) and isinstance(p.value, tuple) and not p.value
           for p in op.args[1:]):
        return facts.key(op.args[0])  # x[()]: x's shape
    kept = kept_again(facts, op.args[0], op.args[1:])
    if kept is not None:
        return kept
    parts = []
    for part in op.args[1:]:
        value = part.value if isinstance(part, Const) else part
        if isinstance(value, slice) and value.step is None \
                and (value.start or 0) >= 0 and (value.stop or 0) <= 0:
            parts.append(("drop", (value.start or 0) - (value.stop or 0)))
        elif isinstance(value, int) and not isinstance(value, bool):
            parts.append(("int",))
        elif value is None or value is Ellipsis:
            parts.append((repr(value),))
        elif isinstance(part, Var) and _integers(facts, part):
            parts.append(("take", facts.key(part)))
        elif isinstance(part, Var):  # x[i] and y[i]: the same i, the same shape
            parts.append(("at", id(part)))
        else:
            return op.target
    return ("index", facts.key(op.args[0]), tuple(parts))


def parts_of_its_shape(facts, atom):
    """The index arrays of the getitem ``atom`` of that getitem's very shape
    (``z[rows, labels]`` has ``labels``' shape: every pattern entry named
    alike): its size or shape may be read instead of the value."""
    made = facts.producer(atom) if isinstance(atom, Var) else None
    found = facts.pattern(atom)
    if made is None or made.prim != "getitem" or found is None or \
            not all(e == 1 or pat.is_named(e) for e in found):
        return []
    return [p for p in made.args[1:] if isinstance(p, Var) and _integers(facts, p)
            and facts.pattern(p) == found]


def _integers(facts, atom):
    """Whether ``atom`` is known to hold integers (a Python int or an integer array)."""
    dtype = facts.dtype(atom)
    return dtype is int or isinstance(dtype, np.dtype) and dtype.kind in "iu"


def kept_again(facts, value, index):
    """``m[:, None]`` of ``m = np.max(x, axis=1)`` (or of a value of its shape,
    ``m - c``): the shape of ``np.max(x, axis=1, keepdims=True)``."""
    parts = [p.value if isinstance(p, Const) else p for p in index]
    key = facts.key(value)
    if type(key) is tuple and key[0] == "reduced":
        whole, axis = key[1], key[2]
    else:
        base = facts.producer(value)
        if base is None or TABLE.get(base.prim) is None or \
                TABLE[base.prim].shape != REDUCTION or base.param("keepdims"):
            return None
        whole, axis = facts.key(base.args[0]), base.param("axis")
    if not isinstance(axis, int) or isinstance(axis, bool) or axis < 0 or \
            len(parts) != axis + 1 or parts[axis] is not None or \
            any(not isinstance(p, slice) or p != slice(None) for p in parts[:axis]):
        return None
    return ("kept", whole, axis)
