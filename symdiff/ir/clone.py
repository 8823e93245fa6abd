"""Copies of IR blocks with fresh variables (the reverse loop recomputes the
forward body of each iteration on the values it saved)."""
from __future__ import annotations

from dataclasses import replace

from .nodes import Carry, If, Loop, Merge, Op, Tape, Var


def clone_block(stmts, mapping, facts, skip=frozenset()):
    """``stmts`` with every variable they define renamed; ``mapping`` (old var ->
    new atom) says what to read instead and is extended with the renames.
    Operations whose ids are in ``skip`` are left out (``mapping`` already
    says what to read for their results: a random draw saved on a tape)."""
    return [_clone(stmt, mapping, facts, skip) for stmt in stmts
            if id(stmt) not in skip]


def _sub(atom, mapping):
    return mapping.get(atom, atom) if isinstance(atom, Var) else atom


def _fresh(var, mapping):
    new = Var(var.hint)
    mapping[var] = new
    return new


def _clone(stmt, mapping, facts, skip):
    if isinstance(stmt, Op):
        args = tuple(_sub(a, mapping) for a in stmt.args)
        op = replace(stmt, target=_fresh(stmt.target, mapping), args=args)
        facts.record(op)
        return op
    if isinstance(stmt, If):
        cond = _sub(stmt.cond, mapping)
        then = clone_block(stmt.then, mapping, facts, skip)
        orelse = clone_block(stmt.orelse, mapping, facts, skip)
        merges = [Merge(_fresh(m.target, mapping), _sub(m.then, mapping),
                        _sub(m.orelse, mapping)) for m in stmt.merges]
        for old, new in zip(stmt.merges, merges):
            facts.shape[new.target] = facts.key(old.target)
        return replace(stmt, cond=cond, then=then, orelse=orelse, merges=merges)
    if isinstance(stmt, Loop):
        return _clone_loop(stmt, mapping, facts)
    raise TypeError(f"cannot clone IR node {type(stmt).__name__}")


def _clone_loop(loop, mapping, facts):
    bounds = tuple(_sub(b, mapping) for b in loop.bounds)
    inits = [_sub(c.init, mapping) for c in loop.carried]
    params = [_fresh(c.param, mapping) for c in loop.carried]
    index = _fresh(loop.index, mapping) if loop.index is not None else None
    reads = [Tape(_sub(t.var, mapping), [_fresh(v, mapping) for v in t.items])
             for t in loop.reads]
    writes = [Tape(_fresh(t.var, mapping), []) for t in loop.writes]
    cond_block = clone_block(loop.cond_block, mapping, facts)
    body = clone_block(loop.body, mapping, facts)
    for new, old in zip(writes, loop.writes):
        new.items = [_sub(a, mapping) for a in old.items]
    carried = [Carry(p, i, _sub(c.update, mapping), _fresh(c.out, mapping))
               for c, p, i in zip(loop.carried, params, inits)]
    for old, new in zip(loop.carried, carried):
        _same_facts(facts, old.out, new.out)
        _same_facts(facts, old.param, new.param)
    if index is not None:
        _same_facts(facts, loop.index, index)
    for old, new in zip(loop.reads, reads):
        for before, after in zip(old.items, new.items):
            _same_facts(facts, before, after)
    return replace(loop, carried=carried, body=body, index=index, bounds=bounds,
                   cond_block=cond_block, cond=_sub(loop.cond, mapping),
                   exit=_sub(loop.exit, mapping), writes=writes, reads=reads)


def _same_facts(facts, old, new):
    """A renamed value's shape class and dtype: the value's (a loop's counter
    is a number, its carried array of the dtype it had)."""
    facts.shape[new] = facts.key(old)
    if old in facts.dtypes:
        facts.dtypes[new] = facts.dtypes[old]
