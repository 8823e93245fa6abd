"""The errors of reading a value a write into an array made stale (writes.py):
a name that shares the array, or a list of views of it. Where the arguments'
shapes would show the value is a number (``y[j]`` of a vector, a copy), the
function is specialised on them instead (`ShapeUse`).
"""
from __future__ import annotations

from ..errors import InPlaceWriteError
from ..ir.nodes import Var
from ..ir.storage import maybe_item
from .compile_time import is_atom
from .containers import ShapeUse
from .tapes import TapeList


def maybe_number(lw, value):
    """Whether ``value`` is ``y[j]``, which the arguments' shapes may show is
    a number (a copy) rather than a view: specialise on them to know."""
    made = lw.b.facts.defs.get(value) if isinstance(value, Var) else None
    return made is not None and maybe_item(made, lw.b.facts)


def stale_error(lw, value, node):
    if isinstance(value.value, TapeList):
        error = lw.error(
            InPlaceWriteError, node,
            f"`{value.name}` holds views of `{value.writer}`, which line {value.lineno} "
            f"changed in place (`{value.text}`): NumPy's list shows that change, and "
            "symdiff, which differentiates values, cannot follow it",
            "append copies (`....append(row.copy())`) to keep the old values")
        held = value.value
        if any(is_atom(v) and maybe_number(lw, v)
               for v in held.prefix + (held.items or []) + held.after):
            raise ShapeUse(value.name, error)  # (c[t] of a vector: a number, a copy)
        return error
    copy = f"copy it where you make it (`{value.name} = ....copy()`) to keep the old values"
    message = f"`{value.name}` shares its array with `{value.writer}`, which line " \
        f"{value.lineno} changed in place (`{value.text}`): NumPy's `{value.name}` shows " \
        "that change, and symdiff, which differentiates values, cannot follow it"
    if maybe_number(lw, value.value):  # a number for a vector, a view of a row of a matrix
        raise ShapeUse(value.name, lw.error(
            InPlaceWriteError, node, message + " (unless it is a number: its array's "
            "shape decides)", "an integer per axis picks a number, a copy: give the "
            "arguments (`symdiff.source(df, x)`, `symdiff --shapes`), or " + copy))
    return lw.error(InPlaceWriteError, node, message,
                    f"{copy}, or read `{value.writer}` for the new ones")


# ---- what shares an array ---------------------------------------------------------------
