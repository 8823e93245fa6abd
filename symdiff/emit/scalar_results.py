"""Scalar arguments get scalar gradients.

NumPy arithmetic on scalars gives scalars, but ``np.where``, ``np.zeros_like``,
``np.full_like`` and ``np.broadcast_to`` give 0-d arrays. A gradient that is
returned as one of those is written with ``[()]``: a NumPy scalar for a scalar
argument, the same array (a view of it) for an array.
"""
from __future__ import annotations

from ..ir.nodes import If, Loop, Op, Var, flatten, walk
from ..ir.primitive import TABLE


def returned_arrays(fn, values, facts=None):
    """The variables made by an operation that makes arrays of scalars that
    ``values`` (part of what ``fn`` returns) are, as they are: directly, as
    either side of an ``if``'s result, or as a loop's carried value (which
    may never be updated)."""
    defs, sources = {}, {}
    for stmt in walk(fn.body):
        if isinstance(stmt, Op):
            defs[stmt.target] = stmt
        elif isinstance(stmt, If):
            sources.update({m.target: (m.then, m.orelse) for m in stmt.merges})
        elif isinstance(stmt, Loop):
            sources.update({c.out: (c.init, c.update) for c in stmt.carried})
    found, seen, todo = set(), set(), list(flatten(values))
    while todo:
        value = todo.pop()
        if not isinstance(value, Var) or value in seen:
            continue
        seen.add(value)
        op = defs.get(value)
        if facts is not None and (facts.rank(value) or 0) > 0:
            continue  # an array, as the arguments' signature shows
        if op is not None and TABLE[op.prim].makes_arrays and op.param("axis") is None:
            found.add(value)  # (along an axis, the argument is no scalar)
        todo.extend(sources.get(value, ()))
    return found
