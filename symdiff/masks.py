"""Keeping the branch `where` does not take from leaking NaN or warnings.

For ``where(c, t, f)``, the values of ``t`` matter only where ``c`` holds.
The *cone* of ``t`` is the elementwise computation used for nothing but
``t``. `guard_wheres` rewrites each cone so that an operand outside an
operation's domain (``sqrt`` of a negative, ``log`` of 0, a zero divisor)
is replaced where ``c`` fails by a value inside it::

    x_safe = np.where(c, x, 1.0)     # the "double where", written for you
    t = np.sqrt(x_safe)

The reverse pass then lets the upstream gradient flow unmasked through the
cone (every value there is finite), at the where's full shape, and applies
the mask once, where a gradient leaves the cone: select after multiply.
"""
from __future__ import annotations

from dataclasses import dataclass

from .facts import ELEMENTWISE
from .ir import Const, If, Loop, Op, Var, use_counts
from .rules.elementwise import guard_value


@dataclass(frozen=True)
class Cone:
    mask: object     # the condition under which the branch is used
    where: Var       # the result of the where that uses the branch


class Guards:
    """What `guard_wheres` found: cone membership and the guard operations."""

    def __init__(self):
        self.cone_of = {}     # Var -> Cone
        self.guards = set()   # Vars made by guard where-operations

    def cone(self, var):
        return self.cone_of.get(var)


def guard_wheres(fn, builder):
    guards = Guards()
    uses = _use_counts(fn)
    fn.body = _guard_block(fn.body, builder, uses, guards)
    return guards


def _guard_block(stmts, builder, uses, guards):
    defs = {s.target: s for s in stmts if isinstance(s, Op)}
    before = {}   # id(op) -> statements to insert before it
    for stmt in stmts:
        if isinstance(stmt, If):
            stmt.then = _guard_block(stmt.then, builder, uses, guards)
            stmt.orelse = _guard_block(stmt.orelse, builder, uses, guards)
        elif isinstance(stmt, Loop):
            stmt.body = _guard_block(stmt.body, builder, uses, guards)
        elif isinstance(stmt, Op) and stmt.prim == "where":
            _guard_where(stmt, defs, builder, uses, guards, before)
    out = []
    for stmt in stmts:
        out.extend(before.get(id(stmt), []))
        out.append(stmt)
    return out


def _guard_where(where, defs, builder, uses, guards, before):
    cond, *branches = where.args
    for slot, branch in enumerate(branches):
        cone = _cone(branch, defs, uses, builder.facts, where)
        if not cone:
            continue
        first = min(cone, key=lambda op: _index(defs, op))
        with builder.block() as made, builder.at(where.loc):
            mask = cond if slot == 0 else builder.op("logical_not", cond, hint="mask")
            for op in cone:
                guards.cone_of[op.target] = Cone(mask, where.target)
        before.setdefault(id(first), []).extend(made)
        for op in cone:
            _guard_operands(op, mask, builder, guards, before)


def _guard_operands(op, mask, builder, guards, before):
    args = list(op.args)
    for i, arg in enumerate(args):
        safe = guard_value(op.prim, i, op.args)
        if safe is None or not isinstance(arg, Var):
            continue
        with builder.block() as made, builder.at(op.loc):
            args[i] = builder.op("where", mask, arg, Const(safe), hint=arg.hint + "_safe")
        guards.guards.add(args[i])
        before.setdefault(id(op), []).extend(made)
    op.args = tuple(args)
    builder.facts.record(op)


def _cone(branch, defs, uses, facts, where):
    """The elementwise ops of this block computing ``branch`` and nothing else."""
    op = defs.get(branch)
    if op is None or uses.get(branch) != 1 or op.prim not in ELEMENTWISE:
        return []
    cone, frontier = [op], [op]
    members = {op.target}
    while frontier:
        current = frontier.pop()
        for arg in current.args:
            inner = defs.get(arg)
            if inner is None or arg in members or inner.prim not in ELEMENTWISE:
                continue
            if uses.get(arg) == _uses_within(arg, cone + [inner]):
                members.add(arg)
                cone.append(inner)
                frontier.append(inner)
    return cone


def _uses_within(var, ops):
    return sum(1 for op in ops for a in op.args if a is var)


def _index(defs, op):
    return list(defs.values()).index(op)


def _use_counts(fn):
    return use_counts(fn)
