"""Forward mode: the function and its directional derivative in one pass.

After every operation that depends on a differentiated input, the tangent
of its result is computed from its operands' tangents (rules/tangents.py).
Branches and loops carry tangents like any other value, so a loop stays one
loop and an ``if`` one ``if``.
"""
from __future__ import annotations

from .errors import NoDerivativeRuleError
from .ir import Carry, Const, Function, If, Loop, Merge, Op, Var
from .masks import guard_wheres
from .rules import ZERO
from .rules.tangents import TANGENTS


class Forward:
    def __init__(self, builder):
        self.b = builder
        self.dot = {}  # var -> tangent atom
        self.tape_dots = {}  # tape var -> positions whose tangents follow the items

    def tangent(self, atom):
        return self.dot.get(atom) if isinstance(atom, Var) else None

    def block(self, stmts):
        out = []
        with self.b.into(out):
            for stmt in stmts:
                self.b.append(stmt)
                with self.b.at(getattr(stmt, "loc", None)):
                    getattr(self, "_" + type(stmt).__name__.lower())(stmt)
        return out

    def _op(self, op):
        dargs = [self.tangent(a) for a in op.args]
        if all(d is None for d in dargs) or op.prim in ZERO:
            return
        rule = TANGENTS.get(op.prim)
        if rule is None or op.override:
            what = f"the overridden gradient of {op.prim}" if op.override else op.prim
            raise NoDerivativeRuleError(
                f"forward mode (jvp) has no rule for {what}", op.loc,
                "use symdiff.vjp / grad, which know every rule")
        made = len(self.b.stmts)
        tangent = rule(self.b, op, dargs)
        if tangent is not None:
            fresh = [s.target for s in self.b.stmts[made:] if isinstance(s, Op)]
            if tangent in fresh and tangent not in self.b.named:
                tangent.hint = op.target.hint + "_dot"
            self.dot[op.target] = tangent

    def _if(self, stmt):
        stmt.then = self.block(stmt.then)
        stmt.orelse = self.block(stmt.orelse)
        for m in list(stmt.merges):
            dt, de = self.tangent(m.then), self.tangent(m.orelse)
            if dt is None and de is None:
                continue
            sides = []
            for block, d in ((stmt.then, dt), (stmt.orelse, de)):
                if d is None:
                    with self.b.into(block):
                        d = self.b.op("zeros_like", m.target)
                sides.append(d)
            target = Var(m.target.hint + "_dot")
            stmt.merges.append(Merge(target, *sides))
            self.b.facts.shape[target] = self.b.facts.key(m.target)
            self.dot[m.target] = target

    def _loop(self, loop):
        self._read_tangents(loop)
        active = self._carried_with_tangents(loop)
        carries = []
        for c in loop.carried:
            if id(c) in active:
                param = Var(c.param.hint + "_dot")
                self.dot[c.param] = param
                init = self.tangent(c.init)
                if init is None:  # a zero of the carried value's shape (matmul needs it)
                    init = self._zeros_before(loop, c.init)
                carries.append((c, Carry(param, init, None, Var(c.param.hint + "_dot"))))
        loop.body = self.block(loop.body)
        self._write_tangents(loop)
        for c, carry in carries:
            update = self.tangent(c.update)
            carry.update = update if update is not None else Const(0.0)
            loop.carried.append(carry)
            self.dot[c.out] = carry.out

    def _zeros_before(self, loop, value):
        if not isinstance(value, Var):
            return Const(0.0)
        assert self.b.stmts[-1] is loop  # block() appended it; the zeros go first
        self.b.stmts.pop()
        zeros = self.b.op("zeros_like", value, hint=value.hint + "_dot")
        self.b.append(loop)
        return zeros

    def _read_tangents(self, loop):
        """A tape's tangents travel on it, after the values they belong to."""
        for tape in loop.reads:
            for k in self.tape_dots.get(tape.var, ()):
                load = Var(tape.items[k].hint + "_dot")
                self.b.facts.shape[load] = self.b.facts.key(tape.items[k])
                self.dot[tape.items[k]] = load
                tape.items.append(load)

    def _write_tangents(self, loop):
        for tape in loop.writes:
            positions = [k for k, a in enumerate(tape.items) if self.tangent(a) is not None]
            tape.items += [self.tangent(tape.items[k]) for k in positions]
            self.tape_dots[tape.var] = positions

    def _carried_with_tangents(self, loop):
        """Carried values whose tangent can be nonzero (fixpoint: they feed back)."""
        active, changed = set(), True
        while changed:
            changed = False
            sources = set(self.dot) | {c.param for c in loop.carried if id(c) in active}
            for c in loop.carried:
                if id(c) not in active and (self.tangent(c.init) is not None
                                            or _reads(loop.body, sources, c.update)):
                    active.add(id(c))
                    changed = True
        return active


def _reads(stmts, sources, target):
    """Whether ``target`` depends (within ``stmts``) on any var in ``sources``."""
    reached = set(sources)
    for stmt in stmts:
        if isinstance(stmt, Op) and any(isinstance(a, Var) and a in reached
                                        for a in stmt.args):
            reached.add(stmt.target)
        elif isinstance(stmt, (If, Loop)):
            return True  # conservative: nested control flow may carry it
    return target in reached


def jvp_function(fn, builder, wrt):
    """``f(x, ..., x_dot, ...) -> (value, J x_dot)``."""
    guard_wheres(fn, builder)
    fwd = Forward(builder)
    tangents = []
    for p in wrt:
        t = Var(p.hint + "_dot")
        builder.facts.shape[t] = builder.facts.key(p)
        fwd.dot[p] = t
        tangents.append(t)
    body = fwd.block(fn.body)
    out = fwd.tangent(fn.result)
    if out is None:
        with builder.into(body):
            out = builder.op("zeros_like", fn.result, hint="out_dot") \
                if isinstance(fn.result, Var) else Const(0.0)
    return Function(fn.name, list(fn.params) + tangents, body, (fn.result, out), fn.loc,
                    named=set(builder.named))
