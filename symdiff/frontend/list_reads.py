"""A list read in the loop that appends to it: ``xs[-1]``, the last item.

    s2 = [np.var(r)]
    for t in range(1, len(r)):
        s2.append(omega + alpha * r[t - 1] ** 2 + beta * s2[-1])

In the loop, ``xs[-1]`` is what the previous iteration appended (or, in the
first, the last item before the loop): a value the loop carries. The loop's
body is lowered as if written with a name for it, ``last = xs[-1]`` before
the loop and ``last = v; xs.append(last)`` for the append. Any other read of
such a list in its loop (``xs[t - 1]``, ``len(xs)``, ``np.array(xs)``) is
refused: the list grows as the loop runs, and its items are on a tape only
after the loop.
"""
from __future__ import annotations

import ast
import copy

from ..errors import UnsupportedSyntaxError
from ..ir.nodes import Const
from .compile_time import is_atom
from .tapes import HINT, TapeList


def last_items(lw, node):
    """``node`` (a ``for`` or ``while``) with its reads ``xs[-1]`` of the lists
    it appends to read as carried names; other reads refused."""
    lists = [name for name in _appended(node.body) if _filled_here(lw, name)]
    if not lists:
        return node, []
    node, keys = copy.deepcopy(node), []
    for name in lists:
        loads = [n for s in node.body for n in ast.walk(s) if _load(n, name)]
        lasts = [n for s in node.body for n in ast.walk(s) if _last(n, name)]
        stray = [n for n in loads if not any(n is last.value for last in lasts)
                 and not _is_append_of(n, node.body, name)]
        test = [n for n in ast.walk(node.test) if _load(n, name)] \
            if isinstance(node, ast.While) else []
        if stray or test:
            raise lw.error(UnsupportedSyntaxError, (stray or test)[0],
                           f"`{name}` is read in the loop that appends to it: only its "
                           f"last item, `{name}[-1]`, can be read there",
                           f"read `{name}[-1]`, or keep the value you need in a name the "
                           "loop reassigns (`prev = v`); " + HINT)
        if not lasts:
            continue
        prefix = lw.env[name].prefix
        upto = next(k for k, s in enumerate(node.body) if _append_name(s) == name)
        first = [n for n in _unguarded(node.body[:upto + 1]) if _last(n, name)]
        if not prefix and first:
            raise lw.error(UnsupportedSyntaxError, first[0],
                           f"`{name}[-1]` is read in the first iteration, when `{name}` "
                           "is empty", f"start the list with its first value "
                           f"(`{name} = [x0]`), or read `{name}[-1]` under `if t > 0:`")
        if prefix and not is_atom(prefix[-1]):
            raise lw.error(UnsupportedSyntaxError, lasts[0],
                           f"`{name}[-1]` is read in the loop that appends to `{name}`, "
                           "whose last item before the loop is not an array",
                           f"append arrays or numbers to `{name}`")
        hidden = _unused(lw, node, f"{name}_last")
        keys.append(hidden)
        lw.env[hidden] = prefix[-1] if prefix else Const(None)  # (read: fails, as in Python)
        _ReadLast(name, hidden).visit(node)
        node.body = [s for stmt in node.body for s in _named_append(stmt, name, hidden)]
    ast.fix_missing_locations(node)
    return node, keys


def forget(lw, keys):
    """After the loop, the names `last_items` made are no names of the function."""
    for key in keys:
        lw.env.pop(key, None)


def _unused(lw, node, name):
    """``xs_last`` (for the reader of generated code), or ``xs_last_``, ...:
    a name neither the function so far nor the loop uses."""
    used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    while name in lw.env or name in used:
        name += "_"
    return name


def _unguarded(stmts):
    """The nodes of ``stmts`` that every iteration reaches (outside any `if`)."""
    for stmt in stmts:
        yield from _reached(stmt)


def _reached(node):
    if isinstance(node, (ast.If, ast.IfExp, ast.BoolOp, ast.Lambda)):
        yield from _reached(node.test) if isinstance(node, (ast.If, ast.IfExp)) else \
            _reached(node.values[0]) if isinstance(node, ast.BoolOp) else ()
        return
    yield node
    for child in ast.iter_child_nodes(node):
        yield from _reached(child)


def _filled_here(lw, name):
    value = lw.env.get(name)
    return isinstance(value, TapeList) and value.known and value.level == len(lw.loops)


def _appended(stmts):
    """Names ``xs`` of the statements ``xs.append(v)`` at the top of ``stmts``."""
    return [s.value.func.value.id for s in stmts if _append_name(s) is not None]


def _append_name(stmt):
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
            and isinstance(stmt.value.func, ast.Attribute) \
            and stmt.value.func.attr == "append" \
            and isinstance(stmt.value.func.value, ast.Name):
        return stmt.value.func.value.id
    return None


def _is_append_of(load, stmts, name):
    return any(_append_name(s) == name and s.value.func.value is load for s in stmts)


def _load(node, name):
    return isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)


def _last(node, name):
    """``name[-1]``, read."""
    if not (isinstance(node, ast.Subscript) and _load(node.value, name)
            and isinstance(node.ctx, ast.Load)):
        return False
    index = node.slice
    return isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub) \
        and isinstance(index.operand, ast.Constant) and index.operand.value == 1 \
        and type(index.operand.value) is int


class _ReadLast(ast.NodeTransformer):
    def __init__(self, name, hidden):
        self.name, self.hidden = name, hidden

    def visit_Subscript(self, node):
        if _last(node, self.name):
            return ast.copy_location(ast.Name(self.hidden, ast.Load()), node)
        return self.generic_visit(node)


def _named_append(stmt, name, hidden):
    """``xs.append(v)`` as ``<last xs> = v; xs.append(<last xs>)``."""
    if _append_name(stmt) != name or len(stmt.value.args) != 1:
        return [stmt]
    keep = ast.copy_location(ast.Assign([ast.Name(hidden, ast.Store())],
                                        stmt.value.args[0]), stmt)
    stmt.value.args = [ast.copy_location(ast.Name(hidden, ast.Load()), stmt.value.args[0])]
    return [keep, stmt]
