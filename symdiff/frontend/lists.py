"""Lists a function builds: ``xs = []``, ``xs.append(v)``, comprehensions.

A list is known when compiling until a loop that runs at run time appends
to it (tapes.py's `TapeList`): then the loop writes its items on a tape (the
list itself, in generated code), once per iteration, and the list is read
after the loop as an array, ``np.stack(xs)`` (also ``np.array(xs)``,
``np.sum(xs)``, ``sum(xs)``, ``xs[i]``, ``for x in xs:``), a `stack_list`
operation whose adjoint the loop's reverse reads back row by row
(ad/loops.py). A comprehension over values known when compiling is unrolled
into a list known when compiling; over an array or a range it is the loop it
stands for, appending to a list; ``sum(f(x) for x in xs)`` adds as it goes.
"""
from __future__ import annotations

import ast

import numpy as np

from ..errors import UnsupportedSyntaxError
from ..ir.nodes import Const, Var
from .compile_time import Dict, Tup
from .tapes import TapeList


def runtime_list(value):
    return isinstance(value, TapeList) and not value.known


def stacked(lw, tape, node, axis=0):
    """``np.stack(xs, axis)`` of a list a loop filled."""
    if tape.read:
        raise lw.error(UnsupportedSyntaxError, node, "the list is read back twice here",
                       "stack it once, `X = np.stack(xs)`, and use X")
    if len(tape.items) != 1:
        raise lw.error(UnsupportedSyntaxError, node,
                       "a list of tuples is stacked here; each iteration appended "
                       f"{len(tape.items)} values", "append one array per iteration "
                       "to each of several lists, and stack each")
    before = [lw.atom(v, node) for v in tape.prefix]
    after = [lw.atom(v, node) for v in tape.after]
    lw.b.list_tapes.add(tape.var)
    result = lw.b.op("stack_list", *before, tape.var, *after, before=len(before),
                     after=len(after), hint="stack")
    if axis:
        result = lw.b.op("moveaxis", result, source=0, destination=axis, hint="stack")
    return result


def call_on_list(lw, prim, args, kwargs, node):
    """``np.stack(xs, axis)``, ``np.array(xs)``, ``np.asarray(xs)`` of a list a
    loop filled: the list stacked; any other NumPy function: of it stacked
    (as NumPy reads a list: ``np.sum(xs)``, ``np.mean(xs, axis=0)``)."""
    from .arguments import prim_call, static_value
    if prim.name in ("stack", "array", "asarray", "vstack"):
        extra = set(kwargs) - {"axis"} if prim.name == "stack" else set(kwargs)
        if len(args) != 1 or extra:
            raise lw.error(UnsupportedSyntaxError, node,
                           f"`{prim.name}` of a list a loop filled takes the list"
                           + (" and `axis`" if prim.name == "stack" else ""),
                           "write np.stack(xs, axis=...)")
        axis = static_value(lw, kwargs.get("axis", Const(0)), "axis", "stack", node)
        return stacked(lw, args[0], node, axis)
    if prim.name in ("concatenate", "hstack", "column_stack", "dstack"):
        raise lw.error(UnsupportedSyntaxError, node,
                       f"`np.{prim.name}` of a list a loop filled is not supported: its "
                       "pieces' sizes are known only at run time",
                       "append arrays of one shape and np.stack them, then reshape: "
                       "`np.stack(xs).reshape(-1, ...)`")
    return prim_call(lw, prim, [stacked(lw, args[0], node)] + list(args[1:]), kwargs, node)


def repetition(lw, seq, count, node):
    """``[0.0] * n`` with ``n`` an int known only at run time (``len(r)``):
    ``np.full(n, 0.0)``, an array of floats written into as the list would be
    (NumPy would otherwise read the one-item list as an array and multiply it
    by ``n``); None where ``count`` may be an array. A list of anything else,
    or of several items, is refused; so are the list's own operations on it
    later (``+ [x]``, ``* 2``), which an array does otherwise."""
    facts = lw.b.facts
    made = facts.producer(count)
    found = facts.dtype(count)
    if not (found is int or isinstance(found, np.dtype) and found.kind in "iu" or
            made is not None and (made.prim in ("len", "size", "int") or made.prim == "getitem"
                                  and facts.producer(made.args[0]) is not None
                                  and facts.producer(made.args[0]).prim == "shape")):
        return None
    item = seq.items[0] if len(seq.items) == 1 else None
    if not (isinstance(item, Const) and type(item.value) in (int, float)):
        raise lw.error(UnsupportedSyntaxError, node,
                       "a list of other than one number, repeated a number of times "
                       "known only at run time", "make an array, `np.zeros(n)` or "
                       "`np.full(n, value)`, and write into it; or start `xs = [x0]` and "
                       "append in the loop")
    made = lw.b.op("npcall", count, Const(float(item.value)), func="full", kwargs=(),
                   hint="full")
    _repeated(lw).add(made)
    return made


def refuse_list_operation(lw, prim, left, right, node):
    """``xs + [x]`` or ``xs * 2`` of a list `repetition` made an array."""
    lists = [v for v in (left, right) if _from_repetition(lw, v)]
    if lists and prim in ("add", "multiply") and (
            any(isinstance(v, Tup) for v in (left, right)) or prim == "multiply" and any(
                isinstance(v, Const) and type(v.value) is int for v in (left, right))):
        raise lw.error(UnsupportedSyntaxError, node,
                       "a list operation on a list of a length known only at run time "
                       "(`[c] * n`, which symdiff makes an array)",
                       "make the array yourself (`np.zeros(n)`) and use np.concatenate "
                       "or np.tile")


def _repeated(lw):
    return lw.b.__dict__.setdefault("repeated_lists", set())


def _from_repetition(lw, value, depth=8):
    """Whether ``value`` is a `repetition`'s array, or one written into, or
    carried by a loop from one."""
    while isinstance(value, Var) and depth:
        if value in _repeated(lw):
            return True
        made = lw.b.facts.producer(value)
        if made is not None and made.prim == "setitem":
            value = made.args[0]
        elif value in lw.carried_from:
            value = lw.carried_from[value][0]
        else:
            return False
        depth -= 1
    return False


def nonempty(lw, tape):
    """``if xs:`` of a list a loop filled: whether it holds any item."""
    return lw.b.op("greater", length(lw, tape), Const(0), hint="filled")


def length(lw, tape):
    """``len(xs)``: the loop's appends and the others."""
    n = lw.b.op("len", tape.var, hint="n")
    extra = len(tape.prefix) + len(tape.after)
    return lw.b.op("add", n, Const(extra), hint="n") if extra else n


def spliced(lw, nodes):
    """``[x0, *xs, x1]`` with ``xs`` a list a loop filled: a list of those."""
    parts = []
    runtime = None
    for e in nodes:
        value = lw.expr(e.value) if isinstance(e, ast.Starred) else None
        if runtime_list(value):
            if runtime is not None:
                raise lw.error(UnsupportedSyntaxError, e, "two lists a loop filled are "
                               "spliced together here", "stack each, then concatenate")
            runtime = (value, len(parts))
            continue
        parts.extend(value.items if isinstance(value, Tup) else
                     [lw.expr(e)] if value is None else [value])
    tape, at = runtime
    return TapeList(tape.var, tape.level, tape.items, tape.read,
                    parts[:at] + tape.prefix, tape.after + parts[at:])


def comprehension(lw, node):
    """``[elt for x in xs if c]`` (or a generator's): the loop it stands for,
    appending to a list; a list known when compiling if the loop unrolls."""
    if len(node.generators) != 1 or node.generators[0].is_async:
        raise lw.error(UnsupportedSyntaxError, node,
                       "a comprehension with several `for`s is not supported",
                       "write the loops out, appending to a list")
    gen = node.generators[0]
    if gen.ifs:
        raise lw.error(UnsupportedSyntaxError, gen.ifs[0],
                       "a comprehension's `if` keeps a number of values known only at "
                       "run time, which symdiff does not differentiate",
                       "compute every value and mask them: `np.where(cond, value, 0.0)`")
    name = f"<comprehension {id(node)}>"
    saved = {n: lw.env.get(n) for n in _names(gen.target)}
    lw.env[name] = TapeList(Var("values"), len(lw.loops))
    append = ast.Expr(ast.Call(ast.Attribute(ast.Name(name, ast.Load()), "append",
                                             ast.Load()), [node.elt], []))
    loop = ast.For(gen.target, gen.iter, [append], [])
    for made in (append, append.value, append.value.func, loop):
        ast.copy_location(made, node)
    ast.fix_missing_locations(loop)
    lw.stmt_For(loop)
    result = lw.env.pop(name)
    for n, value in saved.items():  # (the loop's names are its own, as in Python 3)
        if value is None:
            lw.env.pop(n, None)
        else:
            lw.env[n] = value
    return Tup(tuple(result.prefix), is_list=True) if result.known else result


def dict_comprehension(lw, node):
    """``{k: f(v) for k, v in params.items()}`` over values known when compiling."""
    gen = node.generators[0]
    iterable = lw.expr(gen.iter)
    if len(node.generators) != 1 or gen.ifs or not isinstance(iterable, (Tup, Dict)):
        raise lw.error(UnsupportedSyntaxError, node,
                       "a dict comprehension runs over a list, tuple or dict known when "
                       "compiling here", "loop over `params.items()` of a dict argument")
    items = iterable.items if isinstance(iterable, Tup) else \
        tuple(Const(k) for k in iterable.keys)
    saved = {n: lw.env.get(n) for n in _names(gen.target)}
    keys, values = [], []
    for item in items:
        lw.bind(gen.target, item)
        key = lw.expr(node.key)
        if not isinstance(key, Const):
            raise lw.error(UnsupportedSyntaxError, node.key, "a dict's keys must be "
                           "constants here", "make the keys strings or numbers")
        keys.append(key.value)
        values.append(lw.expr(node.value))
    _restore(lw, saved)
    return Dict(tuple(keys), tuple(values))


def _restore(lw, saved):
    for n, value in saved.items():
        if value is None:
            lw.env.pop(n, None)
        else:
            lw.env[n] = value


def generator_sum(lw, node, start):
    """``sum(f(x) for x in xs)``: a running total, no list."""
    if len(node.generators) != 1 or node.generators[0].ifs:
        return None
    gen = node.generators[0]
    name = f"<sum {id(node)}>"
    lw.env[name] = start
    target = ast.Name(name, ast.Store())
    add = ast.Assign([target], ast.BinOp(ast.Name(name, ast.Load()), ast.Add(), node.elt))
    loop = ast.For(gen.target, gen.iter, [add], [])
    for made in (target, add, add.value, add.value.left, loop):
        ast.copy_location(made, node)
    ast.fix_missing_locations(loop)
    saved = {n: lw.env.get(n) for n in _names(gen.target)}
    lw.stmt_For(loop)
    last = lw.b.stmts[-1] if lw.b.stmts else None
    for carry in getattr(last, "carried", ()):
        if carry.param.hint == name:  # (named for the reader: a running total)
            for var in (carry.param, carry.out, carry.update):
                if isinstance(var, Var) and var.hint == name:
                    var.hint = "total"
    for n, value in saved.items():
        if value is None:
            lw.env.pop(n, None)
        else:
            lw.env[n] = value
    return lw.env.pop(name)


def _names(target):
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]
