"""NumPy functions that change an array they are given: ``np.fill_diagonal``.

Their result is None and their effect is on the array, so lowered as a call
they would leave the function's values as they were, and its gradient wrong.
``np.fill_diagonal(S, v)`` is the write ``S[np.diag_indices(min(S.shape[0],
S.shape[-1]), S.ndim)] = v`` (NumPy's positions with ``wrap=False``, a contrastive loss's
``-np.inf`` on the diagonal), checked like every write (writes.py: into an
array the function made, by its name). The others are refused at their line,
each with the write that does the same.
"""
from __future__ import annotations

import ast

import numpy as np

from ..errors import InPlaceWriteError
from .compile_time import Static
from .writes import follow_write, _writable

# Each function that writes into its first argument, with that write in Python.
_WRITES = {
    np.put: "a.flat[ind] = v` (or `a[np.unravel_index(ind, a.shape)] = v`",
    np.place: "a[mask] = v` (for as many `v` as `mask` is true)",
    np.putmask: "a = np.where(mask, v, a)` (for a `v` of `a`'s shape)",
    np.copyto: "a = np.where(where, src, a)` (or `a[...] = src`",
    np.put_along_axis: "a = a.copy(); a[index arrays] = v`, with the index spelled out",
}
_MODULE = "<numpy>"  # (a name no user can write: the module, while lowering a write)


def fills_diagonal(lw, call):
    """Whether the statement ``call`` is ``np.fill_diagonal(...)``."""
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, (ast.Name, ast.Attribute)):
        module = lw.expr(func.value)
        return isinstance(module, Static) and \
            getattr(module.obj, func.attr, None) is np.fill_diagonal
    if isinstance(func, ast.Name):
        found = lw.expr(func)
        return isinstance(found, Static) and found.obj is np.fill_diagonal
    return False


def refuse_in_place(lw, name, node):
    """Refuse the NumPy function ``name`` where it writes into an argument (a
    ``np.fill_diagonal`` not a statement of its own included)."""
    if name == "fill_diagonal":
        raise lw.error(InPlaceWriteError, node,
                       "`np.fill_diagonal(...)` changes its first argument in place and "
                       "returns None", "call it as a statement of its own: "
                       "`np.fill_diagonal(a, v)`")
    write = _WRITES.get(getattr(np, name, None)) if "." not in name else None
    if write is not None:
        raise lw.error(InPlaceWriteError, node,
                       f"`np.{name}(...)` changes its first argument in place (and returns "
                       "None); symdiff differentiates values, not changes made to them",
                       f"write it as an assignment: `{write}`")


def lower_fill_diagonal(lw, call):
    return _fill_diagonal(lw, call)


def _fill_diagonal(lw, call):
    """``np.fill_diagonal(a, val, wrap=False)`` as the write of ``val`` at
    ``a``'s diagonal (2-D: ``(i, i)`` for ``i < min(a.shape)``)."""
    args = list(call.args) + [k.value for k in call.keywords if k.arg == "val"]
    wrap = [k.value for k in call.keywords if k.arg == "wrap"] + list(call.args[2:3])
    named = isinstance(call.args[0], ast.Name) if call.args else False
    if not named or len(args) < 2 or any(k.arg not in ("val", "wrap") for k in call.keywords) \
            or any(not (isinstance(w, ast.Constant) and w.value is False) for w in wrap):
        raise lw.error(InPlaceWriteError, call,
                       "`np.fill_diagonal` is read here as `np.fill_diagonal(a, val)` with `a` "
                       "a name and no `wrap=True`",
                       "write `np.fill_diagonal(a, val)`; for a tall matrix's wrapped "
                       "diagonals, write each into `a[rows, cols] = v`")
    name = call.args[0].id
    base = _writable(lw, name, call)
    value = lw.atom(lw.expr(args[1]), call)
    at = dict(lineno=call.lineno, col_offset=call.col_offset)
    array = ast.Name(name, ast.Load(), **at)

    def length(axis):
        return ast.Subscript(ast.Attribute(array, "shape", ast.Load(), **at),
                             ast.Constant(axis, **at), ast.Load(), **at)
    positions = ast.Call(
        ast.Attribute(ast.Name(_MODULE, ast.Load(), **at), "diag_indices", ast.Load(), **at),
        [ast.Call(ast.Name("min", ast.Load(), **at), [length(0), length(-1)], [], **at),
         ast.Attribute(array, "ndim", ast.Load(), **at)], [], **at)
    saved = lw.env.get(_MODULE)
    lw.env[_MODULE] = Static(np)
    try:
        index = lw.atom(lw.expr(positions), call)
    finally:
        lw.env.pop(_MODULE)
        if saved is not None:
            lw.env[_MODULE] = saved
    new = lw.b.op("setitem", base, value, index, hint=name)
    follow_write(lw, name, base, new, call)
