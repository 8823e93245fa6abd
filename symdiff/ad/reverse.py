"""Reverse mode: a function's IR in, its gradient's IR out.

The forward statements are kept as they are; the backward sweep walks them in
reverse, asking each primitive's rule for the adjoints of its operands. An
adjoint never written is zero and costs nothing (it is simply absent).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from ..errors import NoDerivativeRuleError, NonScalarOutputError, UnsupportedSyntaxError
from ..ir.shapes import ELEMENTWISE, SCALAR
from ..ir.nodes import Const, Function, If, Loop, Merge, Op, Var, branch_definitions
from .branch_placement import made_by, place_in_branches, silent_values
from .loops import TapeBar, backward_loop, loop_activity
from .where_guards import Guards, guard_wheres, zero_by_product
from ..rules.custom import override_rule
from .backward_as import add_shadows
from .cancelled_shifts import shift_free
from ..frontend.compile_time import Tup, is_atom
from ..rules import rule_for


class Reverse:
    def __init__(self, fn, builder):
        self.fn = fn
        self.b = builder
        self.facts = builder.facts
        self.adj = defaultdict(list)
        self.active = set()
        self.guards = Guards()
        self.cone = None  # the where-branch cone of the op being differentiated
        self.shadow = {}  # var -> its clean copy, downstream of backward_as
        self.original = {}  # clean copy -> var
        self.branch_of = {}  # var -> the (If, side) branches defining it, innermost first
        self.reads = {}  # var -> its reads that can hand it an adjoint (see _silent)
        self.silent = set()  # vars no adjoint reaches (a where's original branch, guarded)
        self.origin = {}  # var of a loop's copy of its body -> the var it copies
        self.placed_in = {}  # id(If) -> {side: ops differentiated in that branch}
        self.conditional_at = {}  # id(op) -> (ops, branches): backward_conditional there
        self.deferred = set()  # id(op) of the ops backward_conditional differentiates
        self.shift_free = set()  # subtractions whose shift gets no gradient (shifts.py)
        self.cancelled = None  # that shift, while its subtraction is differentiated

    # -- the interface rules use ---------------------------------------------------
    def wants(self, atom):
        return isinstance(atom, Var) and self.original.get(atom, atom) in self.active \
            and atom is not self.cancelled

    def unbroadcast(self, contribution, like):
        if contribution is None:
            return None
        if self.cone is not None:
            if not self._leaves_cone(like):
                return contribution  # stays unmasked, at the where's shape
            # Select after multiply: the gradient leaves a where-branch here.
            args = (self.cone.mask, contribution, Const(0.0))
            contribution = self.b.op("where", *args, hint=like.hint + "_bar")
            if zero_by_product(args[1], self.cone, self.guards, self.facts):
                self.b.products[contribution] = args
        if self.facts.same_shape(contribution, like):
            return contribution
        reduced = self.facts.reduced_axis(contribution, like)
        if reduced is not None:  # (sum(-g) as -sum(g): the negation on the smaller array)
            negated = self.facts.producer(contribution)
            if negated is not None and negated.prim == "negative":
                return self.b.neg(self.b.op("sum", negated.args[0], axis=reduced[0],
                                            keepdims=True))
            return self.b.op("sum", contribution, axis=reduced[0], keepdims=True)
        return self.b.op("sum_to", contribution, like)

    def _leaves_cone(self, var):
        """Whether a gradient to ``var`` leaves the cone being differentiated
        (guards included: a cone may read another where's guard)."""
        var = self.original.get(var, var)
        if not isinstance(var, Var):
            return False
        cone = self.guards.cone(var)
        return cone is None or cone.where is not self.cone.where

    def branch_gradient(self, where, operand, g):
        """``operand``'s gradient, unmasked (masks.py), when it is a guarded
        branch of ``where`` or ``where`` is a guard inside a cone; else None."""
        where = self.original.get(where, where)
        if where in self.guards.guards:
            return self.unbroadcast(g, operand)  # masked only if it leaves the cone
        cone = self.guards.cone(self.original.get(operand, operand))
        return g if cone is not None and cone.where is where else None

    def no_rule(self, op, message, hint):
        raise NoDerivativeRuleError(f"`{op.prim}`: {message}", op.loc, hint)

    # -- driving -----------------------------------------------------------------------
    def gradient(self, wrt, seeds):
        """Backward statements and the adjoint of each var in ``wrt``, from the
        ``(value, adjoint)`` pairs in ``seeds``."""
        self.active = _activity(self.fn.body, set(wrt))
        self.branch_of = branch_definitions(self.fn.body)
        self.silent, self.reads = silent_values(self.fn.body, self.fn.result,
                                                _differentiable)
        if not self.shadow and not self.guards.cone_of:  # (masks and shadows: not followed)
            self.shift_free = shift_free(self.fn.body, tuple(v for v, _ in seeds), self.facts)
        for value, seed in seeds:
            if self.wants(value):
                self.adj[value].append(seed)
        self.b.backward = True
        with self.b.block() as stmts:
            self.backward_block(self.fn.body)
            grads = [self.collect(p) for p in wrt]
            grads = [g if g is not None else self.zeros(p) for p, g in zip(wrt, grads)]
        return stmts, grads

    def backward_block(self, stmts, placed=False):
        """The backward statements of ``stmts``; ``placed``: operations were
        already placed in branches (branch_placement.py)."""
        if not placed:
            place_in_branches(self, stmts)
        for stmt in reversed(stmts):
            if id(stmt) in self.conditional_at:
                self.backward_conditional(*self.conditional_at[id(stmt)])
            elif id(stmt) in self.deferred:
                continue
            elif isinstance(stmt, Op):
                self.backward_op(stmt)
            elif isinstance(stmt, If):
                self.backward_if(stmt)
            elif isinstance(stmt, Loop):
                backward_loop(self, stmt)
            else:
                raise TypeError(f"reverse mode has no method for {type(stmt).__name__}")

    def collect(self, var):
        """The adjoint of ``var``: the sum of what was written to it, or None."""
        terms = self.adj.pop(var, [])
        last = self.facts.producer(terms[-1]) if terms else None
        with self.b.at(last.loc if last is not None else self.b.loc):
            total = self.b.total(terms, hint=var.hint + "_bar")
        if isinstance(total, Var) and total not in self.b.named and total is not var \
                and self.facts.producer(total) is not None \
                and self.facts.producer(total).backward:
            total.hint = var.hint + "_bar"
            self.b.named.add(total)
        return total

    def _total(self, terms):
        """The sum of ``terms``, placed (for its comment) at the line the last
        one comes from when that is an operation differentiated here."""
        last = self.facts.producer(terms[-1]) if isinstance(terms[-1], Var) else None
        placed = last is not None and last.backward and last.loc is not None
        with self.b.at(last.loc if placed else self.b.loc):
            return self.b.total(terms)

    def zeros(self, var):
        return self.b.op("zeros_like", var, hint=var.hint + "_bar")

    # -- statements ----------------------------------------------------------------------
    def backward_op(self, op):
        if op.target not in self.adj:
            return
        g = self.collect(op.target)
        if not any(self.wants(a) for a in op.args):
            return
        self._narrow_scalars(op)
        try:
            rule = override_rule(op.override) if op.override else rule_for(op.prim)
        except KeyError:
            name = op.param("func") or op.prim
            raise NoDerivativeRuleError(
                f"symdiff has no derivative rule for `{name}`", op.loc,
                "use a function symdiff differentiates, or give this one a rule "
                "with @symdiff.custom_gradient") from None
        if rule is None:
            return
        self.cone = self.guards.cone(op.target)
        if op.target in self.shift_free:
            self.cancelled = op.args[1]  # its gradient from here is exactly zero
        with self.b.at(op.loc):
            grads = rule(self, self._as_seen_backward(op), g)
            if self.cancelled is not None:
                grads = [self._cancelled_note(grads[0], op), None]
        self.cone = self.cancelled = None
        for arg, grad in zip(op.args, grads):
            if grad is not None and self.wants(arg):
                self._name_contribution(grad, arg)
                self.adj[arg].append(grad)

    def _cancelled_note(self, grad, op):
        """``grad`` passed on with a comment saying why the shift has none."""
        shift = self.facts.producer(op.args[1])
        what = f"np.{shift.prim}(...)" if shift is not None else "the shift"
        with self.b.noting(f"{what} gets no gradient: the result does not change with it"):
            return self.b.op("pass_gradient", grad, hint=op.args[0].hint + "_bar")

    def _as_seen_backward(self, op):
        """``op`` with the clean copies backward_as asks for in place of its values."""
        if not self.shadow or op.target not in self.shadow and \
                not any(a in self.shadow for a in op.args if isinstance(a, Var)):
            return op
        return replace(op, target=self.shadow.get(op.target, op.target),
                       args=tuple(self.shadow.get(a, a) if isinstance(a, Var) else a
                                  for a in op.args))

    def _narrow_scalars(self, op):
        """Operands of an elementwise op with a scalar result are scalars too.

        (Broadcasting never shrinks a shape.) The backward pass runs after the
        forward one has produced, and checked, these values.
        """
        if op.prim in ELEMENTWISE and self.facts.is_scalar(op.target):
            for arg in op.args:
                if isinstance(arg, Var):
                    self.facts.shape[arg] = SCALAR

    def _name_contribution(self, grad, arg):
        producer = self.facts.producer(grad)
        if producer is not None and producer.backward and grad not in self.b.named:
            grad.hint = arg.hint + "_bar"

    def backward_conditional(self, ops, tests):
        """The backward of ``ops`` (their values read only inside branches of
        `if`s on several conditions) under one `if`: that one of those
        branches was taken (``tests``: the branches around each read, as
        ``(condition, side)`` pairs, outermost first). The other adjoints they
        hand on are zero."""
        for op in ops:
            self.deferred.discard(id(op))
        del self.conditional_at[id(ops[-1])]
        with self.b.at(ops[-1].loc):
            taken = None
            for test in tests:
                both = self._taken(test, ops[-1].loc)
                taken = both if taken is None else \
                    self.b.op("logical_or", taken, both, hint="taken")
        stmt = If(taken, list(ops), [], [], ops[-1].loc)
        for op in ops:
            for var in made_by(op):
                self.branch_of[var] = ((stmt, "then"),) + self.branch_of.get(var, ())
        self.backward_if(stmt)

    def _taken(self, test, loc):
        """Whether the branches ``test`` (``(condition, side)``, outermost
        first) were taken: a condition computed inside the branch before it is
        read in that branch of an `if` on that branch's condition (so that
        reading this code back, symdiff knows it is there)."""
        cond, side = test[0]
        if len(test) > 1:
            with self.b.block() as inner:
                rest = self._taken(test[1:], loc)
            target = Var("taken")
            self.facts.shape[target] = SCALAR
            sides = (inner, []) if side == "then" else ([], inner)
            values = (rest, Const(False)) if side == "then" else (Const(False), rest)
            self.b.append(If(cond, *sides, [Merge(target, *values)], loc, backward=True))
            return target
        if side == "then":
            return cond
        negated = self.facts.producer(cond)
        return negated.args[0] if negated is not None and negated.prim == "logical_not" \
            else self.b.op("logical_not", cond, hint="not_" + cond.hint)

    @staticmethod
    def differentiable(prim):
        return _differentiable(prim)

    def origin_of(self, var):
        while var in self.origin:
            var = self.origin[var]
        return var

    def backward_if(self, stmt):
        seeds = [(m, self.collect(m.target)) for m in stmt.merges if m.target in self.adj]
        for m in stmt.merges:
            if self.facts.is_scalar(m.target):  # then so are both sources
                for source in (m.then, m.orelse):
                    if isinstance(source, Var):
                        self.facts.shape[source] = SCALAR
        outer = self.adj
        results = []
        for side, block in (("then", stmt.then), ("orelse", stmt.orelse)):
            block = self.placed_in.get(id(stmt), {}).get(side, []) + block
            self.adj = defaultdict(list)
            for merge, g in seeds:
                if g is not None and self.wants(getattr(merge, side)):
                    self.adj[getattr(merge, side)].append(g)
            for var in [v for v in outer if self._inside(v, stmt, side)]:
                self.adj[var].extend(outer.pop(var))  # from a later `if` on this condition
            with self.b.block() as stmts, self.b.at(stmt.loc):
                self.backward_block(block, placed=True)
                escaping = {v: self._total(terms) for v, terms in self.adj.items() if terms}
            results.append((stmts, escaping))
        self.adj = outer
        self._join(stmt, results)

    def _inside(self, var, stmt, side):
        """Whether ``var`` is defined within the ``side`` branch of ``stmt``."""
        return any(owner is stmt and where == side
                   for owner, where in self.branch_of.get(var, ()))

    def cond_key(self, cond):
        """What an `if` tests, before the run-time check that it is a scalar."""
        op = self.facts.defs.get(cond)
        return op.args[0] if op is not None and op.prim == "scalar_predicate" else cond

    def _same_cond(self, a, b):
        return self.cond_key(a) is self.cond_key(b)

    def _join(self, stmt, results):
        (then, then_out), (orelse, else_out) = results
        names = [v for v in then_out] + [v for v in else_out if v not in then_out]
        merges = []
        for var in names:
            side = "then" if var in then_out else "orelse"
            if (var in then_out) != (var in else_out) and any(
                    owner is not stmt and where == side and self._same_cond(owner.cond, stmt.cond)
                    for owner, where in self.branch_of.get(var, ())):
                # defined under the same condition by an earlier `if`, and read
                # on the same side: its adjoint stays there, nothing to merge
                self.adj[var].append(then_out.get(var, else_out.get(var)))
                continue
            if isinstance(then_out.get(var, else_out.get(var)), TapeBar):
                raise UnsupportedSyntaxError(
                    "a tape is read under another condition than the one it was "
                    "written under", stmt.loc, "read a tape in a loop nested in the "
                    "same `if` conditions as the loop that appends to it")
            sides = []
            for stmts, out in ((then, then_out), (orelse, else_out)):
                if var not in out:
                    with self.b.into(stmts):
                        out[var] = self.zeros(var)
                sides.append(out[var])
            target = Var(var.hint + "_bar")
            merges.append(Merge(target, *sides))
            self.facts.shape[target] = self.facts.key(var)
            self.adj[var].append(target)
        if then or orelse or merges:
            self.b.append(If(stmt.cond, then, orelse, merges, stmt.loc, backward=True))


def _activity(stmts, active):
    """The vars whose values depend differentiably on ``active``."""
    for stmt in stmts:
        if isinstance(stmt, Op):
            if any(a in active for a in stmt.args if isinstance(a, Var)) \
                    and (stmt.override or _differentiable(stmt.prim)):
                active.add(stmt.target)
        elif isinstance(stmt, If):
            _activity(stmt.then, active)
            _activity(stmt.orelse, active)
            for m in stmt.merges:
                if m.then in active or m.orelse in active:
                    active.add(m.target)
        elif isinstance(stmt, Loop):
            loop_activity(stmt, active, _activity)
    return active


def _differentiable(prim):
    try:
        return rule_for(prim) is not None
    except KeyError:
        return True  # unknown: reported when the backward pass reaches it


def differentiate(fn, builder, wrt, mode, many=None):
    """The gradient function's IR.

    ``mode`` is "grad" (scalar output, seed 1), "value_and_grad", or "vjp":
    the seed (cotangent) becomes a last parameter and any output shape is fine.
    """
    rev = Reverse(fn, builder)
    rev.guards = guard_wheres(fn, builder)
    rev.shadow = add_shadows(fn, builder)
    rev.original = {v: k for k, v in rev.shadow.items() if isinstance(v, Var)}
    builder.stmts = list(fn.body)
    result, params = fn.result, list(fn.params)
    if isinstance(result, Tup) and mode != "vjp":
        raise NonScalarOutputError(
            f"the function returns {len(result.items)} values; {mode} needs one scalar",
            fn.loc, "return one scalar (the sum of the parts, say), or use symdiff.vjp "
            "or symdiff.jacobian, which take functions with several outputs")
    seeds = [(result, Const(1.0))]
    if mode == "vjp":
        seed = Var(_seed_name(result, params))
        params.append(seed)
        result, seeds = _vjp_seeds(builder, result, seed, fn.loc)
    elif not builder.facts.is_scalar(result):
        result, seeds = _check_scalar(fn, builder, result, mode, seeds)
    fn.body = builder.stmts
    with builder.block() as checks, builder.at(fn.loc):
        _check_floats(fn, builder, wrt)
    fn.body = checks + fn.body
    backward, grads = rev.gradient(wrt, seeds)
    many = len(grads) > 1 if many is None else many
    grad_value = tuple(grads) if many else grads[0]
    out = grad_value if mode == "grad" else (result, grad_value)
    return Function(fn.name, params, fn.body + backward, out, fn.loc,
                    named=set(builder.named))


def _check_scalar(fn, builder, result, mode, seeds):
    """One check, after the forward pass, that the result is a scalar: of the
    values that decide its shape if grad can see them (so the result need not
    be computed), else of the result (it passes its first value through).
    The result and seeds after it."""
    with builder.at(fn.loc):
        leaves = _shape_sources(fn, builder.facts, result) if mode == "grad" else None
        checked = builder.op("require_scalar", *(leaves or [result]), hint="value",
                             message=fn.loc.short())
    builder.facts.shape[result] = SCALAR  # checked before the backward pass
    if leaves:  # all scalars, or the check fails: no gradient is summed to them
        builder.facts.assume_scalar(leaves)
        return result, seeds
    return checked, [(checked, Const(1.0))]


def _check_floats(fn, builder, wrt):
    """One check that the arguments differentiated are floating point (only
    they have gradients); its error points at the argument's name."""
    messages = tuple(f"{builder.param_locs.get(p, fn.loc).short()}: argument `{p.hint}`"
                     for p in wrt)
    if len(wrt) == 1:
        builder.op("require_float", *wrt, message=messages[0])
    elif wrt:
        builder.op("require_float", *wrt, messages=messages)


def _shape_sources(fn, facts, result):
    """The values whose shapes decide the result's: following elementwise ops
    (their result broadcasts their operands) down to what is not. Checking
    these is as good as checking the result, without computing it. None if a
    source is not visible at the end of the function."""
    top = set(fn.params)
    for stmt in fn.body:
        top.add(getattr(stmt, "target", None))
        top.update(m.target for m in getattr(stmt, "merges", ()))
        top.update(c.out for c in getattr(stmt, "carried", ()))
    sources, todo = [], [result]
    while todo:
        atom = todo.pop()
        if not isinstance(atom, Var) or facts.is_scalar(atom) or atom in sources:
            continue
        if atom not in top:
            return None
        op = facts.producer(atom)
        if op is not None and op.prim in ELEMENTWISE:
            todo.extend(op.args)
        else:
            sources.append(atom)
    order = {p: i for i, p in enumerate(fn.params)}
    return sorted(sources, key=lambda v: order.get(v, len(order) + v.uid))


def _vjp_seeds(builder, result, seed, loc):
    """The result as atoms (tuples as Python tuples) and its (value, cotangent)
    pairs: a function returning a tuple takes a tuple of cotangents."""
    if is_atom(result):
        builder.facts.shape[seed] = builder.facts.key(result)
        return result, [(result, seed)]
    if not isinstance(result, Tup):
        raise NonScalarOutputError("the function returns something that is not an "
                                   "array, a number or a tuple of them", loc,
                                   "return arrays or numbers")
    items, pairs = [], []
    for k, item in enumerate(result.items):
        part = builder.op("getitem", seed, Const(k), hint=seed.hint)
        value, more = _vjp_seeds(builder, item, part, loc)
        items.append(value)
        pairs += more
    return tuple(items), pairs


def _seed_name(result, params):
    base = (result.hint if isinstance(result, Var) else "out") + "_bar"
    taken = {p.hint for p in params}
    while base in taken:
        base += "_"
    return base
