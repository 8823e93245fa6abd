"""``g[index] += value`` on an array nothing else can see yet.

Writing into part of an array changes every name and view that shares it, so
symdiff refuses it in general. An array the function has just made (a sum,
``np.zeros_like(x)``, an `_unindex` of generated code) that nothing has read
and only one name holds is different: the change is observable only through
that name, so ``g[index] += value`` is the new value
``g + _unindex(value, g, index)``. This is the idiom careful gradients use, and
the one symdiff writes itself (``x_bar[1:] += t_bar``), so generated code can
be differentiated again. Only constant slices and integers: with an index
array, ``g[i] += v`` adds ``v`` once to a repeated position.
"""
from __future__ import annotations

import ast

from ..errors import InPlaceWriteError
from ..ir.nodes import Const, Op, Var, blocks, uses, walk

# Operations whose result is a new array (or a new scalar, which `+=` into a
# part of would fail at run time as in Python).
_FRESH = frozenset("""
    unindex unindex_add unindex_sum zeros_like ones_like full_like add subtract
    multiply divide negative
""".split())
_FRESH_CALLS = frozenset({"zeros", "ones", "full"})


def index_add_applies(lowering, node):
    """Whether ``NAME[index] += value`` is of the form this module lowers: into
    an array just made and not read, at constant slices and integers."""
    if not (isinstance(node.op, ast.Add) and isinstance(node.target.value, ast.Name)):
        return False
    name = node.target.value.id
    if not _fresh(lowering, name, lowering.env.get(name)):
        return False
    parts = node.target.slice.elts if isinstance(node.target.slice, ast.Tuple) \
        else [node.target.slice]
    return all(isinstance(p, ast.Slice) and all(
        b is None or isinstance(b, ast.Constant) or (
            isinstance(b, ast.UnaryOp) and isinstance(b.operand, ast.Constant))
        for b in (p.lower, p.upper, p.step))
        or isinstance(p, ast.Constant) and (p.value is None or p.value is Ellipsis or (
            isinstance(p.value, int) and not isinstance(p.value, bool)))
        or isinstance(p, ast.UnaryOp) and isinstance(p.operand, ast.Constant)
        for p in parts)


def lower_index_add(lowering, node):
    """Lower ``NAME[index] += value`` (checked by fence.py to be of this form)."""
    name = node.target.value.id
    current = lowering.env.get(name)
    if not _fresh(lowering, name, current):
        raise lowering.error(
            InPlaceWriteError, node.target,
            f"`{_text(node.target)}` writes into part of an array in place, "
            "which symdiff cannot differentiate",
            "build a new array instead: e.g. `x = np.concatenate([[v], x[1:]])` "
            "or `x = np.where(mask, v, x)`; writing into an array the function "
            "has just made (`g = np.zeros_like(x)`) and not used yet is fine")
    index = lowering.index(node.target.slice)
    if not all(isinstance(part, Const) and _basic(part.value) for part in index):
        # g[i] += v with an index array is g[i] = g[i] + v: a repeated position
        # gets v once (not added up), which is no gradient operation
        raise lowering.error(
            InPlaceWriteError, node.target,
            f"`{_text(node.target)}` adds into an array in place at positions computed "
            "at run time, which symdiff cannot differentiate",
            "use constant slices and integers, or build a new array: "
            "`g = g + np.where(mask, v, 0.0)`")
    value = lowering.atom(lowering.expr(node.value), node.value)
    placed = lowering.b.op("unindex", value, current, *index, hint=name)
    lowering.bind(ast.Name(name, ast.Store()), lowering.b.op("add", current, placed, hint=name))


def _fresh(lowering, name, var):
    """``var`` was made in this block by an operation returning a new array,
    nothing has read it, and no other name holds it."""
    if not isinstance(var, Var):
        return False
    if any(_holds(v, var) for n, v in lowering.env.items() if n != name):
        return False
    block = lowering.b.stmts
    made = next((i for i, s in enumerate(block) if isinstance(s, Op) and s.target is var),
                None)
    if made is None:
        return False
    op = block[made]
    if op.prim not in _FRESH and not (op.prim == "npcall" and op.param("func") in _FRESH_CALLS):
        return False
    return not any(var in _reads(s) for s in walk(block[made + 1:]))


def _basic(value):
    """An index part that selects each position at most once."""
    return value is None or value is Ellipsis or isinstance(value, slice) \
        or (isinstance(value, int) and not isinstance(value, bool))


def _holds(value, var):
    return value is var or any(_holds(v, var) for v in getattr(value, "items", None) or ())


def _reads(stmt):
    found = set(a for a in uses(stmt) if isinstance(a, Var))
    for m in getattr(stmt, "merges", ()):
        found.update((m.then, m.orelse))
    for c in getattr(stmt, "carried", ()):
        found.update((c.update, c.init))
    found.update(getattr(stmt, "saves", ()))
    if blocks(stmt):
        found.update(a for a in (getattr(stmt, "cond", None), getattr(stmt, "exit", None)))
    return found


def _text(node):
    text = ast.unparse(node)
    return text if len(text) <= 40 else text[:37] + "..."
