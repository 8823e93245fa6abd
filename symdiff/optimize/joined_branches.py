"""Two ``if``s in a row on one condition are one ``if``.

A matrix gradient gathered after a loop is ``if rows: W_bar = np.stack(rows).T
@ ... else: W_bar = np.zeros_like(W)`` (ad/gathered_products.py), and two
matrices of one loop share their rows (``t_bar`` of ``tanh(W @ h + U @ x)``
is a factor of both gradients): their ``if``s test one list. Joined, the two
products sit in one branch and the rows are stacked once.
"""
from __future__ import annotations

from ..ir.nodes import If, Op, Var, blocks
from .common_subexpressions import eliminate_common_subexpressions, replace_atoms
from .direct_forms import substitute


def join_branches(fn, builder):
    """``fn`` with each run of ``if``s on one condition joined."""
    joined = _join(fn.body)
    # (what both sides compute twice now, once)
    return eliminate_common_subexpressions(fn, builder) if joined else fn


def _join(stmts):
    """Join the runs in ``stmts``, then in the blocks of what is left (each
    block once: a joined ``if``'s blocks hold the second's statements)."""
    joined = False
    k = 0
    while k + 1 < len(stmts):
        first, second = stmts[k], stmts[k + 1]
        if isinstance(first, If) and isinstance(second, If) and \
                isinstance(first.cond, Var) and first.cond is second.cond:
            _append(first, second)
            del stmts[k + 1]
            joined = True
        else:
            k += 1
    for stmt in stmts:
        for block in blocks(stmt):
            joined = _join(block) or joined
    return joined


def _append(first, second):
    """``second``'s branches after ``first``'s, reading on each side the value
    each of ``first``'s merged values has there."""
    sides = ({m.target: m.then for m in first.merges},
             {m.target: m.orelse for m in first.merges})
    substitute(second.then, sides[0])
    substitute(second.orelse, sides[1])
    for m in second.merges:  # (a value the second passes on unchanged: the first's)
        m.then, m.orelse = replace_atoms(m.then, sides[0]), replace_atoms(m.orelse, sides[1])
    first.then += second.then
    first.orelse += second.orelse
    first.merges += second.merges
    first.backward = first.backward and second.backward
    _name_stacks(first.then)


def _name_stacks(stmts):
    """The rows stacked once for both products take the list's name
    (``t_bars = np.stack(t_bar_rows)``), not a product's."""
    stacks = {}
    for op in stmts:
        if isinstance(op, Op) and op.prim == "stack_list" and isinstance(op.args[0], Var) \
                and op.args[0].hint.endswith("_rows"):
            op.target.hint = op.args[0].hint[:-len("_rows")] + "s"
            stacks[op.target] = op.target.hint
        elif isinstance(op, Op) and op.prim == "T" and op.args[0] in stacks:
            op.target.hint = stacks[op.args[0]] + "_t"
