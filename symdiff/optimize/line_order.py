"""The backward pass's statements grouped by the line they differentiate.

Generated code puts a ``# L27: ...`` comment above the statements made for
line 27. The reverse pass makes them in the order the chain rule reaches
them, so a line's statements may be split by another line's (a parameter's
gradient summed at the very end, say) and its comment written twice. Here
each straight run of backward operations is reordered, as far as what each
reads allows, so that the operations of one line follow each other: each
``# Lnn`` once where the data flow permits. The order is otherwise kept.
"""
from __future__ import annotations

from ..ir.nodes import If, Op, Var, blocks, walk


def group_by_line(fn, builder=None):
    for block in [fn.body] + [b for s in walk(fn.body) for b in blocks(s)]:
        _block(block)
    return fn


def _block(block):
    runs, others = [[]], []  # runs of backward operations, and the statements between
    for stmt in block:
        if isinstance(stmt, Op) and stmt.backward and not stmt.effect:
            runs[-1].append(stmt)
        else:
            others.append(stmt)
            runs.append([])
    for k, stmt in enumerate(others):
        _joined_back(runs[k], stmt, runs[k + 1])
    out = _ordered(runs[0])
    for stmt, run in zip(others, runs[1:]):
        out += [stmt] + _ordered(run)
    block[:] = out


def _joined_back(before, stmt, after):
    """The operations of ``after`` of a line ``before`` has that read nothing
    ``stmt`` (an ``if``, a loop) or the rest of ``after`` makes, moved into
    ``before``: ``d_bar + d_bar_1`` of a parameter summed after an ``if`` it
    does not read goes with its line's statements, its comment written once."""
    if not isinstance(stmt, If) or any(getattr(s, "effect", False) for s in walk([stmt])):
        return  # (not past a loop, a print, a write a list takes: their order stays)
    lines = {_line(op) for op in before}
    blocked = {v for s in walk([stmt]) for v in _made(s)}
    for op in list(after):
        if _line(op) in lines and not any(isinstance(a, Var) and a in blocked for a in op.args):
            after.remove(op)
            before.append(op)
        else:
            blocked.add(op.target)


def _made(stmt):
    """The values a statement defines (an operation's, a branch's merges)."""
    found = [stmt.target] if isinstance(stmt, Op) else []
    return found + [m.target for m in getattr(stmt, "merges", ())]


def _line(op):
    loc = op.loc.quoted() if op.loc is not None else None
    return (loc.filename, loc.lineno) if loc is not None else None


def _ordered(run):
    if len(run) < 3:
        return run
    made = {op.target: op for op in run}
    needs = {id(op): [made[a] for a in op.args if isinstance(a, Var) and a in made]
             for op in run}
    done, out = set(), []
    pending = list(run)
    while pending:
        ready = [op for op in pending if all(id(d) in done for d in needs[id(op)])]
        line = _line(out[-1]) if out else None
        same = [op for op in ready if _line(op) == line]
        # a line started is finished first; else the earliest ready operation, and
        # of those of its line, the ones the rest of that line is waiting for
        pick = same[0] if same else ready[0]
        pending.remove(pick)
        done.add(id(pick))
        out.append(pick)
    return out
