"""Reverse mode for loops: a forward loop that saves, a reverse loop that reads.

Each forward iteration pushes the values its backward needs onto a tape
(``tape.append((i, h, a))``: the index, carried values, and the values the
body computed that the backward pass reads; nothing else). The reverse loop
reads them in reverse order and runs the body's backward pass on them. Adjoints of
carried names are carried by the reverse loop; adjoints of values read from
outside the loop are accumulated by it.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace

from ..ir.clone import clone_block
from ..ir.nodes import (Carry, Const, If, Loop, Op, Tape, Var, branch_definitions, saved,
                        uses, walk)
from .gathered_products import gather_products
from .saved_draws import export_draws
from ..ir.primitive import SCALAR
from ..rules.lists import RowsBar


@dataclass
class TapeBar:
    """The adjoint of a tape: the tape ``var`` holds, per iteration, the
    adjoints of the written items at ``positions`` (the others have none)."""

    var: Var
    positions: list


def backward_loop(rev, loop):
    b = rev.b
    active = [c for c in loop.carried  # clean copies (backward_as) carry no adjoint
              if rev.wants(c.param) and c.param not in rev.original]
    seeds = {id(c): rev.collect(c.out) for c in active}
    tape_bars = [(t, _tape_bar(rev, t)) for t in loop.writes]
    tape_bars = [(t, bar) for t, bar in tape_bars if bar is not None]
    if all(g is None for g in seeds.values()) and not tape_bars:
        return  # nothing the loop computes reaches the result
    idle = _idle_carries(loop, active, seeds, tape_bars)
    active = [c for c in active if id(c) not in idle]
    tape = Tape(Var("tape"), [])
    mapping, view, recomputed = _tape_plan(rev, loop, tape)
    rev.origin.update((new, old) for old, new in mapping.items()  # (reads: reverse.py)
                      if isinstance(new, Var) and new is not old)
    rev.branch_of.update(branch_definitions(view))
    for old, new in list(mapping.items()):  # backward_as: the view's clean copies
        if old in rev.shadow:
            clean = mapping.get(rev.shadow[old], rev.shadow[old])
            rev.shadow[new] = clean
            rev.original[clean] = new
    loads = [mapping[v] for v in tape.items]
    loop.writes.append(tape)
    reverse = Loop("tape", [], [], reads=[Tape(tape.var, loads)], loc=loop.loc,
                   backward=True)
    before, after = [], []  # statements to run before and after the reverse loop
    with b.at(loop.loc), b.into(before):
        carried_bar = _carried_adjoints(rev, active, seeds, mapping, reverse)
    with b.block() as body, b.at(loop.loc):
        body.extend(recomputed)
        outer = rev.adj
        rev.adj = defaultdict(list)
        for carry, bar in carried_bar:
            update = mapping.get(carry.update, carry.update)
            if rev.wants(update) or rev.wants(carry.update):
                rev.adj[update].append(bar.param)
        _read_tape_bars(rev, reverse, tape_bars, mapping, before)
        rev.backward_block(view)
        escaping = {v: b.total(t) for v, t in rev.adj.items() if t}
        rev.adj = outer
        unread = _close_carried(rev, carried_bar, escaping, mapping)
        _write_tape_bars(rev, loop, reverse, escaping, mapping)
        _accumulate_outer(rev, reverse, escaping, set(loads), (before, after))
    reverse.body = body
    for stmt in before + [reverse] + after:
        b.append(stmt)
    for carry, bar in carried_bar:
        # A value the body overwrites without reading it hands its first
        # value nothing once an iteration has run: no zero to meet a NaN.
        if rev.wants(carry.init) and not (id(carry) in unread and runs_at_least_once(loop)):
            rev.adj[carry.init].append(bar.out)


def runs_at_least_once(loop):
    """Whether ``loop`` is known to run at least once."""
    if loop.kind != "range" or not all(isinstance(b, Const) for b in loop.bounds):
        return False
    return len(range(*(b.value for b in loop.bounds))) > 0


def _idle_carries(loop, active, seeds, tape_bars):
    """The ids of the carried values whose adjoint is zero in every iteration:
    nothing after the loop reads them, and each iteration reads them only
    for other such values (``v = 0.9 * v + ...`` with ``v`` unused). Their
    backward is left out: a zero adjoint must not meet a NaN they hold."""
    saved_bars = {a for t, bar in tape_bars for k in bar.positions
                  for a in [t.items[k]] if isinstance(a, Var)}
    feeds = {}  # id(carry) -> the carries whose updates its value reaches; or None
    for c in active:
        reached = _reached(loop.cond_block + loop.body, {c.param})
        feeds[id(c)] = None if reached & saved_bars else \
            {id(d) for d in active if d.update in reached}
    live = {id(c) for c in active if seeds[id(c)] is not None or feeds[id(c)] is None}
    changed = True
    while changed:
        changed = False
        for c in active:
            if id(c) not in live and feeds[id(c)] & live:
                live.add(id(c))
                changed = True
    return {id(c) for c in active} - live


def _reached(stmts, reached):
    """``reached`` and every var ``stmts`` compute from it (an ``if``'s
    merges from the sides that compute them from it; all of another nested
    statement's values, or of an ``if`` whose condition it reaches, when it
    reads any)."""
    for stmt in stmts:
        if isinstance(stmt, Op):
            if any(isinstance(a, Var) and a in reached for a in stmt.args):
                reached.add(stmt.target)
        elif isinstance(stmt, If) and not (isinstance(stmt.cond, Var) and stmt.cond in reached):
            then, orelse = _reached(stmt.then, set(reached)), _reached(stmt.orelse, set(reached))
            reached.update(then | orelse)
            reached.update(m.target for m in stmt.merges
                           if any(isinstance(a, Var) and a in side
                                  for a, side in ((m.then, then), (m.orelse, orelse))))
        elif any(isinstance(a, Var) and a in reached for a in _all_reads(stmt)):
            for s in walk([stmt]):
                if isinstance(s, Op):
                    reached.add(s.target)
                elif isinstance(s, If):
                    reached.update(m.target for m in s.merges)
                elif isinstance(s, Loop):  # (and the lists it fills: np.stack(xs) after it)
                    reached.update([c.out for c in s.carried] + [t.var for t in s.writes])
    return reached


def _all_reads(stmt):
    """Every atom ``stmt`` and the statements nested in it read."""
    for s in walk([stmt]):
        if isinstance(s, Op):
            yield from s.args
        else:
            yield from uses(s)
            if isinstance(s, If):
                for m in s.merges:
                    yield from (m.then, m.orelse)
            elif isinstance(s, Loop):
                yield from [c.update for c in s.carried] + saved(s) + [s.exit, s.cond]


def _tape_bar(rev, tape):
    bars = rev.adj.pop(tape.var, [])
    if len(bars) > 1 and all(isinstance(bar, RowsBar) and bar.offset == bars[0].offset
                             for bar in bars):  # the list stacked twice: one adjoint
        return RowsBar(rev.b.total([bar.rows for bar in bars]), bars[0].offset,
                       bars[0].like)
    if len(bars) > 1:
        raise TypeError(f"tape {tape.var!r} is read by more than one loop")
    return bars[0] if bars else None


def _read_tape_bars(rev, reverse, tape_bars, mapping, before):
    """Each iteration of the reverse loop reads the adjoints of what the
    forward iteration appended to a tape (the loop that read it made them),
    or of a list it filled, a row of the stacked list's adjoint (a counter
    the reverse loop carries, from the last row down)."""
    for tape, bar in tape_bars:
        if isinstance(bar, RowsBar):
            _read_rows(rev, reverse, tape, bar, mapping, before)
            continue
        items = [tape.items[p] for p in bar.positions]
        loads = [Var(item.hint + "_bar") for item in items]
        for item, load in zip(items, loads):
            rev.b.facts.shape[load] = rev.b.facts.key(item)
            if isinstance(item, Var):
                rev.adj[mapping.get(item, item)].append(load)
        reverse.reads.append(Tape(bar.var, loads))


def _read_rows(rev, reverse, tape, bar, mapping, before):
    b = rev.b
    with b.into(before):
        count = b.op("len", tape.var, hint="n")
        start = b.add(count, Const(bar.offset), hint="k") if bar.offset else count
    k = Carry(Var("k"), start, None, Var("k"))
    for var in (k.param, k.out):
        b.facts.shape[var] = SCALAR
    k.update = b.sub(k.param, Const(1), hint="k")
    item = tape.items[0]
    row = b.op("getitem", bar.rows, k.update, hint=item.hint + "_bar")
    rev.adj[mapping.get(item, item)].append(row)
    reverse.carried.append(k)


def _write_tape_bars(rev, loop, reverse, escaping, mapping):
    """A loop over a tape hands the adjoints of what it read to the loop that
    wrote it, on a tape of adjoints (in the order the writer runs)."""
    for tape in loop.reads:
        positions = [k for k, v in enumerate(tape.items) if mapping[v] in escaping]
        if positions and rev.wants(tape.var):
            bar = Tape(Var(tape.var.hint + "_bar"),
                       [escaping.pop(mapping[tape.items[k]]) for k in positions])
            reverse.writes.append(bar)
            rev.adj[tape.var].append(TapeBar(bar.var, positions))


def _tape_plan(rev, loop, tape):
    """What each iteration saves, and the body as the backward pass sees it.

    The tape holds the index, the carried values and every value the body
    computes at its top level (the simplifier later drops what the backward
    pass does not read). Statements nested in the body (ifs, inner loops) are
    recomputed from those values instead.
    """
    facts, mapping = rev.b.facts, {}

    def save(var):
        mapping[var] = Var(var.hint)
        facts.shape[mapping[var]] = facts.key(var)
        rev.b.origins[mapping[var]] = (var,)  # (what it is, for rules/writes.py)
        tape.items.append(var)

    for var in ([loop.index] if loop.index is not None else []) + \
            [v for t in loop.reads for v in t.items] + [c.param for c in loop.carried]:
        save(var)
    view, recomputed = [], []
    for stmt in loop.body:
        if isinstance(stmt, Op):
            save(stmt.target)
            seen = replace(stmt, target=mapping[stmt.target],
                           args=tuple(mapping.get(a, a) if isinstance(a, Var) else a
                                      for a in stmt.args))
            facts.defs[seen.target] = seen
            view.append(seen)
        else:
            draws = export_draws(stmt, facts)  # saved, not drawn again (saved_draws.py)
            for op, value in draws:
                save(value)
                mapping[op.target] = mapping[value]
            loaded = {value: mapping[value] for _, value in draws}
            cloned = clone_block([stmt], mapping, facts, {id(op) for op, _ in draws})[0]
            mapping.update(loaded)  # (the copy's merges of them are not read)
            recomputed.append(cloned)
            view.append(cloned)
    rev.active.update(new for old, new in mapping.items()
                      if isinstance(new, Var) and old in rev.active)
    return mapping, view, recomputed


def _carried_adjoints(rev, active, seeds, mapping, reverse):
    pairs = []
    for carry in active:
        init = seeds[id(carry)]
        if init is None:
            init = rev.zeros(carry.out)
        bar = Carry(Var(carry.param.hint + "_bar"), init, None, Var(carry.param.hint + "_bar"))
        # Each reverse iteration starts with the adjoint of what the forward
        # iteration it undoes computed, so it has that value's shape.
        update = mapping.get(carry.update, carry.param)
        rev.b.facts.shape[bar.param] = rev.b.facts.key(update)
        rev.b.facts.shape[bar.out] = rev.b.facts.key(carry.param)
        rev.b.named.update((bar.param, bar.out))
        reverse.carried.append(bar)
        pairs.append((carry, bar))
    return pairs


def _close_carried(rev, carried_bar, escaping, mapping):
    """The adjoint of each carried value at the start of the iteration is what
    the previous (earlier) iteration's update receives. The ids of the carries
    whose start gets none (the body does not read it)."""
    unread = set()
    for carry, bar in carried_bar:
        grad = escaping.pop(mapping[carry.param], None)
        if grad is None:
            unread.add(id(carry))
        bar.update = grad if grad is not None else rev.zeros(mapping[carry.param])
    return unread


def _accumulate_outer(rev, reverse, escaping, loads, around):
    """Values read from outside the loop gather gradient over all iterations."""
    before, after = around
    for var, grad in escaping.items():
        if var in loads or not rev.wants(var):
            continue
        if gather_products(rev, reverse, var, grad, after):
            continue
        with rev.b.into(before):
            start = rev.zeros(var)
        acc = Carry(Var(var.hint + "_bar"), start, None, Var(var.hint + "_bar"),
                    inplace=_floating(rev.b.facts, var))
        rev.b.facts.shape[acc.param] = rev.b.facts.key(var)
        rev.b.facts.shape[acc.out] = rev.b.facts.key(var)
        made = rev.b.facts.producer(grad)  # (the line the gradient comes from names it)
        with rev.b.at(made.loc if made is not None and made.loc is not None else rev.b.loc):
            acc.update = rev.b.add(acc.param, grad, hint=var.hint + "_bar")
        reverse.carried.append(acc)
        rev.adj[var].append(acc.out)


def _floating(facts, var):
    """Whether ``zeros_like(var)`` can take ``+=`` of a gradient: not where a
    specialised gradient knows ``var`` may hold an int (an ``if`` gave it
    ``6`` on one side and a float on the other)."""
    if not facts.signature:
        return True  # (generic code: the runtime's arrays decide, as before)
    dtype = facts.dtype(var)
    return dtype is float or getattr(dtype, "kind", None) in ("f", "c")


def loop_activity(loop, active, activity):
    """Mark loop values active until nothing changes (carried values feed back)."""
    for tape in loop.reads:
        if tape.var in active:
            active.update(tape.items)
    for carry in loop.carried:
        if carry.init in active:
            active.add(carry.param)
    while True:
        before = len(active)
        activity(loop.body, active)
        for carry in loop.carried:
            if carry.update in active:
                active.add(carry.param)
        if len(active) == before:
            break
    for carry in loop.carried:
        if carry.param in active:
            active.add(carry.out)
    for tape in loop.writes:
        if any(a in active for a in tape.items):
            active.add(tape.var)
