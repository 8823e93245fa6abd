"""Lowering `for` and `while` loops into `Loop` nodes.

Names a loop assigns that existed before it are *carried*: a `Carry` holds
their value before, during and after the loop. `break` and `continue` are
made structured first (the statements after a jump move into the other
branch, as for early returns); `break` then sets a flag the loop tests after
each iteration.
"""
from __future__ import annotations

import ast

from ..errors import UnsupportedSyntaxError
from ..ir.nodes import Carry, Const, Loop, Var
from ..ir.primitive import SCALAR
from .early_exits import hoist
from .tapes import filled_in, reversed_tapes, tape_loop
from .reversed_ranges import counted_down
from .compile_time import Dict, Static, Tup, is_atom
from .containers import container_use
from .carried_containers import carry_containers, container_updates, containers_after
from .list_reads import forget, last_items
from .lists import runtime_list, stacked
from .loop_writes import changed_by_calls, check_carried, containers_changed, known_lists, \
    stale_in_loop, stale_lists, written_names

BROKE = "<break>"


def lower_for(lw, node):
    _no_else(lw, node)
    node = counted_down(lw, node)  # reversed(range(...))
    tapes = reversed_tapes(lw, node.iter)
    if tapes is not None:
        _lower_loop(lw, node, *tape_loop(lw, node, tapes))
        return
    iterable = _iterable(lw, node.iter)
    if isinstance(iterable, Dict):  # a dict's keys
        iterable = Tup(tuple(Const(k) for k in iterable.keys))
    seqs = _zip_seqs(lw, node.iter, iterable)
    items = _unrolled(lw, node, iterable, seqs)
    if items is not None:  # a list, tuple or dict known when compiling
        for item in items:
            lw.bind(node.target, item)
            _lower_plain_body(lw, node)
        return
    if runtime_list(iterable):  # for x in xs, of a list a loop filled: its rows
        iterable = stacked(lw, iterable, node.iter)
    if is_atom(iterable):
        container_use(lw, iterable, definite=False)
    bounds, bind = _iteration(lw, node, iterable, seqs)
    index = Var(node.target.id if bind is None else "i")
    lw.b.facts.shape[index] = SCALAR  # an int: its tests and indices need no checks
    if lw.b.facts.signature:
        lw.b.facts.dtypes[index] = int
    _lower_loop(lw, node, Loop("range", [], [], index=index, bounds=bounds,
                               loc=lw.src.loc(node)),
                lambda: bind(index) if bind else lw.env.__setitem__(node.target.id, index))


def lower_while(lw, node):
    _no_else(lw, node)
    loop = Loop("while", [], [], loc=lw.src.loc(node))
    before, node = _pretest(node)

    def start():
        with lw.b.block() as cond_block:
            if lw.lower_body(before) is not None:
                raise lw.error(UnsupportedSyntaxError, node, "`return` inside a loop",
                               "assign the value, `break`, and return after the loop")
            loop.cond = lw.predicate(node.test)
        loop.cond_block = cond_block
    _lower_loop(lw, node, loop, start)
    carried = {c.param.hint for c in loop.carried}
    for name in _assigned(before):  # computed for the test only, as in the IR
        if name not in carried:
            lw.env.pop(name, None)
    changing = {c.param for c in loop.carried if c.update is not c.param}
    broken = not (isinstance(loop.exit, Const) and loop.exit.value is False)
    if not (broken and isinstance(loop.cond, Const)) and \
            not _depends_on(loop.cond_block, loop.cond, changing):
        if isinstance(node.test, ast.Constant) and node.test.value:
            raise lw.error(UnsupportedSyntaxError, node.test,
                           f"`while {ast.unparse(node.test)}:` runs forever here: no "
                           "`break` in its body leaves it (one in an inner loop leaves that)",
                           "add `if done: break` to this loop's own body, or loop over a "
                           "bound: `for _ in range(max_steps):`")
        raise lw.error(UnsupportedSyntaxError, node.test,
                       "the loop never changes what its condition reads, so it "
                       "would run forever or not at all",
                       "update a variable of the condition inside the loop")


def _pretest(node):
    """``while True: <stmts>; if not c: break; <rest>`` is ``while c: <rest>``
    with ``<stmts>`` run before each test (how generated gradients write a
    condition that takes several statements)."""
    if not (isinstance(node.test, ast.Constant) and node.test.value is True):
        return [], node
    for k, stmt in enumerate(node.body):
        if isinstance(stmt, ast.If) and isinstance(stmt.test, ast.UnaryOp) \
                and isinstance(stmt.test.op, ast.Not) and not stmt.orelse \
                and len(stmt.body) == 1 and isinstance(stmt.body[0], ast.Break):
            before = node.body[:k]
            if any(isinstance(n, (ast.Break, ast.Continue)) for s in before
                   for n in ast.walk(s)):
                break
            return before, ast.copy_location(
                ast.While(test=stmt.test.operand, body=node.body[k + 1:], orelse=[]),
                node)
    return [], node


def _lower_loop(lw, node, loop, start):
    node, lasts = last_items(lw, node)  # xs[-1] in the loop that appends to xs
    stale_in_loop(lw, node.body, node)  # (writes.py)
    filled = filled_in(lw, node.body, node.lineno)
    try:
        _lower_loop_body(lw, node, loop, start, lasts)
    finally:
        for tape in filled:
            tape.filling = None


def _lower_loop_body(lw, node, loop, start, lasts):
    before, written, lists = dict(lw.env), set(lw.written), known_lists(lw.env)
    names = [n for n in _assigned(node.body) if n in before and is_atom(before[n])]
    for name in names:
        loop.carried.append(Carry(Var(name), before[name], None, Var(name)))
        lw.carried_from[loop.carried[-1].param] = (before[name],)
    lw.env.update({c.param.hint: c.param for c in loop.carried})
    _written_only(lw, loop, node.body)
    held = carry_containers(lw, loop, before, _assigned(node.body), set(_assigned([node])))
    lw.b.named.update(c.param for c in loop.carried)
    with lw.b.block() as body:
        lw.loops.append((loop, body))
        start()
        lw.env[BROKE] = Const(False)
        if lw.lower_body(hoist(node.body, (ast.Break, ast.Continue))) is not None:
            raise lw.error(UnsupportedSyntaxError, node, "`return` inside a loop",
                           "assign the value, `break`, and return after the loop")
        lw.loops.pop()
    if loop.kind == "while":
        body[:0] = []  # the condition lives in cond_block
    loop.body = body
    loop.exit = lw.env.pop(BROKE)
    container_updates(lw, node, held)  # (a dict's or tuple's items: carried_containers.py)
    for carry in loop.carried:
        update = lw.env[carry.param.hint]
        if not is_atom(update):
            raise lw.error(UnsupportedSyntaxError, node,
                           f"`{carry.param.hint}` holds a non-array value in the loop",
                           "keep arrays and numbers in names a loop reassigns; use "
                           "another name for tuples, functions or modules")
        carry.update = update
        lw.carried_from[carry.out] = (carry.init, update)
    check_carried(lw, loop, written, node)
    changed_by_calls(lw, before, {c.param.hint for c in loop.carried} | set(
        _assigned(node.body)) | {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
        if hasattr(node, "target") else set(_assigned(node.body)), node)
    containers_changed(lw, before, lists, node, {h.name for h in held})
    body_env, lw.env = lw.env, {n: v for n, v in before.items()}
    stale_lists(lw, before, body_env, node)
    for name in _assigned(node.body):  # (read after the loop: its last value, carry_out)
        if name not in before and not name.startswith("<"):
            lw.loop_locals[name] = (node.lineno, loop, body_env.get(name))
    for carry in loop.carried:
        lw.env[carry.param.hint] = carry.out
        lw.b.named.add(carry.out)
        lw.b.facts.shape[carry.out] = lw.b.facts.key(carry.param)
    containers_after(lw, held)
    forget(lw, lasts)
    lw.b.append(loop)


def _written_only(lw, loop, body):
    """A carried array the body only writes into (``y[j] = v``, never ``y =
    ...``) keeps its shape in every iteration: in a specialised gradient, its
    start's (``t = y[j]`` of a vector is then a number: ir/storage.py)."""
    if not lw.b.facts.signature:
        return
    bound = {n.id for s in body for n in ast.walk(s)
             if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    for carry in loop.carried:
        if carry.param.hint not in bound and is_atom(carry.init):
            lw.b.facts.shape[carry.param] = lw.b.facts.key(carry.init)


def carry_out(lw, name):
    """A name first assigned in a loop, read after it: its value in the last
    iteration, as in Python (a carried value the loop starts as None: if the
    loop never ran, using it fails there, where Python raises NameError).
    None if the loop is not in the block being lowered, or the name holds
    other than an array or a number."""
    lineno, loop, value = lw.loop_locals[name]
    if not is_atom(value) or not any(s is loop for s in lw.b.stmts):
        return None
    carry = Carry(Var(name), Const(None), value, Var(name))
    loop.carried.append(carry)
    lw.carried_from[carry.out] = (carry.init, value)
    lw.b.facts.shape[carry.out] = lw.b.facts.key(value)
    lw.b.named.add(carry.out)
    lw.env[name] = carry.out
    return carry.out


def _iterable(lw, node):
    """range / zip / enumerate themselves (not a call of them), or the value."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        func = lw.expr(node.func)
        if isinstance(func, Static) and func.obj in (range, zip, enumerate):
            return func
    return lw.expr(node)


def _zip_seqs(lw, call, iterable):
    """The sequences ``zip``/``enumerate`` run over, lowered once (a dict's
    keys), and whether it is ``enumerate(zip(a, b))``; else None."""
    if not isinstance(iterable, Static) or iterable.obj not in (zip, enumerate) \
            or call.keywords:
        return None
    args = call.args
    inner = _iterable(lw, args[0]) if len(args) == 1 and isinstance(args[0], ast.Call) else None
    zipped = iterable.obj is enumerate and isinstance(inner, Static) and inner.obj is zip \
        and not args[0].keywords and bool(args[0].args)  # (enumerate(zip(a, b)): i, (a_i, b_i))
    seqs = [lw.expr(a) for a in (args[0].args if zipped else args)]
    return [Tup(tuple(Const(k) for k in s.keys)) if isinstance(s, Dict) else s
            for s in seqs], zipped


def _unrolled(lw, node, iterable, zip_seqs):
    """The items of a loop unrolled when compiling, or None: over a tuple,
    list or dict known then, ``zip``/``enumerate`` of them (``zip_seqs``),
    or a ``range`` of constant bounds whose counter indexes one
    (``params[i]``)."""
    if isinstance(iterable, Tup):
        return list(iterable.items)
    if not isinstance(iterable, Static) or not isinstance(node.iter, ast.Call):
        return None
    if zip_seqs is not None:
        seqs, zipped = zip_seqs
        if not any(isinstance(s, Tup) for s in seqs) or \
                iterable.obj is enumerate and len(seqs) != 1 and not zipped:
            return None
        n = min(len(s.items) for s in seqs if isinstance(s, Tup))
        rows = [tuple(s.items[i] if isinstance(s, Tup) else
                      lw.b.op("getitem", lw.atom(s, node.iter), Const(i)) for s in seqs)
                for i in range(n)]
        if zipped:
            return [Tup((Const(i), Tup(row))) for i, row in enumerate(rows)]
        if iterable.obj is enumerate:
            return [Tup((Const(i),) + row) for i, row in enumerate(rows)]
        return [Tup(row) for row in rows]
    if iterable.obj is range and isinstance(node.target, ast.Name) \
            and _indexes_container(lw, node.body, node.target.id):
        bounds = [lw.expr(a) for a in node.iter.args]
        if bounds and all(isinstance(b, Const) and isinstance(b.value, int) for b in bounds):
            return [Const(i) for i in range(*(b.value for b in bounds))]
    return None


def _held(lw, node):
    """The compile-time value a name, or a constant index or slice of one,
    holds (``p['layers']``, ``ws[1:]``), without lowering it; else None."""
    if isinstance(node, ast.Name):
        return lw.env.get(node.id)
    if not isinstance(node, ast.Subscript):
        return None
    held = _held(lw, node.value)
    try:
        if isinstance(node.slice, ast.Slice):
            parts = [None if p is None else ast.literal_eval(p)
                     for p in (node.slice.lower, node.slice.upper, node.slice.step)]
            key = slice(*parts)
        else:
            key = ast.literal_eval(node.slice)
        if isinstance(held, Dict):
            return held.get(key)
        if isinstance(held, Tup):
            items = held.items[key]
            return Tup(items, is_list=held.is_list) if isinstance(key, slice) else items
    except (ValueError, TypeError, IndexError, SyntaxError):
        return None
    return None


def _indexes_container(lw, body, name):
    """Whether ``body`` indexes a list, tuple or dict known when compiling
    with ``name`` (``params[i]``)."""
    for sub in (n for s in body for n in ast.walk(s)):
        if isinstance(sub, ast.Subscript) and any(
                isinstance(n, ast.Name) and n.id == name for n in ast.walk(sub.slice)) \
                and isinstance(_held(lw, sub.value), (Tup, Dict)):
            return True
    return False


def _lower_plain_body(lw, node):
    outer = lw.env.get(BROKE)  # (an enclosing loop's flag: its own again after this body)
    lw.env[BROKE] = Const(False)
    lw.unrolling += 1
    try:
        returned = lw.lower_body(hoist(node.body, (ast.Break, ast.Continue)))
    finally:
        lw.unrolling -= 1
    if returned is not None:
        raise lw.error(UnsupportedSyntaxError, node, "`return` inside a loop",
                       "assign the value, `break`, and return after the loop")
    broke = lw.env.pop(BROKE)
    if outer is not None:
        lw.env[BROKE] = outer
    if broke != Const(False):
        raise lw.error(UnsupportedSyntaxError, node,
                       "`break` in a loop over a tuple", "loop over range(len(...))")


def _iteration(lw, node, iterable, zip_seqs):
    """(start, stop, step) atoms, and how to bind the target from the index."""
    call = node.iter
    if isinstance(iterable, Static) and iterable.obj is range:
        args = [lw.atom(lw.expr(a), a) for a in call.args]
        for arg, a_node in zip(args, call.args):
            if isinstance(arg, Const) and not isinstance(arg.value, int):
                raise lw.error(UnsupportedSyntaxError, a_node,
                               f"range() bound {arg.value!r} is not an integer",
                               "use an int, e.g. int(n) or x.shape[0]")
        if not 1 <= len(args) <= 3 or not isinstance(node.target, ast.Name):
            raise lw.error(UnsupportedSyntaxError, node, "range() takes 1 to 3 bounds "
                           "and the loop one name", "write `for i in range(start, stop)`")
        start, stop, step = ([Const(0)] + args + [Const(1)])[:3] if len(args) == 1 \
            else (args + [Const(1)])[:3]
        return (start, stop, step), None
    if isinstance(iterable, Static) and iterable.obj in (zip, enumerate):
        return _zip_like(lw, node, iterable.obj, zip_seqs)
    if is_atom(iterable):
        length = lw.b.op("len", iterable, hint="n")
        return (Const(0), length, Const(1)), \
            lambda i: lw.bind(node.target, lw.b.op("getitem", iterable, i))
    raise lw.error(UnsupportedSyntaxError, node.iter,
                   "a loop must run over range(...), an array, zip(...) or enumerate(...)",
                   "loop over range(len(...)) and index")


def _zip_like(lw, node, kind, zip_seqs):
    seqs, zipped = zip_seqs if zip_seqs is not None else ([], False)
    seqs = [lw.atom(s, node.iter) for s in seqs]
    for seq in seqs:  # (an argument iterated over may be a list, if the call gives one)
        container_use(lw, seq, definite=False)
    if not seqs or node.iter.keywords or (kind is enumerate and len(seqs) != 1 and not zipped):
        raise lw.error(UnsupportedSyntaxError, node.iter,
                       f"{kind.__name__}() takes arrays and no keywords here",
                       f"write {kind.__name__}(a, b)" if kind is zip else "write enumerate(a)")
    length = lw.b.op("len", seqs[0], hint="n")
    for seq in seqs[1:]:
        length = lw.b.op("minimum", length, lw.b.op("len", seq), hint="n")

    def bind(i):
        items = [lw.b.op("getitem", s, i) for s in seqs]
        if zipped:
            return lw.bind(node.target, Tup((i, Tup(tuple(items)))))
        lw.bind(node.target, Tup(tuple(([i] if kind is enumerate else []) + items)))
    return (Const(0), length, Const(1)), bind


def _assigned(stmts):
    """Names assigned in ``stmts``, in order of first assignment."""
    names = []
    for node in (n for s in stmts for n in ast.walk(s)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) \
                and node.id not in names:
            names.append(node.id)
    return names + [n for n in written_names(stmts) if n not in names]


def _depends_on(block, atom, params):
    needed, changed = {atom}, True
    defs = {s.target: s for s in block if hasattr(s, "target")}
    while changed:
        changed = False
        for var in list(needed):
            op = defs.get(var)
            for a in getattr(op, "args", ()):
                if a not in needed and isinstance(a, Var):
                    needed.add(a)
                    changed = True
    return bool(needed & params)


def _no_else(lw, node):
    if node.orelse:
        raise lw.error(UnsupportedSyntaxError, node.orelse[0],
                       "an `else` clause on a loop is not supported",
                       "use a flag set before `break`, and an `if` after the loop")
