"""Forward mode: the function and its directional derivative in one pass.

After every operation that depends on a differentiated input, the tangent
of its result is computed from its operands' tangents (each primitive's
forward rule: rules/derive.py).
Branches and loops carry tangents like any other value, so a loop stays one
loop and an ``if`` one ``if``.
"""
from __future__ import annotations

from dataclasses import replace

from ..errors import NoDerivativeRuleError
from ..ir.nodes import Carry, Const, FreeVar, Function, If, Loop, Merge, Op, Tape, Var, walk
from ..ir.shapes import SCALAR, is_elementwise
from ..rules import NoRule, forward_rule
from ..ir.primitive import TABLE
from ..rules.derive import linear_tangent, second_tangent
from .backward_as import add_shadows
from .where_guards import guard_wheres


class Forward:
    def __init__(self, builder):
        self.b = builder
        self.dot = {}  # var -> tangent atom
        self.tape_dots = {}  # tape var -> positions whose tangents follow the items
        self.shadow = {}  # var -> its clean copy, downstream of backward_as
        self.copies = set()  # the clean copies: values only rules read
        self.needed = set()  # the values whose tangents may reach the result

    def tangent(self, atom):
        return self.dot.get(atom) if isinstance(atom, Var) else None

    def block(self, stmts):
        out = []
        with self.b.into(out):
            for stmt in stmts:
                if not isinstance(stmt, Loop):  # _loop appends it after the initial tangents
                    self.b.append(stmt)
                with self.b.at(getattr(stmt, "loc", None)):
                    getattr(self, "_" + type(stmt).__name__.lower())(stmt)
        return out

    def _op(self, op):
        dargs = [self.tangent(a) for a in op.args]
        if all(d is None for d in dargs) or op.target in self.copies:
            return
        try:
            rule = forward_rule(op.prim, op.param("func"))
        except NoRule:
            rule = False
        if rule is None and not op.override:
            return  # a zero derivative
        if (rule is False or op.override) and op.target not in self.needed:
            return  # no rule, but its tangent reaches no result (a shape read from it)
        if rule is False or op.override:
            name = op.param("func") or op.prim  # (npcall, opaque_call: the function called)
            what = f"the overridden gradient of {name}" if op.override else name
            raise NoDerivativeRuleError(
                f"forward mode (jvp) has no rule for {what}", op.loc,
                "use symdiff.vjp / grad, which know every rule")
        made = len(self.b.stmts)
        tangent = self._derivative(rule, self._as_seen(op), dargs)
        built = self.b.stmts[made:]
        if isinstance(tangent, tuple):  # one tangent per output of a multi-output op
            if any(t is not None for t in tangent):
                self.dot[op.target] = tangent
        elif tangent is not None:
            if is_elementwise(op.prim):
                tangent = self._fitted(op, dargs, tangent, built)
            elif rule is second_tangent:  # the value is the first operand, the tangent not
                tangent = self._fitted(op, [None] + dargs[1:], tangent, built)
            fresh = [s.target for s in self.b.stmts[made:] if isinstance(s, Op)]
            if tangent in fresh and tangent not in self.b.named:
                tangent.hint = op.target.hint + "_dot"
                if not self.b.facts.is_scalar(tangent):
                    # a tangent has its primal's shape: say so, for later folds
                    self.b.facts.shape[tangent] = self.b.facts.key(op.target)
            self.dot[op.target] = tangent

    def _as_seen(self, op):
        """``op`` with the clean copies backward_as asks for in place of its
        values: derivatives downstream of it are taken as if ``clean`` stood
        there, in forward mode as in reverse mode."""
        if not self.shadow:
            return op
        return replace(op, target=self.shadow.get(op.target, op.target),
                       args=tuple(self.shadow.get(a, a) if isinstance(a, Var) else a
                                  for a in op.args))

    def _derivative(self, rule, op, dargs):
        """``rule``'s tangent, built with the algebra the builder allows in
        derivative code (``a + -b`` is ``a - b``); user code is kept as written."""
        made = len(self.b.stmts)
        self.b.backward = True
        try:
            with self.b.math_spelling(op.math):  # (math.sin's: math.cos)
                return rule(self.b, op, dargs)
        finally:
            self.b.backward = False
            for stmt in self.b.stmts[made:]:
                stmt.backward = False  # no "# L12: ..." comment: the line is right above

    def _fitted(self, op, dargs, tangent, built):
        """``tangent`` broadcast to the shape of ``op``'s result where an operand
        without a tangent may make that result bigger: in ``x + ones((2, 1))``
        the tangent ``x_dot`` alone has only the shape of ``x``."""
        facts = self.b.facts
        missing = {_key(facts, a) for a, d in zip(op.args, dargs) if d is None} - {SCALAR}
        if not missing or facts.same_shape(tangent, op.target):
            return tangent
        read = {_key(facts, a) for a in _expression(tangent, built)}
        if facts.key(op.target) in read or missing <= read:
            return tangent  # the tangent's expression itself broadcasts against them
        return self.b.op("broadcast_to", tangent, self.b.op("shape", op.target))

    def result_tangent(self, value):
        """The tangent of the returned value (a tuple of them for a tuple)."""
        if isinstance(value, tuple):
            return tuple(self.result_tangent(v) for v in value)
        tangent = self.tangent(value)
        return tangent if tangent is not None else self.zeros(value)

    def zeros(self, atom):
        """A zero tangent for ``atom``, of its shape."""
        if isinstance(atom, Const) and self.b.facts.is_scalar(atom):
            return Const(0.0)
        return self.b.op("zeros_like", atom, hint=getattr(atom, "hint", "t") + "_dot")

    def _if(self, stmt):
        stmt.then = self.block(stmt.then)
        stmt.orelse = self.block(stmt.orelse)
        for m in list(stmt.merges):
            dt, de = self.tangent(m.then), self.tangent(m.orelse)
            if dt is None and de is None:
                continue
            sides = []
            for block, d, source in ((stmt.then, dt, m.then), (stmt.orelse, de, m.orelse)):
                if d is None:  # zeros of the value this branch gives (m.target is not set yet)
                    with self.b.into(block):
                        d = self.zeros(source)
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
                self.b.facts.shape[param] = self.b.facts.key(c.param)
                self.dot[c.param] = param
                init = self.tangent(c.init)
                carries.append((c, Carry(param, init if init is not None else self.zeros(c.init),
                                         None, Var(c.param.hint + "_dot"))))
        self.b.append(loop)
        loop.body = self.block(loop.body)
        self._write_tangents(loop)
        for c, carry in carries:
            update = self.tangent(c.update)
            if update is None:
                with self.b.into(loop.body):
                    update = self.zeros(c.update)
            carry.update = update
            loop.carried.append(carry)
            self.b.facts.shape[carry.out] = self.b.facts.key(c.out)
            self.dot[c.out] = carry.out

    def _read_tangents(self, loop):
        """A tape's tangents travel on it, after the values they belong to."""
        for tape in loop.reads:
            for k in self.tape_dots.get(tape.var, ()):
                load = Var(tape.items[k].hint + "_dot")
                self.b.facts.shape[load] = self.b.facts.key(tape.items[k])
                self.dot[tape.items[k]] = load
                tape.items.append(load)

    def _write_tangents(self, loop):
        for tape in list(loop.writes):
            if tape.var in self.b.list_tapes:  # a list the function reads: its own
                if self.tangent(tape.items[0]) is not None:  # tangents on a list beside it
                    dots = Tape(Var(tape.var.hint + "_dot"), [self.tangent(tape.items[0])])
                    loop.writes.append(dots)
                    self.b.list_tapes.add(dots.var)
                    self.dot[tape.var] = dots.var
                continue
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


def _expression(atom, ops):
    """``atom`` and every atom it is computed from by ``ops``."""
    defs = {op.target: op for op in ops if isinstance(op, Op)}
    seen, todo = {}, [atom]
    while todo:
        a = todo.pop()
        if id(a) not in seen:
            seen[id(a)] = a
            if isinstance(a, Var) and a in defs:
                todo.extend(defs[a].args)
    return list(seen.values())


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
    fwd.shadow = add_shadows(fn, builder)
    cleans = {s.args[1] for s in walk(fn.body) if isinstance(s, Op) and s.prim == "backward_as"}
    fwd.copies = {v for v in fwd.shadow.values() if isinstance(v, Var)} - cleans
    tangents = []
    taken = {p.hint for p in fn.params} | {a.hint for a in _globals(fn.body)}
    for p in wrt:
        t = Var(_fresh(p.hint + "_dot", taken))
        taken.add(t.hint)
        builder.facts.shape[t] = builder.facts.key(p)
        fwd.dot[p] = t
        tangents.append(t)
    fwd.needed = tangent_readers(fn.body, fn.result)
    body = fwd.block(fn.body)
    result = fn.result
    with builder.into(body):
        out = fwd.result_tangent(result)
    return Function(fn.name, list(fn.params) + tangents, body, (result, out), fn.loc,
                    named=set(builder.named))


def tangent_readers(stmts, result):
    """The values whose tangents the result's tangent may read: found backwards
    from the result, through the operands each forward rule reads (none for a
    zero derivative; a linear one's linear operands). Branches and loops are
    taken whole. An op with no forward rule is refused only if its value is
    among them (``np.full_like(value, 1.0)`` reads only its shape)."""
    needed = {a for a in (result if isinstance(result, tuple) else (result,))
              if isinstance(a, Var)}
    for stmt in reversed(stmts):
        if isinstance(stmt, Op):
            if stmt.target in needed:
                needed.update(a for a in _tangent_operands(stmt) if isinstance(a, Var))
        else:  # an If or a Loop: whatever it reads
            needed.update(a for s in walk([stmt]) if isinstance(s, Op)
                          for a in s.args if isinstance(a, Var))
            needed.update(v for m in getattr(stmt, "merges", ()) for v in (m.then, m.orelse)
                          if isinstance(v, Var))
            needed.update(v for c in getattr(stmt, "carried", ())
                          for v in (c.init, c.update) if isinstance(v, Var))
            if isinstance(getattr(stmt, "cond", None), Var):
                needed.add(stmt.cond)
    return needed


def _tangent_operands(op):
    try:
        rule = forward_rule(op.prim, op.param("func"))
    except NoRule:
        return op.args
    if rule is None and not op.override:
        return ()
    record = TABLE[op.prim]
    if rule is linear_tangent and record.linear != "all":
        return [op.args[i] for i in record.linear if i < len(op.args)]
    if record.operands and record.operands[-1] == "*index":  # (positions: no tangent,
        return op.args[:len(record.operands) - 1]  # K[np.diag_indices_from(K)] += v)
    return op.args


def _fresh(name, taken):
    """``name``, or ``name_``, ``name__``...: a tangent parameter must not take
    the name of a parameter or of a global the function reads."""
    while name in taken:
        name += "_"
    return name


def _globals(stmts):
    return {a for s in walk(stmts) if isinstance(s, Op) for a in s.args
            if isinstance(a, FreeVar)}


def _key(facts, atom):
    """``facts.key(atom)``, hashable: a constant index (``np.s_[:, 1]``) is a
    value of its own (slices are not hashable before Python 3.12)."""
    key = facts.key(atom)
    try:
        hash(key)
    except TypeError:
        return ("constant", id(atom))
    return key
