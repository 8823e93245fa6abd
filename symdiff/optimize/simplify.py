"""Clean-up passes on a gradient's IR: shared subexpressions and dead code.

`simplify(fn)` replaces every operation computed twice with the first result
(forward and backward passes share work this way), turns pass-through
operations into plain references, and drops what the result does not need.
Operations run for what they do (``Op.effect``: print, logging, input checks)
are kept, and never merged.
"""
from __future__ import annotations

import math

from ..ir.shapes import is_numpy_value
from ..ir.nodes import If, Loop, Op, Var, saved, walk
from ..rules.primitives import CHECKS

# Operations whose value is their first operand (their meaning was for the
# reverse pass only).
ALIASES = frozenset({"stop_gradient", "straight_through", "backward_as", "custom_value"})


def simplify(fn):
    _SHAPES.clear()
    _SHAPES.update(_shape_values(fn.body))
    _DEFS.clear()
    _DEFS.update((s.target, s) for s in walk(fn.body) if isinstance(s, Op))
    subst = {}
    fn.body = _cse(fn.body, subst, {})
    fn.result = _replace(fn.result, subst)
    fn.body = _dce(fn.body, _atoms(fn.result))
    return fn


def _cse(stmts, subst, seen):
    out = []
    for stmt in stmts:
        if isinstance(stmt, Op):
            stmt.args = tuple(_replace(a, subst) for a in stmt.args)
            if stmt.prim in ALIASES or _checked_before(stmt, seen):
                subst[stmt.target] = stmt.args[0]
                continue
            key = _key(stmt)
            if key is not None and key in seen:
                subst[stmt.target] = seen[key]
                continue
            if key is not None:
                seen[key] = stmt.target
            out.append(stmt)
        elif isinstance(stmt, If):
            stmt.cond = _replace(stmt.cond, subst)
            stmt.then = _cse(stmt.then, subst, dict(seen))
            stmt.orelse = _cse(stmt.orelse, subst, dict(seen))
            for m in stmt.merges:
                m.then, m.orelse = _replace(m.then, subst), _replace(m.orelse, subst)
            out.append(stmt)
        elif isinstance(stmt, Loop):
            _cse_loop(stmt, subst, seen)
            out.append(stmt)
        else:
            raise TypeError(f"simplify has no method for {type(stmt).__name__}")
    return out


def _cse_loop(loop, subst, seen):
    """Inside a loop, reuse what was computed before it (hoisting invariant
    work); nothing computed inside is visible after it."""
    loop.bounds = tuple(_replace(b, subst) for b in loop.bounds)
    for tape in loop.reads:  # a value saved twice is read once
        first = {}
        for item, load in zip(_written.get(tape.var, ()), tape.items):
            key = _atom_key(item)
            if key is not None and key in first:
                subst[load] = first[key]
            elif key is not None:
                first[key] = load
    for carry in loop.carried:
        carry.init = _replace(carry.init, subst)
    inner = dict(seen)
    loop.cond_block = _cse(loop.cond_block, subst, inner)
    loop.cond = _replace(loop.cond, subst)
    loop.body = _cse(loop.body, subst, inner)
    for carry in loop.carried:
        carry.update = _replace(carry.update, subst)
    loop.exit = _replace(loop.exit, subst)
    for tape in loop.writes:
        tape.items = [_replace(a, subst) for a in tape.items]
        _written[tape.var] = tape.items


def _checked_before(op, seen):
    """Whether ``op`` is an input check that cannot fail: of values a check of
    its kind passed before, on every path (a hessian's inner gradient checks
    its arguments again), or of constants that pass. Its value is its first
    operand. (Such values after the first leave a `require_scalar` kept.)"""
    if op.prim not in CHECKS:
        return False
    keys = [("checked", op.prim, _atom_key(a)) for a in op.args]
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


def _key(op):
    if op.effect:  # two prints of the same value print twice
        return None
    args = tuple(_atom_key(a) for a in op.args)
    if any(a is None for a in args):
        return None
    return (op.prim, args, op.params)


def _atom_key(atom):
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


def _replace(value, subst):
    if isinstance(value, tuple):
        return tuple(_replace(v, subst) for v in value)
    while isinstance(value, Var) and value in subst:
        value = subst[value]
    return value


def _atoms(value):
    if isinstance(value, tuple):
        return {a for v in value for a in _atoms(v)}
    return {value} if isinstance(value, Var) else set()


def _dce(stmts, live, mutate=True):
    """Drop statements whose results are not in ``live`` (updated in place).

    With ``mutate=False`` only ``live`` is computed: nothing is changed.
    """
    out = []
    for stmt in reversed(stmts):
        if isinstance(stmt, Op):
            if stmt.target in live or stmt.effect:
                live.update(a for a in stmt.args if isinstance(a, Var))
                out.append(stmt)
        elif isinstance(stmt, If):
            if _dce_if(stmt, live, mutate):
                out.append(stmt)
        elif isinstance(stmt, Loop):
            if _dce_loop(stmt, live, mutate):
                out.append(stmt)
    out.reverse()
    return out


def _dce_if(stmt, live, mutate):
    merges = [m for m in stmt.merges if m.target in live]
    for m in merges:
        live.update(a for a in (m.then, m.orelse) if isinstance(a, Var))
    then_live, else_live = set(live), set(live)
    then = _dce(stmt.then, then_live, mutate)
    orelse = _dce(stmt.orelse, else_live, mutate)
    if not (then or orelse or merges):
        return False
    if mutate:
        stmt.merges, stmt.then, stmt.orelse = merges, then, orelse
    live |= then_live | else_live
    if isinstance(stmt.cond, Var):
        live.add(stmt.cond)
    return True


_pruned = {}  # tape var -> which entries the reverse loop still reads
_written = {}  # tape var -> what its writer appends (CSE reads it)
_SHAPES = set()  # values that are shapes already: a loop saves them as they are
_DEFS = {}  # var -> the Op that defines it


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


def _dce_loop(loop, live, mutate):
    """Keep the carried values something needs; False if the loop is dead."""
    if mutate:
        _prune_saves(loop, live)
    needed = [c for c in loop.carried if c.out in live]
    while True:  # a carried value read by what is needed is needed too
        inner = _loop_roots(loop, needed)
        _dce(loop.body, inner, mutate=False)
        _dce(loop.cond_block, inner, mutate=False)
        more = [c for c in loop.carried if c not in needed and c.param in inner]
        if not more:
            break
        needed += more
    inner = _loop_roots(loop, needed)
    body = _dce(loop.body, inner, mutate)
    cond_block = _dce(loop.cond_block, inner, mutate)
    if not needed and not loop.writes and not _has_effects(body):
        return False
    if mutate:
        loop.carried = [c for c in loop.carried if c in needed]
        loop.body, loop.cond_block = body, cond_block
        _prune_tape(loop, inner)
    live |= inner
    live.update(_vars(loop.bounds) + _vars([c.init for c in needed]))
    live.update(tape.var for tape in loop.reads)
    return True


def _loop_roots(loop, needed):
    roots = {c.update for c in needed} | set(_vars(saved(loop)))
    return roots | {v for v in (loop.exit, loop.cond) if isinstance(v, Var)}


def _prune_tape(loop, inner):
    """A reverse loop reads only the saved values it uses (keep one, to count);
    a value it reads only for its shape is saved as its shape."""
    shape_only = _shape_only(loop)
    for n, tape in enumerate(loop.reads):
        keep = [v in inner for v in tape.items]
        if not any(keep) and n == 0:
            keep[0] = True
        tape.items = [v for v, k in zip(tape.items, keep) if k]
        _pruned[tape.var] = (keep, [v in shape_only for v in tape.items], tape.items)
    loop.reads = [tape for tape in loop.reads if tape.items]


_SHAPE_POSITIONS = {("sum_to", 1)}


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


def _prune_saves(loop, live):
    """A forward loop saves what its reverse loop reads, or nothing if it is gone."""
    loop.writes = [tape for tape in loop.writes if tape.var in live]
    shapes = {}  # one np.shape(var) per var, whichever tapes save it
    for tape in loop.writes:
        keep, shape_only, loads = _pruned.pop(tape.var, (None, None, None))
        if keep is None:
            continue
        tape.items = [v for v, k in zip(tape.items, keep) if k]
        for i, (var, shape) in enumerate(zip(tape.items, shape_only)):
            if shape and var not in _SHAPES:  # save np.shape(var), not the array
                loads[i].hint = var.hint + "_shape"  # read back as what it is
                if var not in shapes:
                    prim = "array_shape" if is_numpy_value(var, _DEFS) else "shape"
                    op = Op(Var(var.hint + "_shape"), prim, (var,), loc=loop.loc)
                    loop.body.append(op)
                    shapes[var] = op.target
                tape.items[i] = shapes[var]


def _vars(atoms):
    return [a for a in atoms if isinstance(a, Var)]


def _has_effects(stmts):
    return any(isinstance(s, Op) and s.effect for s in stmts)
