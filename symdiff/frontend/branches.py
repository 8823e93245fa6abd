"""Lowering `if` / `elif` / `else`: two blocks, and `Merge` nodes for the
names they assign.

A name assigned in one branch only is a `OneBranch`: an error where it is
read, except under a later `if` on the same condition, in the same branch
(generated gradients recompute a branch's values that way, so that they can
be differentiated again).
"""
from __future__ import annotations

from ..errors import NonScalarOutputError, UnsupportedSyntaxError
from ..ir.nodes import Const, If, Merge, Var
from .compile_time import OneBranch, Static, Tup, is_atom
from .writes import Stale


# lower_if's answer when it lowered ``rest`` too and they fell off the end:
# the caller must not lower them again.
FELL_THROUGH = object()


def lower_if(lw, node, rest):
    """Lower ``node``; ``rest`` are the statements after it (a branch that
    returns leaves them to the other). The returned value, or None."""
    cond = lw.predicate(node.test)
    if isinstance(cond, Const):  # decided at compile time: the rest goes with the side taken
        result = lw.lower_body((node.body if cond.value else node.orelse) + list(rest))
        return FELL_THROUGH if result is None else result
    before, key = dict(lw.env), lw.cond_key(cond)
    then, then_env, then_ret = _branch(lw, node.body, side_env(lw, before, key, True))
    orelse, else_env, else_ret = _branch(lw, node.orelse, side_env(lw, before, key, False))
    if (then_ret is None) != (else_ret is None) and rest:
        # One branch returns: the statements after the `if` belong to the other.
        if then_ret is None:
            then, then_env, then_ret = _branch(lw, node.body + list(rest),
                                               side_env(lw, before, key, True))
        else:
            orelse, else_env, else_ret = _branch(lw, node.orelse + list(rest),
                                                 side_env(lw, before, key, False))
    stmt = If(cond, then, orelse, [], lw.src.loc(node))
    if then_ret is not None and else_ret is not None:
        result = merge(lw, stmt, then_ret, else_ret, "result", node)
        lw.b.append(stmt)
        return result
    if (then_ret is not None or else_ret is not None) and (lw.loops or lw.unrolling):
        raise lw.error(UnsupportedSyntaxError, node, "`return` inside a loop",
                       "assign the value, `break`, and return after the loop")
    if then_ret is not None or else_ret is not None:
        raise lw.error(NonScalarOutputError, node,
                       "one branch returns a value and the other falls off the end",
                       "return a value on every path")
    lw.env = _merge_envs(lw, stmt, before, then_env, else_env, node)
    lw.b.append(stmt)
    return None


def lower_if_expression(lw, node):
    """``a if test else b``: an `if` whose sides make a and b (only the side
    taken runs, as in Python)."""
    cond = lw.predicate(node.test)
    if isinstance(cond, Const):
        return lw.expr(node.body if cond.value else node.orelse)
    before, key = lw.env, lw.cond_key(cond)
    try:  # (each side sees what earlier ifs on this test made on that side)
        lw.env = side_env(lw, before, key, True)
        with lw.b.block() as then:
            a = lw.expr(node.body)
        lw.env = side_env(lw, before, key, False)
        with lw.b.block() as orelse:
            b = lw.expr(node.orelse)
    finally:
        lw.env = before
    stmt = If(cond, then, orelse, [], lw.src.loc(node).within(lw.b.loc))
    result = lw.merge(stmt, a, b, "t", node)
    lw.b.append(stmt)
    return result


def _branch(lw, stmts, env):
    lw.env = dict(env)
    with lw.b.block() as block:
        result = lw.lower_body(stmts)
    return block, lw.env, result


def _merge_envs(lw, stmt, before, then_env, else_env, node):
    merged = {}
    for name in list(then_env) + [n for n in else_env if n not in then_env]:
        if name in then_env and name in else_env:
            merged[name] = merge(lw, stmt, then_env[name], else_env[name], name, node)
        elif name in before:
            merged[name] = before[name]
        else:
            merged[name] = OneBranch(lw.cond_key(stmt.cond), then_env.get(name),
                                     else_env.get(name), node.lineno)
    return merged


def merge(lw, stmt, a, b, name, node):
    """The value of ``name`` after ``stmt``: ``a`` if its branch was taken, else ``b``."""
    if a is b or (isinstance(a, Const) and a == b):
        return a
    if isinstance(a, Stale) or isinstance(b, Stale):  # (writes.py)
        return a if isinstance(a, Stale) else b
    if isinstance(a, OneBranch) or isinstance(b, OneBranch):  # still maybe unassigned
        return OneBranch(lw.cond_key(stmt.cond), None if isinstance(a, OneBranch) else a,
                         None if isinstance(b, OneBranch) else b, node.lineno)
    if is_atom(a) and is_atom(b):
        target = Var(name)
        stmt.merges.append(Merge(target, a, b))
        lw.merged[target] = (lw.cond_key(stmt.cond), a, b)
        lw.b.origins[target] = (a, b)
        return target
    if isinstance(a, Tup) and isinstance(b, Tup) and len(a.items) == len(b.items):
        return Tup(tuple(merge(lw, stmt, x, y, name, node)
                         for x, y in zip(a.items, b.items)))
    if isinstance(a, Static) and isinstance(b, Static) and a.obj is b.obj:
        return a
    raise lw.error(UnsupportedSyntaxError, node,
                   f"`{name}` holds different kinds of value in the two branches",
                   "give both branches values of the same kind")


def side_env(lw, env, cond, holds):
    """``env`` inside a branch: a name assigned in one branch of an earlier `if`
    on the same condition is known where that branch was taken, and so is a
    name assigned in both, or in one and before it (`Merge`): its value from
    that branch. (How a name reads must not depend on whether it held
    something before: generated code reuses the names of dead values.)"""
    out = {}
    for name, value in env.items():
        if isinstance(value, OneBranch) and value.cond is cond:
            value = value.then if holds else value.orelse
            if value is None:
                continue
        out[name] = _side(lw, value, cond, holds)
    return out


def _side(lw, value, cond, holds):
    """``value`` where the `if`s on ``cond`` took the side ``holds``."""
    if isinstance(value, Tup):
        return Tup(tuple(_side(lw, v, cond, holds) for v in value.items))
    while isinstance(value, Var) and value in lw.merged and lw.merged[value][0] is cond:
        value = lw.merged[value][1 if holds else 2]
    return value
