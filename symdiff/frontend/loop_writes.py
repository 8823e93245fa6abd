"""Writes into arrays in loops (writes.py has the rules): a name that shares
an array a loop writes into is stale in the whole loop, a list of views of
such an array after it, and a carried array written into stays one the
function made.
"""
from __future__ import annotations

import ast

from ..errors import InPlaceWriteError
from ..ir.nodes import walk
from .compile_time import is_atom
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
    read them after an earlier one wrote)."""
    written = [n for n in written_names(body) if is_atom(lw.env.get(n))]
    for name in written:
        value = lw.env[name]
        roots = storage(lw, value)[0]
        for other, held in list(lw.env.items()):
            if other not in written and not other.startswith("<") and _holds(lw, held, roots):
                lw.env[other] = Stale(other, name, node.lineno,
                                      f"{name}[...] = ... in the loop", held)


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
