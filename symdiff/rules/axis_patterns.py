"""Shape patterns of the operations that move or add axes (ir/patterns.py):
a transpose, np.moveaxis, np.swapaxes, a reshape to another's shape or to
constants, np.expand_dims. What a specialised gradient knows of their
results' axes follows from their operand's."""
from __future__ import annotations

from ..ir import patterns
from ..ir.nodes import Const


def transposed_pattern(op, facts):
    found, axes = facts.pattern(op.args[0]), op.param("axes")
    if found is None:
        return None
    if axes is None:
        return found[::-1]
    if sorted(a % len(found) for a in axes) != list(range(len(found))):
        return None
    return tuple(found[a] for a in axes)


def reshaped_pattern(op, facts):
    shape = op.args[1]
    made = facts.producer(shape)
    if made is not None and made.prim in ("shape", "array_shape"):
        return facts.pattern(made.args[0])  # reshape(g, shape(x)): x's
    if isinstance(shape, Const):
        sizes = shape.value if isinstance(shape.value, tuple) else (shape.value,)
        if all(isinstance(n, int) for n in sizes):
            return tuple(None if n == -1 else 1 if n == 1 else patterns.N for n in sizes)
    return None


def moved_pattern(op, facts):
    """np.moveaxis's axes in their new order (NumPy's own construction)."""
    found = facts.pattern(op.args[0])
    source, destination = op.param("source"), op.param("destination")
    if found is None or source is None or destination is None:
        return None
    source = source if isinstance(source, tuple) else (source,)
    destination = destination if isinstance(destination, tuple) else (destination,)
    source = patterns.normal_axes(source, len(found))
    ends = patterns.normal_axes(destination, len(found))
    if source is None or ends is None or len(source) != len(destination):
        return None
    pairs = sorted(zip((d % len(found) for d in destination), source))
    order = [n for n in range(len(found)) if n not in source]
    for end, start in pairs:
        order.insert(end, start)
    return tuple(found[n] for n in order)


def rotated_pattern(op, facts):
    """np.rot90: an odd number of quarter turns swaps the two axes."""
    found, axes = facts.pattern(op.args[0]), op.param("axes", (0, 1))
    if found is None or len(found) < 2 or len(axes) != 2 or not isinstance(op.param("k", 1), int):
        return None
    first, second = (a % len(found) for a in axes)
    if first == second:
        return None
    order = list(range(len(found)))
    if op.param("k", 1) % 2:
        order[first], order[second] = second, first
    return tuple(found[n] for n in order)


def swapped_axes_pattern(op, facts):
    found = facts.pattern(op.args[0])
    axes = patterns.normal_axes((op.param("axis1"), op.param("axis2")), len(found or ()))
    if found is None or axes is None or op.param("axis1") is None:
        return None
    order = list(range(len(found)))
    first, second = op.param("axis1") % len(found), op.param("axis2") % len(found)
    order[first], order[second] = second, first
    return tuple(found[n] for n in order)


def expanded_pattern(op, facts):
    found, axis = facts.pattern(op.args[0]), op.param("axis")
    if found is None or axis is None:
        return None
    axes = patterns.normal_axes(axis, len(found) + (len(axis) if isinstance(axis, tuple)
                                                    else 1))
    if axes is None:
        return None
    rest = iter(found)
    return tuple(1 if i in axes else next(rest) for i in range(len(found) + len(axes)))


def stacked_pattern(op, facts):
    """np.array([a, b, c]) and np.stack of values of one pattern: a new axis
    of their number (at ``axis`` for np.stack), then theirs."""
    found = {_row(facts, a) if op.prim == "array" else facts.pattern(a) for a in op.args}
    if len(found) != 1 or None in found or not op.args:
        return None
    each = found.pop()
    axis = op.param("axis", 0) if op.prim == "stack" else 0
    count = 1 if len(op.args) == 1 else patterns.N
    if not isinstance(axis, int) or not -len(each) - 1 <= axis <= len(each):
        return None
    axis %= len(each) + 1
    return each[:axis] + (count,) + each[axis:]


def _row(facts, atom):
    """The pattern of an item of np.array([...]): a value's, or a row's (a
    tuple of numbers: one axis of its length)."""
    value = getattr(atom, "value", None)
    made = facts.producer(atom) if not hasattr(atom, "value") else None
    items = value if isinstance(value, tuple) else made.args \
        if made is not None and made.prim == "tuple" else None
    if items is None:
        return facts.pattern(atom)
    if not all(isinstance(i, (int, float)) and not isinstance(i, bool) or
               not isinstance(i, tuple) and facts.is_scalar(i) for i in items):
        return None
    return (1 if len(items) == 1 else patterns.N,) if items else None


def joined_pattern(op, facts):
    """np.concatenate of values of one rank: the joined axis of a length not
    known (the lengths add up), every other axis the values' (they must
    agree, or NumPy raises)."""
    return _joined([facts.pattern(a) for a in op.args], op.param("axis", 0))


def stacked_pattern_of(promote, axis):
    """The pattern rule of np.hstack (``promote`` "h"), np.vstack ("v") or
    np.column_stack ("c"): each array's pattern as the function lays it out
    (a vector as one row for vstack, one column for column_stack; vectors
    end to end for hstack), then joined along ``axis`` (hstack: 1, or 0 for
    vectors)."""
    def rule(op, facts):
        found = [facts.pattern(a) for a in op.args]
        if not found or None in found:
            return None
        ranks = {len(p) for p in found}
        if promote == "h":
            return _joined(found, 0 if ranks == {1} else axis)
        if promote == "v":
            return _joined([(1,) * (2 - len(p)) + p if len(p) < 2 else p for p in found], 0)
        return _joined([p + (1,) if len(p) == 1 else p for p in found], axis)
    return rule


def _joined(found, axis):
    """The pattern of values of patterns ``found`` joined along ``axis``."""
    if not found or None in found or len({len(p) for p in found}) != 1 or not found[0] \
            or not isinstance(axis, int) or not -len(found[0]) <= axis < len(found[0]):
        return None
    axis %= len(found[0])
    out = []
    for k in range(len(found[0])):
        entries = {p[k] for p in found}
        named = {e for e in entries if patterns.is_named(e) or e == 1}
        out.append(None if k == axis or len(entries) != 1 and len(named) != 1
                   else (entries.pop() if len(entries) == 1 else named.pop()))
    return tuple(out)


def squeezed_pattern(op, facts):
    """np.squeeze: the axes of length one dropped (all of them, or ``axis``);
    unknown where an axis of unknown length might be one."""
    found, axis = facts.pattern(op.args[0]), op.param("axis")
    if found is None:
        return None
    if axis is None:
        return None if None in found else tuple(e for e in found if e != 1)
    axes = patterns.normal_axes(axis if isinstance(axis, tuple) else (axis,), len(found))
    return None if axes is None else tuple(e for k, e in enumerate(found) if k not in axes)


def at_least_pattern(rank):
    """np.atleast_1d/2d/3d: NumPy's new axes of length one, where the rank is less."""
    def pattern(op, facts):
        found = facts.pattern(op.args[0])
        if found is None or len(found) >= rank:
            return found
        if rank < 3:  # (a number: ones; a vector as one row)
            return (1,) * (rank - len(found)) + found
        return {0: (1, 1, 1), 1: (1,) + found + (1,), 2: found + (1,)}[len(found)]
    return pattern


def differenced_pattern(op, facts):
    """np.diff: the axis one (n) shorter, of a length not known; the others kept."""
    found, axis = facts.pattern(op.args[0]), op.param("axis", -1)
    if found is None or not found or op.param("prepend") is not None or \
            op.param("append") is not None or not isinstance(axis, int) or \
            not -len(found) <= axis < len(found):
        return None
    axis %= len(found)
    return found[:axis] + (None,) + found[axis + 1:]
