"""Clean-up passes on a gradient's IR: shared subexpressions and dead code.

`simplify(fn)` replaces every operation computed twice with the first result
(forward and backward passes share work this way), turns pass-through
operations into plain references, and drops what the result does not need.
"""
from __future__ import annotations

import math

from .ir import Const, If, Merge, Op, Var

# Operations kept even when their result is unused: they check their input.
EFFECTS = frozenset({"require_float", "require_scalar"})
# Operations whose value is their first operand (their meaning was for the
# reverse pass only).
ALIASES = frozenset({"stop_gradient", "straight_through", "backward_as", "custom_value"})


def simplify(fn):
    subst = {}
    fn.body = _cse(fn.body, subst, {})
    fn.result = _replace(fn.result, subst)
    fn.body = _dce(fn.body, _atoms(fn.result))
    return fn


def _cse(stmts, subst, seen):
    out = []
    for stmt in stmts:
        if isinstance(stmt, Op):
            stmt.args = tuple(_replace(a, subst) for a in stmt.args)
            if stmt.prim in ALIASES:
                subst[stmt.target] = stmt.args[0]
                continue
            key = _key(stmt)
            if key is not None and key in seen:
                subst[stmt.target] = seen[key]
                continue
            if key is not None:
                seen[key] = stmt.target
            out.append(stmt)
        elif isinstance(stmt, If):
            stmt.cond = _replace(stmt.cond, subst)
            stmt.then = _cse(stmt.then, subst, dict(seen))
            stmt.orelse = _cse(stmt.orelse, subst, dict(seen))
            for m in stmt.merges:
                m.then, m.orelse = _replace(m.then, subst), _replace(m.orelse, subst)
            out.append(stmt)
        else:
            raise TypeError(f"simplify has no method for {type(stmt).__name__}")
    return out


def _key(op):
    if op.prim in EFFECTS:
        return None
    args = tuple(_atom_key(a) for a in op.args)
    if any(a is None for a in args):
        return None
    return (op.prim, args, op.params)


def _atom_key(atom):
    if isinstance(atom, Var):
        return ("var", atom.uid)
    value = atom.value
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, slice):  # slices are not hashable before Python 3.12
        return ("slice", value.start, value.stop, value.step)
    try:
        hash(value)
    except TypeError:
        return None
    return ("const", type(value).__name__, value)


def _replace(value, subst):
    if isinstance(value, tuple):
        return tuple(_replace(v, subst) for v in value)
    while isinstance(value, Var) and value in subst:
        value = subst[value]
    return value


def _atoms(value):
    if isinstance(value, tuple):
        return {a for v in value for a in _atoms(v)}
    return {value} if isinstance(value, Var) else set()


def _dce(stmts, live):
    """Drop statements whose results are not in ``live`` (updated in place)."""
    out = []
    for stmt in reversed(stmts):
        if isinstance(stmt, Op):
            if stmt.target in live or stmt.prim in EFFECTS:
                live.update(a for a in stmt.args if isinstance(a, Var))
                out.append(stmt)
        elif isinstance(stmt, If):
            stmt.merges = [m for m in stmt.merges if m.target in live]
            for m in stmt.merges:
                live.update(a for a in (m.then, m.orelse) if isinstance(a, Var))
            then_live, else_live = set(live), set(live)
            stmt.then = _dce(stmt.then, then_live)
            stmt.orelse = _dce(stmt.orelse, else_live)
            if stmt.then or stmt.orelse or stmt.merges:
                live |= then_live | else_live
                if isinstance(stmt.cond, Var):
                    live.add(stmt.cond)
                out.append(stmt)
    out.reverse()
    return out
