"""Where the statement lists of a function are, and reading one value
instead of another everywhere (optimize/writes_in_place.py's copies)."""
from __future__ import annotations

from ..ir.nodes import If, Loop, Op


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
