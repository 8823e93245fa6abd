"""Shape patterns: what the arguments' signature says about a value's axes.

A gradient specialised for the arguments it is called with (specialise.py)
knows the number of axes of each argument, which of them have length one,
and which have equal lengths; from those, the pattern of every value that
follows from them. A pattern is a tuple with one entry per axis: ``1`` (the
axis has length one), a name (``"a"``, ``"b"``...: a length other than one,
the same for every axis of that name and different from other names' in the
signature), `N` (a length other than one, not named) or ``None`` (not
known); ``None`` for the whole pattern means the number of axes is not known
either. Broadcasting follows from the patterns: an operand whose axes have
the names of the result's (and any length where the result's is one) has the
result's shape, so its gradient needs no summing; one with a 1 where the
result has a name gets ``g.sum(axis, keepdims=True)``. Operands with
different names on one axis do not broadcast: the operation raises when it
runs (`CONFLICT`), and is kept for that.
"""
from __future__ import annotations

import string

N = "*"  # an axis whose length is not one, not named (it may be 0)
CONFLICT = "conflict"  # operands that do not broadcast: the operation raises


def from_shape(shape):
    """The pattern of a concrete shape (a constant's: no names)."""
    return tuple(1 if n == 1 else N for n in shape)


def named_patterns(shapes):
    """The patterns of the arguments' ``shapes`` (None: not an array), with a
    name per distinct length other than one, in order of appearance."""
    names = {}
    out = []
    for shape in shapes:
        if shape is None:
            out.append(None)
            continue
        out.append(tuple(1 if n == 1 else names.setdefault(n, _name(len(names)))
                         for n in shape))
    return out


def _name(k):
    letters = string.ascii_lowercase
    return letters[k] if k < len(letters) else f"{letters[k % 26]}{k // 26}"


def is_named(entry):
    """Whether a pattern entry is a name: a length other than one, known equal
    to every axis of that name."""
    return entry is not None and entry != 1 and entry != N


def broadcast(patterns):
    """The pattern of the result of broadcasting values of ``patterns``,
    None when the number of axes of one of them is not known, or `CONFLICT`
    when two have different names on an axis (NumPy raises)."""
    if any(p is None for p in patterns):
        return None
    rank = max((len(p) for p in patterns), default=0)
    out = []
    for axis in range(rank):
        entries = [p[axis - rank + len(p)] for p in patterns if axis - rank + len(p) >= 0]
        others = {e for e in entries if e != 1}
        names = {e for e in others if is_named(e)}
        if len(names) > 1:
            return CONFLICT
        if not others:
            out.append(1)
        elif names:  # (a name and an unnamed or unknown length: the unknown one is 1
            out.append(names.pop())  # and broadcasts, or equal, or NumPy raises)
        elif None in others:
            out.append(None)
        else:
            out.append(N)
    return tuple(out)


def covers(pattern, result):
    """Whether a value of ``pattern``, broadcast into a result of pattern
    ``result`` (with other values), provably has the result's shape."""
    if pattern is None or result is None or result == CONFLICT or len(pattern) != len(result):
        return False
    return all(r == 1 or is_named(p) and p == r for p, r in zip(pattern, result))


def summed_axes(pattern, like):
    """How to sum a gradient of ``pattern`` back to a value of pattern
    ``like`` it broadcast from: ``(leading, kept)``, the number of leading axes
    to sum away and the axes (of ``like``) to sum keeping them; None when the
    patterns do not say (or the gradient is smaller than ``like``)."""
    if pattern is None or like is None or len(pattern) < len(like):
        return None
    lead = len(pattern) - len(like)
    kept = []
    for axis, (p, q) in enumerate(zip(pattern[lead:], like)):
        if q == 1:
            if p != 1:
                kept.append(axis)
        elif not (p == q and is_named(q) or p is None and is_named(q)):
            return None  # smaller than like, or not known whether like's axis is 1
    return lead, tuple(kept)


def normal_axes(axis, rank):
    """``axis`` (an int, a tuple, or None for all) as a sorted tuple of
    non-negative axes; None if out of range."""
    if axis is None:
        return tuple(range(rank))
    axes = axis if isinstance(axis, tuple) else (axis,)
    if not all(isinstance(a, int) and -rank <= a < rank for a in axes):
        return None
    return tuple(sorted(a % rank for a in axes))


def reduced(pattern, axis, keepdims):
    """The pattern of a reduction of a value of ``pattern`` over ``axis``."""
    if axis is None and not keepdims:
        return ()
    if pattern is None:
        return None
    axes = normal_axes(axis, len(pattern))
    if axes is None:
        return None
    if keepdims:
        return tuple(1 if i in axes else p for i, p in enumerate(pattern))
    return tuple(p for i, p in enumerate(pattern) if i not in axes)


def indexed(pattern, index):
    """The pattern of ``x[index]`` for a basic index (constants: ints,
    slices, None, Ellipsis); None when it is not known."""
    if pattern is None:
        return None
    parts = list(index)
    if parts.count(Ellipsis) > 1:
        return None
    if Ellipsis in parts:
        at = parts.index(Ellipsis)
        used = sum(1 for p in parts if p is not None and p is not Ellipsis)
        parts[at:at + 1] = [slice(None)] * (len(pattern) - used)
    out, axis = [], 0
    for part in parts:
        if part is None:
            out.append(1)
            continue
        if axis >= len(pattern):
            return None
        if isinstance(part, bool):
            return None
        if isinstance(part, int):
            axis += 1
            continue
        if not isinstance(part, slice):
            return None
        whole = part.start in (None, 0) and part.stop is None and part.step in (None, 1) \
            or part.start is None and part.stop is None and part.step == -1  # (reversed)
        out.append(pattern[axis] if whole or pattern[axis] == 1 and part.step in (None, 1)
                   and part.start in (None, 0) else None)
        axis += 1
    return tuple(out) + tuple(pattern[axis:])


def expansion(index, rank):
    """For ``x[index]`` (``x`` of ``rank`` axes) that only adds axes of length
    one (None, ``:``, ``...``): the axis of the result each axis of ``x``
    is; else None."""
    parts = list(index)
    if rank is None or sum(p is Ellipsis for p in parts) > 1 or any(
            p is not None and p is not Ellipsis and not _whole(p) for p in parts):
        return None
    whole = sum(_whole(p) for p in parts)
    if Ellipsis in parts:
        at = parts.index(Ellipsis)
        parts[at:at + 1] = [slice(None)] * max(rank - whole, 0)
    parts += [slice(None)] * (rank - sum(p is not None for p in parts))
    if sum(p is not None for p in parts) != rank:
        return None
    return tuple(i for i, p in enumerate(parts) if p is not None)


def _whole(part):
    return isinstance(part, slice) and part == slice(None)


def matmul(a, b):
    """The pattern of ``a @ b`` (NumPy's rules for one or two axes, and
    stacks of matrices); None if not known."""
    if a is None or b is None or not a or not b:
        return None
    if len(a) == 1 and len(b) == 1:
        return ()
    if len(b) == 1:
        return a[:-1]
    if len(a) == 1:
        return b[:-2] + b[-1:]
    stack = broadcast([a[:-2], b[:-2]])
    return None if stack is None else stack + (a[-2], b[-1])


def dot(a, b):
    """The pattern of ``np.dot(a, b)``."""
    if a is None or b is None:
        return None
    if not a or not b:
        return broadcast([a, b])
    if len(a) <= 2 and len(b) <= 2:
        return matmul(a, b)
    if len(b) == 1:
        return a[:-1]
    return a[:-1] + b[:-2] + b[-1:]


def text(pattern, dtype=""):
    """How a docstring writes a signature: ``float64[a, 1]``, ``float``."""
    axes = ", ".join("1" if p == 1 else p if is_named(p) else ":" for p in pattern)
    return f"{dtype}[{axes}]" if pattern else dtype


class ArgSig:
    """The signature of one argument: ``kind`` "array" (a NumPy array or
    scalar, or an array of another ``library``: ``dtype`` and ``pattern``),
    "float", "int", "bool" (a Python number: pattern ``()``) or "other"
    (nothing known)."""

    __slots__ = ("kind", "dtype", "pattern", "library")

    def __init__(self, kind, dtype="", pattern=None, library="numpy"):
        self.kind, self.dtype, self.pattern, self.library = kind, dtype, pattern, library

    @property
    def floating(self):
        return self.kind == "float" or self.kind == "array" and self.dtype[:5] == "float"

    def key(self):
        return (self.kind, self.dtype, self.pattern, self.library)

    def __eq__(self, other):
        return isinstance(other, ArgSig) and self.key() == other.key()

    def __hash__(self):
        return hash(self.key())

    def __repr__(self):
        if self.kind == "array":
            return text(self.pattern, self.dtype) or self.dtype
        return self.kind


def signature_of(values):
    """The `ArgSig` of each of the values a gradient is called with (lengths
    named across all of them)."""
    kinds = [_kind(v) for v in values]
    shapes = named_patterns([tuple(v.shape) if kind in ("array", "foreign") else None
                             for v, kind in zip(values, kinds)])
    out = []
    for value, kind, pattern in zip(values, kinds, shapes):
        if kind == "array":
            out.append(ArgSig("array", str(value.dtype), pattern))
        elif kind == "foreign":  # torch.float64, array_api_strict.float64: float64
            out.append(ArgSig("array", str(value.dtype).rsplit(".", 1)[-1], pattern,
                              library_of(value)))
        elif kind in ("float", "int", "bool"):
            out.append(ArgSig(kind, "", ()))
        else:
            out.append(ArgSig("other"))
    return tuple(out)


def _kind(value):
    kind = type(value)
    if kind in (float, int, bool):
        return kind.__name__
    if _numpy(kind) and type(getattr(value, "shape", None)) is tuple \
            and getattr(value, "dtype", None) is not None:
        return "array"
    if library_of(value) is not None and isinstance(getattr(value, "shape", None), tuple) \
            and all(isinstance(n, int) for n in value.shape) \
            and str(getattr(value, "dtype", "")).rsplit(".", 1)[-1] in _DTYPES:
        return "foreign"
    return "other"


# The array libraries whose arrays a specialised gradient runs on (by the
# top-level package of the array's type; a JAX tracer is "jax" too).
LIBRARIES = {"dask": "dask", "jax": "jax", "jaxlib": "jax", "torch": "torch",
             "cupy": "cupy", "array_api_strict": "array_api_strict"}
# Those whose arrays cannot be written into and whose compiler fuses whole
# elementwise programs (JAX's XLA): there a pad or a select is as cheap as
# anything, and the NumPy forms that avoid them cost (optimize/fused_forms.py).
FUSING = frozenset({"jax"})
_DTYPES = {"float16", "float32", "float64", "complex64", "complex128", "bool", "int8",
           "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}


def library_of(value):
    """The array library of ``value`` other than NumPy, or None."""
    return LIBRARIES.get(type(value).__module__.partition(".")[0])


def _numpy(kind):
    import numpy as np
    return kind is np.ndarray or issubclass(kind, np.generic)
