"""Work only one side of an ``if`` needs is done on that side.

An operation whose value is read only inside one branch of a later ``if`` of
its block moves to the start of that branch (its operands are all defined
before the ``if``): ``np.clip(r, -delta, delta)`` under ``if delta > 0``
needs none of the ``np.abs``, ``np.minimum`` and ``np.sign`` of the other
side. Operations run for what they do never move.
"""
from __future__ import annotations

from ..ir.nodes import If, Loop, Op, Var, blocks, uses, walk


def sink_into_branches(fn, builder=None):
    readers = _direct_readers(fn)
    for block in [fn.body] + [b for s in walk(fn.body) for b in blocks(s)]:
        _sink(block, fn, _read_at_end(fn, block), readers)
    return fn


def _direct_readers(fn):
    """var -> the statements that read it themselves (not in nested blocks),
    anywhere in ``fn``: a value defined in a branch is read again under a
    later ``if`` on the same condition (the backward pass's)."""
    found = {}
    for stmt in walk(fn.body):
        direct = {a for a in uses(stmt) if isinstance(a, Var)}
        if isinstance(stmt, If):
            direct.update(_atoms([(m.then, m.orelse) for m in stmt.merges]))
        if isinstance(stmt, Loop):
            direct.update(_atoms([c.update for c in stmt.carried]
                                 + [c.init for c in stmt.carried]))
            direct.update(_atoms([a for t in stmt.writes for a in t.items]))
            direct.update(_atoms([stmt.cond, stmt.exit, list(stmt.bounds)]))
        for var in direct:
            found.setdefault(var, set()).add(id(stmt))
    return found


def _read_at_end(fn, block):
    """What is read after the last statement of ``block``: a loop body's
    carried updates, tape items and exit test, a loop's condition, an
    ``if`` branch's merged values (none may move into a nested ``if``)."""
    for stmt in walk(fn.body):
        if isinstance(stmt, Loop) and block is stmt.body:
            return set(_atoms([c.update for c in stmt.carried] + [stmt.exit] +
                              [a for t in stmt.writes for a in t.items]))
        if isinstance(stmt, Loop) and block is stmt.cond_block:
            return set(_atoms(stmt.cond))
        if isinstance(stmt, If) and block is stmt.then:
            return set(_atoms([m.then for m in stmt.merges]))
        if isinstance(stmt, If) and block is stmt.orelse:
            return set(_atoms([m.orelse for m in stmt.merges]))
    return set()


def _sink(block, fn, read_at_end, everywhere):
    result = set(_atoms(fn.result)) | read_at_end
    moved = True
    while moved:
        moved = False
        reads = [_read_by(s) for s in block]  # (once per pass, kept up to date: n, not n^2)
        for i in range(len(block) - 1, -1, -1):
            op = block[i]
            if not isinstance(op, Op) or op.effect or op.target in result:
                continue
            readers = [k for k in range(i + 1, len(block)) if op.target in reads[k]]
            if len(readers) != 1 or not isinstance(block[readers[0]], If):
                continue
            reader = block[readers[0]]
            side = _only_side(reader, op.target)
            if side is None or not everywhere.get(op.target, set()) <= {
                    id(s) for s in walk(side)} | {id(reader)}:  # read elsewhere too
                continue
            del block[i]
            side.insert(0, op)
            reads[readers[0]] |= reads[i]  # (the branch now reads what op read)
            del reads[i]
            moved = True


def _only_side(stmt, var):
    """The branch of ``stmt`` that alone reads ``var``, or None."""
    if stmt.cond is var:
        return None
    sides = []
    for side, block in (("then", stmt.then), ("orelse", stmt.orelse)):
        inside = any(var in _read_by(s) for s in block) or \
            any(getattr(m, side) is var for m in stmt.merges)
        if inside:
            sides.append(block)
    return sides[0] if len(sides) == 1 else None


def _read_by(stmt):
    """Every var ``stmt`` reads, nested blocks and merges included."""
    found = set(a for a in uses(stmt) if isinstance(a, Var))
    if isinstance(stmt, If):
        for m in stmt.merges:
            found.update(a for a in (m.then, m.orelse) if isinstance(a, Var))
    if isinstance(stmt, Loop):
        found.update(_atoms([c.update for c in stmt.carried]))
        found.update(_atoms([a for t in stmt.writes for a in t.items]))
        found.update(_atoms([stmt.cond, stmt.exit]))
    for block in blocks(stmt):
        for inner in block:
            found |= _read_by(inner)
    return found


def _atoms(value):
    if isinstance(value, (tuple, list)):
        for v in value:
            yield from _atoms(v)
    elif isinstance(value, Var):
        yield value
