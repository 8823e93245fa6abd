"""A value read only for its shape, read from one computed or passed anyway.

``np.zeros_like(log_probs)``, the gradient of ``log_probs[np.arange(n), y]``,
reads ``log_probs`` for its shape and dtype alone. Where nothing else reads
it and a specialised gradient's patterns (ir/patterns.py) say an argument or
a value computed before it has the same shape and dtype (``scores``, whose
``scores - logsumexp(...)`` it is), that value stands in: ``log_probs`` is not
computed. Only values of the function's top level take part, so the stand-in
is there wherever the value was.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from ..ir import patterns as pat
from ..ir.nodes import Op, Var, use_counts, walk
from ..ir.storage import shape_only
from .common_subexpressions import replace_atoms
from .dead_code import _atoms as result_atoms, eliminate_dead_code


def shape_sources(fn, builder):
    facts = builder.facts
    if not facts.signature:
        return fn
    counts, shape_reads = use_counts(fn), Counter()
    for op in walk(fn.body):
        if isinstance(op, Op):
            shape_reads.update(a for i, a in enumerate(op.args)
                               if isinstance(a, Var) and shape_only(op.prim, i))
    returned = result_atoms(fn.result)
    made_at = {s.target: at for at, s in enumerate(fn.body)
               if isinstance(s, Op) and not s.backward and not s.effect}
    subst = {}
    for var, reads in shape_reads.items():
        if counts.get(var) != reads or var in returned or var not in made_at:
            continue
        found = _stand_in(fn, facts, var, made_at, shape_reads, counts)
        if found is not None:
            subst[var] = found
    if not subst:
        return fn
    for op in walk(fn.body):
        if isinstance(op, Op):
            op.args = tuple(replace_atoms(a, subst) if shape_only(op.prim, i) else a
                            for i, a in enumerate(op.args))
    return eliminate_dead_code(fn)


def _stand_in(fn, facts, var, made_at, shape_reads, counts):
    """An argument, or a value made before ``var`` that something reads for
    more than its shape, of ``var``'s shape pattern and dtype."""
    pattern, dtype = facts.pattern(var), facts.dtype(var)
    if not pattern or not isinstance(dtype, np.dtype) or \
            not all(n == 1 or pat.is_named(n) for n in pattern):
        return None
    same = _operands(facts, var) + [p for p in fn.params if isinstance(p, Var)] + sorted(
        (v for v, at in made_at.items() if at < made_at[var]), key=made_at.get, reverse=True)
    for other in same:
        if other is not var and facts.pattern(other) == pattern and \
                facts.dtype(other) == dtype and (other in fn.params or
                                                 counts.get(other, 0) > shape_reads[other]):
            return other
    return None


def _operands(facts, var):
    """``var``'s operands, then theirs (``scores`` of ``scores - lse``): the
    stand-in a reader expects first."""
    found, todo = [], [var]
    while todo and len(found) < 8:
        made = facts.producer(todo.pop(0))
        for a in made.args if made is not None else ():
            if isinstance(a, Var) and a not in found:
                found.append(a)
                todo.append(a)
    return found
