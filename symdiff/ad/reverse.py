"""Reverse mode: a function's IR in, its gradient's IR out.

The forward statements are kept as they are; the backward sweep walks them in
reverse, asking each primitive's rule for the adjoints of its operands. An
adjoint never written is zero and costs nothing (it is simply absent).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from ..errors import NoDerivativeRuleError, NonScalarOutputError
from ..ir.nodes import Const, Function, If, Loop, Op, Var, branch_definitions, flatten
from ..ir.primitive import TABLE
from ..ir.shapes import SCALAR, is_elementwise
from ..rules import NoRule, reverse_rule
from ..rules.opaque import custom_gradient_hint
from .branch_placement import place_in_branches, silent_values
from .backward_as import add_shadows
from .branches import BranchReverse
from .cancelled_shifts import shift_free, silent_shifts
from .loops import backward_loop, loop_activity
from .overrides import override_rule
from .seeds import check_floats, check_scalar, container_seeds, seed_name, vjp_seeds
from .where_guards import Guards, guard_wheres, zero_by_product


class Reverse(BranchReverse):
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
        self.running_inside = {}  # id(If) -> the branches it runs in (branches.py)
        self.deferred = set()  # id(op) of the ops backward_conditional differentiates
        self.shift_free = set()  # subtractions whose shift gets no gradient (cancelled_shifts.py)
        self.cancelled = None  # that shift, while its subtraction is differentiated
        self.kept = set()  # the values differentiated by (their adjoints are the result)

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
        """``operand``'s gradient, unmasked (where_guards.py), when it is a guarded
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
        self.kept = set(wrt)
        self.branch_of = branch_definitions(self.fn.body)
        self.silent, self.reads = silent_values(self.fn.body, self.fn.result,
                                                _differentiable)
        if not self.shadow and not self.guards.cone_of:  # (masks and shadows: not followed)
            self.shift_free = shift_free(self.fn.body, tuple(v for v, _ in seeds), self.facts)
            # (a shift added back, m + log(sum(exp(x - m)))): no gradient at all
            self.active -= silent_shifts(self.fn.body, tuple(v for v, _ in seeds), self.facts)
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
            self.b.adjoints[total] = var
        return total

    def collect_outputs(self, op):
        """The adjoint of a multi-output operation: one per output (None for
        an output nothing read), summed from the parts its outputs gave."""
        parts = [[] for _ in TABLE[op.prim].outputs]
        for part in self.adj.pop(op.target, []):
            parts[part.index].append(part.value)
        with self.b.at(op.loc):
            return tuple(self.b.total(terms) for terms in parts)

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
        if op.target not in self.adj or op.target in self.kept:
            return  # (kept: a value differentiated by, read from a container argument)
        g = self.collect_outputs(op) if TABLE[op.prim].outputs else self.collect(op.target)
        if not any(self.wants(a) for a in op.args):
            return
        self._narrow_scalars(op)
        try:
            rule = override_rule(op.override) if op.override else \
                reverse_rule(op.prim, op.param("func"))
        except NoRule:
            name = op.param("func") or op.prim
            raise NoDerivativeRuleError(
                f"symdiff has no derivative rule for `{name}`", op.loc,
                custom_gradient_hint(op, self.facts.producer)) from None
        if rule is None:
            return
        self.cone = self.guards.cone(op.target)
        if op.target in self.shift_free:
            self.cancelled = op.args[1]  # its gradient from here is exactly zero
        with self.b.at(op.loc), self.b.math_spelling(op.math):  # (math.sin's: math.cos)
            moves = TABLE[op.prim].moves
            spread = self.facts.spread_number(g) if moves else None
            if spread is not None:  # (one number everywhere, moved: the same number)
                grads = [self.b.op("unreduce", spread, a)
                         if (i == 0 or moves == "all") and self.wants(a) else None
                         for i, a in enumerate(op.args)]
            else:
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
        if is_elementwise(op.prim) and self.facts.is_scalar(op.target):
            for arg in op.args:
                if isinstance(arg, Var):
                    self.facts.shape[arg] = SCALAR

    def _name_contribution(self, grad, arg):
        producer = self.facts.producer(grad)
        if producer is not None and producer.backward and grad not in self.b.named:
            grad.hint = arg.hint + "_bar"
            self.b.adjoints.setdefault(grad, arg)

    @staticmethod
    def differentiable(prim):
        return _differentiable(prim)

    def origin_of(self, var):
        while var in self.origin:
            var = self.origin[var]
        return var


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
        return reverse_rule(prim) is not None
    except NoRule:
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
    if isinstance(result, tuple) and mode != "vjp":
        raise NonScalarOutputError(
            f"the function returns {len(result)} values; {mode} needs one scalar",
            fn.loc, "return one scalar (the sum of the parts, say), or use symdiff.vjp "
            "or symdiff.jacobian, which take functions with several outputs")
    seeds = [(result, Const(1.0))]
    if mode == "vjp":
        seed = Var(seed_name(result, params))
        params.append(seed)
        if fn.trees is not None:  # a container returned: a container of cotangents
            result, seeds = container_seeds(builder, result, fn.trees.tree, seed)
        else:
            result, seeds = vjp_seeds(builder, result, seed, fn.loc)
    elif not builder.facts.is_scalar(result):
        result, seeds = check_scalar(fn, builder, result, mode, seeds)
    fn.body = builder.stmts
    with builder.block() as checks, builder.at(fn.loc):
        check_floats(fn, builder, wrt)
    fn.body = checks + fn.body
    backward, grads = rev.gradient(wrt, seeds)
    many = len(grads) > 1 if many is None else many
    grad_value = tuple(grads) if many else grads[0]
    out = grad_value if mode == "grad" else (result, grad_value)
    values = () if mode == "grad" else (None,) * len(list(flatten(result)))
    return Function(fn.name, params, fn.body + backward, out, fn.loc,
                    named=set(builder.named), adjoints=builder.adjoints,
                    returns=values + tuple(wrt))
