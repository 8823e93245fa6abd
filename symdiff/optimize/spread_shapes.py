"""A spread's shape from the arguments', where its value is read for nothing else.

``np.full_like(t, c)`` (a whole sum's gradient: optimize/spreads.py) reads
``t`` for its shape alone. Where nothing else reads ``t`` and the pattern of a
specialised gradient (ir/patterns.py) says each of its axes has the length of
an argument's axis, or length one, the shape is written from the arguments
(``np.full((X.shape[0], W.shape[1]), c)``) and ``t`` is not computed: a
``np.tensordot`` summed, say, whose gradient needs only its shape.
"""
from __future__ import annotations

from ..ir import patterns as pat
from ..ir.nodes import Const, Op, use_counts
from .dead_code import eliminate_dead_code
from .reads import all_blocks


def spread_shapes(fn, builder):
    facts = builder.facts
    if not facts.signature:
        return fn
    axes = _argument_axes(facts)
    counts = use_counts(fn)
    changed = False
    for block in all_blocks(fn.body):
        for at, stmt in enumerate(block):
            if not _spread_of_a_value(stmt, facts, counts):
                continue
            g, like = stmt.args
            shape = facts.pattern(like)
            dtype = facts.dtype(like)
            if shape is None or getattr(dtype, "kind", "") != "f" or \
                    not all(n == 1 or n in axes for n in shape):
                continue
            with builder.block() as made:
                entries = [Const(1) if n == 1 else builder.op(
                    "getitem", builder.op("shape", axes[n][0]), Const(axes[n][1]))
                    for n in shape]
                kwargs = () if dtype.name == "float64" and _float64_or_number(facts, g) \
                    else (("dtype", dtype.name),)
                builder.op("npcall", builder.op("tuple", *entries), g, func="full",
                           kwargs=kwargs)
            made[-1].target = stmt.target
            block[at:at + 1] = made
            changed = True
    return eliminate_dead_code(fn) if changed else fn


def _spread_of_a_value(stmt, facts, counts):
    """``np.full_like(like, g)`` whose ``like`` is computed (not an argument)
    and read by nothing else."""
    if not isinstance(stmt, Op) or stmt.prim != "unreduce" or stmt.param("axis") is not None \
            or stmt.param("keepdims"):
        return False
    like = stmt.args[1]
    return facts.producer(like) is not None and counts.get(like) == 1


def _argument_axes(facts):
    """Each axis name of the signature -> (an argument with that axis, its position)."""
    axes = {}
    for param, sig in facts.kinds.items():
        if sig.kind == "array" and sig.pattern:
            for i, name in enumerate(sig.pattern):
                if pat.is_named(name):
                    axes.setdefault(name, (param, i))
    return axes


def _float64_or_number(facts, g):
    found = facts.dtype(g)
    return found is float or getattr(found, "name", "") == "float64" or \
        isinstance(g, Const) and isinstance(g.value, float)
