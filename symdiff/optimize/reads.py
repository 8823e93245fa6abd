"""Where the statement lists of a function are, how many times what the result
needs reads each value, reading one value instead of another everywhere
(optimize/writes_in_place.py's copies), and views made twice."""
from __future__ import annotations

from ..ir.nodes import If, Loop, Op, Var, use_counts
from ..ir.primitive import TABLE
from .dead_code import _DeadCode, _atoms


def all_blocks(stmts):
    """``stmts`` and every statement list nested in it."""
    yield stmts
    for stmt in stmts:
        if isinstance(stmt, If):
            yield from all_blocks(stmt.then)
            yield from all_blocks(stmt.orelse)
        elif isinstance(stmt, Loop):
            yield from all_blocks(stmt.cond_block)
            yield from all_blocks(stmt.body)


def replace_reads(fn, old, new):
    """Every read of ``old`` in ``fn`` (but by the operation making ``new``)
    reads ``new`` instead."""
    def sub(atom):
        return new if atom is old else atom

    for stmts in all_blocks(fn.body):
        for stmt in stmts:
            if isinstance(stmt, Op):
                if stmt.target is not new:
                    stmt.args = tuple(sub(a) for a in stmt.args)
            elif isinstance(stmt, If):
                stmt.cond = sub(stmt.cond)
                for m in stmt.merges:
                    m.then, m.orelse = sub(m.then), sub(m.orelse)
            elif isinstance(stmt, Loop):
                stmt.bounds = tuple(sub(b) for b in stmt.bounds)
                stmt.cond, stmt.exit = sub(stmt.cond), sub(stmt.exit)
                for c in stmt.carried:
                    c.init, c.update = sub(c.init), sub(c.update)
                for tape in stmt.writes:
                    tape.items = [sub(a) for a in tape.items]
    fn.result = _replace_result(fn.result, old, new)


def _replace_result(value, old, new):
    if isinstance(value, tuple):
        return tuple(_replace_result(v, old, new) for v in value)
    return new if value is old else value


def live_counts(fn):
    """How many times each value is read by what the result needs (a read by
    an operation nothing needs, a term of the product rule of ``x * x``
    before common subexpressions were merged, does not count; reads inside
    loops all do), and the values the result needs."""
    counts = use_counts(fn)
    live = _atoms(fn.result)
    _DeadCode(fn).block(fn.body, live, mutate=False)
    for stmt in _outside_loops(fn.body):
        if isinstance(stmt, Op) and stmt.target not in live and not stmt.effect:
            for a in stmt.args:
                if isinstance(a, Var) and counts.get(a, 0) > 0:
                    counts[a] -= 1
    return counts, live


def _outside_loops(stmts):
    for stmt in stmts:
        yield stmt
        if isinstance(stmt, If):
            yield from _outside_loops(stmt.then)
            yield from _outside_loops(stmt.orelse)


def views_alike(block):
    """Each view made twice (``g[..., None]`` for each term of the product
    rule of ``d * d``) -> the first: one atom, so like terms meet (``2 * d *
    g[..., None]``). Only views: an operation of its own stays."""
    first, same = {}, {}
    for stmt in block:
        if isinstance(stmt, Op) and not stmt.effect and (
                stmt.prim == "getitem" or getattr(TABLE.get(stmt.prim), "moves", False) is True):
            key = (stmt.prim, stmt.params, tuple(
                ("v", a) if isinstance(a, Var) else ("k", repr(a.value)) for a in stmt.args))
            found = first.setdefault(key, stmt.target)
            if found is not stmt.target:
                same[stmt.target] = found
    return same


def statement_atoms(stmt):
    """The values a branch or loop reads itself (its condition, merges, bounds,
    carries), not those of the statements inside it."""
    found = [getattr(stmt, "cond", None), getattr(stmt, "exit", None)]
    found += [a for m in getattr(stmt, "merges", ()) for a in (m.then, m.orelse)]
    found += list(getattr(stmt, "bounds", None) or ())
    found += [a for c in getattr(stmt, "carried", ()) for a in (c.init, c.update)]
    return [a for a in found if isinstance(a, Var)]
