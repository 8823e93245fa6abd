"""Keeping the branch `where` does not take from leaking NaN or warnings.

For ``where(c, t, f)``, the values of ``t`` matter only where ``c`` holds.
The *cone* of ``t`` is the elementwise computation used for nothing but
``t`` (print and logging do not count: they see what the user's code
computes). `guard_wheres` replaces an operand outside an operation's domain
(``sqrt`` of a negative, ``log`` of 0, a zero divisor) where ``c`` fails by a
value inside it::

    x_safe = np.where(c, x, 1.0)     # the "double where", written for you
    t = np.sqrt(x_safe)

The guarded operations are copies, made right before the ``where``: after
its condition and after every input of the cone (the originals are left to
the simplifier to drop, or to a print to read). A value that only wheres
read gets a guarded copy for each of them.

The reverse pass then lets the upstream gradient flow unmasked through the
cone, guards included (every value there is finite), at the where's full
shape, and applies the mask once, where a gradient leaves the cone: select
after multiply, then sum to the operand's shape. Where the gradient is known
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
    state = _Guarding(builder, uses, _where_bound(fn, uses))
    fn.body = state.block(fn.body)
    return state.guards


class _Guarding:
    def __init__(self, builder, uses, bound):
        self.b = builder
        self.uses = uses      # Var -> reads that matter (print's do not)
        self.bound = bound    # Vars read only by wheres' branches (see _where_bound)
        self.guards = Guards()

    def block(self, stmts):
        out = []
        defs = {}   # Var -> (position in out, Op): the block's ops, copies included
        for stmt in stmts:
            if isinstance(stmt, If):
                stmt.then = self.block(stmt.then)
                stmt.orelse = self.block(stmt.orelse)
            elif isinstance(stmt, Loop):
                stmt.body = self.block(stmt.body)
            elif isinstance(stmt, Op) and stmt.prim == "where":
                for op in self.where(stmt, defs):
                    defs[op.target] = (len(out), op)
                    out.append(op)
            if isinstance(stmt, Op):
                defs[stmt.target] = (len(out), stmt)
            out.append(stmt)
        return out

    def where(self, where, defs):
        """The operations ``where`` now needs before it: the masks and the
        guarded copies of its branches' cones, which it reads instead."""
        cond, *branches = where.args
        args = list(where.args)
        made = []
        for slot, branch in enumerate(branches, 1):
            # A value only wheres read gets a copy for each (but the last).
            shared = self.uses.get(branch, 0) > 1 and branch in self.bound
            cone = _cone(branch, defs, self.uses, shared)
            if not cone or shared and not any(_needs_guard(op) for op in cone):
                continue
            with self.b.block() as ops, self.b.at(where.loc):
                mask = cond if slot == 1 else self.b.op("logical_not", cond, hint="mask")
                args[slot] = self.cone(cone, Cone(mask, where.target), copy_all=shared)
            for op in ops:  # counted now: the other branch's cone must not take them
                _count(self.uses, op, +1)
            self.uses[branch] -= 1
            self.uses[args[slot]] = self.uses.get(args[slot], 0) + 1
            made += ops
        where.args = tuple(args)
        return made

    def cone(self, cone, info, copy_all):
        """Guard the operands of ``cone`` (its ops in program order) that need it.

        An op that needs a guard, or reads a value that does, is copied with
        the guarded operands (with ``copy_all``, every op is: the originals
        are still read); the copy of the branch is returned (the branch itself
        when nothing needed a guard).
        """
        fresh = {}  # original var -> its copy
        for op in cone:
            args = [fresh.get(a, a) if isinstance(a, Var) else a for a in op.args]
            for i, arg in enumerate(args):
                safe = guard_value(op.prim, i, args)
                if safe is not None and isinstance(arg, Var):
                    with self.b.at(op.loc):
                        args[i] = self.b.op("where", info.mask, arg, Const(safe),
                                            hint=arg.hint + "_safe")
                    self.guards.guards.add(args[i])
                    self.guards.cone_of[args[i]] = info
            if copy_all or any(new is not old for new, old in zip(args, op.args)):
                fresh[op.target] = self.copy(op, args)
                if not copy_all:  # the original is left to a print, or to no one
                    _count(self.uses, op, -1)
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


def _needs_guard(op):
    return any(guard_value(op.prim, i, op.args) is not None and isinstance(a, Var)
               for i, a in enumerate(op.args))


def _cone(branch, defs, uses, shared=False):
    """The elementwise ops of this block computing ``branch`` and nothing else
    (``shared``: the branch may have other readers), in program order
    (``branch`` last)."""
    found = defs.get(branch)
    if found is None or uses.get(branch) != 1 and not shared \
            or not is_elementwise(found[1].prim):
        return []
    op = found[1]
    cone, frontier = [op], [op]
    members = {op.target}
    while frontier:
        current = frontier.pop()
        for arg in current.args:
            inner = defs.get(arg)
            if inner is None or arg in members or not is_elementwise(inner[1].prim):
                continue
            if uses.get(arg) == _uses_within(arg, cone + [inner[1]]):
                members.add(arg)
                cone.append(inner[1])
                frontier.append(inner[1])
    return sorted(cone, key=lambda o: defs[o.target][0])


def _uses_within(var, ops):
    return sum(1 for op in ops for a in op.args if a is var)


def _count(uses, op, step):
    for a in op.args:
        if isinstance(a, Var):
            uses[a] = uses.get(a, 0) + step


def _where_bound(fn, uses):
    """The results of elementwise ops read only as a branch of a where, or by
    elementwise ops whose results are: only what a where takes from them
    matters, so each where can read its own guarded copy."""
    bound, reads = set(), {}  # reads: Var -> its reads by wheres and bound ops
    for stmt in reversed(list(walk(fn.body))):
        if not isinstance(stmt, Op) or not is_elementwise(stmt.prim):
            continue
        if uses.get(stmt.target) and reads.get(stmt.target) == uses[stmt.target]:
            bound.add(stmt.target)
            _count(reads, stmt, +1)
        elif stmt.prim == "where":
            for a in stmt.args[1:]:
                if isinstance(a, Var):
                    reads[a] = reads.get(a, 0) + 1
    return bound


def _use_counts(fn):
    """How many times each variable is read, not counting what print and
    logging read (directly, or through the stop_gradient, str() and format
    their arguments go through): they do not make a value part of two things."""
    counts = use_counts(fn)
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
