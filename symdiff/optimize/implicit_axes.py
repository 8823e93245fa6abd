"""Leading axes that broadcasting adds anyway: ``x - mu[None]`` is ``x - mu``.

NumPy broadcasting lines operands up by their last axes and gives the
shorter one new leading axes of length one. So in elementwise arithmetic
an operand ``v[None]`` (``v[None, None]``, ``v[None, :, :]``) is ``v`` when
another operand has at least its number of axes: the result is the same,
bit for bit. Rules that reduce over axis 0 write such expansions to keep
their shapes explicit (a mean kept as an axis of length one, a spread
gradient); a specialised gradient knows the ranks and drops them, and the
difference then is the one the function computed (``x - mu``: one array,
not two).
"""
from __future__ import annotations

from ..ir.nodes import Const, Op, Var, walk
from ..ir.shapes import is_elementwise


def implicit_leading_axes(fn, builder):
    """``fn`` with operands ``v[None, ...]`` of elementwise operations read
    as ``v`` where broadcasting adds those axes (ranks known: specialised)."""
    facts = builder.facts
    if not facts.signature:
        return fn
    for op in walk(fn.body):
        if not isinstance(op, Op) or not op.backward or not is_elementwise(op.prim) \
                or op.prim == "where":  # (the function's own lines stay as written)
            continue
        ranks = [facts.rank(a) for a in op.args]
        if None in ranks:
            continue
        args = list(op.args)
        for i, arg in enumerate(args):
            inner = _leading_new_axes(facts, arg)
            if inner is not None and any(r >= ranks[i] for k, r in enumerate(ranks) if k != i):
                args[i] = inner
        op.args = tuple(args)
    return fn


def _leading_new_axes(facts, atom):
    """``v`` where ``atom`` is ``v[None, ..., :, :]`` (new axes first, then
    every axis of ``v`` whole), of known rank; else None."""
    made = facts.producer(atom)
    if made is None or made.prim != "getitem" or not isinstance(made.args[0], Var) \
            or facts.rank(made.args[0]) is None:
        return None
    parts = [p.value if isinstance(p, Const) else p for p in made.args[1:]]
    if any(not isinstance(p, Const) for p in made.args[1:]) or not parts or parts[0] is not None:
        return None
    new = 0
    while new < len(parts) and parts[new] is None:
        new += 1
    rest = parts[new:]
    if any(p != slice(None) for p in rest) or len(rest) > facts.rank(made.args[0]):
        return None
    return made.args[0]
