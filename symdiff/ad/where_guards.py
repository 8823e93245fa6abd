"""Keeping the branch `where` does not take from leaking NaN or warnings.

For ``where(c, t, f)``, the values of ``t`` matter only where ``c`` holds.
The *cone* of ``t`` is the elementwise computation of ``t`` visible at the
``where`` (in its block or an enclosing one). `guard_wheres` replaces an
operand outside an operation's domain (``sqrt`` of a negative, ``log`` of 0,
a zero divisor) where ``c`` fails by a value inside it::

    x_safe = np.where(c, x, 1.0)     # the "double where", written for you
    t = np.sqrt(x_safe)

A guard may change a value only where every use that can see it is masked
by ``c``. So the guarded operations are copies, made right before the
``where`` (after its condition and every input of the cone), and read by
nothing but the cone: a value something else also reads (another where, a
condition, a returned tuple, an operation outside the cone) keeps its
original for those readers, and the cone gets a copy of it, and of what it
is computed from, when a guard is needed there or above it (a value read by
two wheres gets a copy for each; the last one reads the original). A value
of an enclosing block the cone takes is always copied into the where's
block, and so is a member of another where's cone. Print and logging do not
count as readers: they see what the user's code computes.

The reverse pass then lets the upstream gradient flow unmasked through the
cone, guards included (every value there is finite), at the where's full
shape, and applies the mask once, where a gradient leaves the cone: select
after multiply, then sum to the operand's shape. Only the cone's own values
are left unmasked, and only the cone reads them, so the mask applies exactly
to the gradient that flowed through the branch. Where the gradient is known
finite and not negative outside the mask (`zero_by_product`), the select is
a product with the mask (optimize/selects.py): the same bits, without a branch.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..ir.nodes import Const, If, Loop, Op, Var, use_counts, walk
from ..ir.primitive import TABLE
from ..ir.shapes import is_elementwise
from ..rules.derive import guard_value


@dataclass(frozen=True)
class Cone:
    mask: object     # the condition under which the branch is used
    where: Var       # the result of the where that uses the branch


class Guards:
    """What `guard_wheres` found: cone membership and the guard operations."""

    def __init__(self):
        self.cone_of = {}     # Var -> Cone (guards included)
        self.guards = set()   # Vars made by guard where-operations

    def cone(self, var):
        return self.cone_of.get(var)


def guard_wheres(fn, builder):
    uses = _use_counts(fn)
    state = _Guarding(builder, uses,
                      {s.target: s for s in walk(fn.body) if isinstance(s, Op)})
    fn.body = state.block(fn.body, {})
    return state.guards


class _Guarding:
    def __init__(self, builder, uses, producers):
        self.b = builder
        self.uses = uses      # Var -> reads that matter (print's do not)
        self.producers = producers  # Var -> the Op that makes it (copies included)
        self.order = {}       # Var -> its place in program order (copies included)
        self.guards = Guards()

    def block(self, stmts, outer):
        """Guard the wheres of ``stmts``; ``outer`` maps the values of the
        enclosing blocks visible here to their operations."""
        out = []
        defs = {}   # Var -> Op: the block's operations so far, copies included
        for stmt in stmts:
            if isinstance(stmt, If):
                visible = {**outer, **defs}
                stmt.then = self.block(stmt.then, visible)
                stmt.orelse = self.block(stmt.orelse, visible)
            elif isinstance(stmt, Loop):
                stmt.body = self.block(stmt.body, {**outer, **defs})
            elif isinstance(stmt, Op) and stmt.prim == "where":
                for op in self.where(stmt, defs, outer):
                    self._define(op, defs)
                    out.append(op)
            if isinstance(stmt, Op):
                self._define(stmt, defs)
            out.append(stmt)
        return out

    def _define(self, op, defs):
        defs[op.target] = op
        self.producers[op.target] = op
        self.order[op.target] = len(self.order)

    def where(self, where, defs, outer):
        """The operations ``where`` now needs before it: the masks and the
        guarded copies of its branches' cones, which it reads instead."""
        cond, *branches = where.args
        args = list(where.args)
        made = []
        for slot, branch in enumerate(branches, 1):
            region = self.region(branch, defs, outer)
            cone, pinned = self.choose(branch, region, defs)
            if not cone:
                continue
            with self.b.block() as ops, self.b.at(where.loc):
                mask = cond if slot == 1 else self.b.op("logical_not", cond, hint="mask")
                args[slot] = self.cone(cone, Cone(mask, where.target), pinned)
            for op in ops:  # counted now: the other branch's cone must not take them
                self.producers[op.target] = op
                _count(self.uses, op, +1)
            if args[slot] is not branch:
                self.uses[args[slot]] = self.uses.get(args[slot], 0) + 1
                self.uses[branch] -= 1
                self.release(branch)
            made += ops
        where.args = tuple(args)
        return made

    def region(self, branch, defs, outer):
        """Var -> Op: the elementwise computation of ``branch`` visible here,
        what the guards of this branch can cover."""
        def producer(var):
            op = defs.get(var) or outer.get(var) if isinstance(var, Var) else None
            return op if op is not None and is_elementwise(op.prim) and not op.effect \
                else None

        if producer(branch) is None:
            return {}
        region, todo = {branch: producer(branch)}, [branch]
        while todo:
            for arg in region[todo.pop()].args:
                if arg not in region and producer(arg) is not None:
                    region[arg] = producer(arg)
                    todo.append(arg)
        return region

    def choose(self, branch, region, defs):
        """The cone of ``branch`` in program order, and the members of it to be
        copied (``pinned``): the values something outside the cone still reads
        (a where's other branch, a where's condition, the cone's original
        operations), and those of enclosing blocks. A pinned value is worth a
        copy only when a guard is needed at it or above it, or when it is a
        member of another where's cone."""
        if not region:
            return [], set()
        reads = _reads_within(region, branch)
        order = sorted(region, key=lambda v: self.order[v])
        pinned = {v for v in region if v not in defs or reads.get(v, 0) != self.uses.get(v)}
        for var in reversed(order):  # a value a pinned one reads stays read: pinned too
            if var in pinned:
                pinned.update(a for a in region[var].args if a in region)
        needs = set()
        for var in order:
            if _needs_guard(region[var], self.b.facts) or \
                    any(a in needs for a in region[var].args):
                needs.add(var)
        taken = {v for v in region if v not in pinned or v in needs}
        # A value of another where's cone gets its gradient unmasked, at that
        # where's shape, from that cone alone: this one reads a copy of it.
        for var in reversed(order):
            if var in taken:
                taken.update(a for a in region[var].args
                             if a in region and self.guards.cone(a) is not None)
        cone = [region[v] for v in order if v in taken]
        return cone, pinned & taken

    def release(self, var):
        """``var`` lost a reader: when it has none left, so do its operands."""
        op = self.producers.get(var)
        if self.uses.get(var) or op is None or op.effect:
            return
        for arg in op.args:
            if isinstance(arg, Var) and self.uses.get(arg):
                self.uses[arg] -= 1
                self.release(arg)

    def cone(self, cone, info, pinned):
        """Guard the operands of ``cone`` (its ops in program order) that need it.

        An op that needs a guard, reads a value that does, or is ``pinned``
        (still read by something outside the cone) is copied with the guarded
        operands; the copy of the branch is returned (the branch itself when
        nothing needed a guard).
        """
        fresh = {}  # original var -> its copy
        for op in cone:
            args = [fresh.get(a, a) if isinstance(a, Var) else a for a in op.args]
            for i, arg in enumerate(args):
                safe = guard_value(op.prim, i, args)
                if safe is not None and isinstance(arg, Var) and \
                        not _all_lengths(self.b.facts, op.args):
                    with self.b.at(op.loc):
                        args[i] = self.b.op("where", info.mask, arg, Const(safe),
                                            hint=arg.hint + "_safe")
                    self.guards.guards.add(args[i])
                    self.guards.cone_of[args[i]] = info
            if op.target in pinned or any(new is not old for new, old in zip(args, op.args)):
                fresh[op.target] = self.copy(op, args)
            self.guards.cone_of[fresh.get(op.target, op.target)] = info
        return fresh.get(cone[-1].target, cone[-1].target)

    def copy(self, op, args):
        copy = replace(op, target=Var(op.target.hint), args=tuple(args))
        self.b.append(copy)
        if op.target in self.guards.guards:  # a guard of a where inside this one's cone
            self.guards.guards.add(copy.target)
        if op.target in self.b.named:
            self.b.named.add(copy.target)
        return copy.target


def _needs_guard(op, facts):
    return not _all_lengths(facts, op.args) and any(
        guard_value(op.prim, i, op.args) is not None and isinstance(a, Var)
        for i, a in enumerate(op.args))


def _all_lengths(facts, args):
    """An operation of lengths and numbers only (``np.sqrt(Q.shape[1])``):
    no gradient flows through it, so none can meet a NaN local derivative
    there. (A divisor made of lengths still guards a numerator that has a
    gradient: ``np.dot(x, x) / n`` with n = 0.)"""
    return all(not isinstance(a, Var) or _lengths_only(facts, a) for a in args)


_LENGTHS = frozenset({"shape", "array_shape", "len", "size", "ndim"})


def _lengths_only(facts, atom, depth=6):
    """A value computed from lengths and numbers only (``np.sqrt(Q.shape[1])``,
    an integer): no gradient flows to it to leak NaN, and the where selects
    its value away; a guard would only turn a number into an array of the
    mask's shape."""
    found = facts.dtype(atom)
    if found is int or isinstance(found, np.dtype) and found.kind in "iu":
        return True
    made = facts.producer(atom)
    if made is None or depth == 0 or made.effect:
        return False
    return made.prim in _LENGTHS or all(
        not isinstance(a, Var) or _lengths_only(facts, a, depth - 1) for a in made.args)


def _reads_within(region, branch):
    """How many times each value is read by the operations of ``region``, and
    by the where reading ``branch``."""
    reads = {branch: 1}
    for op in region.values():
        for arg in op.args:
            if isinstance(arg, Var):
                reads[arg] = reads.get(arg, 0) + 1
    return reads


def _count(uses, op, step):
    for a in op.args:
        if isinstance(a, Var):
            uses[a] = uses.get(a, 0) + step


def _use_counts(fn):
    """How many times each variable is read, not counting what print and
    logging read (directly, or through the stop_gradient, str() and format
    their arguments go through): they do not make a value part of two things."""
    counts = use_counts(fn)  # (the items of a returned tuple count as reads)
    feeding = {}  # var -> its reads by effects and by what only effects read
    for stmt in reversed(list(walk(fn.body))):
        if isinstance(stmt, Op) and _feeds_effects_only(stmt, counts, feeding):
            _count(feeding, stmt, +1)
    for var, n in feeding.items():
        counts[var] -= n
    return counts


def _feeds_effects_only(op, counts, feeding):
    read = counts.get(op.target, 0)
    if op.effect:
        return not read
    return read > 0 and feeding.get(op.target, 0) == read


# -- where the gradient leaves a cone -----------------------------------------
_DTYPES = (np.float16, np.float32, np.float64, np.longdouble)


def zero_by_product(value, cone, guards, facts):
    """True when ``value * mask`` is ``where(mask, value, 0.0)`` in every bit:
    the mask is boolean (times True changes nothing, not even NaN or -0.0)
    and, where it fails, ``value`` is computed from constants and this cone's
    guards alone (they hold their safe values there) and is finite and not
    negative in every float type (so times False is +0.0). A multiply does
    not branch: no misprediction per element, as np.where has."""
    if not _boolean(cone.mask, facts):
        return False
    for dtype in _DTYPES:
        with np.errstate(all="raise"):
            try:
                known = _outside(value, _Outside(cone, guards, facts, dtype), depth=0)
            except (ArithmeticError, TypeError, ValueError):
                return False
        if known is None or not np.isfinite(known) or np.signbit(known):
            return False
    return True


def _boolean(mask, facts):
    op = facts.producer(mask)
    if op is None:
        return False
    if op.prim in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        return all(_boolean(a, facts) for a in op.args)
    return TABLE[op.prim].boolean


@dataclass
class _Outside:
    cone: Cone
    guards: Guards
    facts: object
    dtype: type
    known: dict = field(default_factory=dict)  # Var -> its value (a DAG: once each)


def _outside(atom, at, depth):
    """``atom``'s value where ``at.cone.mask`` fails, as an ``at.dtype`` scalar
    (or a Python number, as a constant is), or None when it is not known."""
    if isinstance(atom, Const):
        value = atom.value
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return value if ok else None
    if atom not in at.known:
        at.known[atom] = _outside_op(atom, at, depth)
    return at.known[atom]


def _outside_op(var, at, depth):
    op = at.facts.producer(var)
    if op is None or depth > 20:
        return None
    if var in at.guards.guards and at.guards.cone_of[var].mask is at.cone.mask \
            and op.prim == "where" and op.args[0] is at.cone.mask:
        safe = op.args[2]
        return at.dtype(safe.value) if isinstance(safe, Const) else None
    ufunc = getattr(np, op.prim, None)
    if not is_elementwise(op.prim) or not isinstance(ufunc, np.ufunc) or op.params:
        return None
    args = [_outside(a, at, depth + 1) for a in op.args]
    if any(a is None for a in args):
        return None
    return ufunc(*args)
