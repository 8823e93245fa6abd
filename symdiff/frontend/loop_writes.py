"""Writes into arrays in loops (writes.py has the rules): a name that shares
an array a loop writes into is stale in the whole loop, a list of views of
such an array after it, and a carried array written into stays one the
function made.
"""
from __future__ import annotations

import ast

from ..errors import InPlaceWriteError, UnsupportedSyntaxError
from ..ir.nodes import walk
from .compile_time import Dict, Tup, is_atom
from .tapes import TapeList
from .writes import Stale, _holds, storage


def written_names(stmts):
    """Names whose arrays ``stmts`` write into (``out[i] = v``, ``np.add.at(out, ...)``)."""
    names = []
    for node in (n for s in stmts for n in ast.walk(s)):
        base = None
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
            base = node.value.value if isinstance(node.value, ast.Subscript) else node.value
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Subscript):
            base = node.target.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "at" and node.args:
            base = node.args[0]
        if isinstance(base, ast.Name) and base.id not in names:
            names.append(base.id)
    return names


def stale_in_loop(lw, body, node):
    """Before a loop: names that share an array the loop writes into, through
    another name, are stale in the loop and after it (a later iteration would
    read them after an earlier one wrote). Not a name each iteration first
    rebinds to a new array (``y = y + 1.0`` before ``y[k] = 0.0``): the loop
    never writes into the array it held before."""
    written = [n for n in written_names(body) if is_atom(lw.env.get(n))]
    for name in (n for n in written if not rebound_first(body, n)):
        value = lw.env[name]
        roots = storage(lw, value)[0]
        for other, held in list(lw.env.items()):
            if other not in written and not other.startswith("<") and _holds(lw, held, roots):
                lw.env[other] = Stale(other, name, node.lineno,
                                      f"{name}[...] = ... in the loop", held)


def rebound_first(body, name):
    """Whether the first of ``body``'s statements to bind or write into
    ``name`` is ``name = <arithmetic>`` or ``name = ....copy()``, at the top
    level (so on every iteration): a new array, never the one held before."""
    for stmt in body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == name:
            return _makes_new(stmt.value) and name not in written_names([stmt])
        if name in written_names([stmt]) or any(
                isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
                for n in ast.walk(stmt)):
            return False
    return False


def _makes_new(expr):
    if isinstance(expr, ast.BinOp):
        return True
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and \
        expr.func.attr == "copy" and not expr.args and not expr.keywords


def stale_lists(lw, before, body_env, node):
    """After a loop: a list that holds views of an array the loop writes into
    is stale (a later iteration's write changes what an earlier one appended)."""
    for name, value in body_env.items():
        if isinstance(value, Stale) and name in before:
            lw.env[name] = value
        if not isinstance(value, TapeList) or name not in before:
            continue
        for written in written_names(node.body):
            if is_atom(before.get(written)) and \
                    _holds(lw, value, storage(lw, before[written])[0]):
                lw.env[name] = Stale(name, written, node.lineno,
                                     f"{written}[...] = ... in the loop", value)


def check_carried(lw, loop, written_before, node):
    """A carried array the loop's body writes into must stay an array the
    function made: its next iteration writes into what the update holds."""
    made = {s.target for s in walk(loop.body) if hasattr(s, "target")}
    for carry in loop.carried:
        roots = storage(lw, carry.param)[0]
        if not roots & (lw.written - written_before):
            continue
        new_roots, whole = storage(lw, carry.update)
        if not whole or any(isinstance(r, str) or (r not in roots and r not in made)
                            for r in new_roots):
            raise lw.error(InPlaceWriteError, node,
                           f"the loop writes into `{carry.param.hint}`, which its next "
                           "iteration may hold another array (one the function did not "
                           "make for itself, or a view)",
                           f"reassign `{carry.param.hint}` only to arrays made in the "
                           "function (`....copy()`, `np.zeros(...)`)")


def changed_by_calls(lw, before, carried, node):
    """A value the loop does not assign, that a function it calls changed in
    place (``put(y, i, v)`` writing ``a[i] = v``): each iteration would see
    the first one's change only. Refused, with the remedy. A name made stale
    by a write in the loop (through another name for its array: ``K_1 = K``
    before the loop, ``K_2 = K_1`` and ``K_2[i, j] = v`` in it, as generated
    code writes a carried array in place) stays stale after it, if nothing in
    the loop reads it (no iteration can have read an old value)."""
    for name, value in before.items():
        now = lw.env.get(name)
        if name in carried or name.startswith("<") or now is value or \
                not (is_atom(value) or isinstance(value, Dict)):
            continue
        if isinstance(now, Stale):
            if name not in _read_names(lw, node):
                continue  # (stale_lists keeps it stale after the loop)
            raise lw.error(InPlaceWriteError, node,
                           f"the loop reads `{name}`, which shares its array with "
                           f"`{now.writer}`, which line {now.lineno} in the loop writes "
                           f"into: a later iteration would read `{name}` after that write",
                           f"read `{now.writer}` for the new values, or copy `{name}` where "
                           "you make it (`....copy()`) to keep the old ones")
        raise lw.error(InPlaceWriteError, node,
                       f"a function the loop calls changes `{name}` in place, and the loop "
                       f"does not assign `{name}`",
                       f"return it from the function and assign it in the loop (`{name} = "
                       f"f({name}, ...)`), or write into it in the loop itself")


def _read_names(lw, node):
    """Names the loop's body reads, and any function defined in the function
    being lowered (which the loop may call)."""
    nested = [n for n in ast.walk(lw.src.node) if isinstance(n, (ast.FunctionDef, ast.Lambda))
              and n is not lw.src.node]
    return {n.id for tree in [*node.body, *nested] for n in ast.walk(tree)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


_KINDS = {Dict: "a dict", TapeList: "a list"}


def known_lists(env):
    """The items of the lists known when compiling in ``env`` (a write into
    one, ``ws[0] = v``, changes the list itself: tapes.py), before a loop."""
    return {id(v): list(v.prefix) for v in env.values() if isinstance(v, TapeList) and v.known}


def containers_changed(lw, before, lists, node, carried=()):
    """After a loop's body: a dict, list or tuple made before the loop that
    the body reassigns or changes (``p = {"a": p["a"] * 2}``, ``p["a"] = v``,
    ``ys = ys + [v]``) is refused: a loop carries arrays and numbers (each
    iteration starts from the last one's), and the container would keep its
    value from before the loop. (A list the loop fills by `append` is the
    same list: tapes.py.)"""
    for name, value in before.items():
        if name.startswith("<") or name in carried or \
                not isinstance(value, (Tup, Dict, TapeList)):
            continue  # (``carried``: their items are the loop's: carried_containers.py)
        if _unchanged(value, lw.env.get(name), lists) or isinstance(lw.env.get(name), Stale):
            continue  # (a stale one is refused where it is read: writes.py)
        kind = "a list" if isinstance(value, Tup) and value.is_list else \
            _KINDS.get(type(value), "a tuple")
        where = _assignment(node.body, name) or node
        raise lw.error(UnsupportedSyntaxError, where,
                       f"`{name}` holds {kind} made before the loop, which the loop changes "
                       f"(line {where.lineno}): symdiff carries arrays and numbers through "
                       "a loop, not dicts, lists or tuples",
                       "give each array a name of its own for the loop (`a, b = p[\"a\"], "
                       "p[\"b\"]` before it, `a = ...` in it) and build the container after "
                       "the loop; a list the loop fills: `ys.append(v)`")


def _unchanged(value, now, lists):
    if now is not value:
        return False
    old = lists.get(id(value)) if isinstance(value, TapeList) and value.known else None
    return old is None or len(old) == len(value.prefix) and \
        all(a is b for a, b in zip(old, value.prefix))


def _assignment(body, name):
    """The first statement in ``body`` that assigns or writes into ``name``."""
    for stmt in (n for s in body for n in ast.walk(s) if isinstance(n, ast.stmt)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else \
            [stmt.target] if isinstance(stmt, (ast.AugAssign, ast.AnnAssign, ast.For)) else []
        for target in targets:
            for n in ast.walk(target):
                if isinstance(n, ast.Name) and n.id == name and \
                        not isinstance(stmt, ast.For):
                    return stmt
    return None
