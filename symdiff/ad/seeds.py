"""Where the backward sweep starts: the seeds (the output's adjoint: 1.0 for a
scalar, the cotangent for vjp) and the checks the gradient makes before it
(differentiated arguments are floating point, grad's output is a scalar).
"""
from __future__ import annotations

from ..ir.nodes import Const, Op, Var, walk
from ..ir.shapes import SCALAR, is_elementwise
from ..ir.trees import paths


def check_scalar(fn, builder, result, mode, seeds):
    """One check, after the forward pass, that the result is a scalar: of the
    values that decide its shape if grad can see them (so the result need not
    be computed), else of the result (it passes its first value through).
    The result and seeds after it."""
    where = fn.return_loc or fn.loc  # the `return`, if there is one
    if mode == "grad" and builder.facts.signature and builder.facts.is_scalar(result):
        return result, seeds  # (the arguments' signature says so: the check cannot fail)
    with builder.at(where):
        leaves = _shape_sources(fn, builder.facts, result) if mode == "grad" else None
        checked = builder.op("require_scalar", *(leaves or [result]), hint="value",
                             message=where.short())
    builder.facts.shape[result] = SCALAR  # checked before the backward pass
    if leaves:  # all scalars, or the check fails: no gradient is summed to them
        builder.facts.assume_scalar(leaves)
        scalar_carries(fn.body, builder.facts)
        return result, seeds
    return checked, [(checked, Const(1.0))]


def scalar_carries(stmts, facts):
    """A loop's carried value that is a scalar after the loop (the check
    above) is one in every iteration that ran: each iteration's update is the
    next one's start, and the last one's is the result. So are the operands
    of an elementwise operation whose result is a scalar (broadcasting never
    shrinks a shape), and so a carried value whose update is a scalar and
    which starts as one (the velocity of an ODE stepper that only the
    position's update reads). Marked so, the reverse pass narrows the values
    each update is computed from (reverse.py `_narrow_scalars`), and a loop
    over numbers needs no shape helpers."""
    changed = True
    while changed:
        changed = False
        for stmt in walk(stmts):
            if isinstance(stmt, Op) and is_elementwise(stmt.prim) \
                    and facts.is_scalar(stmt.target):
                changed |= _mark_scalar(facts, stmt.args)
            for c in getattr(stmt, "carried", ()):
                if facts.is_scalar(c.out) or facts.is_scalar(c.param):
                    changed |= _mark_scalar(facts, (c.update, c.param))
                if facts.is_scalar(c.update) and _is_number(facts, c.init):
                    changed |= _mark_scalar(facts, (c.param, c.out))


def _mark_scalar(facts, atoms):
    new = [a for a in atoms if isinstance(a, Var) and not facts.is_scalar(a)]
    facts.shape.update((a, SCALAR) for a in new)
    return bool(new)


def _is_number(facts, atom):
    if isinstance(atom, Const):
        return isinstance(atom.value, (int, float)) and not isinstance(atom.value, bool)
    return facts.is_scalar(atom)


def check_floats(fn, builder, wrt):
    """One check that the arguments differentiated are floating point (only
    they have gradients); its error points at the argument's name."""
    builder.float_params.update(wrt)
    # (a container's leaves were found floating point where it was called; the
    # signature may say so too)
    wrt = [p for p in wrt if p not in builder.leaves and not builder.facts.floating(p)]
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
        if op is not None and is_elementwise(op.prim):
            todo.extend(op.args)
        else:
            sources.append(atom)
    order = {p: i for i, p in enumerate(fn.params)}
    return sorted(sources, key=lambda v: order.get(v, len(order) + v.uid))


def vjp_seeds(builder, result, seed, loc):
    """The result as atoms (tuples as Python tuples) and its (value, cotangent)
    pairs: a function returning a tuple takes a tuple of cotangents."""
    if not isinstance(result, tuple):
        builder.facts.shape[seed] = builder.facts.key(result)
        return result, [(result, seed)]
    items, pairs = [], []
    for k, item in enumerate(result):
        part = builder.op("getitem", seed, Const(k), hint=seed.hint)
        value, more = vjp_seeds(builder, item, part, loc)
        items.append(value)
        pairs += more
    return tuple(items), pairs


def container_seeds(builder, result, tree, seed):
    """A function returning a container (a dict...) takes a cotangent of the
    same structure: one seed per leaf, read from it as arguments' leaves are."""
    pairs = []
    for atom, (path, _) in zip(result, paths(tree)):
        part = builder.op("field", seed, path=path, hint=seed.hint)
        builder.facts.shape[part] = builder.facts.key(atom)
        pairs.append((atom, part))
    return result, pairs


def seed_name(result, params):
    base = (result.hint if isinstance(result, Var) else "out") + "_bar"
    taken = {p.hint for p in params}
    while base in taken:
        base += "_"
    return base
