"""Moving early returns to the ends of branches.

``if c: return a`` followed by more statements becomes ``if c: return a``
``else: <the statements>``, so every path ends in its own return and the
lowering never needs a jump.
"""
from __future__ import annotations

import ast


def hoist_returns(stmts):
    """``stmts`` with the statements after a returning ``if`` moved into it."""
    return hoist(stmts, (ast.Return,))


def hoist(stmts, jumps):
    """``stmts`` with the statements after an ``if`` that may jump (a node of a
    type in ``jumps``) moved into the branches that do not."""
    out = []
    for i, stmt in enumerate(stmts):
        if isinstance(stmt, ast.If) and _jumps_somewhere(stmt, jumps):
            rest = list(stmts[i + 1:])
            new = ast.If(stmt.test, _with_rest(stmt.body, rest, jumps),
                         _with_rest(stmt.orelse, rest, jumps))
            out.append(ast.copy_location(new, stmt))
            return out
        out.append(stmt)
        if isinstance(stmt, jumps):
            return out  # anything after a jump is dead
    return out


def _with_rest(block, rest, jumps):
    if _always_jumps(block, jumps):
        return hoist(block, jumps)
    return hoist(list(block) + rest, jumps)


def _jumps_somewhere(stmt, jumps):
    """A jump in ``stmt`` that leaves it (not one inside a nested def or loop)."""
    todo = [stmt]
    while todo:
        node = todo.pop()
        if isinstance(node, jumps):
            return True
        inner_loop = isinstance(node, (ast.For, ast.While)) and ast.Return not in jumps
        if not isinstance(node, (ast.FunctionDef, ast.Lambda)) and not inner_loop:
            todo.extend(ast.iter_child_nodes(node))
    return False


def _always_jumps(block, jumps):
    if not block:
        return False
    last = block[-1]
    if isinstance(last, jumps):
        return True
    if isinstance(last, ast.If):
        return _always_jumps(last.body, jumps) and _always_jumps(last.orelse, jumps)
    return False
