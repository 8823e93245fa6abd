"""Moving early returns to the ends of branches.

``if c: return a`` followed by more statements becomes ``if c: return a``
``else: <the statements>``, so every path ends in its own return and the
lowering never needs a jump.
"""
from __future__ import annotations

import ast


def hoist_returns(stmts):
    """``stmts`` with the statements after a returning ``if`` moved into it."""
    out = []
    for i, stmt in enumerate(stmts):
        if isinstance(stmt, ast.If) and _returns_somewhere(stmt):
            rest = list(stmts[i + 1:])
            new = ast.If(stmt.test, _with_rest(stmt.body, rest),
                         _with_rest(stmt.orelse, rest))
            out.append(ast.copy_location(new, stmt))
            return out
        out.append(stmt)
        if isinstance(stmt, ast.Return):
            return out  # anything after a return is dead
    return out


def _with_rest(block, rest):
    if _always_returns(block):
        return hoist_returns(block)
    return hoist_returns(list(block) + rest)


def _returns_somewhere(stmt):
    return any(isinstance(n, ast.Return) for n in ast.walk(stmt)
               if not isinstance(n, (ast.FunctionDef, ast.Lambda)))


def _always_returns(block):
    if not block:
        return False
    last = block[-1]
    if isinstance(last, ast.Return):
        return True
    if isinstance(last, ast.If):
        return _always_returns(last.body) and _always_returns(last.orelse)
    return False
