"""Views on the right of a tuple assignment: ``y[0], y[1] = y[1], y[0]``.

Python evaluates the right side first, but NumPy's ``y[1]`` there is a view,
which shows the first write when the second one reads it (writes.py has the
rules for writes).
"""
from __future__ import annotations

import ast

from ..errors import InPlaceWriteError, UnsupportedSyntaxError
from ..ir.nodes import Const, Var
from .compile_time import Dict, Tup, is_atom
from .containers import container_use
from .writes import _holds, _text, storage


def unpacked(lw, target, value):
    """The targets and the values of ``a, b = value``; with a starred name
    (``B, *_ = np.linalg.lstsq(...)``, ``first, *rest = xs``) of a tuple or
    list known when compiling, the name gets the list of the middle items,
    as in Python."""
    stars = [k for k, e in enumerate(target.elts) if isinstance(e, ast.Starred)]
    if not stars:
        return target, lw.unpack(value, len(target.elts), target)
    k, after = stars[0], len(target.elts) - stars[0] - 1
    value = Tup(tuple(Const(key) for key in value.keys)) if isinstance(value, Dict) else value
    if is_atom(value):  # an argument unpacked so is a list: compiled for its items
        container_use(lw, value, definite=True)
    if not isinstance(value, Tup) or len(value.items) < len(target.elts) - 1:
        if isinstance(value, Tup):
            lw.unpack(value, len(target.elts) - 1, target)  # (Python's message: too few)
        raise lw.error(UnsupportedSyntaxError, target.elts[k],
                       f"`{ast.unparse(target.elts[k])}` in an unpacking takes the middle "
                       "items of a tuple or list known when compiling",
                       "unpack into plain names, or index the value: `first, rest = x[0], "
                       "x[1:]`")
    items = value.items
    plain = ast.copy_location(ast.Tuple(list(target.elts), ast.Store()), target)
    plain.elts[k] = target.elts[k].value
    return plain, items[:k] + (Tup(items[k:len(items) - after], is_list=True),) + \
        items[len(items) - after:]


def bind_unpacked(lw, target, items):
    """``a, y[0], y[1] = ...``: each target in turn, a view on the right
    showing the writes before it (`read_after_write`)."""
    items = list(items)
    for k, sub in enumerate(target.elts):
        written = sub.value.id if isinstance(sub, ast.Subscript) and \
            isinstance(sub.value, ast.Name) else None
        old = lw.env.get(written)
        lw.bind(sub, items[k])
        if written is not None:
            items[k + 1:] = read_after_write(lw, written, old, items[k + 1:], target)


def read_after_write(lw, name, old, items, node):
    """The values ``items`` still to be written, as NumPy has them after a
    write into ``name`` (``old`` its array before): ``y[0], y[1] = y[1],
    y[0]`` evaluates the right side first, but a part of ``y`` read there
    that is an array is a view, which shows the first write (both rows end
    up the old ``y[1]``); a number read is a copy (``v[0], v[1] = v[1],
    v[0]`` of a vector swaps). Where the rank is not known when compiling,
    which one is decided when the code runs."""
    new = lw.env.get(name)
    roots = storage(lw, old)[0] if isinstance(old, Var) else frozenset()
    out = []
    for item in items:
        made = lw.b.facts.producer(item) if isinstance(item, Var) else None
        if item is old or not roots or not _holds(lw, item, roots) or lw.b.facts.rank(item) == 0:
            out.append(new if item is old else item)
            continue
        if made is None or made.prim != "getitem" or made.args[0] is not old:
            raise lw.error(InPlaceWriteError, node,
                           f"`{_text(node)}` writes into `{name}` and then reads a view of "
                           "it made before that write: NumPy's view shows the new values",
                           "copy the values on the right first (`....copy()`)")
        again = lw.b.op("getitem", new, *made.args[1:], hint=item.hint)
        if lw.b.facts.rank(item) is None:
            is_number = lw.b.op("equal", lw.b.op("ndim", item), Const(0))
            again = lw.b.op("where", is_number, item, again, hint=item.hint)
        out.append(again)
    return out
