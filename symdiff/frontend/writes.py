"""Writes into arrays: ``out[i] = v``, ``out[mask] += v``, ``np.add.at(out, idx, v)``.

The IR is functional: ``out[i] = v`` is ``out2 = setitem(out, v, i)`` and
``out`` names ``out2`` from then on (optimize/writes_in_place.py writes it
back in place where that is safe, so loops stay O(n)). NumPy changes the
array itself, and every name and view sharing it sees the change; so a
write is lowered only where the two agree:

- the array was made in the function (``np.zeros``, ``x.copy()``, ``x *
  1.0``, ...): an argument's or a global's array is the caller's, which a
  gradient must not change (copy it first: ``x = x.copy()``);
- the name holds the whole array, not a view of part of it (write into the
  array itself: ``out[0, 1] = v``, not ``row = out[0]; row[1] = v``);
- another name for the same array follows the write (it names the new
  value); a name for a view of it, or one that may be it (chosen by an
  `if`), is *stale* after the write: reading it is an error that says why,
  where NumPy would show the new values and symdiff's IR the old ones.

In loops, a name sharing an array a loop writes into is stale in the whole
loop (a later iteration would read it after an earlier one wrote), and so is
a list of views of it after the loop (loop_writes.py).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from ..errors import InPlaceWriteError
from ..ir.nodes import Const, FreeVar, Var
from ..ir.primitive import TABLE
from ..ir.storage import FIRST_ONLY, WHOLE_FIRST, is_fresh, numpy_item
from .compile_time import Dict, OneBranch, Tup, is_atom
from .containers import ShapeUse
from .tapes import TapeList
from .index_add import index_add_applies, lower_index_add
from .stale_errors import maybe_number, stale_error  # noqa: F401 (theirs: lower.py, calls.py)

_UFUNC_AT = {"add": "add", "subtract": "subtract"}


@dataclass(frozen=True)
class Stale:
    """A name that shares an array a write changed: reading it is an error."""

    name: str
    writer: str      # the name written through
    lineno: int
    text: str        # the write, as the user wrote it
    value: object = None  # what it held: its shape is still right (np.shape(x) may read it)


def shape_of(value):
    """A value read only for its shape (``np.shape(x)``, ``x.ndim``): a stale
    name's old value has the right one."""
    return value.value if isinstance(value, Stale) and is_atom(value.value) else value


def storage(lw, atom, depth=0):
    """``(roots, whole)``: the arrays ``atom`` may be (or be a view of): `Var`s
    of the operations that made them, or a string naming an argument or global
    whose array it may be; and whether it is surely the whole of its array."""
    if not isinstance(atom, Var) or depth > 200:
        return frozenset(), True
    if isinstance(atom, FreeVar):
        return frozenset({f"the global `{atom.hint}`"}), True
    if atom in lw.b.param_locs:
        return frozenset({f"the argument `{atom.hint}`"}), True
    op = lw.b.facts.defs.get(atom)
    if op is not None:
        if is_fresh(op) or numpy_item(op, lw.b.facts):
            return frozenset({atom}), True
        if op.prim in FIRST_ONLY:
            roots, whole = storage(lw, op.args[0], depth + 1)
            return roots, whole and (op.prim in WHOLE_FIRST or
                                     op.prim == "getitem" and _whole_index(op.args[1:]))
        parts = [storage(lw, a, depth + 1) for a in op.args if isinstance(a, Var)]
        return frozenset().union(*(p[0] for p in parts)), False
    if atom in lw.merged:
        parts = [storage(lw, a, depth + 1) for a in lw.merged[atom][1:]]
    elif atom in lw.carried_from:
        parts = [storage(lw, a, depth + 1) for a in lw.carried_from[atom]]
    else:  # read from a tape, or made some other way: not known
        return frozenset({f"`{atom.hint}`"}), True
    return frozenset().union(*(p[0] for p in parts)), all(p[1] for p in parts)


def _whole_index(index):
    return all(isinstance(i, Const) and i.value == () for i in index)


def scopes(lw):
    """The names of ``lw``'s function, then of each function calling it
    (inlined): an array or dict it changes is theirs too."""
    while lw is not None:
        yield lw.env
        lw = getattr(lw, "caller", None)


def _holds(lw, value, roots):
    """Whether the compile-time ``value`` holds an array of ``roots``."""
    if is_atom(value):
        return bool(storage(lw, value)[0] & roots)
    if isinstance(value, (Tup, Dict)):
        return any(_holds(lw, v, roots) for v in value.items)
    if isinstance(value, OneBranch):
        return any(_holds(lw, v, roots) for v in (value.then, value.orelse) if v is not None)
    if isinstance(value, TapeList):  # a list of views: NumPy's shows the change too
        return any(_holds(lw, v, roots) for v in value.prefix + (value.items or []) + value.after)
    return False


# ---- the writes ---------------------------------------------------------------------------
def lower_store(lw, target, value, node):
    """``NAME[index] = value`` (``target`` an ast.Subscript)."""
    if _item_of_known(lw, target, value):
        return  # params["W"] = v, xs[0] = v: of a dict or list known when compiling
    name, base, index = _target(lw, target, node)
    new = lw.b.op("setitem", base, lw.atom(value, node), *index, hint=name)
    follow_write(lw, name, base, new, node)


def lower_aug_assign(lw, node, prim):
    """``x op= v``: on a name, a new value (refused where the name may share
    its array with another: for an array ``+=`` changes that one, for a float
    it does not, and which one happens is known only at run time); on a part
    of an array, a write."""
    if isinstance(node.target, ast.Subscript):
        if _aug_item_of_known(lw, node, prim):  # d["a"] += v
            return None
        if index_add_applies(lw, node):  # `g[1:] += v` into a new array: an add
            return lower_index_add(lw, node)
        return lower_aug_store(lw, node, prim)
    current = lw.expr(ast.Name(node.target.id, ast.Load(), lineno=node.lineno,
                               col_offset=node.col_offset))
    name, text = node.target.id, ast.unparse(node)
    # (a name for a value that may be this array: `w = a if c else v`, then `v += 1`;
    # of the arrays the function made: an argument's are "still the argument" below)
    roots = frozenset(r for r in storage(lw, current)[0] if isinstance(r, Var)) \
        if isinstance(current, Var) else frozenset()
    sharing = {n: v for env in scopes(lw) for n, v in env.items()
               if (n != name or env is not lw.env) and not n.startswith("<")
               and (v is current or roots and _holds(lw, v, roots))}
    others = list(sharing)
    shared = f"`{others[0]}`" if others else "the caller's array"
    if isinstance(current, Var) and (others or current in lw.b.param_locs):
        what = f"another name for `{others[0]}`" if others else "still the argument"
        error = lw.error(
            InPlaceWriteError, node,
            f"`{name}` is {what} here, so `{text}` may change {shared} in place",
            f"write `{name} = {name} {text.split()[1][:-1]} ...` to make a new value")
        if others and all(maybe_number(lw, v) for v in sharing.values()):
            raise ShapeUse(name, error)  # (`y = a[0]`: a number for a vector)
        raise error
    lw.bind(node.target, lw.binop(prim, current, lw.expr(node.value), node))


def _item_of_known(lw, target, value):
    """``d[key] = value`` for a dict, list or tuple known when compiling: the
    name holds one with that item replaced (or added, for a dict)."""
    if not isinstance(target.value, ast.Name):
        return False
    name = target.value.id
    held = lw.env.get(name)
    known = isinstance(held, (Dict, Tup)) or isinstance(held, TapeList) and held.known
    if not known:
        return False
    key = lw.expr(target.slice)
    if not isinstance(key, Const):
        raise lw.error(InPlaceWriteError, target,
                       f"`{_text(target)}` writes into a container at a place known only "
                       "at run time", "write at a constant key or position")
    if isinstance(held, Dict):  # (every name for the dict, the caller's too, sees it)
        new = held.with_item(key.value, value)
        lw.env[name] = new
        for env in scopes(lw):
            for other, v in list(env.items()):
                if v is held:
                    env[other] = new
        return True
    items = list(held.prefix if isinstance(held, TapeList) else held.items)
    try:
        items[key.value] = value
    except (IndexError, TypeError):
        raise lw.error(InPlaceWriteError, target, f"`{_text(target)}` is out of range",
                       f"it has {len(items)} items") from None
    if isinstance(held, TapeList):
        held.prefix[:] = items
    else:
        lw.env[name] = Tup(tuple(items), held.names, held.is_list)
    return True


def _aug_item_of_known(lw, node, prim):
    """``d["a"] += v`` of a dict or list known when compiling: ``+=`` changes
    the item's array in place (refused where another name, or the caller,
    holds it), and the item is the new value."""
    target = node.target
    held = lw.env.get(target.value.id) if isinstance(target.value, ast.Name) else None
    if not (isinstance(held, (Dict, Tup)) or isinstance(held, TapeList) and held.known):
        return False
    current = lw.expr(target)
    roots = storage(lw, current)[0] if isinstance(current, Var) else frozenset()
    others = [n for n, v in lw.env.items() if v is current or _holds(lw, v, roots)
              and not isinstance(v, (Dict, Tup, TapeList))]
    if any(isinstance(r, str) for r in roots) or others:
        what = f"`{others[0]}`" if others else "the caller's array"
        raise lw.error(InPlaceWriteError, node,
                       f"`{_text(node)}` changes an array {what} holds too, in place",
                       f"write `{_text(target)} = {_text(target)} + ...` to make a new value")
    _item_of_known(lw, target, lw.binop(prim, current, lw.expr(node.value), node))
    return True


def lower_aug_store(lw, node, prim):
    """``NAME[index] op= value``: NumPy's ``a[i] = a[i] op v``, so that a
    position an index repeats gets the last of its values, as in NumPy."""
    name, base, index = _target(lw, node.target, node)
    old = lw.b.op("getitem", base, *index)
    value = lw.binop(prim, old, lw.expr(node.value), node)
    new = lw.b.op("setitem", base, value, *index, hint=name)
    follow_write(lw, name, base, new, node)


def ufunc_at(lw, node):
    """The ufunc name of ``np.add.at(NAME, index, value)``, else None."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "at"
            and isinstance(func.value, ast.Attribute) and func.value.attr in _UFUNC_AT):
        return None
    module = lw.expr(func.value.value)
    return func.value.attr if getattr(module, "obj", None) is _numpy() else None


def lower_ufunc_at(lw, node, ufunc):
    """``np.add.at(out, index, v)``: each position ``index`` names gets v
    added once per time it is named (a repeated position adds up)."""
    if len(node.args) != 3 or node.keywords or not isinstance(node.args[0], ast.Name):
        raise lw.error(InPlaceWriteError, node,
                       f"`np.{ufunc}.at` takes an array's name, an index and a value here",
                       f"write `np.{ufunc}.at(out, index, values)` with `out` a name")
    name = node.args[0].id
    base = _writable(lw, name, node)
    index = lw.index(node.args[1])
    if len(index) == 1 and isinstance(index[0], Const) and type(index[0].value) is tuple:
        index = [Const(i) for i in index[0].value]  # np.s_[1:, 0]: the parts
    value = lw.atom(lw.expr(node.args[2]), node)
    placed = lw.b.op("unindex_add", value, base, *index)
    new = lw.b.op(_UFUNC_AT[ufunc], base, placed, hint=name)
    follow_write(lw, name, base, new, node)


def _target(lw, target, node):
    """The written name, its value, and the index (atoms) of a store target."""
    index_node, inner = target.slice, target.value
    if isinstance(inner, ast.Subscript) and isinstance(inner.value, ast.Name):
        first = lw.index(inner.slice)  # out[i][j] = v is out[i, j] = v for an integer i
        if len(first) == 1 and _integer(lw, first[0]):
            name = inner.value.id
            return name, _writable(lw, name, node, target), first + lw.index(index_node)
        raise lw.error(InPlaceWriteError, target,
                       f"`{_text(target)}` writes into a part of a part of an array",
                       f"index once: `{ast.unparse(inner.value)}[{ast.unparse(inner.slice)}, "
                       f"{ast.unparse(index_node)}] = ...`")
    if not isinstance(inner, ast.Name):
        raise lw.error(InPlaceWriteError, target,
                       f"`{_text(target)}` writes into an array that has no name of its own "
                       "in the function", "give it a local name, write into that, and use "
                       "the name: `w = obj.w.copy(); w[i] = v`")
    name = inner.id
    return name, _writable(lw, name, node, target), lw.index(index_node)


def _integer(lw, atom):
    if isinstance(atom, Const):
        return isinstance(atom.value, int) and not isinstance(atom.value, bool)
    op = lw.b.facts.defs.get(atom)
    boolean = op is not None and TABLE.get(op.prim) is not None and TABLE[op.prim].boolean
    return lw.b.facts.is_scalar(atom) and not boolean


def _writable(lw, name, node, shown=None):
    """The array ``name`` holds, if a write into it is what NumPy does
    (``shown``: the part of the statement messages quote)."""
    shown = node if shown is None else shown
    value = lw.expr(ast.Name(name, ast.Load(), lineno=node.lineno,
                             col_offset=node.col_offset))
    if not isinstance(value, Var):
        raise lw.error(InPlaceWriteError, node,
                       f"`{name}` is not an array the function can write into",
                       f"make it an array first: `{name} = np.zeros(n)`, `np.array(...)`")
    roots, whole = storage(lw, value)
    outside = sorted(r for r in roots if isinstance(r, str))
    if outside:
        whose = "the caller's array" if "argument" in outside[0] else "an array outside it"
        what = outside[0] if outside[0].endswith(f"`{name}`") \
            else f"`{name}`, which may be {outside[0]}"
        raise lw.error(InPlaceWriteError, node,
                       f"`{_text(shown)}` writes in place into {what}: that would change "
                       f"{whose}, which the function did not make",
                       f"write into a copy: `{name} = {name}.copy()` before the first write")
    if not whole and _shared(lw, name, roots):
        owner = next((n for n, v in lw.env.items() if is_atom(v) and v in roots), None)
        where = f"a view of part of `{owner}`" if owner else "a view of part of an array"
        raise lw.error(InPlaceWriteError, node,
                       f"`{_text(shown)}` writes in place into `{name}`, {where} (or may "
                       "be): the write would change that array too",
                       f"write into `{owner or 'the array'}` itself with one index "
                       "(`out[i, j] = v`), or copy the part first (`part = ....copy()`)")
    return value


def _shared(lw, name, roots):
    """Whether a name other than ``name`` holds an array of ``roots``: a view
    of an array nothing else names (``B = np.linalg.inv(A).T``) may be
    written into, as no other value shows the change."""
    return any(_holds(lw, value, roots) for env in scopes(lw) for other, value in env.items()
               if not (other == name and env is lw.env or other.startswith("<")))


_STALE = object()


def _followed(lw, value, old, new, roots):
    """``value`` after a write made ``old``'s array ``new``: the array itself
    is the new one (in a tuple or dict too: ``{"y": y}`` holds the array), a
    view of it is stale (`_STALE`)."""
    if value is old:
        return new
    if isinstance(value, (Tup, Dict)):
        items = [_followed(lw, v, old, new, roots) for v in value.items]
        if any(v is _STALE for v in items):
            return _STALE
        if all(v is w for v, w in zip(items, value.items)):
            return value
        return Tup(tuple(items), value.names, value.is_list) if isinstance(value, Tup) \
            else Dict(value.keys, tuple(items))
    return _STALE if _holds(lw, value, roots) else value


def follow_write(lw, name, old, new, node):
    """After ``name`` was written into: it names ``new``, other names for the
    same value do too, and names of views of the array are stale."""
    roots = storage(lw, old)[0]
    text = _text(node) if not isinstance(node, ast.Call) else ast.unparse(node.func) + "(...)"
    for env in scopes(lw):  # (a function it calls wrote into the caller's array: its too)
        for other, value in list(env.items()):
            if other == name and env is lw.env or other.startswith("<"):
                continue
            followed = _followed(lw, value, old, new, roots)
            if followed is _STALE:
                env[other] = Stale(other, name, node.lineno, text, value)
            elif followed is not value:
                env[other] = followed
    lw.written.update(roots)
    lw.bind(ast.Name(name, ast.Store()), new)


def _numpy():
    import numpy
    return numpy


def _text(node):
    text = ast.unparse(node)
    return text if len(text) <= 40 else text[:37] + "..."
