"""Dead-code elimination: drop what the result does not need.

Operations run for what they do (``Op.effect``) are kept. Loops keep the
carried values something needs; a forward loop saves on its tape only what
its reverse loop still reads, and a value read only for its shape is saved
as its shape.
"""
from __future__ import annotations

from ..ir.dtypes import spelled_math
from ..ir.nodes import If, Loop, Op, Var, saved, walk
from ..ir.primitive import TABLE
from ..ir.shapes import is_numpy_value

# (primitive, operand position) where only the operand's shape is read
_SHAPE_POSITIONS = {("sum_to", 1), ("assigned", 1)}


# math's functions defined for every float (math.sin(inf) raises, math.atan(inf) not)
_TOTAL = frozenset({"abs", "arcsinh", "arctan", "arctan2", "erf", "erfc", "hypot", "tanh"})


def eliminate_dead_code(fn, builder=None):
    _DeadCode(fn, builder.facts if builder is not None else None).run(fn)
    return fn


class _DeadCode:
    def __init__(self, fn, facts=None):
        self.pruned = {}  # tape var -> which entries its reverse loop still reads
        self.shapes = _shape_values(fn.body)  # values that are shapes already
        self.defs = {s.target: s for s in walk(fn.body) if isinstance(s, Op)}
        self.facts = facts
        self.backward = 0  # inside a backward loop or branch (which recomputes, never checks)

    def checks(self, op):
        """Whether ``op`` is a call of the user's that raises where the function
        does (``math.log(x)`` of a negative x): kept, even when nothing reads its
        value, so that the gradient raises there too (the derivative, ``1 / x``,
        would not)."""
        return not self.backward and not op.backward and op.math is True and \
            spelled_math(op, self.facts) and \
            not (op.prim in _TOTAL and all(self.facts.dtype(a) is float for a in op.args))

    def run(self, fn):
        fn.body = self.block(fn.body, _atoms(fn.result))

    def block(self, stmts, live, mutate=True):
        """Drop statements whose results are not in ``live`` (updated in place).

        With ``mutate=False`` only ``live`` is computed: nothing is changed.
        """
        out = []
        for stmt in reversed(stmts):
            if isinstance(stmt, Op):
                if stmt.target in live or stmt.effect or self.checks(stmt):
                    if mutate and stmt.target not in live and not stmt.effect:
                        stmt.effect = True  # (a check: a statement of its own, kept)
                        name = TABLE[stmt.prim].math[0]
                        stmt.note = f"kept: math.{name} raises where the function does"
                    live.update(a for a in stmt.args if isinstance(a, Var))
                    out.append(stmt)
                continue
            self.backward += stmt.backward
            if isinstance(stmt, If):
                if self.branch(stmt, live, mutate):
                    out.append(stmt)
            elif isinstance(stmt, Loop):
                if self.loop(stmt, live, mutate):
                    out.append(stmt)
            self.backward -= stmt.backward
        out.reverse()
        return out

    def branch(self, stmt, live, mutate):
        merges = [m for m in stmt.merges if m.target in live]
        for m in merges:
            live.update(a for a in (m.then, m.orelse) if isinstance(a, Var))
        then_live, else_live = set(live), set(live)
        then = self.block(stmt.then, then_live, mutate)
        orelse = self.block(stmt.orelse, else_live, mutate)
        if not (then or orelse or merges):
            return False
        if mutate:
            stmt.merges, stmt.then, stmt.orelse = merges, then, orelse
        live |= then_live | else_live
        if isinstance(stmt.cond, Var):
            live.add(stmt.cond)
        return True

    def loop(self, loop, live, mutate):
        """Keep the carried values something needs; False if the loop is dead."""
        if mutate:
            self.prune_saves(loop, live)
        needed = [c for c in loop.carried if c.out in live]
        while True:  # a carried value read by what is needed is needed too
            inner = _loop_roots(loop, needed)
            self.block(loop.body, inner, mutate=False)
            self.block(loop.cond_block, inner, mutate=False)
            more = [c for c in loop.carried if c not in needed and c.param in inner]
            if not more:
                break
            needed += more
        inner = _loop_roots(loop, needed)
        body = self.block(loop.body, inner, mutate)
        cond_block = self.block(loop.cond_block, inner, mutate)
        if not needed and not loop.writes and not _has_effects(body):
            return False
        if mutate:
            loop.carried = [c for c in loop.carried if c in needed]
            loop.body, loop.cond_block = body, cond_block
            self.prune_tape(loop, inner)
        live |= inner
        live.update(_vars(loop.bounds) + _vars([c.init for c in needed]))
        live.update(tape.var for tape in loop.reads)
        return True

    def prune_tape(self, loop, inner):
        """A reverse loop reads only the saved values it uses (keep one, to count);
        a value it reads only for its shape is saved as its shape."""
        shape_only = _shape_only(loop)
        for n, tape in enumerate(loop.reads):
            keep = [v in inner for v in tape.items]
            if not any(keep) and n == 0:
                keep[0] = True
            tape.items = [v for v, k in zip(tape.items, keep) if k]
            self.pruned[tape.var] = (keep, [v in shape_only for v in tape.items], tape.items)
        loop.reads = [tape for tape in loop.reads if tape.items]

    def prune_saves(self, loop, live):
        """A forward loop saves what its reverse loop reads, or nothing if it is gone."""
        loop.writes = [tape for tape in loop.writes if tape.var in live]
        shapes = {}  # one np.shape(var) per var, whichever tapes save it
        for tape in loop.writes:
            keep, shape_only, loads = self.pruned.pop(tape.var, (None, None, None))
            if keep is None:
                continue
            tape.items = [v for v, k in zip(tape.items, keep) if k]
            for i, (var, shape) in enumerate(zip(tape.items, shape_only)):
                if shape and var not in self.shapes:  # save np.shape(var), not the array
                    loads[i].hint = var.hint + "_shape"  # read back as what it is
                    if var not in shapes:
                        prim = "array_shape" if is_numpy_value(var, self.defs) else "shape"
                        op = Op(Var(var.hint + "_shape"), prim, (var,), loc=loop.loc)
                        loop.body.append(op)
                        shapes[var] = op.target
                    tape.items[i] = shapes[var]


def _atoms(value):
    if isinstance(value, tuple):
        return {a for v in value for a in _atoms(v)}
    return {value} if isinstance(value, Var) else set()


def _shape_values(stmts):
    shapes, written = set(), {}
    for stmt in walk(stmts):
        if isinstance(stmt, Op) and stmt.prim in ("shape", "array_shape", "tuple"):
            shapes.add(stmt.target)
        elif isinstance(stmt, Loop):
            for tape in stmt.reads:
                shapes.update(item for item, source in zip(tape.items, written.get(tape.var, ()))
                              if source in shapes)
            written.update((tape.var, tape.items) for tape in stmt.writes)
    return shapes


def _loop_roots(loop, needed):
    roots = {c.update for c in needed} | set(_vars(saved(loop)))
    return roots | {v for v in (loop.exit, loop.cond) if isinstance(v, Var)}


def _shape_only(loop):
    """The loads of ``loop`` that its body reads only where a shape will do."""
    value_uses, shape_uses = set(), set()
    for stmt in walk(loop.body):
        if isinstance(stmt, Op):
            for i, a in enumerate(stmt.args):
                if isinstance(a, Var):
                    uses = shape_uses if (stmt.prim, i) in _SHAPE_POSITIONS else value_uses
                    uses.add(a)
        else:
            value_uses.update(_vars(_structure_uses(stmt)))
    value_uses.update(_vars([c.update for c in loop.carried]))
    value_uses.update(_vars([c.init for c in loop.carried]))
    value_uses.update(_vars(saved(loop)))  # appended to a tape: read whole later
    return {v for t in loop.reads for v in t.items
            if v in shape_uses and v not in value_uses}


def _structure_uses(stmt):
    if isinstance(stmt, If):
        return [stmt.cond] + [a for m in stmt.merges for a in (m.then, m.orelse)]
    if isinstance(stmt, Loop):
        return list(stmt.bounds) + [c.init for c in stmt.carried] + \
            [c.update for c in stmt.carried] + saved(stmt) + [stmt.exit, stmt.cond] + \
            [t.var for t in stmt.reads]
    return []


def _vars(atoms):
    return [a for a in atoms if isinstance(a, Var)]


def _has_effects(stmts):
    return any(isinstance(s, Op) and s.effect for s in stmts)
