"""Code without runtime checks (``symdiff.grad(f, checks=False)``).

The checks generated code makes of its inputs and outputs (a float argument,
a scalar output, a scalar condition) are calls of runtime helpers, which
compilers of Python numerics (``numba.njit``) cannot type. Without them,
each check's value is its operand; the emitter also reads tapes backwards as
``tape[::-1]`` (``reversed`` is not typed by numba either).
"""
from __future__ import annotations

from ..ir.nodes import Op, blocks
from ..optimize.common_subexpressions import replace_atoms
from ..optimize.direct_forms import substitute

CHECKS = frozenset({"require_float", "require_scalar", "scalar_predicate"})


def drop_checks(fn):
    """Remove the checks from ``fn`` (in place); their values are their operands."""
    subst = {}
    _drop(fn.body, subst)
    if subst:
        substitute(fn.body, subst)
        fn.result = replace_atoms(fn.result, subst)
    return fn


def _drop(stmts, subst):
    kept = []
    for stmt in stmts:
        if isinstance(stmt, Op) and stmt.prim in CHECKS:
            subst[stmt.target] = stmt.args[0]
            continue
        for block in blocks(stmt):
            _drop(block, subst)
        kept.append(stmt)
    stmts[:] = kept
