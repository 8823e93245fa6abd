"""Where the backward sweep starts: the seeds (the output's adjoint: 1.0 for a
scalar, the cotangent for vjp) and the checks the gradient makes before it
(differentiated arguments are floating point, grad's output is a scalar).
"""
from __future__ import annotations

from ..ir.nodes import Const, Var
from ..ir.shapes import SCALAR, is_elementwise


def check_scalar(fn, builder, result, mode, seeds):
    """One check, after the forward pass, that the result is a scalar: of the
    values that decide its shape if grad can see them (so the result need not
    be computed), else of the result (it passes its first value through).
    The result and seeds after it."""
    where = fn.return_loc or fn.loc  # the `return`, if there is one
    with builder.at(where):
        leaves = _shape_sources(fn, builder.facts, result) if mode == "grad" else None
        checked = builder.op("require_scalar", *(leaves or [result]), hint="value",
                             message=where.short())
    builder.facts.shape[result] = SCALAR  # checked before the backward pass
    if leaves:  # all scalars, or the check fails: no gradient is summed to them
        builder.facts.assume_scalar(leaves)
        return result, seeds
    return checked, [(checked, Const(1.0))]


def check_floats(fn, builder, wrt):
    """One check that the arguments differentiated are floating point (only
    they have gradients); its error points at the argument's name."""
    wrt = [p for p in wrt if not builder.facts.floating(p)]  # the signature says so
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


def seed_name(result, params):
    base = (result.hint if isinstance(result, Var) else "out") + "_bar"
    taken = {p.hint for p in params}
    while base in taken:
        base += "_"
    return base
