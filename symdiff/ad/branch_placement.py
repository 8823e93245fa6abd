"""Which backward computations run inside a branch (reverse mode).

A value computed before an `if` and read only inside its branches should be
differentiated only where one of them was taken: a branch not taken hands it
a zero adjoint, and zero times the local derivative of a value that is NaN
there (``sqrt(x)`` read only by ``u if c else x``) is NaN. `place_in_branches`
finds those operations (and the `if`s and loops whose values only branches
read); reverse.py runs their backward inside the branch, or under an `if`
that one of the branches reading them was taken (`Reverse.backward_conditional`).
Reads that hand no adjoint (a comparison, a condition, a value nothing
differentiable reads: see `silent_values`) do not count.
"""
from __future__ import annotations

import itertools

from ..ir.nodes import (Function, If, Loop, Op, Var, branch_definitions, flatten, saved,
                        use_counts, walk)
from .loops import runs_at_least_once
from ..rules.kinks import never_picked


def place_in_branches(rev, stmts):
    """Which operations of ``stmts`` (a function's body, or the copy of a
    loop's body its reverse loop runs) to differentiate inside a branch.

    An operation whose value is read only inside one side of `if`s on one
    condition (directly, or by operations placed there; at every nesting
    level where that holds) has its backward run inside that branch of the
    first of those `if`s, and the others hand it their adjoints (as they
    do for a value that branch defines). One read only inside branches of
    `if`s on several conditions has its backward run under an `if` that
    one of them was taken (`backward_conditional`). So a branch not taken
    computes nothing for it: no zero adjoint meets a value that may be NaN
    there (``sqrt(x)`` read only by ``u if c else x``), and no work is
    done. Never into a loop: a value read by a loop's body stays put."""
    choosing = {s.target: s for s in walk(stmts) if isinstance(s, Op) and s.prim == "where"
                and isinstance(s.args[0], Var) and rev.facts.is_scalar(s.args[0])}
    sides = _WhereSides(choosing, rev.guards)
    reads, order, home = _read_places(stmts, lambda v: rev.origin_of(v) in rev.silent,
                                      rev.differentiable, sides.of_reads)
    placed = {}  # id(op) -> its place: ((id(If), side), ...)
    either = {}  # id(op) -> (its block's place, the branches reading it)
    lifted = {}  # id(op) -> the later branches that read the `if` result it is
    ifs = {id(s): s for s in walk(stmts) if isinstance(s, If)}
    ifs.update((id(s), _Choice(s.args[0])) for s in choosing.values())
    tapes = {t.var for s in walk(stmts) if isinstance(s, Loop) for t in s.writes}
    for op in reversed([s for s in walk(stmts) if isinstance(s, (Op, If, Loop))]):
        made = made_by(op)
        if tapes.intersection(made) or getattr(op, "prim", None) == "output":
            continue  # (a tape's adjoint goes reader to writer; an output's, a tuple's part)
        # a member of a where's cone has an adjoint of the where's shape: it
        # goes where the where goes (into an if), never under the where's side
        cone = isinstance(op, Op) and sides.in_cone(op.target) is not None
        found = [r for var in made for r in reads.get(var, [])]
        if not found or not any(rev.wants(v) for v in made) or \
                len(found) != sum(rev.reads.get(rev.origin_of(v), 0) for v in made):
            continue
        base = home[id(op)]
        later = _merged_reads(rev, op, found, base, ifs, reads, order)
        if later is None and found and all(  # read only by such ops: tested alike
                path == base and reader is not None and id(reader) in lifted
                for path, reader in found):
            tested = {id(reader): lifted[id(reader)] for _, reader in found}
            later = next(iter(tested.values())) if len(
                {repr(w) for w in tested.values()}) == 1 else None
        if later is not None:  # read only as an `if`'s result, itself read only by
            lifted[id(op)] = later  # branches of later `if`s: its backward runs
            either[id(op)] = (base, later)  # under the test that one was taken
            continue
        if any(path[:len(base)] != base for path, _ in found):
            continue  # read by a later `if` on its own branch's condition
        found = [(path, reader) for path, reader in found  # (an if's own reads)
                 if not (len(path) > len(base) and path[len(base)][0] == id(op))]
        if not found:
            continue
        paths = []
        for path, reader in found:
            paths += _where_read(path, reader, len(base), placed, either, lifted)
        if any(path[:len(base)] != base for path in paths):
            continue  # read by a later `if` on its own branch's condition
        tails = [path[len(base):] for path in paths]
        chain = _common_branches(rev, tails, ifs, order)
        if chain:
            placed[id(op)] = base + chain
            where, side = chain[-1]
            rev.placed_in.setdefault(where, {}).setdefault(side, []).insert(0, op)
            for var in made:
                rev.branch_of[var] = tuple((ifs[i], s) for i, s in reversed(chain)) \
                    + rev.branch_of.get(var, ())
            continue
        ways = {}  # the branches around each read, up to a loop: by conditions
        for tail in tails:
            way = _testable(rev, tuple(itertools.takewhile(
                lambda b: b[1] is not None and not (cone and isinstance(ifs[b[0]], _Choice)),
                tail)), ifs, base)
            ways.setdefault(tuple((rev.cond_key(ifs[i].cond), side) for i, side in way),
                            way)
        if all(ways) and not any(((k, "then"),) in ways and ((k, "orelse"),) in ways
                                 for k, _ in (w[0] for w in ways)):
            either[id(op)] = (base, sorted(ways.values(),
                                           key=lambda w: [(order[i], s) for i, s in w]))
    for key in [k for k in lifted if any(i in placed or i in either for i, _ in either[k][0])]:
        del either[key]  # (its `if` is differentiated in that branch already, as a whole)
    _keep_chains_whole(rev, stmts, lifted, either)
    groups = {}  # the same branches, by condition: one `if` for all their ops
    for op in (s for s in walk(stmts) if id(s) in either):
        base, ways = either[id(op)]
        tests = [tuple((ifs[i].cond, side) for i, side in way) for way in ways]
        key = frozenset(tuple((rev.cond_key(c), side) for c, side in t) for t in tests)
        groups.setdefault((base, key), (tests, []))[1].append(op)
    for tests, ops in groups.values():  # (ops in program order)
        rev.deferred.update(id(op) for op in ops)
        rev.conditional_at[id(ops[-1])] = (ops, tests)


def _keep_chains_whole(rev, stmts, lifted, either):
    """A value whose backward runs under a later test hands its operands their
    adjoints there only: an operand read by it alone whose own backward runs
    outside the test (a list a loop stacked) would read an adjoint never made
    where the test fails. Such a value's backward stays outside (and so, in
    turn, do those of the lifted values that read it)."""
    defs = {s.target: s for s in walk(stmts) if isinstance(s, Op)}
    ops = {id(s): s for s in walk(stmts) if isinstance(s, Op)}
    changed = True
    while changed:
        changed = False
        for key in [k for k in lifted if k in either and k in ops]:
            for arg in ops[key].args:
                made = defs.get(arg) if isinstance(arg, Var) else None
                if made is not None and rev.wants(arg) and id(made) not in either \
                        and rev.reads.get(rev.origin_of(arg), 0) == 1:
                    del either[key], lifted[key]
                    changed = True
                    break


def _merged_reads(rev, op, found, base, ifs, reads, order):
    """The branches of later `if`s reading ``op``'s value where it is read
    only as a result of the `if` around it (``x0 = ...`` in a branch, ``x0``
    then read only by a side not taken of a later `if`): its backward runs
    under the test that one of them was taken, else None. (Its zero adjoint
    would meet its local derivative, NaN where the value is.)"""
    if not base or not isinstance(ifs.get(base[-1][0]), If) or not isinstance(op, Op) \
            or any(path != base or reader is not None for path, reader in found):
        return None
    owner, side = ifs[base[-1][0]], base[-1][1]
    merged = [m.target for m in owner.merges if getattr(m, side) is op.target]
    if len(merged) != 1 or len(found) != 1:
        return None
    later = reads.get(merged[0], [])
    outer = base[:-1]
    if not later or len(later) != rev.reads.get(rev.origin_of(merged[0]), 0) or any(
            path[:len(outer)] != outer or len(path) == len(outer) or path[len(outer)][1] is None
            or path[len(outer)][0] == id(owner) for path, _ in later):
        return None
    ways = {}
    for path, _ in later:
        way = _testable(rev, tuple(itertools.takewhile(
            lambda b: b[1] is not None and isinstance(ifs[b[0]], If), path[len(outer):])),
            ifs, outer)
        if not way:
            return None
        ways.setdefault(tuple((rev.cond_key(ifs[i].cond), s) for i, s in way), way)
    if any(((k, "then"),) in ways and ((k, "orelse"),) in ways for k, _ in
           (w[0] for w in ways)):
        return None
    return sorted(ways.values(), key=lambda w: [(order[i], s) for i, s in w])


def _testable(rev, way, ifs, base):
    """The branches of ``way`` (outermost first) whose conditions can be
    tested after the `if`s, where the operation at ``base`` is, each under
    the ones before it: up to one computed inside a branch that neither
    holds ``base`` nor tests what a branch before it in ``way`` does (it
    may not exist where that branch was not taken)."""
    around, tested = set(base), set()
    for k, (i, side) in enumerate(way):
        if any((id(owner), s) not in around and (rev.cond_key(owner.cond), s) not in tested
               for owner, s in rev.branch_of.get(ifs[i].cond, ())):
            return way[:k]
        tested.add((rev.cond_key(ifs[i].cond), side))
    return way


def _where_read(path, reader, depth, placed, either, lifted=()):
    """Where a read at ``path`` by ``reader`` hands its adjoint over, as
    paths: inside an `if` or loop that is itself differentiated elsewhere
    (``placed``, ``either``), there; by an operation, where it is."""
    for k in range(depth, len(path)):
        statement = path[k][0]
        if statement in placed:
            return [placed[statement] + path[k:]]
        if statement in either:
            at, ways = either[statement]
            return [at + way + path[k:] for way in ways]
        if path[k][1] is None:  # a loop's body: where the loop is
            break
    if reader is not None and id(reader) in either and id(reader) not in lifted:
        at, ways = either[id(reader)]
        return [at + way for way in ways]
    return [placed.get(id(reader), path)]


def _common_branches(rev, tails, ifs, order):
    """The branches every path in ``tails`` goes through, outermost first,
    as far as they test one condition on one side at each level (not into
    a loop): at each level, the first of those `if`s in program order
    within the branch chosen above it."""
    chain, candidates, level = [], tails, 0
    while all(len(t) > level and t[level][1] is not None and isinstance(ifs[t[level][0]], If)
              for t in tails):  # (not into a loop, nor a where's branch: only an if's)
        steps = {(rev.cond_key(ifs[t[level][0]].cond), t[level][1]) for t in tails}
        if len(steps) != 1:
            break
        first = min({t[level][0] for t in candidates}, key=lambda i: order[i])
        chain.append((first, tails[0][level][1]))
        candidates = [t for t in candidates if t[level][0] == first]
        level += 1
    return tuple(chain)


def silent_values(body, result, differentiable):
    """The vars no adjoint can reach (nothing that gets one reads them through
    a derivative: read by a comparison, a condition, a print, or by nothing),
    and for the others how many of their reads can hand them one."""
    reads, counts = {}, {}
    loops = {}  # a loop's result -> [its results not yet silent, what the loop reads]

    def read(atom, n=1):
        if isinstance(atom, Var):
            counts[atom] = counts.get(atom, 0) + n

    for stmt in walk(body):
        if isinstance(stmt, Op):
            if not stmt.effect and (stmt.override or differentiable(stmt.prim)):
                reads[stmt.target] = passing(stmt)
                for a in passing(stmt):
                    read(a)
        elif isinstance(stmt, If):
            for m in stmt.merges:
                reads[m.target] = (m.then, m.orelse)
                read(m.then)
                read(m.orelse)
        elif isinstance(stmt, Loop):  # a loop: every read may hand back an adjoint,
            outside, inside = _loop_reads(stmt)  # unless none of its results gets one
            for a in outside + inside:
                read(a)
            made = [v for v in made_by(stmt) if isinstance(v, Var)]
            shared = [set(made), [a for a in outside + inside if isinstance(a, Var)]]
            for var in made:
                loops[var] = shared
    for atom in flatten(result):
        read(atom)
    silent = set()
    todo = [v for v in list(reads) + list(loops) if not counts.get(v)]
    while todo:
        var = todo.pop()
        if var in silent:
            continue
        silent.add(var)
        for atom in _silenced_reads(var, reads, loops):
            if isinstance(atom, Var) and counts.get(atom):
                counts[atom] -= 1
                if not counts[atom] and (atom in reads or atom in loops):
                    todo.append(atom)
    return silent, counts


def _silenced_reads(var, reads, loops):
    """The reads that hand no adjoint once ``var`` is silent: an operation's
    operands; a loop's reads (before it runs and at the end of each
    iteration) once every result of it is."""
    if var in reads:
        return reads[var]
    waiting, outside = loops[var]
    waiting.discard(var)
    if waiting:
        return ()
    found, outside[:] = list(outside), []
    return found


def passing(op):
    """The operands ``op`` may hand an adjoint to: not the one a `where` on
    a constant condition never picks."""
    skipped = never_picked(op)
    return tuple(a for k, a in enumerate(op.args) if k != skipped)


def _loop_reads(loop):
    """What ``loop`` itself reads before it runs (bounds, first values, tapes)
    and at the end of each iteration (updates, saved values, exit tests),
    less the first value of a carried name the body overwrites without
    reading it, once an iteration has run: that value gets no adjoint."""
    inner = use_counts(Function("", [], loop.cond_block + loop.body, tuple(
        [c.update for c in loop.carried] + saved(loop) + [loop.exit, loop.cond])))
    runs = runs_at_least_once(loop)
    outside = list(loop.bounds) + [c.init for c in loop.carried
                                   if inner.get(c.param) or not runs] + \
        [t.var for t in loop.reads]
    inside = [c.update for c in loop.carried] + saved(loop) + [loop.exit, loop.cond]
    return outside, inside


def made_by(stmt):
    """The values an operation, an `if` or a loop makes for what follows it."""
    if isinstance(stmt, Op):
        return [stmt.target]
    if isinstance(stmt, If):  # its merges, and what its branches define
        inner = branch_definitions(stmt.then + stmt.orelse, chain=((stmt, ""),))
        return [m.target for m in stmt.merges] + [v for v in inner if isinstance(v, Var)]
    return [c.out for c in stmt.carried] + [t.var for t in stmt.writes]


class _Choice:
    """A `where` on one number, for what its branches read: an `if` on its
    condition (a value only one branch reads needs no backward where the
    other is chosen: differentiated there, its zero adjoint may meet NaN)."""

    def __init__(self, cond):
        self.cond = cond


class _WhereSides:
    """The branches of the wheres on one number (``choosing``: their results
    -> them) that reads are in: a where's own reads of its branches, and the
    reads of the cones its guards made (where_guards.py; the gradient flows
    through a cone at the where's shape, and leaves it at its reads)."""

    def __init__(self, choosing, guards):
        self.choosing, self.guards = choosing, guards

    def in_cone(self, var):
        """The ``(id(where), side)`` of the cone ``var`` is a member of, or None."""
        cone = self.guards.cone(var)
        where = self.choosing.get(cone.where) if cone is not None else None
        if where is None:
            return None
        return id(where), "then" if cone.mask is where.args[0] else "orelse"

    def of_reads(self, op):
        """The branches around each read of ``op``, within its block."""
        inside = self.in_cone(op.target)
        outer = (inside,) if inside is not None else ()
        if op.target in self.choosing:
            return (outer, outer + ((id(op), "then"),), outer + ((id(op), "orelse"),))
        return (outer,) * len(op.args)


def _read_places(stmts, silent, differentiable, sides):
    """Where each var is read in ``stmts`` by something that can hand it an
    adjoint (not by a condition, a comparison, or what is ``silent``): var ->
    [(path, reader)], a path being the ``(id(If), side)`` branches around the
    read, outermost first (``(id(Loop), None)`` for a loop's body; ``(id(Op),
    side)`` for a branch of a where on one number: ``sides``), and the reader
    the operation (or loop) reading it, or None. Also each statement's place
    in program order, and the path of each operation, `if` and loop."""
    reads, order, home = {}, {}, {}

    def read(atom, path, reader=None):
        if isinstance(atom, Var):
            reads.setdefault(atom, []).append((path, reader))

    def block(stmts, path):
        for stmt in stmts:
            order[id(stmt)] = len(order)
            if isinstance(stmt, Op):
                home[id(stmt)] = path
                if not silent(stmt.target) and not stmt.effect and \
                        (stmt.override or differentiable(stmt.prim)):
                    skipped = never_picked(stmt)
                    for k, (a, side) in enumerate(zip(stmt.args, sides(stmt))):
                        if k != skipped:
                            read(a, path + side, stmt)
            elif isinstance(stmt, If):
                home[id(stmt)] = path
                for side in ("then", "orelse"):
                    inner = path + ((id(stmt), side),)
                    block(getattr(stmt, side), inner)
                    for m in stmt.merges:
                        if not silent(m.target):
                            read(getattr(m, side), inner)
            elif isinstance(stmt, Loop):
                home[id(stmt)] = path
                outside, inside = _loop_reads(stmt)
                made = [v for v in made_by(stmt) if isinstance(v, Var)]
                if made and all(silent(v) for v in made):
                    outside, inside = [], []  # (no result of it gets an adjoint)
                for a in outside:
                    read(a, path, stmt)
                inner = path + ((id(stmt), None),)
                block(stmt.cond_block, inner)
                block(stmt.body, inner)
                for a in inside:
                    read(a, inner)

    block(stmts, ())
    return reads, order, home
