"""Common-subexpression elimination: every operation computed twice is replaced
by the first result (forward and backward passes share work this way), and
operations whose value is their first operand become plain references.

Operations run for what they do (``Op.effect``: print, logging, input checks)
are never merged; an input check of values a check of its kind passed before
is dropped (it cannot fail).
"""
from __future__ import annotations

import math

from ..ir.nodes import Const, If, Loop, Op, Var, walk

# Operations whose value is their first operand (their meaning was for the
# reverse pass only).
ALIASES = frozenset({"stop_gradient", "straight_through", "backward_as", "custom_value"})
# Operations whose operands commute exactly in floating point.
_COMMUTATIVE = frozenset({"add", "multiply"})
# Reads of a shape: the same for values the shape facts know have one shape.
_SHAPES = frozenset({"shape", "array_shape"})
# The checks generated code makes of its inputs (value: the first operand).
CHECKS = frozenset({"require_float", "require_scalar"})


def eliminate_common_subexpressions(fn, builder=None):
    _SharedValues(facts=builder.facts if builder is not None else None).run(fn)
    return fn


def merge_forward_values(fn, builder=None):
    """The same, for the forward pass's values only (``x[:-1]`` written twice
    is one value, so ``x[:-1] * x[:-1]`` is a square to the algebra pass);
    the backward pass's are merged after the algebra, which reads each
    expression's own (a quotient two adjoints share cancels in one of them)."""
    _SharedValues(forward_only=True, facts=builder.facts if builder is not None
                  else None).run(fn)
    return fn


class _SharedValues:
    def __init__(self, forward_only=False, facts=None):
        self.written = {}  # tape var -> what its writer appends
        self.forward_only = forward_only
        self.facts = facts

    def run(self, fn):
        self.read_tapes = {tape.var for stmt in walk(fn.body) if isinstance(stmt, Loop)
                           for tape in stmt.reads}
        # an accumulator's own buffer, added to in place: never another value's
        self.buffers = {c.init for stmt in walk(fn.body) if isinstance(stmt, Loop)
                        for c in stmt.carried if c.inplace}
        subst = {}
        fn.body = self.block(fn.body, subst, {})
        fn.result = replace_atoms(fn.result, subst)

    def block(self, stmts, subst, seen):
        out = []
        for stmt in stmts:
            if isinstance(stmt, Op):
                stmt.args = tuple(replace_atoms(a, subst) for a in stmt.args)
                if stmt.prim in ALIASES or _checked_before(stmt, seen):
                    subst[stmt.target] = stmt.args[0]
                    continue
                key = _key(stmt, self.facts) if not (self.forward_only and stmt.backward) \
                    and stmt.target not in self.buffers else None
                if key is not None and key in seen:
                    subst[stmt.target] = seen[key]
                    continue
                if not stmt.effect and _kept_again(stmt, seen) and key is not None:
                    key = _key(stmt, self.facts)
                if key is not None:
                    seen[key] = stmt.target
                out.append(stmt)
            elif isinstance(stmt, If):
                stmt.cond = replace_atoms(stmt.cond, subst)
                stmt.then = self.block(stmt.then, subst, dict(seen))
                stmt.orelse = self.block(stmt.orelse, subst, dict(seen))
                for m in stmt.merges:
                    m.then, m.orelse = replace_atoms(m.then, subst), replace_atoms(m.orelse, subst)
                out.append(stmt)
            elif isinstance(stmt, Loop):
                self.loop(stmt, subst, seen)
                out.append(stmt)
            else:
                raise TypeError(f"CSE has no method for {type(stmt).__name__}")
        return out

    def loop(self, loop, subst, seen):
        """Inside a loop, reuse what was computed before it (hoisting invariant
        work); nothing computed inside is visible after it."""
        loop.bounds = tuple(replace_atoms(b, subst) for b in loop.bounds)
        for tape in loop.reads:  # a value saved twice is read once
            first = {}
            for item, load in zip(self.written.get(tape.var, ()), tape.items):
                key = atom_key(item)
                if key is not None and key in first:
                    subst[load] = first[key]
                elif key is not None:
                    first[key] = load
        for carry in loop.carried:
            carry.init = replace_atoms(carry.init, subst)
        inner = dict(seen)
        loop.cond_block = self.block(loop.cond_block, subst, inner)
        loop.cond = replace_atoms(loop.cond, subst)
        loop.body = self.block(loop.body, subst, inner)
        for carry in loop.carried:
            carry.update = replace_atoms(carry.update, subst)
        loop.exit = replace_atoms(loop.exit, subst)
        for tape in loop.writes:
            tape.items = [replace_atoms(a, subst) for a in tape.items]
            self.written[tape.var] = tape.items
        loop.writes = self.one_list_per_value(loop.writes, subst)

    def one_list_per_value(self, tapes, subst):
        """Lists no loop reads back (stacked after the loop: a gathered
        product's rows) that get the same values are one list (``t_bar`` for
        both W's and U's gradient in ``tanh(W @ h + U @ x)``), named after it."""
        kept, first = [], {}
        for tape in tapes:
            keys = tuple(atom_key(a) for a in tape.items)
            if tape.var in self.read_tapes or None in keys:
                kept.append(tape)
            elif keys in first:
                subst[tape.var] = first[keys].var
                (item,) = tape.items if len(tape.items) == 1 else (None,)
                if isinstance(item, Var) and item.hint:
                    first[keys].var.hint = item.hint + "_rows"
            else:
                first[keys] = tape
                kept.append(tape)
        return kept


_REDUCTIONS = frozenset({"mean", "sum", "max", "min", "amax", "amin", "prod"})


def _kept_again(op, seen):
    """``np.mean(x, axis=1, keepdims=True)`` where ``m = np.mean(x, axis=1)``
    was computed: ``m[:, None]``, a view (a variance's gradient centres x by
    the mean the function computed). Rewrites ``op``; whether it did."""
    params = dict(op.params)
    axis = params.get("axis")
    if op.prim not in _REDUCTIONS or not params.get("keepdims") \
            or not isinstance(axis, int) or isinstance(axis, bool) or axis < 0:
        return False
    args = tuple(atom_key(a) for a in op.args)
    plain = {k: v for k, v in params.items() if k != "keepdims"}
    for variant in (plain, dict(plain, keepdims=False)):
        found = seen.get((op.prim, args, tuple(sorted(variant.items())), op.math))
        if isinstance(found, Var):
            op.prim, op.params = "getitem", ()
            op.args = (found,) + (Const(slice(None)),) * axis + (Const(None),)
            return True
    return False


def _checked_before(op, seen):
    """Whether ``op`` is an input check that cannot fail: of values a check of
    its kind passed before, on every path (a hessian's inner gradient checks
    its arguments again), or of constants that pass. Its value is its first
    operand. (Such values after the first leave a `require_scalar` kept.)"""
    if op.prim not in CHECKS:
        return False
    keys = [("checked", op.prim, atom_key(a)) for a in op.args]
    known = [k in seen or _passes(op.prim, a) for k, a in zip(keys, op.args)]
    if all(known):
        return True
    if op.prim == "require_scalar":  # (one message for all: nothing to realign)
        op.args = op.args[:1] + tuple(a for a, k in zip(op.args[1:], known[1:]) if not k)
    seen.update((k, True) for k in keys if k[2] is not None)
    return False


def _passes(check, atom):
    """A constant a check passes: a Python float, or any Python number for
    `require_scalar`."""
    value = getattr(atom, "value", None) if not isinstance(atom, Var) else None
    kinds = (float,) if check == "require_float" else (float, int)
    return isinstance(value, kinds)


def _key(op, facts=None):
    if op.effect:  # two prints of the same value print twice
        return None
    if op.prim in _SHAPES and facts is not None:  # (np.shape(c)[-1] is K.shape[-1]
        shape = facts.key(op.args[0])             # where c has K's shape)
        if isinstance(shape, Var):
            return ("shape", atom_key(shape))
    args = tuple(atom_key(a) for a in op.args)
    if any(a is None for a in args):
        return None
    if op.prim in _COMMUTATIVE:  # (a * b is b * a, to the bit)
        args = tuple(sorted(args, key=repr))
    return (op.prim, args, op.params, op.math)  # (math.sqrt(-1) raises, np.sqrt's not)


def atom_key(atom):
    if isinstance(atom, Var):
        return ("var", atom.uid)
    value = atom.value
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, slice):  # slices are not hashable before Python 3.12
        return ("slice", value.start, value.stop, value.step)
    try:
        hash(value)
    except TypeError:
        return None
    return ("const", type(value).__name__, value)


def replace_atoms(value, subst):
    if isinstance(value, tuple):
        return tuple(replace_atoms(v, subst) for v in value)
    while isinstance(value, Var) and value in subst:
        value = subst[value]
    return value
